//! The reporters: each renders a [`RunReport`](crate::outcome::results::RunReport)
//! for one audience.

pub mod discover;
pub mod github;
mod host;
pub mod human;
pub mod json;
pub mod junit;
pub mod many;
pub mod matrix;
pub mod progress;
mod text;
mod world;

use std::fmt::Write as _;

use crate::suite::case::Case;

/// `agent-conform explain ID`: what a case checks, why, and its steps.
pub fn explain(case: &Case) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", case.id, case.title);
    let _ = writeln!(out, "  capability: {}", case.group());
    let _ = writeln!(
        out,
        "  severity:   {} ({})",
        case.severity.label(),
        case.severity.meaning()
    );
    if let Some(hosts) = &case.host_version {
        let elsewhere = case.elsewhere.map_or("not reported".to_string(), |s| {
            format!("a {} at most", s.label())
        });
        let _ = writeln!(out, "  hosts:      {hosts} (elsewhere: {elsewhere})");
    }
    let _ = writeln!(out, "  spec:       {}", case.spec);
    let _ = writeln!(
        out,
        "  defined at: {}:{}",
        case.origin.file, case.origin.line
    );
    if let Some(why) = &case.why {
        let _ = writeln!(
            out,
            "\nWhat the host does with a wrong answer (why):\n  {}",
            why.trim().replace('\n', "\n  ")
        );
    }
    if let Some(each) = &case.for_each_transcript {
        let _ = writeln!(
            out,
            "\nRuns over: the generic transcript {} (a clean refusal of it is accepted), then \
             each of the plugin's own samples (transcripts:); with neither: {}",
            each.generic,
            each.unverified.label()
        );
    }
    if let Some(property) = &case.property {
        let _ = writeln!(out, "\nProperty: {property:?}");
    }
    if case.replay.is_some() {
        let _ = writeln!(
            out,
            "\nReplays the host's calls over a session, in order (a recorded session: from \
             the plugin's session: section; else a generic one in the guide's shape):"
        );
        for (when, calls) in crate::host::session::ORDER {
            let _ = writeln!(out, "  {when}: {calls}");
        }
    }
    if case.steps.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\nSteps:");
    for (i, step) in case.steps.iter().enumerate() {
        let step = &step.value;
        let what = match (&step.args, &step.action) {
            (Some(args), _) => args.join(" "),
            (None, Some(action)) => format!("harness action {action:?}"),
            (None, None) => String::new(),
        };
        let each = step
            .for_each
            .as_ref()
            .map(|p| format!(" (for each element of info {p})"))
            .unwrap_or_default();
        let _ = writeln!(out, "  {}. {}: {what}{each}", i + 1, case.step_name(i));
        if let Some(stdin) = &step.stdin {
            let late = step
                .stdin_delay_ms
                .map(|ms| {
                    format!(
                        " (delivered late: half after {} ms, the rest after {ms} ms)",
                        ms / 2
                    )
                })
                .unwrap_or_default();
            let _ = writeln!(out, "     stdin: {}{late}", describe_stdin(stdin));
        }
        let _ = writeln!(out, "     expects exit: {:?}", step.expect.exit);
        if let Some(schema) = &step.expect.stdout_schema {
            let _ = writeln!(out, "     stdout schema: {schema}");
        }
        for a in &step.expect.json {
            let _ = writeln!(out, "     json {}: {}", a.pointer, describe_assert(a));
        }
        if step.expect.stdout.is_some() {
            let _ = writeln!(out, "     stdout: exact bytes");
        }
        if let Some(r) = &step.on_refusal {
            let _ = writeln!(
                out,
                "     a clean refusal ends the case as {:?}: {}",
                r.outcome, r.note
            );
        }
    }
    out
}

/// A step's stdin as `explain` says it: short text and JSON inline
/// (placeholders such as `{{repo}}` are filled when the case runs), the rest
/// by where it comes from. A run's report shows each input it sent
/// (`stdin:` lines).
fn describe_stdin(source: &crate::suite::case::Source) -> String {
    use crate::suite::case::Source;
    const INLINE: usize = 160;
    let inline = |text: String, what: &str| {
        if text.contains('\n') || text.chars().count() > INLINE {
            let first: String = text
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(60)
                .collect();
            format!("{what} of {} bytes, starting {first}…", text.len())
        } else {
            text
        }
    };
    match source {
        Source::Text(text) => inline(text.clone(), "text"),
        Source::Json(value) => inline(value.to_string(), "JSON"),
        Source::Fixture(name) => format!("the fixture {name}, byte for byte"),
        Source::StdoutOf(step) => format!("the stdout of step {step:?}"),
        Source::File(path) => format!("the sandbox's file {path}, as it is when the step runs"),
        Source::Path(path) => format!("the file {path} beside the case file"),
        Source::CurrentTranscript => "each transcript in turn (see Runs over)".to_string(),
        Source::CurrentTranscriptFragment => {
            "a checkpoint's slice of each transcript in turn (its lines from the middle on)"
                .to_string()
        }
        Source::PaddedJson { json, bytes } => {
            let json = inline(json.to_string(), "JSON");
            format!("{json}, padded with a string field to {bytes} bytes")
        }
    }
}

fn describe_assert(a: &crate::suite::case::JsonAssert) -> String {
    use crate::suite::case::Check;
    let check = match &a.check {
        Check::Equals(v) => format!("equals {v}"),
        Check::NotEquals(v) => format!("differs from {v}"),
        Check::NotEmpty => "not empty".to_string(),
        Check::Contains(v) => format!("contains {v:?}"),
        Check::Type(t) => format!("is of type {}", t.name()),
        Check::AbsolutePath => "is an absolute path".to_string(),
        Check::Base64MaxLen(m) => format!("decodes to at most {m} bytes"),
        Check::FileExists => "names an existing file".to_string(),
        Check::OwnSessionDir => {
            "is a session directory of the plugin's own (the host's owner lookup)".to_string()
        }
        Check::Schema(name) => format!("matches schema {name}"),
        Check::Empty => "is empty".to_string(),
        Check::Min(min) => format!("is at least {min}"),
        Check::Inside(dir) => format!("stays inside {dir}"),
        Check::Base64Equals(_) => "decodes to the expected bytes".to_string(),
        Check::HostLines(file) => format!("is the host's line count of {file}"),
        Check::HostSessionFile(dir) => {
            format!("is a session file the newest hosts accept under {dir}")
        }
        Check::SetupDetect => {
            "says present only where the agent has been (setup enables what it detects)".to_string()
        }
        Check::InstalledDetect => {
            "says present where the agent is installed, absent for a plugin without hooks \
             (setup enables what it detects)"
                .to_string()
        }
    };
    let check = match a.severity {
        Some(severity) => format!("{check} [{}]", severity.label()),
        None => check,
    };
    match &a.when {
        Some(c) => format!("{check} (when {} = {})", c.pointer, c.equals),
        None => check,
    }
}
