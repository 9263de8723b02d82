//! The newest hosts' check of a session file's name before `write-session`
//! (docs/host.md, "The newest host source (read December 2026)",
//! "Resume and rewind (newest variants)"): every path component under the
//! session directory is checked, on every operating system, and a refused
//! one means `write-session` is never called and the resume or rewind of
//! that session fails. Which releases check is
//! [`crate::host::releases::Fact::SessionPathComponents`].
//!
//! Also the Windows device names, shared with the session id rules of
//! `host::ids` (which uses this module).

use std::path::{Component, Path, PathBuf};

/// The Windows device names a component may not name, whatever its
/// extension (`aux.jsonl`), compared without case.
pub const DEVICE_NAMES: &[&str] = &[
    "con", "prn", "aux", "nul", "conin$", "conout$", "com1", "com2", "com3", "com4", "com5",
    "com6", "com7", "com8", "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8",
    "lpt9",
];

/// Whether `name` names a Windows device of `devices`, judged before its
/// first dot and without case (`AUX.jsonl`, `com1`).
pub fn names_device(name: &str, devices: &[&str]) -> bool {
    let stem = name.split('.').next().unwrap_or(name).to_lowercase();
    devices.iter().any(|d| *d == stem)
}

/// Why the newest hosts refuse one path component, or `None`.
pub fn refused_component(name: &str) -> Option<String> {
    if name == "." || name == ".." {
        return Some(format!("the component {name:?} is `.` or `..`"));
    }
    if name.contains(':') {
        return Some(format!("the component {name:?} contains `:`"));
    }
    if name.chars().any(char::is_control) {
        return Some(format!(
            "the component {name:?} contains a control character"
        ));
    }
    if name.ends_with(' ') || name.ends_with('.') {
        return Some(format!(
            "the component {name:?} ends in a space or a period"
        ));
    }
    if names_device(name, DEVICE_NAMES) {
        return Some(format!(
            "the component {name:?} names a Windows device (with any extension)"
        ));
    }
    None
}

/// The components of `file` under `dir` as the host checks them: the part
/// below the session directory of an absolute file inside it, or every
/// component of a relative one (an opaque key inside the store). Raw
/// components: `.` and `..` are kept, not resolved.
fn components_under(dir: &Path, file: &str) -> Vec<String> {
    let raw: Vec<String> = file
        .split(['/', '\\'])
        .filter(|part| !part.is_empty())
        .map(str::to_string)
        .collect();
    if !Path::new(file).is_absolute() {
        return raw;
    }
    let dir_parts: Vec<String> = dir
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if raw.len() > dir_parts.len() && raw[..dir_parts.len()] == dir_parts[..] {
        raw[dir_parts.len()..].to_vec()
    } else {
        // Outside the directory: the containment rule's to say; judge the
        // file name alone.
        raw.last().cloned().into_iter().collect()
    }
}

/// Why the newest hosts refuse `file` (an answer of `resolve-session-file`)
/// under the session directory `dir` by its names alone: one reason per
/// refused component.
pub fn refused_names(dir: &Path, file: &str) -> Vec<String> {
    components_under(dir, file)
        .iter()
        .filter_map(|c| refused_component(c))
        .collect()
}

/// The first symlink among `file` and its parents below `dir`, which the
/// newest hosts refuse too (read from the file system as it is now).
pub fn symlinked(dir: &Path, file: &Path) -> Option<PathBuf> {
    let mut at = file.to_path_buf();
    while at.starts_with(dir) && at != dir {
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(at);
        }
        at = at.parent()?.to_path_buf();
    }
    None
}

/// What a refused session file costs, for messages.
pub const REFUSED_COSTS: &str = "the host checks every path component under the session \
     directory before write-session and never calls it for this file: `entire resume` and \
     `entire rewind` of the session fail";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_refused_as_the_newest_host_does() {
        for bad in [
            "2026-09-01T10:00:00.jsonl",
            "a\u{7}b",
            "s.jsonl ",
            "s.",
            ".",
            "..",
            "aux.jsonl",
            "AUX",
            "conin$",
            "CONOUT$.json",
            "com1",
            "lpt9.x",
        ] {
            assert!(refused_component(bad).is_some(), "{bad:?}");
        }
        for good in [
            "sess-7f3a9c21.jsonl",
            "com10",
            "console.jsonl",
            ".hidden",
            "a b.jsonl",
        ] {
            assert_eq!(refused_component(good), None, "{good:?}");
        }
    }

    #[test]
    fn only_components_under_the_session_directory_are_judged() {
        let dir = Path::new("/h/.x/sess:ions");
        assert!(refused_names(dir, "/h/.x/sess:ions/s.jsonl").is_empty());
        assert_eq!(refused_names(dir, "/h/.x/sess:ions/a:b/s.jsonl").len(), 1);
        assert_eq!(refused_names(dir, "/h/.x/sess:ions/./nul.txt").len(), 2);
        assert_eq!(refused_names(dir, "keys/2026-09-01T10:00:00").len(), 1);
        assert_eq!(refused_names(dir, "/elsewhere/a:b").len(), 1);
    }

    #[test]
    fn a_symlinked_parent_is_found() {
        let tmp = std::env::temp_dir().join(format!("ac-session-path-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(tmp.join("real")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.join("real"), tmp.join("link")).unwrap();
            let found = symlinked(&tmp, &tmp.join("link/s.jsonl"));
            assert_eq!(found, Some(tmp.join("link")));
        }
        assert_eq!(symlinked(&tmp, &tmp.join("real/s.jsonl")), None);
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
