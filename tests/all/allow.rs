//! `--allow CODE` and `allow:` in a plugin's own case files: a finding of
//! the allowed kind becomes a note that says who allowed it, and the
//! outcome and the exit code follow; an unknown code, or an `allow:` with
//! no reason, is a usage error (exit 2) before anything runs.
//!
//! The finding: the reference plugin's `detect-hang` fault makes `detect`
//! sleep an hour, so `core.detect.schema` times out (code `timeout`).

use crate::common;

use std::path::Path;

use serde_json::Value;

const HANG: (&str, &str) = ("ENTIRE_AGENT_REFERENCE_FAULT", "detect-hang");
const CASE: &str = "core.detect.schema";

/// The reference with `detect` hanging, only `core.detect.schema`, a short
/// deadline, and `extra` arguments.
fn run_hanging(extra: &[&str]) -> common::Run {
    let mut args = vec!["--timeout", "1", "--only", "core.detect.schema"];
    args.extend_from_slice(extra);
    common::run_json(&common::reference(), &args, &[HANG])
}

/// The findings (severity, code, message) of one case.
fn findings(run: &common::Run, id: &str) -> Vec<(String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"] == id)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
        .map(|f| (text(&f["severity"]), text(&f["code"]), text(&f["message"])))
        .collect()
}

/// A `--cases` directory holding one case file with this text.
fn case_dir(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("own.yaml"), text).expect("write");
    dir
}

fn path(dir: &tempfile::TempDir) -> &str {
    dir.path().to_str().expect("a UTF-8 path")
}

#[test]
fn without_allow_the_timeout_fails_the_run() {
    let run = run_hanging(&[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.ids("failed"), [CASE]);
    let found = findings(&run, CASE);
    assert!(
        found
            .iter()
            .any(|(s, c, _)| s == "failure" && c == "timeout"),
        "{found:?}"
    );
}

#[test]
fn allow_on_the_command_line_makes_it_a_note_and_the_run_passes() {
    let run = run_hanging(&["--allow", "timeout"]);
    assert_eq!(run.code, 0, "{:?}", findings(&run, CASE));
    assert!(run.ids("failed").is_empty());
    assert_eq!(run.ids("note"), [CASE]);
    let found = findings(&run, CASE);
    let (severity, code, message) = found
        .iter()
        .find(|(_, c, _)| c == "timeout")
        .expect("the timeout is still reported");
    assert_eq!(severity, "note");
    assert_eq!(code, "timeout", "the code stays");
    assert!(
        message.ends_with("(allowed by --allow timeout)"),
        "{message}"
    );
}

#[test]
fn another_code_allows_nothing_here() {
    let run = run_hanging(&["--allow", "crashed"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.ids("failed"), [CASE]);
}

#[test]
fn allow_in_an_own_case_file_says_its_reason() {
    let dir = case_dir(
        "allow:\n  - code: timeout\n    reason: this agent's detect waits for its daemon\n",
    );
    let run = run_hanging(&["--cases", path(&dir)]);
    assert_eq!(run.code, 0, "{:?}", findings(&run, CASE));
    assert_eq!(run.ids("note"), [CASE]);
    let found = findings(&run, CASE);
    assert!(
        found.iter().any(|(s, c, m)| s == "note"
            && c == "timeout"
            && m.ends_with("(allowed: this agent's detect waits for its daemon)")),
        "{found:?}"
    );
}

#[test]
fn junit_carries_the_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("junit.xml");
    let junit_arg = junit.to_str().expect("UTF-8");
    let run = run_hanging(&["--junit", junit_arg]);
    assert_eq!(run.code, 1);
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    let doc = roxmltree::Document::parse(&xml).expect("XML");
    let failure = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(CASE))
        .flat_map(|n| n.children())
        .find(|n| n.has_tag_name("failure"))
        .expect("a failure");
    let message = failure.attribute("message").unwrap_or_default();
    assert!(message.ends_with("[timeout]"), "{message}");
    assert!(
        failure.text().unwrap_or_default().contains("[timeout]"),
        "the body names the code too"
    );
}

/// Runs the harness as a user would and returns (exit code, stderr).
fn usage(args: &[&str]) -> (Option<i32>, String) {
    let out = common::harness()
        .args(args)
        .arg(common::reference())
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_unknown_code_is_a_usage_error_listing_the_codes() {
    let (code, stderr) = usage(&["--allow", "time-out"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("error: --allow \"time-out\" is not a finding code"),
        "{stderr}"
    );
    assert!(stderr.contains("hint:") && stderr.contains("timeout, output-flood"));
}

#[test]
fn a_case_file_allow_needs_a_known_code_and_a_reason() {
    for (text, said) in [
        (
            "allow:\n  - code: slow\n    reason: r\n",
            "allow: \"slow\" is not a finding code",
        ),
        ("allow:\n  - code: timeout\n", "reason"),
        (
            "allow:\n  - code: timeout\n    reason: \"  \"\n",
            "the reason is empty",
        ),
    ] {
        let dir = case_dir(text);
        let (code, stderr) = usage(&["--cases", path(&dir)]);
        assert_eq!(code, Some(2), "{text}: {stderr}");
        assert!(stderr.contains(said), "{text}: {stderr}");
        let file = Path::new(path(&dir)).join("own.yaml");
        assert!(stderr.contains(&file.display().to_string()), "{stderr}");
    }
}

#[test]
fn an_allowance_scoped_to_cases_allows_only_there() {
    let run = run_hanging(&["--allow", "timeout@core.detect.schema"]);
    assert_eq!(run.code, 0, "{:?}", findings(&run, CASE));
    assert_eq!(run.ids("note"), [CASE]);
    let elsewhere = run_hanging(&["--allow", "timeout@core.info.*"]);
    assert_eq!(elsewhere.code, 1);
    assert_eq!(elsewhere.ids("failed"), [CASE]);
    let dir = case_dir(
        "allow:\n  - code: timeout\n    case: \"core.detect.s*\"\n    reason: its daemon\n",
    );
    let file = run_hanging(&["--cases", path(&dir)]);
    assert_eq!(file.ids("note"), [CASE]);
    let (code, stderr) = usage(&["--allow", "timeout@core.no-such-case"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no case id matches"), "{stderr}");
}

/// `--rerun-failed` reruns with the failed run's seed and treats allowed
/// findings as that run did; a case that passed only by `--allow` is still
/// there to rerun.
#[test]
fn a_rerun_takes_the_failed_runs_seed_and_allowances() {
    let cache = tempfile::tempdir().expect("a cache directory");
    let run = |extra: &[&str]| {
        let out = common::harness()
            .env("XDG_CACHE_HOME", cache.path())
            .env(HANG.0, HANG.1)
            .args(["--format", "json", "--timeout", "1", "--only", CASE])
            .args(extra)
            .arg(common::reference())
            .output()
            .expect("agent-conform runs");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), report["seed"].as_u64(), stderr)
    };
    let (code, seed, _) = run(&["--allow", "timeout"]);
    assert_eq!(code, Some(0));
    let seed = seed.expect("the report's seed");
    let (code, again, stderr) = run(&["--rerun-failed"]);
    assert_eq!(code, Some(0), "allowed as the run before: {stderr}");
    assert_eq!(again, Some(seed), "{stderr}");
    assert!(stderr.contains(&format!("seed {seed}")), "{stderr}");
    assert!(stderr.contains("--allow timeout"), "{stderr}");
    assert!(!stderr.contains("nothing to rerun"), "{stderr}");
}

/// In a run of several plugins each takes its own cases (`--cases
/// NAME=DIR`): the reference its conformance, and a plugin with no cases of
/// its own none of them; a plain directory with several plugins is refused.
#[test]
fn several_plugins_take_only_their_own_cases() {
    let own = common::root().join("reference-plugin/conformance");
    let own = format!("reference={}", own.display());
    let wild = common::root().join("tests/plugins/wild/entire-agent-repodetect");
    let plugins = [common::reference(), wild];
    let args = [
        "--only",
        "reference.detect.*",
        "--only",
        "core.info.identity",
        "--cases",
        &own,
    ];
    let run = common::run_json_many(&plugins, &args, &[]);
    let ids = |k: usize| -> Vec<String> {
        run.report["plugins"][k]["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["outcome"]["kind"] != "skipped")
            .filter_map(|c| c["id"].as_str().map(str::to_string))
            .collect()
    };
    assert!(
        ids(0).contains(&"reference.detect.present".to_string()),
        "{:?}",
        ids(0)
    );
    assert!(
        ids(1).iter().all(|id| !id.starts_with("reference.")),
        "{:?}",
        ids(1)
    );
    assert!(
        ids(1).contains(&"core.info.identity".to_string()),
        "{:?}",
        ids(1)
    );
    // The samples are a plugin's own too, in either order: the round trip
    // of one plugin's samples never gets another's, nor loses its own to
    // the other's having none.
    for reversed in [false, true] {
        let mut order = plugins.to_vec();
        if reversed {
            order.reverse();
        }
        let args = ["--only", "core.chunk.own-samples", "--cases", &own];
        let run = common::run_json_many(&order, &args, &[]);
        let (reference, wild) = if reversed { (1, 0) } else { (0, 1) };
        let outcome = |k: usize| {
            run.report["plugins"][k]["cases"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["id"] == "core.chunk.own-samples")
                .map(|c| c["outcome"]["kind"].clone())
        };
        assert_ne!(
            outcome(reference),
            Some(serde_json::json!("skipped")),
            "reversed {reversed}"
        );
        assert_eq!(
            outcome(wild),
            Some(serde_json::json!("skipped")),
            "reversed {reversed}"
        );
    }
    let plain = common::root().join("reference-plugin/conformance");
    let out = common::harness()
        .arg("--cases")
        .arg(&plain)
        .args(&plugins)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("say whose cases these are"), "{stderr}");
}
