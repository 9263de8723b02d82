//! Plugins installed together (tests/plugins/conflicts): three plugins that
//! each pass alone and break each other on one machine. stagea and stageb
//! share the template's session directory `<repo>/.entire/tmp`; stageb and
//! sweeper report one type; sweeper's uninstall removes stagea's hooks from
//! the file both write. One run over the three reports each plugin, and
//! exactly these conflicts, and exits 1.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use agent_conform::api::schema::Schemas;
use serde_json::Value;

fn member(name: &str) -> PathBuf {
    common::plugin("conflicts").join(format!("entire-agent-{name}"))
}

fn three() -> Vec<PathBuf> {
    ["stagea", "stageb", "sweeper"].map(member).to_vec()
}

fn conflicts(report: &Value) -> Vec<(String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    report["conflicts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                text(&c["kind"]),
                text(&c["plugins"][0]),
                text(&c["plugins"][1]),
            )
        })
        .collect()
}

fn message(report: &Value, kind: &str) -> String {
    report["conflicts"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["kind"] == kind)
        .and_then(|c| c["message"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn three_plugins_that_pass_alone_conflict_when_installed_together() {
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("many.xml");
    let junit_arg = junit.to_str().expect("utf-8 path");
    let run = common::run_json_many(&three(), &["--strict", "--junit", junit_arg], &[]);
    let report = &run.report;
    assert_eq!(run.code, 1, "the conflicts fail the run");
    let violations = Schemas::compile()
        .expect("schemas")
        .violations("report", report);
    assert!(violations.is_empty(), "{violations:?}");
    let plugins = report["plugins"].as_array().expect("plugins");
    assert_eq!(plugins.len(), 3);
    for plugin in plugins {
        // Alone, the template's shared `.entire/tmp` is a warning, naming
        // what breaks once another plugin of the template is installed
        // (docs/host.md "A shared staging directory"); nothing fails.
        let name = plugin["plugin"]["info"]["name"]
            .as_str()
            .unwrap_or_default();
        let warned: Vec<&str> = plugin["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["outcome"]["kind"] == "warning")
            .filter_map(|c| c["id"].as_str())
            .collect();
        let expected: &[&str] = match name {
            "stagea" | "stageb" => &["core.get-session-dir.non-empty"],
            _ => &[],
        };
        assert_eq!(warned, expected, "{name} alone");
        assert_eq!(plugin["counts"]["failed"], 0, "{name} alone fails nothing");
    }
    let pair = |kind: &str, a: &str, b: &str| (kind.to_string(), a.to_string(), b.to_string());
    assert_eq!(
        conflicts(report),
        [
            pair("type", "stageb", "sweeper"),
            pair("session_dir", "stagea", "stageb"),
            pair("hooks", "sweeper", "stagea"),
        ]
    );
    let sessions = message(report, "session_dir");
    assert!(sessions.contains("<repo>/.entire/tmp"), "{sessions}");
    assert!(
        sessions.contains("makes stagea (first in name order) the owner"),
        "{sessions}"
    );
    assert!(
        sessions.contains("skips every hook event of stageb"),
        "{sessions}"
    );
    let hooks = message(report, "hooks");
    assert!(
        hooks.contains("<repo>/.agents/hooks.json was deleted"),
        "{hooks}"
    );
    assert!(
        hooks.contains("stagea's are-hooks-installed answered true before and false after"),
        "{hooks}"
    );
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    let doc = roxmltree::Document::parse(&xml).expect("well-formed JUnit");
    let suites: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(suites, ["stagea", "stageb", "sweeper", "conflicts"]);
    xsd_valid(&junit);
}

/// The plugins without a conflict between them: a plugin with itself under
/// another name is not one (different dirs, types and hook files).
#[test]
fn plugins_without_conflicts_pass_together() {
    let plugins = [
        member("stagea"),
        common::plugin("wild/entire-agent-renamedcount"),
    ];
    let run = common::run_json_many(&plugins, &["--only", "core.info.*"], &[]);
    assert_eq!(conflicts(&run.report), []);
    assert_eq!(run.code, 0, "{}", run.report);
}

#[test]
fn the_human_report_shows_the_matrix_and_the_conflicts() {
    let out = common::harness()
        .env("PATH", common::fast_python_path())
        .args(["--only", "core.info.*", "--only", "hooks.lifecycle.install"])
        .args(["--color", "never"])
        .args(three())
        .output()
        .expect("agent-conform runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in [
        "=== stagea ===",
        "=== stageb ===",
        "=== sweeper ===",
        "Plugins",
        "  plugin ",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("stageb") && l.ends_with("pass  skipped")),
        "{text}"
    );
    assert!(
        text.contains("failure: stagea stageb (session directory)"),
        "{text}"
    );
    assert!(
        text.contains("FAILED: 3 plugins, 0 failed, 3 conflicts"),
        "{text}"
    );
}

#[test]
fn discover_reports_the_same_conflicts_from_path() {
    let path = format!(
        "{}:{}",
        common::plugin("conflicts").display(),
        common::fast_python_path()
    );
    let out = common::harness()
        .env("PATH", path)
        .args(["discover", "--format", "json"])
        .output()
        .expect("agent-conform runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let kinds: Vec<&str> = report["conflicts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["type", "session_dir", "hooks"], "{report}");
}

#[test]
fn the_same_agent_twice_is_a_usage_error() {
    let out = common::harness()
        .args([member("stagea"), member("stagea")])
        .output()
        .expect("agent-conform runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the host registers only one plugin per name"),
        "{err}"
    );
}

fn xsd_valid(file: &std::path::Path) {
    let available = Command::new("xmllint").arg("--version").output();
    if !available.is_ok_and(|o| o.status.success()) {
        eprintln!("note: xmllint is not installed; the JUnit XSD validation is skipped");
        return;
    }
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(common::root().join("tests/data/junit.xsd"))
        .arg(file)
        .output()
        .expect("xmllint runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
