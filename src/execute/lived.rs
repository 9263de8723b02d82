//! `lived_in_config`: the agent's config as its users have it, lived in
//! (docs/host.md "The user's machine, not a clean room"; the judging is
//! `judge::lived`). For each shape the files the plugin's first install
//! wrote its hooks into may have, in a sandbox laid down anew: the user's
//! file, `install-hooks`, the user's own edit, `install-hooks` again (a
//! second `entire enable`), `uninstall-hooks`. Then the same round for the
//! first shape as other programs write the file (the files axis of the
//! user's world, docs/worlds.md): with CRLF line ends ([`Form`]). Every call is a step of the case, its findings on it, so
//! that each says how to reproduce it.

use std::fs;

use serde_json::Value;

use crate::execute::step::{action_report, step_report};
use crate::execute::{CaseState, Run};
use crate::judge::checks::{self, Finding};
use crate::judge::lived::{self, HookConfig, Laid, Shape, Users, When, edit};
use crate::running::runner::Outcome;
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, Severity};

/// How the file of a round is written, beyond its shape: as the agent
/// itself writes it, or as another program on the user's machine does. The
/// judgement reads the file back in the plain form (CRLF read as LF, a
/// byte-order mark dropped), so that a plugin that keeps the form and one
/// that drops it both keep what the user had; what a form catches is a
/// plugin that no longer recognises its own entry in a file so written (a
/// second install adds another) or cannot read it. A byte-order mark is not
/// laid down: a file with one exists only for an agent whose own reader
/// skips it, which nothing here can tell (strict JSON and TOML readers
/// refuse it), so a plugin refusing one would be judged on a guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// As the agent writes it.
    Plain,
    /// CRLF line ends: a Windows editor, or a checkout with git's
    /// `core.autocrlf=true`.
    Crlf,
}

impl Form {
    /// The bytes a user's file of this form holds for `text`.
    fn write(self, text: &str) -> String {
        match self {
            Form::Plain => text.to_string(),
            Form::Crlf => text.replace("\r\n", "\n").replace('\n', "\r\n"),
        }
    }

    /// The round's name for it.
    fn describe(self) -> &'static str {
        match self {
            Form::Plain => "",
            Form::Crlf => ", with CRLF line ends (a Windows editor, git's autocrlf)",
        }
    }
}

/// The text of a file as the judgement reads it: a byte-order mark
/// dropped, CRLF as LF (see [`Form`]).
fn plain(text: String) -> String {
    let text = text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text);
    match text.contains("\r\n") {
        true => text.replace("\r\n", "\n"),
        false => text,
    }
}

/// One file of a round: its config, its shape, what was laid down, and
/// what the user has in it now (their bytes and content, without the
/// plugin's entries).
struct File<'c> {
    cfg: &'c HookConfig,
    shape: Shape,
    laid: Laid,
    user_text: String,
    user_doc: Value,
    /// Whether `user_text` is known byte for byte.
    exact: bool,
    /// How it is written.
    form: Form,
}

impl File<'_> {
    fn users(&self) -> Users<'_> {
        Users {
            text: &self.user_text,
            doc: &self.user_doc,
            exact: self.exact,
        }
    }
}

impl Run<'_> {
    /// Plays a round per shape; the findings are on the round's steps.
    pub(super) fn lived_in_config(
        &self,
        case: &Case,
        before: &str,
        installed: &str,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> Vec<Finding> {
        let Some(written) = state.user.hook_files(before, installed, sandbox) else {
            return vec![Finding::failure(format!(
                "no snapshots named {before:?} and {installed:?}"
            ))];
        };
        let configs: Vec<HookConfig> = written
            .iter()
            .filter_map(|(rel, text)| HookConfig::learn(rel, text))
            .collect();
        let shapes = configs.iter().map(|c| c.shapes().len()).max().unwrap_or(0);
        let rounds = (0..shapes)
            .map(|n| (n, Form::Plain))
            .chain([(0, Form::Crlf)]);
        for (number, (shape_at, form)) in rounds.enumerate() {
            let mut files: Vec<File> = configs
                .iter()
                .filter_map(|cfg| {
                    let shape = *cfg.shapes().get(shape_at)?;
                    let laid = cfg.lay(shape)?;
                    Some(File {
                        cfg,
                        shape,
                        user_text: laid.text.clone(),
                        user_doc: laid.user.clone(),
                        exact: true,
                        laid,
                        form,
                    })
                })
                .collect();
            if !files.is_empty() && !self.live_in(case, &mut files, number, sandbox, state) {
                break;
            }
        }
        Vec::new()
    }

    /// One round (`number`, from 0); false when the case must stop (a
    /// hang, the breaker).
    fn live_in(
        &self,
        case: &Case,
        files: &mut [File],
        number: usize,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> bool {
        let mut shapes: Vec<&str> = files.iter().map(|f| f.shape.describe()).collect();
        shapes.dedup();
        let form = files.first().map_or("", |f| f.form.describe());
        let round = format!("the user's own config, {}{form}", shapes.join(" and "));
        if let Err(problem) = lay_down(files, sandbox, number) {
            state.reports.push(action_report(
                &format!("{round} · laid down"),
                vec![problem],
            ));
            return true;
        }
        // The first entire enable over the user's config.
        let label = format!("{round} · install-hooks");
        let Some(out) = self.lived_call(case, label, "install-hooks", sandbox, state) else {
            return false;
        };
        let laid: Vec<String> = files.iter().map(|f| f.laid.text.clone()).collect();
        if !self.judge_install(files, &laid, &out, When::Install, sandbox, state) {
            return true;
        }
        // The user's own edit, then a second entire enable.
        let edited = user_edits(files, sandbox);
        let what = format!("{round} · the user edits it (a setting changed, their own hook added)");
        state.reports.push(action_report(&what, Vec::new()));
        let label = format!("{round} · install-hooks again");
        let Some(out) = self.lived_call(case, label, "install-hooks", sandbox, state) else {
            return false;
        };
        if !self.judge_install(files, &edited, &out, When::Again, sandbox, state) {
            return true;
        }
        // entire disable --uninstall.
        let label = format!("{round} · uninstall-hooks");
        let Some(out) = self.lived_call(case, label, "uninstall-hooks", sandbox, state) else {
            return false;
        };
        let findings = match out.exit_code() {
            Some(0) => files
                .iter()
                .flat_map(|f| {
                    f.cfg
                        .after_uninstall(f.shape, f.users(), read(sandbox, f).as_deref())
                })
                .collect(),
            _ => vec![Finding::failure(format!(
                "uninstall-hooks failed ({}) after installing into the user's own config: the \
                 user's whole uninstall fails and the plugin's hooks stay in it",
                said(&out, sandbox)
            ))],
        };
        add(state, findings);
        true
    }

    /// The findings of an install over the files as they were (`before`,
    /// one text a file) on its step; false when the round cannot go on (a
    /// refusal, a failure).
    fn judge_install(
        &self,
        files: &[File],
        before: &[String],
        out: &Outcome,
        when: When,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> bool {
        let refused = out.exit_code() != Some(0);
        let mut untouched = true;
        let mut findings: Vec<Finding> = Vec::new();
        for (f, before) in files.iter().zip(before) {
            let now = read(sandbox, f);
            untouched &= now.as_deref() == Some(before.as_str());
            let users = match when {
                When::Install => f.laid.users(),
                _ => f.users(),
            };
            findings.extend(match refused {
                true => f
                    .cfg
                    .after_refusal(f.shape, users, before, now.as_deref(), when),
                false => f.cfg.after_install(f.shape, users, now.as_deref(), when),
            });
        }
        if refused {
            let shapes: Vec<(&HookConfig, Shape)> =
                files.iter().map(|f| (f.cfg, f.shape)).collect();
            findings.push(lived::refusal(
                when,
                &said(out, sandbox),
                &shapes,
                untouched,
            ));
        }
        let failed = findings.iter().any(|f| f.severity == Severity::Failure);
        add(state, findings);
        !refused && !failed
    }

    /// A call of the round, made and recorded as a step with the host's
    /// limits judged; `None` when it hung or flooded, or the breaker
    /// refused it.
    fn lived_call(
        &self,
        case: &Case,
        label: String,
        subcommand: &str,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> Option<Outcome> {
        let inv = self.invocation(sandbox, vec![subcommand.to_string()], self.options.timeout);
        if let Some(reason) = self.breaker.refuse(&inv.args) {
            state.cut = Some(reason);
            return None;
        }
        let outcome = self.call(&inv);
        self.breaker
            .record(&case.id, &inv.args, inv.timeout, &outcome);
        let mut report = step_report(label, &inv, &outcome, None);
        report.findings = checks::universal(inv.timeout.as_secs_f64(), &outcome);
        let hard = report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Failure);
        state.reports.push(report);
        (!hard).then_some(outcome)
    }
}

/// The round's sandbox: empty, then each user's file laid down, and a copy
/// of it kept under the sandbox's `work/lived-in/<round>/` (to lay it down
/// again by hand when reproducing a call of the round).
fn lay_down(files: &[File], sandbox: &Sandbox, number: usize) -> Result<(), Finding> {
    let problem = |path: &std::path::Path, err: std::io::Error| {
        Finding::failure(format!(
            "the harness could not lay down the user's config at {}: {err}",
            path.display()
        ))
    };
    sandbox
        .reset()
        .map_err(|err| problem(sandbox.root(), err))?;
    let copies = sandbox.work().join("lived-in").join(number.to_string());
    for f in files {
        for path in [sandbox.root().join(&f.cfg.rel), copies.join(&f.cfg.rel)] {
            path.parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| fs::write(&path, f.form.write(&f.laid.text)))
                .map_err(|err| problem(&path, err))?;
        }
    }
    Ok(())
}

/// The user's own edit of each file as the install left it (a setting
/// changed, a hook of theirs added at the end of each list): the texts
/// written, one a file. What the user then has is that file without the
/// plugin's lines (`edit::users_lines`).
fn user_edits(files: &mut [File], sandbox: &Sandbox) -> Vec<String> {
    let mut written = Vec::new();
    for f in files.iter_mut() {
        let path = sandbox.root().join(&f.cfg.rel);
        let now = plain(fs::read_to_string(&path).unwrap_or_default());
        let (edited, done) = f.cfg.edit(&now, &f.laid.user, None);
        // The user's editor keeps the file's form.
        if edited != now && fs::write(&path, f.form.write(&edited)).is_err() {
            written.push(now);
            continue;
        }
        f.user_doc = edit::applied(&f.laid.user, &done);
        match edit::users_lines(&f.laid.text, &now, &edited) {
            Some(text) => f.user_text = text,
            None => {
                // The same edit in the user's own file: right outside the
                // lists the plugin edited inside a line.
                f.user_text = f.cfg.edit(&f.laid.text, &f.laid.user, Some(&done)).0;
                f.exact = false;
            }
        }
        written.push(edited);
    }
    written
}

fn read(sandbox: &Sandbox, f: &File) -> Option<String> {
    fs::read_to_string(sandbox.root().join(&f.cfg.rel))
        .ok()
        .map(plain)
}

/// What the call said last on stderr (paths inside the sandbox relative
/// to it), or its exit status.
fn said(out: &Outcome, sandbox: &Sandbox) -> String {
    let root = format!("{}/", sandbox.root().display());
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&root, "");
    match checks::last_words(&stderr) {
        words if words.is_empty() => checks::status_text(out),
        words => words,
    }
}

/// Adds `findings` to the last step.
fn add(state: &mut CaseState, findings: Vec<Finding>) {
    if let Some(last) = state.reports.last_mut() {
        last.findings.extend(findings);
    }
}
