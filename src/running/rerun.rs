//! What `--rerun-failed` reruns: for each plugin, the ids of the cases that
//! did not pass in its runs so far, kept in one small file of the user's
//! cache (`$XDG_CACHE_HOME/agent-conform/last-runs/<plugin>-<hash>.txt`, or
//! `~/.cache/...`), whatever `--sandbox-dir` the runs used.
//!
//! A run updates the record rather than replacing it: a case that ran and
//! passed leaves it, a case that ran and did not pass joins it, and a case
//! that did not run (outside `--only`, say) keeps its place. So a rerun of
//! the failures that fixes one of them still remembers the others. A case
//! that passed only because `--allow` lowered its findings did not pass.
//!
//! The record also keeps the last run's seed and its `--allow` values
//! (`# seed N`, `# allow CODE[@CASES]` lines above the ids): a rerun makes
//! the same generated inputs and allows what that run allowed.

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

/// What is on record of a plugin's runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The ids of the cases that did not pass when they last ran.
    pub ids: BTreeSet<String>,
    /// The seed of the last run (none in a record of an older version).
    pub seed: Option<u64>,
    /// The `--allow` values of the last run.
    pub allow: Vec<String>,
}

/// The record of `plugin` (records in `dir`, see [`records_dir`]); `None`
/// when no run of it is on record.
pub fn last_run(dir: &Path, plugin: &Path) -> Option<Record> {
    let text = fs::read_to_string(record(dir, plugin)).ok()?;
    let mut found = Record::default();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(seed) = line.strip_prefix("# seed ") {
            found.seed = seed.trim().parse().ok();
        } else if let Some(allow) = line.strip_prefix("# allow ") {
            found.allow.push(allow.trim().to_string());
        } else if !line.starts_with('#') {
            found.ids.insert(line.to_string());
        }
    }
    Some(found)
}

/// The ids of the cases of `plugin` that did not pass when they last ran;
/// `None` when no run of it is on record.
pub fn not_passed(dir: &Path, plugin: &Path) -> Option<BTreeSet<String>> {
    last_run(dir, plugin).map(|r| r.ids)
}

/// A run as the record keeps it: its seed, its `--allow` values, and each
/// case that ran, `(id, passed)`.
pub struct Ran<'a> {
    /// The run's seed.
    pub seed: u64,
    /// Its `--allow` values.
    pub allow: &'a [String],
    /// The cases that ran.
    pub cases: Vec<(&'a str, bool)>,
}

/// Updates the record of `plugin` with a run.
pub fn remember(dir: &Path, plugin: &Path, ran: Ran<'_>) -> io::Result<()> {
    let mut ids = not_passed(dir, plugin).unwrap_or_default();
    for (id, passed) in ran.cases {
        if passed {
            ids.remove(id);
        } else {
            ids.insert(id.to_string());
        }
    }
    let path = record(dir, plugin);
    fs::create_dir_all(dir)?;
    let mut text = format!("# seed {}\n", ran.seed);
    for allow in ran.allow {
        text.push_str(&format!("# allow {allow}\n"));
    }
    text.extend(ids.into_iter().map(|id| id + "\n"));
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
        let ran = |seed, cases| Ran {
            seed,
            allow: &[],
            cases,
        };
        let first = ran(7, vec![("a", false), ("b", false), ("c", true)]);
        remember(base.path(), plugin, first).unwrap();
        remember(base.path(), plugin, ran(8, vec![("a", true)])).unwrap();
        let left = not_passed(base.path(), plugin).unwrap();
        assert_eq!(left.into_iter().collect::<Vec<_>>(), ["b"]);
        remember(base.path(), plugin, ran(9, vec![("b", true)])).unwrap();
        assert_eq!(not_passed(base.path(), plugin), Some(BTreeSet::new()));
        let other = Path::new("/x/entire-agent-z");
        assert_eq!(not_passed(base.path(), other), None);
    }

    #[test]
    fn the_record_keeps_the_seed_and_the_allowances() {
        let base = tempfile::tempdir().expect("a temporary directory");
        let plugin = Path::new("/x/entire-agent-y");
        let allow = ["chunking@core.chunk.*".to_string()];
        let ran = Ran {
            seed: 42,
            allow: &allow,
            cases: vec![("core.chunk.round-trip", false)],
        };
        remember(base.path(), plugin, ran).unwrap();
        let record = last_run(base.path(), plugin).unwrap();
        assert_eq!(record.seed, Some(42));
        assert_eq!(record.allow, allow);
        assert_eq!(record.ids.len(), 1);
    }
}
