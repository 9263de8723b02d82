//! The JUnit XML reporter on hand-made runs (tests/common/hand_made.rs):
//! structure and counts, read back with roxmltree, an XML parser
//! independent of the quick-junit writer (tests/common/junit_xml.rs).

use crate::common;

use agent_conform::api::junit;
use common::hand_made::*;
use common::junit_xml::{check_junit, child, suite_property, testcase};

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

/// Cases run in parallel: a test suite's time is the wall time they took
/// together, not the sum of theirs (which may exceed the whole run).
#[test]
fn junit_suite_times_are_wall_times() {
    use std::time::{Duration, Instant};
    let t0 = Instant::now();
    let s = Duration::from_secs;
    let mut a = passed("core.a", "core");
    let mut b = passed("core.b", "core");
    let mut c = passed("core.c", "core");
    // a and b overlap (0–2 s, 1–3 s); c runs alone later (5–6 s).
    a.duration = s(2);
    a.ran = vec![(t0, t0 + s(2))];
    b.duration = s(2);
    b.ran = vec![(t0 + s(1), t0 + s(3))];
    c.duration = s(1);
    c.ran = vec![(t0 + s(5), t0 + s(6))];
    let run = run_of(vec![a, b, c], Some(info(false)));
    let xml = junit::render(&run, false).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let core = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("core"))
        .expect("the core suite");
    let time: f64 = core.attribute("time").unwrap().parse().unwrap();
    assert!((time - 4.0).abs() < 1e-6, "core took {time} s, not 4 s");
}
