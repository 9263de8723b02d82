//! The weight of a finding, which is what the real host does with the
//! answer (docs/host.md, "What each answer costs the user, from the
//! host's source"): it breaks, it degrades, or nothing happens.

/// How much a finding weighs, defined by what the real host does with the
/// answer (docs/host.md, "What the host does with each answer").
///
/// Ordered from lightest to heaviest, so that `min` caps a finding at its
/// case's severity.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Deserialize,
    serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// An observation with no rule and no effect on any host (an answer to
    /// input the host never sends, `null` for an empty array): shown and
    /// counted, never fails the run, not even under `--strict`.
    Note,
    /// The host only degrades (a position not taken, a message lost), or a
    /// written rule the host does not enforce: fails only under `--strict`.
    Warning,
    /// The host breaks: a failed hook, setup or resume, data lost or
    /// corrupted, output it cannot decode, a hang or a flood.
    #[default]
    Failure,
}

impl Severity {
    /// The lower-case name used in case files and reports.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Failure => "failure",
        }
    }

    /// What the severity means for the host, for `explain` and `list`.
    pub fn meaning(self) -> &'static str {
        match self {
            Severity::Note => "no host is affected: shown, never fails the run",
            Severity::Warning => {
                "the host degrades, or a written rule it does not enforce: fails with --strict"
            }
            Severity::Failure => "the real host breaks: fails the run",
        }
    }
}
