//! The opt-in large-transcript cases and the run's determinism.

use crate::common;

use common::{reference, run_json};
use serde_json::Value;

#[test]
fn the_60_mib_round_trip_passes_within_three_times_the_transcript_in_memory() {
    let run = run_json(
        &reference(),
        &["--large", "--only", "large.round-trip-60mib"],
        &[],
    );
    assert_eq!(run.code, 0, "{:?}", run.ids("failed"));
    assert!(
        run.ids("passed")
            .contains(&"large.round-trip-60mib".to_string())
    );
    let peak = run.report["peak_rss_bytes"]
        .as_u64()
        .expect("Linux reports VmHWM");
    assert!(peak < 3 * 60 * 1024 * 1024, "peak RSS {peak} bytes");
    let note = run.report["cases"][1]["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("over the host's 10485760-byte stdout limit"),
        "{note}"
    );
}

#[test]
fn a_large_case_catches_a_corrupting_reassembly() {
    let run = run_json(
        &reference(),
        // A warning on every release today (no release stores chunks).
        &["--strict", "--large", "--only", "large.round-trip-1mib"],
        &[(
            "ENTIRE_AGENT_REFERENCE_FAULT",
            "reassemble-trailing-newline",
        )],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.messages("large.round-trip-1mib")
            .contains("first difference at byte 1048576")
    );
}

#[test]
fn large_cases_are_opt_in() {
    let run = run_json(&reference(), &["--only", "core.detect.*"], &[]);
    let ids: Vec<&str> = run.report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert!(!ids.iter().any(|id| id.starts_with("large.")));
}

/// Removes what legitimately differs between two runs: timings, sandbox
/// paths (in commands and messages), the job count, and output sizes (a
/// plugin's stderr may name its sandbox, whose run folder carries the
/// process id: one digit more or less changes the size, as in golden.rs).
fn normalize(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in [
                "duration_ms",
                "wall_ms",
                "invocations_ms",
                "jobs",
                "peak_rss_bytes",
                "command",
                "sandbox",
                "stdout_bytes",
                "stderr_bytes",
            ] {
                map.remove(key);
            }
            map.values_mut().for_each(normalize);
        }
        Value::Array(items) => items.iter_mut().for_each(normalize),
        Value::String(text) => {
            // Sandbox directories have random names, inside a run's folder
            // named after the time (agent-conform-runs/<plugin>-<time>-<pid>),
            // and plugins derive names from them (a session directory keyed
            // by the repository path); the rest of a path stays.
            let mut after_runs = false;
            let parts: Vec<&str> = text
                .split('/')
                .map(|seg| {
                    let run_folder =
                        std::mem::replace(&mut after_runs, seg == "agent-conform-runs");
                    if run_folder || seg.contains("agent-conform-") {
                        "SANDBOX"
                    } else {
                        seg
                    }
                })
                .collect();
            *text = parts.join("/");
        }
        _ => {}
    }
}

#[test]
fn one_job_and_the_default_give_the_same_report_apart_from_timings() {
    let cases = common::root().join("reference-plugin/conformance");
    let cases = cases.to_string_lossy();
    let mut one = run_json(
        &reference(),
        &["--seed", "11", "--jobs", "1", "--cases", &cases],
        &[],
    )
    .report;
    let mut many = run_json(&reference(), &["--seed", "11", "--cases", &cases], &[]).report;
    normalize(&mut one);
    normalize(&mut many);
    assert_eq!(one, many);
}
