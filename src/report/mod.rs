//! The reporters: each renders a [`RunReport`](crate::outcome::results::RunReport)
//! for one audience.

pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod matrix;
pub mod progress;
mod text;
pub mod together;

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

fn describe_assert(a: &crate::suite::case::JsonAssert) -> String {
    let check = if let Some(v) = &a.equals {
        format!("equals {v}")
    } else if let Some(v) = &a.not_equals {
        format!("differs from {v}")
    } else if a.not_empty.is_some() {
        "not empty".to_string()
    } else if let Some(v) = &a.contains {
        format!("contains {v:?}")
    } else if let Some(t) = &a.json_type {
        format!("is of type {t}")
    } else if a.absolute_path.is_some() {
        "is an absolute path".to_string()
    } else if let Some(m) = &a.base64_max_len {
        format!("decodes to at most {m} bytes")
    } else if a.file_exists.is_some() {
        "names an existing file".to_string()
    } else if a.own_session_dir.is_some() {
        "is a session directory of the plugin's own (the host's owner lookup)".to_string()
    } else if let Some(name) = &a.schema {
        format!("matches schema {name}")
    } else if a.empty.is_some() {
        "is empty".to_string()
    } else if let Some(min) = a.min {
        format!("is at least {min}")
    } else if let Some(dir) = &a.inside {
        format!("stays inside {dir}")
    } else {
        "decodes to the expected bytes".to_string()
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
