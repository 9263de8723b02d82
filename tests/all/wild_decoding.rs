//! Go decoding and late stdin: the host decodes
//! every answer and Event with Go's encoding/json, where `null` for a string
//! is the zero value and keys match case-insensitively (docs/host.md "How
//! output is decoded"); and a payload whose first byte comes late splits the
//! session of a plugin with a deadline on stdin (docs/host.md "Plugins in
//! the wild", "A deadline on stdin"). The plugin that writes `null` is a Go
//! program (tests/plugins/go/entire-agent-nullstrings: `*string` fields
//! marshalled without `omitempty`).

use crate::common;

use std::collections::BTreeSet;

use common::go::go_plugin;
use common::{Run, run_json};

fn ids(run: &Run, kind: &str) -> BTreeSet<String> {
    run.ids(kind).into_iter().collect()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// `null` for every optional string of an Event (and for optional fields
/// of info and read-session) is what the host's decoder makes of a missing
/// field: the plugin passes `--strict`, with the note every plugin that
/// prints nil slices gets.
#[test]
fn null_strings_in_events_pass_strict() {
    let Some(nullstrings) = go_plugin("nullstrings", None) else {
        return;
    };
    let run = run_json(&nullstrings, &["--strict"], &[]);
    assert_eq!(ids(&run, "failed"), set(&[]), "failures");
    assert_eq!(ids(&run, "warning"), set(&[]), "warnings");
    assert_eq!(ids(&run, "note"), set(&["core.session.write-then-read"]));
    assert_eq!(run.code, 0);
}

/// The twins: `"session_id": null` on SessionStart is an empty id, so the
/// host fails the hook; `Session_ID` and `Type` (struct tags of another
/// case) fill the fields as usual.
#[test]
fn a_null_session_id_fails_and_keys_of_another_case_pass() {
    let Some(null_id) = go_plugin("nullstrings", Some("null-session-id")) else {
        return;
    };
    let other_case = go_plugin("nullstrings", Some("other-case")).expect("go is there");
    let only = ["--strict", "--only", "hooks.parse-hook.payload"];
    let null = run_json(&null_id, &only, &[]);
    assert_eq!(ids(&null, "failed"), set(&["hooks.parse-hook.payload"]));
    let message = null.messages("hooks.parse-hook.payload");
    assert!(message.contains("session_id"), "{message}");
    let cased = run_json(&other_case, &only, &[]);
    assert!(ids(&cased, "passed").contains("hooks.parse-hook.payload"));
    assert_eq!(cased.code, 0);
}

/// Both deadlines on stdin are caught by the late delivery, as warnings: the
/// one that reads what came within 100 ms, and the one that waits 100 ms for
/// the first byte and then reads everything (which a payload whose first
/// half comes at once never trips).
#[test]
fn a_deadline_before_the_first_byte_is_caught() {
    let reference = common::reference();
    let cases = common::root().join("reference-plugin/conformance");
    let cases = cases.to_string_lossy();
    let args = [
        "--cases",
        cases.as_ref(),
        "--only",
        "hooks.parse-hook.payload",
    ];
    // slow-start-stdin-deadline starts 300 ms late and gives the payload
    // 100 ms from then: only a payload held back until the plugin reads
    // its stdin (docs/host.md "A deadline on stdin") is late for it.
    for fault in [
        "stdin-first-byte-deadline",
        "stdin-deadline",
        "slow-start-stdin-deadline",
    ] {
        let run = run_json(
            &reference,
            &args,
            &[("ENTIRE_AGENT_REFERENCE_FAULT", fault)],
        );
        assert_eq!(ids(&run, "failed"), set(&[]), "{fault}");
        assert_eq!(
            ids(&run, "warning"),
            set(&["hooks.parse-hook.payload"]),
            "{fault}"
        );
        let message = run.messages("hooks.parse-hook.payload");
        assert!(message.contains("first byte"), "{fault}: {message}");
    }
    let clean = run_json(&reference, &args, &[]);
    assert!(ids(&clean, "passed").contains("hooks.parse-hook.payload"));
}
