//! Several plugins in one run: the combined JUnit, JSON and GitHub forms of
//! the reporters, on hand-made runs (tests/common/hand_made.rs).

use crate::common;

use std::path::PathBuf;

use agent_conform::api::RunReport;
use agent_conform::api::case::Severity;
use agent_conform::api::{github, junit};
use common::hand_made::*;
use common::junit_xml::{assert_xsd_valid, attr_count, child, xmllint_available};
use common::report_schema::{assert_valid, schemas};
use serde_json::{Value, json};

fn named(mut run: RunReport, name: &str) -> RunReport {
    run.plugin = PathBuf::from(format!("/plugins/entire-agent-{name}"));
    run
}

fn many_report() -> agent_conform::api::ManyReport {
    use agent_conform::api::{Conflict, ConflictKind, ManyReport};
    ManyReport {
        plugins: vec![
            named(passing_run(), "alpha"),
            named(failing_run(), "beta"),
            named(warning_run(), "gamma"),
        ],
        conflicts: vec![Conflict {
            kind: ConflictKind::SessionDir,
            plugins: ["alpha".to_string(), "gamma".to_string()],
            severity: Severity::Failure,
            message: "the same session directory (<repo>/.entire/tmp): gamma's events skipped"
                .to_string(),
        }],
    }
}

#[test]
fn combined_junit_has_a_suite_per_plugin_and_the_conflicts() {
    let run = many_report();
    for strict in [false, true] {
        let xml = junit::render_many(&run, strict).unwrap();
        let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let suites: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testsuite"))
            .filter_map(|n| n.attribute("name"))
            .collect();
        assert_eq!(suites, ["alpha", "beta", "gamma", "conflicts"], "{xml}");
        let conflict = doc
            .descendants()
            .find(|n| n.has_tag_name("testcase") && n.attribute("classname") == Some("conflicts"))
            .expect("a conflict test case");
        assert!(child(conflict, "failure").is_some(), "{xml}");
        let beta = doc
            .descendants()
            .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("beta"))
            .unwrap();
        assert!(attr_count(beta, "failures") > 0, "{xml}");
        if xmllint_available() {
            assert_xsd_valid(&xml, "many");
        }
    }
}

#[test]
fn combined_json_report_matches_the_schema() {
    let schemas = schemas();
    let run = many_report();
    for strict in [false, true] {
        let text = agent_conform::api::json::render_many(&run, strict);
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_valid(&schemas, &doc, "many");
        assert_eq!(doc["plugins"].as_array().map(Vec::len), Some(3));
        assert_eq!(doc["conflicts"][0]["kind"], "session_dir");
        assert_eq!(doc["conflicts"][0]["plugins"], json!(["alpha", "gamma"]));
    }
    // One plugin's document is not the combined form, nor the reverse.
    let mut broken: Value =
        serde_json::from_str(&agent_conform::api::json::render_many(&run, false)).unwrap();
    broken["plugins"][0]["unknown"] = json!(1);
    assert!(!schemas.violations("report", &broken).is_empty());
}

#[test]
fn combined_github_output_names_each_plugin_and_the_conflicts() {
    let run = many_report();
    let annotations = github::annotations_many(&run, false);
    assert!(annotations.contains("title=beta%3A core."), "{annotations}");
    assert!(
        annotations.contains("::error title=conflict%3A alpha%2C gamma::"),
        "{annotations}"
    );
    let md = github::summary_many(&run, false, None);
    assert!(
        md.starts_with("## ❌ agent-conform: FAILED (3 plugins)"),
        "{md}"
    );
    assert!(
        md.contains("| plugin | verdict | failed | warnings | notes | core |"),
        "{md}"
    );
    assert!(md.contains("| alpha | ✅ passed |"), "{md}");
    assert!(md.contains("| beta | ❌ failed |"), "{md}");
    assert!(
        md.contains("### Conflicts between the plugins installed together"),
        "{md}"
    );
    assert!(md.contains("### Failures of beta"), "{md}");
}
