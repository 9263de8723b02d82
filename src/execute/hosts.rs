//! The host range in a run: a case's `host_version:` narrowed to the
//! releases judged (`--host-version`), its findings named by release, the
//! calls the host makes outside a hook's usual one, and the `info` timing
//! inside hooks. The releases themselves are [`crate::host::range`]'s.

use crate::execute::Run;
use crate::host::callers::{HOOK_DISCOVERY_DEADLINE, HostCall, SHARED_DISCOVERY_BUDGET};
use crate::host::range::{HostRange, ReleaseCondition, Scope};
use crate::host::releases::Fact;
use crate::judge::checks::Finding;
use crate::outcome::results::StepReport;
use crate::running::runner::Invocation;
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, Severity};

impl Run<'_> {
    /// `check_info_time`: the gate's `info` and one more fresh process, the
    /// faster of the two against the hooks' 5 s discovery deadline (a
    /// failure) and half of it (a warning: the deadline is shared with every
    /// plugin probed at once), on the judged releases that have it.
    pub(super) fn info_time(&self, sandbox: &Sandbox) -> Vec<Finding> {
        let scope = self.options.hosts.with_fact(Fact::HookDiscoveryDeadline);
        if !scope.any() {
            return Vec::new();
        }
        // The gate's time within half the deadline settles it: another
        // process could only be faster. Else one more fresh process, the
        // faster of the two (a cold first start is not the plugin's).
        let mut times = Vec::new();
        if !self.info_elapsed.is_zero() {
            times.push(self.info_elapsed);
        }
        if self.info_elapsed.is_zero() || self.info_elapsed > SHARED_DISCOVERY_BUDGET {
            let inv = self.invocation(sandbox, vec!["info".into()], self.options.info_timeout);
            times.push(self.spawn(&inv).elapsed);
        }
        let fastest = times.iter().copied().min().unwrap_or_default();
        let shown: Vec<String> = times
            .iter()
            .map(|t| format!("{:.2} s", t.as_secs_f64()))
            .collect();
        let measured = format!(
            "info took {} in {} fresh process(es), as the host starts one per probe",
            shown.join(" and "),
            times.len()
        );
        if fastest > HOOK_DISCOVERY_DEADLINE {
            return vec![Finding::failure(format!(
                "{}: {measured}; every hook (entire hooks, the git hooks) discovers plugins \
                 within {} s, so every hook of this plugin fails: unknown agent, and no \
                 checkpoint is ever made, while entire enable (10 s) looks fine",
                scope.prefix(),
                HOOK_DISCOVERY_DEADLINE.as_secs()
            ))];
        }
        if fastest > SHARED_DISCOVERY_BUDGET {
            return vec![Finding::warning(format!(
                "{}: {measured}; inside hooks the {} s discovery deadline is shared with every \
                 other plugin probed at once, so on a loaded machine the hooks may not find \
                 this plugin (unknown agent); answer info within {:.1} s",
                scope.prefix(),
                HOOK_DISCOVERY_DEADLINE.as_secs(),
                SHARED_DISCOVERY_BUDGET.as_secs_f64()
            ))];
        }
        Vec::new()
    }
}

/// Where the case's `host_version:` holds within the judged range `hosts`
/// (none: everywhere, the case says nothing of releases). A function of
/// the range and the case alone: the releases are [`crate::host::range`]'s,
/// the case's condition is suite data, so the meeting of the two is here.
pub(super) fn case_scope(hosts: &HostRange, case: &Case) -> Option<Scope> {
    let condition = ReleaseCondition::parse(case.host_version.as_deref()?).ok()?;
    Some(hosts.scope(&condition))
}

/// The releases judged for a case: `hosts`, narrowed to those its
/// `host_version:` holds on (or may hold on).
pub(super) fn case_hosts(hosts: &HostRange, case: &Case) -> HostRange {
    let mut narrowed = hosts.clone();
    if let Some(scope) = case_scope(hosts, case) {
        narrowed.releases = scope.on.iter().chain(&scope.unsure).copied().collect();
    }
    narrowed
}

/// Why a case is not run for the judged range: its `host_version:` holds on
/// none of the releases, and it weighs nothing elsewhere.
pub(super) fn outside(case: &Case, scope: &Scope) -> Option<String> {
    (!scope.any() && case.elsewhere.is_none()).then(|| {
        format!(
            "for hosts {} only, none of the releases judged",
            case.host_version.as_deref().unwrap_or_default()
        )
    })
}

/// Names the releases where each finding of a case holds: those of its
/// `host_version:`, or, where it holds on none, the others at the case's
/// `elsewhere:` severity.
pub(super) fn within(case: &Case, scope: &Scope, reports: &mut [StepReport]) {
    let (prefix, cap) = if scope.any() {
        let mut prefix = scope.prefix();
        if let (Some(other), false) = (case.elsewhere, scope.off.is_empty()) {
            prefix.push_str(&format!(
                " (on {} a {} at most)",
                scope.elsewhere(),
                other.label()
            ));
        }
        (prefix, case.severity)
    } else {
        let cap = case.elsewhere.unwrap_or(Severity::Note);
        (format!("on entire {}", scope.elsewhere()), cap)
    };
    for finding in reports.iter_mut().flat_map(|r| r.findings.iter_mut()) {
        if finding.hard {
            continue;
        }
        finding.cap(cap);
        finding.message = format!("{prefix}: {}", finding.message);
    }
}

/// Says how the host called, in every finding of a step made as
/// [`HostCall`] says.
pub(super) fn as_called(call: HostCall, findings: &mut [Finding]) {
    let unset = call.unset().join(", ");
    for finding in findings {
        finding.message = format!(
            "called as {} (without {unset}): {}",
            call.command(),
            finding.message
        );
    }
}

/// Makes an invocation the way the host calls it here: its variables,
/// and, for a listing command, the working directory outside any
/// repository (the sandbox's HOME).
pub(super) fn called_as(call: HostCall, sandbox: &Sandbox, inv: &mut Invocation) {
    let unset = call.unset();
    inv.env.retain(|(k, _)| !unset.contains(k));
    inv.env_remove.extend(unset);
    inv.env.retain(|(k, _)| {
        !call
            .environment(&sandbox.repo())
            .iter()
            .any(|(set, _)| set == k)
    });
    inv.env.extend(call.environment(&sandbox.repo()));
    if call.outside_repository() {
        inv.cwd = sandbox.home();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failing case of one step, for the releases `host_version` names,
    /// weighing `elsewhere` on the others.
    fn case(host_version: Option<&str>, elsewhere: Option<&str>) -> Case {
        let mut yaml = "id: c\ntitle: t\n".to_string();
        if let Some(v) = host_version {
            yaml.push_str(&format!("host_version: {v}\n"));
        }
        if let Some(e) = elsewhere {
            yaml.push_str(&format!("elsewhere: {e}\n"));
        }
        serde_saphyr::from_str(&yaml).expect("a valid case")
    }

    fn judged(case: &Case) -> (Option<Scope>, Vec<Finding>) {
        let findings = vec![Finding::failure("broken"), Finding::hard("timed out")];
        let mut reports = vec![StepReport::without_invocation("step 1", "action", findings)];
        let scope = case_scope(&HostRange::default(), case);
        if let Some(scope) = &scope {
            within(case, scope, &mut reports);
        }
        (scope, reports.remove(0).findings)
    }

    #[test]
    fn a_case_without_releases_is_judged_on_the_whole_range() {
        let plain = case(None, None);
        assert!(case_scope(&HostRange::default(), &plain).is_none());
        let hosts = case_hosts(&HostRange::default(), &plain);
        assert_eq!(hosts.releases, HostRange::default().releases);
        let (_, findings) = judged(&plain);
        assert_eq!(findings[0].severity, Severity::Failure);
        assert_eq!(findings[0].message, "broken");
    }

    #[test]
    fn on_its_releases_a_finding_keeps_the_case_severity_and_names_them() {
        let (scope, findings) = judged(&case(Some("from external-plugins"), None));
        assert!(scope.is_some_and(|s| s.any()));
        assert_eq!(findings[0].severity, Severity::Failure);
        assert!(findings[0].message.starts_with("on entire "));
        assert_eq!(findings[1].message, "timed out");
    }

    #[test]
    fn off_its_releases_a_finding_weighs_elsewhere_or_a_note() {
        let none = case(Some("before external-plugins"), None);
        let scope = case_scope(&HostRange::default(), &none).expect("a scope");
        assert!(outside(&none, &scope).is_some());
        assert!(case_hosts(&HostRange::default(), &none).releases.is_empty());
        let (_, noted) = judged(&none);
        assert_eq!(noted[0].severity, Severity::Note);
        let warned = case(Some("before external-plugins"), Some("warning"));
        let scope = case_scope(&HostRange::default(), &warned).expect("a scope");
        assert!(outside(&warned, &scope).is_none());
        let (_, findings) = judged(&warned);
        assert_eq!(findings[0].severity, Severity::Warning);
        assert!(findings[0].message.starts_with("on entire "));
        assert_eq!(findings[1].severity, Severity::Failure);
        assert_eq!(findings[1].message, "timed out");
    }
}
