//! An interrupted run (Ctrl-C, a cancelled CI job) leaves nothing behind:
//! the plugin calls running at that moment are killed (each runs in a
//! process group of its own, which the terminal's Ctrl-C does not reach),
//! every sandbox is deleted, and the harness exits with 128 + the signal's
//! number. No timing assertions: the test waits for the plugin to start and
//! for its processes to be gone, however long that takes.

#![cfg(target_os = "linux")]

use crate::common;

use common::{dead, wait_for};

use std::path::Path;
use std::process::Stdio;

/// The process ids the hanging plugin wrote, one per call.
fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[test]
fn an_interrupted_run_kills_its_plugin_calls_and_deletes_its_sandboxes() {
    for (signal, name, code) in [
        (libc::SIGINT, "SIGINT", 130),
        (libc::SIGTERM, "SIGTERM", 143),
    ] {
        let sandboxes = tempfile::tempdir().expect("temp dir");
        let scratch = tempfile::tempdir().expect("temp dir");
        let pid_file = scratch.path().join("pids");
        // The pid file is outside the sandbox: unconfined.
        let child = common::harness()
            .args(["-q", "--no-confine", "--sandbox-dir"])
            .arg(sandboxes.path())
            .arg(common::plugin("entire-agent-hang-all"))
            .env("HANG_PID_FILE", &pid_file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agent-conform starts");
        wait_for("a plugin call started", || !pids(&pid_file).is_empty());
        let harness = i32::try_from(child.id()).expect("pid");
        // SAFETY: kill(2) signals the harness we started; no memory involved.
        assert_eq!(unsafe { libc::kill(harness, signal) }, 0);
        let out = child.wait_with_output().expect("agent-conform ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("interrupted ({name})")),
            "{name}: {stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "{name}: no report after an interruption"
        );
        for pid in pids(&pid_file) {
            wait_for(&format!("{name}: plugin process {pid} gone"), || dead(pid));
        }
        let left: Vec<_> = std::fs::read_dir(sandboxes.path())
            .expect("sandbox dir")
            .collect();
        assert!(left.is_empty(), "{name}: sandboxes left: {left:?}");
    }
}
