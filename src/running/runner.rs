//! The runner: spawns one plugin invocation the way the Entire CLI does and
//! brings back what happened, whatever the plugin does.
//!
//! The host (docs/host.md, "Invocation") executes the binary directly, with
//! the request on stdin followed by EOF, a deadline after which the process is
//! killed, and a 10 MiB cap on each of stdout and stderr. This module models
//! exactly that and guarantees the harness itself never hangs: stdin is written
//! from its own thread (a plugin that never reads cannot block us), output is
//! read by bounded readers (a flood cannot exhaust memory), and on expiry or
//! overflow the plugin's whole process group is killed (a shell script's
//! children die with it).
//!
//! One job per file, so that each can be read alone:
//! - here, the call and its result as data ([`Invocation`], [`Outcome`]),
//!   what the rest of the crate sees;
//! - `call`: one call from spawn to outcome, in order (the process and its
//!   bounds, stdin, then the end);
//! - `wait`: the end of a call: exit, deadline or flood, the process group
//!   killed (with `poll(2)` on Linux, see [`crate::running::polled`]; with
//!   threads elsewhere);
//! - `capture`: the output read within its limit, kept or compared with the
//!   expected bytes as it streams.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::host::invocation::OUTPUT_LIMIT;
use crate::running::bounds::{Guard, Lingering, Oversize};
use crate::running::confine::Confinement;

mod call;
mod capture;
mod wait;

pub use call::run;

/// One plugin invocation, fully described: everything needed to run it and to
/// print a command line that reproduces it.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The plugin binary (absolute path).
    pub program: PathBuf,
    /// Arguments after the program name.
    pub args: Vec<String>,
    /// Working directory (the sandbox's repository root).
    pub cwd: PathBuf,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(String, OsString)>,
    /// Variables removed from the inherited environment.
    pub env_remove: Vec<String>,
    /// A directory put first on the inherited `PATH` (the sandbox's `bin`,
    /// with the stand-in for the host's `entire`).
    pub path_first: Option<PathBuf>,
    /// Bytes written to stdin before it is closed; `None` gives no stdin at all.
    pub stdin: Option<Bytes>,
    /// Deliver stdin late, as from an agent on a loaded machine: once the
    /// plugin is blocked waiting for its stdin (on Linux, as the kernel
    /// shows it: late for the plugin however slowly it started), nothing for
    /// the first half of this time (the first byte comes late), then the
    /// payload's first half, then after the second half of this time the
    /// rest; `None`: all at once. A plugin with a deadline on stdin is caught
    /// whether its deadline waits for the first byte or for the whole
    /// payload (docs/host.md "Plugins in the wild", "A deadline on stdin").
    pub stdin_delay: Option<Duration>,
    /// The plugin's own measured start-up time (how long its `info` took at
    /// the gate): where the kernel cannot show the plugin blocked on its
    /// stdin (off Linux, or without `/proc`), a late stdin is held back by
    /// this long before [`Invocation::stdin_delay`] starts, so that it is
    /// late for the plugin however slowly it starts.
    pub startup: Duration,
    /// Deadline for the whole invocation.
    pub timeout: Duration,
    /// How much of stdout the harness reads before it stops the plugin:
    /// [`OUTPUT_LIMIT`], the host's, except for the opt-in large cases, which
    /// look past it (and say that the host would not).
    pub stdout_limit: usize,
    /// Compare stdout with these bytes as it streams in, instead of keeping
    /// it: a large transcript is then never held twice.
    pub expect_stdout: Option<Bytes>,
    /// Writes allowed only beneath the sandbox (`None`: unconfined).
    pub confine: Option<Confinement>,
    /// Bounds on the call's writes and processes (see [`crate::running::bounds`]);
    /// `None`: unbounded.
    pub guard: Option<Guard>,
}

/// Shared, immutable bytes (stdin, expected stdout): cloning is free.
pub type Bytes = Arc<Vec<u8>>;

impl Invocation {
    /// An invocation with the host's limits and no stdin.
    pub fn new(program: PathBuf, args: Vec<String>, cwd: PathBuf, timeout: Duration) -> Invocation {
        Invocation {
            program,
            args,
            cwd,
            env: Vec::new(),
            env_remove: Vec::new(),
            path_first: None,
            stdin: None,
            stdin_delay: None,
            startup: Duration::ZERO,
            timeout,
            stdout_limit: OUTPUT_LIMIT,
            expect_stdout: None,
            confine: None,
            guard: None,
        }
    }
}

/// The result of comparing stdout with the expected bytes while reading it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compared {
    /// Bytes of stdout seen.
    pub total: usize,
    /// The first offset where stdout differs from the expected bytes (a
    /// length mismatch counts at the shorter length).
    pub first_diff: Option<usize>,
    /// Up to 1 KiB of stdout from shortly before the first difference.
    pub excerpt: Vec<u8>,
    /// Where `excerpt` starts in stdout.
    pub excerpt_start: usize,
}

/// How an invocation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// The process exited on its own with this code (`None`: killed by a signal).
    Exited(Option<i32>),
    /// The deadline passed; the process group was killed.
    TimedOut,
    /// The process could not be started at all.
    SpawnFailed(String),
}

/// Everything observed about one invocation.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// How the process ended.
    pub termination: Termination,
    /// Up to [`OUTPUT_LIMIT`] bytes of stdout.
    pub stdout: Vec<u8>,
    /// Up to [`OUTPUT_LIMIT`] bytes of stderr.
    pub stderr: Vec<u8>,
    /// stdout went over the host's limit (the rest was discarded).
    pub stdout_overflow: bool,
    /// stderr went over the host's limit (the rest was discarded).
    pub stderr_overflow: bool,
    /// A background process kept an output pipe open after the plugin exited.
    pub pipes_held_open: bool,
    /// Wall time from spawn to the end of the invocation.
    pub elapsed: Duration,
    /// Bytes of stdout the plugin printed (read), kept or not.
    pub stdout_total: usize,
    /// The streaming comparison, when the invocation asked for one (stdout
    /// is then not kept).
    pub compared: Option<Compared>,
    /// Paths outside the sandbox the confined plugin tried to write, from
    /// its stderr (see [`crate::running::confine::blocked_writes`]).
    pub blocked_writes: Vec<PathBuf>,
    /// The signal that ended the plugin, if one did.
    pub signal: Option<i32>,
    /// The sandbox went over the write limit (see [`crate::running::bounds`]).
    pub oversize: Option<Oversize>,
    /// Processes of the call still alive after it returned, outside its
    /// process group: killed, and reported.
    pub lingering: Vec<Lingering>,
    /// The call's subcommand (its first argument), for messages.
    pub subcommand: Option<String>,
    /// The number of the copy of the sandbox as the call found it (see
    /// [`crate::running::journal`]), for its reproduce script.
    pub before: Option<usize>,
}

impl Outcome {
    /// An outcome with no output: a call that never ran, ended as `termination`.
    pub fn empty(termination: Termination) -> Outcome {
        Outcome {
            termination,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_overflow: false,
            stderr_overflow: false,
            pipes_held_open: false,
            elapsed: Duration::ZERO,
            stdout_total: 0,
            compared: None,
            blocked_writes: Vec::new(),
            signal: None,
            oversize: None,
            lingering: Vec::new(),
            subcommand: None,
            before: None,
        }
    }

    /// The call as messages name it: `` `parse-hook` ``, or "the call".
    pub fn call_name(&self) -> String {
        self.subcommand
            .as_ref()
            .map_or_else(|| "the call".to_string(), |s| format!("`{s}`"))
    }

    /// The exit code when the process exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        match self.termination {
            Termination::Exited(code) => code,
            _ => None,
        }
    }
}

/// Resolves the plugin path given on the command line to an absolute path, so
/// that it still works from the sandbox's working directory.
pub fn absolute_program(path: &Path) -> io::Result<PathBuf> {
    if path.is_absolute() {
        Ok(path.to_path_buf())
    } else {
        Ok(std::env::current_dir()?.join(path))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn stdin_that_arrives_late_arrives_whole_and_is_closed() {
        let program = PathBuf::from("/bin/cat");
        let cwd = std::env::temp_dir();
        let mut inv = Invocation::new(program, Vec::new(), cwd, Duration::from_secs(20));
        let payload = br#"{"session_id":"s-1","transcript_path":"/t.jsonl"}"#.to_vec();
        inv.stdin = Some(Arc::new(payload.clone()));
        inv.stdin_delay = Some(Duration::from_millis(50));
        let outcome = run(&inv);
        assert_eq!(outcome.exit_code(), Some(0), "{outcome:?}");
        assert_eq!(outcome.stdout, payload);
    }
}
