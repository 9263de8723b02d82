//! Interruption: Ctrl-C (SIGINT), a cancelled CI job (SIGTERM) or a closed
//! terminal (SIGHUP) end the run, and nothing of it outlives the harness.
//!
//! Each plugin runs in a process group of its own (so that a deadline kills
//! whatever it started), which also means the terminal's Ctrl-C never reaches
//! it: without this module a hanging plugin would go on running after the
//! harness is gone, and every sandbox of the run would stay on disk.
//!
//! The signal handler only writes the signal's number to a socket (about all
//! a handler may safely do); a thread waiting on the socket then
//! 1. raises the flag that stops new plugin calls and new sandboxes, and
//!    waits for those already being made ([`Entry`]);
//! 2. kills the process group of every running plugin call ([`Group`]),
//!    and every process that left one ([`crate::running::bounds::sweep`]);
//! 3. deletes every sandbox of the run, kept ones included, and the run's
//!    folder ([`crate::running::runs`]): no report will name them;
//! 4. says so on stderr and exits with 128 + the signal's number, as a shell
//!    reports a process the signal ended.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Set once the run is interrupted: no plugin call or sandbox starts after.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Plugin calls being spawned and sandboxes being made right now.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// The process groups of the plugin calls running now.
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The sandboxes of the run still on disk.
static SANDBOXES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The run's folder of sandboxes (see [`crate::running::runs`]).
static RUN_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Permission to start a plugin call, make a sandbox or write into a kept
/// one, held until the call or sandbox is registered (the writing done): the
/// interruption waits for every entry to be dropped before it kills and
/// deletes, so nothing started concurrently escapes it.
pub struct Entry(());

impl Entry {
    /// `None` once the run is interrupted.
    pub fn enter() -> Option<Entry> {
        IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        if INTERRUPTED.load(Ordering::SeqCst) {
            IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Entry(()))
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A running plugin call's process group, registered until it is dropped.
pub struct Group(u32);

impl Group {
    /// Registers the process group led by `pid`; `_entry` proves that the
    /// run was not interrupted when the call was spawned.
    pub fn track(pid: u32, _entry: &Entry) -> Group {
        register(&GROUPS, pid);
        Group(pid)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        unregister(&GROUPS, &self.0);
    }
}

/// Registers a sandbox made under `_entry`, to be deleted on interruption.
pub fn track_sandbox(root: &Path, _entry: &Entry) {
    register(&SANDBOXES, root.to_path_buf());
}

/// Registers the run's folder, deleted on interruption with what is in it.
pub fn track_run_dir(path: &Path) {
    register(&RUN_DIRS, path.to_path_buf());
}

/// Forgets a sandbox that was deleted.
pub fn forget_sandbox(root: &Path) {
    unregister(&SANDBOXES, &root.to_path_buf());
}

fn register<T>(registry: &Mutex<Vec<T>>, item: T) {
    if let Ok(mut items) = registry.lock() {
        items.push(item);
    }
}

fn unregister<T: PartialEq>(registry: &Mutex<Vec<T>>, item: &T) {
    if let Ok(mut items) = registry.lock()
        && let Some(at) = items.iter().position(|i| i == item)
    {
        items.swap_remove(at);
    }
}

/// Where work begins (a case, a step) and where the run would end: once the
/// run is interrupted, the thread that stops it ends the process, and
/// whoever calls this waits for that. So a worker whose plugin call was
/// killed starts nothing more (no file written into a sandbox being
/// deleted), and the calls the interruption cut short never become a
/// report.
pub fn hold_if_interrupted() {
    if INTERRUPTED.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// Installs the handlers of SIGINT, SIGTERM and SIGHUP for the rest of the
/// process. Where that fails (or off Unix), the signals keep their default
/// action, as before.
pub fn install() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(unix::install);
    }
}

#[cfg(unix)]
mod unix {
    use std::io::{IsTerminal, Read};
    use std::os::fd::IntoRawFd;
    use std::os::unix::net::UnixStream;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::time::{Duration, Instant};

    use super::{GROUPS, IN_FLIGHT, INTERRUPTED, RUN_DIRS, SANDBOXES};

    /// How long the interrupting thread waits for the plugin calls and sandboxes
    /// being started to be registered (each takes well under a millisecond).
    const SETTLE: Duration = Duration::from_secs(2);

    /// Stops the run: see the module's documentation. Never returns.
    fn stop(signal: i32, name: &str) -> ! {
        INTERRUPTED.store(true, Ordering::SeqCst);
        let since = Instant::now();
        while IN_FLIGHT.load(Ordering::SeqCst) > 0 && since.elapsed() < SETTLE {
            std::thread::sleep(Duration::from_millis(1));
        }
        let groups: Vec<u32> = GROUPS.lock().map(|g| g.clone()).unwrap_or_default();
        for &pid in &groups {
            kill_group(pid);
        }
        // What left those groups (a daemon in a session of its own).
        let _ = crate::running::bounds::sweep();
        let sandboxes: Vec<PathBuf> = SANDBOXES.lock().map(|s| s.clone()).unwrap_or_default();
        for root in &sandboxes {
            let _ = std::fs::remove_dir_all(root);
        }
        let run_dirs: Vec<PathBuf> = RUN_DIRS.lock().map(|s| s.clone()).unwrap_or_default();
        for dir in &run_dirs {
            let _ = std::fs::remove_dir_all(dir);
            if let Some(runs) = dir.parent() {
                let _ = std::fs::remove_dir(runs);
            }
        }
        let lead = if std::io::stderr().is_terminal() {
            "\n"
        } else {
            ""
        };
        eprintln!(
            "{lead}agent-conform: interrupted ({name}): stopped {} running plugin call(s) and \
             deleted {} sandbox(es); no report was written",
            groups.len(),
            sandboxes.len()
        );
        std::process::exit(128 + signal)
    }

    fn kill_group(pid: u32) {
        if let Ok(pid) = i32::try_from(pid) {
            // SAFETY: kill(2) with a negative pid signals a process group; it
            // touches no memory of ours.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }

    /// The socket the handler writes the signal's number to.
    static WAKE: AtomicI32 = AtomicI32::new(-1);

    /// The signals handled, with their names for the message.
    const SIGNALS: [(libc::c_int, &str); 3] = [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
    ];

    pub(super) fn install() {
        let Ok((mut reader, writer)) = UnixStream::pair() else {
            return;
        };
        let _ = writer.set_nonblocking(true);
        WAKE.store(writer.into_raw_fd(), Ordering::SeqCst);
        let spawned = std::thread::Builder::new()
            .name("interrupt".into())
            .spawn(move || {
                let mut byte = [0u8; 1];
                while let Ok(n) = reader.read(&mut byte) {
                    if n == 1 {
                        let signal = libc::c_int::from(byte[0]);
                        let name = SIGNALS
                            .iter()
                            .find(|(s, _)| *s == signal)
                            .map_or("a signal", |(_, name)| name);
                        stop(signal, name);
                    }
                }
            });
        if spawned.is_err() {
            return;
        }
        for (signal, _) in SIGNALS {
            handle(signal);
        }
    }

    /// Points `signal` at [`on_signal`].
    fn handle(signal: libc::c_int) {
        // SAFETY: a zeroed sigaction is a valid value to fill in; the handler
        // is an `extern "C"` function that only calls write(2) and
        // signal(2), which are async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }

    /// The handler: hands the signal's number to the waiting thread, and
    /// gives the signal back its default action, so that a second Ctrl-C
    /// ends the harness at once should the clean-up take long.
    extern "C" fn on_signal(signal: libc::c_int) {
        let fd = WAKE.load(Ordering::SeqCst);
        // Every handled signal's number fits in a byte.
        let byte = signal as u8;
        // SAFETY: write(2) on a socket we own and signal(2) are
        // async-signal-safe; should the socket be full, the thread is
        // already on its way.
        unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
            libc::signal(signal, libc::SIG_DFL);
        }
    }
}
