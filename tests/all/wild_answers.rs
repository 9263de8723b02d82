//! Plugins in the wild (tests/common/wild.rs): answers that only degrade the
//! host. Hook payloads of the agent's own shape with a TurnStart without
//! `session_ref`, Go's decoding habits (notes only), and a declared
//! capability without its subcommand (missing, at the host's severity).

use crate::common;

use common::go::go_plugin;
use common::run_json;
use common::wild::{cases, go_passes_with, outcome, passes_with, twin_fails, wild};

#[test]
fn own_hook_payloads_with_a_turn_start_without_session_ref_pass() {
    // A TurnStart without session_ref only degrades the host (no transcript
    // position): a warning for the guide-shaped payload and for the plugin's
    // own prompt-submit payloads (held to the host's per-type table). Its
    // generated session ids pass the host's validation.
    passes_with(
        "ownhooks",
        &["--cases", &cases("ownhooks")],
        &[
            "hooks.parse-hook.payload",
            "ownhooks.parse-hook.prompt-submit",
            "ownhooks.parse-hook.generated-session-id",
            // Its stop hook answers null for the generic payload: the host
            // session is unverified until the plugin records its own.
            "session.agent",
        ],
        // The same finding in the other work trees: said once (also in).
        &["session.agent.linked-worktree", "session.agent.submodule"],
    );
}

#[test]
fn go_decoding_habits_pass_with_notes_only() {
    // null for empty arrays (chunks of an empty transcript, file lists), an
    // Event with an empty id for {}: notes, never warnings. The host's
    // chunker boundary (a line of exactly --max-size refused) passes.
    // Missing flags defaulted and `{}` reassembled to nothing are answers
    // to inputs the host never sends: protocol-only cases, skipped by
    // default, notes under --pedantic (they are notes by their case). The
    // plugin is a Go program (tests/plugins/go/entire-agent-gohabits).
    let Some(run) = go_passes_with(
        "gohabits",
        &[],
        &[],
        &[
            "core.chunk.generated-bytes",
            "core.session.write-then-read",
            "hooks.parse-hook.empty-object",
        ],
    ) else {
        return;
    };
    let protocol_only = [
        "core.errors.missing-flag.format-resume-command",
        "core.errors.missing-flag.get-session-dir",
        "core.errors.missing-flag.resolve-session-file",
        "core.reassemble.no-chunks",
    ];
    let skipped = outcome(&run, "skipped");
    for id in protocol_only {
        assert!(skipped.contains(id), "{id} is skipped: {skipped:?}");
    }
    let gohabits = go_plugin("gohabits", None).expect("built above");
    let pedantic = run_json(
        &gohabits,
        &[
            "--pedantic",
            "--only",
            "core.errors.missing-flag.*",
            "--only",
            "core.reassemble.*",
        ],
        &[],
    );
    assert_eq!(pedantic.code, 0);
    let noted = outcome(&pedantic, "note");
    for id in protocol_only {
        assert!(
            noted.contains(id),
            "{id} is a note under --pedantic: {noted:?}"
        );
    }
}

#[test]
fn a_declared_capability_without_its_subcommand_is_missing_at_the_hosts_severity() {
    // Token counts: the host logs the failure, a warning naming the
    // capability, not "another agent's format".
    passes_with(
        "nocalc",
        &[],
        &["token_calculator.from-start"],
        &["token_calculator.long-lines", "token_calculator.past-end"],
    );
    let run = run_json(&wild("nocalc"), &["--only", "token_calculator.*"], &[]);
    let message = run.messages("token_calculator.from-start");
    assert!(
        message.contains(
            "a declared capability without its subcommand: info declares token_calculator"
        ),
        "{message}"
    );
    assert!(!message.contains("another agent's format,"), "{message}");
    assert!(message.contains("without token counts"), "{message}");
    // The twin: text generation missing fails `entire explain --generate`.
    twin_fails(
        "generate-text-missing",
        &["text_generator.generate"],
        "a declared capability without its subcommand: info declares text_generator",
    );
}

/// The session timeline reads in the session's order: every hook of the
/// agent session before `entire resume`, resume (with its resume commands)
/// before `entire rewind`, and the harness's own question (the Event type
/// of a hook name the guide does not name, asked before the session) after
/// the session's steps, said to be the harness's, not the host's.
#[test]
fn the_session_timeline_is_in_the_sessions_order() {
    let run = run_json(&wild("ownhooks"), &["--only", "session.agent"], &[]);
    let case = run.report["cases"]
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["id"] == "session.agent"))
        .expect("session.agent in the report");
    let names: Vec<&str> = case["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    let first = |prefix: &str| names.iter().position(|n| n.starts_with(prefix));
    let last = |prefix: &str| names.iter().rposition(|n| n.starts_with(prefix));
    let probe = first("asked by the harness, not the host").expect("the Event-type question");
    assert!(names[probe].contains("hook prompt-submit"), "{names:#?}");
    assert_eq!(first("turn 1"), Some(1), "{names:#?}");
    for later in ["turn ", "entire resume", "entire rewind"] {
        assert!(
            last(later) < Some(probe),
            "{later} after the probe: {names:#?}"
        );
    }
    assert!(last("turn ") < first("entire resume"), "{names:#?}");
    assert!(last("entire resume") < first("entire rewind"), "{names:#?}");
}

#[test]
fn a_missing_subcommand_is_told_by_the_gates_probe_not_by_its_words() {
    // argparse's "invalid choice" is in no list of phrasings: calculate-tokens
    // answers as the plugin answers a subcommand that cannot exist (the
    // gate's probe), so it is missing, with what the user loses.
    passes_with(
        "argmissing",
        &[],
        &["token_calculator.from-start"],
        &["token_calculator.long-lines", "token_calculator.past-end"],
    );
    let run = run_json(&wild("argmissing"), &["--only", "token_calculator.*"], &[]);
    let message = run.messages("token_calculator.from-start");
    for said in [
        "a declared capability without its subcommand: info declares token_calculator",
        "invalid choice",
        "as the plugin answers a subcommand that cannot exist",
        "every checkpoint is saved without token counts",
    ] {
        assert!(message.contains(said), "{said}: {message}");
    }
    assert!(!message.contains("another agent's format,"), "{message}");
}
