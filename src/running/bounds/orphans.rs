//! Orphans: the processes a call left that outlive their parent. The
//! harness is a child subreaper, so they become its children, marker or
//! not; this module tells them from the harness's own children and from
//! the calls still running, kills and reports them, and waits for those
//! that exited (see the header of `bounds.rs`).

use std::sync::atomic::{AtomicU64, Ordering};

/// The leaders of the calls running now: their processes are the standard
/// library's to wait for, never the orphan reaper's.
static LEADERS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// A running call's leader, registered for as long as the value lives (see
/// [`become_subreaper`]).
pub struct Leader(u32);

impl Leader {
    /// Registers `pid`, the leader of a call just spawned.
    pub fn track(pid: u32) -> Leader {
        if let Ok(mut leaders) = LEADERS.lock() {
            leaders.push(pid);
        }
        Leader(pid)
    }
}

impl Drop for Leader {
    fn drop(&mut self) {
        if let Ok(mut leaders) = LEADERS.lock()
            && let Some(at) = leaders.iter().position(|p| *p == self.0)
        {
            leaders.swap_remove(at);
        }
    }
}

/// Calls being spawned right now, whose leaders are not registered yet.
static SPAWNING: AtomicU64 = AtomicU64::new(0);

/// A call being spawned, until its leader is registered: meanwhile no
/// exited child of the harness is waited for (it could be that leader).
pub struct Spawning(());

impl Spawning {
    /// Marks a spawn as in progress.
    pub fn enter() -> Spawning {
        SPAWNING.fetch_add(1, Ordering::SeqCst);
        Spawning(())
    }
}

impl Drop for Spawning {
    fn drop(&mut self) {
        SPAWNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Makes the harness a child subreaper (Linux): a process a call started
/// that outlives its parent becomes the harness's child instead of
/// `init`'s, so that it is found even without the marker (see the module
/// header). Off Linux, nothing.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) only sets a flag of the
    // calling process; no memory is involved.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0);
    }
}

#[cfg(target_os = "linux")]
pub(super) use linux::*;

#[cfg(target_os = "linux")]
mod linux {
    //! The look through `/proc`.

    use super::super::Lingering;
    use super::super::procs::{all_pids, command, kill};
    use super::{LEADERS, SPAWNING};

    /// Kills `pid` and, when it is the harness's child (an orphan handed to
    /// the subreaper), waits for it, so that it leaves no zombie.
    pub(crate) fn kill_and_wait(pid: u32, ours: bool) {
        kill(pid);
        if ours {
            wait(pid, 0);
        }
    }

    /// waitpid(2) on one child of the harness.
    pub(crate) fn wait(pid: u32, flags: libc::c_int) {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            let mut status = 0;
            // SAFETY: waitpid writes the status into our local; the pid is
            // an orphan's, never a child the standard library waits for.
            unsafe {
                libc::waitpid(pid, &mut status, flags);
            }
        }
    }

    /// What `/proc/<id>/stat` says of a process: its state, parent, process
    /// group and session.
    pub(crate) struct Stat {
        pub(crate) state: char,
        pub(crate) parent: u32,
        group: u32,
        session: u32,
    }

    pub(crate) fn stat(pid: u32) -> Option<Stat> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (_, rest) = text.rsplit_once(')')?;
        let mut fields = rest.split_whitespace();
        let state = fields.next()?.chars().next()?;
        let mut number = || fields.next()?.parse::<u32>().ok();
        Some(Stat {
            state,
            parent: number()?,
            group: number()?,
            session: number()?,
        })
    }

    /// The harness's own process id, process group and session.
    pub(crate) fn harness() -> (u32, u32, u32) {
        // SAFETY: getpid, getpgrp and getsid(0) only read the calling
        // process's ids.
        let (pid, group, session) = unsafe { (libc::getpid(), libc::getpgrp(), libc::getsid(0)) };
        let id = |n: libc::pid_t| u32::try_from(n).unwrap_or(0);
        (id(pid), id(group), id(session))
    }

    fn leads_a_call(pid: u32) -> bool {
        LEADERS.lock().is_ok_and(|l| l.contains(&pid))
    }

    /// What to do with a process found without the marker.
    enum Orphan {
        /// Not a call's orphan: the harness's own, or another's.
        No,
        /// Exited already: wait for it.
        Exited,
        /// Still in the ended call's group (dying): kill it quietly.
        InGroup,
        /// Left the harness's session: kill it and report it.
        Escaped,
        /// In a group of its own in the harness's session.
        Detached,
    }

    /// Whether `pid` is an orphan a call left to the harness, the
    /// subreaper: its child, in no process group of the harness's own
    /// (git and the like stay in it), leading no running call.
    fn orphan(pid: u32, leader: Option<u32>) -> Orphan {
        let (me, my_group, my_session) = harness();
        let Some(stat) = stat(pid) else {
            return Orphan::No;
        };
        if stat.parent != me || stat.group == my_group || leads_a_call(pid) {
            return Orphan::No;
        }
        if stat.state == 'Z' || stat.state == 'X' {
            // A call spawned just now may not be registered yet: its
            // leader is the standard library's to wait for.
            if SPAWNING.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                return Orphan::No;
            }
            Orphan::Exited
        } else if Some(stat.group) == leader {
            Orphan::InGroup
        } else if stat.session != my_session {
            Orphan::Escaped
        } else {
            Orphan::Detached
        }
    }

    /// Handles a process found after the call led by `leader` without the
    /// marker: an orphan that escaped is killed and returned.
    pub(crate) fn without_marker(pid: u32, leader: u32) -> Option<Lingering> {
        match orphan(pid, Some(leader)) {
            Orphan::No | Orphan::Detached => None,
            Orphan::Exited => {
                wait(pid, libc::WNOHANG);
                None
            }
            Orphan::InGroup => {
                kill_and_wait(pid, true);
                None
            }
            Orphan::Escaped => {
                let found = Lingering {
                    pid,
                    command: command(pid),
                };
                kill_and_wait(pid, true);
                Some(found)
            }
        }
    }

    /// At the end of the run: every orphan left, killed and returned (the
    /// exited ones waited for).
    pub(crate) fn orphans() -> Vec<Lingering> {
        let mut left = Vec::new();
        for pid in all_pids() {
            match orphan(pid, None) {
                Orphan::No => {}
                Orphan::Exited => wait(pid, libc::WNOHANG),
                Orphan::InGroup | Orphan::Escaped | Orphan::Detached => {
                    left.push(Lingering {
                        pid,
                        command: command(pid),
                    });
                    kill_and_wait(pid, true);
                }
            }
        }
        left
    }
}
