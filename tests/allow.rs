//! `--allow CODE` and `allow:` in a plugin's own case files: a finding of
//! the allowed kind becomes a note that says who allowed it, and the
//! outcome and the exit code follow; an unknown code, or an `allow:` with
//! no reason, is a usage error (exit 2) before anything runs.
//!
//! The finding: the reference plugin's `detect-hang` fault makes `detect`
//! sleep an hour, so `core.detect.schema` times out (code `timeout`).

mod common;

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
