//! The machine is left as it was found: a plugin call may write only so
//! much, and no process of it outlives the call.
//!
//! # Writes
//!
//! Each call runs with `RLIMIT_FSIZE` (soft and hard) at `--max-write`: a
//! write past it kills the writer with SIGXFSZ, or fails with EFBIG where
//! the signal is ignored. After each call the sandbox is measured (a walk of
//! its tree, without the harness's own saved stdin): a file at the limit or
//! a sandbox holding more than it is a failure naming the file and the size.
//!
//! The limit is applied with `prlimit(2)` on the child as soon as it is
//! spawned, not with `setrlimit(2)` between fork and exec: a `pre_exec` hook
//! makes the standard library fork instead of `posix_spawn`, which costs
//! 1.2 ms per call at 20 MiB of harness memory and 10 ms at 150 MiB
//! (measured here; `posix_spawn`: 0.14 ms). The price is a window of a few
//! microseconds after exec in which the plugin runs unlimited: far too
//! short to write 256 MiB, and the walk after the call is there anyway.
//!
//! # Processes
//!
//! Each call carries a marker in its environment ([`MARKER_VAR`], a value
//! unique to the call; it is not one of the variables a reproduce command
//! sets, so a rerun by hand is unaffected). The runner kills the call's
//! process group when it returns; a process that left the group (a daemon
//! in a session of its own) is found through `/proc` by its marker, killed
//! and reported. Process ids are handed out in a cycle, so whatever the call
//! started has an id after the call's own, up to the last one handed out:
//! only those ids are looked at, and a call after which no id was handed out
//! costs one read of `/proc/sys/kernel/ns_last_pid` (2.5 µs). Of the ids
//! handed out, the harness's own threads are skipped from a list, the ids
//! already gone (most) and the processes of other users with `kill(id, 0)`;
//! only what is left has its environment read. Measured on the project's
//! machine while three other builds ran: the whole guard (marker, limit,
//! look, sandbox check) adds 0.03 ms to a call's median (1.543 ms against
//! 1.575 ms, 1000 calls each); the look alone takes 10 µs at the median and
//! 95 µs at the 90th percentile, when other processes started meanwhile.
//! At the end of the run (and on interruption) every process carrying the
//! run's marker is killed: a full scan of `/proc` (0.3 to 0.5 ms for 70
//! processes). Off Linux, processes are not looked for.
//!
//! A descendant that cleared its environment (`env -i`, a daemon that
//! rebuilds its own) carries no marker. So on Linux the harness is a child
//! subreaper (`PR_SET_CHILD_SUBREAPER`, set by [`become_subreaper`] when a
//! run starts): whatever a call started that outlives its parent is handed
//! to the harness instead of to `init`. Among the ids looked at after a
//! call, a process whose parent is the harness, that is in no process group
//! of the harness's own and leads no running call, is a call's orphan: one
//! that left the harness's session (a daemon, `setsid`) is killed and
//! reported like a marked one, one still in the ended call's group is
//! killed quietly, and the orphans that already exited are reaped (waited
//! for), so that none stays a zombie. At the end of the run every orphan
//! left, whatever its session, is killed and reported. The look costs one
//! more read of `/proc/<id>/stat` for the few ids without the marker that
//! are alive and ours.
//!
//! Over 500 lines: the bounds on a call's writes and leftover processes,
//! with the measurements that justify them in this header and their tests.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

mod orphans;

pub use orphans::{Leader, Spawning, become_subreaper};

/// Default of `--max-write`, in MiB.
pub const DEFAULT_MAX_WRITE_MIB: u64 = 256;

/// SIGXFSZ: a write past the file size limit (25 on Linux and the BSDs).
pub const SIGXFSZ: i32 = 25;

/// The environment variable that marks every process of a plugin call.
pub const MARKER_VAR: &str = "AGENT_CONFORM_CALL";

/// Files of at least this size are deleted from a sandbox that went over
/// its limit, so that a kept sandbox does not hold what filled it.
const SHRINK_FROM: u64 = 1 << 20;

/// The sandbox directory that holds the harness's saved stdin: not the
/// plugin's writes, and not counted.
const HARNESS_DIR: &str = "stdin";

/// The sandbox is walked again once its file system has grown this much
/// since the last walk.
const GROWTH: u64 = 1 << 20;

/// What a plugin call may leave on the machine.
#[derive(Debug, Clone)]
pub struct Guard {
    /// The sandbox root: the call's writes are measured beneath it.
    pub root: PathBuf,
    /// The largest file a call may write, and the most the sandbox may hold
    /// (bytes).
    pub max_write: u64,
    /// The bytes used on the sandbox's file system when the sandbox was last
    /// walked (lowered when that use falls): shared by the sandbox's calls.
    pub measured: Arc<AtomicU64>,
    /// The copies of the sandbox as each call found it (see
    /// [`crate::running::journal`]), shared by the sandbox's calls.
    pub journal: Arc<std::sync::Mutex<crate::running::journal::Journal>>,
}

impl Guard {
    /// Copies the sandbox as the call is about to find it; the copy's
    /// number (see [`crate::running::journal::Journal::record`]).
    pub fn record(&self) -> Option<usize> {
        self.journal.lock().ok()?.record(&self.root)
    }

    /// Whether the sandbox went over the limit during a call. Walking a
    /// sandbox costs about 0.1 ms (a dozen directories), as much as half of
    /// what the harness adds to a call; so it is walked only when its file
    /// system has grown by `GROWTH` since the last walk (one `statvfs`),
    /// or the plugin was killed for a write past the limit (`forced`).
    pub fn check(&self, forced: bool) -> Option<Oversize> {
        let used = fs_used(&self.root);
        if let Some(used) = used {
            let before = self.measured.fetch_min(used, Ordering::Relaxed);
            if !forced && used < before.saturating_add(GROWTH) {
                return None;
            }
        }
        let over = oversize(&self.root, self.max_write);
        if let Some(used) = fs_used(&self.root).or(used) {
            self.measured.store(used, Ordering::Relaxed);
        }
        over
    }
}

/// What a new sandbox's file system uses now: the starting point of its
/// [`Guard::measured`] (0 where it cannot be told, so that the first call
/// walks the sandbox).
pub fn baseline(root: &Path) -> u64 {
    fs_used(root).unwrap_or(0)
}

/// The bytes in use on the file system holding `path`.
#[cfg(unix)]
fn fs_used(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs writes into the zeroed struct we own; the path is a
    // valid NUL-terminated string.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    // The field types differ between platforms (u32 on some).
    #[allow(clippy::useless_conversion)]
    let used = u64::from(stat.f_blocks)
        .saturating_sub(u64::from(stat.f_bfree))
        .saturating_mul(u64::from(stat.f_frsize));
    Some(used)
}

#[cfg(not(unix))]
fn fs_used(_path: &Path) -> Option<u64> {
    None
}

/// A sandbox that went over its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Oversize {
    /// The largest file and its size.
    pub largest: Option<(PathBuf, u64)>,
    /// All the sandbox held (the harness's saved stdin aside).
    pub total: u64,
    /// The limit (bytes).
    pub limit: u64,
    /// Files deleted so that the kept sandbox stays small.
    pub deleted: usize,
}

impl Oversize {
    /// The failure message: the file and the size.
    pub fn message(&self) -> String {
        let limit = mib(self.limit);
        let (path, size) = self
            .largest
            .as_ref()
            .map_or((String::new(), 0), |(p, s)| (p.display().to_string(), *s));
        let what = if size >= self.limit {
            format!(
                "wrote {path} up to {limit}, the most agent-conform lets a call write to one \
                 file (--max-write)"
            )
        } else {
            format!(
                "filled its sandbox with {}, over the limit of {limit} (--max-write); the \
                 largest file is {path} ({})",
                mib(self.total),
                mib(size)
            )
        };
        let deleted = match self.deleted {
            0 => String::new(),
            n => format!("; agent-conform deleted {n} large file(s) from the sandbox"),
        };
        format!(
            "{what}{deleted}; a plugin that fills the user's disk during a hook breaks the \
             machine the host runs on"
        )
    }
}

/// A process a call left running, killed after the call returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lingering {
    /// Its process id.
    pub pid: u32,
    /// Its command line.
    pub command: String,
}

/// `bytes` in MiB, for messages.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

/// `bytes` for people: `512 B`, `12.0 KiB`, `1.5 MiB`, `2.0 GiB`.
pub fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The run's part of every marker: unique to this harness process.
fn run_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{}-{:x}", std::process::id(), nanos as u64)
    })
}

/// A new call's marker value.
pub fn next_marker() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    format!("{}.{}", run_id(), SEQ.fetch_add(1, Ordering::Relaxed))
}

/// Limits the size of any file process `pid` (and what it starts from now
/// on) writes to `bytes`. Best effort: off Linux, nothing.
pub fn limit_writes(pid: u32, bytes: u64) {
    #[cfg(target_os = "linux")]
    {
        let bytes = libc::rlim_t::try_from(bytes).unwrap_or(libc::RLIM_INFINITY);
        let limit = libc::rlimit {
            rlim_cur: bytes,
            rlim_max: bytes,
        };
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: prlimit reads the struct we own and writes nothing (no
            // old-limit pointer). glibc and musl both have it.
            unsafe {
                libc::prlimit(pid, libc::RLIMIT_FSIZE, &limit, std::ptr::null_mut());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (pid, bytes);
}

/// What the sandbox holds, the harness's saved stdin aside.
#[derive(Debug, Default)]
struct Usage {
    total: u64,
    largest: Option<(PathBuf, u64)>,
}

/// Adds up the regular files beneath `dir` (the file types come with the
/// directory entries: only files are stat'ed). Symbolic links are not
/// followed.
fn walk(dir: &Path, top: bool, usage: &mut Usage, visit: &mut dyn FnMut(&Path, u64)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if top && entry.file_name() == HARNESS_DIR {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&entry.path(), false, usage, visit);
        } else if kind.is_file() {
            let Ok(meta) = entry.metadata() else { continue };
            let size = meta.len();
            let path = entry.path();
            usage.total = usage.total.saturating_add(size);
            if usage.largest.as_ref().is_none_or(|(_, s)| size > *s) {
                usage.largest = Some((path.clone(), size));
            }
            visit(&path, size);
        }
    }
}

/// Measures the sandbox at `root`; over `limit` (a file at it, or a total
/// above it), deletes its large files and says what it held.
pub fn oversize(root: &Path, limit: u64) -> Option<Oversize> {
    let mut usage = Usage::default();
    walk(root, true, &mut usage, &mut |_, _| {});
    let file_at_limit = usage.largest.as_ref().is_some_and(|(_, s)| *s >= limit);
    if !file_at_limit && usage.total <= limit {
        return None;
    }
    let mut deleted = 0;
    walk(root, true, &mut Usage::default(), &mut |path, size| {
        if size >= SHRINK_FROM && std::fs::remove_file(path).is_ok() {
            deleted += 1;
        }
    });
    Some(Oversize {
        largest: usage.largest,
        total: usage.total,
        limit,
        deleted,
    })
}

/// Marks the calling thread as the harness's own for as long as the value
/// lives: the threads a call starts after spawning the plugin (its waiter,
/// its readers) take process ids from the same cycle as the plugin's
/// processes, and [`reap`] skips them without a look at `/proc`. Only a
/// shortcut: a thread not marked is looked at and found to be no plugin's.
pub struct OwnThread(#[allow(dead_code)] u32);

/// The ids of the threads marked with [`OwnThread`].
static OWN_THREADS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

impl OwnThread {
    /// Marks the calling thread (off Linux: nothing).
    pub fn enter() -> OwnThread {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: gettid(2) takes no arguments and cannot fail.
            let tid = unsafe { libc::syscall(libc::SYS_gettid) };
            let tid = u32::try_from(tid).unwrap_or(0);
            if let Ok(mut own) = OWN_THREADS.lock() {
                own.push(tid);
            }
            OwnThread(tid)
        }
        #[cfg(not(target_os = "linux"))]
        OwnThread(0)
    }
}

impl Drop for OwnThread {
    /// Unmarks the thread while it still holds its id.
    fn drop(&mut self) {
        if let Ok(mut own) = OWN_THREADS.lock()
            && let Some(at) = own.iter().position(|t| *t == self.0)
        {
            own.swap_remove(at);
        }
    }
}

/// Kills every process still alive with `marker` that left the process
/// group of the call led by `leader` (which the runner killed), and returns
/// them. Members of the group still dying are killed again, not reported.
pub fn reap(marker: &str, leader: u32) -> Vec<Lingering> {
    #[cfg(target_os = "linux")]
    {
        procs::reap(marker, leader)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (marker, leader);
        Vec::new()
    }
}

/// Kills every process of this run's calls still alive (the end of the run,
/// an interruption) and returns them.
pub fn sweep() -> Vec<Lingering> {
    #[cfg(target_os = "linux")]
    {
        procs::sweep(run_id())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Vec::new()
    }
}

#[cfg(target_os = "linux")]
mod procs {
    //! Processes found through `/proc` by their marker.

    use std::sync::OnceLock;

    use super::orphans::{harness, kill_and_wait, orphans, stat, wait, without_marker};
    use super::{Lingering, MARKER_VAR};

    /// Rounds of find-and-kill: a process killed may have started another
    /// just before; the next round finds it.
    const ROUNDS: usize = 8;

    /// Ids probed one by one up to this many; past it `/proc` is listed.
    const PROBE: u32 = 64;

    /// The last process id handed out in our pid namespace: read from a
    /// file kept open (a read at offset 0 costs a third of an open, read
    /// and close).
    pub(super) fn last_pid() -> Option<u32> {
        use std::os::unix::fs::FileExt;
        static FILE: OnceLock<Option<std::fs::File>> = OnceLock::new();
        let read = |file: &std::fs::File| {
            let mut buf = [0u8; 64];
            let n = file.read_at(&mut buf, 0).ok()?;
            let text = std::str::from_utf8(&buf[..n]).ok()?;
            text.split_whitespace().last()?.parse().ok()
        };
        let file = FILE.get_or_init(|| {
            ["/proc/sys/kernel/ns_last_pid", "/proc/loadavg"]
                .iter()
                .filter_map(|p| std::fs::File::open(p).ok())
                .find(|f| read(f).is_some())
        });
        file.as_ref().and_then(read)
    }

    fn pid_max() -> u32 {
        static MAX: OnceLock<u32> = OnceLock::new();
        *MAX.get_or_init(|| {
            std::fs::read_to_string("/proc/sys/kernel/pid_max")
                .ok()
                .and_then(|t| t.trim().parse().ok())
                .unwrap_or(1 << 22)
        })
    }

    /// Whether `pid` comes after `from`, up to `to`, in the cycle of ids.
    fn in_range(pid: u32, from: u32, to: u32) -> bool {
        if from <= to {
            pid > from && pid <= to
        } else {
            pid > from || pid <= to
        }
    }

    /// Every process id listed in `/proc`.
    pub(super) fn all_pids() -> Vec<u32> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .collect()
    }

    /// The ids after `from` up to `to` that may be processes.
    fn ids(from: u32, to: u32) -> Vec<u32> {
        let span = if from <= to {
            to - from
        } else {
            pid_max() - from + to
        };
        if span <= PROBE {
            (1..=span)
                .map(|n| {
                    let id = from + n;
                    if id >= pid_max() { id - pid_max() } else { id }
                })
                .collect()
        } else {
            let mut pids: Vec<u32> = all_pids()
                .into_iter()
                .filter(|&p| in_range(p, from, to))
                .collect();
            pids.sort_unstable();
            pids
        }
    }

    /// Whether `id` is alive and ours to kill: `kill(id, 0)`, a tenth of
    /// the cost of a look at `/proc`.
    fn signalable(id: u32) -> bool {
        libc::pid_t::try_from(id).is_ok_and(|id| {
            // SAFETY: kill(2) with signal 0 only checks; no memory involved.
            unsafe { libc::kill(id, 0) == 0 }
        })
    }

    /// Whether `id` is a thread of the harness marked as such.
    fn ours(id: u32) -> bool {
        super::OWN_THREADS.lock().is_ok_and(|own| own.contains(&id))
    }

    /// Whether the environment of `pid` has an entry `entry` exactly
    /// (`prefix` false) or starting with it.
    fn carries(pid: u32, entry: &[u8], prefix: bool) -> bool {
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return false;
        };
        environ.split(|b| *b == 0).any(|e| {
            if prefix {
                e.starts_with(entry)
            } else {
                e == entry
            }
        })
    }

    /// A process (not a thread of one) and its process group.
    fn group_of(pid: u32) -> Option<u32> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let tgid = status
            .lines()
            .find_map(|l| l.strip_prefix("Tgid:"))?
            .trim()
            .parse::<u32>()
            .ok()?;
        if tgid != pid {
            return None;
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (_, rest) = stat.rsplit_once(')')?;
        let mut fields = rest.split_whitespace();
        let state = fields.next()?;
        if state == "Z" || state == "X" {
            return None;
        }
        fields.nth(1)?.parse().ok()
    }

    pub(super) fn command(pid: u32) -> String {
        let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let words: Vec<String> = raw
            .split(|b| *b == 0)
            .filter(|w| !w.is_empty())
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        if words.is_empty() {
            format!("process {pid}")
        } else {
            words.join(" ")
        }
    }

    pub(super) fn kill(pid: u32) {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: kill(2) touches no memory of ours.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }

    pub(super) fn reap(marker: &str, leader: u32) -> Vec<Lingering> {
        let entry = format!("{MARKER_VAR}={marker}");
        let mut from = leader;
        let mut left = Vec::new();
        for _ in 0..ROUNDS {
            let Some(to) = last_pid() else {
                return sweep_matching(entry.as_bytes(), false, Some(leader));
            };
            if to == from {
                break;
            }
            for pid in ids(from, to) {
                // The harness's own threads (a call's readers and waiter)
                // take ids from the same cycle; most ids are gone already.
                if ours(pid) || !signalable(pid) {
                    continue;
                }
                if !carries(pid, entry.as_bytes(), false) {
                    left.extend(without_marker(pid, leader));
                    continue;
                }
                let Some(group) = group_of(pid) else {
                    wait(pid, libc::WNOHANG);
                    continue;
                };
                if group != leader {
                    left.push(Lingering {
                        pid,
                        command: command(pid),
                    });
                }
                kill_and_wait(pid, stat(pid).is_some_and(|s| s.parent == harness().0));
            }
            from = to;
        }
        left
    }

    pub(super) fn sweep(run: &str) -> Vec<Lingering> {
        let prefix = format!("{MARKER_VAR}={run}.");
        let mut left = sweep_matching(prefix.as_bytes(), true, None);
        for orphan in orphans() {
            if !left.iter().any(|l| l.pid == orphan.pid) {
                left.push(orphan);
            }
        }
        left
    }

    /// Kills every process whose environment carries `entry`, in a few
    /// rounds; reports those outside the group `leader` (all, if none).
    fn sweep_matching(entry: &[u8], prefix: bool, leader: Option<u32>) -> Vec<Lingering> {
        let mut left: Vec<Lingering> = Vec::new();
        for _ in 0..ROUNDS {
            let found: Vec<(u32, u32)> = all_pids()
                .into_iter()
                .filter(|&pid| carries(pid, entry, prefix))
                .filter_map(|pid| Some((pid, group_of(pid)?)))
                .collect();
            if found.is_empty() {
                break;
            }
            for (pid, group) in found {
                let seen = left.iter().any(|l| l.pid == pid);
                if Some(group) != leader && !seen {
                    left.push(Lingering {
                        pid,
                        command: command(pid),
                    });
                }
                kill_and_wait(pid, stat(pid).is_some_and(|s| s.parent == harness().0));
            }
            std::thread::yield_now();
        }
        left
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn ids_follow_the_cycle() {
            assert_eq!(ids(10, 13), vec![11, 12, 13]);
            assert!(ids(10, 10).is_empty());
            let max = pid_max();
            assert_eq!(ids(max - 2, 1), vec![max - 1, 0, 1]);
            assert!(in_range(5, max - 2, 10) && !in_range(max - 3, max - 2, 10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_over_its_limit_names_its_largest_file_and_sheds_it() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("stdin")).unwrap();
        std::fs::write(root.path().join("stdin/1.stdin"), vec![0u8; 3 << 20]).unwrap();
        std::fs::create_dir_all(root.path().join("tmp")).unwrap();
        std::fs::write(root.path().join("tmp/small"), b"x").unwrap();
        assert_eq!(
            oversize(root.path(), 2 << 20),
            None,
            "stdin/ is not counted"
        );
        let big = root.path().join("tmp/big");
        std::fs::write(&big, vec![0u8; 2 << 20]).unwrap();
        let over = oversize(root.path(), 2 << 20).unwrap();
        assert_eq!(over.largest, Some((big.clone(), 2 << 20)));
        assert_eq!(over.deleted, 1);
        assert!(!big.exists() && root.path().join("stdin/1.stdin").exists());
        assert!(
            over.message().contains("tmp/big up to 2.0 MiB"),
            "{}",
            over.message()
        );
    }
}
