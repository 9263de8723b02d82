//! What a run leaves behind, for one plugin or several: the human
//! reporter the flags ask for, the JUnit file, GitHub's annotations and step
//! summary, and the record `--rerun-failed` reads. `run` and `many` both use
//! it; neither names the other's helpers, so they form no import circle.

use std::io::Write;
use std::path::Path;

use crate::report::human::{Human, Verbosity};
use crate::verbs::usage::UsageError;
use crate::verbs::{RunArgs, print_stdout, use_color};

/// Which cases of a run passed (`(id, passed)`; a skipped case did not
/// run), taken before the `--allow` flags lower anything: a case that
/// passes only by `--allow` stays on record for `--rerun-failed`.
pub(super) fn outcomes(report: &crate::outcome::results::RunReport) -> Vec<(String, bool)> {
    use crate::outcome::results::CaseOutcome;
    report
        .cases
        .iter()
        .filter_map(|c| match &c.outcome {
            CaseOutcome::Skipped(_) => None,
            CaseOutcome::Passed | CaseOutcome::Note => Some((c.id.clone(), true)),
            _ => Some((c.id.clone(), false)),
        })
        .collect()
}

/// Applies the run's allowances to one plugin's cases: the case files'
/// first, then the flags'; returns the outcomes between the two (see
/// [`outcomes`]).
pub(super) fn allow(
    report: &mut crate::outcome::results::RunReport,
    allowed: &[crate::judge::allow::Allowance],
) -> Vec<(String, bool)> {
    use crate::judge::allow::By;
    let (flags, files): (Vec<_>, Vec<_>) = allowed
        .iter()
        .cloned()
        .partition(|a| matches!(a.by, By::Flag));
    crate::judge::allow::apply(&mut report.cases, &files);
    let outcomes = outcomes(report);
    crate::judge::allow::apply(&mut report.cases, &flags);
    outcomes
}

/// Records which cases of the run did not pass, with its seed and its
/// `--allow` values, for `--rerun-failed`; a record that cannot be written
/// only costs the next rerun, so it is said and the run goes on.
pub(super) fn remember(
    report: &crate::outcome::results::RunReport,
    outcomes: &[(String, bool)],
    allow: &[String],
) {
    let ran = crate::running::rerun::Ran {
        seed: report.seed,
        allow,
        cases: outcomes
            .iter()
            .map(|(id, passed)| (id.as_str(), *passed))
            .collect(),
    };
    let dir = crate::running::rerun::records_dir();
    if let Err(err) = crate::running::rerun::remember(&dir, &report.plugin, ran) {
        eprintln!(
            "agent-conform: note: could not record this run's failures in {} ({err}); \
             --rerun-failed will not know them",
            dir.display()
        );
    }
}

/// The human reporter the flags ask for.
pub(super) fn human(args: &RunArgs) -> Human {
    Human {
        color: use_color(args.color),
        verbosity: if args.quiet {
            Verbosity::Quiet
        } else if args.verbose {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        },
        strict: args.strict,
        width: terminal_width(),
    }
}

/// The columns of the terminal the report goes to, or
/// [`crate::report::human::DEFAULT_WIDTH`] when stdout is not one (a file,
/// a pipe, CI's log).
fn terminal_width() -> usize {
    use std::io::IsTerminal as _;
    let fallback = crate::report::human::DEFAULT_WIDTH;
    if !std::io::stdout().is_terminal() {
        return fallback;
    }
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills the winsize it is given, nothing else.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        let asked = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
        if asked == 0 && size.ws_col >= 40 {
            return usize::from(size.ws_col);
        }
    }
    fallback
}

/// Writes the JUnit file; a path that cannot be written is a usage error.
pub(super) fn write_junit(
    path: &Path,
    report: &crate::outcome::results::RunReport,
    strict: bool,
) -> Result<(), UsageError> {
    let xml = crate::report::junit::render(report, strict).map_err(|err| {
        UsageError::new(
            format!("cannot render the JUnit report: {err}"),
            "please report this",
        )
    })?;
    std::fs::write(path, xml).map_err(|err| {
        UsageError::new(
            format!("cannot write the JUnit report to {}: {err}", path.display()),
            "pass a --junit path in an existing, writable directory",
        )
    })
}

/// Under GitHub Actions: annotations for failed and warned cases on stdout,
/// and a Markdown summary appended to `$GITHUB_STEP_SUMMARY`.
/// With `--format json` the annotations go to stderr, which the runner reads
/// too, so that stdout stays one JSON document.
pub(super) fn github(
    report: &crate::outcome::results::RunReport,
    strict: bool,
    json_on_stdout: bool,
) {
    if std::env::var("GITHUB_ACTIONS").as_deref() != Ok("true") {
        return;
    }
    let annotations = crate::report::github::annotations(report, strict);
    if json_on_stdout {
        eprint!("{annotations}");
    } else {
        print_stdout(&annotations);
    }
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") else {
        return;
    };
    let summary =
        crate::report::github::summary_markdown(report, strict, sandbox_artifact().as_deref());
    append_summary(Path::new(&path), &summary);
}

/// The name of the artifact the agent-conform action uploads the kept
/// sandboxes as (`AGENT_CONFORM_SANDBOX_ARTIFACT`, which `action.yml` sets),
/// for the summary to say where the reproduce paths went.
pub(super) fn sandbox_artifact() -> Option<String> {
    std::env::var("AGENT_CONFORM_SANDBOX_ARTIFACT")
        .ok()
        .filter(|name| !name.trim().is_empty())
}

/// Appends to the step summary file; a failure is a warning on stderr.
pub(super) fn append_summary(path: &Path, summary: &str) {
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(summary.as_bytes()));
    if let Err(err) = appended {
        eprintln!(
            "agent-conform: warning: cannot append the summary to {}: {err}",
            path.display()
        );
    }
}
