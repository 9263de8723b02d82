//! How much of the plugin's own side a run verified, per capability: what
//! a green run covers (issue 59). A capability is verified by a step that
//! passed on the plugin's own payloads, samples or recording (its
//! `rests_on`: the author's samples); a run on our generic payloads and
//! transcripts alone verifies the host's side of it, not the agent's. A
//! pure function of the report, which every reporter shows.

use serde::Serialize;

use crate::host::Severity;
use crate::outcome::Kind;
use crate::outcome::evidence::Evidence;
use crate::outcome::results::{CaseOutcome, RunReport};

/// What the run says of one capability's own side.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct OwnSide {
    /// The capability (`hooks`, `transcript_analyzer`, ...).
    pub capability: String,
    /// `verified`, `not-verified` or `allowed`.
    pub state: &'static str,
    /// What would verify it, where it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_with: Option<&'static str>,
}

impl RunReport {
    /// Every capability that ran, but `core`, in the report's order, with
    /// what its own side came to.
    pub fn own_side(&self) -> Vec<OwnSide> {
        self.groups()
            .into_iter()
            .filter(|g| g != "core")
            .filter_map(|capability| self.side_of(capability))
            .collect()
    }

    fn side_of(&self, capability: String) -> Option<OwnSide> {
        let cases: Vec<_> = self
            .cases
            .iter()
            .filter(|c| c.capability == capability)
            .filter(|c| !matches!(c.outcome, CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_)))
            .collect();
        if cases.is_empty() {
            return None;
        }
        let steps = || cases.iter().flat_map(|c| &c.steps);
        let passed = |s: &&crate::outcome::results::StepReport| {
            s.made_a_call() && s.findings.iter().all(|f| f.severity == Severity::Note)
        };
        // A capability none of whose steps needs the agent's input (the
        // host's own prompt, message or flags) has no agent side to verify.
        let agent_side = steps().any(|s| s.rests_on == Evidence::Assumption);
        let verified = match agent_side {
            true => steps().any(|s| s.rests_on == Evidence::Samples && passed(&s)),
            false => steps().filter(|s| s.made_a_call()).all(|s| passed(&s)),
        };
        let allowed = steps()
            .flat_map(|s| &s.findings)
            .any(|f| f.allowed && Kind::NOT_VERIFIED.contains(&f.kind));
        let (state, verify_with) = match (verified, allowed) {
            (true, _) => ("verified", None),
            (false, true) => ("allowed", Some(what_verifies(&capability))),
            (false, false) => ("not-verified", Some(what_verifies(&capability))),
        };
        Some(OwnSide {
            capability,
            state,
            verify_with,
        })
    }

    /// The line a report ends with beside its verdict: `own side verified
    /// for 1 of 3 capabilities (hooks)`.
    pub fn own_side_text(&self) -> Option<String> {
        let sides = self.own_side();
        if sides.is_empty() {
            return None;
        }
        let verified: Vec<&str> = sides
            .iter()
            .filter(|s| s.state == "verified")
            .map(|s| s.capability.as_str())
            .collect();
        let named = match verified.is_empty() {
            true => String::new(),
            false => format!(" ({})", verified.join(", ")),
        };
        Some(format!(
            "own side verified for {} of {} capabilities{named}",
            verified.len(),
            sides.len()
        ))
    }
}

/// What verifies a capability's own side: the agent's own payloads for the
/// hooks, a transcript of the agent's own for the rest.
fn what_verifies(capability: &str) -> &'static str {
    match capability {
        "hooks" => {
            "a recording of an agent session (`agent-conform record`, a few minutes), or the \
             agent's own payloads in a case file"
        }
        _ => "a transcript of the agent's own in a case file (`transcripts: [samples/…]`)",
    }
}
