//! The sandbox: a fresh, isolated world for each case.
//!
//! The host runs a plugin with the working directory at the root of a git work
//! tree and `ENTIRE_REPO_ROOT` pointing there (host-behaviour.md,
//! "Invocation"). A plugin also reads and writes its own state under HOME and
//! the XDG directories, so each case gets its own HOME, XDG_* and TMPDIR too:
//! one case cannot see another's hooks or sessions, and nothing a plugin
//! writes lands in the user's real home.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The protocol version the harness speaks (`ENTIRE_PROTOCOL_VERSION`).
pub const PROTOCOL_VERSION: &str = "1";

/// The host version announced in `ENTIRE_CLI_VERSION`: ours, marked as such.
pub const CLI_VERSION: &str = concat!("agent-conform-", env!("CARGO_PKG_VERSION"));

/// A sandbox on disk. Dropping it deletes the directory unless it was kept.
#[derive(Debug)]
pub struct Sandbox {
    dir: Option<tempfile::TempDir>,
    root: PathBuf,
}

impl Sandbox {
    /// Creates the directory tree and runs `git init` in the repository root.
    pub fn create(prefix: &str) -> io::Result<Sandbox> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("agent-conform-{prefix}-"))
            .tempdir()?;
        let root = dir.path().canonicalize()?;
        let sandbox = Sandbox {
            dir: Some(dir),
            root,
        };
        for sub in [
            sandbox.repo(),
            sandbox.home(),
            sandbox.tmp(),
            sandbox.work(),
            sandbox.stdin_dir(),
        ] {
            fs::create_dir_all(sub)?;
        }
        for (_, path) in sandbox.home_dirs() {
            fs::create_dir_all(path)?;
        }
        git_init(&sandbox.repo())?;
        Ok(sandbox)
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

    /// The sandbox's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The git work tree: the plugin's cwd and `ENTIRE_REPO_ROOT`.
    pub fn repo(&self) -> PathBuf {
        self.root.join("repo")
    }

    /// The isolated HOME.
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
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

    /// Where each step's stdin is saved, so a failure can be reproduced.
    pub fn stdin_dir(&self) -> PathBuf {
        self.root.join("stdin")
    }

    /// Keeps the directory on disk after the sandbox is dropped.
    pub fn keep(&mut self) {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
        }
    }

    /// True when the directory will survive the sandbox.
    pub fn is_kept(&self) -> bool {
        self.dir.is_none()
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
        env.push(("ENTIRE_REPO_ROOT".into(), self.repo().into_os_string()));
        env.push(("ENTIRE_PROTOCOL_VERSION".into(), PROTOCOL_VERSION.into()));
        env.push(("ENTIRE_CLI_VERSION".into(), CLI_VERSION.into()));
        env
    }
}

fn remove(path: &Path) -> io::Result<()> {
    if path.is_dir() && !path.is_symlink() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}

/// Variables removed from the inherited environment: git's own variables
/// would point the plugin's git calls at another repository.
pub fn env_remove() -> Vec<String> {
    std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k.starts_with("GIT_"))
        .collect()
}

/// `git init` with an empty template: a real work tree, without the sample
/// hooks a default template copies (they cost time and mean nothing here).
fn git_init(repo: &Path) -> io::Result<()> {
    let status = Command::new("git")
        .args(["init", "--quiet", "--template="])
        .arg(repo)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|err| io::Error::new(err.kind(), format!("could not run git: {err}")))?;
    if status.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "git init failed: {}",
            String::from_utf8_lossy(&status.stderr).trim()
        )))
    }
}
