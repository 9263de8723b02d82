//! The git work trees of a sandbox: the repository the plugin runs in is a
//! plain repository, a linked worktree or a submodule (see
//! [`WorkTree`]; docs/host.md, "Linked worktrees and submodules").
//!
//! Each is written by hand, as git itself lays it out, instead of by running
//! `git init`, `git worktree add` or `git submodule add` per case: a few
//! small files, no process. In the two kinds where `.git` is a file, the
//! directory around the repository (`nest/`) is the main work tree or the
//! superproject, and `nest/.git` its git dir:
//!
//! - linked: `repo/.git` says `gitdir: <nest>/.git/worktrees/repo`, which
//!   holds `HEAD` (branch `repo`, unborn), `commondir` (`../..`) and
//!   `gitdir` (back to `repo/.git`), as `git worktree add` writes them;
//! - submodule: `repo/.git` says `gitdir: ../.git/modules/repo`, a git dir
//!   whose `core.worktree` is `../../../repo`; the superproject has the
//!   `.gitmodules` entry, the `submodule.repo` config and an index holding
//!   the gitlink, so that git in the submodule finds its superproject.
//!
//! The tests check each layout with the real git.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::host::invocation::WorkTree;

/// The `.git` tree of a plain repository, built once per process: (path
/// relative to the repository, contents; `None` for a directory).
pub type GitSkeleton = Vec<(PathBuf, Option<Vec<u8>>)>;

/// Writes the skeleton's `.git` under `repo` (a plain work tree there).
pub fn write_skeleton(repo: &Path, skeleton: &GitSkeleton) -> io::Result<()> {
    for (rel, content) in skeleton {
        let path = repo.join(rel);
        match content {
            None => fs::create_dir_all(&path)?,
            Some(bytes) => fs::write(&path, bytes)?,
        }
    }
    Ok(())
}

/// The repository's directory name inside `nest/`, and the worktree's and
/// submodule's name.
const REPO: &str = "repo";

/// The superproject's index: version 2, one entry, the gitlink `repo`
/// (mode 160000, zero stat data) at a fixed commit id, and its SHA-1
/// checksum; written once by `git update-index --add --cacheinfo` and
/// constant since (git reads a version 2 index in every version).
const SUPERPROJECT_INDEX: [u8; 104] = [
    0x44, 0x49, 0x52, 0x43, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x1f, 0x8c, 0xbc, 0x5d, 0x0f, 0x2a, 0xb6, 0xf4, 0xd7, 0xd1, 0xe2, 0xa3,
    0xb4, 0xc5, 0xd6, 0xe7, 0xf8, 0x09, 0x1a, 0x2b, 0x00, 0x04, 0x72, 0x65, 0x70, 0x6f, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x11, 0x74, 0x81, 0x03, 0x48, 0x2d, 0xbf, 0xf8, 0xae, 0x2a, 0x60, 0x7f,
    0xd8, 0x87, 0x5e, 0x15, 0xc0, 0x7e, 0x22, 0x02,
];

/// The entries of `nest/` besides the repository that the work tree itself
/// makes (not strays).
pub fn around_repo(kind: WorkTree) -> &'static [&'static str] {
    match kind {
        WorkTree::Plain => &[REPO],
        WorkTree::Linked => &[REPO, ".git"],
        WorkTree::Submodule => &[REPO, ".git", ".gitmodules"],
    }
}

/// Makes `nest/repo` a git work tree of the kind `kind`, from the `.git`
/// skeleton of a plain repository (`nest/repo` exists).
pub fn make(nest: &Path, kind: WorkTree, skeleton: &GitSkeleton) -> io::Result<()> {
    let repo = nest.join(REPO);
    match kind {
        WorkTree::Plain => write_skeleton(&repo, skeleton),
        WorkTree::Linked => linked(nest, &repo, skeleton),
        WorkTree::Submodule => submodule(nest, &repo, skeleton),
    }
}

/// `git worktree add repo` from a main work tree at `nest`.
fn linked(nest: &Path, repo: &Path, skeleton: &GitSkeleton) -> io::Result<()> {
    write_skeleton(nest, skeleton)?;
    let admin = nest.join(".git").join("worktrees").join(REPO);
    fs::create_dir_all(&admin)?;
    fs::write(admin.join("HEAD"), format!("ref: refs/heads/{REPO}\n"))?;
    fs::write(admin.join("commondir"), "../..\n")?;
    let dot_git = repo.join(".git");
    fs::write(admin.join("gitdir"), line(&dot_git))?;
    fs::write(dot_git, format!("gitdir: {}", line(&admin)))
}

/// `git submodule add ./repo repo` in a superproject at `nest`.
fn submodule(nest: &Path, repo: &Path, skeleton: &GitSkeleton) -> io::Result<()> {
    write_skeleton(nest, skeleton)?;
    let modules = Path::new(".git").join("modules").join(REPO);
    let inner: GitSkeleton = skeleton
        .iter()
        .map(|(rel, content)| {
            let rest = rel.strip_prefix(".git").unwrap_or(rel);
            (modules.join(rest), content.clone())
        })
        .collect();
    write_skeleton(nest, &inner)?;
    append(
        &nest.join(&modules).join("config"),
        &format!("[core]\n\tworktree = ../../../{REPO}\n"),
    )?;
    let entry = format!("[submodule \"{REPO}\"]\n\turl = ./{REPO}\n");
    append(
        &nest.join(".git").join("config"),
        &format!("{entry}\tactive = true\n"),
    )?;
    fs::write(
        nest.join(".gitmodules"),
        format!("{entry}\tpath = {REPO}\n"),
    )?;
    fs::write(nest.join(".git").join("index"), SUPERPROJECT_INDEX)?;
    fs::write(
        repo.join(".git"),
        format!("gitdir: ../.git/modules/{REPO}\n"),
    )
}

/// A path and a newline, as git writes it into its files.
fn line(path: &Path) -> String {
    format!("{}\n", path.display())
}

fn append(path: &PathBuf, text: &str) -> io::Result<()> {
    fs::OpenOptions::new()
        .append(true)
        .open(path)?
        .write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    /// git's answer in `dir` (trimmed stdout); panics with its stderr.
    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_COMMON_DIR")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A commit in `dir` works: plugins that call git expect a usable repo.
    fn commit(dir: &Path) {
        fs::write(dir.join("f"), "x").unwrap();
        git(dir, &["add", "f"]);
        let who = ["-c", "user.name=t", "-c", "user.email=t@t"];
        git(dir, &[&who[..], &["commit", "-qm", "x"]].concat());
    }

    /// `<tmp>/nest/repo` made a work tree of the kind `kind`, from the
    /// minimal skeleton; the temporary directory and the repository.
    fn sandbox(kind: WorkTree) -> (tempfile::TempDir, PathBuf) {
        let base = tempfile::tempdir().unwrap();
        let nest = base.path().canonicalize().unwrap().join("nest");
        fs::create_dir_all(nest.join(REPO)).unwrap();
        let file = |p: &str, c: &str| (PathBuf::from(p), Some(c.as_bytes().to_vec()));
        let skeleton = vec![
            (PathBuf::from(".git"), None),
            file(".git/HEAD", "ref: refs/heads/main\n"),
            file(
                ".git/config",
                "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
            ),
            (PathBuf::from(".git/objects"), None),
            (PathBuf::from(".git/refs"), None),
        ];
        make(&nest, kind, &skeleton).unwrap();
        (base, nest.join(REPO))
    }

    #[test]
    fn a_linked_worktree_is_one_for_git() {
        let (_base, repo) = sandbox(WorkTree::Linked);
        let nest = repo.parent().unwrap();
        assert!(repo.join(".git").is_file(), ".git is a file");
        git(&repo, &["status"]);
        assert_eq!(
            git(&repo, &["rev-parse", "--show-toplevel"]),
            repo.display().to_string()
        );
        let common = git(
            &repo,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        );
        assert_eq!(common, nest.join(".git").display().to_string());
        let git_dir = git(&repo, &["rev-parse", "--path-format=absolute", "--git-dir"]);
        assert_eq!(
            git_dir,
            nest.join(".git/worktrees/repo").display().to_string()
        );
        let list = git(nest, &["worktree", "list", "--porcelain"]);
        assert!(
            list.contains(&format!("worktree {}", repo.display()))
                && list.contains("branch refs/heads/repo"),
            "{list}"
        );
        commit(&repo);
        assert!(
            git(nest, &["worktree", "prune", "--dry-run", "-v"]).is_empty(),
            "nothing to prune"
        );
    }

    #[test]
    fn a_submodule_is_one_for_git() {
        let (_base, repo) = sandbox(WorkTree::Submodule);
        let nest = repo.parent().unwrap();
        assert!(repo.join(".git").is_file(), ".git is a file");
        git(&repo, &["status"]);
        assert_eq!(
            git(&repo, &["rev-parse", "--show-toplevel"]),
            repo.display().to_string()
        );
        let git_dir = git(&repo, &["rev-parse", "--path-format=absolute", "--git-dir"]);
        assert_eq!(
            git_dir,
            nest.join(".git/modules/repo").display().to_string()
        );
        assert_eq!(
            git(&repo, &["rev-parse", "--show-superproject-working-tree"]),
            nest.display().to_string()
        );
        let status = git(nest, &["submodule", "status"]);
        assert!(status.contains(" repo"), "{status}");
        assert_eq!(
            git(
                nest,
                &["config", "-f", ".gitmodules", "submodule.repo.path"]
            ),
            "repo"
        );
        commit(&repo);
    }

    #[test]
    fn a_plain_repository_keeps_its_git_dir() {
        let (_base, repo) = sandbox(WorkTree::Plain);
        assert!(repo.join(".git").is_dir());
        assert_eq!(
            git(
                &repo,
                &["rev-parse", "--path-format=absolute", "--git-common-dir"]
            ),
            repo.join(".git").display().to_string()
        );
    }
}
