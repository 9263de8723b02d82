//! The human report: a header naming the plugin, one line per case, the
//! findings (failures, then warnings, each case in a few lines: what was
//! expected, what came back, three lines of stderr at most, and one line
//! that reruns the invocation), the notes one line each, and a summary per
//! capability. Quiet, it is the findings, the notes and the verdict line.
//! A case's headline (its line in the list) is its first finding of the
//! case's own severity, never a note beside a failure. Lines of findings,
//! and notes fold at the report's width, keeping their indentation;
//! a reproduce line stays whole, to be copied.
//!
//! How one text is cut or folded to fit (stderr excerpts, expected/got,
//! diffs, one line) is `super::text`; this module lays out the report.

use std::fmt::Write as _;

use owo_colors::OwoColorize;

use crate::host::Severity;
use crate::outcome::Finding;
use crate::outcome::results::{CaseOutcome, CaseReport, Counts, RunReport, StepReport};

pub use super::text::{DEFAULT_WIDTH, expected_got, stderr_lines};
use super::text::{clip, cut, fold, fold_with_tail, line_width};

/// How much to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// A one-line header, the findings, the notes and the verdict line.
    Quiet,
    /// Every case, failures, summary.
    Normal,
    /// Also every invocation.
    Verbose,
}

/// Renders the report as text.
pub struct Human {
    /// Use ANSI colours.
    pub color: bool,
    /// How much to print.
    pub verbosity: Verbosity,
    /// Warnings count as failures.
    pub strict: bool,
    /// The columns lines fold at: the terminal's, else [`DEFAULT_WIDTH`].
    pub width: usize,
}

impl Human {
    /// Writes `line` to `out`, folded at the report's width; continuation
    /// lines indented by `rest` columns, else as `line` is plus two.
    fn put(&self, out: &mut String, line: &str, rest: Option<usize>) {
        out.push_str(&fold(line, self.width, rest));
        out.push('\n');
    }

    /// The whole report.
    pub fn render(&self, run: &RunReport) -> String {
        let mut out = String::new();
        if self.verbosity == Verbosity::Quiet {
            self.short_header(&mut out, run);
        } else {
            self.header(&mut out, run);
            out.push('\n');
            for case in &run.cases {
                self.case_line(&mut out, case);
            }
        }
        for case in run
            .cases
            .iter()
            .filter(|c| c.outcome == CaseOutcome::Failed)
        {
            self.details(&mut out, case);
        }
        for (case, alike) in same_warnings(&run.cases) {
            self.details(&mut out, case);
            self.alike(&mut out, &alike);
        }
        self.notes(&mut out, run);
        if self.verbosity != Verbosity::Quiet {
            self.summary(&mut out, run);
        }
        super::host::section(&mut out, run);
        self.verdict(&mut out, run);
        out
    }

    fn paint(&self, text: &str, outcome: &CaseOutcome) -> String {
        if !self.color {
            return text.to_string();
        }
        match outcome {
            CaseOutcome::Passed => text.green().to_string(),
            CaseOutcome::Failed => text.red().bold().to_string(),
            CaseOutcome::Warning => text.yellow().to_string(),
            CaseOutcome::Note => text.cyan().to_string(),
            CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_) => text.dimmed().to_string(),
        }
    }

    fn bold(&self, text: &str) -> String {
        if self.color {
            text.bold().to_string()
        } else {
            text.to_string()
        }
    }

    fn dim(&self, text: &str) -> String {
        if self.color {
            text.dimmed().to_string()
        } else {
            text.to_string()
        }
    }

    fn header(&self, out: &mut String, run: &RunReport) {
        let _ = writeln!(
            out,
            "{} {} {}",
            self.bold("agent-conform"),
            env!("CARGO_PKG_VERSION"),
            run.plugin.display()
        );
        let _ = writeln!(
            out,
            "  host: entire {} (--host-version {})",
            run.hosts.releases, run.hosts.requirement
        );
        let Some(info) = &run.info else {
            let _ = writeln!(out, "  plugin: no usable info output");
            let _ = writeln!(out, "  seed: {}", run.seed);
            return;
        };
        let text = |p: &str| {
            info.pointer(p)
                .map(crate::suite::template::value_text)
                .unwrap_or_default()
        };
        let _ = writeln!(
            out,
            "  plugin: {} ({}), protocol {}",
            text("/name"),
            text("/type"),
            text("/protocol_version")
        );
        let declared: Vec<String> = info
            .pointer("/capabilities")
            .and_then(|c| c.as_object())
            .map(|caps| {
                caps.iter()
                    .filter(|(_, v)| v.as_bool() == Some(true))
                    .map(|(k, _)| k.clone())
                    .collect()
            })
            .unwrap_or_default();
        let declared = if declared.is_empty() {
            "none".to_string()
        } else {
            declared.join(", ")
        };
        let _ = writeln!(out, "  capabilities: {declared}");
        let _ = writeln!(
            out,
            "  seed: {} (rerun the same inputs with --seed {})",
            run.seed, run.seed
        );
    }

    fn case_line(&self, out: &mut String, case: &CaseReport) {
        let label = match case.outcome {
            CaseOutcome::Passed => "PASS",
            CaseOutcome::Failed => "FAIL",
            CaseOutcome::Warning => "WARN",
            CaseOutcome::Note => "NOTE",
            CaseOutcome::Skipped(_) => "SKIP",
            CaseOutcome::NotRun(_) => "----",
        };
        let time = format!("{:>7.1} ms", case.duration.as_secs_f64() * 1000.0);
        let mut line = format!(
            "{} {:<48} {}",
            self.paint(label, &case.outcome),
            case.id,
            self.dim(&time)
        );
        match (&case.outcome, &case.note) {
            (CaseOutcome::Skipped(r) | CaseOutcome::NotRun(r), _) => {
                let _ = write!(line, "  {}", self.dim(r));
            }
            // The headline of a case that did not pass is its first finding
            // of the case's severity (a note beside a failure is not it).
            (CaseOutcome::Failed | CaseOutcome::Warning | CaseOutcome::Note, _)
                if case.first_finding().is_some() =>
            {
                // One line in the list, cut to the width: the details below
                // have all of it.
                let headline = case.summary_line();
                let first = headline.lines().next().unwrap_or_default();
                let room = self.width.saturating_sub(line_width(&line) + 2).max(20);
                let _ = write!(line, "  {}", self.dim(&cut(first, room)));
            }
            (_, Some(note)) => {
                let _ = write!(line, "  {}", self.dim(note));
            }
            _ => {}
        }
        self.put(out, &line, Some(7));
        if self.verbosity == Verbosity::Verbose {
            for step in &case.steps {
                // The short command: the full one (directory, environment,
                // stdin) is in the JSON report and the reproduce script.
                let shared = step
                    .answered_by
                    .as_ref()
                    .map_or(String::new(), |by| format!(" (the answer of {by}'s call)"));
                let _ = writeln!(
                    out,
                    "       {}{shared} exit {} in {:.1} ms, stdout {} B, stderr {} B{}",
                    step.name,
                    step.exit_code
                        .map_or(step.termination.clone(), |c| c.to_string()),
                    step.duration.as_secs_f64() * 1000.0,
                    step.stdout_bytes,
                    step.stderr_bytes,
                    short_command(step)
                        .map_or(String::new(), |c| format!("\n         {}", self.dim(&c)))
                );
                for line in stderr_lines(&step.stderr_excerpt, step.stderr_bytes) {
                    let _ = writeln!(out, "         stderr: {}", self.dim(&line));
                }
            }
            for call in &case.host_calls {
                let _ = writeln!(out, "       `entire` stand-in called: {}", self.dim(call));
            }
        }
    }

    /// A non-passing case in a few lines: status, id and title; each
    /// finding with what was expected and what came back; at most three
    /// lines of stderr; one line to reproduce the invocation.
    fn details(&self, out: &mut String, case: &CaseReport) {
        let label = match case.outcome {
            CaseOutcome::Failed => "FAIL",
            _ => "WARN",
        };
        let _ = writeln!(
            out,
            "\n{} {} — {}",
            self.paint(label, &case.outcome),
            self.bold(&case.id),
            case.title
        );
        if let Some(line) = super::world::line(case) {
            let _ = writeln!(out, "{line}");
        }
        if case.timeline {
            self.timeline(out, case);
        }
        let detailed: Vec<&StepReport> = case
            .steps
            .iter()
            .filter(|s| !s.findings.is_empty())
            .collect();
        let groups = same_findings(&detailed);
        for (step, alike) in groups.iter().take(MAX_STEPS) {
            self.step_details(out, case, step);
            if !alike.is_empty() {
                let names: Vec<&str> = alike.iter().map(|s| s.name.as_str()).collect();
                let line = format!(
                    "  the same in {} more: {}",
                    alike.len(),
                    clip(&names.join(", "))
                );
                self.put(out, &line, None);
            }
        }
        let hidden: usize = groups
            .iter()
            .skip(MAX_STEPS)
            .map(|(_, a)| a.len() + 1)
            .sum();
        if hidden > 0 {
            let _ = writeln!(
                out,
                "  … {hidden} more invocations with findings (--format json lists them all)"
            );
        }
        // A note made from a finding shown above is not said twice.
        let said = detailed
            .iter()
            .any(|s| s.findings.iter().any(|f| f.says_note));
        // An unverified session's note is its finding's reason, said above.
        let said = said || case.unverified.is_some();
        if let Some(note) = case.note.as_deref().filter(|_| !said) {
            self.put(out, &format!("  note: {note}"), None);
        }
        let reproducible = groups
            .iter()
            .take(MAX_STEPS)
            .any(|(s, _)| !s.command.is_empty() || before(case, s).is_some());
        if let (false, Some(dir)) = (reproducible, &case.sandbox) {
            let _ = writeln!(out, "  sandbox: {}", dir.display());
        }
    }

    /// The cases folded under another's warning: each with its step, the
    /// input it sent and its reproduce line, since each is a case of its own.
    fn alike(&self, out: &mut String, alike: &[&CaseReport]) {
        if alike.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "  the same warning in {} more case{}:",
            alike.len(),
            if alike.len() == 1 { "" } else { "s" }
        );
        for case in alike {
            let Some((step, _)) = case.first_finding() else {
                let _ = writeln!(out, "    {}", case.id);
                continue;
            };
            let line = format!("    {}: {}", self.bold(&case.id), step_label(step));
            self.put(out, &line, None);
            if let Some(sent) = &step.sent {
                let _ = writeln!(out, "      stdin: {}", clip(&sent.text()));
            }
            if let Some(line) = reproduce_line(case, step) {
                let _ = writeln!(out, "      reproduce: {line}");
            }
        }
    }

    /// A host session step by step: one line per host step, the user
    /// action and the call, then ok or its heaviest finding.
    /// `-q` shows none (the findings below are its steps that found
    /// something); an unverified session says so once in place of its
    /// steps, which tell nothing (`-v` lists them).
    fn timeline(&self, out: &mut String, case: &CaseReport) {
        match (self.verbosity, &case.unverified) {
            (Verbosity::Quiet, _) => return,
            (Verbosity::Normal, Some(_)) => {
                let _ = writeln!(
                    out,
                    "  timeline: {} steps, not listed: the agent session is not verified (below; -v lists them)",
                    case.steps.len()
                );
                return;
            }
            _ => {}
        }
        let _ = writeln!(out, "  timeline:");
        for step in &case.steps {
            let worst = step.findings.iter().max_by_key(|f| f.severity);
            let line = match worst {
                None => format!("    {}  {}", self.dim("ok  "), step.name),
                Some(f) => {
                    let outcome = outcome_of(f.severity);
                    let label = match f.severity {
                        Severity::Failure => "FAIL",
                        Severity::Warning => "WARN",
                        Severity::Note => "NOTE",
                    };
                    let shown = shown(f, &step.name);
                    let first = shown.lines().next().unwrap_or_default();
                    let text = format!("{}: {first}", step.name);
                    format!("    {}  {}", self.paint(label, &outcome), clip(&text))
                }
            };
            self.put(out, &line, Some(10));
        }
    }

    fn step_details(&self, out: &mut String, case: &CaseReport, step: &StepReport) {
        let name = step_label(step);
        for f in &step.findings {
            let tag = if outcome_of(f.severity) == case.outcome {
                String::new()
            } else {
                format!(
                    "{}: ",
                    self.paint(f.severity.label(), &outcome_of(f.severity))
                )
            };
            let message = shown(f, &step.name);
            let mut message = message.lines();
            // The code of every finding, a case's own check too when it
            // weighs: what `--allow CODE` (or `CODE@CASE`) takes to allow it.
            let code = match (f.kind, f.severity) {
                (crate::outcome::Kind::Check, Severity::Note) => String::new(),
                (kind, _) => self.dim(&format!(" [{}]", kind.code())),
            };
            let first = message.next().unwrap_or_default();
            let folded = fold_with_tail(
                &format!("  {name}: {tag}{first}"),
                &code,
                self.width,
                Some(4),
            );
            let _ = writeln!(out, "{folded}");
            for line in message {
                self.put(out, &format!("    {line}"), None);
            }
            self.expected_got(out, f);
        }
        let stderr = stderr_lines(&step.stderr_excerpt, step.stderr_bytes);
        for (i, line) in stderr.iter().enumerate() {
            let label = if i == 0 { "stderr:" } else { "" };
            // The plugin's own text, cut already: as it is.
            let _ = writeln!(out, "  {label:<7} {}", self.dim(line));
        }
        if let Some(sent) = &step.sent {
            let _ = writeln!(out, "  stdin: {}", clip(&sent.text()));
        }
        if let Some(line) = reproduce_line(case, step) {
            let _ = writeln!(out, "  reproduce: {line}");
        }
    }

    /// What was expected and what came back: on one line when both are
    /// short, two lines when not, a diff (cut at 20 lines) when both span
    /// lines.
    fn expected_got(&self, out: &mut String, f: &Finding) {
        let lines = expected_got(f.expected.as_deref(), f.actual.as_deref());
        for line in lines {
            let painted = if line.starts_with('-') && !line.starts_with("---") {
                self.paint(&line, &CaseOutcome::Failed)
            } else if line.starts_with('+') && !line.starts_with("+++") {
                self.paint(&line, &CaseOutcome::Passed)
            } else {
                line
            };
            let _ = writeln!(out, "    {painted}");
        }
    }

    /// Notes never fail a run: one line each, after the failures and
    /// warnings, so they are seen without standing in the way.
    fn notes(&self, out: &mut String, run: &RunReport) {
        let notes: Vec<&CaseReport> = run
            .cases
            .iter()
            .filter(|c| c.outcome == CaseOutcome::Note)
            .collect();
        if notes.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n{}", self.bold("Notes (never fail the run):"));
        for case in notes {
            let line = format!(
                "  {} {}: {}",
                self.paint("NOTE", &case.outcome),
                case.id,
                case.summary_line()
            );
            self.put(out, &line, Some(7));
        }
    }

    fn summary(&self, out: &mut String, run: &RunReport) {
        let _ = writeln!(out, "\n{}", self.bold("Summary:"));
        let _ = writeln!(
            out,
            "  {:<26} {:<9} {:>6} {:>6} {:>8} {:>5} {:>7} {:>7}",
            "capability", "declared", "passed", "failed", "warnings", "notes", "skipped", "not run"
        );
        for group in run.groups() {
            let counts = Counts::of(run.cases.iter().filter(|c| c.capability == group));
            if counts.total() == 0 {
                continue;
            }
            let declared = if group == "core" {
                "required"
            } else if run.declares(&group) {
                "yes"
            } else {
                "no"
            };
            let _ = writeln!(
                out,
                "  {:<26} {:<9} {:>6} {:>6} {:>8} {:>5} {:>7} {:>7}",
                group,
                declared,
                counts.passed,
                counts.failed,
                counts.warnings,
                counts.notes,
                counts.skipped,
                counts.not_run
            );
        }
    }

    /// The closing line: the verdict and the counts.
    fn verdict(&self, out: &mut String, run: &RunReport) {
        let verdict = if run.failed(self.strict) {
            self.paint("FAILED", &CaseOutcome::Failed)
        } else {
            self.paint("PASSED", &CaseOutcome::Passed)
        };
        let mut open = run.own_side();
        // Quiet shows the findings only: the last line still counts.
        open.retain(|s| s.state != "verified" && self.verbosity != Verbosity::Quiet);
        if !open.is_empty() {
            let _ = writeln!(out);
        }
        for side in &open {
            let what = match side.state {
                "allowed" => "not verified, allowed",
                _ => "not verified",
            };
            let with = side.verify_with.unwrap_or_default();
            let _ = writeln!(
                out,
                "own side: {} {what}: {with} would verify it",
                side.capability
            );
        }
        let own = run
            .own_side_text()
            .map(|t| format!("; {t}"))
            .unwrap_or_default();
        let _ = writeln!(out, "\n{verdict}: {}{own}", run.summary_text(self.strict));
    }

    /// The header of a quiet report: one line.
    fn short_header(&self, out: &mut String, run: &RunReport) {
        let plugin = match &run.info {
            Some(info) => {
                let text = |p: &str| {
                    info.pointer(p)
                        .map(crate::suite::template::value_text)
                        .unwrap_or_default()
                };
                format!("{}, protocol {}", text("/name"), text("/protocol_version"))
            }
            None => "no usable info output".to_string(),
        };
        let _ = writeln!(
            out,
            "{} {} {} ({plugin}, entire {}, seed {})",
            self.bold("agent-conform"),
            env!("CARGO_PKG_VERSION"),
            run.plugin.display(),
            run.hosts.releases,
            run.seed
        );
    }
}

/// Invocations detailed per case; the rest are counted.
const MAX_STEPS: usize = 3;

/// The outcome a finding of this severity gives a case.
fn outcome_of(severity: Severity) -> CaseOutcome {
    match severity {
        Severity::Failure => CaseOutcome::Failed,
        Severity::Warning => CaseOutcome::Warning,
        Severity::Note => CaseOutcome::Note,
    }
}

/// `$ plugin <args>` of a step that made a call: what `-v` shows (the
/// full command line is the JSON report's `command` and `reproduce.sh`).
fn short_command(step: &StepReport) -> Option<String> {
    if step.args.is_empty() {
        return None;
    }
    let args: Vec<String> = step
        .args
        .iter()
        .map(|a| crate::outcome::repro::quote(a))
        .collect();
    Some(format!("$ plugin {}", args.join(" ")))
}

/// The line that reruns `step`: its kept script, else its command line,
/// else, for a harness check, the last invocation before it.
fn reproduce_line(case: &CaseReport, step: &StepReport) -> Option<String> {
    match (&step.reproduce, step.command.is_empty()) {
        (Some(script), _) => Some(script.clone()),
        (None, false) => Some(step.command.clone()),
        (None, true) => before(case, step)
            .and_then(|s| s.reproduce.as_ref())
            .map(|script| format!("{script}  (the last invocation before this check)")),
    }
}

/// The warned cases, each with the later ones whose findings say exactly
/// the same (one warning met by many cases, a traceback on every call say):
/// a reader sees it once, with the list of the cases.
fn same_warnings(cases: &[CaseReport]) -> Vec<(&CaseReport, Vec<&CaseReport>)> {
    fn said(case: &CaseReport) -> Vec<(crate::outcome::Kind, Severity, String)> {
        let mut said: Vec<(crate::outcome::Kind, Severity, String)> = case
            .steps
            .iter()
            .flat_map(|s| &s.findings)
            .map(|f| (f.kind, f.severity, f.text()))
            .collect();
        said.sort();
        said.dedup();
        said
    }
    let mut groups: Vec<(&CaseReport, Vec<&CaseReport>, Vec<_>)> = Vec::new();
    for case in cases.iter().filter(|c| c.outcome == CaseOutcome::Warning) {
        let key = said(case);
        match groups
            .iter_mut()
            .find(|(_, _, k)| !key.is_empty() && *k == key)
        {
            Some((_, alike, _)) => alike.push(case),
            None => groups.push((case, Vec::new(), key)),
        }
    }
    groups.into_iter().map(|(c, alike, _)| (c, alike)).collect()
}

/// The last invocation of the case before `step` that can be rerun, for a
/// finding of a harness check (the user's data after an uninstall, say).
fn before<'a>(case: &'a CaseReport, step: &StepReport) -> Option<&'a StepReport> {
    let at = case.steps.iter().position(|s| std::ptr::eq(s, step))?;
    case.steps[..at]
        .iter()
        .rev()
        .find(|s| s.reproduce.is_some())
}

/// Steps grouped by their findings' messages, in order: each first step
/// with the later ones that found exactly the same (the same rule broken for
/// every hook name, say), which the report folds into one line.
fn same_findings<'a>(steps: &[&'a StepReport]) -> Vec<(&'a StepReport, Vec<&'a StepReport>)> {
    let key = |s: &StepReport| -> Vec<(Severity, String)> {
        s.findings.iter().map(|f| (f.severity, f.text())).collect()
    };
    let mut groups: Vec<(&StepReport, Vec<&StepReport>)> = Vec::new();
    for step in steps {
        match groups.iter_mut().find(|(first, _)| key(first) == key(step)) {
            Some((_, alike)) => alike.push(step),
            None => groups.push((step, Vec::new())),
        }
    }
    groups
}

/// A finding's message as a step shows it: a property's finding says its
/// input (`seed 1, crlf, --max-size 4`, [`Finding::context`]), which the
/// step's name already shows in brackets when the step is that input's:
/// said once.
fn shown(f: &Finding, name: &str) -> String {
    match f.context() {
        Some(label) if name.contains(&format!("[{label}]")) => f.message.clone(),
        _ => f.text(),
    }
}

/// The step's name, with its arguments when the name does not say them
/// (`chunk` says `chunk-transcript`).
fn step_label(step: &StepReport) -> String {
    let Some(first) = step.args.first() else {
        return step.name.clone();
    };
    let word = step.name.split([' ', '[']).next().unwrap_or_default();
    let said = !word.is_empty() && first.starts_with(word) && word != "step";
    if step.name.contains(first.as_str()) || said {
        return step.name.clone();
    }
    let args = step.args.join(" ");
    if args.chars().count() <= 60 {
        format!("{} ({args})", step.name)
    } else {
        format!("{} ({first} …)", step.name)
    }
}
