//! Confinement: a plugin under test may write only inside its case's
//! sandbox, so that a broken plugin cannot change the machine it is tested
//! on, and every write it tried elsewhere is reported.
//!
//! # Mechanism: Landlock, and why not an overlay root
//!
//! Two kernel mechanisms fit. We use **Landlock** (Linux 5.13+, unprivileged):
//! - it needs no privilege and no namespace support, so it works for an
//!   ordinary user and in most containers and CI runners;
//! - it costs a ruleset per case (~50 µs, once) and nothing measurable per
//!   invocation (see "Spawning" below);
//! - the plugin sees the real file system: reads are unrestricted, paths are
//!   the real ones, and nothing differs from the host but the blocked writes.
//!
//! Its price: a blocked write is *refused* (EACCES), not observed. The plugin
//! sees an error the host would not give it, and the harness learns of the
//! attempt only from what the plugin prints (see [`blocked_writes`]): a
//! plugin that swallows the error is still kept from changing the machine,
//! but its attempt goes unreported.
//!
//! The alternative, an **overlay root** in a user and mount namespace, lets
//! the write happen in a throw-away upper layer and shows exactly what was
//! written, silently or not. But it needs unprivileged user namespaces
//! (disabled by default on some distributions and in most containers,
//! including Docker's default seccomp profile), a mount of every file system
//! the plugin may read, and a namespace setup per invocation that costs far
//! more than the 0.3 ms budget; and the plugin runs as a mapped root in a
//! different mount tree than the host gives it.
//!
//! # What is allowed
//!
//! Only the *write* rights are handled by the ruleset (write, truncate,
//! create, remove, rename or link into a directory); reading and executing
//! stay unrestricted. Writes are allowed beneath the sandbox root (which holds
//! the repository, HOME, the XDG directories, TMPDIR and the `{{tmp}}`
//! scratch directory) and to the few device files a process needs
//! ([`DEVICES`]). Stdin, stdout and stderr are pipes the harness opened, so
//! they are unaffected. Python's `__pycache__` writes next to a script fail
//! with EACCES, which the interpreter ignores by design.
//!
//! # Spawning
//!
//! Landlock and `no_new_privs` apply to the calling *thread* and are
//! inherited by the processes it creates. So each confined invocation is
//! spawned from a short-lived thread that first restricts itself: the
//! harness's other threads stay unconfined, std's `posix_spawn` fast path
//! stays in use (a `pre_exec` hook would force `fork`, which costs more than
//! the whole budget on a busy machine), and nothing at all runs between fork
//! and exec, so there is no async-signal-safety question: the ruleset (paths
//! opened, rules added) is built in the parent, once per case, and the thread
//! only makes two system calls before spawning.
//!
//! `no_new_privs` (required by Landlock) means a set-uid program the plugin
//! runs gets no extra privileges; a plugin has no business running one.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command};

/// Device files a process may write to wherever it runs (directories cover
/// what is beneath them).
pub const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// A case's confinement: the ruleset that allows writes beneath its sandbox
/// root only. Cloning is cheap (the ruleset is shared).
#[derive(Debug, Clone)]
pub struct Confinement {
    root: PathBuf,
    #[cfg(target_os = "linux")]
    ruleset: std::sync::Arc<std::os::fd::OwnedFd>,
}

impl Confinement {
    /// Builds the ruleset for a sandbox rooted at `root` (an absolute,
    /// canonical path). Fails where Landlock is unavailable.
    pub fn for_sandbox(root: &Path) -> io::Result<Confinement> {
        Ok(Confinement {
            root: root.to_path_buf(),
            #[cfg(target_os = "linux")]
            ruleset: std::sync::Arc::new(linux::ruleset(root)?),
        })
    }

    /// The directory writes are allowed beneath.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Spawns `cmd` confined: from a thread that restricts itself first, so
    /// that only the child (and its children) are confined.
    pub fn spawn(&self, cmd: &mut Command) -> io::Result<Child> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let fd = self.ruleset.as_raw_fd();
            std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        linux::restrict_thread(fd)?;
                        cmd.spawn()
                    })
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("the confined spawner panicked")))
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            cmd.spawn()
        }
    }
}

/// Whether confinement works here; `Err` says why not, in a few words.
pub fn probe() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        linux::ruleset(Path::new("/"))
            .map(drop)
            .map_err(|err| err.to_string())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err("Landlock exists only on Linux".to_string())
    }
}

/// The paths outside the sandbox that a confined plugin tried to write, as
/// far as its stderr tells: a path named on a line that reports a permission
/// error (EACCES, EPERM: what Landlock answers), outside `root` (relative
/// paths are taken from `cwd`), not one of the allowed [`DEVICES`], and one
/// the harness itself, unconfined, could write (so that a plain permission
/// problem the host would meet too is not blamed on the confinement), and
/// not the plugin's own `program` (a shell script's messages start with its
/// path).
pub fn blocked_writes(stderr: &[u8], root: &Path, cwd: &Path, program: &Path) -> Vec<PathBuf> {
    let text = String::from_utf8_lossy(stderr);
    let mut found: Vec<PathBuf> = Vec::new();
    for line in text.lines().filter(|l| reports_permission_error(l)) {
        for word in path_words(line) {
            let path = normalize(&cwd.join(word));
            let outside = !path.starts_with(root)
                && !DEVICES.iter().any(|d| path.starts_with(d))
                && path != program;
            if outside && !found.contains(&path) && writable_unconfined(&path) {
                found.push(path);
            }
        }
    }
    found
}

/// The failure message for [`blocked_writes`].
pub fn blocked_message(paths: &[PathBuf]) -> String {
    let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!(
        "the plugin tried to write outside its sandbox: {} (blocked: agent-conform lets \
         a plugin write only in its sandbox, so the plugin got \"permission denied\"; the \
         host does not confine plugins, and there this write would change the user's \
         machine). The reproduce command runs the plugin unconfined, as the host does: \
         it will write there",
        list.join(", ")
    )
}

fn reports_permission_error(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    [
        "permission denied",
        "operation not permitted",
        "eacces",
        "eperm",
    ]
    .iter()
    .any(|k| lower.contains(k))
}

/// Words of a line that look like paths: absolute, or relative with `..`
/// (a relative path without it stays in the repository, the working
/// directory). Quotes, brackets and trailing punctuation are not part of a
/// path (`open '/x': ...`, `PermissionError: [Errno 13] ...: '/x'`).
fn path_words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_whitespace() || "'\"`()[]{}<>,;".contains(c))
        .map(|w| w.trim_end_matches([':', '.']))
        .filter(|w| w.starts_with('/') || w.starts_with("../"))
        .filter(|w| w.len() > 1)
}

/// Resolves `.` and `..` lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Whether the harness could write `path` (an existing file) or create or
/// delete it (its nearest existing ancestor directory is writable).
#[cfg(unix)]
fn writable_unconfined(path: &Path) -> bool {
    let may_write = |p: &Path| {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::CString::new(p.as_os_str().as_bytes())
            // SAFETY: access(2) only reads the NUL-terminated path.
            .is_ok_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
    };
    if path.is_file() && may_write(path) {
        return true;
    }
    path.ancestors()
        .skip(1)
        .find(|p| p.is_dir())
        .is_some_and(may_write)
}

#[cfg(not(unix))]
fn writable_unconfined(_path: &Path) -> bool {
    true
}

#[cfg(target_os = "linux")]
mod linux {
    //! The Landlock ruleset and the two system calls that apply it.

    use std::io;
    use std::os::fd::{OwnedFd, RawFd};
    use std::path::Path;

    use landlock::{
        ABI, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
        path_beneath_rules,
    };

    /// The rights handled: writing in every form (ABI 4: up to truncate).
    /// Reading, executing, device ioctls and unix sockets stay unrestricted.
    fn write_rights() -> landlock::BitFlags<AccessFs> {
        AccessFs::from_write(ABI::V4)
    }

    /// A ruleset allowing writes beneath `root` and to the devices. The
    /// crate downgrades the rights to what the kernel knows (Landlock ABI 1
    /// lacks truncate and cross-directory renames); a kernel without
    /// Landlock gives no ruleset, which is an error here.
    pub fn ruleset(root: &Path) -> io::Result<OwnedFd> {
        let rights = write_rights();
        let fail = |err: landlock::RulesetError| io::Error::other(err.to_string());
        let created = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(rights)
            .map_err(fail)?
            .create()
            .map_err(fail)?;
        let paths = std::iter::once(root).chain(super::DEVICES.iter().map(Path::new));
        let created = created
            .add_rules(path_beneath_rules(paths, rights))
            .map_err(fail)?;
        let fd: Option<OwnedFd> = created.into();
        fd.ok_or_else(|| io::Error::other("this kernel does not support Landlock"))
    }

    /// Confines the calling thread (and what it spawns from now on) with the
    /// ruleset `fd`. Two system calls: `no_new_privs`, which Landlock
    /// requires of an unprivileged caller, and `landlock_restrict_self`.
    pub fn restrict_thread(fd: RawFd) -> io::Result<()> {
        // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) takes integers only.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: landlock_restrict_self takes a ruleset fd (owned by the
        // caller's `Confinement`, open for this call) and flags 0.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
            let err = io::Error::last_os_error();
            return Err(io::Error::new(
                err.kind(),
                format!(
                    "could not confine the plugin (Landlock): {err}; --no-confine runs without"
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_paths_of_permission_errors_outside_the_sandbox() {
        let outside = tempfile::tempdir().unwrap();
        let out = outside.path().canonicalize().unwrap();
        let root = out.join("sandbox");
        let cwd = root.join("nest/repo");
        std::fs::create_dir_all(&cwd).unwrap();
        let o = out.display();
        let stderr = format!(
            "bash: line 3: {o}/x: Permission denied\n\
             rm: cannot remove '{o}/y': Permission denied\n\
             PermissionError: [Errno 13] Permission denied: '{o}/z'\n\
             open {o}/sandbox/home/a: permission denied\n\
             written {o}/w fine\n\
             EACCES: permission denied, open '../../../v'\n\
             /dev/null: Permission denied\n"
        );
        let program = out.join("entire-agent-x");
        let stderr = format!("{}: line 1: {stderr}", program.display());
        let found = blocked_writes(stderr.as_bytes(), &root, &cwd, &program);
        let want: Vec<PathBuf> = ["x", "y", "z", "v"].iter().map(|n| out.join(n)).collect();
        assert_eq!(found, want);
    }

    #[test]
    fn no_permission_error_no_path() {
        let root = Path::new("/nonexistent-sandbox");
        assert!(blocked_writes(b"wrote /tmp/x\n", root, root, root).is_empty());
    }
}
