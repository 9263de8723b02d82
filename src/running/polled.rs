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
//! The order is the runner's (see the runner module): the plugin
//! exits, its process group is killed, whatever left the group is reaped
//! (it may hold the pipes), then the pipes are read to their end, for at
//! most the runner's grace period; a pipe still open then counts as held
//! open, and the runner drops what it gave, as with the threads.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// How long the pipes may stay open once the plugin has exited (the
/// runner's grace period).
pub(super) type Grace = Duration;

/// A pidfd of the child (Linux 5.3+), `None` where the kernel has none.
pub(super) fn pidfd(child: &Child) -> Option<OwnedFd> {
    let pid = libc::pid_t::try_from(child.id()).ok()?;
    // SAFETY: pidfd_open takes a pid and flags 0 and returns a new fd.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = RawFd::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: the fd was just returned by the kernel and is owned by no one else.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Takes a block read from a pipe; `false` once past its limit (the pipe
/// is then no longer read).
pub(super) type Feed<'a> = &'a mut dyn FnMut(&[u8]) -> bool;

/// One output pipe being read.
struct Pipe<'a, R> {
    pipe: Option<R>,
    feed: Feed<'a>,
}

impl<'a, R: Read + AsRawFd> Pipe<'a, R> {
    fn new(pipe: Option<R>, feed: Feed<'a>) -> Pipe<'a, R> {
        if let Some(p) = &pipe {
            nonblocking(p.as_raw_fd());
        }
        Pipe { pipe, feed }
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
                Ok(n) if (self.feed)(&buf[..n]) => {}
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

/// How the call ended, as seen here.
pub(super) struct Polled {
    /// The plugin's exit status, when it was reaped.
    pub(super) status: Option<io::Result<ExitStatus>>,
    /// stdout went past its limit: the process group was killed.
    pub(super) flooded: bool,
    /// The deadline passed: the process group was killed.
    pub(super) timed_out: bool,
    /// stdout, stderr: still open when the grace period ended.
    pub(super) held_open: [bool; 2],
}

/// Waits for the call to end and reads its output into `feeds` (stdout,
/// stderr; see the module): `kill` kills the plugin's process group, and
/// `exited` runs once it has ended, before the pipes are read to their end.
pub(super) fn end(
    child: &mut Child,
    pidfd: OwnedFd,
    (timeout, grace): (Duration, Grace),
    [out, err]: [Feed<'_>; 2],
    kill: &dyn Fn(),
    exited: &mut dyn FnMut(),
) -> Polled {
    let mut stdout = Pipe::new(child.stdout.take(), out);
    let mut stderr = Pipe::new(child.stderr.take(), err);
    let mut buf = vec![0u8; 64 * 1024];
    let mut deadline = Instant::now() + timeout;
    let mut starved = Starved::default();
    let mut end = Polled {
        status: None,
        flooded: false,
        timed_out: false,
        held_open: [false; 2],
    };
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let fds = [stdout.fd(), stderr.fd(), Some(pidfd.as_raw_fd())];
        let ready = poll(&fds, left);
        end.flooded = ready[0] && stdout.drain(&mut buf);
        if ready[1] {
            stderr.drain(&mut buf);
        }
        let due = left.is_zero() && !ready[2];
        if due
            && !end.flooded
            && let Some(more) = starved.owed(child.id(), timeout)
        {
            deadline += more;
            continue;
        }
        if end.flooded || due {
            end.timed_out = !end.flooded;
            kill();
            poll(&[Some(pidfd.as_raw_fd())], grace);
            end.status = child.try_wait().transpose();
            break;
        }
        if ready[2] {
            end.status = Some(child.wait());
            break;
        }
    }
    kill();
    exited();
    let until = Instant::now() + grace;
    loop {
        let fds = [stdout.fd(), stderr.fd()];
        let left = until.saturating_duration_since(Instant::now());
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
    end.held_open = [stdout.pipe.is_some(), stderr.pipe.is_some()];
    end
}

/// The time a call's process spent waiting for a CPU, given back to it at
/// its deadline. The deadline is the host's measure of the plugin: on the
/// user's machine the plugin runs when it is ready to. On a loaded machine
/// (CI runners, two cores shared by several builds) a runnable plugin may
/// wait seconds for a CPU, and a sound call would time out for the
/// machine's load, in any case of the run. So when the deadline passes, the
/// time the plugin's process spent runnable but not running
/// (`/proc/<pid>/schedstat`, its second field) is added to it, at most one
/// more deadline in all. A plugin that sleeps or blocks (a hang) waits for
/// no CPU and is killed at its deadline as before; one that spins is
/// killed by the second deadline at the latest.
#[derive(Default)]
struct Starved {
    /// What was given back so far.
    given: Duration,
}

impl Starved {
    /// What more to give the call led by `pid` at its deadline, if anything.
    fn owed(&mut self, pid: u32, timeout: Duration) -> Option<Duration> {
        let waited = run_delay(pid)?.min(timeout);
        let more = waited.checked_sub(self.given).filter(|d| !d.is_zero())?;
        self.given = waited;
        Some(more)
    }
}

/// How long `pid` has waited on a run queue (`/proc/<pid>/schedstat`).
fn run_delay(pid: u32) -> Option<Duration> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
    let nanos: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_given_back_is_the_new_wait_only_and_at_most_one_deadline() {
        let me = std::process::id();
        assert!(run_delay(me).is_some(), "schedstat is readable");
        let mut starved = Starved::default();
        let timeout = Duration::from_nanos(1);
        let first = starved.owed(me, timeout);
        assert!(first.is_none_or(|d| d <= timeout));
        // Everything owed was given: the cap holds whatever the wait.
        assert_eq!(starved.owed(me, timeout), None);
        assert!(starved.given <= timeout);
        assert_eq!(Starved::default().owed(u32::MAX, timeout), None);
    }
}
