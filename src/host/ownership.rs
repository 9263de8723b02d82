//! Which agent owns a transcript path (host-behaviour.md, "Plugins in the
//! wild", "The session directory claims what is not the plugin's"): for
//! every hook event with a `session_ref`, the host looks for the first
//! registered agent, in sorted name order, whose session directory contains
//! the path (a prefix match with a separator, case-insensitive on Windows),
//! and skips the event when that owner is not the agent whose hook fired.

use std::path::{MAIN_SEPARATOR, Path, PathBuf};

/// Whether `dir` contains `path` as the host matches it: `path` equals
/// `dir`, or starts with `dir` followed by a separator; case-insensitive on
/// Windows.
pub fn contains(dir: &Path, path: &Path) -> bool {
    let fold = |p: &Path| {
        let text = p.to_string_lossy().into_owned();
        if cfg!(windows) {
            text.to_lowercase()
        } else {
            text
        }
    };
    let (dir, path) = (fold(dir), fold(path));
    let dir = dir.trim_end_matches(MAIN_SEPARATOR);
    if dir.is_empty() {
        // The file system root: every absolute path is under it.
        return path.starts_with(MAIN_SEPARATOR);
    }
    path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with(MAIN_SEPARATOR))
}

/// The owner of `path`: the first agent, in sorted name order, whose
/// session directory contains it; `agents` are (name, session directory).
pub fn owner<'a>(path: &Path, agents: &'a [(String, PathBuf)]) -> Option<&'a str> {
    let mut sorted: Vec<&(String, PathBuf)> = agents.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    sorted
        .into_iter()
        .find(|(_, dir)| contains(dir, path))
        .map(|(name, _)| name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_counts_only_at_a_separator() {
        assert!(contains(
            Path::new("/r/.entire/tmp"),
            Path::new("/r/.entire/tmp")
        ));
        assert!(contains(
            Path::new("/r/.entire"),
            Path::new("/r/.entire/tmp/x")
        ));
        assert!(!contains(
            Path::new("/r/.entire/tmp"),
            Path::new("/r/.entire/tmpfoo")
        ));
    }

    #[test]
    fn the_first_name_in_sorted_order_owns() {
        let agents = vec![
            ("zed".to_string(), PathBuf::from("/r/.entire")),
            ("alpha".to_string(), PathBuf::from("/r/.entire/tmp")),
        ];
        assert_eq!(
            owner(Path::new("/r/.entire/tmp/s.jsonl"), &agents),
            Some("alpha")
        );
        assert_eq!(owner(Path::new("/r/.entire/x.jsonl"), &agents), Some("zed"));
        assert_eq!(owner(Path::new("/elsewhere"), &agents), None);
    }
}
