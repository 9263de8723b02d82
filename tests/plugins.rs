//! The harness against real plugins: the reference plugin and an independent
//! Python plugin pass with --strict; one-fault plugins fail on the expected
//! case, with the reason.

mod common;

use common::{plugin, reference, run_json};

#[test]
fn the_reference_plugin_passes_strict() {
    let run = run_json(&reference(), &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert_eq!(run.code, 0);
}

#[test]
fn an_independent_python_plugin_passes_strict() {
    let run = run_json(&plugin("entire-agent-pyconform"), &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert_eq!(run.code, 0);
}

/// Runs a broken plugin and checks that `case` failed, with `needle` in its
/// findings, and that the run exits 1.
fn fails_on(name: &str, args: &[&str], case: &str, needle: &str) {
    let run = run_json(&plugin(&format!("broken/entire-agent-{name}")), args, &[]);
    assert_eq!(run.code, 1, "{name}: exit code");
    assert!(
        run.ids("failed").contains(&case.to_string()),
        "{name}: {case} did not fail; failed: {:?}",
        run.ids("failed")
    );
    let messages = run.messages(case);
    assert!(messages.contains(needle), "{name}: {case}: {messages}");
}

#[test]
fn bad_info_fails_the_gate_and_nothing_else_runs() {
    fails_on("bad-info", &[], "discovery.info", "/protocol_version");
    let run = run_json(&plugin("broken/entire-agent-bad-info"), &[], &[]);
    assert_eq!(run.ids("passed"), Vec::<String>::new());
    assert!(run.ids("not_run").len() > 20);
}

#[test]
fn a_wrong_round_trip_fails() {
    fails_on(
        "bad-roundtrip",
        &[],
        "core.chunk.round-trip",
        "first difference at byte",
    );
}

#[test]
fn an_unknown_subcommand_answered_with_exit_0_fails() {
    fails_on(
        "unknown-ok",
        &[],
        "core.errors.unknown-subcommand",
        "exited 0",
    );
}

#[test]
fn a_hang_is_reported_as_a_timeout() {
    fails_on(
        "hang",
        &["--timeout", "2"],
        "core.detect.schema",
        "timed out after 2 s",
    );
}

#[test]
fn a_flood_of_stdout_is_reported_with_the_hosts_limit() {
    fails_on("flood", &[], "core.detect.schema", "10485760 bytes");
}

#[test]
fn a_silent_error_fails() {
    fails_on(
        "silent-error",
        &[],
        "core.errors.invalid-json.get-session-id",
        "nothing on stderr",
    );
}

#[test]
fn trailing_garbage_fails() {
    fails_on(
        "garbage",
        &[],
        "core.detect.schema",
        "more than one JSON value",
    );
}

#[test]
fn a_plugin_that_ignores_stdin_does_not_crash_the_harness() {
    fails_on(
        "early-exit",
        &[],
        "core.get-session-id.from-input",
        "/session_id",
    );
}
