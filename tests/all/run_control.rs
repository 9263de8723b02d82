//! What stops a run early (a subcommand that timed out; `--fail-fast`) and
//! how a plugin is found by name on PATH. No timing assertions: the tests
//! count the invocations a plugin saw and the outcomes the report gives.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::Value;

/// The cases of a report, by id.
fn cases(report: &Value) -> BTreeMap<String, Value> {
    report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| (c["id"].as_str().unwrap_or_default().to_string(), c.clone()))
        .collect()
}

/// The subcommands (first arguments) of the timed-out steps of a case.
fn timed_out(case: &Value) -> Vec<String> {
    case["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["termination"] == "timed-out")
        .map(|s| {
            s["args"][0]
                .as_str()
                .unwrap_or("(no subcommand)")
                .to_string()
        })
        .collect()
}

/// Runs the plugin that hangs on everything but `info`; returns the report
/// and the subcommands it was called with (one line per call). The counter
/// file lives outside the sandbox, so the callers pass `--no-confine`.
fn run_hanging(args: &[&str]) -> (common::Run, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("calls");
    let counter_text = counter.display().to_string();
    let plugin = common::plugin("entire-agent-hang-all");
    let run = common::run_json(
        &plugin,
        args,
        &[("HANG_COUNTER_FILE", counter_text.as_str())],
    );
    let calls = std::fs::read_to_string(&counter).unwrap_or_default();
    // The gate's probe of a subcommand that cannot exist is the harness's
    // own question (bounded, never a finding: the host never asks it), not
    // a call of any case.
    let probe = "agent-conform-no-such-subcommand-";
    let calls = calls.lines().filter(|c| !c.starts_with(probe));
    (run, calls.map(str::to_string).collect())
}

#[test]
fn a_subcommand_that_timed_out_is_not_called_again() {
    // One job: every hanging subcommand is called exactly once, in the first
    // case that needs it; a round trip stops at its own first timeout and
    // the other round trip is not run.
    let only = [
        "--only",
        "core.chunk.generated-jsonl",
        "--only",
        "core.chunk.round-trip",
        "--only",
        "core.reassemble.*",
    ];
    // --pedantic: the reassemble cases are protocol-only (never-sent inputs).
    let mut args = vec!["--timeout", "0.5", "-j", "1", "--no-confine", "--pedantic"];
    args.extend(only);
    let (run, mut calls) = run_hanging(&args);
    calls.sort();
    assert_eq!(calls, ["chunk-transcript", "reassemble-transcript"]);
    // Of the two round trips, the one that ran first (longest work first,
    // so not necessarily the first in the report) fails with its one
    // timed-out call; the other is not run and names it.
    let cases = cases(&run.report);
    let trips = ["core.chunk.generated-jsonl", "core.chunk.round-trip"];
    let failed: Vec<&str> = trips
        .into_iter()
        .filter(|id| cases[*id]["outcome"]["kind"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    let first = &cases[failed[0]];
    assert_eq!(timed_out(first), ["chunk-transcript"]);
    assert_eq!(first["steps"].as_array().map(Vec::len), Some(1));
    let other = trips
        .into_iter()
        .find(|id| *id != failed[0])
        .unwrap_or_default();
    assert_eq!(cases[other]["outcome"]["kind"], "not_run");
    let reason = cases[other]["outcome"]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("`chunk-transcript` timed out") && reason.contains(failed[0]),
        "{reason}"
    );
    let reassemble: Vec<&Value> = cases
        .iter()
        .filter(|(id, _)| id.starts_with("core.reassemble."))
        .map(|(_, c)| c)
        .collect();
    let failed = reassemble
        .iter()
        .filter(|c| c["outcome"]["kind"] == "failed")
        .count();
    assert_eq!(failed, 1, "one reassemble case fails, the rest are not run");
    assert!(
        reassemble
            .iter()
            .all(|c| ["failed", "not_run"].contains(&c["outcome"]["kind"].as_str().unwrap_or(""))),
        "{reassemble:?}"
    );
}

#[test]
fn a_plugin_that_hangs_on_everything_but_info_waits_once_per_subcommand_and_job() {
    let jobs = 2;
    // --pedantic: every case runs, the protocol-only ones too.
    let (run, calls) = run_hanging(&["--timeout", "0.5", "-j", "2", "--no-confine", "--pedantic"]);
    assert_eq!(run.code, 1);
    let mut per_subcommand: BTreeMap<&str, usize> = BTreeMap::new();
    for call in &calls {
        *per_subcommand.entry(call).or_default() += 1;
    }
    assert!(
        per_subcommand.len() >= 10,
        "the core subcommands were all tried: {per_subcommand:?}"
    );
    // Two jobs may both be waiting on a subcommand before it first times
    // out; never more than that.
    assert!(
        per_subcommand.values().all(|&n| n <= jobs),
        "{per_subcommand:?}"
    );
    // Every call made is reported as the timeout it was, in exactly one step.
    let cases = cases(&run.report);
    let reported: usize = cases.values().map(|c| timed_out(c).len()).sum();
    assert_eq!(reported, calls.len());
    // A case's units (a round trip's inputs) run side by side like cases:
    // with two jobs, at most two of its calls wait on a hanging subcommand.
    assert!(cases.values().all(|c| timed_out(c).len() <= jobs));
    // Every case not run names a case where its subcommand timed out.
    let not_run: Vec<&Value> = cases
        .values()
        .filter(|c| c["outcome"]["kind"] == "not_run")
        .collect();
    assert!(
        not_run.len() > 20,
        "most cases are not run: {}",
        not_run.len()
    );
    for case in not_run {
        let reason = case["outcome"]["reason"].as_str().unwrap_or_default();
        let named = cases
            .iter()
            .find(|(id, _)| reason.contains(&format!("in {id})")))
            .unwrap_or_else(|| panic!("{reason} names no case"));
        let subcommands = timed_out(named.1);
        assert!(!subcommands.is_empty(), "{reason}");
        assert!(
            subcommands
                .iter()
                .all(|s| reason.contains(&format!("`{s}`"))),
            "{reason}"
        );
        assert!(case["sandbox"].is_null(), "no sandbox is kept for {reason}");
    }
}

#[test]
fn fail_fast_stops_at_the_first_failed_case() {
    let plugin = common::reference();
    let fault = [(
        "ENTIRE_AGENT_REFERENCE_FAULT",
        "read-transcript-adds-newline",
    )];
    let run = common::run_json(&plugin, &["-j", "1", "--fail-fast"], &fault);
    assert_eq!(run.code, 1);
    let failed = run.ids("failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    // Cases run longest first, so report order is not run order: what
    // holds is that the rest, whatever their place, were not run and say why.
    let list = run.report["cases"].as_array().cloned().unwrap_or_default();
    let not_run: Vec<&Value> = list
        .iter()
        .filter(|c| c["outcome"]["kind"] == "not_run")
        .collect();
    assert!(!not_run.is_empty());
    for case in not_run {
        let reason = case["outcome"]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("--fail-fast") && reason.contains(failed[0].as_str()),
            "{reason}"
        );
    }
    // Without the flag the same plugin runs everything.
    let all = common::run_json(&plugin, &["-j", "1"], &fault);
    assert!(all.ids("not_run").is_empty());
    assert!(all.ids("passed").len() > run.ids("passed").len());
}

/// PATH with `dir` first, then the test's own PATH (for git and sh).
fn path_with(dirs: &[&Path]) -> std::ffi::OsString {
    let original = std::env::var_os("PATH").unwrap_or_default();
    let mut all: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    all.extend(std::env::split_paths(&original));
    std::env::join_paths(all).unwrap()
}

#[test]
fn a_plugin_on_path_is_found_by_name_as_the_host_finds_it() {
    let plugin = common::reference();
    let dir = plugin.parent().unwrap();
    // An earlier PATH entry of the same name that cannot run does not win.
    let earlier = tempfile::tempdir().unwrap();
    std::fs::write(
        earlier.path().join("entire-agent-reference"),
        "not a program",
    )
    .unwrap();
    let path = path_with(&[earlier.path(), dir]);
    for name in ["entire-agent-reference", "reference"] {
        let out = common::harness()
            .env("PATH", &path)
            .args(["--only", "core.info.*", name])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        let first = text.lines().next().unwrap_or_default();
        assert!(
            first.ends_with(&plugin.display().to_string()),
            "the first line names the resolved file: {first}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_name_not_on_path_exits_2_and_lists_what_is_there() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("entire-agent-other");
    std::fs::write(&other, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o755)).unwrap();
    let plain = dir.path().join("entire-agent-plain");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    let path = path_with(&[dir.path()]);
    common::harness()
        .env("PATH", &path)
        .arg("missing")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("no entire-agent-missing on PATH")
                .and(predicate::str::contains(other.display().to_string()))
                .and(predicate::str::contains("agent-conform discover")),
        );
    common::harness()
        .env("PATH", &path)
        .arg("entire-agent-plain")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not executable"));
}

/// The sandboxes left on disk after a run (in its folder of the sandbox
/// directory) are exactly the ones the report names: those of the cases that
/// did not pass. Passed and skipped cases leave none, and neither do the
/// sandboxes made ahead for cases that `--fail-fast` then stopped.
#[test]
fn the_sandboxes_left_are_exactly_those_the_report_names() {
    let plugin = common::reference();
    let fault = [(
        "ENTIRE_AGENT_REFERENCE_FAULT",
        "read-transcript-adds-newline",
    )];
    for extra in [&["-j", "2"][..], &["-j", "1", "--fail-fast"][..]] {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().to_str().expect("utf-8 temp dir");
        let mut args = vec!["--sandbox-dir", base];
        args.extend_from_slice(extra);
        let run = common::run_json(&plugin, &args, &fault);
        assert_eq!(run.code, 1, "{extra:?}");
        let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
        let named: std::collections::BTreeSet<PathBuf> = cases
            .iter()
            .filter_map(|c| c["sandbox"].as_str().map(PathBuf::from))
            .collect();
        // One folder for the run, under agent-conform-runs/, holding its
        // marker and the kept sandboxes.
        let runs: Vec<PathBuf> = std::fs::read_dir(dir.path().join("agent-conform-runs"))
            .expect("the runs' folder")
            .map(|e| e.expect("entry").path())
            .collect();
        assert_eq!(runs.len(), 1, "{extra:?}: {runs:?}");
        let on_disk: std::collections::BTreeSet<PathBuf> = std::fs::read_dir(&runs[0])
            .expect("the run's folder")
            .map(|e| e.expect("entry").path().canonicalize().expect("path"))
            .filter(|p| !p.ends_with(".agent-conform-run"))
            .collect();
        assert!(
            !named.is_empty(),
            "{extra:?}: a failed case keeps its sandbox"
        );
        assert_eq!(on_disk, named, "{extra:?}");
        for case in &cases {
            let kind = case["outcome"]["kind"].as_str().unwrap_or_default();
            if matches!(kind, "passed" | "skipped") {
                assert!(case["sandbox"].is_null(), "{extra:?}: {}", case["id"]);
            }
        }
        assert!(
            cases.iter().any(|c| c["outcome"]["kind"] == "skipped"),
            "the reference has no samples, so its own-samples round trip is skipped"
        );
    }
}
