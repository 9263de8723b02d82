//! What a finding, or a step's input, rests on, as data: the host's own
//! input, the plugin's own answers, the author's samples or recording, or an
//! assumption of ours about the agent; and the weight each allows (an
//! assumption alone never fails: a weighing rule of the host's model, so
//! here, below the case model that names it in `rests_on:` and the outcome
//! that carries it). The JSON report carries it beside the code.
//!
//! Why it matters: every rule that misfired on a plugin nobody here wrote
//! rested on a guess about the agent's side (a generic payload, a guessed
//! config file, a guessed way of running a hook). So an assumption alone
//! never makes a failure: [`Evidence::cap`] holds a finding that rests on
//! one at a warning, and the weighing (`CaseOutcome::of`) applies it again
//! (ARCHITECTURE.md, "Invariants").

use serde::{Deserialize, Serialize};

use super::Severity;

/// What a finding, or a step's input, rests on. Ordered from the firmest to
/// the weakest: a finding that does not say what it rests on rests on what
/// its step's input does ([`Evidence::weaker`]).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// The host's own input: a call the host makes, with the input it
    /// sends (`info`, `parse-hook --hook <name>`, the `write-session`
    /// payload as the host marshals it, a subcommand's own flags), or the
    /// host's own limits (a hang, a flood). The default: most cases send
    /// exactly what the host sends.
    #[default]
    HostInput,
    /// The plugin's own answers: an id from its own Events, the directory
    /// its `get-session-dir` named, the files its `install-hooks` wrote,
    /// its `hooks_installed` count.
    OwnAnswers,
    /// The author's samples or recording (`transcripts:`, `samples:`, a
    /// session recorded with `record`).
    Samples,
    /// An assumption of ours about the agent: our generic payloads and
    /// transcripts, a config file we guessed, a guessed way of running a
    /// hook. Never a failure on its own.
    Assumption,
}

impl Evidence {
    /// The stable code, as reports print it.
    pub fn code(self) -> &'static str {
        match self {
            Evidence::HostInput => "host-input",
            Evidence::OwnAnswers => "own-answers",
            Evidence::Samples => "samples",
            Evidence::Assumption => "assumption",
        }
    }

    /// The weaker of two: what a finding rests on when it rests on both (a
    /// plugin's answer to our generic payload rests on the payload).
    pub fn weaker(self, other: Evidence) -> Evidence {
        self.max(other)
    }

    /// The heaviest weight a finding of this evidence may have: a failure
    /// needs the host's input, the plugin's answers or the author's
    /// samples; an assumption alone weighs a warning at most.
    pub fn cap(self, severity: Severity) -> Severity {
        match self {
            Evidence::Assumption => severity.min(Severity::Warning),
            _ => severity,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assumption_alone_never_fails() {
        assert_eq!(
            Evidence::Assumption.cap(Severity::Failure),
            Severity::Warning
        );
        assert_eq!(Evidence::Assumption.cap(Severity::Note), Severity::Note);
        for e in [Evidence::HostInput, Evidence::OwnAnswers, Evidence::Samples] {
            assert_eq!(e.cap(Severity::Failure), Severity::Failure);
        }
        assert_eq!(
            serde_json::to_value(Evidence::OwnAnswers).ok(),
            Some(serde_json::json!("own-answers"))
        );
    }
}
