//! The host's own calls over the session an author's payload names
//! (issue 59, item 3): after a `parse-hook` step whose input is the
//! author's sample (`Evidence::Samples`), `get-session-dir` for the
//! repository and `resolve-session-file` for the Event's session id, as
//! `entire resume` asks them; `judge::own_samples` weighs the answers
//! against the Event. Our generic payloads never get these calls: what the
//! plugin makes of a payload in our shape says nothing of the agent's; nor
//! does a payload whose transcript the case placed in the sandbox's scratch
//! folder (`{{tmp}}`), where the agent never keeps one.

use serde_json::Value;

use crate::execute::Run;
use crate::execute::step::step_report;
use crate::judge::own_samples::{self, Answers};
use crate::outcome::evidence::Evidence;
use crate::outcome::results::StepReport;
use crate::running::runner::Outcome;
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, normalize};

impl Run<'_> {
    /// The reports of the two calls over the session of `event`, the
    /// answer of step `name` to an author's payload (`rests_on`): none when
    /// the input is not the author's, or the Event names no session id and
    /// `session_ref`. The findings are on the `resolve-session-file` step.
    pub(super) fn own_samples(
        &self,
        case: &Case,
        name: &str,
        rests_on: Evidence,
        event: &Value,
        sandbox: &Sandbox,
    ) -> Vec<StepReport> {
        if rests_on != Evidence::Samples {
            return Vec::new();
        }
        let Some((id, session_ref)) = own_samples::session_of(event) else {
            return Vec::new();
        };
        // A transcript the case laid down in the sandbox's scratch folder
        // (`{{tmp}}`) is where the case put it, not where the agent keeps
        // it: nothing to hold the session directory to.
        let scratch = normalize(&sandbox.work().display().to_string());
        if own_samples::inside(&normalize(&session_ref), &scratch) {
            return Vec::new();
        }
        let repo = sandbox.repo().display().to_string();
        let dir_args = vec!["get-session-dir".into(), "--repo-path".into(), repo];
        let dir_inv = self.invocation(sandbox, dir_args, self.options.timeout);
        let dir_out = self.call(&dir_inv);
        let session_dir = answer(&dir_out, "session_dir");
        let mut dir_report = step_report(
            format!("{name} (its session dir: get-session-dir, as entire resume asks)"),
            &dir_inv,
            &dir_out,
            None,
        );
        dir_report.rests_on = Evidence::HostInput;
        let Some(dir) = session_dir.clone() else {
            return vec![dir_report];
        };
        let file_args = vec![
            "resolve-session-file".into(),
            "--session-dir".into(),
            dir,
            "--session-id".into(),
            id.clone(),
        ];
        let file_inv = self.invocation(sandbox, file_args, self.options.timeout);
        let file_out = self.call(&file_inv);
        let answers = Answers {
            session_dir,
            session_file: answer(&file_out, "session_file"),
        };
        let mut file_report = step_report(
            format!("{name} (its session file: resolve-session-file for {id})"),
            &file_inv,
            &file_out,
            None,
        );
        file_report.rests_on = Evidence::Samples;
        file_report.findings = own_samples::judge(&id, &session_ref, &answers, asks_dir(case));
        let mut reports = vec![dir_report, file_report];
        reports.iter_mut().for_each(|r| super::downgrade(case, r));
        reports
    }
}

/// The non-empty string at `key` of a call's answer, when it exited 0
/// with JSON the host decodes.
fn answer(outcome: &Outcome, key: &str) -> Option<String> {
    if outcome.exit_code() != Some(0) {
        return None;
    }
    let json = crate::host::decoding::decode_host_json(&outcome.stdout).ok()?;
    json.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Whether the case is itself about the plugin's session directory (a
/// step of its own asks `get-session-dir`): then where the transcript lies
/// against it is the case's intent, judged by its own expectations.
fn asks_dir(case: &Case) -> bool {
    case.steps.iter().any(|s| {
        s.value
            .args
            .as_ref()
            .and_then(|a| a.first())
            .is_some_and(|a| a == "get-session-dir")
    })
}
