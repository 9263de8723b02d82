//! The JSON report against `schemas/report.json`: hand-made runs
//! (tests/common/hand_made.rs), what the schema rejects, and the reports of
//! real runs of the built binary.

use crate::common;

use std::path::Path;

use common::hand_made::*;
use common::report_schema::{assert_valid, schemas};
use serde_json::{Value, json};

#[test]
fn hand_made_json_reports_match_the_schema() {
    let schemas = schemas();
    for (what, run) in [
        ("passing", passing_run()),
        ("failing", failing_run()),
        ("mixed", mixed_run()),
        ("gate", gate_run()),
        ("warning", warning_run()),
    ] {
        for strict in [false, true] {
            let text = agent_conform::api::json::render(&run, strict);
            let doc: Value = serde_json::from_str(&text).unwrap();
            assert_valid(&schemas, &doc, what);
        }
    }
}

#[test]
fn the_schema_rejects_what_the_report_never_holds() {
    let schemas = schemas();
    let run = mixed_run();
    let good = agent_conform::api::json::document(&run, false);
    let mut unknown = good.clone();
    unknown["cases"][0]["surprise"] = json!(1);
    assert!(!schemas.violations("report", &unknown).is_empty());
    let mut no_reason = good.clone();
    no_reason["cases"][3]["outcome"] = json!({"kind": "skipped"});
    assert!(!schemas.violations("report", &no_reason).is_empty());
    let mut bad_kind = good;
    bad_kind["cases"][0]["outcome"]["kind"] = json!("not-run");
    assert!(!schemas.violations("report", &bad_kind).is_empty());
}

/// Runs the built binary with `--format json` (sandboxes in a temporary
/// directory that is removed afterwards) and returns the decoded report.
fn real_json_report(plugin: &Path) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::harness()
        .args(["--format", "json", "--sandbox-dir"])
        .arg(tmp.path())
        .arg(plugin)
        .env("TMPDIR", tmp.path())
        .output()
        .expect("agent-conform runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the JSON report does not parse ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn real_json_reports_match_the_schema() {
    let schemas = schemas();
    let doc = real_json_report(&common::plugin("entire-agent-pyconform"));
    assert_valid(&schemas, &doc, "pyconform");
    // Per-step durations are there.
    let steps = doc["cases"][0]["steps"].as_array().unwrap();
    assert!(steps[0]["duration_ms"].as_f64().unwrap() > 0.0);

    // A gate failure (info null, every other case not run with a reason).
    let doc = real_json_report(&common::plugin("broken/entire-agent-bad-info"));
    assert_valid(&schemas, &doc, "bad-info");
    assert_eq!(doc["cases"][1]["outcome"]["kind"], "not_run");
}

/// The calls made to the plugin are counted once, the same in the human
/// report's last line and the JSON report: a step that started the plugin,
/// never a harness action nor a call not made.
#[test]
fn the_calls_made_are_counted_beside_the_time() {
    use agent_conform::api::{Human, Verbosity};
    let mut run = mixed_run();
    let made = run.cases.iter().flat_map(|c| &c.steps).count();
    let mut action = step("restart", vec![]);
    action.termination = "action".to_string();
    let mut never = step("never", vec![]);
    never.termination = "not-run".to_string();
    run.cases[0].steps.extend([action, never]);
    assert_eq!(run.calls(), made);
    let doc = agent_conform::api::json::document(&run, false);
    assert_eq!(doc["calls"], json!(made));
    for verbosity in [Verbosity::Normal, Verbosity::Quiet] {
        let human = Human {
            color: false,
            verbosity,
            strict: false,
            width: 100,
        };
        let text = human.render(&run);
        let last = text.lines().rfind(|l| !l.is_empty()).unwrap_or_default();
        assert!(
            last.contains(&format!(" in 1.23 s, {made} calls to the plugin")),
            "{last}"
        );
    }
}
