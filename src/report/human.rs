//! The human report: a header naming the plugin, one line per case, the
//! failures in detail (what was expected, what came back, stderr, and the
//! command that reproduces it), and a summary per capability.

use std::fmt::Write as _;

use owo_colors::OwoColorize;

use crate::case::Severity;
use crate::checks::Finding;
use crate::results::{CaseOutcome, CaseReport, Counts, RunReport, StepReport};

/// How much to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// Summary and failures only.
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
}

impl Human {
    /// The whole report.
    pub fn render(&self, run: &RunReport) -> String {
        let mut out = String::new();
        self.header(&mut out, run);
        if self.verbosity != Verbosity::Quiet {
            for case in &run.cases {
                self.case_line(&mut out, case);
            }
            out.push('\n');
        }
        let problems: Vec<&CaseReport> = run
            .cases
            .iter()
            .filter(|c| matches!(c.outcome, CaseOutcome::Failed | CaseOutcome::Warning))
            .collect();
        if !problems.is_empty() {
            let _ = writeln!(out, "{}", self.bold("Failures and warnings:"));
            for case in problems {
                self.details(&mut out, case);
            }
        }
        self.notes(&mut out, run);
        self.summary(&mut out, run);
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
        let Some(info) = &run.info else {
            let _ = writeln!(out, "  plugin: no usable info output");
            let _ = writeln!(out, "  seed: {}\n", run.seed);
            return;
        };
        let text = |p: &str| {
            info.pointer(p)
                .map(crate::template::value_text)
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
            "  seed: {} (rerun the same inputs with --seed {})\n",
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
            (_, Some(note)) => {
                let _ = write!(line, "  {}", self.dim(note));
            }
            _ => {}
        }
        let _ = writeln!(out, "{line}");
        if self.verbosity == Verbosity::Verbose {
            for step in &case.steps {
                let _ = writeln!(
                    out,
                    "       {} exit {} in {:.1} ms, stdout {} B, stderr {} B\n         {}",
                    step.name,
                    step.exit_code
                        .map_or(step.termination.clone(), |c| c.to_string()),
                    step.duration.as_secs_f64() * 1000.0,
                    step.stdout_bytes,
                    step.stderr_bytes,
                    self.dim(&step.command)
                );
            }
        }
    }

    fn details(&self, out: &mut String, case: &CaseReport) {
        let _ = writeln!(
            out,
            "\n{} {} — {}",
            self.paint(
                &format!("{}:", case.outcome.label().to_uppercase()),
                &case.outcome
            ),
            self.bold(&case.id),
            case.title
        );
        let _ = writeln!(out, "  spec: {}", case.spec);
        if let Some(note) = &case.note {
            let _ = writeln!(out, "  note: {note}");
        }
        for step in &case.steps {
            if !step.findings.is_empty() {
                self.step_details(out, step);
            }
        }
        if let Some(dir) = &case.sandbox {
            let _ = writeln!(out, "  sandbox kept: {}", dir.display());
        }
    }

    fn step_details(&self, out: &mut String, step: &StepReport) {
        let _ = writeln!(out, "  step {:?} ({}):", step.name, step.args.join(" "));
        for f in &step.findings {
            let outcome = match f.severity {
                Severity::Failure => CaseOutcome::Failed,
                Severity::Warning => CaseOutcome::Warning,
                Severity::Note => CaseOutcome::Note,
            };
            let tag = self.paint(f.severity.label(), &outcome);
            let _ = writeln!(out, "    {tag}: {}", f.message);
            self.expected_actual(out, f);
        }
        if !step.stderr_excerpt.trim().is_empty() {
            let _ = writeln!(out, "    stderr:");
            for line in step.stderr_excerpt.lines().take(20) {
                let _ = writeln!(out, "      | {line}");
            }
        }
        if !step.command.is_empty() {
            let _ = writeln!(out, "    reproduce:");
            for line in crate::repro::wrap(&step.command) {
                let _ = writeln!(out, "      {line}");
            }
        }
    }

    /// Expected and actual, as a unified diff when both are multi-line text.
    fn expected_actual(&self, out: &mut String, f: &Finding) {
        let (Some(expected), Some(actual)) = (&f.expected, &f.actual) else {
            return;
        };
        let short = |s: &str| !s.contains('\n') && s.len() <= 120;
        if short(expected) && short(actual) {
            let _ = writeln!(out, "      expected: {expected}\n      actual:   {actual}");
            return;
        }
        let unified = crate::checks::unified_diff(expected, actual);
        let lines: Vec<&str> = unified.lines().collect();
        for line in lines.iter().take(80) {
            let painted = if line.starts_with('-') && !line.starts_with("---") {
                self.paint(line, &CaseOutcome::Failed)
            } else if line.starts_with('+') && !line.starts_with("+++") {
                self.paint(line, &CaseOutcome::Passed)
            } else {
                line.to_string()
            };
            let _ = writeln!(out, "      {painted}");
        }
        if lines.len() > 80 {
            let _ = writeln!(out, "      … ({} more diff lines)", lines.len() - 80);
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
            let _ = writeln!(
                out,
                "  {} {}: {}",
                self.paint("NOTE", &case.outcome),
                case.id,
                case.summary_line()
            );
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
        let verdict = if run.failed(self.strict) {
            self.paint("FAILED", &CaseOutcome::Failed)
        } else {
            self.paint("PASSED", &CaseOutcome::Passed)
        };
        let _ = writeln!(out, "\n{verdict}: {}", run.summary_text(self.strict));
    }
}
