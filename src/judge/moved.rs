//! A user's file moved aside by a hook install, as git hook managers do
//! (husky, pre-commit's `.legacy`, lefthook's `.old`): the user's hook is
//! renamed beside its place, the plugin's hook takes the place and runs the
//! user's one after its own, and uninstall moves the user's hook back. The
//! user's data is then kept, only elsewhere for a while: nothing is lost
//! (docs/host.md "Real bugs that these plugins carry": a git hook
//! overwritten is the bug, a hook kept and chained is not).

use std::fs;
use std::path::{Path, PathBuf};

/// Where the user's file that was at `path`, with the bytes `original`,
/// went: a file beside it (or in a directory beside it) holding exactly
/// those bytes, else such a file anywhere under `roots` (a plugin that
/// keeps the user's hook under a state directory of its own, to chain it
/// and restore it on uninstall). `None` when there is none: the user's
/// file is gone.
pub fn find(path: &Path, original: &[u8], roots: &[PathBuf]) -> Option<PathBuf> {
    beside(path, original).or_else(|| {
        let mut copies = Vec::new();
        for root in roots {
            anywhere(root, path, original, 0, &mut copies);
        }
        // Several of the user's files may hold the same bytes: a copy named
        // after the original first.
        copies.sort_by_key(|c| (!named_after(path, c), c.clone()));
        copies.into_iter().next()
    })
}

/// The deepest a moved copy is looked for under a root.
const MAX_DEPTH: usize = 8;

/// Every file under `dir` (not `path`, not in a `.git` directory) that
/// holds exactly `original`, into `found`.
fn anywhere(dir: &Path, path: &Path, original: &[u8], depth: usize, found: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten().map(|e| e.path()) {
        if entry == path || entry.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(&entry) else {
            continue;
        };
        if meta.is_dir() {
            anywhere(&entry, path, original, depth + 1, found);
        } else if meta.is_file()
            && meta.len() == original.len() as u64
            && fs::read(&entry).is_ok_and(|bytes| bytes == original)
        {
            found.push(entry);
        }
    }
}

/// Whether `copy`'s file name starts with `path`'s (`stop.legacy`, or
/// `originals/stop`, for `stop`).
fn named_after(path: &Path, copy: &Path) -> bool {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    matches!((name(path), name(copy)), (Some(own), Some(name)) if name.starts_with(own.as_str()))
}

/// A file beside `path` (or in a directory beside it) holding exactly
/// `original`: where git hook managers put the user's hook.
fn beside(path: &Path, original: &[u8]) -> Option<PathBuf> {
    let dir = path.parent()?;
    let mut candidates = Vec::new();
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let candidate = entry.path();
        if candidate == path {
            continue;
        }
        if candidate.is_dir() {
            if let Ok(inner) = fs::read_dir(&candidate) {
                candidates.extend(inner.flatten().map(|e| e.path()));
            }
        } else {
            candidates.push(candidate);
        }
    }
    // A copy named after the original first (`stop.legacy` for `stop`):
    // several of the user's hooks may hold the same bytes.
    candidates.sort_by_key(|c| (!named_after(path, c), c.clone()));
    candidates
        .into_iter()
        .find(|c| c.is_file() && fs::read(c).is_ok_and(|bytes| bytes == original))
}

/// `to` as the report names it: beside `rel` (the sandbox-relative path of
/// the file it was at `path`).
pub fn shown(rel: &str, path: &Path, to: &Path) -> String {
    let beside = path.parent().and_then(|dir| to.strip_prefix(dir).ok());
    match (rel.rsplit_once('/'), beside) {
        (Some((dir, _)), Some(beside)) => format!("{dir}/{}", beside.to_string_lossy()),
        _ => to.display().to_string(),
    }
}

/// Whether the hook now at `path` (its text `text`) runs the user's hook
/// moved to `to`: it names the moved file, by its name, its path, or the
/// suffix the move added to the original name (`"$0.legacy"`).
pub fn chains(path: &Path, to: &Path, text: &str) -> bool {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let (Some(own), Some(moved)) = (name(path), name(to)) else {
        return false;
    };
    if text.contains(&moved) || text.contains(&*to.to_string_lossy()) {
        return true;
    }
    moved
        .strip_prefix(&own)
        .filter(|suffix| suffix.len() > 1)
        .is_some_and(|suffix| text.contains(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_moved_copy_and_its_chain() {
        let dir = tempfile::tempdir().expect("dir");
        let hook = dir.path().join("stop");
        fs::write(
            &hook,
            "#!/bin/sh\nentire hooks x stop\nexec \"$0.legacy\"\n",
        )
        .expect("hook");
        fs::write(dir.path().join("end.legacy"), "#!/bin/sh\necho mine\n").expect("other");
        fs::write(dir.path().join("stop.legacy"), "#!/bin/sh\necho mine\n").expect("moved");
        let to = find(&hook, b"#!/bin/sh\necho mine\n", &[]).expect("found");
        assert_eq!(to, dir.path().join("stop.legacy"));
        assert!(chains(&hook, &to, "exec \"$0.legacy\""));
        assert!(!chains(&hook, &to, "entire hooks x stop"));
        assert_eq!(find(&hook, b"other", &[]), None);
        assert_eq!(shown("r/stop", &hook, &to), "r/stop.legacy");
    }

    #[test]
    fn finds_a_copy_kept_under_a_state_directory_of_the_plugins_own() {
        let home = tempfile::tempdir().expect("dir");
        let hooks = home.path().join(".config/agent/hooks");
        let kept = home.path().join(".config/entire/x-hooks/originals");
        fs::create_dir_all(&hooks).expect("hooks");
        fs::create_dir_all(&kept).expect("kept");
        let hook = hooks.join("end-of-turn");
        fs::write(&hook, "#!/bin/sh\nexec plugin run-hook\n").expect("hook");
        fs::write(kept.join("chat-message"), "#!/bin/sh\necho mine\n").expect("same bytes");
        fs::write(kept.join("end-of-turn"), "#!/bin/sh\necho mine\n").expect("kept");
        let roots = vec![home.path().to_path_buf()];
        let to = find(&hook, b"#!/bin/sh\necho mine\n", &roots).expect("found");
        assert_eq!(to, kept.join("end-of-turn"));
        assert_eq!(find(&hook, b"#!/bin/sh\necho gone\n", &roots), None);
    }
}
