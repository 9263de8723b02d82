//! What the host can reach of this plugin ([`crate::host::reach`]): the
//! facts read once, after the gate, and how they weigh a case's findings.
//!
//! `info` says whether the host records sessions of the plugin at all
//! (`hooks`). For a plugin that declares hooks and says they are installed
//! in a fresh repository, a short probe tells whether its agent's own
//! library fires them: `install-hooks` then `uninstall-hooks` in a sandbox
//! of their own, with `are-hooks-installed` after; a plugin that answers
//! `false` first costs one call.
//!
//! Reach rests only on what the plugin says about itself (`info`, what
//! `install-hooks` writes), never on how it answered our own generic
//! inputs: a `parse-hook` that gives `null` for every payload tried says
//! nothing of its agent's real payloads, and a verdict
//! read from the answers of other cases would change with `--only`.

use serde_json::Value;

use crate::execute::Run;
use crate::host::invocation::WorkTree;
use crate::host::reach::{self, Reach, Subject};
use crate::judge::userdata::UserData;
use crate::outcome::results::StepReport;
use crate::running::runner;
use crate::suite::case::{Case, Source};

impl Run<'_> {
    /// The reach facts of this plugin, from `info` and the probe.
    pub(super) fn probe_reach(&self) -> Reach {
        let hooks = self.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
        let library_hooks = hooks && self.library_hooks();
        Reach {
            hooks,
            library_hooks,
        }
    }

    /// Whether the agent's own library fires the hooks (see the module).
    fn library_hooks(&self) -> bool {
        let Ok(sandbox) = self.depot.take(None, "reach-probe", WorkTree::Plain) else {
            return false;
        };
        let answer = |args: &[&str]| {
            let args = args.iter().map(|a| a.to_string()).collect();
            let inv = self.invocation(&sandbox, args, self.options.timeout);
            if self.breaker.refuse(&inv.args).is_some() {
                return None;
            }
            let outcome = runner::run(&inv);
            self.breaker
                .record("the reach probe", &inv.args, inv.timeout, &outcome);
            let json = crate::host::decoding::decode_host_json(&outcome.stdout).ok();
            (outcome.exit_code() == Some(0)).then_some(json)
        };
        let installed = |json: Option<Option<Value>>| {
            json.flatten().and_then(|j| j.get("installed").cloned()) == Some(Value::Bool(true))
        };
        let mut user = UserData::default();
        let fired = installed(answer(&["are-hooks-installed"])) && {
            user.snapshot("before", &sandbox);
            let count = answer(&["install-hooks"])
                .flatten()
                .and_then(|j| j.get("hooks_installed").and_then(Value::as_i64))
                .unwrap_or(-1);
            let installed_changed = !user.unchanged("before", &sandbox).is_empty();
            let removed = answer(&["uninstall-hooks"]).is_some();
            let changed = installed_changed || !user.unchanged("before", &sandbox).is_empty();
            let still = installed(answer(&["are-hooks-installed"]));
            removed && reach::library_fired(still, count, changed)
        };
        self.depot.dispose(sandbox);
        fired
    }

    /// Weighs the findings of a case's steps by what the host reaches: a
    /// failure on a path the host never takes for this plugin becomes a
    /// warning that says why.
    pub(super) fn weigh_by_reach(&self, case: &Case, reports: &mut [StepReport]) {
        let case_subject = case_subject(case);
        for report in reports {
            let subject = match report.args.first() {
                Some(sub) => reach::subject_of(sub),
                None => step_subject(&report.name).unwrap_or(case_subject),
            };
            let Some((max, why)) = self.reach.limit(subject) else {
                continue;
            };
            for finding in &mut report.findings {
                if finding.severity > max && !finding.hard {
                    finding.severity = max;
                    finding.message = format!("{why}: {}", finding.message);
                }
            }
        }
    }
}

/// Whether a case's own input hands the plugin an escaping reference (a
/// `..` component in an argument or in its stdin JSON): a write outside
/// the sandbox that follows it was provoked by the case, and counts at the
/// case's severity rather than as a hard failure (what the host
/// can reach; the host never sends such a reference of its own making).
pub(super) fn provokes_escape(case: &Case) -> bool {
    let escapes = |text: &str| text.contains("/..") || text.contains("..\\");
    case.steps.iter().any(|step| {
        let args = step.value.args.iter().flatten().any(|a| escapes(a));
        let stdin = match &step.value.stdin {
            Some(Source::Json(value)) => escapes(&value.to_string()),
            Some(Source::Text(text)) => escapes(text),
            _ => false,
        };
        args || stdin
    })
}

/// A write outside the sandbox that the case provoked ([`provokes_escape`])
/// is no longer hard: the case's severity caps it.
pub(super) fn soften_provoked(case: &Case, report: &mut StepReport) {
    if !provokes_escape(case) {
        return;
    }
    for finding in &mut report.findings {
        let outside = finding.kind == crate::outcome::Kind::EscapedSandbox;
        if finding.hard && outside {
            finding.hard = false;
            finding.message = format!(
                "{} (following the escaping reference this case gave it: counted at the case's \
                 severity)",
                finding.message
            );
        }
    }
}

/// The subject of a case's harness actions: that of the subcommands its
/// steps call, when they are all of one (a session store round trip, a
/// hook install).
fn case_subject(case: &Case) -> Subject {
    let subjects: Vec<Subject> = case
        .steps
        .iter()
        .filter_map(|s| s.value.args.as_ref()?.first().map(|a| reach::subject_of(a)))
        .filter(|s| *s != Subject::Other)
        .collect();
    match subjects.first() {
        Some(first) if subjects.iter().all(|s| s == first) => *first,
        _ => Subject::Other,
    }
}

/// The subject of a step of the session replay without a call (a check of
/// what resume or rewind restored).
fn step_subject(name: &str) -> Option<Subject> {
    let restore = ["entire resume", "entire rewind", "read-session"];
    restore
        .iter()
        .any(|p| name.starts_with(p))
        .then_some(Subject::Restore)
}
