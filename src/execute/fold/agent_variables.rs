//! A variable the agent sets and the sandbox does not (docs/host.md,
//! "Plugins in the wild"; [`crate::host::agent_env`]) is a warning at one
//! case, notes elsewhere.

use std::collections::BTreeMap;

use super::reweigh;
use crate::host::Severity;
use crate::host::agent_env::not_verified_again;
use crate::outcome::Kind;
use crate::outcome::results::CaseReport;

/// A variable the agent sets and the sandbox does not is a warning once per
/// run, at the first case in report order that met it (the same every
/// run, whatever the jobs); the other cases' refusals for it are notes,
/// and a case note made from one of them follows it. The variable is the
/// finding's subject ([`Kind::AgentVariable`]), never read from its text.
pub(super) fn once_per_variable(reports: &mut [CaseReport]) {
    let mut said: BTreeMap<String, String> = BTreeMap::new();
    for report in reports {
        let mut lowered = false;
        let mut note = None;
        for finding in report.steps.iter_mut().flat_map(|s| s.findings.iter_mut()) {
            if finding.severity != Severity::Warning || finding.kind != Kind::AgentVariable {
                continue;
            }
            let Some(variable) = finding.subject().map(str::to_string) else {
                continue;
            };
            match said.get(&variable) {
                None => {
                    said.insert(variable, report.id.clone());
                }
                Some(first) => {
                    finding.message = not_verified_again(&variable, first);
                    finding.set_severity(Severity::Note);
                    if finding.says_note {
                        note = Some(finding.message.clone());
                    }
                    lowered = true;
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
