//! The plugin's own samples checked against its own answers, without a
//! recording (issue 59, item 3): after `parse-hook` on a payload of the
//! author's case file, the run asks `get-session-dir` and
//! `resolve-session-file` for the Event's session, as `entire resume`
//! does, and judges them against the Event's `session_ref`.

use crate::common;

use common::run_json;
use common::wild::{cases, failed_steps, outcome, set, wild};

/// The case of `ownresolve-cases` that gives `parse-hook` the agent's own
/// stop payload.
const OWN_CASE: &str = "ownresolve.parse-hook.stop";

#[test]
fn a_resolve_answer_that_matches_its_own_events_passes_strict() {
    let dir = cases("ownresolve");
    let run = run_json(&wild("ownresolve"), &["--strict", "--cases", &dir], &[]);
    assert_eq!(outcome(&run, "failed"), set(&[]), "no failure");
    assert_eq!(outcome(&run, "warning"), set(&[]), "no warning");
    assert_eq!(run.code, 0, "--strict passes");
    assert!(run.ids("passed").contains(&OWN_CASE.to_string()));
    // The host's two calls were made, after the author's payload only.
    let steps: Vec<String> = run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"] == OWN_CASE)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect();
    for call in [
        "get-session-dir",
        "resolve-session-file for ownresolve-sess-1",
    ] {
        assert!(steps.iter().any(|s| s.contains(call)), "{call}: {steps:?}");
    }
}

#[test]
fn a_resolve_answer_the_agent_never_reads_fails_naming_the_resume() {
    let dir = cases("ownresolve");
    let run = run_json(
        &wild("ownresolve"),
        &["--strict", "--cases", &dir],
        &[("OWNRESOLVE_FAULT", "json")],
    );
    assert!(
        outcome(&run, "failed").contains(OWN_CASE),
        "{:?}",
        outcome(&run, "failed")
    );
    let messages = run.messages(OWN_CASE);
    assert!(
        messages.contains("entire session resume restores")
            && messages
                .contains("ownresolve-sess-1.json (resolve-session-file for ownresolve-sess-1)")
            && messages.contains("the resumed session is not found"),
        "{messages}"
    );
    assert_eq!(
        failed_steps(&run, OWN_CASE),
        vec!["step 1 (its session file: resolve-session-file for ownresolve-sess-1)".to_string()]
    );
    // It rests on the plugin's own answers to its own payload.
    let evidence: Vec<String> = run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"] == OWN_CASE)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
        .map(|f| f["evidence"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(evidence.iter().any(|e| e == "samples"), "{evidence:?}");
    assert_eq!(run.code, 1);
}
