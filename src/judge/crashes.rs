//! What a crash weighs (a trace, a panic, a fatal signal: see
//! [`crate::host::crash`]): what the call costs in the host, never a clean
//! refusal.
//!
//! - Where the call must succeed, the call fails in the host ("Invocation":
//!   a non-zero exit fails the call): a failure, as any non-zero exit there,
//!   named for what it is and quoting the exception.
//! - Where the call must (or may) fail, the host fails it either way and
//!   shows the user `<subcommand>: <stderr, trimmed>`: a trace where one
//!   sentence would say what is wrong. It degrades: a warning, as a silent
//!   failure is.
//! - On an input the host never sends (the generic transcript, another
//!   agent's format; "What the host does with each answer": "The host only
//!   ever sends inputs of its own making"), no user meets it: a note that
//!   says it crashed, not that it refused; a refusal the case weighs
//!   (`on_refusal: warning`, "not verified here") keeps its weight. The case
//!   goes on as after a refusal, so that what it could not check is said
//!   (a capability unverified), and the samples of the plugin's own are
//!   checked.
//!
//! A crash is never read as "another agent's format" or as a refusal naming
//! a variable only the agent sets: it says nothing of what the plugin meant.

use crate::host::crash::Crash;
use crate::outcome::{Finding, Kind};
use crate::running::runner::Outcome;
use crate::suite::case::{ExitExpect, Refusal, RefusalOutcome, Severity};

use super::context::{Judged, StepContext, status_text};

/// The verdict on a call that crashed.
pub(super) fn weigh(
    ctx: &StepContext<'_>,
    out: &Outcome,
    crash: &Crash,
    mut findings: Vec<Finding>,
) -> Judged {
    let written = ctx.step.on_refusal.as_ref();
    if written.is_some() || ctx.refusable {
        let (severity, message) = match written {
            Some(refusal) => (
                match refusal.outcome {
                    RefusalOutcome::Warning => Severity::Warning,
                    _ => Severity::Note,
                },
                format!(
                    "crashed: {} (exit {}); not a clean refusal. Had it refused: {}",
                    crash.describe(),
                    status_text(out),
                    refusal.note
                ),
            ),
            None => (
                Severity::Note,
                format!(
                    "crashed on the generic transcript (another agent's format, which the host \
                     never sends it): {} (exit {}); not a clean refusal, and nothing of this \
                     call was checked",
                    crash.describe(),
                    status_text(out)
                ),
            ),
        };
        findings.push(Finding {
            severity,
            ..Finding::warning(message.clone()).kind(Kind::Crashed)
        });
        let refusal = Refusal {
            own_id: false,
            outcome: RefusalOutcome::Pass,
            note: message,
            with_samples: None,
            continue_with: written.map(|r| r.continue_with.clone()).unwrap_or_default(),
            variable: None,
        };
        return Judged::Refused(refusal, findings);
    }
    let finding = match ctx.step.expect.exit {
        ExitExpect::Success => {
            let declared = ctx.capability.map_or(String::new(), |cap| {
                format!(
                    "; capability {cap} is declared in info, so the host calls this subcommand \
                     and expects it to work"
                )
            });
            Finding::failure(format!(
                "crashed: {}; the call must exit 0, and the host fails it{declared}",
                crash.describe()
            ))
            .diff("exit 0", format!("exit {}", status_text(out)))
        }
        ExitExpect::Failure | ExitExpect::Any => Finding::warning(format!(
            "crashed: {} instead of refusing with a message; the host fails the call either \
             way and shows the user `<subcommand>: <stderr>`: a trace, where one sentence \
             would say what is wrong",
            crash.describe()
        )),
    };
    findings.push(finding.kind(Kind::Crashed));
    Judged::Checked(findings, None)
}

/// A trace on stderr of a call that exited 0: the host reads stdout and
/// shows stderr only of a call that fails ("Invocation"), so nobody sees
/// it: a note.
pub(super) fn trace_at_success(out: &Outcome) -> Option<Finding> {
    if out.exit_code() != Some(0) {
        return None;
    }
    let trace = crate::host::crash::trace(&out.stderr)?;
    Some(
        Finding::note(format!(
            "stderr holds a {}, though the call exited 0: the host shows stderr only of a \
             call that fails, so nobody sees it",
            trace.describe()
        ))
        .kind(Kind::Crashed),
    )
}
