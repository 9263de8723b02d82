//! The sandbox: a fresh, isolated world for each case.
//!
//! The host runs a plugin with the working directory at the root of a git work
//! tree and `ENTIRE_REPO_ROOT` pointing there (docs/host.md,
//! "Invocation"). A plugin also reads and writes its own state under HOME and
//! the XDG directories, so each case gets its own HOME, XDG_* and TMPDIR too:
//! one case cannot see another's hooks or sessions, and nothing a plugin
//! writes lands in the user's real home.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::host::invocation::WorkTree;
use crate::running::confine::Confinement;
use crate::running::interrupt;
pub use crate::running::setting::{Setting, tz};
pub use crate::running::stand_in::HostCall;
use crate::running::stand_in::{host_calls, write_stand_in};

/// The sandbox directory put first on `PATH`: it holds the stand-in for the
/// host's `entire` command.
const BIN: &str = "bin";

/// The sandbox directory where the stand-in records each call it receives.
const CALLS: &str = "entire-calls";

/// Entries of `dir` whose names are not in `known`.
fn unknown_entries(dir: &Path, known: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| !known.iter().any(|k| e.file_name() == *k))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// A sandbox on disk. Dropping it deletes the directory unless it was kept.
#[derive(Debug)]
pub struct Sandbox {
    dir: Option<tempfile::TempDir>,
    root: PathBuf,
    confinement: Option<Confinement>,
    /// What the sandbox's file system used when it was last measured (see
    /// [`crate::running::bounds::Guard`]).
    measured: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The kind of git work tree the repository is.
    work_tree: WorkTree,
    /// The user's world it is made in: its folders, clock and variables.
    setting: Setting,
    /// The sandbox as each call found it (see [`crate::running::journal`]).
    journal: std::sync::Arc<std::sync::Mutex<crate::running::journal::Journal>>,
}

impl Sandbox {
    /// Creates the directory tree under `base` and makes the repository root
    /// a git work tree of its own.
    pub fn create(prefix: &str, base: &Path) -> io::Result<Sandbox> {
        Sandbox::create_in(prefix, base, WorkTree::Plain, &Setting::default())
    }

    /// Creates the directory tree under `base` and makes the repository root
    /// a git work tree of the kind `work_tree` (see [`crate::running::worktree`]).
    pub fn create_in(
        prefix: &str,
        base: &Path,
        work_tree: WorkTree,
        setting: &Setting,
    ) -> io::Result<Sandbox> {
        let entry =
            interrupt::Entry::enter().ok_or_else(|| io::Error::other("the run was interrupted"))?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("agent-conform-{prefix}-"))
            .tempdir_in(base)?;
        let root = dir.path().canonicalize()?;
        let sandbox = Sandbox {
            dir: Some(dir),
            root,
            confinement: None,
            measured: Default::default(),
            work_tree,
            setting: setting.clone(),
            journal: Default::default(),
        };
        interrupt::track_sandbox(&sandbox.root, &entry);
        sandbox.populate()?;
        Ok(sandbox)
    }

    /// Makes the sandbox new again where it stands: everything under its
    /// root removed and laid out afresh, as [`Sandbox::create_in`] lays it
    /// out. The same paths, so the same command lines: the cases that share
    /// answers run one after the other in one sandbox renewed between them
    /// (see `execute::answers`). Its confinement stays, since the root
    /// stays.
    pub fn renew(&self) -> io::Result<()> {
        if let Ok(mut journal) = self.journal.lock() {
            journal.clear();
        }
        for entry in fs::read_dir(&self.root)? {
            remove(&entry?.path())?;
        }
        self.populate()
    }

    /// The fingerprint of what a call can observe of the sandbox (see
    /// [`crate::running::state`]).
    pub fn state(&self) -> io::Result<u64> {
        crate::running::state::print(&self.root)
    }

    /// Copies the sandbox as a call finds it now (an answer shared with
    /// this case, made in another's sandbox in the same state); the copy's
    /// number (see [`crate::running::journal`]).
    pub fn record_state(&self) -> Option<usize> {
        self.journal.lock().ok()?.record(&self.root)
    }

    /// Writes the copies `numbers` into the sandbox's `before/N/`; the
    /// numbers written whole.
    pub fn write_states(&self, numbers: &[usize]) -> io::Result<Vec<usize>> {
        let journal = self
            .journal
            .lock()
            .map_err(|_| io::Error::other("the copies were poisoned"))?;
        let dir = self.root.join(crate::running::journal::DIR);
        journal.write(numbers, &self.root, &dir)
    }

    /// A copy of the sandbox's tree (see [`crate::running::state::Tree`]).
    pub fn capture(&self) -> io::Result<crate::running::state::Tree> {
        crate::running::state::Tree::capture(&self.root)
    }

    /// Lays `tree` down as the sandbox's tree, in place of what it holds.
    pub fn restore(&self, tree: &crate::running::state::Tree) -> io::Result<()> {
        tree.restore(&self.root)?;
        let used = crate::running::bounds::baseline(&self.root);
        self.measured
            .store(used, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Lays out a new sandbox's tree under its root.
    fn populate(&self) -> io::Result<()> {
        let sandbox = self;
        for sub in [
            sandbox.repo(),
            sandbox.home(),
            sandbox.tmp(),
            sandbox.work(),
            sandbox.stdin_dir(),
            sandbox.bin(),
            sandbox.host_calls_dir(),
        ] {
            fs::create_dir_all(sub)?;
        }
        write_stand_in(&sandbox.bin(), &sandbox.host_calls_dir())?;
        for (_, path) in sandbox.home_dirs() {
            fs::create_dir_all(path)?;
        }
        for path in sandbox.setting.dirs(&sandbox.home()) {
            fs::create_dir_all(path)?;
        }
        if !sandbox.setting.cwd.is_empty() {
            fs::create_dir_all(sandbox.cwd())?;
        }
        crate::running::worktree::make(
            &sandbox.root.join(&sandbox.setting.nest),
            sandbox.work_tree,
            git_skeleton()?,
        )?;
        // Made off the workers' path (see the depot module): the first call in
        // the sandbox need not walk it.
        let used = crate::running::bounds::baseline(&sandbox.root);
        sandbox
            .measured
            .store(used, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Empties the repository (keeping `.git`) and HOME, as if new.
    pub fn reset(&self) -> io::Result<()> {
        for entry in fs::read_dir(self.repo())? {
            let entry = entry?;
            if entry.file_name() != ".git" {
                remove(&entry.path())?;
            }
        }
        for entry in fs::read_dir(self.home())? {
            remove(&entry?.path())?;
        }
        for (_, path) in self.home_dirs() {
            fs::create_dir_all(path)?;
        }
        Ok(())
    }

    /// From now on, the plugin may write only beneath the sandbox's root
    /// (see [`crate::running::confine`]).
    pub fn confine(&mut self) -> io::Result<()> {
        self.confinement = Some(Confinement::for_sandbox(&self.root)?);
        Ok(())
    }

    /// The bounds of a plugin call in this sandbox: files of at most
    /// `max_write` bytes, and as much in all (see [`crate::running::bounds`]).
    pub fn guard(&self, max_write: u64) -> crate::running::bounds::Guard {
        crate::running::bounds::Guard {
            root: self.root.clone(),
            max_write,
            measured: self.measured.clone(),
            journal: self.journal.clone(),
        }
    }

    /// The confinement of the plugin's invocations, if any.
    pub fn confinement(&self) -> Option<&Confinement> {
        self.confinement.as_ref()
    }

    /// The sandbox's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The git work tree: the plugin's cwd and `ENTIRE_REPO_ROOT`. It sits
    /// one level down (`nest/repo`), so that a write through `../` or
    /// `../../` from the repository still lands inside the sandbox, where
    /// [`Sandbox::strays`] finds it.
    pub fn repo(&self) -> PathBuf {
        self.root.join(&self.setting.nest).join("repo")
    }

    /// Where the agent runs: the repository's root, or the directory of it
    /// the world's place names (the payloads' `cwd`, `{{cwd}}`).
    pub fn cwd(&self) -> PathBuf {
        match self.setting.cwd.as_str() {
            "" => self.repo(),
            sub => self.repo().join(sub),
        }
    }

    /// The user's world the sandbox is made in.
    pub fn setting(&self) -> &Setting {
        &self.setting
    }

    /// The variables every call removes from what the harness inherited:
    /// git's own (a plugin must find the repository as the host's git
    /// does), and those the world leaves unset.
    pub fn env_remove(&self) -> Vec<String> {
        let mut remove = env_remove();
        remove.extend(self.setting.unset.iter().cloned());
        remove
    }

    /// Entries a plugin created outside the places it may write: the
    /// repository, HOME, TMPDIR and the harness's scratch directories.
    pub fn strays(&self) -> Vec<PathBuf> {
        let known_root = [
            self.setting.nest.as_str(),
            self.setting.home.as_str(),
            "tmp",
            "work",
            "stdin",
            BIN,
            CALLS,
        ];
        let mut strays = unknown_entries(&self.root, &known_root);
        let known_nest = crate::running::worktree::around_repo(self.work_tree);
        strays.extend(unknown_entries(
            &self.root.join(&self.setting.nest),
            known_nest,
        ));
        strays
    }

    /// A second git work tree, `work/other-repo`, made on first use: what
    /// two repositories of the same user share (hooks under HOME).
    pub fn other_repo(&self) -> io::Result<PathBuf> {
        let repo = self.work().join("other-repo");
        if !repo.join(".git").exists() {
            fs::create_dir_all(&repo)?;
            crate::running::worktree::write_skeleton(&repo, git_skeleton()?)?;
        }
        Ok(repo)
    }

    /// Commits `paths` (relative to the repository) in the repository, as
    /// the user's own project files: `Err` with git's complaint. The user's
    /// git config and the repository's hooks play no part.
    pub fn commit(&self, paths: &[String]) -> io::Result<Result<(), String>> {
        let repo = self.repo();
        let mut add = vec!["add", "--force", "--"];
        add.extend(paths.iter().map(String::as_str));
        if let Err(err) = git(&add, &repo)? {
            return Ok(Err(err));
        }
        let commit = [
            "-c",
            "user.name=agent-conform",
            "-c",
            "user.email=agent-conform@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "--quiet",
            "--no-verify",
            "-m",
            "the project's own files",
        ];
        git(&commit, &repo)
    }

    /// The paths of the repository that differ from its last commit
    /// (modified, added, deleted or untracked), as `git status` lists them,
    /// relative to the repository: what a turn of the agent changed, to the
    /// host, once compared with the list before it.
    pub fn changes(&self) -> io::Result<Result<Vec<String>, String>> {
        let args = ["status", "--porcelain=v1", "-z", "--untracked-files=all"];
        Ok(git_output(&args, &self.repo())?.map(|out| {
            let mut paths = Vec::new();
            let mut entries = out.split(|b| *b == 0).filter(|e| e.len() > 3);
            while let Some(entry) = entries.next() {
                paths.push(String::from_utf8_lossy(&entry[3..]).into_owned());
                // A rename names its source next: not a path of now.
                if matches!(entry[0], b'R' | b'C') {
                    entries.next();
                }
            }
            paths
        }))
    }

    /// The sandbox's directories whose paths hold a space and an accented
    /// letter when the world's place has them: the one around the
    /// repository, and HOME.
    pub fn spaced_dirs(&self) -> [PathBuf; 2] {
        [self.root.join(&self.setting.nest), self.home()]
    }

    /// The isolated HOME.
    pub fn home(&self) -> PathBuf {
        self.root.join(&self.setting.home)
    }

    /// The plugin's TMPDIR.
    pub fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// A scratch directory outside the repository for transcripts and other
    /// files the cases hand to the plugin (`{{tmp}}` in case files).
    pub fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The directory first on every call's `PATH`: the stand-in for the
    /// host's `entire` command lives there (see `write_stand_in`).
    pub fn bin(&self) -> PathBuf {
        self.root.join(BIN)
    }

    /// Where the `entire` stand-in records the calls it receives: one
    /// `<pid>.args` (the arguments, one per line) and `<pid>.stdin` per call.
    pub fn host_calls_dir(&self) -> PathBuf {
        self.root.join(CALLS)
    }

    /// The calls the `entire` stand-in received so far, oldest first.
    pub fn host_calls(&self) -> Vec<HostCall> {
        host_calls(&self.host_calls_dir())
    }

    /// Forgets the calls the `entire` stand-in received so far, so that the
    /// next [`Sandbox::host_calls`] holds only later ones.
    pub fn clear_host_calls(&self) {
        let Ok(entries) = fs::read_dir(self.host_calls_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            let _ = fs::remove_file(entry.path());
        }
    }

    /// Where each step's stdin is saved, so a failure can be reproduced.
    pub fn stdin_dir(&self) -> PathBuf {
        self.root.join("stdin")
    }

    /// Keeps the directory on disk after the sandbox is dropped (until the
    /// end of the run: an interrupted run deletes it, see
    /// [`crate::running::interrupt`]).
    pub fn keep(&mut self) {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
        }
    }

    /// The per-user directories, by environment variable.
    fn home_dirs(&self) -> Vec<(&'static str, PathBuf)> {
        let home = self.home();
        let mut dirs = vec![
            ("HOME", home.clone()),
            ("XDG_CONFIG_HOME", home.join(".config")),
            ("XDG_CACHE_HOME", home.join(".cache")),
            ("XDG_DATA_HOME", home.join(".local").join("share")),
            ("XDG_STATE_HOME", home.join(".local").join("state")),
        ];
        if cfg!(windows) {
            dirs.push(("USERPROFILE", home.clone()));
            dirs.push(("APPDATA", home.join("AppData").join("Roaming")));
            dirs.push(("LOCALAPPDATA", home.join("AppData").join("Local")));
        }
        dirs
    }

    /// The variables set for every invocation, in a stable order (the order
    /// they are printed in a reproduce command).
    pub fn env(&self) -> Vec<(String, OsString)> {
        let mut env: Vec<(String, OsString)> = self
            .home_dirs()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_os_string()))
            .collect();
        env.push(("TMPDIR".into(), self.tmp().into_os_string()));
        if cfg!(windows) {
            env.push(("TEMP".into(), self.tmp().into_os_string()));
            env.push(("TMP".into(), self.tmp().into_os_string()));
        }
        let mut env = self.setting.env(&self.home(), env);
        env.extend(crate::host::invocation::environment(&self.repo()));
        env
    }
}

impl Drop for Sandbox {
    /// Deletes the directory unless it was kept.
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            drop(dir);
            interrupt::forget_sandbox(&self.root);
        }
    }
}

fn remove(path: &Path) -> io::Result<()> {
    if path.is_dir() && !path.is_symlink() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}

/// Where sandboxes go by default: `/dev/shm` when it is a writable
/// memory file system with at least 1 GiB free, else the system's temporary
/// directory. A sandbox is a few dozen small files made and deleted per case;
/// on a disk-backed file system that costs milliseconds of journaling each,
/// which is most of the harness's own overhead.
pub fn default_base() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if roomy_and_writable(shm) {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

#[cfg(unix)]
fn roomy_and_writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statvfs writes into the zeroed struct we own; the path is a
    // valid NUL-terminated string.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return false;
    }
    // The field types differ between platforms (u32 on some), hence the
    // conversions clippy calls useless on this one.
    #[allow(clippy::useless_conversion)]
    let free = u64::from(stat.f_bavail).saturating_mul(u64::from(stat.f_frsize));
    // SAFETY: access(2) only reads the path.
    let writable = unsafe { libc::access(path.as_ptr(), libc::W_OK) } == 0;
    writable && free >= 1 << 30
}

#[cfg(not(unix))]
fn roomy_and_writable(_dir: &Path) -> bool {
    false
}

/// Variables removed from the inherited environment: git's own variables
/// would point the plugin's git calls at another repository.
pub fn env_remove() -> Vec<String> {
    std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k.starts_with("GIT_"))
        .collect()
}

use crate::running::worktree::{GitSkeleton, write_skeleton};

/// The smallest `.git` that git accepts as a repository: `HEAD`, `config`,
/// `objects/` and `refs/`. Four entries instead of the nine of
/// `git init --template=` (or the dozen sample hooks of a full template),
/// written for every case.
fn minimal_skeleton() -> GitSkeleton {
    vec![
        (PathBuf::from(".git"), None),
        (
            PathBuf::from(".git/HEAD"),
            Some(b"ref: refs/heads/main\n".to_vec()),
        ),
        (
            PathBuf::from(".git/config"),
            Some(
                b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
                    .to_vec(),
            ),
        ),
        (PathBuf::from(".git/objects"), None),
        (PathBuf::from(".git/refs"), None),
    ]
}

/// The skeleton, made on first use.
static SKELETON: OnceLock<Result<GitSkeleton, String>> = OnceLock::new();

fn git_skeleton() -> io::Result<&'static GitSkeleton> {
    SKELETON
        .get_or_init(|| skeleton().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| io::Error::other(e.clone()))
}

/// Makes the `.git` skeleton now (it runs git once), so that the first
/// sandbox does not wait for it; an error shows again when a sandbox needs
/// the skeleton.
pub fn warm_up() {
    let _ = git_skeleton();
}

/// The minimal skeleton when this machine's git accepts it (`git status` in
/// a scratch copy), else what `git init --template=` writes: a git that
/// wants more gets what it wants, and the check runs once per process.
fn skeleton() -> io::Result<GitSkeleton> {
    let scratch = tempfile::Builder::new()
        .prefix("agent-conform-git-")
        .tempdir()?;
    let minimal = minimal_skeleton();
    write_skeleton(scratch.path(), &minimal)?;
    if git(&["status", "--porcelain"], scratch.path())?.is_ok() {
        return Ok(minimal);
    }
    let full = scratch.path().join("full");
    fs::create_dir_all(&full)?;
    git(&["init", "--quiet", "--template="], &full)?.map_err(io::Error::other)?;
    let mut skeleton = Vec::new();
    record(&full, &full.join(".git"), &mut skeleton)?;
    Ok(skeleton)
}

/// Runs git in `dir`; the inner error is git's own complaint.
fn git(args: &[&str], dir: &Path) -> io::Result<Result<(), String>> {
    Ok(git_output(args, dir)?.map(|_| ()))
}

/// Runs git in `dir`: its stdout, or git's own complaint. Neither the
/// user's nor the system's git config plays a part, and git starts no
/// maintenance of its own: a `git maintenance run --auto --detach` left by
/// the harness's commit would outlive its case and be taken for the
/// plugin's process left running in the next case of the same sandbox.
fn git_output(args: &[&str], dir: &Path) -> io::Result<Result<Vec<u8>, String>> {
    let quiet = ["-c", "maintenance.auto=false", "-c", "gc.auto=0"];
    let output = Command::new("git")
        .args(quiet)
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|err| io::Error::new(err.kind(), format!("could not run git: {err}")))?;
    Ok(if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    })
}

fn record(root: &Path, path: &Path, out: &mut GitSkeleton) -> io::Result<()> {
    let rel = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    if path.is_dir() {
        out.push((rel, None));
        let mut entries: Vec<_> = fs::read_dir(path)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            record(root, &entry.path(), out)?;
        }
    } else {
        out.push((rel, Some(fs::read(path)?)));
    }
    Ok(())
}

#[cfg(test)]
#[path = "sandbox_tests.rs"]
mod tests;
