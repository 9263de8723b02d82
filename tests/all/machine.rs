//! agent-conform leaves the machine as it found it: a plugin that writes
//! without limit into its sandbox is stopped and reported, one that leaves a
//! detached process behind is reported and the process killed, and the
//! sandboxes that failing runs keep are bounded to the newest runs. No
//! timing assertions: the tests wait for what they check, however long.

#![cfg(target_os = "linux")]

use crate::common;

use common::{dead, wait_for};

use std::path::{Path, PathBuf};

/// The bytes of the files beneath `dir`.
fn size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The run folders under `base` (see `src/running/runs.rs`).
fn run_folders(base: &Path) -> Vec<PathBuf> {
    let mut runs: Vec<PathBuf> = std::fs::read_dir(base.join("agent-conform-runs"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    runs.sort();
    runs
}

#[test]
fn a_plugin_that_writes_a_gibibyte_is_stopped_at_the_limit_and_reported() {
    let base = tempfile::tempdir_in(agent_conform::api::sandbox::default_base()).expect("dir");
    let dir = base.path().to_str().expect("utf-8");
    let plugin = common::plugin("broken/entire-agent-writes-big");
    let only = ["--sandbox-dir", dir, "--only", "core.detect.schema"];
    let run = common::run_json(&plugin, &only, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.ids("failed"), ["core.detect.schema"]);
    let message = run.messages("core.detect.schema");
    assert!(
        message.contains("/tmp/big up to 256.0 MiB") && message.contains("--max-write"),
        "{message}"
    );
    assert!(
        size(base.path()) < 1 << 20,
        "the kept sandbox does not hold the plugin's file: {} bytes",
        size(base.path())
    );
}

#[test]
fn many_files_under_the_limit_that_fill_the_sandbox_are_reported() {
    let plugin = common::plugin("broken/entire-agent-writes-big");
    let env = [("AC_WRITE_FILES", "3"), ("AC_WRITE_MIB", "2")];
    let args = ["--max-write", "4", "--only", "core.detect.schema"];
    let run = common::run_json(&plugin, &args, &env);
    assert_eq!(run.ids("failed"), ["core.detect.schema"]);
    let message = run.messages("core.detect.schema");
    assert!(
        message.contains("filled its sandbox with 6.0 MiB, over the limit of 4.0 MiB"),
        "{message}"
    );
}

#[test]
fn a_detached_process_is_reported_killed_and_left_out_of_the_reproduce_command() {
    let scratch = tempfile::tempdir().expect("dir");
    let pid_file = scratch.path().join("pids");
    let pid_text = pid_file.display().to_string();
    let plugin = common::plugin("broken/entire-agent-detaches");
    // The pid file is outside the sandbox: unconfined.
    let args = ["--no-confine", "--only", "core.detect.schema"];
    let run = common::run_json(&plugin, &args, &[("AC_DETACHED_PID_FILE", &pid_text)]);
    assert_eq!(run.ids("warning"), ["core.detect.schema"]);
    let message = run.messages("core.detect.schema");
    assert!(
        message.contains("left running after `detect` returned: `sleep 600`")
            && message.contains("the host would leave it in the user's session"),
        "{message}"
    );
    let pids: Vec<i32> = std::fs::read_to_string(&pid_file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(pids.len(), 1, "one detach per detect call: {pids:?}");
    for pid in pids {
        wait_for(&format!("the detached sleep {pid} gone"), || dead(pid));
    }
    let report = run.report.to_string();
    assert!(
        !report.contains("AGENT_CONFORM_CALL"),
        "the marker is no variable a reproduce command sets"
    );
}

#[test]
fn a_process_detached_without_the_marker_is_still_found_killed_and_reported() {
    // `env -i` clears the environment, marker included: the harness, a
    // child subreaper, still gets the orphan when its parent exits.
    let scratch = tempfile::tempdir().expect("dir");
    let pid_file = scratch.path().join("pids");
    let pid_text = pid_file.display().to_string();
    let plugin = common::plugin("broken/entire-agent-detaches-env-i");
    let args = ["--no-confine", "--only", "core.detect.schema"];
    let run = common::run_json(&plugin, &args, &[("AC_DETACHED_PID_FILE", &pid_text)]);
    assert_eq!(run.ids("warning"), ["core.detect.schema"]);
    let message = run.messages("core.detect.schema");
    assert!(
        message.contains("left running after `detect` returned: `sleep 600`"),
        "{message}"
    );
    let pids: Vec<i32> = std::fs::read_to_string(&pid_file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(pids.len(), 1, "one detach per detect call: {pids:?}");
    for pid in pids {
        wait_for(&format!("the detached sleep {pid} gone"), || dead(pid));
    }
}

#[test]
fn after_fifty_failing_runs_only_the_newest_five_keep_their_sandboxes() {
    let base = tempfile::tempdir_in(agent_conform::api::sandbox::default_base()).expect("dir");
    let dir = base.path().to_str().expect("utf-8");
    let plugin = common::reference();
    let fault = [(
        "ENTIRE_AGENT_REFERENCE_FAULT",
        "read-transcript-adds-newline",
    )];
    let only = ["--only", "core.read-transcript.raw-bytes", "-j", "1"];
    let mut args = vec!["--sandbox-dir", dir, "--keep-temp"];
    args.extend(only);
    common::run_json(&plugin, &args, &fault);
    let kept = run_folders(base.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    let mut last = None;
    for _ in 0..50 {
        let mut args = vec!["--sandbox-dir", dir];
        args.extend(only);
        let run = common::run_json(&plugin, &args, &fault);
        assert_eq!(run.code, 1);
        last = Some(run);
    }
    let folders = run_folders(base.path());
    // The --keep-temp run stays; of the others, the newest five.
    assert_eq!(folders.len(), 6, "{folders:?}");
    assert!(folders.contains(&kept[0]));
    let last = last.expect("a run");
    let sandbox = last.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|c| c["sandbox"].as_str())
        .map(PathBuf::from)
        .expect("the failed case names its sandbox");
    assert!(sandbox.join("reproduce.sh").is_file(), "{sandbox:?}");
    // `clean` removes them all, --keep-temp included, and says what it freed.
    let out = common::harness()
        .args(["clean", "--sandbox-dir", dir])
        .output()
        .expect("clean runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("removed the kept sandboxes of 6 run(s)") && text.contains("freed"),
        "{text}"
    );
    assert!(run_folders(base.path()).is_empty());
}

#[test]
fn clean_never_removes_what_the_harness_did_not_make() {
    let base = tempfile::tempdir().expect("dir");
    let runs = base.path().join("agent-conform-runs");
    let stranger = runs.join("entire-agent-x-20240101-000000-1");
    std::fs::create_dir_all(&stranger).expect("dir");
    std::fs::write(stranger.join(".agent-conform-run"), "not a marker\n").expect("file");
    let out = common::harness()
        .arg("clean")
        .arg("--sandbox-dir")
        .arg(base.path())
        .output()
        .expect("clean runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("nothing to remove"), "{text}");
    assert!(stranger.is_dir());
}
