//! Crash versus refusal, an unverified capability said once, a finding of
//! every work tree said once, and `{}` from `read-transcript` for another
//! agent's transcript.

use crate::common;

use std::collections::BTreeSet;

use common::{Run, run_json};
use serde_json::Value;

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn outcome(run: &Run, kind: &str) -> BTreeSet<String> {
    run.ids(kind).into_iter().collect()
}

/// Every finding of the run: (case id, severity, code, message).
fn findings(run: &Run) -> Vec<(String, String, String, String)> {
    let mut all = Vec::new();
    for case in run.report["cases"].as_array().into_iter().flatten() {
        let id = case["id"].as_str().unwrap_or_default();
        for step in case["steps"].as_array().into_iter().flatten() {
            for f in step["findings"].as_array().into_iter().flatten() {
                let text = |k: &str| f[k].as_str().unwrap_or_default().to_string();
                all.push((
                    id.to_string(),
                    text("severity"),
                    text("code"),
                    text("message"),
                ));
            }
        }
    }
    all
}

/// The cases that carry a finding of this code.
fn with_code(run: &Run, code: &str) -> BTreeSet<String> {
    findings(run)
        .into_iter()
        .filter(|f| f.2 == code)
        .map(|f| f.0)
        .collect()
}

#[test]
fn a_crash_on_another_agents_transcript_is_crashed_never_a_clean_refusal() {
    // crashforeign's transcript subcommands die with a Python traceback on
    // the generic JSONL. The host never sends it: no failure, but every
    // such call is "crashed" with the exception line (the traceback's last
    // line), never "refused" or "another agent's format"; without samples
    // transcript_analyzer is unverified, said once as a warning.
    let plugin = common::plugin("wild/entire-agent-crashforeign");
    let run = common::shared::shared_run(&plugin, &[], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new(), "no failure");
    assert_eq!(run.code, 0);
    assert_eq!(
        outcome(&run, "warning"),
        set(&[
            "transcript_analyzer.position",
            // Crashes where a clean error is what the case allows: the
            // host fails the call either way, and shows a trace.
            "transcript_analyzer.position-missing-file",
        ])
    );
    assert_eq!(
        outcome(&run, "note"),
        set(&[
            "transcript_analyzer.long-lines",
            "transcript_analyzer.modified-files",
            "transcript_analyzer.modified-files-at-end",
            "transcript_analyzer.modified-files-from-offset",
            "transcript_analyzer.prompts",
            // (extract-summary, which the host never calls, is protocol-only:
            // its cases are skipped by default.)
        ])
    );
    let all = findings(&run);
    let crashes: Vec<_> = all.iter().filter(|f| f.2 == "crashed").collect();
    assert!(!crashes.is_empty());
    for (id, _, _, message) in &crashes {
        assert!(message.starts_with("crashed"), "{id}: {message}");
        assert!(message.contains("Python traceback"), "{id}: {message}");
    }
    let generic = run.messages("transcript_analyzer.prompts");
    assert!(
        generic.contains("`json.decoder.JSONDecodeError: Extra data"),
        "the exception line, not the traceback's head: {generic}"
    );
    assert!(!generic.contains("Traceback (most recent"), "{generic}");
    for (id, _, code, message) in &all {
        assert_ne!(code, "foreign-format", "{id}: {message}");
        assert_ne!(code, "agent-variable", "{id}: {message}");
        assert!(
            !message.contains("refused (or read nothing"),
            "{id}: {message}"
        );
    }
    // One warning for the capability, with the YAML that makes it checked.
    let unverified: Vec<_> = all
        .iter()
        .filter(|f| f.2 == "unverified" && f.1 == "warning")
        .collect();
    assert_eq!(unverified.len(), 1, "{unverified:#?}");
    assert!(
        unverified[0].3.contains("transcripts: [samples/"),
        "{unverified:#?}"
    );
    // --strict fails a CI that checked nothing.
    let strict = run_json(&plugin, &["--strict"], &[]);
    assert_eq!(strict.code, 1);
}

#[test]
fn a_crash_where_the_call_must_succeed_fails_it() {
    // get-session-dir dies with a traceback: the host fails every call of
    // it, and with it the session store (resume, every hook with a
    // transcript). Reported as crashed, with the exception line.
    let plugin = common::plugin("broken/entire-agent-crash-sessiondir");
    let run = run_json(&plugin, &["--only", "core.get-session-dir.*"], &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.ids("failed")
            .contains(&"core.get-session-dir.non-empty".to_string())
    );
    let message = run.messages("core.get-session-dir.non-empty");
    assert!(
        message.contains("crashed: Python traceback (`RuntimeError: the session index is locked`)"),
        "{message}"
    );
    assert!(with_code(&run, "crashed").contains("core.get-session-dir.non-empty"));
}

#[test]
fn a_declared_capability_unverified_is_a_warning_even_where_its_warning_case_saw_nothing() {
    // dbstore answers the generic transcript's position in bytes (a warning
    // of its own at transcript_analyzer.position) and refuses the rest: the
    // capability is still unverified, and the run says so once, as a
    // warning, instead of notes that point to a warning never printed.
    let plugin = common::plugin("wild/entire-agent-dbstore");
    let run = run_json(&plugin, &["--only", "transcript_analyzer.*"], &[]);
    let all = findings(&run);
    let warned: Vec<_> = all
        .iter()
        .filter(|f| f.2 == "unverified" && f.1 == "warning")
        .collect();
    assert_eq!(warned.len(), 1, "{all:#?}");
    for (id, _, _, message) in all.iter().filter(|f| f.2 == "unverified") {
        if message.contains("capability's warning") {
            panic!("{id}: {message}");
        }
    }
}

#[test]
fn a_finding_in_every_work_tree_is_said_once() {
    // The session replay runs in the plain repository, a linked worktree
    // and a submodule; get-session-dir fails alike in all three: said under
    // the first, "also in" the others, which carry only a note.
    let plugin = common::plugin("broken/entire-agent-crash-sessiondir");
    let run = run_json(&plugin, &["--only", "session.agent*"], &[]);
    assert_eq!(run.code, 1, "the verdict stands");
    assert!(run.ids("failed").contains(&"session.agent".to_string()));
    assert!(
        run.messages("session.agent")
            .contains("(also in: linked worktree, submodule)"),
        "{}",
        run.messages("session.agent")
    );
    for variant in ["session.agent.linked-worktree", "session.agent.submodule"] {
        let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
        let case: &Value = cases
            .iter()
            .find(|c| c["id"] == variant)
            .unwrap_or_else(|| panic!("no {variant}"));
        assert_eq!(case["outcome"]["kind"], "note", "{variant}: {case}");
        assert!(
            run.messages(variant).contains("said there once"),
            "{variant}"
        );
    }
}

#[test]
fn empty_read_transcript_for_another_agents_transcript_passes() {
    // emptyread prints `{}` for a transcript with no line of its agent's:
    // the host never sends one, so it weighs as the step's refusal, which
    // leaves the case nothing to check: a skip with its reason, not a pass.
    let plugin = common::plugin("wild/entire-agent-emptyread");
    let run = run_json(&plugin, &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(outcome(&run, "warning"), set(&[]));
    assert_eq!(outcome(&run, "note"), set(&[]));
    assert_eq!(run.code, 0);
    assert!(
        run.ids("skipped")
            .contains(&"core.read-transcript.raw-bytes".to_string())
    );
}

#[test]
fn a_plugin_that_crashes_only_on_inputs_the_host_never_sends_passes_strict() {
    // trustinghost's session subcommands trust their stdin: a traceback on
    // empty, invalid or hostile JSON, which the host never sends, and in
    // get-session-id and read-session, which the host never calls. Those
    // cases are protocol-only: skipped by default, saying so, and the
    // plugin passes --strict. --pedantic runs them: warnings that quote the
    // exception line.
    let plugin = common::plugin("wild/entire-agent-trustinghost");
    let run = run_json(&plugin, &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new(), "no failure");
    assert_eq!(outcome(&run, "warning"), set(&[]));
    assert_eq!(run.code, 0);
    assert_eq!(run.report["pedantic"], false);
    let skipped = run.ids("skipped");
    assert!(
        skipped.contains(&"hostile.write-session.empty-stdin".to_string()),
        "{skipped:?}"
    );
    let reason = run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["id"] == "hostile.write-session.empty-stdin")
        .map(|c| {
            c["outcome"]["reason"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default();
    assert!(
        reason.contains("protocol-only") && reason.contains("--pedantic runs it"),
        "{reason}"
    );
    let pedantic = run_json(
        &plugin,
        &[
            "--strict",
            "--pedantic",
            "--only",
            "hostile.write-session.*",
        ],
        &[],
    );
    assert_eq!(pedantic.code, 1);
    assert_eq!(pedantic.report["pedantic"], true);
    assert!(
        outcome(&pedantic, "warning").contains("hostile.write-session.empty-stdin"),
        "{:?}",
        pedantic.ids("warning")
    );
    let all = findings(&pedantic);
    let hostile: Vec<_> = all
        .iter()
        .filter(|f| f.0 == "hostile.write-session.empty-stdin")
        .collect();
    assert!(!hostile.is_empty(), "{all:#?}");
    for (id, severity, code, message) in hostile {
        assert_eq!(severity, "warning", "{id}: {message}");
        assert_eq!(code, "protocol-only", "{id}: {message}");
        assert!(message.contains("never sends this input"), "{message}");
        assert!(
            message.contains("`json.decoder.JSONDecodeError: Expecting value"),
            "the exception line: {message}"
        );
    }
}
