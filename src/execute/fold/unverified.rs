//! An unverified capability (no sample transcript of the plugin's own, and
//! a refusal of, or a crash on, the generic one) is a warning once per
//! capability, with the YAML that makes it checked, notes elsewhere.

use std::collections::BTreeMap;

use super::reweigh;
use crate::host::Severity;
use crate::outcome::Kind;
use crate::outcome::results::CaseReport;

/// The message of an unverified capability: what happened, then the YAML
/// that makes it checked. The finding keeps `what` as its gist
/// ([`crate::outcome::Finding::gist`]) and the capability as its subject,
/// for [`again`].
pub(in crate::execute) fn unverified_message(what: &str, capability: &str) -> String {
    format!(
        "{what}; with no sample transcript of its own, {capability}, which info declares, is \
         unverified: nothing of it was checked; name one in a case file of yours (--cases DIR): \
         `transcripts: [samples/<a transcript of yours>]`"
    )
}

/// The same, said again at a later case: short, pointing at the first.
fn again(what: &str, capability: &str, first: &str) -> String {
    format!("{what}; {capability} is unverified (see {first}, where the run says it once)")
}

/// Where a finding is: (case index, step, finding).
type At = (usize, usize, usize);

/// The findings of kind [`Kind::Unverified`], by capability (the finding's
/// subject, else its case's).
fn unverified_findings(reports: &[CaseReport]) -> BTreeMap<String, Vec<(At, Severity)>> {
    let mut found: BTreeMap<String, Vec<(At, Severity)>> = BTreeMap::new();
    for (c, report) in reports.iter().enumerate() {
        for (s, step) in report.steps.iter().enumerate() {
            for (f, finding) in step.findings.iter().enumerate() {
                if finding.kind == Kind::Unverified {
                    let capability = finding.subject().unwrap_or(&report.capability);
                    found
                        .entry(capability.to_string())
                        .or_default()
                        .push(((c, s, f), finding.severity));
                }
            }
        }
    }
    found
}

/// An unverified capability is a warning once: at the case marked
/// `unverified: warning` when that case met it, else at the first case in
/// report order that did; the others get a note pointing there.
pub(super) fn unverified_once(reports: &mut [CaseReport]) {
    for (capability, found) in unverified_findings(reports) {
        let chosen = found
            .iter()
            .find(|(_, severity)| *severity >= Severity::Warning)
            .or(found.first())
            .map(|(at, _)| *at);
        let Some((fc, _, _)) = chosen else { continue };
        let first = reports[fc].id.clone();
        for (at @ (c, s, f), _) in found {
            let report = &mut reports[c];
            let finding = &mut report.steps[s].findings[f];
            if Some(at) == chosen {
                finding.set_severity(Severity::Warning.min(report.severity));
            } else {
                let what = finding.gist().unwrap_or(&finding.message);
                let again = again(what, &capability, &first);
                if finding.says_note {
                    report.note = Some(again.clone());
                }
                finding.message = again;
                finding.set_severity(Severity::Note);
                finding.kind = Kind::SaidElsewhere;
            }
            reweigh(report);
        }
    }
}
