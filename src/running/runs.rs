//! Kept sandboxes are bounded: each run keeps its sandboxes in one folder of
//! its own, `<runs folder>/<plugin>-<UTC time>-<pid>/`, which a marker file
//! ([`MARKER`]) declares the harness's. Nothing without that marker is ever
//! removed, nor anything another user owns.
//!
//! The runs folder ([`folder`]) is the user's own: in the shared default
//! base (`/dev/shm`, the temporary directory) it is
//! `agent-conform-runs-<uid>`, made `0700`; in a `--sandbox-dir` the user
//! chose, `agent-conform-runs`. A runs folder that is a link, or another
//! user's, is refused.
//!
//! At start, a run removes the folders of earlier runs of the same plugin
//! beyond that plugin's newest [`KEEP_RUNS`] runs, itself included, and
//! those of any plugin older than [`MAX_AGE`] (24 hours): a run of one
//! plugin never takes away the reproduce scripts of another's; a `--keep-temp` run's folder is never removed
//! automatically, and `agent-conform clean` removes them all. A run holds a
//! lock on its marker while it lasts, so that no other run removes a folder
//! in use; a run that keeps nothing removes its own folder at its end.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The folder, in a sandbox base, that holds the runs' folders (with the
/// user's id after it in a shared base: [`folder`]).
pub const RUNS_DIR: &str = "agent-conform-runs";

/// The folder in `base` that holds this user's runs' folders: `base`'s
/// [`RUNS_DIR`] when the user `chose` the base (`--sandbox-dir`), else,
/// in a base every user shares, one named after this user's id.
pub fn folder(base: &Path, chose: bool) -> PathBuf {
    if chose {
        return base.join(RUNS_DIR);
    }
    #[cfg(unix)]
    {
        // SAFETY: geteuid(2) cannot fail and touches no memory.
        let uid = unsafe { libc::geteuid() };
        base.join(format!("{RUNS_DIR}-{uid}"))
    }
    #[cfg(not(unix))]
    {
        // The temporary directory is the user's own there.
        base.join(RUNS_DIR)
    }
}

/// The runs folders `agent-conform clean` empties in a shared `base`: this
/// user's, and the one every user shared before (its folders of this
/// user's only).
pub fn folders_to_clean(base: &Path) -> Vec<PathBuf> {
    let mut folders = vec![folder(base, false)];
    let shared = base.join(RUNS_DIR);
    if !folders.contains(&shared) {
        folders.push(shared);
    }
    folders
}

/// The marker file of a run's folder.
pub const MARKER: &str = ".agent-conform-run";

/// The marker's first line.
const MAGIC: &str = "agent-conform run folder";

/// Runs of one plugin whose kept sandboxes stay, the newest first.
pub const KEEP_RUNS: usize = 5;

/// Kept sandboxes older than this are removed whatever their rank.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The folder of the current run, locked while the run lasts. Dropping it
/// removes the folder if the run kept nothing in it.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    _lock: File,
}

impl RunDir {
    /// Makes the run's folder in the runs folder `runs` ([`folder`]), named
    /// after the `plugin` file and the time, with its marker; `keep` marks
    /// a `--keep-temp` run.
    pub fn create(runs_folder: &Path, plugin: &Path, keep: bool) -> io::Result<RunDir> {
        let runs = runs_dir(runs_folder)?;
        let now = SystemTime::now();
        let name = format!(
            "{}-{}-{}",
            file_safe(&plugin.file_name().unwrap_or_default().to_string_lossy()),
            utc_stamp(now),
            std::process::id()
        );
        let path = runs.join(name);
        let mut made = fs::create_dir(&path);
        if made
            .as_ref()
            .is_err_and(|e| e.kind() == io::ErrorKind::NotFound)
        {
            // Another run's end removed the empty runs' folder just now.
            runs_dir(runs_folder)?;
            made = fs::create_dir(&path);
        }
        made?;
        let started = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let text = format!(
            "{MAGIC}\nstarted_ms={started}\nkeep={keep}\nplugin={}\n",
            plugin.display()
        );
        fs::write(path.join(MARKER), text)?;
        let lock = File::open(path.join(MARKER))?;
        if !try_lock(&lock) {
            return Err(io::Error::other("could not lock the run's folder"));
        }
        let path = path.canonicalize()?;
        Ok(RunDir { path, _lock: lock })
    }

    /// The folder: where this run's sandboxes go.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RunDir {
    /// Removes the folder when it holds nothing but its marker, and the
    /// runs' folder when that is then empty.
    fn drop(&mut self) {
        let entries = fs::read_dir(&self.path).map(|e| e.flatten().count());
        if entries.is_ok_and(|n| n <= 1) {
            let _ = fs::remove_file(self.path.join(MARKER));
            let _ = fs::remove_dir(&self.path);
            if let Some(runs) = self.path.parent() {
                let _ = fs::remove_dir(runs);
            }
        }
    }
}

/// The runs folder, made (`0700`) if missing; refused when it is not a
/// directory of this user's (a link, or another user's on a shared
/// `/dev/shm`).
fn runs_dir(runs: &Path) -> io::Result<PathBuf> {
    let runs = runs.to_path_buf();
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    // Another run may remove the empty folder between the two calls.
    for _ in 0..3 {
        match builder.create(&runs) {
            Ok(()) => break,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(err),
        }
        if fs::symlink_metadata(&runs).is_ok() {
            break;
        }
    }
    let meta = fs::symlink_metadata(&runs)?;
    if !meta.is_dir() || !owned(&meta) {
        return Err(io::Error::other(format!(
            "{} is not a directory of this user's",
            runs.display()
        )));
    }
    Ok(runs)
}

#[cfg(unix)]
fn owned(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    meta.uid() == unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn owned(_meta: &fs::Metadata) -> bool {
    true
}

/// Takes the lock of a marker without waiting; `false` when another run
/// holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock(2) on a descriptor we own.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> bool {
    true
}

/// What was removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Removed {
    /// Run folders removed.
    pub runs: usize,
    /// Their size, in bytes.
    pub bytes: u64,
    /// Run folders left alone because their run is still going.
    pub running: usize,
}

impl Removed {
    /// One line for the user: what was removed, and from where.
    pub fn line(&self, runs_dir: &Path) -> String {
        let mut line = format!(
            "removed the kept sandboxes of {} run(s), {}, from {}",
            self.runs,
            crate::running::bounds::size_text(self.bytes),
            runs_dir.display()
        );
        if self.running > 0 {
            line.push_str(&format!(
                " ({} run(s) still going left alone)",
                self.running
            ));
        }
        line
    }
}

/// A run folder found on disk, with what its marker says.
struct Found {
    path: PathBuf,
    started_ms: u128,
    keep: bool,
    /// The plugin the run was of (the marker's `plugin=` line; empty for
    /// the markers of older versions, which then count as one plugin).
    plugin: String,
}

/// The marked run folders of this user's in the runs folder `runs`, the
/// newest first.
fn found(runs: &Path) -> Vec<Found> {
    let Ok(entries) = fs::read_dir(runs) else {
        return Vec::new();
    };
    let mut runs: Vec<Found> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| fs::symlink_metadata(e.path()).is_ok_and(|m| owned(&m)))
        .filter_map(|e| read_marker(&e.path()))
        .collect();
    runs.sort_by(|a, b| (b.started_ms, &b.path).cmp(&(a.started_ms, &a.path)));
    runs
}

/// The marker of the folder at `path`, if it has one of ours.
fn read_marker(path: &Path) -> Option<Found> {
    let marker = path.join(MARKER);
    if !fs::symlink_metadata(&marker).ok()?.is_file() {
        return None;
    }
    let text = fs::read_to_string(&marker).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MAGIC {
        return None;
    }
    let mut found = Found {
        path: path.to_path_buf(),
        started_ms: 0,
        keep: false,
        plugin: String::new(),
    };
    for line in lines {
        match line.split_once('=') {
            Some(("started_ms", v)) => found.started_ms = v.parse().unwrap_or(0),
            Some(("keep", v)) => found.keep = v == "true",
            Some(("plugin", v)) => found.plugin = v.to_string(),
            _ => {}
        }
    }
    Some(found)
}

/// Removes the run folder at `path` unless its run is still going (its
/// marker locked); adds what it removed to `removed`.
fn remove(path: &Path, removed: &mut Removed) {
    let Ok(marker) = File::open(path.join(MARKER)) else {
        return;
    };
    if !try_lock(&marker) {
        removed.running += 1;
        return;
    }
    let bytes = size(path);
    if fs::remove_dir_all(path).is_ok() {
        removed.runs += 1;
        removed.bytes += bytes;
    }
}

/// The bytes of the files beneath `dir` (links not followed).
fn size(dir: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// At the start of a run: removes the folders in the runs folder `runs` of each
/// plugin's runs beyond its newest [`KEEP_RUNS`] (running ones count,
/// `--keep-temp` ones neither count nor go) and of those older than
/// [`MAX_AGE`].
pub fn prune(runs: &Path) -> Removed {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut removed = Removed::default();
    let mut newer: std::collections::HashMap<String, usize> = Default::default();
    for run in found(runs).into_iter().filter(|r| !r.keep) {
        let old = now_ms.saturating_sub(run.started_ms) > MAX_AGE.as_millis();
        let count = newer.entry(run.plugin.clone()).or_default();
        if *count < KEEP_RUNS && !old {
            *count += 1;
            continue;
        }
        remove(&run.path, &mut removed);
    }
    removed
}

/// `agent-conform clean`: removes every run folder of this user's in the
/// runs folder `runs`, kept with `--keep-temp` or not, except those of runs
/// still going.
pub fn clean(runs: &Path) -> Removed {
    let mut removed = Removed::default();
    for run in found(runs) {
        remove(&run.path, &mut removed);
    }
    let _ = fs::remove_dir(runs);
    removed
}

/// [`clean`] over several runs folders, each once.
pub fn clean_all(folders: &[PathBuf]) -> Vec<(PathBuf, Removed)> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for runs in folders {
        let key = runs.canonicalize().unwrap_or_else(|_| runs.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        out.push((runs.clone(), clean(runs)));
    }
    out
}

/// A file-name-safe form of `name`, at most 40 characters.
pub(crate) fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    if safe.is_empty() {
        "plugin".to_string()
    } else {
        safe
    }
}

/// `YYYYMMDD-HHMMSS` in UTC.
fn utc_stamp(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The calendar date of a day count since 1970-01-01 (Howard Hinnant's
/// algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        let t = UNIX_EPOCH + Duration::from_secs(19_723 * 86_400 + 3_723);
        assert_eq!(utc_stamp(t), "20240101-010203");
    }

    /// A finished run's folder with a kept sandbox, started `ago` ms back.
    fn finished_run(base: &Path, name: &str, ago: u128, keep: bool) -> PathBuf {
        finished_run_of(base, name, ago, keep, "/x/entire-agent-y")
    }

    /// [`finished_run`] of the plugin at `plugin`.
    fn finished_run_of(base: &Path, name: &str, ago: u128, keep: bool, plugin: &str) -> PathBuf {
        let path = base.join(name);
        fs::create_dir_all(path.join("agent-conform-case-x")).unwrap();
        fs::write(path.join("agent-conform-case-x/f"), b"12345").unwrap();
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let started = now.as_millis() - ago;
        let text = format!("{MAGIC}\nstarted_ms={started}\nkeep={keep}\nplugin={plugin}\n");
        fs::write(path.join(MARKER), text).unwrap();
        path
    }

    #[test]
    fn the_newest_runs_stay_the_rest_go_and_nothing_unmarked_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        let base = &folder(dir.path(), false);
        let runs: Vec<PathBuf> = (0..8)
            .map(|n| finished_run(base, &format!("p-{n}"), 1000 * (8 - n), false))
            .collect();
        let kept = finished_run(base, "kept", 1_000_000, true);
        let old = finished_run(base, "old", MAX_AGE.as_millis() + 1000, false);
        let stranger = base.join("not-ours");
        fs::create_dir_all(&stranger).unwrap();
        let current = RunDir::create(base, Path::new("/x/entire-agent-y"), false).unwrap();
        let removed = prune(base);
        // The current run and the 4 newest earlier ones stay.
        assert_eq!(removed.runs, 5, "{removed:?}");
        assert!(removed.bytes >= 5 * 5, "{removed:?}");
        for (n, run) in runs.iter().enumerate() {
            assert_eq!(run.exists(), n >= 4, "{n}");
        }
        assert!(kept.exists() && stranger.exists() && !old.exists());
        assert!(current.path().exists());
        let name = current.path().file_name().unwrap().to_string_lossy();
        assert!(name.starts_with("entire-agent-y-"), "{name}");
        // A running run is left alone by clean; the rest go.
        let cleaned = clean(base);
        assert_eq!((cleaned.runs, cleaned.running), (5, 1), "{cleaned:?}");
        assert!(stranger.exists() && current.path().exists());
        let path = current.path().to_path_buf();
        drop(current);
        assert!(
            !path.exists(),
            "an empty run folder goes at the end of its run"
        );
    }

    #[test]
    fn each_plugin_keeps_its_own_newest_runs() {
        let dir = tempfile::tempdir().unwrap();
        let base = &dir.path().join(RUNS_DIR);
        let mine: Vec<PathBuf> = (0..3)
            .map(|n| finished_run_of(base, &format!("a-{n}"), 1000 * (10 - n), false, "/a"))
            .collect();
        // Another plugin's seven later runs do not push out the first's.
        for n in 0..7 {
            finished_run_of(base, &format!("b-{n}"), 100 * (7 - n), false, "/b");
        }
        let removed = prune(base);
        assert_eq!(removed.runs, 2, "{removed:?}");
        assert!(mine.iter().all(|p| p.exists()));
    }

    /// In a shared base the runs folder is this user's own: named after
    /// the user's id, and made for the user alone.
    #[cfg(unix)]
    #[test]
    fn a_shared_base_gives_each_user_a_runs_folder_of_their_own() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let runs = folder(dir.path(), false);
        // SAFETY: geteuid(2) cannot fail and touches no memory.
        let uid = unsafe { libc::geteuid() };
        assert_eq!(runs, dir.path().join(format!("agent-conform-runs-{uid}")));
        assert_eq!(folder(dir.path(), true), dir.path().join(RUNS_DIR));
        let run = RunDir::create(&runs, Path::new("/x/entire-agent-y"), true).unwrap();
        let mode = fs::metadata(&runs).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        assert!(run.path().starts_with(runs.canonicalize().unwrap()));
        assert_eq!(
            folders_to_clean(dir.path()),
            [runs.clone(), dir.path().join(RUNS_DIR)]
        );
    }
}
