//! One call from spawn to outcome, in the order the host makes it: the
//! process spawned in a process group of its own, with its bounds (the
//! marker of its processes, the write limit) and tracked for an interrupt;
//! its stdin written (late, when asked); then its end waited for (see
//! `wait`) and its outcome assembled.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::{Duration, Instant};

use super::capture::Sink;
use super::wait::{Ended, Flood, end};
use super::{Bytes, Invocation, Outcome, Termination};
use crate::host::invocation::OUTPUT_LIMIT;
use crate::running::bounds;
use crate::running::confine;
use crate::running::interrupt;

/// Runs one invocation to completion (or to its deadline). A call in a
/// sandbox first has the sandbox copied as it finds it (see
/// [`crate::running::journal`]), outside its time.
pub fn run(inv: &Invocation) -> Outcome {
    let before = inv.guard.as_ref().and_then(bounds::Guard::record);
    let mut outcome = call(inv);
    outcome.before = before;
    outcome
}

/// [`run`], the call itself.
fn call(inv: &Invocation) -> Outcome {
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
    feed_stdin(&mut child, inv.stdin.clone(), inv.stdin_delay, inv.startup);
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
        before: None,
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
/// With a `delay`, the thread first holds the bytes back until the plugin
/// waits for them ([`wait_until_reading`], or its `startup` time where the
/// kernel cannot show it), then waits half of the delay, writes the first
/// half of the bytes, waits the other half, writes the rest and closes stdin.
fn feed_stdin(child: &mut Child, input: Option<Bytes>, delay: Option<Duration>, startup: Duration) {
    let (Some(mut pipe), Some(bytes)) = (child.stdin.take(), input) else {
        return;
    };
    if let Some(delay) = delay {
        let pid = child.id();
        thread::spawn(move || {
            let _own = bounds::OwnThread::enter();
            wait_until_reading(pid, startup);
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

/// The longest the harness waits for a plugin to block reading its stdin
/// before it starts the delay anyway (a plugin that never reads, or a
/// system that does not show it).
const READING_BOUND: Duration = Duration::from_secs(5);

/// How a late stdin was held back before its delay started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Until the kernel showed the plugin waiting for its stdin.
    Reading,
    /// Until the plugin was gone (it exited without reading).
    Gone,
    /// For [`READING_BOUND`]: it never showed waiting.
    Bound,
    /// Where the kernel cannot show it: for the plugin's own measured
    /// start-up time.
    StartUp(Duration),
}

/// Waits until the process `pid` is blocked waiting for its stdin: on
/// Linux, one of its threads in `read` on fd 0 (`/proc/<pid>/task/*/syscall`),
/// or its main thread asleep in `select`, `poll` or `epoll_wait`
/// (`/proc/<pid>/wchan`: a deadline on stdin); at most [`READING_BOUND`].
/// Where `/proc` cannot show it (off Linux, or `/proc` not mounted), for
/// the plugin's own start-up time `startup` (docs/host.md "A deadline on
/// stdin"). A late payload is then late for the plugin itself, however
/// slowly it started.
fn wait_until_reading(pid: u32, startup: Duration) -> Held {
    hold_back(pid, startup, proc_shows_waits())
}

/// Whether this system's `/proc` shows what a process waits on.
fn proc_shows_waits() -> bool {
    cfg!(target_os = "linux") && Path::new("/proc/self/stat").exists()
}

/// [`wait_until_reading`], told whether `/proc` shows waits (`proc_shows`),
/// so that a test can take the other path.
fn hold_back(pid: u32, startup: Duration, proc_shows: bool) -> Held {
    if !proc_shows {
        thread::sleep(startup);
        return Held::StartUp(startup);
    }
    let start = std::time::Instant::now();
    while start.elapsed() < READING_BOUND {
        match reading_stdin(pid) {
            Some(true) => return Held::Reading,
            None => return Held::Gone,
            Some(false) => thread::sleep(Duration::from_millis(2)),
        }
    }
    Held::Bound
}

/// Whether `pid` waits for its stdin now; `None` when it is gone.
fn reading_stdin(pid: u32) -> Option<bool> {
    let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
    let stat = std::fs::read_to_string(proc.join("stat")).ok()?;
    let state = stat.rsplit(')').next()?.split_whitespace().next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    let read_nr = if cfg!(target_arch = "aarch64") {
        "63"
    } else {
        "0"
    };
    let tasks = std::fs::read_dir(proc.join("task")).ok()?;
    for task in tasks.flatten() {
        let Ok(syscall) = std::fs::read_to_string(task.path().join("syscall")) else {
            continue;
        };
        let mut fields = syscall.split_whitespace();
        if fields.next() == Some(read_nr) && fields.next() == Some("0x0") {
            return Some(true);
        }
    }
    let wchan = std::fs::read_to_string(proc.join("wchan")).unwrap_or_default();
    let waiting = [
        "pipe_read",
        "do_select",
        "core_sys_select",
        "do_sys_poll",
        "ep_poll",
    ];
    Some(waiting.iter().any(|w| wchan.contains(w)))
}

/// Stdin this small is written without a thread: every pipe buffers it.
const PIPE_BUF_SAFE: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_proc_cannot_show_the_wait_the_payload_waits_for_the_plugins_start_up() {
        // The path taken off Linux, forced: held back by the start-up time
        // measured at the gate, whatever the process does.
        let startup = Duration::from_millis(3);
        assert_eq!(
            hold_back(std::process::id(), startup, false),
            Held::StartUp(startup)
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn on_linux_the_payload_waits_until_the_plugin_reads_its_stdin() {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("cat runs");
        let held = hold_back(child.id(), Duration::from_secs(60), true);
        drop(child.stdin.take());
        let _ = child.wait();
        assert_eq!(held, Held::Reading);
        // A plugin that is gone is not waited for.
        assert_eq!(hold_back(child.id(), Duration::ZERO, true), Held::Gone);
    }
}
