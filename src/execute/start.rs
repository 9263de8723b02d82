//! The start and the end of one plugin's run: its `Run` made, its gate
//! cases run (the plugin's `info`, as the host's discovery reads it), and
//! its report assembled. Shared by [`crate::execute::run`] and [`crate::execute::many`].

use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use serde_json::Value;

use crate::execute::breaker::Breaker;
use crate::execute::property::Corpora;
use crate::execute::{Finished, Options, Run, sandbox_maker};
use crate::outcome::results::{CaseOutcome, CaseReport, RunReport};
use crate::report::progress::Progress;
use crate::running::depot::Depot;
use crate::suite::case::{Case, Suite};
use crate::suite::schema::Schemas;

impl<'a> Run<'a> {
    /// The run of one plugin, before its gate.
    pub(super) fn new(
        plugin: &'a Path,
        suite: &'a Suite,
        schemas: &'a Schemas,
        options: &'a Options,
        progress: &'a dyn Progress,
        corpora: &'a Corpora,
    ) -> Run<'a> {
        Run {
            progress,
            depot: Depot::start(sandbox_maker(options)),
            plugin,
            samples: &suite.samples,
            own_files: &suite.own_files,
            recording: suite.recording.as_ref(),
            schemas,
            fixtures: &suite.fixtures,
            options,
            info: Value::Null,
            info_elapsed: Duration::ZERO,
            breaker: Breaker::new(options.fail_fast),
            corpora,
            reach: Default::default(),
            unknown: None,
            env: &suite.env,
        }
    }

    /// Runs the gate cases (`info`, as the host's discovery does) and keeps
    /// the plugin's `info`; returns their reports and, when one failed, why
    /// every other case is not run.
    pub(super) fn gates(&mut self, gates: &[&Case]) -> (Vec<CaseReport>, Option<String>) {
        let mut reports = Vec::new();
        let mut blocked = None;
        for gate in gates {
            let Finished { report, json, .. } =
                self.case(gate, None, None, &AtomicUsize::new(0), None);
            if report.outcome == CaseOutcome::Failed {
                blocked.get_or_insert_with(|| {
                    format!("not run: {} failed ({})", report.id, report.summary_line())
                });
            } else if let Some(json) = json {
                self.info = json;
                self.info_elapsed = report.steps.last().map_or(Duration::ZERO, |s| s.duration);
            }
            reports.push(report);
        }
        (reports, blocked)
    }

    /// The plugin's `info`, when the gate read one.
    pub(super) fn info_value(&self) -> Option<Value> {
        (!self.info.is_null()).then(|| self.info.clone())
    }
}

/// The report of one plugin's run, from its cases' reports (and the suite's
/// cases, for the longest deliberate wait of those that ran).
pub(super) fn run_report(
    plugin: &Path,
    info: Option<Value>,
    options: &Options,
    suite_cases: &[Case],
    reports: Vec<CaseReport>,
    wall: Duration,
) -> RunReport {
    let deliberate_wait = super::late_stdin::longest_wait(suite_cases, &reports);
    let invocations = reports
        .iter()
        .flat_map(|c| &c.steps)
        .filter(|s| s.answered_by.is_none())
        .map(|s| s.duration)
        .sum();
    RunReport {
        plugin: plugin.to_path_buf(),
        hosts: crate::outcome::results::Hosts::of(&options.hosts),
        info,
        cases: reports,
        wall,
        invocations,
        deliberate_wait,
        jobs: options.jobs,
        seed: options.seed,
        peak_rss_bytes: crate::outcome::results::peak_rss_bytes(),
        pedantic: options.pedantic,
    }
}
