//! `agent-conform A B ...`: several plugins in one run. Their cases share
//! the jobs ([`crate::execute::many`]); then the conflicts between them when
//! installed many ([`crate::execute::conflicts`]); then one report of
//! each kind: human (each plugin's findings, the matrix, the conflicts) or
//! one JSON document on stdout, one JUnit file, one GitHub summary. The exit
//! code is the worst.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::execute::{self, Options};
use crate::outcome::many::ManyReport;
use crate::suite::case::Suite;
use crate::suite::schema::Schemas;
use crate::verbs::reports;
use crate::verbs::usage::UsageError;
use crate::verbs::{Format, RunArgs, print_stdout};

/// Runs the plugins and prints their reports; the exit code is 1 when any
/// plugin's run fails or any conflict does.
pub(super) fn run(
    args: &RunArgs,
    plugins: &[PathBuf],
    suites: &[&Suite],
    schemas: &Schemas,
    options: &Options,
    allowed: &[Vec<crate::judge::allow::Allowance>],
) -> Result<ExitCode, UsageError> {
    let cases = suites.iter().map(|s| s.cases.len()).sum();
    let progress = crate::report::progress::Bar::for_terminal(cases);
    let mut reports = execute::many::run(plugins, suites, schemas, options, progress.as_ref());
    let outcomes: Vec<_> = reports
        .iter_mut()
        .zip(allowed)
        .map(|(report, allowed)| reports::allow(report, allowed))
        .collect();
    crate::running::interrupt::hold_if_interrupted();
    for (report, outcomes) in reports.iter().zip(&outcomes) {
        reports::remember(report, outcomes, &args.allow);
    }
    let members = execute::conflicts::members(&reports);
    let settings = execute::conflicts::Settings {
        timeout: options.timeout,
        sandbox_base: options.sandbox_base.clone(),
        confine: options.confine,
        max_write: options.max_write,
    };
    let conflicts = execute::conflicts::check(&members, &settings);
    crate::running::interrupt::hold_if_interrupted();
    let many = ManyReport {
        plugins: reports,
        conflicts,
    };
    if let Some(path) = &args.junit {
        let xml = crate::report::junit::render_many(&many, args.strict).map_err(|err| {
            UsageError::new(
                format!("cannot render the JUnit report: {err}"),
                "please report this",
            )
        })?;
        write_file(path, &xml)?;
    }
    github(&many, args.strict, args.format == Format::Json);
    match args.format {
        Format::Human => print_stdout(&reports::human(args).render_many(&many)),
        Format::Json => print_stdout(&crate::report::json::render_many(&many, args.strict)),
    }
    Ok(ExitCode::from(u8::from(many.failed(args.strict))))
}

fn write_file(path: &Path, xml: &str) -> Result<(), UsageError> {
    std::fs::write(path, xml).map_err(|err| {
        UsageError::new(
            format!("cannot write the JUnit report to {}: {err}", path.display()),
            "pass a --junit path in an existing, writable directory",
        )
    })
}

/// Under GitHub Actions: the annotations of every plugin and conflict, and
/// one summary for the whole run (see [`reports::github`] for one plugin).
fn github(many: &ManyReport, strict: bool, json_on_stdout: bool) {
    if std::env::var("GITHUB_ACTIONS").as_deref() != Ok("true") {
        return;
    }
    let annotations = crate::report::github::annotations_many(many, strict);
    if json_on_stdout {
        eprint!("{annotations}");
    } else {
        print_stdout(&annotations);
    }
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") {
        let summary = crate::report::github::summary_many(
            many,
            strict,
            reports::sandbox_artifact().as_deref(),
        );
        reports::append_summary(Path::new(&path), &summary);
    }
}
