//! Misuse of agent-conform itself: one sentence, a hint, exit 2.

use crate::common;

use assert_cmd::prelude::*;
use predicates::prelude::*;

#[test]
fn a_missing_plugin_exits_2_with_one_sentence_and_a_hint() {
    common::harness()
        .arg("./no-such-file")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("error: no such file: ./no-such-file")
                .and(predicate::str::contains("hint:")),
        );
}

#[test]
fn a_directory_or_a_file_without_execute_bit_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    common::harness()
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
    let file = dir.path().join("entire-agent-x");
    std::fs::write(&file, "#!/bin/sh\n").unwrap();
    common::harness().arg(&file).assert().code(2).stderr(
        predicate::str::contains("not executable").and(predicate::str::contains("chmod +x")),
    );
}

#[test]
fn a_bad_flag_exits_2() {
    common::harness().args(["--bogus", "x"]).assert().code(2);
    common::harness()
        .args(["--timeout", "abc", "x"])
        .assert()
        .code(2);
    common::harness()
        .args(["--color", "sometimes", "x"])
        .assert()
        .code(2);
    common::harness()
        .args(["--max-write", "0", "x"])
        .assert()
        .code(2);
}

#[test]
fn clean_of_a_missing_directory_exits_2_with_a_hint() {
    common::harness()
        .args(["clean", "--sandbox-dir", "./no-such-dir"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--sandbox-dir ./no-such-dir is not a directory")
                .and(predicate::str::contains("hint:")),
        );
}

#[test]
fn help_shows_examples_for_terminal_and_ci() {
    common::harness()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("In CI").and(predicate::str::contains("--strict")));
}

#[test]
fn schema_and_explain_and_list() {
    common::harness()
        .args(["schema", "event"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"hostInteger\""));
    common::harness()
        .args(["explain", "core.chunk.round-trip"])
        .assert()
        .success()
        .stdout(predicate::str::contains("reassemble-transcript"));
    // The inputs a case sends: short ones inline, placeholders unfilled.
    common::harness()
        .args(["explain", "core.reassemble.invalid-base64"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            r#"stdin: {"chunks":["eyJ0eXBlIjoidXNlciJ9","not base64!"]}"#,
        ));
    common::harness()
        .args(["explain", "core.chunk.roundtrip"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean"));
    common::harness()
        .args(["list", "--capability", "core"])
        .assert()
        .success()
        .stdout(predicate::str::contains("core.info.identity"));
}

#[test]
fn junit_and_github_outputs_are_written_even_when_info_fails() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("report.xml");
    let summary = dir.path().join("summary.md");
    let out = common::harness()
        .env("PATH", common::fast_python_path())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .arg("--junit")
        .arg(&junit)
        .arg("--sandbox-dir")
        .arg(dir.path())
        .arg(common::plugin("broken/entire-agent-bad-info"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("::error title=discovery.info::"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<testsuite name=\"core\"") && xml.contains("discovery.info"));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.contains("| capability |") || md.contains("| Capability |"),
        "{md}"
    );
}

/// An output path whose directory is missing is refused before any plugin
/// runs: exit 2 at once, one sentence and a hint.
#[test]
fn a_junit_path_in_a_missing_directory_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("no-such-dir").join("report.xml");
    let out = common::harness()
        .arg("--junit")
        .arg(&junit)
        .arg(common::plugin("broken/entire-agent-hang"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(stderr.contains("hint: create it first"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn completions_are_printed() {
    common::harness()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(predicate::str::contains("agent-conform"));
}

#[test]
fn only_with_an_unknown_pattern_exits_2_with_a_suggestion() {
    common::harness()
        .args(["--only", "core.chnk.*"])
        .arg(common::plugin("entire-agent-pyconform"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean core.chunk."));
}
