//! The end of a call on Linux, in the calling thread: one `poll(2)` over
//! the plugin's stdout, its stderr and a pidfd (readable once the plugin
//! has exited), with the deadline as its timeout.
//!
//! The portable way (a thread per pipe, one that waits, a channel each)
//! starts three threads per call. Starting and joining a thread costs tens
//! of microseconds on a virtual machine, and each wake-up of another thread
//! may be an interrupt to another core: together most of what the harness
//! added to a quick plugin's call. Here the worker that made the call reads
//! and waits itself; only a large stdin still gets a thread of its own (see
//! the runner's `feed_stdin`).
//!
//! The order is the runner's (see [`crate::running::runner`]): the plugin
//! exits, its process group is killed, whatever left the group is reaped
//! (it may hold the pipes), then the pipes are read to their end, for at
//! most [`PIPE_GRACE`]; a pipe still open then counts as held open, and
//! what it gave is dropped, as with the threads.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Child;
use std::time::{Duration, Instant};

use crate::running::machine::Lingering;
use crate::running::runner::{
    Captured, Ended, PIPE_GRACE, Reading, Sink, Termination, exited, kill_group,
};

/// A pidfd of the child (Linux 5.3+), `None` where the kernel has none.
pub(super) fn pidfd(child: &Child) -> Option<OwnedFd> {
    let pid = libc::pid_t::try_from(child.id()).ok()?;
    // SAFETY: pidfd_open takes a pid and flags 0 and returns a new fd.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = RawFd::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: the fd was just returned by the kernel and is owned by no one else.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// One output pipe being read.
struct Pipe<R> {
    pipe: Option<R>,
    reading: Reading,
}

impl<R: Read + AsRawFd> Pipe<R> {
    fn new(pipe: Option<R>, sink: Sink) -> Pipe<R> {
        if let Some(p) = &pipe {
            nonblocking(p.as_raw_fd());
        }
        Pipe {
            pipe,
            reading: Reading::new(sink),
        }
    }

    fn fd(&self) -> Option<RawFd> {
        self.pipe.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// Reads what is there; at EOF, an error or past the limit the pipe is
    /// closed. `true` when it went past the limit.
    fn drain(&mut self, buf: &mut [u8]) -> bool {
        let Some(pipe) = self.pipe.as_mut() else {
            return false;
        };
        loop {
            match pipe.read(buf) {
                Ok(0) => break,
                Ok(n) if self.reading.feed(&buf[..n]) => {}
                Ok(_) => {
                    self.pipe = None;
                    return true;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return false,
                Err(_) => break,
            }
        }
        self.pipe = None;
        false
    }

    /// What was read; nothing when the pipe is still open (held open).
    fn finish(self) -> (Captured, bool) {
        match self.pipe {
            Some(_) => (Captured::default(), true),
            None => (self.reading.finish(), false),
        }
    }
}

fn nonblocking(fd: RawFd) {
    // SAFETY: fcntl on an fd we own, with integer arguments only.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Waits until one of `fds` (`None`s are skipped) is readable or `wait`
/// passes; the readable ones, in the order given.
fn poll(fds: &[Option<RawFd>], wait: Duration) -> Vec<bool> {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|fd| libc::pollfd {
            fd: fd.unwrap_or(-1),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ms = libc::c_int::try_from(wait.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
    // SAFETY: poll reads and writes the array we own, of the length given;
    // a negative fd is ignored by the kernel.
    let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, ms) };
    if n <= 0 {
        return vec![false; fds.len()];
    }
    polled.iter().map(|p| p.revents != 0).collect()
}

/// The plugin's end, as the threaded waiter gives it: its exit, or the
/// deadline, or stdout past its limit (the process group is then killed).
struct Exit {
    termination: Option<Termination>,
    signal: Option<i32>,
}

/// Waits for the call to end and reads its output (see the module).
pub(super) fn end(
    mut child: Child,
    pidfd: OwnedFd,
    timeout: Duration,
    [out, err]: [Sink; 2],
    reap: impl FnOnce() -> Vec<Lingering>,
) -> Ended {
    let pid = child.id();
    let mut stdout = Pipe::new(child.stdout.take(), out);
    let mut stderr = Pipe::new(child.stderr.take(), err);
    let mut buf = vec![0u8; 64 * 1024];
    let deadline = Instant::now() + timeout;
    let mut exit = Exit {
        termination: None,
        signal: None,
    };
    while exit.termination.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let fds = [stdout.fd(), stderr.fd(), Some(pidfd.as_raw_fd())];
        let ready = poll(&fds, left);
        let flooded = ready[0] && stdout.drain(&mut buf);
        if ready[1] {
            stderr.drain(&mut buf);
        }
        if flooded {
            kill_group(pid);
            let code = wait_killed(&mut child, &pidfd).and_then(|s| s.code());
            exit.termination = Some(Termination::Exited(code));
        } else if ready[2] {
            exit.termination = Some(match child.wait() {
                Ok(status) => exited(&mut exit.signal, status),
                Err(err) => {
                    Termination::SpawnFailed(format!("waiting for the plugin failed: {err}"))
                }
            });
        } else if left.is_zero() {
            kill_group(pid);
            let _ = wait_killed(&mut child, &pidfd);
            exit.termination = Some(Termination::TimedOut);
        }
    }
    kill_group(pid);
    let lingering = reap();
    let grace = Instant::now() + PIPE_GRACE;
    loop {
        let fds = [stdout.fd(), stderr.fd()];
        let left = grace.saturating_duration_since(Instant::now());
        if fds.iter().all(Option::is_none) || left.is_zero() {
            break;
        }
        let ready = poll(&fds, left);
        if ready[0] {
            stdout.drain(&mut buf);
        }
        if ready[1] {
            stderr.drain(&mut buf);
        }
    }
    let (stdout, out_held) = stdout.finish();
    let (stderr, err_held) = stderr.finish();
    Ended {
        termination: exit.termination.unwrap_or(Termination::TimedOut),
        signal: exit.signal,
        lingering,
        stdout,
        stderr,
        held_open: out_held || err_held,
    }
}

/// Reaps a child just killed, waiting at most [`PIPE_GRACE`] for it to go.
fn wait_killed(child: &mut Child, pidfd: &OwnedFd) -> Option<std::process::ExitStatus> {
    poll(&[Some(pidfd.as_raw_fd())], PIPE_GRACE);
    child.try_wait().ok().flatten()
}
