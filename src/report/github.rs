//! GitHub Actions output: workflow commands that annotate the run
//! (`::error` / `::warning`, printed on stdout) and a Markdown summary for the
//! file named by `$GITHUB_STEP_SUMMARY`.
//!
//! Over several plugins ([`annotations_many`], [`summary_many`]): each
//! plugin's annotations titled with its name, one per conflict, and one
//! summary whose table is the matrix.
//!
//! Both are pure functions of the [`RunReport`]; detecting GitHub
//! (`GITHUB_ACTIONS=true`) and writing the summary file are the CLI's job.

use std::fmt::Write as _;

use crate::outcome::many::{ManyReport, plugin_name};
use crate::outcome::results::{CaseOutcome, CaseReport, Counts, RunReport};

use super::junit::{declared, expected_actual, one_line};

/// At most this many failures (and warnings) are detailed in the summary; the
/// rest are named only. GitHub caps a step summary at 1 MiB.
const MAX_DETAILED: usize = 30;

/// At most this many lines of expected/actual per detailed failure.
const MAX_DIFF_LINES: usize = 40;

/// The workflow commands for a run: one line per failed or warned case,
/// `::error title=<case id>::<message>` or `::warning title=<case id>::<message>`,
/// in suite order. A warning is an `::error` under `strict` (it fails the
/// run). Cases that passed, were skipped or were not run get none (a failed
/// gate is itself an error). The message is the case's one-line summary;
/// `%`, CR and LF are escaped in it, and also `:` and `,` in the title, as
/// GitHub documents. Empty when nothing failed or warned.
pub fn annotations(run: &RunReport, strict: bool) -> String {
    annotate(run, strict, "")
}

/// [`annotations`], each title starting with `prefix`.
fn annotate(run: &RunReport, strict: bool, prefix: &str) -> String {
    let mut out = String::new();
    for case in &run.cases {
        let level = match case.outcome {
            CaseOutcome::Failed => "error",
            CaseOutcome::Warning if strict => "error",
            CaseOutcome::Warning => "warning",
            CaseOutcome::Note => "notice",
            _ => continue,
        };
        let message = match case.outcome {
            CaseOutcome::Warning | CaseOutcome::Note => {
                format!("{}: {}", case.outcome.label(), one_line(case))
            }
            _ => one_line(case),
        };
        let _ = writeln!(
            out,
            "::{level} title={}::{}",
            escape_property(&format!("{prefix}{}", case.id)),
            escape_data(&message)
        );
    }
    out
}

/// Escapes the message of a workflow command: `%`, `\r`, `\n`.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command (`title=...`): as
/// [`escape_data`], plus `:` and `,`.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The Markdown summary of a run, for `$GITHUB_STEP_SUMMARY`: a title with
/// the verdict, the plugin, a per-capability table (capability, declared,
/// passed, failed, warnings, skipped, not run, as in the human summary), the
/// totals, then a "Failures" section (per case: id, title, the first finding,
/// what was expected and what came back, and the reproduce command in a code
/// block) and, unless `strict`, a "Warnings" section in the same form.
/// Before them, one paragraph says that their paths are on the runner and
/// how to get them: the artifact `artifact`, when the action uploads the
/// sandboxes under that name ([`runner_paths`]).
pub fn summary_markdown(run: &RunReport, strict: bool, artifact: Option<&str>) -> String {
    let mut out = String::new();
    let failed = run.failed(strict);
    let _ = writeln!(
        out,
        "## {} agent-conform: {}\n",
        if failed { "❌" } else { "✅" },
        if failed { "FAILED" } else { "PASSED" }
    );
    let _ = writeln!(out, "{}\n", plugin_line(run));
    table(&mut out, run);
    let _ = writeln!(out, "\n**{}**", run.summary_text(strict));
    let mut not_run_reasons = run.cases.iter().filter_map(|c| match &c.outcome {
        CaseOutcome::NotRun(reason) => Some(reason),
        _ => None,
    });
    let first = not_run_reasons.next();
    // One reason for all (a failed gate): say it; several (the breaker): each case says its own.
    let shared = first.filter(|r| not_run_reasons.all(|other| other == *r));
    if let Some(reason) = shared {
        let _ = writeln!(
            out,
            "\n{} cases not run: {}",
            run.counts().not_run,
            escape_markdown(reason)
        );
    }
    let is_failure = |case: &&CaseReport| {
        case.outcome == CaseOutcome::Failed || (strict && case.outcome == CaseOutcome::Warning)
    };
    let failures: Vec<&CaseReport> = run.cases.iter().filter(is_failure).collect();
    let warnings: Vec<&CaseReport> = run
        .cases
        .iter()
        .filter(|c| !strict && c.outcome == CaseOutcome::Warning)
        .collect();
    if failures.iter().chain(&warnings).any(|c| names_a_path(c)) {
        let _ = write!(out, "\n{}", runner_paths(artifact));
    }
    section(&mut out, "Failures", &failures);
    section(&mut out, "Warnings", &warnings);
    out
}

/// Whether the summary's detail of `case` names a path of the runner: a
/// reproduce command or a kept sandbox.
fn names_a_path(case: &CaseReport) -> bool {
    let reproduces = case
        .first_finding()
        .is_some_and(|(step, _)| !step.command.is_empty());
    reproduces || case.sandbox.is_some()
}

/// The paragraph that says the reproduce commands and sandboxes of the
/// summary are paths on the runner, gone with it, and how to get them: the
/// artifact the action uploaded (`artifact`), else what to upload.
pub fn runner_paths(artifact: Option<&str>) -> String {
    let how = match artifact {
        Some(name) => format!(
            "The action uploaded the kept sandboxes as the artifact {} of this \
             run (`gh run download <run id> -n {}`): each case's folder holds \
             `reproduce.sh` with the exact commands, the inputs sent (`stdin/`) and \
             what the plugin printed (`output/`). Its paths are the runner's: to \
             rerun a call, run agent-conform on your machine.",
            code_span(name),
            name
        ),
        None => "To keep them, upload the sandbox directory as an artifact \
                 (`--sandbox-dir DIR` chooses it; the agent-conform action does \
                 this), or run agent-conform on your machine."
            .to_string(),
    };
    format!(
        "> The reproduce commands and sandboxes below are paths on the CI runner, \
         which is gone once the job ends. {how}\n"
    )
}

/// The workflow commands of a run over several plugins: each plugin's (see
/// [`annotations`]), titled `<plugin>: <case id>`, then an `::error` per
/// conflict between them, titled `conflict: <a>, <b>`.
pub fn annotations_many(run: &ManyReport, strict: bool) -> String {
    let mut out = String::new();
    for plugin in &run.plugins {
        out.push_str(&annotate(
            plugin,
            strict,
            &format!("{}: ", plugin_name(plugin)),
        ));
    }
    for c in &run.conflicts {
        let title = format!("conflict: {}, {}", c.plugins[0], c.plugins[1]);
        let _ = writeln!(
            out,
            "::error title={}::{}",
            escape_property(&title),
            escape_data(&c.message)
        );
    }
    out
}

/// The Markdown summary of a run over several plugins: the verdict, one
/// table with a row per plugin (its verdict, failed / warnings / notes, a
/// column per capability), the conflicts, then each plugin's failures (and,
/// unless `strict`, warnings) under its name, after the paragraph of
/// [`runner_paths`] when one of them names a path.
pub fn summary_many(run: &ManyReport, strict: bool, artifact: Option<&str>) -> String {
    let mut out = String::new();
    let failed = run.failed(strict);
    let _ = writeln!(
        out,
        "## {} agent-conform: {} ({} plugins)\n",
        if failed { "❌" } else { "✅" },
        if failed { "FAILED" } else { "PASSED" },
        run.plugins.len()
    );
    let matrix = super::matrix::of(run, strict);
    let header: Vec<String> = matrix.groups.iter().map(|g| escape_markdown(g)).collect();
    let _ = writeln!(
        out,
        "| plugin | verdict | failed | warnings | notes | {} |",
        header.join(" | ")
    );
    let _ = writeln!(out, "|---|---|--:|--:|--:|{}", "---|".repeat(header.len()));
    for row in &matrix.rows {
        let cells: Vec<&str> = row.cells.iter().map(|c| c.label()).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            escape_markdown(&row.name),
            if row.failed {
                "❌ failed"
            } else {
                "✅ passed"
            },
            row.counts.failed,
            row.counts.warnings,
            row.counts.notes,
            cells.join(" | ")
        );
    }
    if !run.conflicts.is_empty() {
        let _ = writeln!(
            out,
            "\n### Conflicts between the plugins installed together\n"
        );
        for c in &run.conflicts {
            let _ = writeln!(
                out,
                "- **{}** ({}, {}): {}",
                c.kind.label(),
                code_span(&c.plugins[0]),
                code_span(&c.plugins[1]),
                escape_markdown(&c.message)
            );
        }
    }
    let is_failure = |case: &&CaseReport| {
        case.outcome == CaseOutcome::Failed || (strict && case.outcome == CaseOutcome::Warning)
    };
    let shown = |case: &&CaseReport| is_failure(case) || case.outcome == CaseOutcome::Warning;
    let detailed = run.plugins.iter().flat_map(|p| &p.cases);
    if detailed.filter(shown).any(names_a_path) {
        let _ = write!(out, "\n{}", runner_paths(artifact));
    }
    for plugin in &run.plugins {
        let name = plugin_name(plugin);
        let failures: Vec<&CaseReport> = plugin.cases.iter().filter(is_failure).collect();
        section(
            &mut out,
            &format!("Failures of {}", escape_markdown(&name)),
            &failures,
        );
        if !strict {
            let warnings: Vec<&CaseReport> = plugin
                .cases
                .iter()
                .filter(|c| c.outcome == CaseOutcome::Warning)
                .collect();
            section(
                &mut out,
                &format!("Warnings of {}", escape_markdown(&name)),
                &warnings,
            );
        }
    }
    out
}

fn plugin_line(run: &RunReport) -> String {
    let path = code_span(&run.plugin.to_string_lossy());
    let Some(info) = &run.info else {
        return format!("Plugin {path}: no usable `info` output.");
    };
    let text = |p: &str| {
        info.pointer(p)
            .map(crate::suite::template::value_text)
            .unwrap_or_default()
    };
    format!(
        "Plugin {path}: {} ({}), protocol {}; agent-conform {}.",
        escape_markdown(&text("/name")),
        escape_markdown(&text("/type")),
        escape_markdown(&text("/protocol_version")),
        env!("CARGO_PKG_VERSION")
    )
}

fn table(out: &mut String, run: &RunReport) {
    let _ = writeln!(
        out,
        "| capability | declared | passed | failed | warnings | notes | skipped | not run |"
    );
    let _ = writeln!(out, "|---|---|--:|--:|--:|--:|--:|--:|");
    for group in run.groups() {
        let counts = Counts::of(run.cases.iter().filter(|c| c.capability == group));
        if counts.total() == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            escape_markdown(&group),
            declared(run, &group),
            counts.passed,
            counts.failed,
            counts.warnings,
            counts.notes,
            counts.skipped,
            counts.not_run
        );
    }
}

fn section(out: &mut String, title: &str, cases: &[&CaseReport]) {
    if cases.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### {title}");
    for case in cases.iter().take(MAX_DETAILED) {
        case_details(out, case);
    }
    if cases.len() > MAX_DETAILED {
        let rest: Vec<String> = cases[MAX_DETAILED..]
            .iter()
            .map(|c| code_span(&c.id))
            .collect();
        let _ = writeln!(
            out,
            "\n…and {} more (see the job log or the JUnit report): {}",
            rest.len(),
            rest.join(", ")
        );
    }
}

fn case_details(out: &mut String, case: &CaseReport) {
    let _ = writeln!(
        out,
        "\n#### {} — {}\n",
        code_span(&case.id),
        escape_markdown(&case.title)
    );
    match case.first_finding() {
        Some((step, finding)) => {
            let _ = writeln!(
                out,
                "Step {}: {}",
                code_span(&step.label()),
                escape_markdown(&finding.text())
            );
            let lines = expected_actual(finding, MAX_DIFF_LINES);
            if !lines.is_empty() {
                let language = if lines.iter().any(|l| l.starts_with("--- expected")) {
                    "diff"
                } else {
                    "text"
                };
                code_block(out, language, &lines.join("\n"));
            }
            if !step.command.is_empty() {
                let _ = writeln!(out, "\nReproduce:");
                code_block(
                    out,
                    "sh",
                    &crate::outcome::repro::wrap(&step.command).join("\n"),
                );
            }
        }
        None => {
            let _ = writeln!(out, "{}", escape_markdown(&one_line(case)));
        }
    }
    if let Some(dir) = &case.sandbox {
        let _ = writeln!(out, "\nSandbox kept: {}", code_span(&dir.to_string_lossy()));
    }
}

/// A fenced code block whose fence is longer than any backtick run inside.
fn code_block(out: &mut String, language: &str, text: &str) {
    let fence = "`".repeat(longest_backtick_run(text).max(2) + 1);
    let _ = writeln!(out, "\n{fence}{language}\n{text}\n{fence}");
}

/// An inline code span that holds any text, backticks included.
fn code_span(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Escapes text for Markdown: ASCII punctuation that Markdown (or GitHub's
/// HTML sanitizer) would act on is backslash-escaped, and line breaks become
/// spaces, so that a title like `prints {"present":<bool>}` shows as written.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '&' | '~' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}
