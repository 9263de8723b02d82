//! The JUnit XML report (`--junit PATH`), for the test reporters of CI
//! systems (GitHub, GitLab, Jenkins, Buildkite).
//!
//! Shape: one `<testsuite>` per capability group (`core`, `hooks`,
//! `transcript_analyzer`, ...), one `<testcase>` per case (classname = the
//! capability, name = the case id, time = the case's wall time; a suite's
//! time is the wall time its cases took together, run in parallel, never
//! their sum).
//!
//! - A failed case has a `<failure>` whose `message` is one line ending in
//!   the code of the finding that decided it (`[timeout]`, as `--allow`
//!   takes it) and whose body holds every finding with its code, what was
//!   expected and what came back (a
//!   unified diff for multi-line text), the stderr excerpt and the command that
//!   reproduces the step.
//! - A skipped case (capability not declared) and a case not run (the gate
//!   failed) are `<skipped>` with the reason; `type` tells them apart
//!   (`skipped` or `not-run`).
//! - A warning is a success with the details in the test case's
//!   `<system-out>`, and a property `agent-conform.outcome.<case id>` =
//!   `warning` on its suite; under `--strict` it is a `<failure type="warning">`.
//!
//! Over several plugins (`agent-conform A B ...`, [`render_many`]): one
//! `<testsuite>` per plugin, named after it (classname = plugin.capability),
//! and a `<testsuite name="conflicts">` with a failed test case per conflict
//! between the plugins installed together (one passing case when none).
//!
//! The document validates against the common JUnit XSD (the Jenkins xunit
//! `junit-10.xsd`, see `tests/data/junit.xsd`): that schema allows no
//! `<properties>` inside a `<testcase>` and no `skipped` attribute on
//! `<testsuites>`, so warnings are flagged by suite properties and the root's
//! `skipped` count (which readers recompute from the test cases) is left out.
//! The counts of every `<testsuite>` are those of its test cases.

use std::fmt::Write as _;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::outcome::Finding;
use crate::outcome::many::{Conflict, ManyReport, plugin_name};
use crate::outcome::results::{CaseOutcome, CaseReport, RunReport, StepReport};

/// The `name` of the report's root `<testsuites>` element.
pub const REPORT_NAME: &str = "agent-conform";

/// Prefix of the suite property that flags a warned case: the property
/// `agent-conform.outcome.<case id>` has the value `warning`.
pub const OUTCOME_PROPERTY_PREFIX: &str = "agent-conform.outcome.";

/// At most this many lines of a diff are kept in a failure's body.
const MAX_DIFF_LINES: usize = 200;

/// At most this many lines of a stderr excerpt are kept in a failure's body.
const MAX_STDERR_LINES: usize = 40;

/// At most this many characters in a one-line message.
const MAX_MESSAGE_CHARS: usize = 400;

/// Renders the run as a JUnit XML document (UTF-8, ending in a newline).
///
/// `strict` makes warnings failures, as `--strict` does for the exit code.
/// The document is produced for every run, including one where the plugin
/// fails every case and one where the gate (`discovery.info`) failed and every
/// other case was not run. The error is quick-junit's serializer failing,
/// which writing to memory should never do.
pub fn render(run: &RunReport, strict: bool) -> Result<String, String> {
    let mut report = Report::new(REPORT_NAME);
    report.set_time(run.wall);
    for group in run.groups() {
        let cases: Vec<&CaseReport> = run.cases.iter().filter(|c| c.capability == group).collect();
        if cases.is_empty() {
            continue;
        }
        report.add_test_suite(suite(run, &group, &cases, strict));
    }
    let xml = report
        .to_string()
        .map_err(|err| format!("cannot serialize the JUnit report: {err}"))?;
    // quick-junit drops the control characters XML 1.0 forbids; the two
    // non-characters it also forbids can still come from a plugin's output.
    let xml = xml.replace(['\u{FFFE}', '\u{FFFF}'], "\u{FFFD}");
    Ok(drop_root_skipped(xml, report.skipped))
}

/// Renders a run over several plugins: a test suite per plugin, then the
/// conflicts between them (see the module's documentation).
pub fn render_many(run: &ManyReport, strict: bool) -> Result<String, String> {
    let mut report = Report::new(REPORT_NAME);
    report.set_time(run.plugins.iter().map(|p| p.wall).max().unwrap_or_default());
    for plugin in &run.plugins {
        report.add_test_suite(plugin_suite(plugin, strict));
    }
    report.add_test_suite(conflicts_suite(&run.conflicts));
    let xml = report
        .to_string()
        .map_err(|err| format!("cannot serialize the JUnit report: {err}"))?;
    let xml = xml.replace(['\u{FFFE}', '\u{FFFF}'], "\u{FFFD}");
    Ok(drop_root_skipped(xml, report.skipped))
}

/// One plugin's cases as one test suite named after it.
fn plugin_suite(run: &RunReport, strict: bool) -> TestSuite {
    let name = plugin_name(run);
    let mut suite = TestSuite::new(name.as_str());
    suite.set_time(CaseReport::wall_of(&run.cases));
    suite.add_properties([
        Property::new("agent-conform.version", env!("CARGO_PKG_VERSION")),
        Property::new("agent-conform.plugin", run.plugin.to_string_lossy()),
        Property::new("agent-conform.strict", strict.to_string()),
    ]);
    for group in run.groups() {
        let key = format!("agent-conform.declared.{group}");
        suite.add_property(Property::new(key, declared(run, &group)));
    }
    for side in run.own_side() {
        let key = format!("agent-conform.own-side.{}", side.capability);
        suite.add_property(Property::new(key, side.state));
    }
    let mut warnings = String::new();
    for case in &run.cases {
        if matches!(case.outcome, CaseOutcome::Warning | CaseOutcome::Note) {
            let label = case.outcome.label();
            suite.add_property(Property::new(
                format!("{OUTCOME_PROPERTY_PREFIX}{}", case.id),
                label,
            ));
            let _ = writeln!(warnings, "{label}: {}: {}", case.id, one_line(case));
        }
        let mut test = test_case(case, strict);
        test.set_classname(format!("{name}.{}", case.capability));
        suite.add_test_case(test);
    }
    if !warnings.is_empty() {
        suite.set_system_out(warnings);
    }
    suite
}

/// The conflicts between the plugins installed together: a failed test
/// case each, or one passing case when there is none.
fn conflicts_suite(conflicts: &[Conflict]) -> TestSuite {
    let mut suite = TestSuite::new("conflicts");
    if conflicts.is_empty() {
        let mut test = TestCase::new("conflicts", TestCaseStatus::success());
        test.set_classname("conflicts");
        suite.add_test_case(test);
    }
    for c in conflicts {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status
            .set_message(truncate(&flatten(&c.message)))
            .set_type(c.severity.label())
            .set_description(format!("{}: {}\n", c.kind.label(), c.message));
        let name = format!(
            "{}.{}.{}",
            c.kind.label().replace(' ', "-"),
            c.plugins[0],
            c.plugins[1]
        );
        let mut test = TestCase::new(name, status);
        test.set_classname("conflicts");
        suite.add_test_case(test);
    }
    suite
}

/// One capability group as a test suite.
fn suite(run: &RunReport, group: &str, cases: &[&CaseReport], strict: bool) -> TestSuite {
    let mut suite = TestSuite::new(group);
    // Wall time: the cases ran in parallel, so their times are not summed.
    suite.set_time(CaseReport::wall_of(cases.iter().copied()));
    suite.add_properties([
        Property::new("agent-conform.version", env!("CARGO_PKG_VERSION")),
        Property::new("agent-conform.plugin", run.plugin.to_string_lossy()),
        Property::new("agent-conform.strict", strict.to_string()),
        Property::new("agent-conform.declared", declared(run, group)),
    ]);
    if let Some(side) = run.own_side().into_iter().find(|s| s.capability == group) {
        suite.add_property(Property::new("agent-conform.own-side", side.state));
    }
    let mut warnings = String::new();
    for case in cases {
        if matches!(case.outcome, CaseOutcome::Warning | CaseOutcome::Note) {
            let label = case.outcome.label();
            suite.add_property(Property::new(
                format!("{OUTCOME_PROPERTY_PREFIX}{}", case.id),
                label,
            ));
            let _ = writeln!(warnings, "{label}: {}: {}", case.id, one_line(case));
        }
        suite.add_test_case(test_case(case, strict));
    }
    if !warnings.is_empty() {
        suite.set_system_out(warnings);
    }
    suite
}

/// "required" for core, else whether `info` declares the capability.
pub(crate) fn declared(run: &RunReport, group: &str) -> &'static str {
    if group == "core" {
        "required"
    } else if run.declares(group) {
        "yes"
    } else {
        "no"
    }
}

fn test_case(case: &CaseReport, strict: bool) -> TestCase {
    let status = match &case.outcome {
        CaseOutcome::Passed | CaseOutcome::Note => TestCaseStatus::success(),
        CaseOutcome::Warning if !strict => TestCaseStatus::success(),
        CaseOutcome::Failed | CaseOutcome::Warning => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status
                .set_message(with_code(case))
                .set_type(case.outcome.label())
                .set_description(details(case));
            status
        }
        CaseOutcome::Skipped(reason) | CaseOutcome::NotRun(reason) => {
            let mut status = TestCaseStatus::skipped();
            status
                .set_message(truncate(&flatten(reason)))
                .set_type(case.outcome.label());
            status
        }
    };
    let mut test = TestCase::new(case.id.as_str(), status);
    test.set_classname(case.capability.as_str())
        .set_time(case.duration);
    match &case.outcome {
        CaseOutcome::Warning if !strict => {
            test.set_system_out(format!("warning: {}\n\n{}", one_line(case), details(case)));
        }
        CaseOutcome::Note => {
            test.set_system_out(format!("note: {}\n\n{}", one_line(case), details(case)));
        }
        CaseOutcome::Passed => {
            if let Some(note) = &case.note {
                test.set_system_out(format!("note: {note}\n"));
            }
        }
        _ => {}
    }
    test
}

/// The case's [`summary_line`](CaseReport::summary_line) on one line, cut to
/// a readable length; never empty for a case that did not pass.
pub(crate) fn one_line(case: &CaseReport) -> String {
    let line = flatten(&case.summary_line());
    if line.is_empty() {
        return format!("{} ({})", case.title, case.outcome.label());
    }
    truncate(&line)
}

/// The one-line message of a failure, ending in the code of the finding
/// that decided it (`... [timeout]`), which `--allow` takes.
fn with_code(case: &CaseReport) -> String {
    match case.first_finding() {
        Some((_, f)) => format!("{} [{}]", one_line(case), f.kind.code()),
        None => one_line(case),
    }
}

/// Line breaks and runs of blanks become one space.
fn flatten(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The body of a failure: the case, then every step with findings.
fn details(case: &CaseReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", case.id, case.title);
    let _ = writeln!(out, "spec: {}", case.spec);
    if let Some(note) = &case.note {
        let _ = writeln!(out, "note: {note}");
    }
    for step in case.steps.iter().filter(|s| !s.findings.is_empty()) {
        out.push('\n');
        step_details(&mut out, step);
    }
    if let Some(dir) = &case.sandbox {
        let _ = writeln!(out, "\nsandbox kept: {}", dir.display());
    }
    out
}

fn step_details(out: &mut String, step: &StepReport) {
    if step.args.is_empty() {
        let _ = writeln!(out, "step {:?}:", step.name);
    } else {
        let _ = writeln!(out, "step {:?} ({}):", step.name, step.args.join(" "));
    }
    for f in &step.findings {
        let _ = writeln!(
            out,
            "  {}: {} [{}]",
            f.severity.label(),
            f.text(),
            f.kind.code()
        );
        for line in expected_actual(f, MAX_DIFF_LINES) {
            let _ = writeln!(out, "    {line}");
        }
    }
    if !step.stderr_excerpt.trim().is_empty() {
        let _ = writeln!(out, "  stderr:");
        // The last lines: where the exception or the error is.
        let lines: Vec<&str> = step.stderr_excerpt.lines().collect();
        let earlier = lines.len().saturating_sub(MAX_STDERR_LINES);
        if earlier > 0 {
            let _ = writeln!(out, "    … ({earlier} earlier lines)");
        }
        for line in &lines[earlier..] {
            let _ = writeln!(out, "    | {line}");
        }
    }
    if !step.command.is_empty() {
        let _ = writeln!(out, "  reproduce:");
        for line in crate::outcome::repro::wrap(&step.command) {
            let _ = writeln!(out, "    {line}");
        }
    }
}

/// What a finding expected and what came back, as lines: `expected: ...` and
/// `actual: ...` when both are short single lines, else a unified diff
/// (`--- expected` / `+++ actual`) cut to `max_lines` lines. Empty when the
/// finding carries neither.
pub(crate) fn expected_actual(f: &Finding, max_lines: usize) -> Vec<String> {
    let short = |s: &str| !s.contains('\n') && s.chars().count() <= 120;
    match (&f.expected, &f.actual) {
        (None, None) => Vec::new(),
        (Some(expected), None) => labelled("expected: ", expected, max_lines),
        (None, Some(actual)) => labelled("actual:   ", actual, max_lines),
        (Some(expected), Some(actual)) if short(expected) && short(actual) => {
            vec![
                format!("expected: {expected}"),
                format!("actual:   {actual}"),
            ]
        }
        (Some(expected), Some(actual)) => {
            let unified = crate::outcome::finding::unified_diff(expected, actual);
            cut(unified.lines().map(str::to_string).collect(), max_lines)
        }
    }
}

fn labelled(label: &str, text: &str, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match lines.first_mut() {
        Some(first) => first.insert_str(0, label),
        None => lines.push(label.trim_end().to_string()),
    }
    cut(lines, max_lines)
}

fn cut(mut lines: Vec<String>, max_lines: usize) -> Vec<String> {
    if lines.len() > max_lines {
        let more = lines.len() - max_lines;
        lines.truncate(max_lines);
        lines.push(format!("… ({more} more lines)"));
    }
    lines
}

/// Removes the `skipped` attribute quick-junit writes on the root
/// `<testsuites>` element, which the common JUnit XSD does not allow (the
/// per-suite `skipped` counts stay). Only the root's start tag is touched.
fn drop_root_skipped(xml: String, skipped: usize) -> String {
    let attribute = format!(" skipped=\"{skipped}\"");
    let Some(start) = xml.find("<testsuites") else {
        return xml;
    };
    let Some(end) = xml[start..].find('>').map(|e| start + e) else {
        return xml;
    };
    match xml[start..end].find(&attribute) {
        Some(at) => {
            let at = start + at;
            format!("{}{}", &xml[..at], &xml[at + attribute.len()..])
        }
        None => xml,
    }
}
