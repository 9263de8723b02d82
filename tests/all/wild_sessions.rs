//! Plugins in the wild (tests/common/wild.rs): sessions and resume. A resume
//! command without the id, a session directory that must be the plugin's
//! own, a `write-session` that always fails, a store only the agent
//! creates, one history file per repository (a failure through `entire attach`, a
//! failure with hooks that give no Event for our payloads), and a session
//! id renewed at every turn.

use crate::common;

use common::run_json;
use common::wild::{cases, failed_steps, outcome, passes_with, set, twin_fails, wild};

#[test]
fn a_resume_command_without_the_id_passes_with_a_note() {
    // The host only shows the command; not naming the id is a note.
    passes_with(
        "resumelatest",
        &[],
        &[],
        &["core.format-resume-command.mentions-id"],
    );
}

#[test]
fn a_session_directory_that_must_be_its_own_passes() {
    // resolve-session-file gets the directory get-session-dir returned, as
    // from the host; nothing to warn or note.
    let run = passes_with("ownsessiondir", &[], &[], &[]);
    // Its restore replaces the file it writes (wildbase writes a temporary
    // file and renames it over): over an older copy of the session before
    // `entire resume --force`, and over the agent's file grown with the
    // later turns before `entire rewind` (docs/host.md "The user's machine,
    // not a clean room": history), each file then holds the checkpoint.
    let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
    let steps: Vec<String> = cases
        .iter()
        .filter(|c| c["id"] == "session.agent")
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect();
    for line in ["an older copy of its file", "has grown with later turns"] {
        assert!(steps.iter().any(|s| s.contains(line)), "{line}: {steps:?}");
    }
}

#[test]
fn a_write_session_that_always_fails_fails_exactly_the_session_round_trip_and_the_resume() {
    // The session store round trip and the host session's resume fail, at
    // the write: the host's `entire resume` fails there too (the plugin
    // declares hooks, so the host records and resumes its sessions).
    // The store round trip writes with an id of the case's making, then,
    // refused, with the id the plugin's own get-session-id gives: refused
    // again, the plugin refuses every id, its own included. The replay
    // writes with the ids of the plugin's own Events.
    let run = common::shared::shared_run(&wild("nowrite"), &[], &[]);
    assert_eq!(
        outcome(&run, "failed"),
        set(&["core.session.write-then-read", "session.agent"])
    );
    // The same failure in the linked worktree and the submodule is said once,
    // under session.agent ("also in"); the variants note it.
    assert!(
        run.messages("session.agent")
            .contains("(also in: linked worktree, submodule)"),
        "{}",
        run.messages("session.agent")
    );
    assert_eq!(
        failed_steps(&run, "session.agent"),
        vec!["entire resume · session sess-replay-1 · write-session".to_string()],
        "the write fails, as the host's resume would"
    );
    assert_eq!(outcome(&run, "warning"), set(&[]));
    assert_eq!(
        outcome(&run, "note"),
        set(&["session.agent.linked-worktree", "session.agent.submodule"])
    );
    assert_eq!(run.code, 1);
}

#[test]
fn a_store_only_the_agent_creates_is_unverified_not_broken() {
    // resolve-session-file refuses cleanly, naming the store the agent never
    // created in the sandbox: each case that needs it says "not verified
    // here" (a note: never a warning, let alone a failure), and
    // write-session is still tried (it works).
    let unverified = [
        "core.resolve-session-file.contains-id",
        "core.resolve-session-file.distinct-ids",
        "core.session.write-then-read",
        "session.agent",
        // The same finding in the other work trees.
        "session.agent.linked-worktree",
        "session.agent.submodule",
    ];
    passes_with("ownstore", &[], &[], &unverified);
    // Its own cases plant the store under {{home}} and run for real.
    let args = ["--cases", &cases("ownstore")];
    let run = passes_with("ownstore", &args, &[], &unverified);
    assert!(
        run.ids("passed")
            .iter()
            .any(|id| id.starts_with("ownstore.")),
        "the own cases with a planted store pass"
    );
    assert!(
        run.messages("core.session.write-then-read")
            .contains("not verified here"),
        "the note says why"
    );
}

#[test]
fn session_defects_of_a_plugin_without_hooks_break_resume_through_attach() {
    // One history file per repository: two sessions share a file, which
    // loses one on resume. The plugin has no hooks, but `entire attach`
    // (0.5.6 on) records its sessions, and resume and rewind of them reach
    // resolve-session-file: a failure. Only on releases before attach is it
    // latent: a warning that says so.
    let run = run_json(
        &wild("onehistory"),
        &["--only", "core.resolve-session-file.*"],
        &[],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.ids("failed")
            .contains(&"core.resolve-session-file.distinct-ids".to_string())
    );
    let message = run.messages("core.resolve-session-file.distinct-ids");
    assert!(!message.contains("latent"), "{message}");
    let before = run_json(
        &wild("onehistory"),
        &[
            "--only",
            "core.resolve-session-file.*",
            "--host-version",
            "<0.5.6",
        ],
        &[],
    );
    assert!(
        before
            .ids("warning")
            .contains(&"core.resolve-session-file.distinct-ids".to_string())
    );
    let message = before.messages("core.resolve-session-file.distinct-ids");
    assert!(
        message.contains("latent: on the releases judged (before `entire attach`)"),
        "{message}"
    );
    // The twin: the same defect in a plugin with hooks breaks resume.
    twin_fails(
        "resolve-drops-id",
        &["core.resolve-session-file.distinct-ids", "session.agent"],
        "restoring both sessions",
    );
}

#[test]
fn a_plugin_whose_hooks_give_no_event_for_our_payloads_is_judged_by_what_it_declares() {
    // hooks declared, parse-hook null for every payload tried: that says
    // nothing of its agent's own payloads, so reach
    // comes from info alone: the host records its sessions, and the shared
    // history file replaces the user's earlier session on resume (a
    // failure, as for any plugin with hooks: docs/host.md "What each
    // answer costs the user", Sessions, resume and rewind). The replay,
    // which made no checkpoint, is unverified where it restores nothing.
    let run = common::shared::shared_run(&wild("nullhooks"), &[], &[]);
    assert_eq!(
        outcome(&run, "failed"),
        set(&["core.resolve-session-file.distinct-ids", "session.agent"])
    );
    assert_eq!(outcome(&run, "warning"), set(&[]));
    // The same finding in the other work trees: said once (also in).
    assert_eq!(
        outcome(&run, "note"),
        set(&[
            "core.resolve-session-file.contains-id",
            "session.agent.linked-worktree",
            "session.agent.submodule"
        ])
    );
    let message = run.messages("session.agent");
    assert!(message.contains("silently replaced"), "{message}");
    assert!(!message.contains("latent"), "{message}");
    assert_eq!(run.code, 1);
}

#[test]
fn a_session_id_renewed_at_every_turn_degrades_when_resume_names_none() {
    // Each turn becomes a session of its own (a warning); the resume command
    // names no id, so resume still works.
    passes_with(
        "turnids",
        &[],
        // Its findings name the ids it makes, which differ per work tree:
        // each variant says its own.
        &[
            "session.agent",
            "session.agent.linked-worktree",
            "session.agent.submodule",
        ],
        &["core.format-resume-command.mentions-id"],
    );
    let run = run_json(&wild("turnids"), &["--only", "session.agent"], &[]);
    let message = run.messages("session.agent");
    assert!(
        message.contains("a session id renewed at every turn"),
        "{message}"
    );
    // The twin: a renewed id with a resume command that names it.
    twin_fails(
        "session-id-changes-after-turn-end",
        &["session.agent"],
        "the resume command names the session id",
    );
}
