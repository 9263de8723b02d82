//! Helpers shared by the integration tests: the harness binary, the reference
//! plugin (built on demand), and runs decoded from `--format json`; in its
//! submodules, the helpers of the `wild_*` tests (`wild`, and `go` for the
//! Go test plugins) and of the `reporters_*` tests (`hand_made`,
//! `junit_xml`, `report_schema`).

#![allow(dead_code)]

pub mod go;
pub mod hand_made;
pub mod junit_xml;
pub mod report_schema;
pub mod shared;
pub mod wild;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The harness under test, with [`fast_python_path`] for the Python test
/// plugins (a test that sets `PATH` itself replaces it).
pub fn harness() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-conform"));
    cmd.env("PATH", fast_python_path());
    cmd
}

/// The reference plugin, built with the same cargo once per `cargo test`
/// (the first test binary that needs it builds it; the others of the same
/// invocation find it built: see [`shared`]).
pub fn reference() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let binary = shared::target_dir()
                .join("debug")
                .join("entire-agent-reference");
            let built = shared::invocation_dir().map(|d| d.join("reference-built"));
            if built.as_ref().is_some_and(|b| b.exists()) && binary.exists() {
                return binary;
            }
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = Command::new(cargo)
                .args(["build", "--quiet", "-p", "entire-agent-reference"])
                .current_dir(root())
                .status()
                .expect("cargo runs");
            assert!(status.success(), "building the reference plugin failed");
            if let Some(built) = built {
                let _ = std::fs::write(built, "");
            }
            binary
        })
        .clone()
}

/// A fixture plugin under tests/plugins.
pub fn plugin(name: &str) -> PathBuf {
    root().join("tests").join("plugins").join(name)
}

/// The outcome of a run: exit code and the JSON report.
pub struct Run {
    /// Process exit code.
    pub code: i32,
    /// The decoded report.
    pub report: Value,
}

impl Run {
    /// Ids of the cases with this outcome kind (passed, failed, warning, ...).
    pub fn ids(&self, kind: &str) -> Vec<String> {
        self.report["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["outcome"]["kind"] == kind)
            .map(|c| c["id"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// All messages of the findings of one case, joined.
    pub fn messages(&self, id: &str) -> String {
        self.report["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["id"] == id)
            .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
            .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
            .map(|f| f["message"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A PATH whose `python3` is the real interpreter, started without the
/// site module (`-S`). The Python test plugins start with `#!/usr/bin/env
/// python3` and use only the standard library; where `python3` is a
/// version manager's shim (pyenv), every call pays for the shim, and the
/// site module runs every `.pth` file of site-packages (one of this
/// machine's imports certifi): together most of a Python call's time, and
/// the Python test plugins make most of the suite's calls. The same
/// interpreter does the same work faster.
///
/// The test plugins' shared modules (`wildbase.py`, `wildio.py`,
/// `conflictbase.py`) are compiled once here, next to their sources
/// (`__pycache__`, ignored by git): a plugin call cannot write there (the
/// sandbox confines it, and `PYTHONDONTWRITEBYTECODE` may be set), so each
/// call compiled them anew, a third of a wild plugin's call.
pub fn fast_python_path() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let original = std::env::var("PATH").unwrap_or_default();
        compile_shared_modules();
        let real = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|p| !p.is_empty());
        let Some(real) = real else { return original };
        let dir =
            std::env::temp_dir().join(format!("agent-conform-test-python-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let link = dir.join("python3");
        let _ = std::fs::remove_file(&link);
        let quoted = format!("'{}'", real.replace('\'', r"'\''"));
        let script = format!("#!/bin/sh\nexec {quoted} -S \"$@\"\n");
        #[cfg(unix)]
        let linked = std::fs::write(&link, script).is_ok() && {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(&link, mode).is_ok()
        };
        #[cfg(not(unix))]
        let linked = false;
        if linked {
            format!("{}:{original}", dir.display())
        } else {
            original
        }
    })
}

/// Compiles the Python modules under tests/plugins to bytecode beside
/// them (see [`fast_python_path`]); a failure only leaves the calls slower.
fn compile_shared_modules() {
    let plugins = root().join("tests").join("plugins");
    let _ = Command::new("python3")
        .args(["-m", "compileall", "-q"])
        .arg(&plugins)
        .env_remove("PYTHONDONTWRITEBYTECODE")
        .env_remove("PYTHONPYCACHEPREFIX")
        .output();
}

/// Runs the harness with `--format json` on a plugin.
pub fn run_json(plugin: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_json_many(&[plugin.to_path_buf()], args, env)
}

/// Waits (up to a minute: a bound against a hung test, not a measurement)
/// until `done` holds.
pub fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let since = Instant::now();
    while !done() {
        assert!(since.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Gone or a zombie (dead, waiting to be reaped by whoever inherited it).
pub fn dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Runs the harness with `--format json` on several plugins at once (one:
/// [`run_json`]).
pub fn run_json_many(plugins: &[PathBuf], args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = harness();
    cmd.arg("--format").arg("json").args(args);
    // The sandboxes the run keeps (those of the cases that did not pass) go
    // to a directory removed after the run (where sandboxes go by default:
    // /dev/shm when roomy), not there for good: a test run makes hundreds of
    // failing cases on purpose.
    let sandboxes = tempfile::Builder::new()
        .prefix("agent-conform-test-")
        .tempdir_in(agent_conform::api::sandbox::default_base())
        .expect("a sandbox directory");
    if !args.contains(&"--sandbox-dir") {
        cmd.arg("--sandbox-dir").arg(sandboxes.path());
    }
    // The record of what did not pass (--rerun-failed) goes there too, not
    // into the user's cache.
    cmd.env("XDG_CACHE_HOME", sandboxes.path());
    cmd.args(plugins);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("agent-conform runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the JSON report does not parse ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Run {
        code: out.status.code().unwrap_or(-1),
        report,
    }
}
