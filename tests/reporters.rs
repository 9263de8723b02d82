//! The machine-readable reporters: JUnit XML, GitHub annotations and step
//! summary, and the JSON report against `schemas/report.json`.
//!
//! Most tests build `RunReport`s by hand (a passing run, a run where every
//! case fails, a run whose gate failed, a run with a warning) so that every
//! outcome is covered without running a plugin. The JUnit XML is read back
//! with roxmltree, an XML parser independent of the quick-junit writer. Where
//! `xmllint` is installed, JUnit files from real runs are also validated
//! against the common JUnit XSD (`tests/data/junit.xsd`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agent_conform::outcome::Finding;
use agent_conform::outcome::results::{CaseOutcome, CaseReport, Counts, RunReport, StepReport};
use agent_conform::report::{github, junit};
use agent_conform::suite::case::Severity;
use agent_conform::suite::schema::Schemas;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Hand-made runs.

fn finding(severity: Severity, message: &str, expected: &str, actual: &str) -> Finding {
    Finding {
        severity,
        ..Finding::failure(message).diff(expected, actual)
    }
}

fn step(name: &str, findings: Vec<Finding>) -> StepReport {
    StepReport {
        name: name.to_string(),
        args: vec![name.to_string(), "--flag".to_string()],
        command: format!(
            "cd /tmp/sb/repo && HOME=/tmp/sb/home ENTIRE_REPO_ROOT=/tmp/sb/repo \
             ENTIRE_PROTOCOL_VERSION=1 /plugins/entire-agent-x {name} --flag < /dev/null"
        ),
        replay: None,
        reproduce: None,
        printed: None,
        exit_code: Some(if findings.is_empty() { 0 } else { 1 }),
        termination: "exited".to_string(),
        duration: Duration::from_micros(12_345),
        stdout_bytes: 17,
        stderr_bytes: 0,
        stderr_excerpt: String::new(),
        findings,
    }
}

fn case(id: &str, capability: &str, outcome: CaseOutcome, steps: Vec<StepReport>) -> CaseReport {
    CaseReport {
        id: id.to_string(),
        title: format!("{id} does what the spec says, with <angle> & \"quotes\""),
        spec: "protocol \"x\"".to_string(),
        capability: capability.to_string(),
        severity: Severity::Failure,
        sandbox: matches!(outcome, CaseOutcome::Failed | CaseOutcome::Warning)
            .then(|| PathBuf::from(format!("/tmp/agent-conform-{id}-abc"))),
        outcome,
        note: None,
        duration: Duration::from_millis(250),
        steps,
        host_calls: Vec::new(),
        timeline: false,
    }
}

fn info(hooks: bool) -> Value {
    json!({
        "protocol_version": 1,
        "name": "x",
        "type": "X Agent",
        "description": "a test agent",
        "capabilities": {"hooks": hooks, "transcript_analyzer": false}
    })
}

fn run_of(cases: Vec<CaseReport>, info: Option<Value>) -> RunReport {
    RunReport {
        plugin: PathBuf::from("/plugins/entire-agent-x"),
        hosts: agent_conform::outcome::results::Hosts {
            requirement: ">=0.5.0".into(),
            releases: "0.5.0–0.12.x".into(),
        },
        info,
        cases,
        wall: Duration::from_millis(1234),
        invocations: Duration::from_millis(2345),
        jobs: 2,
        seed: 42,
        peak_rss_bytes: Some(12 << 20),
    }
}

fn passed(id: &str, capability: &str) -> CaseReport {
    case(
        id,
        capability,
        CaseOutcome::Passed,
        vec![step("detect", vec![])],
    )
}

fn passing_run() -> RunReport {
    run_of(
        vec![
            passed("discovery.info", "core"),
            passed("core.detect.schema", "core"),
            passed("core.chunk.round-trip", "core"),
            passed("hooks.install.idempotent", "hooks"),
            passed("hooks.parse.session-start", "hooks"),
        ],
        Some(info(true)),
    )
}

/// A failing case with a multi-line diff, a stderr excerpt with an ANSI
/// escape and XML-special characters, and a message spanning lines.
fn failed(id: &str, capability: &str) -> CaseReport {
    let mut s = step(
        "reassemble",
        vec![
            finding(
                Severity::Failure,
                "stdout differs from the expected bytes:\nfirst difference at byte 12 (100% <sure> & \"so\")",
                "line one\nline two\nline three\n",
                "line one\nline 2\nline three\n\n",
            ),
            finding(Severity::Warning, "slow: took 9 s", "under 5 s", "9 s"),
        ],
    );
    s.stderr_excerpt =
        "\u{1b}[31merror:\u{1b}[0m bad <input> & worse\nsecond \u{0}\u{7}\u{FFFF} line\n"
            .to_string();
    s.stderr_bytes = s.stderr_excerpt.len();
    s.reproduce = Some(format!("sh /tmp/agent-conform-{id}-abc/reproduce.sh 2"));
    case(
        id,
        capability,
        CaseOutcome::Failed,
        vec![step("chunk", vec![]), s],
    )
}

/// Every case fails, in two capability groups.
fn failing_run() -> RunReport {
    run_of(
        vec![
            failed("discovery.info", "core"),
            failed("core.detect.schema", "core"),
            failed("core.chunk.round-trip", "core"),
            failed("hooks.install.idempotent", "hooks"),
        ],
        Some(info(true)),
    )
}

/// A mixed run: failures, a warning, a skipped capability, a pass.
fn mixed_run() -> RunReport {
    run_of(
        vec![
            passed("discovery.info", "core"),
            failed("core.chunk.round-trip", "core"),
            warned("core.chunk.refusal"),
            case(
                "transcript_analyzer.position",
                "transcript_analyzer",
                CaseOutcome::Skipped(
                    "capability transcript_analyzer is not declared in info".to_string(),
                ),
                vec![],
            ),
            passed("hooks.install.idempotent", "hooks"),
        ],
        Some(info(true)),
    )
}

const GATE_REASON: &str =
    "not run: discovery.info failed (info: at /protocol_version: not the expected value)";

/// The gate failed: every other case is not run.
fn gate_run() -> RunReport {
    let mut cases = vec![failed("discovery.info", "core")];
    for (id, cap) in [
        ("core.detect.schema", "core"),
        ("core.chunk.round-trip", "core"),
        ("hooks.install.idempotent", "hooks"),
        ("hooks.parse.session-start", "hooks"),
    ] {
        cases.push(case(
            id,
            cap,
            CaseOutcome::NotRun(GATE_REASON.to_string()),
            vec![],
        ));
    }
    run_of(cases, None)
}

/// A warning case: a clean refusal accepted with a note.
fn warned(id: &str) -> CaseReport {
    let mut c = case(
        id,
        "core",
        CaseOutcome::Warning,
        vec![step(
            "chunk",
            vec![finding(
                Severity::Warning,
                "the plugin refused a JSONL transcript,\nso chunking was not verified",
                "exit 0",
                "exit 1",
            )],
        )],
    );
    c.severity = Severity::Warning;
    c
}

fn warning_run() -> RunReport {
    run_of(
        vec![
            passed("discovery.info", "core"),
            warned("core.chunk.refusal"),
            passed("core.detect.schema", "core"),
        ],
        Some(info(false)),
    )
}

// ---------------------------------------------------------------------------
// JUnit: structure and counts, read back with an independent XML parser.

/// Counts of one `<testsuite>` as written in its attributes and as counted
/// from its `<testcase>` children: (tests, failures, errors, skipped).
type Four = (usize, usize, usize, usize);

fn attr_count(node: roxmltree::Node, name: &str) -> usize {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name} attribute", node.tag_name().name()))
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children().find(|n| n.has_tag_name(name))
}

fn children<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(move |n| n.has_tag_name(name))
}

/// Parses a JUnit document and checks it against the run: every suite's
/// counts equal those of its test cases, the totals equal the run's counts
/// (warnings are failures under `strict`), one suite per capability group in
/// order, and every test case has the capability as classname and the case's
/// time. Returns the totals.
fn check_junit(run: &RunReport, strict: bool, xml: &str) -> Four {
    let doc = roxmltree::Document::parse(xml)
        .unwrap_or_else(|e| panic!("the JUnit XML does not parse: {e}\n{xml}"));
    let root = doc.root_element();
    assert!(root.has_tag_name("testsuites"));
    assert_eq!(root.attribute("name"), Some("agent-conform"));
    assert_eq!(
        root.attribute("skipped"),
        None,
        "the common XSD has no skipped on <testsuites>"
    );
    let mut totals: Four = (0, 0, 0, 0);
    let mut names = Vec::new();
    for suite in children(root, "testsuite") {
        let name = suite.attribute("name").expect("suite name").to_string();
        let cases: Vec<_> = children(suite, "testcase").collect();
        let with = |tag: &str| cases.iter().filter(|c| child(**c, tag).is_some()).count();
        let counted: Four = (cases.len(), with("failure"), with("error"), with("skipped"));
        let written: Four = (
            attr_count(suite, "tests"),
            attr_count(suite, "failures"),
            attr_count(suite, "errors"),
            attr_count(suite, "skipped"),
        );
        assert_eq!(written, counted, "suite {name}: attributes vs test cases");
        for c in &cases {
            assert_eq!(c.attribute("classname"), Some(name.as_str()));
            let id = c.attribute("name").expect("name");
            let case = run.cases.iter().find(|k| k.id == id).expect("a case");
            let time: f64 = c.attribute("time").expect("time").parse().expect("number");
            assert!(
                (time - case.duration.as_secs_f64()).abs() < 0.001,
                "{id}: time {time}"
            );
        }
        totals = (
            totals.0 + counted.0,
            totals.1 + counted.1,
            totals.2 + counted.2,
            totals.3 + counted.3,
        );
        names.push(name);
    }
    let c = run.counts();
    let expected: Four = (
        c.total(),
        c.failed + if strict { c.warnings } else { 0 },
        0,
        c.skipped + c.not_run,
    );
    assert_eq!(totals, expected, "totals vs RunReport::counts()");
    assert_eq!(attr_count(root, "tests"), totals.0);
    assert_eq!(attr_count(root, "failures"), totals.1);
    assert_eq!(attr_count(root, "errors"), totals.2);
    let groups: Vec<String> = run
        .groups()
        .into_iter()
        .filter(|g| run.cases.iter().any(|c| &c.capability == g))
        .collect();
    assert_eq!(names, groups, "one suite per capability group, in order");
    totals
}

fn testcase<'a, 'i>(doc: &'a roxmltree::Document<'i>, id: &str) -> roxmltree::Node<'a, 'i> {
    doc.descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(id))
        .unwrap_or_else(|| panic!("no testcase {id}"))
}

fn suite_property<'a>(doc: &'a roxmltree::Document, suite: &str, name: &str) -> Option<&'a str> {
    doc.descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some(suite))
        .and_then(|s| child(s, "properties"))
        .and_then(|p| children(p, "property").find(|n| n.attribute("name") == Some(name)))
        .and_then(|n| n.attribute("value"))
}

#[test]
fn junit_of_a_passing_run() {
    let run = passing_run();
    let xml = junit::render(&run, true).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    assert_eq!(check_junit(&run, true, &xml), (5, 0, 0, 0));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(
        suite_property(&doc, "hooks", "agent-conform.declared"),
        Some("yes")
    );
    assert_eq!(
        suite_property(&doc, "core", "agent-conform.declared"),
        Some("required")
    );
}

#[test]
fn junit_of_a_run_failing_every_case() {
    let run = failing_run();
    let xml = junit::render(&run, false).unwrap();
    assert_eq!(check_junit(&run, false, &xml), (4, 4, 0, 0));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let tc = testcase(&doc, "core.chunk.round-trip");
    let failure = child(tc, "failure").expect("a failure element");
    let message = failure.attribute("message").unwrap();
    assert!(!message.contains('\n'), "one line: {message:?}");
    assert_eq!(
        message,
        "reassemble: stdout differs from the expected bytes: first difference at byte 12 (100% <sure> & \"so\") [check]"
    );
    assert_eq!(failure.attribute("type"), Some("failed"));
    let body = failure.text().unwrap_or_default();
    for needle in [
        "core.chunk.round-trip — ",
        "step \"reassemble\" (reassemble --flag):",
        "failure: stdout differs",
        "--- expected",
        "+++ actual",
        "-line two",
        "+line 2",
        "warning: slow: took 9 s",
        "expected: under 5 s",
        "actual:   9 s",
        "| error: bad <input> & worse",
        "| second \u{FFFD} line",
        "reproduce:",
        "/plugins/entire-agent-x reassemble --flag < /dev/null",
        "sandbox kept: /tmp/agent-conform-core.chunk.round-trip-abc",
    ] {
        assert!(body.contains(needle), "{needle:?} not in the body:\n{body}");
    }
    assert!(!body.contains('\u{1b}'), "ANSI escapes are stripped");
    // A step without findings is not detailed.
    assert!(!body.contains("step \"chunk\""));
}

#[test]
fn junit_of_a_run_whose_gate_failed() {
    let run = gate_run();
    let xml = junit::render(&run, true).unwrap();
    assert_eq!(check_junit(&run, true, &xml), (5, 1, 0, 4));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert!(child(testcase(&doc, "discovery.info"), "failure").is_some());
    let skipped = child(testcase(&doc, "hooks.install.idempotent"), "skipped").unwrap();
    assert_eq!(skipped.attribute("message"), Some(GATE_REASON));
    assert_eq!(skipped.attribute("type"), Some("not-run"));
    // Without info, no optional capability counts as declared.
    assert_eq!(
        suite_property(&doc, "hooks", "agent-conform.declared"),
        Some("no")
    );
}

#[test]
fn junit_skipped_capability_carries_the_reason() {
    let run = mixed_run();
    let xml = junit::render(&run, false).unwrap();
    assert_eq!(check_junit(&run, false, &xml), (5, 1, 0, 1));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let skipped = child(testcase(&doc, "transcript_analyzer.position"), "skipped").unwrap();
    assert_eq!(
        skipped.attribute("message"),
        Some("capability transcript_analyzer is not declared in info")
    );
    assert_eq!(skipped.attribute("type"), Some("skipped"));
}

#[test]
fn junit_warning_is_visible_but_fails_only_under_strict() {
    let run = warning_run();

    let lenient = junit::render(&run, false).unwrap();
    assert_eq!(check_junit(&run, false, &lenient), (3, 0, 0, 0));
    let doc = roxmltree::Document::parse(&lenient).unwrap();
    let tc = testcase(&doc, "core.chunk.refusal");
    assert!(child(tc, "failure").is_none());
    let out = child(tc, "system-out").and_then(|n| n.text()).unwrap();
    assert!(
        out.starts_with("warning: chunk: the plugin refused a JSONL transcript, so chunking"),
        "{out}"
    );
    assert!(out.contains("reproduce:"), "{out}");
    assert_eq!(
        suite_property(&doc, "core", "agent-conform.outcome.core.chunk.refusal"),
        Some("warning")
    );
    assert_eq!(
        suite_property(&doc, "core", "agent-conform.strict"),
        Some("false")
    );
    let suite_out = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .and_then(|s| child(s, "system-out"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(suite_out.contains("warning: core.chunk.refusal: chunk: the plugin refused"));

    let strict = junit::render(&run, true).unwrap();
    assert_eq!(check_junit(&run, true, &strict), (3, 1, 0, 0));
    let doc = roxmltree::Document::parse(&strict).unwrap();
    let failure = child(testcase(&doc, "core.chunk.refusal"), "failure").unwrap();
    assert_eq!(failure.attribute("type"), Some("warning"));
    assert_eq!(
        suite_property(&doc, "core", "agent-conform.outcome.core.chunk.refusal"),
        Some("warning")
    );
}

#[test]
fn junit_of_an_empty_run_is_a_valid_document() {
    let run = run_of(vec![], None);
    let xml = junit::render(&run, false).unwrap();
    assert_eq!(check_junit(&run, false, &xml), (0, 0, 0, 0));
}

// ---------------------------------------------------------------------------
// GitHub annotations and step summary.

#[test]
fn annotations_one_per_failed_or_warned_case_escaped() {
    let run = mixed_run();
    let text = github::annotations(&run, false);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(
        lines[0],
        "::error title=core.chunk.round-trip::reassemble: stdout differs from the expected bytes: \
         first difference at byte 12 (100%25 <sure> & \"so\")"
    );
    assert!(
        lines[1].starts_with("::warning title=core.chunk.refusal::warning: chunk: the plugin"),
        "{}",
        lines[1]
    );
    // Under strict, the warning fails the run: an error.
    let strict = github::annotations(&run, true);
    assert!(
        strict.lines().all(|l| l.starts_with("::error ")),
        "{strict}"
    );
    // A passing run has none.
    assert_eq!(github::annotations(&passing_run(), true), "");
    // The gate failure is the only annotation of a gate run.
    assert_eq!(github::annotations(&gate_run(), true).lines().count(), 1);
}

#[test]
fn annotation_escaping_follows_github() {
    assert_eq!(github::escape_data("a%b\r\nc"), "a%25b%0D%0Ac");
    assert_eq!(github::escape_property("x:y,z%\n"), "x%3Ay%2Cz%25%0A");
    // A message that would span lines stays on one line in every case.
    let mut c = failed("core.a:b,c", "core");
    c.steps[1].findings[0].message = "one\ntwo\r\nthree".to_string();
    let text = github::annotations(&run_of(vec![c], None), false);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("::error title=core.a%3Ab%2Cc::reassemble: one two three"));
}

#[test]
fn summary_has_the_verdict_the_table_and_the_failures() {
    let run = mixed_run();
    let md = github::summary_markdown(&run, false);
    assert!(md.starts_with("## ❌ agent-conform: FAILED\n"), "{md}");
    assert!(md.contains(
        "| capability | declared | passed | failed | warnings | notes | skipped | not run |\n|---|---|--:|--:|--:|--:|--:|--:|\n"
    ));
    assert!(
        md.contains("| core | required | 1 | 1 | 1 | 0 | 0 | 0 |"),
        "{md}"
    );
    assert!(
        md.contains("| transcript\\_analyzer | no | 0 | 0 | 0 | 0 | 1 | 0 |"),
        "{md}"
    );
    assert!(
        md.contains("| hooks | yes | 1 | 0 | 0 | 0 | 0 | 0 |"),
        "{md}"
    );
    assert!(md.contains("**2 passed, 1 failed, 1 warnings, 0 notes, 1 skipped, 0 not run in "));
    let failures = md.find("### Failures").expect("a Failures section");
    let warnings = md.find("### Warnings").expect("a Warnings section");
    assert!(failures < warnings);
    let section = &md[failures..warnings];
    assert!(section.contains("#### `core.chunk.round-trip` — core.chunk.round-trip does what the spec says, with \\<angle\\> \\& \"quotes\""), "{section}");
    assert!(
        section.contains("Step `reassemble`: stdout differs"),
        "{section}"
    );
    assert!(
        section.contains("```diff\n--- expected\n+++ actual\n"),
        "{section}"
    );
    assert!(
        section.contains("```sh\ncd /tmp/sb/repo && \\\n"),
        "{section}"
    );
    assert!(!section.contains("core.chunk.refusal"));

    // Strict: the warning moves into the failures; no Warnings section.
    let strict = github::summary_markdown(&run, true);
    assert!(!strict.contains("### Warnings"));
    assert!(strict[strict.find("### Failures").unwrap()..].contains("core.chunk.refusal"));
    assert!(strict.contains("(strict: warnings fail)"));
}

#[test]
fn summary_of_passing_and_gate_runs() {
    let md = github::summary_markdown(&passing_run(), true);
    assert!(md.starts_with("## ✅ agent-conform: PASSED\n"), "{md}");
    assert!(
        md.contains("| hooks | yes | 2 | 0 | 0 | 0 | 0 | 0 |"),
        "{md}"
    );
    assert!(!md.contains("### Failures"));

    let md = github::summary_markdown(&gate_run(), false);
    assert!(md.contains("no usable `info` output"), "{md}");
    assert!(
        md.contains("| core | required | 0 | 1 | 0 | 0 | 0 | 2 |"),
        "{md}"
    );
    assert!(
        md.contains("| hooks | no | 0 | 0 | 0 | 0 | 0 | 2 |"),
        "{md}"
    );
    assert!(
        md.contains("4 cases not run: not run: discovery.info failed"),
        "{md}"
    );
    assert!(md.contains("#### `discovery.info`"), "{md}");
}

#[test]
fn summary_warning_run_passes_unless_strict() {
    let run = warning_run();
    assert!(github::summary_markdown(&run, false).starts_with("## ✅"));
    assert!(github::summary_markdown(&run, true).starts_with("## ❌"));
}

#[test]
fn summary_code_blocks_survive_backticks() {
    let mut c = failed("core.x", "core");
    c.steps[1].findings[0].expected = Some("a\n```\nb\n".to_string());
    let md = github::summary_markdown(&run_of(vec![c], None), false);
    assert!(md.contains("````diff\n"), "{md}");
}

// ---------------------------------------------------------------------------
// The JSON report against schemas/report.json.

fn schemas() -> Schemas {
    Schemas::compile().expect("the schemas compile")
}

fn assert_valid(schemas: &Schemas, doc: &Value, what: &str) {
    let violations = schemas.violations("report", doc);
    assert!(
        violations.is_empty(),
        "{what}: the report does not match schemas/report.json:\n{}",
        violations.join("\n")
    );
}

#[test]
fn hand_made_json_reports_match_the_schema() {
    let schemas = schemas();
    for (what, run) in [
        ("passing", passing_run()),
        ("failing", failing_run()),
        ("mixed", mixed_run()),
        ("gate", gate_run()),
        ("warning", warning_run()),
    ] {
        for strict in [false, true] {
            let text = agent_conform::report::json::render(&run, strict);
            let doc: Value = serde_json::from_str(&text).unwrap();
            assert_valid(&schemas, &doc, what);
        }
    }
}

#[test]
fn the_schema_rejects_what_the_report_never_holds() {
    let schemas = schemas();
    let run = mixed_run();
    let good = agent_conform::report::json::document(&run, false);
    let mut unknown = good.clone();
    unknown["cases"][0]["surprise"] = json!(1);
    assert!(!schemas.violations("report", &unknown).is_empty());
    let mut no_reason = good.clone();
    no_reason["cases"][3]["outcome"] = json!({"kind": "skipped"});
    assert!(!schemas.violations("report", &no_reason).is_empty());
    let mut bad_kind = good;
    bad_kind["cases"][0]["outcome"]["kind"] = json!("not-run");
    assert!(!schemas.violations("report", &bad_kind).is_empty());
}

/// Runs the built binary with `--format json` (sandboxes in a temporary
/// directory that is removed afterwards) and returns the decoded report.
fn real_json_report(plugin: &Path) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::harness()
        .args(["--format", "json", "--sandbox-dir"])
        .arg(tmp.path())
        .arg(plugin)
        .env("TMPDIR", tmp.path())
        .output()
        .expect("agent-conform runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the JSON report does not parse ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn real_json_reports_match_the_schema() {
    let schemas = schemas();
    let doc = real_json_report(&common::plugin("entire-agent-pyconform"));
    assert_valid(&schemas, &doc, "pyconform");
    // Per-step durations are there.
    let steps = doc["cases"][0]["steps"].as_array().unwrap();
    assert!(steps[0]["duration_ms"].as_f64().unwrap() > 0.0);

    // A gate failure (info null, every other case not run with a reason).
    let doc = real_json_report(&common::plugin("broken/entire-agent-bad-info"));
    assert_valid(&schemas, &doc, "bad-info");
    assert_eq!(doc["cases"][1]["outcome"]["kind"], "not_run");
}

// ---------------------------------------------------------------------------
// The common JUnit XSD, with xmllint, on JUnit files of real runs.

fn xmllint_available() -> bool {
    Command::new("xmllint")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn xsd() -> PathBuf {
    common::root().join("tests").join("data").join("junit.xsd")
}

/// Validates a JUnit document with xmllint against tests/data/junit.xsd.
fn assert_xsd_valid(xml: &str, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{what}.xml"));
    std::fs::write(&file, xml).unwrap();
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd())
        .arg(&file)
        .output()
        .expect("xmllint runs");
    assert!(
        out.status.success(),
        "{what}: the JUnit file does not validate against the XSD:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the embedded suite in-process on a plugin: the whole suite, or only
/// the gate and the cases whose id starts with one of `only` (to keep the
/// test short). The sandboxes of cases that did not pass are kept by the
/// harness; they are removed here, by the paths the report gives.
fn real_run(plugin: &Path, only: &[&str]) -> RunReport {
    let schemas = schemas();
    let mut suite = agent_conform::suite::case::load(&[], &schemas).expect("the suite loads");
    if !only.is_empty() {
        suite
            .cases
            .retain(|c| c.gate || only.iter().any(|p| c.id.starts_with(p)));
    }
    let options = agent_conform::execute::Options {
        timeout: Duration::from_secs(30),
        info_timeout: Duration::from_secs(10),
        keep_temp: false,
        jobs: 2,
        seed: 7,
        sandbox_base: std::env::temp_dir(),
        fail_fast: false,
        hosts: Default::default(),
        confine: false,
        max_write: 256 << 20,
    };
    let run = agent_conform::execute::run(
        plugin,
        &suite,
        &schemas,
        &options,
        &agent_conform::report::progress::Silent,
    );
    for dir in run.cases.iter().filter_map(|c| c.sandbox.as_ref()) {
        let ours = dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("agent-conform-"));
        if ours {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    run
}

/// The human report's closing counts, as (passed, failed, warnings, skipped,
/// not run).
fn human_counts(run: &RunReport, strict: bool) -> Counts {
    let human = agent_conform::report::human::Human {
        color: false,
        verbosity: agent_conform::report::human::Verbosity::Quiet,
        strict,
    };
    let text = human.render(run);
    let line = text
        .lines()
        .filter(|l| l.starts_with("PASSED: ") || l.starts_with("FAILED: "))
        .rfind(|l| l.contains(" passed, "))
        .unwrap_or_else(|| panic!("no verdict line in:\n{text}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .filter(|w| !w.is_empty() && !w.contains('.'))
        .map(|w| w.parse().unwrap())
        .collect();
    Counts {
        passed: numbers[0],
        failed: numbers[1],
        warnings: numbers[2],
        notes: numbers[3],
        skipped: numbers[4],
        not_run: numbers[5],
    }
}

#[test]
fn junit_files_validate_against_the_common_xsd() {
    if !xmllint_available() {
        eprintln!(
            "note: xmllint is not installed (apt-get install libxml2-utils); \
             the JUnit XSD validation is skipped"
        );
        return;
    }
    // Hand-made runs: every outcome, strict or not.
    for (what, run) in [
        ("passing", passing_run()),
        ("failing", failing_run()),
        ("mixed", mixed_run()),
        ("gate", gate_run()),
        ("warning", warning_run()),
        ("empty", run_of(vec![], None)),
    ] {
        for strict in [false, true] {
            assert_xsd_valid(&junit::render(&run, strict).unwrap(), what);
        }
    }

    // Real runs: passing (the Python plugin), failing (a wrong round trip),
    // and a failed gate (bad info). Their counts match the human report's.
    // The passing run is cut to a few core cases, the hooks cases (declared)
    // and the transcript_analyzer ones (skipped); the failing run to the
    // round-trip cases. Both keep the gate.
    for (what, plugin, only, expect_failed) in [
        (
            "pyconform",
            "entire-agent-pyconform",
            &[
                "core.info.",
                "core.detect.",
                "hooks.",
                "compact_transcript.",
            ][..],
            false,
        ),
        (
            "bad-roundtrip",
            "broken/entire-agent-bad-roundtrip",
            &["core.chunk.", "core.reassemble."][..],
            true,
        ),
        ("bad-info", "broken/entire-agent-bad-info", &[][..], true),
    ] {
        let run = real_run(&common::plugin(plugin), only);
        assert_eq!(run.failed(true), expect_failed, "{what}");
        let xml = junit::render(&run, true).unwrap();
        assert_xsd_valid(&xml, what);
        let (tests, failures, _, skipped) = check_junit(&run, true, &xml);
        let human = human_counts(&run, true);
        assert_eq!(human, run.counts(), "{what}: human summary vs counts");
        assert_eq!(tests, human.total(), "{what}");
        assert_eq!(failures, human.failed + human.warnings, "{what} (strict)");
        assert_eq!(skipped, human.skipped + human.not_run, "{what}");
        if what == "pyconform" {
            assert!(human.passed > 0 && human.skipped > 0, "{what}: {human:?}");
        }
        if what == "bad-info" {
            assert_eq!(human.failed, 1);
            assert_eq!(human.not_run, run.cases.len() - 1);
        }
    }
}

// ---------------------------------------------------------------------------
// Several plugins in one run: the combined JUnit, JSON and GitHub forms.

fn named(mut run: RunReport, name: &str) -> RunReport {
    run.plugin = PathBuf::from(format!("/plugins/entire-agent-{name}"));
    run
}

fn together() -> agent_conform::outcome::together::Together {
    use agent_conform::outcome::together::{Conflict, ConflictKind, Together};
    Together {
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
    let run = together();
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
            assert_xsd_valid(&xml, "together");
        }
    }
}

#[test]
fn combined_json_report_matches_the_schema() {
    let schemas = schemas();
    let run = together();
    for strict in [false, true] {
        let text = agent_conform::report::json::render_many(&run, strict);
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_valid(&schemas, &doc, "together");
        assert_eq!(doc["plugins"].as_array().map(Vec::len), Some(3));
        assert_eq!(doc["conflicts"][0]["kind"], "session_dir");
        assert_eq!(doc["conflicts"][0]["plugins"], json!(["alpha", "gamma"]));
    }
    // One plugin's document is not the combined form, nor the reverse.
    let mut broken: Value =
        serde_json::from_str(&agent_conform::report::json::render_many(&run, false)).unwrap();
    broken["plugins"][0]["unknown"] = json!(1);
    assert!(!schemas.violations("report", &broken).is_empty());
}

#[test]
fn combined_github_output_names_each_plugin_and_the_conflicts() {
    let run = together();
    let annotations = github::annotations_many(&run, false);
    assert!(annotations.contains("title=beta%3A core."), "{annotations}");
    assert!(
        annotations.contains("::error title=conflict%3A alpha%2C gamma::"),
        "{annotations}"
    );
    let md = github::summary_many(&run, false);
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
