//! The work tree before and after `info`, which the host runs at
//! discovery and on every hook with the
//! work tree's root as the working directory (docs/host.md,
//! "Invocation"; "The host of September 2026": discovery inside every
//! hook). A file it creates, changes or deletes there changes the user's
//! repository on every hook.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;

use crate::outcome::finding::{Finding, Kind};

/// The files of a work tree (`.git` left out), by path relative to its
/// root, each with a hash of its content.
pub type Files = BTreeMap<String, u64>;

/// The files under `root`, `.git` (a directory, or a file in a linked
/// worktree) left out.
pub fn scan(root: &Path) -> Files {
    let mut files = Files::new();
    walk(root, root, &mut files);
    files
}

fn walk(root: &Path, dir: &Path, files: &mut Files) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if dir == root && entry.file_name() == ".git" {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &path, files);
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(&path).unwrap_or_default().hash(&mut hasher);
            files.insert(rel.to_string_lossy().replace('\\', "/"), hasher.finish());
        }
    }
}

/// What changed between two scans: `path (created)`, `(changed)`,
/// `(deleted)`.
pub fn changes(before: &Files, after: &Files) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, hash) in after {
        match before.get(rel) {
            None => out.push(format!("{rel} (created)")),
            Some(h) if h != hash => out.push(format!("{rel} (changed)")),
            _ => {}
        }
    }
    out.extend(
        before
            .keys()
            .filter(|r| !after.contains_key(*r))
            .map(|r| format!("{r} (deleted)")),
    );
    out
}

/// A failure when `calls` (`info`) changed the work tree: the host runs
/// it on every hook from the work tree's root, so every hook
/// changes the user's repository: the file shows in `git status`, the
/// host's git-status fallback reports it among the files the agent touched,
/// and a `git add -A` commits it.
pub fn judge(calls: &str, changed: &[String]) -> Vec<Finding> {
    if changed.is_empty() {
        return Vec::new();
    }
    vec![
        Finding::failure(format!(
            "{calls} changed the work tree: {}; the host runs info at discovery and on every \
             hook with the work tree's root as the working \
             directory, so every hook changes the user's repository: it shows in git status, \
             the host's git-status fallback counts it among the files the agent touched, and \
             a `git add -A` commits it. Read-only subcommands must write nothing there (keep \
             state under the home directory, or in the git dir)",
            changed.join(", ")
        ))
        .kind(Kind::UserData),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_created_in_the_work_tree_fails_and_git_is_left_out() {
        let tmp = std::env::temp_dir().join(format!("ac-readonly-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(tmp.join(".git")).unwrap();
        std::fs::write(tmp.join("a.txt"), "a").unwrap();
        let before = scan(&tmp);
        std::fs::write(tmp.join(".git/index"), "x").unwrap();
        assert!(changes(&before, &scan(&tmp)).is_empty());
        std::fs::write(tmp.join("info.json"), "{}").unwrap();
        std::fs::write(tmp.join("a.txt"), "b").unwrap();
        let changed = changes(&before, &scan(&tmp));
        assert_eq!(changed, ["a.txt (changed)", "info.json (created)"]);
        assert_eq!(judge("info", &changed)[0].kind, Kind::UserData);
        assert!(judge("info", &[]).is_empty());
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
