//! The runner: spawns one plugin invocation the way the Entire CLI does and
//! brings back what happened, whatever the plugin does.
//!
//! The host (host-behaviour.md, "Invocation") executes the binary directly, with
//! the request on stdin followed by EOF, a deadline after which the process is
//! killed, and a 10 MiB cap on each of stdout and stderr. This module models
//! exactly that and guarantees the harness itself never hangs: stdin is written
//! from its own thread (a plugin that never reads cannot block us), output is
//! read by bounded readers (a flood cannot exhaust memory), and on expiry or
//! overflow the plugin's whole process group is killed (a shell script's
//! children die with it).

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

/// The host keeps at most this many bytes of stdout and of stderr (10 MiB).
pub const OUTPUT_LIMIT: usize = 10 * 1024 * 1024;

/// How long the reader threads may take to reach EOF once the plugin has
/// exited. A background process that inherited the pipes can hold them open
/// forever; we stop waiting for it after this grace period.
const PIPE_GRACE: Duration = Duration::from_secs(2);

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
    /// Bytes written to stdin before it is closed; `None` gives no stdin at all.
    pub stdin: Option<Arc<[u8]>>,
    /// Deadline for the whole invocation.
    pub timeout: Duration,
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
}

impl Outcome {
    /// The exit code when the process exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        match self.termination {
            Termination::Exited(code) => code,
            _ => None,
        }
    }

    /// True when the process exited with code 0 and nothing went over a limit.
    pub fn succeeded(&self) -> bool {
        self.exit_code() == Some(0) && !self.stdout_overflow
    }
}

/// What a bounded reader thread sends back.
struct Captured {
    bytes: Vec<u8>,
    overflow: bool,
}

/// Runs one invocation to completion (or to its deadline).
pub fn run(inv: &Invocation) -> Outcome {
    let start = Instant::now();
    let mut child = match spawn(inv) {
        Ok(child) => child,
        Err(err) => return spawn_failure(inv, err, start),
    };
    feed_stdin(&mut child, inv.stdin.clone());
    let flooded = Arc::new(AtomicBool::new(false));
    let stdout_rx = child
        .stdout
        .take()
        .map(|p| read_bounded(p, Some(flooded.clone())));
    let stderr_rx = child.stderr.take().map(|p| read_bounded(p, None));
    let termination = wait_with_deadline(&mut child, inv.timeout, &flooded);
    // Whatever happened, nothing of the plugin may outlive the invocation.
    kill_group(&mut child);
    let (stdout, out_held) = collect(stdout_rx);
    let (stderr, err_held) = collect(stderr_rx);
    Outcome {
        termination,
        stdout_overflow: stdout.overflow,
        stderr_overflow: stderr.overflow,
        stdout: stdout.bytes,
        stderr: stderr.bytes,
        pipes_held_open: out_held || err_held,
        elapsed: start.elapsed(),
    }
}

fn spawn_failure(inv: &Invocation, err: io::Error, start: Instant) -> Outcome {
    Outcome {
        termination: Termination::SpawnFailed(format!(
            "could not start {}: {err}",
            inv.program.display()
        )),
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_overflow: false,
        stderr_overflow: false,
        pipes_held_open: false,
        elapsed: start.elapsed(),
    }
}

fn spawn(inv: &Invocation) -> io::Result<Child> {
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
    for (key, value) in &inv.env {
        cmd.env(key, value);
    }
    new_process_group(&mut cmd);
    cmd.spawn()
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
fn feed_stdin(child: &mut Child, input: Option<Arc<[u8]>>) {
    let (Some(mut pipe), Some(bytes)) = (child.stdin.take(), input) else {
        return;
    };
    thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
        drop(pipe);
    });
}

/// Reads a pipe into memory up to [`OUTPUT_LIMIT`] bytes. Past the limit the
/// reader raises `flooded` (when given) and stops, so that the waiter kills
/// the plugin instead of the harness buffering an endless stream.
fn read_bounded<R: Read + Send + 'static>(
    mut pipe: R,
    flooded: Option<Arc<AtomicBool>>,
) -> Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut overflow = false;
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = OUTPUT_LIMIT - bytes.len();
                    if n > room {
                        bytes.extend_from_slice(&buf[..room]);
                        overflow = true;
                        break;
                    }
                    bytes.extend_from_slice(&buf[..n]);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        if overflow && let Some(flag) = flooded {
            flag.store(true, Ordering::SeqCst);
        }
        let _ = tx.send(Captured { bytes, overflow });
    });
    rx
}

/// Polls the child until it exits, the deadline passes, or stdout floods.
/// The nap starts at 100 µs and doubles up to 5 ms, so that a fast plugin is
/// reaped within a fraction of a millisecond and a slow one costs no CPU.
fn wait_with_deadline(child: &mut Child, timeout: Duration, flooded: &AtomicBool) -> Termination {
    let deadline = Instant::now() + timeout;
    let mut nap = Duration::from_micros(100);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Termination::Exited(exit_code(status)),
            Ok(None) => {}
            Err(err) => {
                return Termination::SpawnFailed(format!("waiting for the plugin failed: {err}"));
            }
        }
        if flooded.load(Ordering::SeqCst) {
            kill_group(child);
            return Termination::Exited(child.wait().ok().and_then(exit_code));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Termination::TimedOut;
        }
        thread::sleep(nap.min(left));
        nap = (nap * 2).min(Duration::from_millis(5));
    }
}

fn exit_code(status: ExitStatus) -> Option<i32> {
    status.code()
}

/// Kills the plugin's process group (Unix) or the plugin itself (elsewhere),
/// then reaps it.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals the process group
            // that `spawn` created for this child; it touches no memory.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Collects a reader's result, waiting at most [`PIPE_GRACE`].
fn collect(rx: Option<Receiver<Captured>>) -> (Captured, bool) {
    let empty = || Captured {
        bytes: Vec::new(),
        overflow: false,
    };
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
