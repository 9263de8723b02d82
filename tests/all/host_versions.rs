//! The verdicts by host release (`--host-version`): each example of a
//! release-dependent rule gets its verdict on the releases where it holds, and none elsewhere.
//! Each runs the gate and the one case concerned, on the reference plugin
//! with one fault (or a renamed copy of it).

use crate::common;

use std::path::PathBuf;

use common::{harness, reference, run_json};

/// Runs the reference with a fault, judged for `hosts`, the gate and the
/// cases matching `only`.
fn judged(fault: &str, only: &str, hosts: Option<&str>) -> common::Run {
    let mut args = vec!["--only", only];
    if let Some(hosts) = hosts {
        args.extend(["--host-version", hosts]);
    }
    let env = [("ENTIRE_AGENT_REFERENCE_FAULT", fault)];
    run_json(&reference(), &args, &env)
}

/// The kind of a case's outcome.
fn kind(run: &common::Run, id: &str) -> String {
    run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["id"] == id)
        .map(|c| {
            c["outcome"]["kind"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_else(|| panic!("no case {id}"))
}

/// A copy of the reference plugin under another file name.
fn renamed(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    let copy = dir.path().join(name);
    std::fs::copy(reference(), &copy).expect("the reference plugin copies");
    copy
}

#[test]
fn built_in_names_are_named_by_release() {
    let dir = tempfile::tempdir().expect("a directory");
    let id = "discovery.not-built-in";
    let at = |name: &str, hosts: &str| {
        let plugin = renamed(&dir, &format!("entire-agent-{name}"));
        run_json(&plugin, &["--only", id, "--host-version", hosts], &[])
    };
    // antigravity and vogon are built in (they were not said before).
    let antigravity = at("antigravity", "*");
    assert_eq!(kind(&antigravity, id), "warning");
    assert!(
        antigravity
            .messages(id)
            .starts_with("on entire 0.12.x and perhaps 0.11.x")
    );
    assert_eq!(kind(&at("antigravity", "<0.11"), id), "passed");
    assert_eq!(kind(&at("vogon", ">=0.12"), id), "warning");
    // codex from 0.5.2.
    assert_eq!(kind(&at("codex", "<0.5.2"), id), "passed");
    let codex = at("codex", "*");
    assert!(codex.messages(id).starts_with("on entire 0.5.2–0.12.x"));
}

#[test]
fn an_info_past_the_hooks_deadline_fails_where_hooks_have_it() {
    let id = "discovery.info-time";
    let all = judged("info-past-hook-deadline", id, None);
    assert_eq!(kind(&all, id), "failed");
    let said = all.messages(id);
    assert!(
        said.contains("every hook of this plugin fails: unknown agent") && said.contains(" s and "),
        "the figures of both fresh processes are shown: {said}"
    );
    // The releases before the 5 s deadline give info discovery's 10 s.
    let oldest = judged("info-past-hook-deadline", id, Some("<0.5.2"));
    assert_eq!(kind(&oldest, id), "passed");
}

#[test]
fn a_built_in_type_fails_resume_and_rewind() {
    let id = "discovery.info-type";
    let run = judged("info-built-in-type", id, None);
    assert_eq!(kind(&run, id), "failed");
    assert!(
        run.messages(id)
            .contains("\"Claude Code\", the type of the built-in agent claude-code")
    );
    assert_eq!(kind(&judged("", id, None), id), "passed");
}

#[test]
fn the_manual_uninstall_and_hosts_without_cli_version() {
    let id = "hooks.lifecycle.manual-uninstall";
    let all = judged("uninstall-needs-cli-version", id, None);
    assert_eq!(kind(&all, id), "failed");
    assert!(
        all.messages(id)
            .starts_with("on entire 0.5.0–0.5.6 (on 0.6.0–0.12.x a warning at most)")
    );
    // Hosts that pass ENTIRE_CLI_VERSION: only the printed manual command lacks it.
    assert_eq!(
        kind(
            &judged("uninstall-needs-cli-version", id, Some(">=0.6")),
            id
        ),
        "warning"
    );
    // A detect that needs it fails on the oldest releases, and is not judged on the others.
    let id = "core.without-cli-version";
    assert_eq!(
        kind(&judged("detect-needs-cli-version", id, None), id),
        "failed"
    );
    assert_eq!(
        kind(&judged("detect-needs-cli-version", id, Some(">=0.6")), id),
        "skipped"
    );
}

#[test]
fn an_info_that_fails_outside_a_repository_warns() {
    let id = "core.listing-outside-repository";
    let run = judged("info-needs-repo-root", id, None);
    assert_eq!(kind(&run, id), "warning");
    assert!(
        run.messages(id)
            .contains("called as a listing or setup command run outside a repository")
    );
}

#[test]
fn hook_input_and_local_dev_as_each_release_sends_them() {
    let id = "hooks.parse-hook.whole-stdin";
    let all = judged("parse-hook-rejects-trailing-newline", id, None);
    assert_eq!(kind(&all, id), "failed");
    assert!(all.messages(id).starts_with("on entire 0.5.0–0.8.1"));
    let newer = judged("parse-hook-rejects-trailing-newline", id, Some(">=0.9"));
    assert_eq!(kind(&newer, id), "skipped");
    let id = "hooks.lifecycle.local-dev";
    assert_eq!(
        kind(&judged("install-rejects-local-dev", id, None), id),
        "failed"
    );
    assert_eq!(
        kind(&judged("install-rejects-local-dev", id, Some(">=0.11")), id),
        "skipped"
    );
}

#[test]
fn the_range_is_named_in_the_reports_and_a_bad_one_is_refused() {
    let run = run_json(
        &reference(),
        &["--only", "discovery.info", "--host-version", ">=0.9, <0.12"],
        &[],
    );
    assert_eq!(run.report["hosts"]["requirement"], ">=0.9, <0.12");
    assert_eq!(run.report["hosts"]["releases"], "0.9.0–0.11.x");
    let human = harness()
        .args(["--only", "discovery.info", "--host-version", "0.10.3"])
        .arg(reference())
        .output()
        .expect("agent-conform runs");
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("host: entire 0.10.3 (--host-version 0.10.3)"),
        "{text}"
    );
    let bad = harness()
        .args(["--host-version", "newest"])
        .arg(reference())
        .output()
        .expect("agent-conform runs");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("is not a host requirement") && err.contains("--host-version '>=0.9, <0.12'"),
        "{err}"
    );
}

#[test]
fn own_cases_pin_their_releases() {
    let dir = tempfile::tempdir().expect("a directory");
    let cases = "cases:\n  - id: mine.newest-only\n    title: detect answers\n    host_version: '>=0.12'\n    steps:\n      - args: [detect]\n        expect:\n          exit: failure\n";
    std::fs::write(dir.path().join("mine.yaml"), cases).expect("the case file is written");
    let at = |hosts: &str| {
        let dirname = dir.path().to_string_lossy().into_owned();
        let args = [
            "--cases",
            &dirname,
            "--only",
            "mine.*",
            "--host-version",
            hosts,
        ];
        run_json(&reference(), &args, &[])
    };
    let newest = at(">=0.11");
    assert_eq!(kind(&newest, "mine.newest-only"), "failed");
    assert!(
        newest
            .messages("mine.newest-only")
            .starts_with("on entire 0.12.x: ")
    );
    assert_eq!(kind(&at("<0.12"), "mine.newest-only"), "skipped");
    let bad = "cases:\n  - id: mine.bad\n    title: t\n    host_version: 'before nothing'\n    steps:\n      - args: [detect]\n";
    std::fs::write(dir.path().join("mine.yaml"), bad).expect("the case file is written");
    let out = harness()
        .arg("--cases")
        .arg(dir.path())
        .arg(reference())
        .output()
        .expect("agent-conform runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("host_version"));
}
