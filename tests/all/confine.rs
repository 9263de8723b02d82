//! Confinement: a plugin that writes and deletes files outside its sandbox,
//! in install-hooks and in uninstall-hooks, leaves the machine unchanged and
//! fails those cases naming the paths; with --no-confine the same plugin
//! does change the files (which shows that the confinement is what kept
//! them).

use crate::common;

use std::path::{Path, PathBuf};

use common::{harness, plugin};
use serde_json::Value;

/// The places the fixture writes to and deletes, under a directory of the
/// test's own and in /tmp.
struct Places {
    dir: tempfile::TempDir,
    tag: String,
}

impl Places {
    fn new(name: &str) -> Places {
        let dir = tempfile::Builder::new()
            .prefix("agent-conform-outside-")
            .tempdir_in("/tmp")
            .expect("a temporary directory");
        let places = Places {
            dir,
            tag: format!("{name}-{}", std::process::id()),
        };
        std::fs::write(places.planted(), "the user's file").unwrap();
        std::fs::create_dir_all(places.planted_dir()).unwrap();
        std::fs::write(places.planted_dir().join("f"), "the user's file").unwrap();
        std::fs::write(places.tmp_planted(), "the user's file").unwrap();
        places
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn planted(&self) -> PathBuf {
        self.path("planted")
    }
    fn planted_dir(&self) -> PathBuf {
        self.path("planted-dir")
    }
    fn tmp(&self) -> PathBuf {
        PathBuf::from(format!("/tmp/agent-conform-writes-outside-{}", self.tag))
    }
    fn tmp_planted(&self) -> PathBuf {
        PathBuf::from(format!(
            "/tmp/agent-conform-writes-outside-{}.planted",
            self.tag
        ))
    }

    /// Runs the fixture's hook cases; returns the exit code and the report.
    fn run(&self, extra: &[&str]) -> (i32, Value) {
        let sandboxes = tempfile::tempdir().expect("a sandbox directory");
        let out = harness()
            .args([
                "--format",
                "json",
                "--only",
                "hooks.lifecycle.*",
                "--sandbox-dir",
            ])
            .arg(sandboxes.path())
            .args(extra)
            .arg(plugin("broken/entire-agent-writes-outside"))
            .env("AC_OUTSIDE_DIR", self.dir.path())
            .env("AC_OUTSIDE_TAG", &self.tag)
            .output()
            .expect("agent-conform runs");
        let report = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code().unwrap_or(-1), report)
    }
}

impl Drop for Places {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.tmp());
        let _ = std::fs::remove_file(self.tmp_planted());
    }
}

fn outcome(report: &Value, id: &str) -> String {
    case(report, id)["outcome"]["kind"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn case<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("no case {id} in the report"))
}

fn messages(report: &Value, id: &str) -> String {
    case(report, id)["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
        .map(|f| f["message"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn writes_outside_the_sandbox_are_blocked_and_reported_by_path() {
    if let Err(reason) = agent_conform::api::confine::probe() {
        eprintln!("SKIPPED: confinement is unavailable on this machine: {reason}");
        return;
    }
    let places = Places::new("confined");
    let (code, report) = places.run(&[]);
    assert_eq!(code, 1);

    // The machine is unchanged.
    assert!(places.planted().is_file(), "the planted file was deleted");
    assert!(places.planted_dir().join("f").is_file());
    assert!(places.tmp_planted().is_file());
    assert!(!places.path("created-by-install").exists());
    assert!(!places.path("created-by-uninstall").exists());
    assert!(!places.tmp().exists());

    // install-hooks: each path it touched is named, with the hint.
    assert_eq!(outcome(&report, "hooks.lifecycle.install"), "failed");
    let install = messages(&report, "hooks.lifecycle.install");
    for path in [
        places.path("created-by-install"),
        places.planted(),
        places.tmp(),
    ] {
        assert!(install.contains(&shown(&path)), "{path:?} in: {install}");
    }
    assert!(install.contains("tried to write outside its sandbox"));
    assert!(install.contains("runs the plugin unconfined"));
    assert!(
        !install.contains("entire-agent-writes-outside,"),
        "{install}"
    );

    // uninstall-hooks alone (nothing installed before).
    let id = "hooks.lifecycle.uninstall-when-not-installed";
    assert_eq!(outcome(&report, id), "failed");
    let uninstall = messages(&report, id);
    for path in [
        places.path("created-by-uninstall"),
        places.planted_dir().join("f"),
        places.tmp_planted(),
    ] {
        assert!(
            uninstall.contains(&shown(&path)),
            "{path:?} in: {uninstall}"
        );
    }

    // A case that calls neither still passes.
    assert_eq!(
        outcome(&report, "hooks.lifecycle.fresh-not-installed"),
        "passed"
    );
}

#[test]
fn no_confine_lets_the_same_plugin_change_the_machine() {
    let places = Places::new("unconfined");
    let (_, report) = places.run(&["--no-confine"]);
    assert!(places.path("created-by-install").is_file());
    assert!(places.path("created-by-uninstall").is_file());
    assert!(!places.planted().exists());
    assert!(!places.planted_dir().exists());
    assert!(places.tmp().is_file());
    assert!(!places.tmp_planted().exists());
    let install = messages(&report, "hooks.lifecycle.install");
    assert!(
        !install.contains("tried to write outside"),
        "an unconfined run reports no blocked write: {install}"
    );
}
