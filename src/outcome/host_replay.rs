//! What the replay through a real host (`--host ENTIRE`) found, as data:
//! the build, each `entire` command with its exit and stderr, what the host
//! made (see [`crate::host::replay::Seen`]), and the findings it
//! contradicted, with both outcomes.

use serde::Serialize;

use crate::host::Severity;
use crate::host::replay::{Build, Seen, Verdict};

/// The replay of one plugin through a real host.
#[derive(Debug, Clone, Serialize)]
pub struct HostReplay {
    /// The host binary given to `--host`.
    pub host: String,
    /// What `entire version` named, and the release it is run as.
    pub build: Build,
    /// The agent name the host registers the plugin under.
    pub agent: String,
    /// Each command, in order.
    pub steps: Vec<HostStep>,
    /// What the host made of it.
    pub seen: Seen,
    /// Why the replay stopped early, if it did.
    pub stopped: Option<String>,
    /// The findings the host contradicted, lowered.
    pub contradicted: Vec<Contradiction>,
    /// How many findings got each word: confirmed, beyond sight, not confirmed.
    pub words: [usize; 3],
}

/// One command of the replay.
#[derive(Debug, Clone, Serialize)]
pub struct HostStep {
    /// What the user does (`enable`, `hook stop`, `git commit`).
    pub what: String,
    /// The command line, as run in the sandbox's repository.
    pub command: String,
    /// The exit code (`None`: killed, timed out or not started).
    pub exit_code: Option<i32>,
    /// How it ended (`exited`, `timed-out`, the spawn error).
    pub termination: String,
    /// Its stderr, cut to a few lines.
    pub stderr: String,
    /// Wall time, in milliseconds.
    pub ms: u64,
}

/// A finding the host's own outcome contradicts: its case and step, what
/// the model predicted, and what the host showed.
#[derive(Debug, Clone, Serialize)]
pub struct Contradiction {
    /// The case id.
    pub case: String,
    /// The step's label.
    pub step: String,
    /// The finding's text (the model's prediction).
    pub predicted: String,
    /// Its severity before the host's word.
    pub was: Severity,
    /// What the host showed (the word's sentence).
    pub host_showed: String,
}

/// The host's word as a finding carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostWord {
    /// Confirmed, beyond the host's sight, or not confirmed.
    pub verdict: Verdict,
    /// The sentence the reports print.
    pub text: String,
}

impl HostReplay {
    /// Counts a word of `verdict`.
    pub fn count(&mut self, verdict: Verdict) {
        let i = match verdict {
            Verdict::Confirmed => 0,
            Verdict::BeyondSight => 1,
            Verdict::NotConfirmed => 2,
        };
        self.words[i] += 1;
    }
}
