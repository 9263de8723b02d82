//! The outcome of a run over several plugins: each plugin's own report, and
//! the conflicts between them (see [`crate::host::conflicts`]), as data for
//! the reporters.

use serde::Serialize;

use crate::host::Severity;
use crate::outcome::results::RunReport;

/// What two plugins installed together break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConflictKind {
    /// Equal or nested session directories.
    SessionDir,
    /// The same `info.type`.
    Type,
    /// Uninstalling one removes the other's hooks.
    Hooks,
}

impl ConflictKind {
    /// A short label for reports.
    pub fn label(self) -> &'static str {
        match self {
            ConflictKind::SessionDir => "session directory",
            ConflictKind::Type => "type",
            ConflictKind::Hooks => "hooks",
        }
    }
}

/// One conflict between two plugins.
#[derive(Debug, Clone, Serialize)]
pub struct Conflict {
    /// What the two break.
    pub kind: ConflictKind,
    /// The two agent names (as the host registers them).
    pub plugins: [String; 2],
    /// How much it weighs (always a failure: the host breaks for one).
    pub severity: Severity,
    /// What the host does, in words.
    pub message: String,
}

/// A run over several plugins.
#[derive(Debug, Clone)]
pub struct ManyReport {
    /// Each plugin's report, in the order given.
    pub plugins: Vec<RunReport>,
    /// The conflicts between them.
    pub conflicts: Vec<Conflict>,
}

impl ManyReport {
    /// True when the run fails: a plugin's run fails, or a conflict does.
    pub fn failed(&self, strict: bool) -> bool {
        self.plugins.iter().any(|p| p.failed(strict))
            || self.conflicts.iter().any(|c| {
                c.severity == Severity::Failure || (strict && c.severity == Severity::Warning)
            })
    }
}

/// The name a plugin goes by in a report over several: the agent name the
/// host registers it under, else its file name.
pub fn plugin_name(run: &RunReport) -> String {
    crate::host::discovery::agent_name(&run.plugin).unwrap_or_else(|| {
        run.plugin.file_name().map_or_else(
            || run.plugin.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        )
    })
}
