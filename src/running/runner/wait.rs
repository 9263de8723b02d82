//! The end of a call: the plugin exits, its deadline passes or its stdout
//! floods; its whole process group is killed, whatever left the group is
//! reaped, and the output pipes are read to their end (for at most
//! [`PIPE_GRACE`]). On Linux all of it happens in the calling thread, with
//! one `poll(2)` (see [`crate::running::polled`]); where no pidfd can be
//! had, with a thread per pipe and one that waits.

use std::process::{Child, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use super::Termination;
use super::capture::{Captured, Reading, Sink, read_bounded};
use crate::running::bounds::{self, Lingering};

/// How long the reader threads may take to reach EOF once the plugin has
/// exited. A background process that inherited the pipes can hold them open
/// forever; we stop waiting for it after this grace period.
pub(super) const PIPE_GRACE: Duration = Duration::from_secs(2);

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
pub(super) fn end(
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

/// Raised by the stdout reader when the plugin prints more than the limit.
pub(super) struct Flood(pub(super) Arc<AtomicBool>);

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
