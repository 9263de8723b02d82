//! The matrix of a run over several plugins: a row per plugin (its verdict,
//! failed / warnings / notes, and a cell per capability: pass, fail, warn or
//! skipped), shared by the human report and the GitHub summary.

use crate::outcome::many::{ManyReport, plugin_name};
use crate::outcome::results::{CaseOutcome, Counts, RunReport};

/// One capability of one plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// Every case of it passed (notes allowed).
    Pass,
    /// A case failed (or, strict, warned).
    Fail,
    /// A case warned.
    Warn,
    /// Not declared, or none of its cases ran.
    Skipped,
}

impl Cell {
    /// The word in the matrix.
    pub fn label(self) -> &'static str {
        match self {
            Cell::Pass => "pass",
            Cell::Fail => "fail",
            Cell::Warn => "warn",
            Cell::Skipped => "skipped",
        }
    }
}

/// One plugin's row.
#[derive(Debug, Clone)]
pub struct Row {
    /// The agent name.
    pub name: String,
    /// The plugin's run fails.
    pub failed: bool,
    /// Its outcome counts.
    pub counts: Counts,
    /// One cell per capability of [`Matrix::groups`].
    pub cells: Vec<Cell>,
}

/// The whole matrix.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// The capability columns: `core`, then the protocol's order.
    pub groups: Vec<String>,
    /// A row per plugin, in the order given.
    pub rows: Vec<Row>,
}

/// The matrix of a run over several plugins.
pub fn of(run: &ManyReport, strict: bool) -> Matrix {
    let groups = run
        .plugins
        .first()
        .map(RunReport::groups)
        .unwrap_or_default();
    let rows = run
        .plugins
        .iter()
        .map(|plugin| Row {
            name: plugin_name(plugin),
            failed: plugin.failed(strict),
            counts: plugin.counts(),
            cells: groups.iter().map(|g| cell(plugin, g, strict)).collect(),
        })
        .collect();
    Matrix { groups, rows }
}

fn cell(run: &RunReport, group: &str, strict: bool) -> Cell {
    let cases: Vec<&CaseOutcome> = run
        .cases
        .iter()
        .filter(|c| c.capability == group)
        .map(|c| &c.outcome)
        .collect();
    let ran = |o: &&CaseOutcome| !matches!(o, CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_));
    if cases.iter().any(|o| **o == CaseOutcome::Failed) {
        Cell::Fail
    } else if cases.iter().any(|o| **o == CaseOutcome::Warning) {
        if strict { Cell::Fail } else { Cell::Warn }
    } else if !run.declares(group) || !cases.iter().any(ran) {
        Cell::Skipped
    } else {
        Cell::Pass
    }
}
