//! The GitHub reporters on hand-made runs (tests/common/hand_made.rs):
//! workflow annotations and the step summary.

use crate::common;

use agent_conform::api::github;
use common::hand_made::*;

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
    let md = github::summary_markdown(&run, false, None);
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
    let strict = github::summary_markdown(&run, true, None);
    assert!(!strict.contains("### Warnings"));
    assert!(strict[strict.find("### Failures").unwrap()..].contains("core.chunk.refusal"));
    assert!(strict.contains("(strict: warnings fail)"));
}

#[test]
fn summary_of_passing_and_gate_runs() {
    let md = github::summary_markdown(&passing_run(), true, None);
    assert!(md.starts_with("## ✅ agent-conform: PASSED\n"), "{md}");
    assert!(
        md.contains("| hooks | yes | 2 | 0 | 0 | 0 | 0 | 0 |"),
        "{md}"
    );
    assert!(!md.contains("### Failures"));

    let md = github::summary_markdown(&gate_run(), false, None);
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
    assert!(github::summary_markdown(&run, false, None).starts_with("## ✅"));
    assert!(github::summary_markdown(&run, true, None).starts_with("## ❌"));
}

#[test]
fn summary_code_blocks_survive_backticks() {
    let mut c = failed("core.x", "core");
    c.steps[1].findings[0].expected = Some("a\n```\nb\n".to_string());
    let md = github::summary_markdown(&run_of(vec![c], None), false, None);
    assert!(md.contains("````diff\n"), "{md}");
}

/// The reproduce commands of a CI summary are paths on a runner that is
/// gone: the summary says so once, before them, and where the action put
/// the sandboxes.
#[test]
fn summary_says_the_reproduce_paths_are_on_the_runner() {
    let run = mixed_run();
    let md = github::summary_markdown(&run, false, Some("agent-conform-sandboxes"));
    let note = md
        .find("paths on the CI runner")
        .expect("the runner paragraph");
    assert!(note < md.find("### Failures").expect("failures"), "{md}");
    assert_eq!(md.matches("paths on the CI runner").count(), 1, "{md}");
    assert!(
        md.contains("gh run download <run id> -n agent-conform-sandboxes"),
        "{md}"
    );
    let bare = github::summary_markdown(&run, false, None);
    assert!(bare.contains("--sandbox-dir DIR"), "{bare}");
    let passing = github::summary_markdown(&passing_run(), true, Some("x"));
    assert!(!passing.contains("CI runner"), "{passing}");
}
