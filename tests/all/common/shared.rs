//! What the test binaries of one `cargo test` share, so that a whole-suite
//! run of a test plugin is made once and the reference plugin built once:
//! a folder per `cargo test` invocation, `target/test-runs/<cargo's pid>-<its
//! start time>/`, which every test binary of that invocation finds (cargo
//! starts them one after the other, as its children). Nothing there outlives
//! the invocation's use: a later `cargo test` has another folder, and the
//! folders of invocations that ended are removed.
//!
//! [`shared_run`] is for runs that only read a report: the same plugin,
//! arguments and environment give the same report (a run without `--seed`
//! gets `--seed 1`, so that it is the same run in every test that asks for
//! it). A test that looks at what a run leaves behind (a kept sandbox, a
//! JUnit file, a rerun record) runs its own.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use super::{Run, root, run_json};

/// This `cargo test` invocation's shared folder, made on first use; `None`
/// where the parent process cannot be told apart (off Linux).
pub fn invocation_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        #[cfg(not(unix))]
        return None;
        #[cfg(unix)]
        let parent = std::os::unix::process::parent_id();
        let started = start_time(parent)?;
        let base = target_dir().join("test-runs");
        remove_ended(&base);
        let dir = base.join(format!("{parent}-{started}"));
        std::fs::create_dir_all(&dir).ok()?;
        Some(dir)
    })
    .as_deref()
}

/// The target directory the tests were built in.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// The start time of process `pid` (`/proc/<pid>/stat`, field 22), which
/// tells it from a later process given the same id.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Removes the folders of invocations whose process is gone.
fn remove_ended(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let alive = name.split_once('-').is_some_and(|(pid, started)| {
            let pid = pid.parse().unwrap_or(0);
            start_time(pid).map(|s| s.to_string()).as_deref() == Some(started)
        });
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A run being made or made once: its exit code and report.
type Shared = Arc<OnceLock<(i32, Value)>>;

/// A file's identity for a key: its path, size and modification time.
fn file_key(path: &Path, hasher: &mut DefaultHasher) {
    path.hash(hasher);
    if let Ok(meta) = std::fs::metadata(path) {
        meta.len().hash(hasher);
        meta.modified().ok().hash(hasher);
    }
}

/// The run of `plugin` with `args` and `env`, made once per `cargo test`
/// (see the module): the report of the first test that asked for it.
pub fn shared_run(plugin: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut args: Vec<&str> = args.to_vec();
    if !args.contains(&"--seed") {
        args.extend(["--seed", "1"]);
    }
    let mut hasher = DefaultHasher::new();
    file_key(Path::new(env!("CARGO_BIN_EXE_agent-conform")), &mut hasher);
    file_key(plugin, &mut hasher);
    (&args, env).hash(&mut hasher);
    let key = hasher.finish();

    static MEMO: Mutex<Option<HashMap<u64, Shared>>> = Mutex::new(None);
    let cell = {
        let mut memo = MEMO.lock().unwrap_or_else(|e| e.into_inner());
        memo.get_or_insert_with(HashMap::new)
            .entry(key)
            .or_default()
            .clone()
    };
    let (code, report) = cell
        .get_or_init(|| {
            let file = invocation_dir().map(|d| d.join(format!("{key:016x}.json")));
            if let Some(saved) = file.as_ref().and_then(|f| read(f)) {
                return saved;
            }
            let run = run_json(plugin, &args, env);
            if let Some(file) = &file {
                write(file, run.code, &run.report);
            }
            (run.code, run.report)
        })
        .clone();
    Run { code, report }
}

fn read(file: &Path) -> Option<(i32, Value)> {
    let saved: Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    let code = i32::try_from(saved["code"].as_i64()?).ok()?;
    Some((code, saved["report"].clone()))
}

/// Writes atomically: a test binary never reads half a file.
fn write(file: &Path, code: i32, report: &Value) {
    let text = json!({"code": code, "report": report}).to_string();
    let partial = file.with_extension(format!("{}.part", std::process::id()));
    if std::fs::write(&partial, text).is_ok() {
        let _ = std::fs::rename(&partial, file);
    }
}
