//! What `--rerun-failed` reruns: for each plugin, the ids of the cases that
//! did not pass in its runs so far, kept in one small file of the user's
//! cache (`$XDG_CACHE_HOME/agent-conform/last-runs/<plugin>-<hash>.txt`, or
//! `~/.cache/...`), whatever `--sandbox-dir` the runs used.
//!
//! A run updates the record rather than replacing it: a case that ran and
//! passed leaves it, a case that ran and did not pass joins it, and a case
//! that did not run (outside `--only`, say) keeps its place. So a rerun of
//! the failures that fixes one of them still remembers the others.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::runs::file_safe;

/// The folder of the records: the user's cache, else the temporary one.
pub fn records_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("agent-conform").join("last-runs")
}

/// The record, in `dir`, of `plugin`'s cases that did not pass.
fn record(dir: &Path, plugin: &Path) -> PathBuf {
    let full = plugin
        .canonicalize()
        .unwrap_or_else(|_| plugin.to_path_buf());
    let name = file_safe(&plugin.file_name().unwrap_or_default().to_string_lossy());
    dir.join(format!(
        "{name}-{:016x}.txt",
        fnv1a(full.to_string_lossy().as_bytes())
    ))
}

/// A hash that stays the same across builds (the record outlives them).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The ids of the cases of `plugin` that did not pass when they last ran
/// (records in `dir`, see [`records_dir`]);
/// `None` when no run of it is on record.
pub fn not_passed(dir: &Path, plugin: &Path) -> Option<BTreeSet<String>> {
    let text = fs::read_to_string(record(dir, plugin)).ok()?;
    Some(
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// Updates the record of `plugin` with the cases that ran: `(id, passed)`.
pub fn remember<'a>(
    dir: &Path,
    plugin: &Path,
    ran: impl IntoIterator<Item = (&'a str, bool)>,
) -> io::Result<()> {
    let mut ids = not_passed(dir, plugin).unwrap_or_default();
    for (id, passed) in ran {
        if passed {
            ids.remove(id);
        } else {
            ids.insert(id.to_string());
        }
    }
    let path = record(dir, plugin);
    fs::create_dir_all(dir)?;
    let mut text: String = ids.into_iter().map(|id| id + "\n").collect();
    if text.is_empty() {
        text.push('\n');
    }
    fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rerun_forgets_what_passed_and_keeps_what_did_not_run() {
        let base = tempfile::tempdir().expect("a temporary directory");
        let plugin = Path::new("/x/entire-agent-y");
        assert_eq!(not_passed(base.path(), plugin), None);
        remember(
            base.path(),
            plugin,
            [("a", false), ("b", false), ("c", true)],
        )
        .unwrap();
        remember(base.path(), plugin, [("a", true)]).unwrap();
        let left = not_passed(base.path(), plugin).unwrap();
        assert_eq!(left.into_iter().collect::<Vec<_>>(), ["b"]);
        remember(base.path(), plugin, [("b", true)]).unwrap();
        assert_eq!(not_passed(base.path(), plugin), Some(BTreeSet::new()));
        let other = Path::new("/x/entire-agent-z");
        assert_eq!(not_passed(base.path(), other), None);
    }
}
