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
//! Over 500 lines: spawning, streaming readers, deadlines and the kill of a
//! process group are one mechanism; about a third is tests.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use crate::running::confine::{self, Confinement};
use crate::running::interrupt;
use crate::running::bounds::{self, Guard, Lingering, Oversize};

use crate::host::invocation::OUTPUT_LIMIT;

/// How long the reader threads may take to reach EOF once the plugin has
/// exited. A background process that inherited the pipes can hold them open
/// forever; we stop waiting for it after this grace period.
pub(super) const PIPE_GRACE: Duration = Duration::from_secs(2);

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
    /// Deliver stdin late, as from an agent on a loaded machine: nothing for
    /// the first half of this time (the first byte comes late), then the
    /// payload's first half, then after the second half of this time the
    /// rest; `None`: all at once. A plugin with a deadline on stdin is caught
    /// whether its deadline waits for the first byte or for the whole
    /// payload (docs/host.md "Plugins in the wild", "A deadline on stdin").
    pub stdin_delay: Option<Duration>,
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
    /// its stderr (see [`confine::blocked_writes`]).
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

/// What a bounded reader brings back.
#[derive(Default)]
pub(super) struct Captured {
    bytes: Vec<u8>,
    overflow: bool,
    total: usize,
    compared: Option<Compared>,
}

/// A stream being read into a [`Sink`]: what was read so far.
pub(super) struct Reading {
    sink: Sink,
    captured: Captured,
    compare: Option<Comparison>,
}

impl Reading {
    pub(super) fn new(mut sink: Sink) -> Reading {
        let compare = sink.expected.take().map(Comparison::new);
        Reading {
            sink,
            captured: Captured::default(),
            compare,
        }
    }

    /// Takes `block` up to the sink's limit; `false` once past it (the rest
    /// is not read: the flood flag, if any, is raised).
    pub(super) fn feed(&mut self, block: &[u8]) -> bool {
        let room = self.sink.limit - self.captured.total;
        let take = block.len().min(room);
        match &mut self.compare {
            Some(c) => c.feed(&block[..take]),
            None => self.captured.bytes.extend_from_slice(&block[..take]),
        }
        self.captured.total += take;
        if block.len() > room {
            self.captured.overflow = true;
            if let Some(flag) = &self.sink.flooded {
                flag.store(true, Ordering::SeqCst);
            }
            return false;
        }
        true
    }

    /// What was read, the comparison finished.
    pub(super) fn finish(mut self) -> Captured {
        self.captured.compared = self.compare.map(Comparison::finish);
        self.captured
    }
}

/// Runs one invocation to completion (or to its deadline).
pub fn run(inv: &Invocation) -> Outcome {
    let start = Instant::now();
    let Some(entry) = interrupt::Entry::enter() else {
        return spawn_failure(inv, io::Error::other("the run was interrupted"), start);
    };
    let marker = inv.guard.as_ref().map(|_| bounds::next_marker());
    let spawning = bounds::Spawning::enter();
    let mut child = match spawn(inv, marker.as_deref()) {
        Ok(child) => child,
        Err(err) => return spawn_failure(inv, err, start),
    };
    let pid = child.id();
    // Its process is the standard library's to wait for, not the orphan
    // reaper's (see crate::running::bounds).
    let _leader = bounds::Leader::track(pid);
    drop(spawning);
    if let Some(guard) = &inv.guard {
        bounds::limit_writes(pid, guard.max_write);
    }
    // Killed with the run should it be interrupted (see crate::running::interrupt).
    let _group = interrupt::Group::track(pid, &entry);
    drop(entry);
    feed_stdin(&mut child, inv.stdin.clone(), inv.stdin_delay);
    let flooded = Arc::new(AtomicBool::new(false));
    let stdout_sink = Sink {
        limit: inv.stdout_limit,
        flooded: Some(flooded.clone()),
        expected: inv.expect_stdout.clone(),
    };
    let stderr_sink = Sink {
        limit: OUTPUT_LIMIT,
        flooded: None,
        expected: None,
    };
    // Whatever left the process group is found by its marker, before the
    // pipes are read to their end (it may hold them open).
    let reap = || {
        marker
            .as_deref()
            .map_or_else(Vec::new, |m| bounds::reap(m, pid))
    };
    let ended = end(
        child,
        inv.timeout,
        [stdout_sink, stderr_sink],
        Flood(flooded),
        reap,
    );
    let Ended {
        termination,
        signal,
        lingering,
        stdout,
        stderr,
        held_open,
    } = ended;
    let blocked_writes = inv.confine.as_ref().map_or_else(Vec::new, |c| {
        confine::blocked_writes(&stderr.bytes, c.root(), &inv.cwd, &inv.program)
    });
    let oversize = inv
        .guard
        .as_ref()
        .and_then(|g| g.check(signal == Some(bounds::SIGXFSZ)));
    Outcome {
        blocked_writes,
        signal,
        oversize,
        lingering,
        subcommand: inv.args.first().cloned(),
        termination,
        stdout_overflow: stdout.overflow,
        stderr_overflow: stderr.overflow,
        stdout_total: stdout.total,
        compared: stdout.compared,
        stdout: stdout.bytes,
        stderr: stderr.bytes,
        pipes_held_open: held_open,
        elapsed: start.elapsed(),
    }
}

/// How a call ended, and what it printed.
pub(super) struct Ended {
    pub(super) termination: Termination,
    pub(super) signal: Option<i32>,
    pub(super) lingering: Vec<Lingering>,
    pub(super) stdout: Captured,
    pub(super) stderr: Captured,
    /// A background process kept an output pipe open after the call.
    pub(super) held_open: bool,
}

/// Waits for the call to end (exit, deadline or flood) and reads its
/// output: on Linux in this thread, with `poll(2)` on the pipes and a pidfd
/// (see [`crate::running::polled`]); where no pidfd can be had, with a
/// thread per pipe and one that waits.
fn end(
    child: Child,
    timeout: Duration,
    [out, err]: [Sink; 2],
    flood: Flood,
    reap: impl FnOnce() -> Vec<Lingering>,
) -> Ended {
    #[cfg(target_os = "linux")]
    let (mut child, out, err, reap) = match crate::running::polled::pidfd(&child) {
        Some(pidfd) => return polled(child, pidfd, timeout, [out, err], reap),
        None => (child, out, err, reap),
    };
    #[cfg(not(target_os = "linux"))]
    let mut child = child;
    let stdout_rx = child.stdout.take().map(|p| read_bounded(p, out));
    let stderr_rx = child.stderr.take().map(|p| read_bounded(p, err));
    // Whatever happens, nothing of the plugin outlives the invocation.
    let (termination, signal) = wait_with_deadline(child, timeout, &flood);
    let lingering = reap();
    let (stdout, out_held) = collect(stdout_rx);
    let (stderr, err_held) = collect(stderr_rx);
    Ended {
        termination,
        signal,
        lingering,
        stdout,
        stderr,
        held_open: out_held || err_held,
    }
}

/// [`end`] with one `poll(2)` in this thread (see [`crate::running::polled`]).
#[cfg(target_os = "linux")]
fn polled(
    mut child: Child,
    pidfd: std::os::fd::OwnedFd,
    timeout: Duration,
    [out, err]: [Sink; 2],
    reap: impl FnOnce() -> Vec<Lingering>,
) -> Ended {
    let pid = child.id();
    let (mut out, mut err) = (Reading::new(out), Reading::new(err));
    let mut reap = Some(reap);
    let mut lingering = Vec::new();
    let end = crate::running::polled::end(
        &mut child,
        pidfd,
        (timeout, PIPE_GRACE),
        [&mut |b| out.feed(b), &mut |b| err.feed(b)],
        &|| kill_group(pid),
        &mut || lingering = reap.take().map_or_else(Vec::new, |r| r()),
    );
    let mut signal = None;
    let termination = match end.status {
        _ if end.timed_out => Termination::TimedOut,
        status if end.flooded => {
            Termination::Exited(status.and_then(Result::ok).and_then(exit_code))
        }
        Some(Ok(status)) => exited(&mut signal, status),
        Some(Err(err)) => Termination::SpawnFailed(format!("waiting for the plugin failed: {err}")),
        None => Termination::SpawnFailed("lost track of the plugin process".to_string()),
    };
    let take = |reading: Reading, held: bool| {
        if held {
            Captured::default()
        } else {
            reading.finish()
        }
    };
    Ended {
        termination,
        signal,
        lingering,
        stdout: take(out, end.held_open[0]),
        stderr: take(err, end.held_open[1]),
        held_open: end.held_open.contains(&true),
    }
}

fn spawn_failure(inv: &Invocation, err: io::Error, start: Instant) -> Outcome {
    let reason = format!("could not start {}: {err}", inv.program.display());
    Outcome {
        elapsed: start.elapsed(),
        subcommand: inv.args.first().cloned(),
        ..Outcome::empty(Termination::SpawnFailed(reason))
    }
}

/// Spawns the plugin; `marker` goes into its environment only (not into
/// `inv.env`, which the reproduce commands print).
fn spawn(inv: &Invocation, marker: Option<&str>) -> io::Result<Child> {
    let mut cmd = Command::new(&inv.program);
    cmd.args(&inv.args)
        .current_dir(&inv.cwd)
        .stdin(if inv.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for key in &inv.env_remove {
        cmd.env_remove(key);
    }
    if let Some(dir) = &inv.path_first {
        cmd.env("PATH", path_with(dir));
    }
    for (key, value) in &inv.env {
        cmd.env(key, value);
    }
    if let Some(marker) = marker {
        cmd.env(bounds::MARKER_VAR, marker);
    }
    new_process_group(&mut cmd);
    match &inv.confine {
        Some(confinement) => confinement.spawn(&mut cmd),
        None => cmd.spawn(),
    }
}

/// The inherited `PATH` with `dir` first (the inherited one is read once).
fn path_with(dir: &Path) -> OsString {
    static INHERITED: std::sync::OnceLock<Option<OsString>> = std::sync::OnceLock::new();
    let inherited = INHERITED.get_or_init(|| std::env::var_os("PATH"));
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(inherited.iter().flat_map(std::env::split_paths));
    std::env::join_paths(dirs).unwrap_or_else(|_| dir.as_os_str().to_owned())
}

#[cfg(unix)]
fn new_process_group(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

#[cfg(not(unix))]
fn new_process_group(_cmd: &mut Command) {}

/// Writes stdin from a detached thread, then closes it. A plugin that exits
/// without reading (EPIPE) is its own business, not an error of the harness;
/// the thread is never joined, so a plugin that neither reads nor exits cannot
/// block us either (it is killed at the deadline, which ends the write).
///
/// With a `delay`, the thread waits half of it, writes the first half of
/// the bytes, waits the other half, writes the rest and closes stdin.
fn feed_stdin(child: &mut Child, input: Option<Bytes>, delay: Option<Duration>) {
    let (Some(mut pipe), Some(bytes)) = (child.stdin.take(), input) else {
        return;
    };
    if let Some(delay) = delay {
        thread::spawn(move || {
            let _own = bounds::OwnThread::enter();
            let (first, second) = bytes.split_at(bytes.len() / 2);
            thread::sleep(delay / 2);
            let _ = pipe.write_all(first).and_then(|()| pipe.flush());
            thread::sleep(delay - delay / 2);
            let _ = pipe.write_all(second);
            drop(pipe);
        });
        return;
    }
    // What fits in a pipe's buffer (64 KiB on Linux, at least 4 KiB
    // anywhere POSIX) is written at once: it cannot block.
    if bytes.len() <= PIPE_BUF_SAFE {
        let _ = pipe.write_all(&bytes);
        return;
    }
    thread::spawn(move || {
        let _own = bounds::OwnThread::enter();
        let _ = pipe.write_all(&bytes);
        drop(pipe);
    });
}

/// Stdin this small is written without a thread: every pipe buffers it.
const PIPE_BUF_SAFE: usize = 4096;

/// Where a reader puts what it reads.
pub(super) struct Sink {
    /// Stop (and raise `flooded`) past this many bytes.
    limit: usize,
    flooded: Option<Arc<AtomicBool>>,
    /// Compare instead of keeping.
    expected: Option<Bytes>,
}

/// Reads a pipe up to the sink's limit, keeping the bytes or comparing them
/// with the expected ones. Past the limit the reader raises `flooded` (when
/// given) and stops, so that the waiter kills the plugin instead of the
/// harness buffering an endless stream.
fn read_bounded<R: Read + Send + 'static>(mut pipe: R, sink: Sink) -> Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _own = bounds::OwnThread::enter();
        let mut reading = Reading::new(sink);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) if reading.feed(&buf[..n]) => {}
                Ok(_) => break,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = tx.send(reading.finish());
    });
    rx
}

/// A streaming comparison of stdout with expected bytes.
struct Comparison {
    expected: Bytes,
    result: Compared,
}

impl Comparison {
    fn new(expected: Bytes) -> Comparison {
        Comparison {
            expected,
            result: Compared::default(),
        }
    }

    fn feed(&mut self, block: &[u8]) {
        let at = self.result.total;
        self.result.total += block.len();
        if self.result.first_diff.is_some() {
            return;
        }
        let want = self.expected.get(at..).unwrap_or_default();
        let same = block.iter().zip(want).position(|(a, b)| a != b);
        let diff = match same {
            Some(i) => Some(i),
            None if block.len() > want.len() => Some(want.len()),
            None => None,
        };
        if let Some(i) = diff {
            let from = i.saturating_sub(256);
            self.result.first_diff = Some(at + i);
            self.result.excerpt_start = at + from;
            self.result.excerpt = block[from..block.len().min(from + 1024)].to_vec();
        }
    }

    fn finish(mut self) -> Compared {
        if self.result.first_diff.is_none() && self.result.total < self.expected.len() {
            self.result.first_diff = Some(self.result.total);
            self.result.excerpt_start = self.result.total;
        }
        self.result
    }
}

/// Raised by the stdout reader when the plugin prints more than the limit.
pub(super) struct Flood(Arc<AtomicBool>);

impl Flood {
    fn raised(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Waits for the plugin to exit, the deadline to pass, or stdout to flood,
/// then kills the whole process group (children the plugin left behind
/// included) and reaps the plugin.
///
/// On Unix a thread blocks in `wait`, so the harness learns of the exit at
/// once (no polling latency on every invocation); the main thread waits on a
/// channel with the deadline, checking the flood flag every few
/// milliseconds. Elsewhere the child is polled.
#[cfg(unix)]
fn wait_with_deadline(
    mut child: Child,
    timeout: Duration,
    flood: &Flood,
) -> (Termination, Option<i32>) {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _own = bounds::OwnThread::enter();
        let status = child.wait();
        let _ = tx.send(status);
    });
    let deadline = Instant::now() + timeout;
    let mut signal = None;
    let termination = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left.min(Duration::from_millis(5))) {
            Ok(Ok(status)) => break exited(&mut signal, status),
            Ok(Err(err)) => {
                break Termination::SpawnFailed(format!("waiting for the plugin failed: {err}"));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Termination::SpawnFailed("lost track of the plugin process".to_string());
            }
            Err(mpsc::RecvTimeoutError::Timeout) if flood.raised() => {
                kill_group(pid);
                break Termination::Exited(
                    rx.recv_timeout(PIPE_GRACE)
                        .ok()
                        .and_then(Result::ok)
                        .and_then(exit_code),
                );
            }
            Err(mpsc::RecvTimeoutError::Timeout) if left.is_zero() => {
                kill_group(pid);
                let _ = rx.recv_timeout(PIPE_GRACE);
                break Termination::TimedOut;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    };
    kill_group(pid);
    (termination, signal)
}

#[cfg(not(unix))]
fn wait_with_deadline(
    mut child: Child,
    timeout: Duration,
    flood: &Flood,
) -> (Termination, Option<i32>) {
    let deadline = Instant::now() + timeout;
    let mut nap = Duration::from_micros(100);
    let termination = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Termination::Exited(exit_code(status)),
            Ok(None) => {}
            Err(err) => {
                break Termination::SpawnFailed(format!("waiting for the plugin failed: {err}"));
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if flood.raised() || left.is_zero() {
            let _ = child.kill();
            let code = child.wait().ok().and_then(exit_code);
            break if left.is_zero() {
                Termination::TimedOut
            } else {
                Termination::Exited(code)
            };
        }
        thread::sleep(nap.min(left));
        nap = (nap * 2).min(Duration::from_millis(5));
    };
    let _ = child.kill();
    let _ = child.wait();
    (termination, None)
}

fn exit_code(status: ExitStatus) -> Option<i32> {
    status.code()
}

/// The termination of a plugin that exited by itself, noting the signal
/// that ended it, if one did.
#[cfg(unix)]
pub(super) fn exited(signal: &mut Option<i32>, status: ExitStatus) -> Termination {
    use std::os::unix::process::ExitStatusExt;
    *signal = status.signal();
    Termination::Exited(status.code())
}

/// Kills the plugin's process group, which `spawn` created for it, so that
/// whatever the plugin started dies with it.
#[cfg(unix)]
pub(super) fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals a process group; it
        // touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// Collects a reader's result, waiting at most [`PIPE_GRACE`].
fn collect(rx: Option<Receiver<Captured>>) -> (Captured, bool) {
    let empty = Captured::default;
    match rx {
        None => (empty(), false),
        Some(rx) => match rx.recv_timeout(PIPE_GRACE) {
            Ok(captured) => (captured, false),
            Err(_) => (empty(), true),
        },
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
