//! A table of Go decodings: what `json.Unmarshal` leaves in the host's
//! struct for `null`, a missing field, a key of another case and a key
//! written twice, for strings, ints, bools, arrays and base64 byte fields.

use serde_json::{Value, json};

use super::*;
use crate::host::Severity;
use crate::host::answers::{EVENT, fields, judge_ordered};
use crate::host::decoding::{decode_ordered, field_str, go_key_matches};

fn go(shape: &[Field], text: &str) -> Value {
    let doc = decode_ordered(text.as_bytes()).expect("one JSON value");
    normalise(shape, &doc)
}

fn answer(name: &str) -> &'static [Field] {
    fields(name).expect("a known answer")
}

#[test]
fn decodings_as_go_makes_them() {
    // (what, the struct, stdout, the struct as the host holds it)
    let table: &[(&str, &[Field], &str, Value)] = &[
        // strings
        (
            "null string",
            EVENT,
            r#"{"type":2,"prompt":null}"#,
            json!({"type": 2}),
        ),
        ("missing string", EVENT, r#"{"type":2}"#, json!({"type": 2})),
        (
            "wrong-case key",
            EVENT,
            r#"{"Session_ID":"s","TYPE":1}"#,
            json!({"session_id": "s", "type": 1}),
        ),
        (
            "the Kelvin sign folds to k",
            EVENT,
            "{\"tas\u{212A}_description\":\"d\"}",
            json!({"task_description": "d"}),
        ),
        (
            "duplicate key: the last wins",
            EVENT,
            r#"{"session_id":"a","session_id":"b"}"#,
            json!({"session_id": "b"}),
        ),
        (
            "duplicate key of another case: the later wins",
            EVENT,
            r#"{"session_id":"a","SESSION_ID":"b"}"#,
            json!({"session_id": "b"}),
        ),
        (
            "a later null changes nothing",
            EVENT,
            r#"{"session_id":"a","session_id":null}"#,
            json!({"session_id": "a"}),
        ),
        (
            "unknown keys are kept as written",
            EVENT,
            r#"{"type":1,"Extra":null}"#,
            json!({"type": 1, "Extra": null}),
        ),
        // ints
        (
            "null int",
            answer("install-hooks"),
            r#"{"hooks_installed":null}"#,
            json!({}),
        ),
        (
            "wrong-case int",
            answer("install-hooks"),
            r#"{"Hooks_Installed":3}"#,
            json!({"hooks_installed": 3}),
        ),
        (
            "a wrongly typed member sticks: the decoding fails",
            answer("install-hooks"),
            r#"{"hooks_installed":"3","hooks_installed":3}"#,
            json!({"hooks_installed": "3"}),
        ),
        // bools
        (
            "null bool",
            answer("detect"),
            r#"{"present":null}"#,
            json!({}),
        ),
        (
            "duplicate bool",
            answer("detect"),
            r#"{"present":false,"Present":true}"#,
            json!({"present": true}),
        ),
        (
            "nested struct keys fold too",
            answer("info"),
            r#"{"capabilities":{"Hooks":true,"hooks":null}}"#,
            json!({"capabilities": {"hooks": true}}),
        ),
        // arrays
        (
            "null array is nil",
            answer("extract-prompts"),
            r#"{"prompts":null}"#,
            json!({"prompts": null}),
        ),
        (
            "null element of []string is empty",
            answer("extract-prompts"),
            r#"{"PROMPTS":["a",null]}"#,
            json!({"prompts": ["a", ""]}),
        ),
        (
            "a later null array is nil",
            answer("extract-prompts"),
            r#"{"prompts":["a"],"prompts":null}"#,
            json!({"prompts": null}),
        ),
        // base64 byte fields
        (
            "null []byte is nil",
            answer("compact-transcript"),
            r#"{"transcript":null}"#,
            json!({"transcript": null}),
        ),
        (
            "wrong-case []byte and [][]byte",
            answer("chunk-transcript"),
            r#"{"Chunks":["YQ==",null]}"#,
            json!({"chunks": ["YQ==", null]}),
        ),
        (
            "duplicate []byte",
            answer("read-session"),
            r#"{"native_data":"YQ==","Native_Data":"Yg=="}"#,
            json!({"native_data": "Yg=="}),
        ),
        // the document itself
        ("null document", EVENT, "null", Value::Null),
        ("not an object", EVENT, "[1]", json!([1])),
    ];
    for (what, shape, text, want) in table {
        assert_eq!(&go(shape, text), want, "{what}: {text}");
    }
}

#[test]
fn what_the_zero_values_then_cost() {
    let judged = |name: &str, text: &str| {
        let doc = decode_ordered(text.as_bytes()).expect("JSON");
        judge_ordered(answer(name), &doc)
    };
    // null for a string that breaks resume breaks it as an empty one does.
    let j = judged("get-session-dir", r#"{"session_dir":null}"#);
    assert_eq!(j.consequences[0].severity, Severity::Failure);
    assert!(!j.undecodable());
    assert_eq!(j.seen["session_dir"], json!(""));
    // The right value under another case breaks nothing.
    let j = judged("get-session-dir", r#"{"Session_Dir":"/s"}"#);
    assert!(j.consequences.is_empty(), "{:?}", j.consequences);
    // A wrong type anywhere fails the decoding, a later good value too.
    assert!(judged("detect", r#"{"present":"yes","present":true}"#).undecodable());
    assert!(judged("info", r#"{"capabilities":{"hooks":"yes"}}"#).undecodable());
    // A later null keeps the earlier count.
    let j = judged(
        "install-hooks",
        r#"{"hooks_installed":2,"hooks_installed":null}"#,
    );
    assert!(j.consequences.is_empty());
    assert_eq!(j.seen["hooks_installed"], json!(2));
}

#[test]
fn events_read_as_the_host_reads_them() {
    let e = event(br#"{"Type":1,"session_id":null,"Session_Ref":"/t"}"#).expect("an Event");
    assert_eq!(field_str(&e, "session_id"), "");
    assert_eq!(field_str(&e, "session_ref"), "/t");
    assert_eq!(e["type"], json!(1));
    assert_eq!(event(b"null").expect("no event"), Value::Null);
    assert!(event(b"{} {}").is_err());
    assert_eq!(
        shape("parse-hook-full").map(<[Field]>::len),
        Some(EVENT.len())
    );
}

#[test]
fn keys_fold_as_go_folds_them() {
    for (key, name, same) in [
        ("session_id", "session_id", true),
        ("SESSION_ID", "session_id", true),
        ("Session_Id", "session_id", true),
        ("\u{17F}ession_id", "session_id", true),
        ("sessionid", "session_id", false),
        ("session-id", "session_id", false),
        ("session_i", "session_id", false),
    ] {
        assert_eq!(go_key_matches(key, name), same, "{key} {name}");
    }
}
