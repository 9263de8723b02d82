//! The embedded suite itself: every schema compiles, every case file loads,
//! and a broken case file is refused with its file and line.

use crate::common;

use agent_conform::api::case;
use agent_conform::api::schema::Schemas;
use assert_cmd::prelude::*;
use predicates::prelude::*;

#[test]
fn every_schema_compiles() {
    let schemas = Schemas::compile().expect("schemas compile");
    let docs = agent_conform::api::schema::documents().expect("schemas parse");
    assert_eq!(schemas.names().count(), docs.len());
    assert!(schemas.contains("info") && schemas.contains("event"));
}

#[test]
fn every_case_file_loads() {
    let schemas = Schemas::compile().expect("schemas compile");
    let suite = case::load(&[], &schemas).expect("the embedded suite loads");
    assert!(suite.cases.len() >= 30, "only {} cases", suite.cases.len());
    assert_eq!(
        suite.cases.iter().filter(|c| c.gate).count(),
        1,
        "one gate (info)"
    );
}

#[test]
fn host_integer_rejects_fraction_and_exponent() {
    let schemas = Schemas::compile().expect("schemas compile");
    let ok = serde_json::from_str(r#"{"position": 12}"#).unwrap();
    let float = serde_json::from_str(r#"{"position": 12.0}"#).unwrap();
    let exp = serde_json::from_str(r#"{"position": 1.2e1}"#).unwrap();
    assert!(
        schemas
            .violations("get-transcript-position", &ok)
            .is_empty()
    );
    assert!(
        !schemas
            .violations("get-transcript-position", &float)
            .is_empty()
    );
    assert!(
        !schemas
            .violations("get-transcript-position", &exp)
            .is_empty()
    );
}

#[test]
fn base64_must_be_standard_and_padded() {
    let schemas = Schemas::compile().expect("schemas compile");
    for (chunk, valid) in [
        ("Pz8/Pj4+", true),
        ("YQ==", true),
        ("YQ", false),
        ("Pz8_Pj4-", false),
    ] {
        let doc = serde_json::json!({"chunks": [chunk]});
        let violations = schemas.violations("chunk-transcript", &doc);
        assert_eq!(violations.is_empty(), valid, "{chunk}: {violations:?}");
    }
}

#[test]
fn trailing_garbage_is_refused() {
    use agent_conform::api::decode_host_json;
    assert!(decode_host_json(b"{\"a\":1}\n").is_ok());
    assert!(
        decode_host_json(b"{\"a\":1} x")
            .unwrap_err()
            .contains("more than one JSON value")
    );
    assert!(decode_host_json(b"{\"a\":1}{}").is_err());
    assert!(decode_host_json(b"  ").is_err());
}

/// Runs the harness with one extra case file; it must refuse it (exit 2).
fn refuses(yaml: &str) -> assert_cmd::assert::Assert {
    let dir = broken_case_dir(yaml);
    common::harness()
        .arg("--cases")
        .arg(dir.path())
        .arg(common::plugin("entire-agent-pyconform"))
        .assert()
        .code(2)
}

fn broken_case_dir(yaml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.yaml"), yaml).unwrap();
    dir
}

#[test]
fn a_typo_in_a_case_file_exits_2_with_file_and_line() {
    refuses("cases:\n  - id: x.y\n    title: t\n    spec: s\n    stepz: []\n")
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::contains("bad.yaml:5:")
                .and(predicate::str::contains("unknown field `stepz`")),
        );
}

#[test]
fn a_bad_placeholder_or_schema_is_refused_at_load_time() {
    for (yaml, needle) in [
        (
            "cases:\n  - id: x.y\n    title: t\n    spec: s\n    steps:\n      - args: [info, \"{{rpeo}}\"]\n",
            "unknown placeholder {{rpeo}}",
        ),
        (
            "cases:\n  - id: x.y\n    title: t\n    spec: s\n    steps:\n      - args: [info]\n        expect:\n          stdout_schema: nope\n",
            "no schema named \"nope\"",
        ),
        (
            "cases:\n  - id: x.y\n    title: t\n    spec: s\n    steps:\n      - args: [info]\n        stdin: {stdout_of: later}\n",
            "not an earlier step",
        ),
    ] {
        refuses(yaml)
            .stderr(predicate::str::contains("bad.yaml:6:").and(predicate::str::contains(needle)));
    }
}
