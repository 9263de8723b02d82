//! What a step is checked against: the step as written, its schemas,
//! bindings and sources, and the facts of its case and plugin. Its own
//! module so that the checks of the whole outcome (`checks`) and of one
//! JSON assertion (`assertions`) share it without naming each other; and
//! the verdict on a step (`Judged`), which `checks` and `crashes` (a crash
//! weighed by what the call costs) both give, for the same reason.

use serde_json::Value;

use crate::outcome::finding::Finding;
use crate::running::runner::{Outcome, Termination};
use crate::suite::case::{Refusal, Severity, Source, Step};
use crate::suite::schema::Schemas;
use crate::suite::template::Bindings;

/// Resolves a [`Source`] to bytes at run time.
pub type Resolve<'a> = dyn Fn(&Source) -> Result<Vec<u8>, String> + 'a;

/// Everything a step is checked against.
pub struct StepContext<'a> {
    /// The step as written.
    pub step: &'a Step,
    /// The invocation's deadline, for the message.
    pub timeout_secs: f64,
    /// The compiled schemas.
    pub schemas: &'a Schemas,
    /// Placeholder values.
    pub bindings: &'a Bindings<'a>,
    /// Resolves sources (fixtures, earlier stdout, sandbox files).
    pub resolve: &'a Resolve<'a>,
    /// The case's severity, the default of its assertions.
    pub severity: Severity,
    /// The capability the case checks (none for core).
    pub capability: Option<&'a str>,
    /// The spec items the case checks (`covers:`): a field whose missing
    /// value only degrades the host is reported by the case that covers
    /// it, not again by every case that calls the subcommand.
    pub covers: &'a [String],
    /// A clean refusal ends the step quietly (the generic transcript of a
    /// `for_each_transcript` case: another agent's format).
    pub refusable: bool,
    /// An all-zero answer counts as such a refusal too (the first answer of
    /// a generic pass: the plugin shows it did not read the transcript).
    pub empty_is_unread: bool,
    /// The name the host registers the plugin under (`entire-agent-<name>`),
    /// for the owner lookup's sorted name order.
    pub agent: &'a str,
    /// The variable the plugin's clean refusal names that the sandbox does
    /// not set (see [`crate::judge::environment`]).
    pub needs: Option<String>,
    /// How the plugin answers a subcommand that cannot exist, when the
    /// gate could tell ([`crate::host::reach::Unknown`]).
    pub unknown: Option<&'a crate::host::reach::Unknown>,
}

/// The verdict on one step.
#[derive(Debug)]
pub enum Judged {
    /// Checked; the findings (possibly none) and the decoded stdout JSON.
    Checked(Vec<Finding>, Option<Value>),
    /// The plugin refused cleanly and the step allows it; the findings of
    /// the host's universal rules (a traceback, a silent refusal) stand.
    Refused(Refusal, Vec<Finding>),
}

/// How the process ended, for messages.
pub fn status_text(out: &Outcome) -> String {
    match &out.termination {
        Termination::Exited(Some(code)) => code.to_string(),
        Termination::Exited(None) => "by a signal".to_string(),
        Termination::TimedOut => "timed out".to_string(),
        Termination::SpawnFailed(_) => "not started".to_string(),
    }
}
