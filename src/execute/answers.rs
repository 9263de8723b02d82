//! Answers shared between cases: a call whose command line, environment,
//! stdin and deadline are the same, made in the same sandbox in the same
//! state, is made once and its answer given to every case that asks it.
//!
//! The rule (ARCHITECTURE "Shared answers", docs/writing-cases.md): the
//! host would see no difference. A case asks in a sandbox of its own, new
//! as every case's; the cases that may share (those that begin the same
//! way, [`crate::suite::case::Case::share_key`]) run one after another in
//! one sandbox, renewed in place between them, so that their command lines
//! are the same. Before a call, the sandbox's state is printed
//! ([`crate::running::state`]: every entry, its permissions and bytes);
//! the answer is kept under the call and that print when the call exited
//! within its limits and left no process behind, with what it left in the
//! sandbox when it changed it (an install's files). A later case asking
//! the same in the same state gets that answer, and the files it left are
//! laid down in its sandbox, as if it had made the call: it is reported as
//! the case's own step, naming the case that made the call
//! (`answered_by`), and the run counts the call once. A case that asks the
//! same thing twice in the same state (`info` asked again to see it is
//! stable) gets a call of its own the second time. A late stdin
//! (`stdin_delay_ms`) is never shared: its timing is the question.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use crate::execute::{CaseState, Run};
use crate::running::runner::{self, Bytes, Invocation, Outcome, Termination};
use crate::running::sandbox::Sandbox;
use crate::running::state::Tree;

/// The answers of one group of cases, by call and sandbox state.
#[derive(Default)]
pub(super) struct Answers {
    kept: Mutex<HashMap<Key, Kept>>,
}

/// An answer kept: the outcome, the case that made the call, and what the
/// call left in the sandbox when it changed it.
struct Kept {
    outcome: Outcome,
    by: String,
    effect: Option<Tree>,
}

/// A call as the plugin sees it, and the state it finds. Equal keys
/// compare every byte; the hash reads a stdin's length and its ends only
/// (see [`Edges`]).
#[derive(PartialEq, Eq)]
struct Key {
    program: PathBuf,
    args: Vec<String>,
    cwd: PathBuf,
    env: Vec<(String, OsString)>,
    env_remove: Vec<String>,
    path_first: Option<PathBuf>,
    stdin: Option<Bytes>,
    timeout: Duration,
    stdout_limit: usize,
    expect_stdout: Option<Bytes>,
    state: u64,
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.program.hash(state);
        self.args.hash(state);
        self.cwd.hash(state);
        self.env.hash(state);
        self.env_remove.hash(state);
        self.path_first.hash(state);
        self.stdin.as_deref().map(|b| Edges(b)).hash(state);
        self.timeout.hash(state);
        self.stdout_limit.hash(state);
        self.expect_stdout.as_deref().map(|b| Edges(b)).hash(state);
        self.state.hash(state);
    }
}

/// A stdin as a key's hash reads it: its length and at most 4 KiB of each
/// end. Hashing a five-megabyte stdin byte by byte twice a call was a
/// good part of a run's own time; equal stdins hash alike all the same,
/// and equality still compares every byte.
struct Edges<'a>(&'a [u8]);

impl Hash for Edges<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        const EDGE: usize = 4096;
        let bytes = self.0;
        bytes.len().hash(state);
        bytes[..bytes.len().min(EDGE)].hash(state);
        bytes[bytes.len().saturating_sub(EDGE)..].hash(state);
    }
}

impl Key {
    fn of(inv: &Invocation, state: u64) -> Key {
        Key {
            program: inv.program.clone(),
            args: inv.args.clone(),
            cwd: inv.cwd.clone(),
            env: inv.env.clone(),
            env_remove: inv.env_remove.clone(),
            path_first: inv.path_first.clone(),
            stdin: inv.stdin.clone(),
            timeout: inv.timeout,
            stdout_limit: inv.stdout_limit,
            expect_stdout: inv.expect_stdout.clone(),
            state,
        }
    }

    /// A short name of the key, for the calls a case already made.
    fn digest(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.hash(&mut hasher);
        hasher.finish()
    }
}

impl Answers {
    /// Makes the call in `sandbox` for `case`, or gives the answer another
    /// case of the group had for it in the same state (with that case's
    /// id). `asked` holds the calls this case made so far: asked again, a
    /// call is made again.
    fn ask(
        &self,
        case: &str,
        inv: &Invocation,
        sandbox: &Sandbox,
        asked: &mut HashSet<u64>,
    ) -> (Outcome, Option<String>) {
        let Ok(before) = sandbox.state() else {
            return (runner::run(inv), None);
        };
        let key = Key::of(inv, before);
        let again = !asked.insert(key.digest());
        if !again && let Some(shared) = self.shared(case, &key, sandbox) {
            return shared;
        }
        let outcome = runner::run(inv);
        let Ok(after) = sandbox.state() else {
            return (outcome, None);
        };
        let effect = match after == before {
            true => Ok(None),
            false => sandbox.capture().map(Some),
        };
        if let (true, Ok(effect), Ok(mut kept)) =
            (a_plain_answer(&outcome), effect, self.kept.lock())
        {
            kept.entry(key).or_insert_with(|| Kept {
                outcome: outcome.clone(),
                by: case.to_string(),
                effect,
            });
        }
        (outcome, None)
    }

    /// The answer another case had for `key`, its effect laid down in
    /// `sandbox`; none when there is none, or the effect could not be laid
    /// down (the call is then made).
    fn shared(
        &self,
        case: &str,
        key: &Key,
        sandbox: &Sandbox,
    ) -> Option<(Outcome, Option<String>)> {
        let kept = self.kept.lock().ok()?;
        let found = kept.get(key).filter(|k| k.by != case)?;
        // The sandbox as this case's call would have found it: its own
        // copy, for its own reproduce script (the other case's sandbox
        // holds only what its whole case left).
        let before = sandbox.record_state();
        if let Some(effect) = &found.effect {
            sandbox.restore(effect).ok()?;
        }
        let mut outcome = found.outcome.clone();
        outcome.before = before;
        Some((outcome, Some(found.by.clone())))
    }
}

/// An answer that is all the call did: it exited, within its limits, with
/// no process left behind and no write refused.
fn a_plain_answer(outcome: &Outcome) -> bool {
    matches!(outcome.termination, Termination::Exited(Some(_)))
        && outcome.lingering.is_empty()
        && outcome.oversize.is_none()
        && outcome.blocked_writes.is_empty()
        && !outcome.pipes_held_open
        && !outcome.stdout_overflow
        && !outcome.stderr_overflow
}

impl Run<'_> {
    /// Makes the call of a step, or gives a shared answer when its case
    /// shares answers (see the module); `state.answered_by` then names the
    /// case that made the call.
    pub(super) fn ask(
        &self,
        case: &str,
        inv: &Invocation,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> Outcome {
        match (&state.answers, inv.stdin_delay) {
            (Some(answers), None) => {
                let (outcome, by) = answers.ask(case, inv, sandbox, &mut state.asked);
                state.answered_by = by;
                outcome
            }
            _ => self.call(inv),
        }
    }
}
