//! What the host can reach of this plugin ([`crate::host::reach`]): the
//! facts read once, after the gate, and how they weigh a case's findings.
//!
//! `info` says whether the plugin's hooks record sessions (`hooks`); the
//! releases judged, whether `entire attach` records them anyway (0.5.6 on). For a plugin that declares hooks and says they are installed
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
use crate::host::protocol_only;
use crate::host::reach::{self, Reach, Subject};
use crate::judge::userdata::UserData;
use crate::outcome::results::StepReport;
use crate::suite::case::{Case, Source};

/// The least time the probe of a subcommand that cannot exist is given
/// ([`Run::probe_unknown`]): a plugin's start-up on a loaded machine.
const UNKNOWN_PROBE_FLOOR: std::time::Duration = std::time::Duration::from_secs(2);

impl Run<'_> {
    /// The reach facts of this plugin, from `info` and the probe.
    pub(super) fn probe_reach(&self) -> Reach {
        let hooks = self.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
        let library_hooks = hooks && self.library_hooks();
        let attach = self
            .options
            .hosts
            .with_fact(crate::host::releases::Fact::Attach)
            .any();
        Reach {
            hooks,
            attach,
            library_hooks,
        }
    }

    /// How the plugin answers a subcommand that cannot exist
    /// ([`reach::NO_SUCH_SUBCOMMAND`]): one call, in a sandbox of its own;
    /// `None` when it accepted the name or could not be asked.
    pub(super) fn probe_unknown(&self) -> Option<reach::Unknown> {
        let sandbox = self
            .depot
            .take(None, "unknown-probe", WorkTree::Plain, &Default::default())
            .ok()?;
        let args = vec![reach::NO_SUCH_SUBCOMMAND.to_string()];
        // The harness's question, not the host's: bounded by a few of the
        // plugin's own start-ups (its `info` at the gate), so that a plugin
        // that hangs on every subcommand costs the run little. Unanswered,
        // it tells nothing, and a missing subcommand is told by its words.
        let deadline = (self.info_elapsed * 4)
            .max(UNKNOWN_PROBE_FLOOR)
            .min(self.options.timeout);
        let inv = self.invocation(&sandbox, args, deadline);
        let outcome = self.spawn(&inv);
        self.depot.dispose(sandbox);
        let stderr = String::from_utf8_lossy(&outcome.stderr);
        reach::Unknown::of(outcome.exit_code(), &stderr)
    }

    /// Whether the agent's own library fires the hooks (see the module).
    fn library_hooks(&self) -> bool {
        let Ok(sandbox) =
            self.depot
                .take(None, "reach-probe", WorkTree::Plain, &Default::default())
        else {
            return false;
        };
        let answer = |args: &[&str]| {
            let args = args.iter().map(|a| a.to_string()).collect();
            let inv = self.invocation(&sandbox, args, self.options.timeout);
            if self.breaker.refuse(&inv.args).is_some() {
                return None;
            }
            let outcome = self.spawn(&inv);
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
}

/// Weighs the findings of a case's steps by what the host reaches of this
/// plugin: a failure on a path the host never takes for it becomes a
/// warning that says why; a hard finding (a timeout, a flood, a write
/// outside the sandbox) keeps its weight.
///
/// A function of `reach` and the step reports alone, so that the rule can
/// be read and tested without a run. The limits are the host's
/// ([`Reach::limit`]); what stays here is which subject each step is
/// about, which rests on the names this layer gives the steps it makes
/// (the session replay's restore checks, [`step_subject`]), so it lives in
/// `execute` rather than in `host` (which knows no case) or in `judge`
/// (which reads answers; this reads none).
pub(super) fn weigh_by_reach(reach: Reach, case: &Case, reports: &mut [StepReport]) {
    let case_subject = case_subject(case);
    for report in reports {
        let subject = match report.args.first() {
            Some(sub) => reach::subject_of(sub),
            None => step_subject(&report.name).unwrap_or(case_subject),
        };
        let Some((max, why)) = reach.limit(subject) else {
            continue;
        };
        for finding in &mut report.findings {
            if finding.severity > max && !finding.hard {
                finding.set_severity(max);
                finding.message = format!("{why}: {}", finding.message);
            }
        }
    }
}

/// Weighs the findings of a case's steps that are protocol-only
/// ([`crate::host::protocol_only`]): on a call the host never makes, or of
/// a case whose input the host never sends. Each becomes of kind
/// [`Kind::ProtocolOnly`](crate::outcome::Kind::ProtocolOnly), a note (a
/// warning under `--pedantic`), saying why; a hard finding (a hang, a
/// flood) keeps its weight, and a finding the run says once (an
/// unverified capability, a variable the agent sets) is left to `fold`.
pub(super) fn weigh_protocol_only(pedantic: bool, case: &Case, reports: &mut [StepReport]) {
    let max = protocol_only::weight(pedantic);
    let never_sent = case.input == protocol_only::Input::NeverSent;
    let case_call = case_never_called(case);
    for report in reports {
        let call = match report.args.first() {
            Some(sub) => (!protocol_only::host_calls(sub)).then_some(sub.as_str()),
            None => case_call,
        };
        if call.is_none() && !never_sent {
            continue;
        }
        let why = protocol_only::why(call);
        for finding in &mut report.findings {
            if finding.hard || finding.severity == crate::host::Severity::Note || said_once(finding)
            {
                continue;
            }
            finding.set_severity(finding.severity.min(max));
            finding.kind = crate::outcome::Kind::ProtocolOnly;
            finding.message = format!("{why}: {}", finding.message);
        }
    }
}

/// Why a case runs only under `--pedantic`: every call it makes is
/// protocol-only ([`crate::host::protocol_only`]), to a subcommand the host
/// never calls or with an input the host never sends (`input: never-sent`).
/// No user command meets it, so its findings could only be notes (a hang
/// or a flood on such an input included: the host never sends it), and the
/// default run, which answers "does the host work with this plugin", does
/// not spend calls on it; `--pedantic`, for the letter of the protocol,
/// runs it and weighs its findings as warnings. `None` for every other case.
pub(super) fn pedantic_only(case: &Case) -> Option<String> {
    let why = match case_never_called(case) {
        Some(subcommand) => format!("the host never calls {subcommand}"),
        None if case.input == protocol_only::Input::NeverSent => {
            "the host never sends this input".to_string()
        }
        None => return None,
    };
    Some(format!(
        "protocol-only ({why}, so no user command meets it): --pedantic runs it"
    ))
}

/// Holds every finding "not verified here" (kind `not-verified`) at a note
/// ([`reach::NOT_VERIFIED`]), whatever made it: the rule lives in one
/// place, so a new producer cannot make one a warning. A hard finding (a
/// hang, a flood) is never of this kind.
pub(super) fn weigh_not_verified(reports: &mut [StepReport]) {
    use crate::outcome::Kind;
    for finding in reports.iter_mut().flat_map(|r| r.findings.iter_mut()) {
        if finding.kind == Kind::NotVerified
            && !finding.hard
            && finding.severity > reach::NOT_VERIFIED
        {
            finding.set_severity(reach::NOT_VERIFIED);
        }
    }
}

/// A finding the run says once, across cases (`fold`): its kind is what
/// the fold matches on, so it keeps it.
fn said_once(finding: &crate::outcome::Finding) -> bool {
    use crate::outcome::Kind;
    matches!(
        finding.kind,
        Kind::Unverified | Kind::AgentVariable | Kind::SaidElsewhere
    )
}

/// The subcommand of a case whose calls are all to one the host never
/// makes, for its harness actions.
fn case_never_called(case: &Case) -> Option<&str> {
    let calls: Vec<&str> = case
        .steps
        .iter()
        .filter_map(|s| s.value.args.as_ref()?.first().map(String::as_str))
        .collect();
    match calls.first() {
        Some(first) if calls.iter().all(|c| !protocol_only::host_calls(c)) => Some(first),
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Severity;
    use crate::judge::checks::Finding;
    use crate::outcome::Kind;

    /// A case from its YAML, as a case file holds it.
    fn case(yaml: &str) -> Case {
        serde_saphyr::from_str(yaml).expect("a valid case")
    }

    /// A step report of a call of `args` (none: a harness action named
    /// `name`) with these findings.
    fn report(name: &str, args: &[&str], findings: Vec<Finding>) -> StepReport {
        let mut report = StepReport::without_invocation(name, "action", findings);
        report.args = args.iter().map(|a| a.to_string()).collect();
        report
    }

    const RESTORE: &str = "id: s.write\ntitle: t\nsteps:\n  - args: [write-session]\n";
    const INSTALL: &str = "id: h.install\ntitle: t\nsteps:\n  - args: [install-hooks]\n  - \
                           args: [uninstall-hooks]\n";

    #[test]
    fn not_verified_here_is_a_note_and_the_two_warnings_stay() {
        let unverified =
            Finding::warning("resolve-session-file refused in the sandbox").kind(Kind::NotVerified);
        let capability = Finding::warning("token_calculator is unverified").kind(Kind::Unverified);
        let own = Finding::failure("refused its own id too")
            .rests_on(crate::outcome::finding::Evidence::OwnAnswers);
        let mut reports = vec![report(
            "step 1",
            &["resolve-session-file"],
            vec![unverified, capability, own],
        )];
        weigh_not_verified(&mut reports);
        let severities: Vec<Severity> = reports[0].findings.iter().map(|f| f.severity).collect();
        assert_eq!(
            severities,
            [Severity::Note, Severity::Warning, Severity::Failure]
        );
    }

    #[test]
    fn a_restore_failure_is_a_warning_for_a_plugin_without_hooks() {
        let mut reports = vec![report(
            "step 1",
            &["write-session"],
            vec![Finding::failure("wrong bytes"), Finding::hard("timed out")],
        )];
        weigh_by_reach(Reach::default(), &case(RESTORE), &mut reports);
        let [lowered, hard] = &reports[0].findings[..] else {
            panic!("two findings");
        };
        assert_eq!(lowered.severity, Severity::Warning);
        assert!(
            lowered.message.starts_with("latent: "),
            "{}",
            lowered.message
        );
        assert!(lowered.message.ends_with(": wrong bytes"));
        assert_eq!(hard.severity, Severity::Failure);
        assert_eq!(hard.message, "timed out");
    }

    #[test]
    fn a_restore_failure_stays_a_failure_when_the_host_records_sessions() {
        let hooks = Reach {
            hooks: true,
            ..Reach::default()
        };
        let mut reports = vec![report(
            "step 1",
            &["write-session"],
            vec![Finding::failure("wrong bytes")],
        )];
        weigh_by_reach(hooks, &case(RESTORE), &mut reports);
        assert_eq!(reports[0].findings[0].severity, Severity::Failure);
        assert_eq!(reports[0].findings[0].message, "wrong bytes");
    }

    #[test]
    fn a_check_of_the_replay_without_a_call_is_about_restore() {
        let replay = case("id: session.replay\ntitle: t\n");
        let mut reports = vec![
            report(
                "entire resume · session s · resumable",
                &[],
                vec![Finding::failure("not resumable")],
            ),
            report("turn 1 · hook stop", &[], vec![Finding::failure("split")]),
        ];
        weigh_by_reach(Reach::default(), &replay, &mut reports);
        assert_eq!(reports[0].findings[0].severity, Severity::Warning);
        assert_eq!(reports[1].findings[0].severity, Severity::Failure);
    }

    #[test]
    fn a_harness_action_weighs_as_the_subcommands_of_its_case() {
        let library = Reach {
            hooks: true,
            library_hooks: true,
            ..Reach::default()
        };
        let mut reports = vec![
            report("step 3", &[], vec![Finding::failure("hooks left")]),
            report("step 4", &["info"], vec![Finding::failure("bad info")]),
        ];
        weigh_by_reach(library, &case(INSTALL), &mut reports);
        assert_eq!(reports[0].findings[0].severity, Severity::Warning);
        assert!(
            reports[0].findings[0]
                .message
                .starts_with("a written rule only")
        );
        assert_eq!(reports[1].findings[0].severity, Severity::Failure);
        let notes = Reach::default();
        let mut kept = vec![report("step 3", &[], vec![Finding::failure("hooks left")])];
        weigh_by_reach(notes, &case(INSTALL), &mut kept);
        assert_eq!(kept[0].findings[0].severity, Severity::Failure);
    }

    #[test]
    fn a_write_outside_is_softened_only_after_an_escaping_reference() {
        let escaped = || Finding::hard("wrote ../x").kind(Kind::EscapedSandbox);
        let provoked = case(
            "id: c\ntitle: t\nsteps:\n  - args: [read-transcript, --session-ref, a/../../x]\n",
        );
        let report_of = |c: &Case| {
            let mut r = report("sandbox check", &[], vec![escaped()]);
            soften_provoked(c, &mut r);
            r.findings.remove(0)
        };
        assert!(!report_of(&provoked).hard);
        assert!(report_of(&case(RESTORE)).hard);
    }
}
