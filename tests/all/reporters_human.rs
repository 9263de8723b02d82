//! The human reporter on hand-made runs (tests/common/hand_made.rs): what a
//! reader needs of each case is there, folded or not.

use crate::common;

use std::path::PathBuf;

use agent_conform::api::{Human, Sent, Verbosity};
use common::hand_made::*;

fn human(verbosity: Verbosity) -> Human {
    Human {
        color: false,
        verbosity,
        strict: false,
        width: 100,
    }
}

/// A warning several cases meet in the same words is shown once; each of
/// the other cases still gets its step, the input it sent (inline when
/// short, else the file it was saved to) and its reproduce line.
#[test]
fn a_folded_warning_keeps_each_cases_step_input_and_reproduce_line() {
    let mut first = warned("core.reassemble.invalid-base64-a");
    let mut second = warned("core.reassemble.invalid-base64-b");
    let mut third = warned("core.reassemble.invalid-base64-c");
    first.steps[0].sent = Some(Sent::of(br#"{"chunks":["@@"]}"#));
    second.steps[0].sent = Some(Sent::of(br#"{"chunks":["eA"]}"#));
    second.steps[0].reproduce = Some("sh /sb/b/reproduce.sh 2".into());
    let long = format!(r#"{{"chunks":["{}"]}}"#, "A".repeat(500));
    let mut sent = Sent::of(long.as_bytes());
    sent.file = Some(PathBuf::from("/sb/c/stdin/1.stdin"));
    third.steps[0].sent = Some(sent);
    third.steps[0].reproduce = Some("sh /sb/c/reproduce.sh 1".into());
    let run = run_of(vec![first, second, third], Some(info(false)));
    for verbosity in [Verbosity::Normal, Verbosity::Quiet] {
        let text = human(verbosity).render(&run);
        assert_eq!(
            text.matches("WARN core.reassemble.invalid-base64-a —")
                .count(),
            1,
            "{text}"
        );
        assert!(
            !text.contains("WARN core.reassemble.invalid-base64-b —"),
            "{text}"
        );
        let folded = &text[text.find("the same warning in 2 more cases:").expect(&text)..];
        let b = &folded[folded
            .find("core.reassemble.invalid-base64-b: chunk")
            .expect(folded)..];
        assert!(b.contains(r#"stdin: {"chunks":["eA"]}"#), "{b}");
        assert!(b.contains("reproduce: sh /sb/b/reproduce.sh 2"), "{b}");
        let c = &b[b.find("core.reassemble.invalid-base64-c: chunk").expect(b)..];
        let size = long.len();
        assert!(
            c.contains(&format!("stdin: {size} bytes, /sb/c/stdin/1.stdin")),
            "{c}"
        );
        assert!(c.contains("reproduce: sh /sb/c/reproduce.sh 1"), "{c}");
        // The first case shows its own input too.
        let shown = &text[..text.find("the same warning").expect(&text)];
        assert!(shown.contains(r#"stdin: {"chunks":["@@"]}"#), "{shown}");
    }
}

#[test]
fn an_input_is_inline_only_when_it_is_one_short_printable_line() {
    assert_eq!(Sent::of(b"{}\n").inline.as_deref(), Some("{}"));
    assert_eq!(Sent::of(b"").text(), "empty");
    assert_eq!(Sent::of(b"a\nb").inline, None);
    assert_eq!(Sent::of(b"\x1b[31mred").inline, None);
    assert_eq!(Sent::of(&[0xff, 0xfe]).inline, None);
    assert_eq!(Sent::of(&[b'x'; 101]).text(), "101 bytes (not kept)");
}

/// A session timeline a person reads: `-q` shows only findings; an
/// unverified session says so once, in place of steps that tell nothing.
#[test]
fn a_timeline_shows_findings_and_an_unverified_session_says_so_once() {
    let mut steps: Vec<_> = (1..=5)
        .map(|n| step(&format!("turn {n} · hook stop · parse-hook"), vec![]))
        .collect();
    let mut session = warned("session.agent");
    session.timeline = true;
    steps.push(session.steps.remove(0));
    session.steps = steps;
    let mut unverified = session.clone();
    let why = "no TurnEnd Event came from the generic payloads";
    unverified.unverified = Some(why.to_string());
    unverified.note = Some(why.to_string());
    // As the replay words it: the warning names the reason.
    if let Some(last) = unverified.steps.last_mut() {
        last.findings[0].message = format!("the agent session is not verified: {why}");
    }
    let verified_run = run_of(vec![session], Some(info(true)));
    let normal = human(Verbosity::Normal).render(&verified_run);
    assert_eq!(normal.matches("    ok    turn ").count(), 5, "{normal}");
    let quiet = human(Verbosity::Quiet).render(&verified_run);
    assert!(
        !quiet.contains("timeline") && !quiet.contains(" ok "),
        "{quiet}"
    );

    let run = run_of(vec![unverified], Some(info(true)));
    let normal = human(Verbosity::Normal).render(&run);
    assert!(!normal.contains("    ok    "), "{normal}");
    assert!(normal.contains("timeline: 6 steps, not listed: the agent session is not verified"));
    // The headline, then the details say it once.
    let details = &normal[normal.find("WARN session.agent —").expect(&normal)..];
    assert_eq!(details.matches(why).count(), 1, "{normal}");
    let verbose = human(Verbosity::Verbose).render(&run);
    assert_eq!(verbose.matches("    ok    turn ").count(), 5, "{verbose}");
    let quiet = human(Verbosity::Quiet).render(&run);
    assert!(
        !quiet.contains("timeline") && !quiet.contains(" ok "),
        "{quiet}"
    );
}

/// A failed case's line in the list says its failure, not a note beside it
/// (a note on an earlier step, or the case's own note).
#[test]
fn a_failed_cases_headline_is_its_failure() {
    use agent_conform::api::case::Severity;
    let mut case = failed("core.detect.schema", "core");
    case.steps[0]
        .findings
        .push(finding(Severity::Note, "a note on the first step", "", ""));
    case.note = Some("a note of the case".to_string());
    let run = run_of(vec![case], Some(info(false)));
    let text = human(Verbosity::Normal).render(&run);
    // The case's line: one line, cut to the width.
    let line = text
        .lines()
        .find(|l| l.starts_with("FAIL core.detect.schema "))
        .expect(&text);
    assert!(
        line.contains("  reassemble: stdout differs") && !line.contains("note"),
        "{line}"
    );
    assert!(line.chars().count() <= 100, "{line}");
}

/// A long message folds at the width, each continuation indented under
/// its finding; the reproduce line stays whole, to be copied.
#[test]
fn long_lines_fold_and_the_reproduce_line_stays_whole() {
    use agent_conform::api::case::Severity;
    let long = "the plugin answered something the host cannot use ".repeat(20);
    let mut case = failed("core.detect.schema", "core");
    case.steps[1].findings = vec![finding(Severity::Failure, long.trim_end(), "", "")];
    let script = format!(
        "sh /tmp/{}/reproduce.sh 2",
        "a-very-long-folder-name-".repeat(6)
    );
    case.steps[1].reproduce = Some(script.clone());
    let run = run_of(vec![case], Some(info(false)));
    for verbosity in [Verbosity::Normal, Verbosity::Quiet] {
        let text = human(verbosity).render(&run);
        let reproduce = format!("  reproduce: {script}");
        assert!(text.lines().any(|l| l == reproduce), "{text}");
        // The verdict line (some 120 columns at most) stays one line.
        let verdict = |l: &str| l.starts_with("FAILED: ") || l.starts_with("PASSED: ");
        for line in text.lines().filter(|l| *l != reproduce && !verdict(l)) {
            assert!(line.chars().count() <= 100, "{line:?} in\n{text}");
        }
        let at = text.find("\n  reassemble: the plugin").expect(&text);
        let next = text[at + 1..].lines().nth(1).expect(&text);
        assert!(
            next.starts_with("    ") && !next.starts_with("     "),
            "{next:?}"
        );
    }
}
