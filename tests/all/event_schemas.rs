//! The Event schemas at their three levels, against the host's own table
//! (docs/host.md, "What the host does with each answer"): what fails a
//! hook (`parse-hook`, `parse-hook-full`), what only the guide asks
//! (`parse-hook-guide`), and what decodes at all (`parse-hook-decode`).

use agent_conform::api::schema::Schemas;
use serde_json::{Value, json};

fn accepts(schemas: &Schemas, name: &str, event: &Value) -> bool {
    schemas.violations(name, event).is_empty()
}

/// (event, decodes, host from any payload, host in full, guide). The guide's
/// table knows nothing of the host's id validation, so it accepts ids the
/// host refuses.
fn table() -> Vec<(Value, [bool; 4])> {
    vec![
        (json!(null), [true, true, true, true]),
        (
            json!({"type": 1, "session_id": "s1"}),
            [true, true, true, true],
        ),
        // TurnStart without session_ref: the host only degrades.
        (
            json!({"type": 2, "session_id": "s1"}),
            [true, true, true, false],
        ),
        // TurnEnd without session_ref: fails the hook, but a foreign payload
        // may not carry the plugin's transcript field.
        (
            json!({"type": 3, "session_id": "s1"}),
            [true, true, false, false],
        ),
        // TurnEnd without a session id: "unknown", a degradation.
        (
            json!({"type": 3, "session_ref": "/t.jsonl"}),
            [true, true, true, false],
        ),
        (
            json!({"type": 0, "session_id": "s1"}),
            [true, false, false, false],
        ),
        (
            json!({"type": 10, "session_id": "s1"}),
            [true, false, false, false],
        ),
        // Newer hosts know 8 and 9; the guide's table stops at 7.
        (
            json!({"type": 8, "session_id": "s1"}),
            [true, true, true, false],
        ),
        (
            json!({"type": 1.0, "session_id": "s1"}),
            [false, false, false, false],
        ),
        (
            json!({"type": "1", "session_id": "s1"}),
            [false, false, false, false],
        ),
        (
            json!({"type": 1, "session_id": ""}),
            [true, false, false, false],
        ),
        (
            json!({"type": 5, "session_id": ""}),
            [true, true, true, false],
        ),
        (
            json!({"type": 1, "session_id": "../x"}),
            [true, false, false, true],
        ),
        (
            // the June host had no dash or device rule: the newest
            // variants' are src/host/ids.rs, by release
            json!({"type": 1, "session_id": "-rf"}),
            [true, true, true, true],
        ),
        (
            json!({"type": 1, "session_id": "  "}),
            [true, false, false, true],
        ),
        (
            json!({"type": 1, "session_id": ".."}),
            [true, false, false, true],
        ),
        (
            // the June host had no dash or device rule: the newest
            // variants' are src/host/ids.rs, by release
            json!({"type": 1, "session_id": "nul.txt"}),
            [true, true, true, true],
        ),
        (
            json!({"type": 1, "session_id": "a:b"}),
            [true, false, false, true],
        ),
        (
            json!({"type": 1, "session_id": "console-1"}),
            [true, true, true, true],
        ),
        (
            json!({"type": 1, "session_id": "s", "timestamp": "yesterday"}),
            [true, false, false, false],
        ),
        (
            json!({"type": 1, "session_id": "s", "timestamp": ""}),
            [true, true, true, true],
        ),
        (
            json!({"type": 6, "session_id": "s", "session_ref": "/t"}),
            [true, false, false, false],
        ),
        (
            json!({"type": 6, "session_id": "s", "session_ref": "/t", "tool_use_id": "toolu 1"}),
            [true, false, false, true],
        ),
        (
            json!({"type": 6, "session_id": "s", "session_ref": "/t", "tool_use_id": "toolu_01"}),
            [true, true, true, true],
        ),
        (
            json!({"type": 7, "session_id": "s"}),
            [true, true, true, false],
        ),
        (json!({"type": 4}), [true, true, true, false]),
        (
            json!({"type": 1, "session_id": 7}),
            [false, false, false, false],
        ),
        (json!([1]), [false, false, false, false]),
    ]
}

#[test]
fn the_event_schemas_follow_the_hosts_table() {
    let schemas = Schemas::compile().expect("schemas compile");
    let names = [
        "parse-hook-decode",
        "parse-hook",
        "parse-hook-full",
        "parse-hook-guide",
    ];
    for (event, expected) in table() {
        for (name, want) in names.iter().zip(expected) {
            assert_eq!(
                accepts(&schemas, name, &event),
                want,
                "{name} on {event}: {:?}",
                schemas.violations(name, &event)
            );
        }
    }
}
