//! Spec coverage: every item of coverage/spec-items.yaml is checked by at
//! least one case of the embedded suite.

use crate::common;

use agent_conform::api::coverage;
use agent_conform::api::schema::Schemas;
use assert_cmd::prelude::*;
use predicates::prelude::*;

#[test]
fn every_spec_item_is_covered_by_a_case() {
    let schemas = Schemas::compile().expect("schemas compile");
    let suite = agent_conform::api::case::load(&[], &schemas).expect("suite loads");
    let items = coverage::items().expect("items load");
    coverage::check_covers(&suite.cases, &items).expect("covers name items");
    let holes: Vec<String> = coverage::table(&suite.cases, &items)
        .into_iter()
        .filter(|(_, cases)| cases.is_empty())
        .map(|(item, _)| item.id)
        .collect();
    assert!(holes.is_empty(), "spec items no case covers: {holes:?}");
}

#[test]
fn the_items_list_every_subcommand_and_event_type() {
    let items = coverage::items().expect("items load");
    let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
    for sub in [
        "info",
        "detect",
        "get-session-id",
        "get-session-dir",
        "resolve-session-file",
        "read-session",
        "write-session",
        "read-transcript",
        "chunk-transcript",
        "reassemble-transcript",
        "format-resume-command",
        "parse-hook",
        "install-hooks",
        "uninstall-hooks",
        "are-hooks-installed",
        "get-transcript-position",
        "extract-modified-files",
        "extract-prompts",
        "extract-summary",
        "prepare-transcript",
        "calculate-tokens",
        "generate-text",
        "write-hook-response",
        "extract-all-modified-files",
        "calculate-total-tokens",
    ] {
        assert!(ids.contains(&format!("subcommand:{sub}").as_str()), "{sub}");
    }
    for n in 1..=7 {
        assert!(
            ids.iter().any(|id| id.starts_with(&format!("event:{n} "))),
            "event {n}"
        );
    }
}

#[test]
fn the_coverage_verb_prints_the_table() {
    common::harness().arg("coverage").assert().success().stdout(
        predicate::str::contains("subcommand:parse-hook")
            .and(predicate::str::contains("0 not covered")),
    );
}

#[test]
fn a_covers_entry_naming_no_item_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.yaml"),
        "cases:\n  - id: x.y\n    title: t\n    spec: s\n    covers: [rule:no-such-rule]\n    steps:\n      - args: [info]\n",
    )
    .unwrap();
    common::harness()
        .args(["list", "--cases"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("rule:no-such-rule"));
}
