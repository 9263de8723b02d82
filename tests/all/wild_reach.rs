//! Issue 32, items 2, 3, 7 and 9 (the replay's part): ids of the plugin's
//! own making, the restore written where the agent never reads, and
//! `get-session-dir` asked again before every `write-session`.

use crate::common;

use std::collections::BTreeSet;

use common::{Run, run_json};

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn outcome(run: &Run, kind: &str) -> BTreeSet<String> {
    run.ids(kind).into_iter().collect()
}

/// The codes of the findings of one case.
fn codes(run: &Run, id: &str) -> Vec<String> {
    let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
    cases
        .iter()
        .filter(|c| c["id"] == id)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
        .map(|f| f["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_plugin_that_accepts_only_ids_of_its_own_form_passes() {
    // parse-hook derives ow-<hex> ids; every subcommand refuses another
    // form. The host only passes ids of the plugin's own Events, so the
    // cases' own ids (sess-7f3a9c21) are not verified here, and the replay
    // restores with the Events' ids: it passes, with a note that the
    // restored file is named by the plugin's id beside the agent's
    // transcript (named by the agent's id).
    let run = run_json(
        &common::plugin("wild/entire-agent-ownids"),
        &["--seed", "1"],
        &[],
    );
    assert_eq!(outcome(&run, "failed"), set(&[]), "no failure");
    // "Not verified here" is a note: the cases whose own ids it refuses.
    assert_eq!(outcome(&run, "warning"), set(&[]));
    assert_eq!(
        outcome(&run, "note"),
        set(&[
            "core.resolve-session-file.contains-id",
            "core.resolve-session-file.distinct-ids",
            "core.session.write-then-read",
            "core.format-resume-command.mentions-id",
            "core.format-resume-command.non-empty",
            "session.agent",
        ])
    );
    let replay = run.messages("session.agent");
    assert!(!replay.contains("sess-replay-1-other"), "{replay}");
    assert!(
        replay.contains("in the directory where the agent keeps it"),
        "{replay}"
    );
    assert_eq!(run.code, 0);
}

#[test]
fn a_refusal_of_an_id_the_plugin_never_made_is_not_verified() {
    // The reference's second session comes from its own parse-hook (a
    // second agent session): its id is the plugin's, so the clean run
    // stays green and no restore step is "not verified".
    let run = run_json(
        &common::reference(),
        &["--seed", "1", "--only", "session.agent"],
        &[],
    );
    assert_eq!(
        outcome(&run, "passed"),
        set(&["discovery.info", "session.agent"])
    );
    assert!(!codes(&run, "session.agent").contains(&"not-verified".to_string()));
    let steps: Vec<String> = run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"] == "session.agent")
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        steps
            .iter()
            .any(|s| s.starts_with("a second agent session")),
        "{steps:?}"
    );
}

#[test]
fn a_restore_written_outside_where_the_agent_keeps_its_sessions_fails() {
    // write-session writes into a sibling of the session file's directory
    // and read-session reads it back from there: consistent with itself,
    // but the agent resumes from where its Events put session_ref.
    let run = run_json(
        &common::reference(),
        &["--seed", "1", "--only", "session.agent"],
        &[("ENTIRE_AGENT_REFERENCE_FAULT", "write-session-elsewhere")],
    );
    assert_eq!(outcome(&run, "failed"), set(&["session.agent"]));
    let message = run.messages("session.agent");
    assert!(message.contains("-restored/"), "{message}");
    assert!(
        message.contains("where the agent keeps and resumes"),
        "{message}"
    );
}

#[test]
fn get_session_dir_is_asked_again_before_every_write_on_the_newest_hosts() {
    // A get-session-dir that works once (mkdir without -p): the newest
    // hosts ask it before every write-session, and the restore fails there;
    // the hosts before the boundary never ask, so nothing is said for them.
    let fault = [("ENTIRE_AGENT_REFERENCE_FAULT", "session-dir-once")];
    let run = run_json(
        &common::reference(),
        &["--seed", "1", "--only", "session.agent"],
        &fault,
    );
    assert_eq!(outcome(&run, "failed"), set(&["session.agent"]));
    let message = run.messages("session.agent");
    assert!(message.contains("before every write-session"), "{message}");
    assert!(message.contains("on entire 0.12.x"), "{message}");
    let old = run_json(
        &common::reference(),
        &[
            "--seed",
            "1",
            "--only",
            "session.agent",
            "--host-version",
            "<0.10",
        ],
        &fault,
    );
    assert_eq!(
        outcome(&old, "passed"),
        set(&["discovery.info", "session.agent"])
    );
}

/// info.name and the file name: the host registers a plugin under its file
/// name and every lookup uses that key. Without hooks nothing breaks (a
/// note that says the host uses the file name; `--strict` passes); with
/// hooks, interactive setup compares the key with info.name and reinstalls
/// the hooks at every `entire enable` (a warning that says so).
#[test]
fn a_name_other_than_the_file_name_is_a_note_without_hooks_and_a_warning_with_them() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let wild = common::plugin("wild");
    let renamed = dir.path().join("entire-agent-renamed");
    std::fs::copy(wild.join("entire-agent-nocalc"), &renamed).expect("copies");
    for helper in ["wildbase.py", "wildio.py"] {
        std::fs::copy(wild.join(helper), dir.path().join(helper)).expect("copies");
    }
    let hookless = run_json(&renamed, &["--strict", "--only", "discovery.*"], &[]);
    assert_eq!(hookless.code, 0, "--strict passes");
    assert_eq!(
        outcome(&hookless, "note"),
        set(&["discovery.info-name-matches"])
    );
    let said = hookless.messages("discovery.info-name-matches");
    assert!(
        said.contains("registers and finds the plugin by the file name")
            && said.contains("nothing breaks"),
        "{said}"
    );
    let fault = [("ENTIRE_AGENT_REFERENCE_FAULT", "info-name-mismatch")];
    let hooked = run_json(&common::reference(), &["--only", "discovery.*"], &fault);
    assert_eq!(
        outcome(&hooked, "warning"),
        set(&["discovery.info-name-matches"])
    );
    let said = hooked.messages("discovery.info-name-matches");
    assert!(
        said.contains("interactive setup") && said.contains("reinstalls this plugin's hooks"),
        "{said}"
    );
}
