//! A variable the agent sets and the sandbox does not (docs/host.md,
//! "Plugins in the wild"; [`crate::host::agent_env`]) is "not verified
//! here": a note, said in full (with the `env:` that sets it) at one case
//! and short elsewhere. The one warning that stays is the capability's:
//! when, because of such refusals, nothing of a declared capability was
//! verified, the refusals become that capability's [`Kind::Unverified`],
//! which `unverified` says once per capability as a warning.

use std::collections::{BTreeMap, BTreeSet};

use super::reweigh;
use crate::host::Severity;
use crate::host::agent_env::{not_verified_again, unverified_for, wanting};
use crate::outcome::results::{CaseOutcome, CaseReport};
use crate::outcome::{Finding, Kind};

/// Whether a case verified something of its capability: it ran, no
/// refusal for a variable the agent sets and no refusal of another agent's
/// format ([`Kind::Unverified`]) stopped it, and the plugin answered at
/// least one of its calls with exit 0. A case that only saw refusals (a
/// generic payload refused, an error case's refusal) checked nothing of
/// what the capability does for the user.
fn verified(report: &CaseReport) -> bool {
    if matches!(
        report.outcome,
        CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_)
    ) {
        return false;
    }
    let stopped = report
        .steps
        .iter()
        .flat_map(|s| &s.findings)
        .any(|f| matches!(f.kind, Kind::AgentVariable | Kind::Unverified));
    !stopped && report.steps.iter().any(|s| s.exit_code == Some(0))
}

/// The declared capabilities (never `core`, which is no declared
/// capability) that a refusal for a variable the agent sets met and that
/// no case verified ([`verified`]). A capability's cases run only when
/// `info` declares it, so one that met a refusal is declared.
fn unverified_capabilities(reports: &[CaseReport]) -> BTreeSet<String> {
    let met: BTreeSet<&str> = reports
        .iter()
        .filter(|r| r.capability != "core")
        .filter(|r| {
            r.steps
                .iter()
                .flat_map(|s| &s.findings)
                .any(|f| f.kind == Kind::AgentVariable)
        })
        .map(|r| r.capability.as_str())
        .collect();
    let verified: BTreeSet<&str> = reports
        .iter()
        .filter(|r| verified(r))
        .map(|r| r.capability.as_str())
        .collect();
    met.difference(&verified).map(|c| c.to_string()).collect()
}

/// The refusals of a case for want of a variable the agent sets, each with
/// its variable (the finding's subject, never read from its text).
fn refusals(report: &mut CaseReport) -> impl Iterator<Item = (&mut Finding, String)> {
    report
        .steps
        .iter_mut()
        .flat_map(|s| s.findings.iter_mut())
        .filter(|f| f.kind == Kind::AgentVariable)
        .filter_map(|f| {
            let variable = f.subject()?.to_string();
            Some((f, variable))
        })
}

/// A capability that refusals for a variable the agent sets left with
/// nothing verified: each such refusal in its cases becomes of kind
/// [`Kind::Unverified`], about the capability, saying what the variable's
/// note says and that the capability is unverified, with the `env:` that
/// makes it checked; `unverified::unverified_once` then makes one of them
/// the capability's warning and the others notes pointing there.
pub(super) fn capabilities_left_unverified(reports: &mut [CaseReport]) {
    let capabilities = unverified_capabilities(reports);
    for report in reports
        .iter_mut()
        .filter(|r| capabilities.contains(&r.capability))
    {
        let capability = report.capability.clone();
        let mut note = None;
        for (finding, variable) in refusals(report) {
            let taken = std::mem::replace(finding, Finding::note(""));
            *finding = Finding {
                message: unverified_for(&variable, &capability),
                kind: Kind::Unverified,
                ..taken
            }
            .with_subject(capability.as_str())
            .with_gist(wanting(&variable));
            if finding.says_note {
                note = Some(finding.message.clone());
            }
        }
        if note.is_some() {
            report.note = note;
        }
    }
}

/// A variable the agent sets and the sandbox does not is said in full
/// (with the `env:` that sets it) once per run, at the first case in report
/// order that met it (the same every run, whatever the jobs); the other
/// cases' refusals for it are short notes pointing there, and a case note
/// made from one of them follows it. Every one of them is a note. The
/// variable is the finding's subject ([`Kind::AgentVariable`]), never read
/// from its text.
pub(super) fn once_per_variable(reports: &mut [CaseReport]) {
    let mut said: BTreeMap<String, String> = BTreeMap::new();
    for report in reports {
        let mut lowered = false;
        let mut note = None;
        let id = report.id.clone();
        for (finding, variable) in refusals(report) {
            if finding.severity > Severity::Note {
                finding.set_severity(Severity::Note);
                lowered = true;
            }
            match said.get(&variable) {
                None => {
                    said.insert(variable, id.clone());
                }
                Some(first) => {
                    finding.message = not_verified_again(&variable, first);
                    if finding.says_note {
                        note = Some(finding.message.clone());
                    }
                }
            }
        }
        if note.is_some() {
            report.note = note;
        }
        if lowered {
            reweigh(report);
        }
    }
}
