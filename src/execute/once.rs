//! What a run says once: a variable the agent sets and the sandbox does
//! not (docs/host.md, "Plugins in the wild"; [`crate::host::agent_env`])
//! is a warning at one case, notes elsewhere.

use std::collections::BTreeMap;

use super::worst;
use crate::outcome::results::{CaseOutcome, CaseReport};
use crate::suite::case::Severity;

/// A variable the agent sets and the sandbox does not is a warning once per
/// run, at the first case in report order that met it (the same every
/// run, whatever the jobs); the other cases' refusals for it are notes.
pub(super) fn once_per_variable(reports: &mut [CaseReport]) {
    let mut said: BTreeMap<String, String> = BTreeMap::new();
    for report in reports {
        let mut lowered = false;
        for finding in report.steps.iter_mut().flat_map(|s| s.findings.iter_mut()) {
            if finding.severity != Severity::Warning {
                continue;
            }
            let Some(variable) = crate::host::agent_env::named_in(&finding.message) else {
                continue;
            };
            let variable = variable.to_string();
            match said.get(&variable) {
                None => {
                    said.insert(variable, report.id.clone());
                }
                Some(first) => {
                    finding.message = crate::host::agent_env::not_verified_again(&variable, first);
                    finding.severity = Severity::Note;
                    lowered = true;
                }
            }
        }
        if lowered {
            if let Some(note) = &report.note
                && let Some(variable) = crate::host::agent_env::named_in(note)
                && let Some(first) = said.get(variable)
                && *first != report.id
            {
                report.note = Some(crate::host::agent_env::not_verified_again(variable, first));
            }
            if report.outcome == CaseOutcome::Warning {
                report.outcome = worst(&report.steps);
            }
        }
    }
}
