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
/// those bytes. `None` when there is none: the user's file is gone.
pub fn find(path: &Path, original: &[u8]) -> Option<PathBuf> {
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
    let own = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let named_after = |c: &PathBuf| {
        let name = c.file_name().map(|n| n.to_string_lossy().into_owned());
        !matches!((&own, name), (Some(own), Some(name)) if name.starts_with(own.as_str()))
    };
    candidates.sort_by_key(|c| (named_after(c), c.clone()));
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
        let to = find(&hook, b"#!/bin/sh\necho mine\n").expect("found");
        assert_eq!(to, dir.path().join("stop.legacy"));
        assert!(chains(&hook, &to, "exec \"$0.legacy\""));
        assert!(!chains(&hook, &to, "entire hooks x stop"));
        assert_eq!(find(&hook, b"other"), None);
        assert_eq!(shown("r/stop", &hook, &to), "r/stop.legacy");
    }
}
