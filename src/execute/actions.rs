//! The harness's own actions in a case (no plugin call of their own, or
//! calls of the harness's making): user data around hook installs, hooks
//! left after uninstall, the file the agent resumes from, the calls the
//! `entire` stand-in received. Split from `step.rs`, which runs the
//! plugin's steps.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;

use crate::execute::step::action_report;
use crate::execute::{CaseState, Run, StepEnd, downgrade};
use crate::judge::checks::{self, Finding};
use crate::judge::discovery;
use crate::judge::hookevents;
use crate::judge::hookfire;
use crate::running::runner::{self, Invocation};
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Action, Case, Severity, Source};
use crate::suite::template::Template;

impl Run<'_> {
    /// Runs a harness action and records its findings as a step.
    pub(super) fn action(
        &self,
        case: &Case,
        index: usize,
        action: &Action,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> StepEnd {
        let start = Instant::now();
        let findings = match action {
            Action::Snapshot(name) => {
                state.user.snapshot(name, sandbox);
                let work_tree = crate::judge::readonly::scan(&sandbox.repo());
                state.work_trees.insert(name.clone(), work_tree);
                Vec::new()
            }
            Action::PlantProtectedDirs => state.user.plant_protected_dirs(&self.info, sandbox),
            Action::PlantUserData { since } => state.user.plant_since(since, sandbox),
            Action::VerifyUserData => {
                // After `uninstall-hooks` the user's lines must be back as
                // they were; before it, an item of the plugin's may sit on
                // a line of the user's.
                let uninstalled = state
                    .reports
                    .iter()
                    .rev()
                    .find_map(|r| r.args.first())
                    .is_some_and(|a| a == "uninstall-hooks");
                state.user.verify(!uninstalled)
            }
            Action::CheckLeftovers { since } => state.user.leftovers(since, sandbox),
            Action::CheckUnchanged { since } => state.user.unchanged(since, sandbox),
            Action::ResumesFrom {
                file,
                native_data,
                read,
            } => self.resumes_from(file, native_data, read.as_deref(), sandbox, state),
            Action::CheckHooksRemoved { before, installed } => {
                state.user.hooks_removed(before, installed, sandbox)
            }
            Action::RestartWithLearntFiles => state.user.restart_with_learnt(sandbox),
            Action::HostCalled { contains } => self.host_called(contains, sandbox, state),
            Action::CheckFileName => discovery::check_file_name(self.plugin),
            Action::CheckInfoName => discovery::check_info_name(self.plugin, &self.info),
            Action::CheckNotBuiltIn => {
                discovery::check_not_built_in(self.plugin, &self.options.hosts)
            }
            Action::CheckInfoType => {
                discovery::check_info_type(self.plugin, &self.info, &self.options.hosts)
            }
            Action::CheckInfoTime => self.info_time(sandbox),
            Action::CheckInfoDeclarations => discovery::check_info_declarations(&self.info),
            Action::CheckInfoTypeStable => self.info_type_stable(sandbox),
            Action::CheckReadOnly { since } => read_only(since, sandbox, state),
            Action::CheckProtectedPaths => self.protected_paths(sandbox),
            Action::CheckSharedHooks { before, installed } => {
                self.shared_hooks(before, installed, sandbox, state)
            }
            Action::CheckHooksFire { before, installed } => {
                self.hooks_fire(before, installed, sandbox, state)
            }
            Action::CheckHookEvents { step } => self.hook_events(step, state),
            Action::CheckEscape { step, path } => self.escape(step, path, sandbox, state),
            Action::CheckEventIds { step } => hook_answers(&self.info, step, state)
                .map_or_else(Vec::new, |answers| hookevents::dropped_ids(&answers)),
            Action::WeighDetectByInstall => self.detect_by_install(sandbox, state),
            Action::RestartWithUserHooks if !state.user.learnt_hook_config() => {
                // Nothing of the agent's config to hold the user's hooks.
                state
                    .reports
                    .push(action_report(&case.step_name(index), Vec::new()));
                return StepEnd::Stop;
            }
            Action::RestartWithUserHooks => state.user.restart_with_user_hooks(sandbox),
            Action::LivedInConfig { before, installed } => {
                self.lived_in_config(case, before, installed, sandbox, state)
            }
            Action::LongLines { steps } => {
                return self.long_lines(case, index, steps, sandbox, state);
            }
        };
        let mut report = action_report(&case.step_name(index), findings);
        report.rests_on = case.rests_on(index, state.pass_kind());
        report.duration = start.elapsed();
        downgrade(case, &mut report);
        let failed = report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Failure);
        state.reports.push(report);
        if failed {
            StepEnd::Stop
        } else {
            StepEnd::Continue
        }
    }

    /// A failure unless the `entire` stand-in received a call containing
    /// `contains`, naming the calls it did receive.
    fn host_called(&self, contains: &str, sandbox: &Sandbox, state: &CaseState) -> Vec<Finding> {
        let bindings = self.bindings(sandbox, state, None);
        let want = match Template::parse(contains).and_then(|t| t.expand(&bindings)) {
            Ok(want) => want,
            Err(err) => return vec![Finding::failure(format!("cannot evaluate the case: {err}"))],
        };
        let calls: Vec<String> = sandbox.host_calls().iter().map(|c| c.command()).collect();
        if calls.iter().any(|c| c.contains(&want)) {
            return Vec::new();
        }
        let received = if calls.is_empty() {
            "none".to_string()
        } else {
            calls.join("; ")
        };
        vec![
            Finding::failure(format!(
                "the `entire` stand-in on PATH received no call containing `{want}`"
            ))
            .diff(
                format!("a call containing `{want}`"),
                format!("calls: {received}"),
            ),
        ]
    }

    /// What the agent would resume from after write-session: the file at
    /// the session reference, or the read-session answer of step `read`.
    fn resumes_from(
        &self,
        file: &str,
        native_data: &Source,
        read: Option<&str>,
        sandbox: &Sandbox,
        state: &CaseState,
    ) -> Vec<Finding> {
        let bindings = self.bindings(sandbox, state, None);
        let path = match Template::parse(file).and_then(|t| t.expand(&bindings)) {
            Ok(path) => path,
            Err(err) => return vec![Finding::failure(format!("cannot evaluate the case: {err}"))],
        };
        let want = match self.resolve(native_data, &bindings, state) {
            Ok(want) => want,
            Err(err) => return vec![Finding::failure(format!("cannot evaluate the case: {err}"))],
        };
        // A relative session file is relative to the plugin's working
        // directory, the repository.
        let on_disk = std::fs::read(sandbox.repo().join(&path)).ok();
        if on_disk.as_deref() == Some(want.as_slice()) {
            return Vec::new();
        }
        let read_back = read
            .and_then(|step| state.stdouts.get(step))
            .and_then(|out| crate::host::decoding::decode_host_json(out).ok())
            .and_then(|json| {
                json.get("native_data")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .and_then(|b64| {
                base64::Engine::decode(&base64::engine::general_purpose::STANDARD, b64).ok()
            });
        if read_back.as_deref() == Some(want.as_slice()) {
            return Vec::new();
        }
        let file_says = match on_disk {
            None => "does not exist".to_string(),
            Some(bytes) => format!("holds {} other bytes", bytes.len()),
        };
        let finding = Finding::failure(format!(
            "the agent resumes from the file at session_ref, and {path} {file_says}; read-session \
             does not give the native_data back either: `entire resume` restores nothing the \
             agent can resume from"
        ));
        vec![finding.diff(
            format!("{path}: the {} bytes of native_data", want.len()),
            format!("{path}: {file_says}"),
        )]
    }
}

impl Run<'_> {
    /// Runs every hook the install added between the snapshots, as the agent
    /// would (a command with `sh -c`, a script by its path, a small payload
    /// on stdin, the host's limits), and judges the calls the `entire`
    /// stand-in received meanwhile.
    fn hooks_fire(
        &self,
        before: &str,
        installed: &str,
        sandbox: &Sandbox,
        state: &CaseState,
    ) -> Vec<Finding> {
        let Some(written) = state.user.written_between(before, installed, sandbox) else {
            return vec![Finding::failure(format!(
                "no snapshots named {before:?} and {installed:?}"
            ))];
        };
        let agent = crate::host::discovery::agent_name(self.plugin).unwrap_or_default();
        let names = crate::host::identity::hook_names(&self.info);
        let mut fired = Vec::new();
        let spaced: Vec<String> = sandbox
            .spaced_dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        for hook in hookfire::installed(&written) {
            let Some(inv) = self.hook_invocation(&hook, sandbox) else {
                continue;
            };
            let split = match &hook.run {
                hookfire::HookRun::Shell(cmd) => {
                    let mut vars: Vec<(String, String)> = inv
                        .env
                        .iter()
                        .map(|(k, v)| (k.clone(), v.to_string_lossy().into_owned()))
                        .collect();
                    vars.push(("PWD".into(), inv.cwd.display().to_string()));
                    crate::judge::shell::split_path(cmd, &spaced, &vars).map(str::to_string)
                }
                hookfire::HookRun::Script => None,
            };
            sandbox.clear_host_calls();
            let outcome = runner::run(&inv);
            let calls = sandbox.host_calls().into_iter().map(|c| c.args).collect();
            let stderr = String::from_utf8_lossy(&outcome.stderr);
            let last = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
            let status = match last.trim() {
                "" => checks::status_text(&outcome),
                line => format!("{}: {line}", checks::status_text(&outcome)),
            };
            let silent = outcome.exit_code() == Some(0) && last.trim().is_empty();
            fired.push(hookfire::Fired {
                hook,
                calls,
                status,
                silent,
                split,
            });
        }
        let said = hookfire::InstallSaid {
            wrote_any: !written.is_empty(),
            reported: state
                .last_json
                .as_ref()
                .and_then(|v| v.get("hooks_installed"))
                .and_then(Value::as_u64),
            addresses_hooks: written
                .iter()
                .any(|w| hookfire::addresses(&w.after, &agent, &names)),
            recorded: self.recording.is_some_and(|r| !r.hooks.is_empty()),
        };
        hookfire::judge_fired(&agent, &names, &said, &fired)
    }

    /// Lowers the `detect` step's finding to a note when the plugin's own
    /// install writes nothing (see [`Action::WeighDetectByInstall`]).
    fn detect_by_install(&self, sandbox: &Sandbox, state: &mut CaseState) -> Vec<Finding> {
        let hooks = self.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
        let found = state
            .reports
            .iter()
            .any(|r| r.name == "detect" && !r.findings.is_empty());
        if !hooks || !found {
            return Vec::new();
        }
        state.user.snapshot("detect-before", sandbox);
        let inv = self.invocation(
            sandbox,
            vec!["install-hooks".to_string()],
            self.options.timeout,
        );
        let outcome = self.call(&inv);
        state.user.snapshot("detect-installed", sandbox);
        let wrote = state
            .user
            .written_between("detect-before", "detect-installed", sandbox)
            .is_none_or(|w| !w.is_empty());
        let report = crate::execute::step::step_report(
            "install-hooks (what enabling it writes)".to_string(),
            &inv,
            &outcome,
            None,
        );
        if outcome.exit_code() == Some(0) && !wrote {
            for report in state.reports.iter_mut().filter(|r| r.name == "detect") {
                for finding in &mut report.findings {
                    finding.set_severity(Severity::Note);
                    finding.evidence = Some(crate::outcome::finding::Evidence::OwnAnswers);
                    finding.message = format!(
                        "{}; but its install-hooks writes nothing here (the agent's own library \
                         fires its hooks): enabling it where it never runs costs the repository \
                         nothing",
                        finding.message
                    );
                }
            }
        }
        state.reports.push(report);
        Vec::new()
    }

    /// The call that runs an installed hook in the sandbox, as an agent runs
    /// it: `sh -c <command>` or the script itself, from the repository, with
    /// the sandbox's environment and `entire` stand-in first on `PATH`.
    fn hook_invocation(&self, hook: &hookfire::Installed, sandbox: &Sandbox) -> Option<Invocation> {
        let (program, args) = match &hook.run {
            hookfire::HookRun::Shell(cmd) if cfg!(unix) => (
                PathBuf::from("/bin/sh"),
                vec!["-c".to_string(), cmd.clone()],
            ),
            hookfire::HookRun::Script if cfg!(unix) => {
                (sandbox.root().join(&hook.file), Vec::new())
            }
            _ => return None,
        };
        let mut inv = self.invocation(sandbox, Vec::new(), crate::host::invocation::CALL_TIMEOUT);
        inv.program = program;
        inv.args = args;
        inv.stdin = Some(std::sync::Arc::new(HOOK_PAYLOAD.as_bytes().to_vec()));
        // The plugin on PATH where the host found it, after the `entire`
        // stand-in: a hook that runs the plugin by name finds it, as on the
        // user's machine.
        let plugin = std::path::absolute(self.plugin).unwrap_or_else(|_| self.plugin.to_path_buf());
        if let Some(dir) = plugin.parent() {
            let inherited = std::env::var_os("PATH").unwrap_or_default();
            let dirs = [sandbox.bin(), dir.to_path_buf()]
                .into_iter()
                .chain(std::env::split_paths(&inherited));
            if let Ok(path) = std::env::join_paths(dirs) {
                inv.env.push(("PATH".to_string(), path));
            }
        }
        Some(inv)
    }

    /// The answers of the `for_each: /hook_names` step `step`, judged as a
    /// whole.
    fn hook_events(&self, step: &str, state: &CaseState) -> Vec<Finding> {
        hook_answers(&self.info, step, state)
            .map_or_else(Vec::new, |answers| hookevents::judge_events(&answers))
    }
}

/// Every declared hook name's answer to the `for_each: /hook_names` step
/// `step`; `None` when the step stopped before one (nothing to say).
fn hook_answers(
    info: &Value,
    step: &str,
    state: &CaseState,
) -> Option<Vec<hookevents::HookAnswer>> {
    let names = crate::host::identity::hook_names(info);
    let prefix = format!("{step} [");
    let stderrs: Vec<&str> = state
        .reports
        .iter()
        .filter(|r| r.name.starts_with(&prefix))
        .map(|r| r.stderr_excerpt.as_str())
        .collect();
    let mut answers = Vec::new();
    for (n, hook) in names.iter().enumerate() {
        let (exit, stdout) = state.item_answers.get(&(step.to_string(), n))?;
        answers.push(hookevents::HookAnswer {
            hook: hook.clone(),
            exit: *exit,
            stdout: stdout.clone(),
            stderr: stderrs.get(n).copied().unwrap_or_default().to_string(),
        });
    }
    Some(answers)
}

impl Run<'_> {
    /// `check_escape`: what the `write-session` step `step` wrote where
    /// the escaping reference `path` points (judged by
    /// [`crate::judge::escape`]).
    fn escape(&self, step: &str, path: &str, sandbox: &Sandbox, state: &CaseState) -> Vec<Finding> {
        let bindings = self.bindings(sandbox, state, None);
        let target = match Template::parse(path).and_then(|t| t.expand(&bindings)) {
            Ok(target) => target,
            Err(err) => return vec![Finding::failure(format!("cannot evaluate the case: {err}"))],
        };
        let exit = state
            .reports
            .iter()
            .rev()
            .find(|r| r.name == step)
            .map(|r| r.exit_code);
        match exit {
            Some(Some(0)) => crate::judge::escape::judge(std::path::Path::new(&target)),
            Some(_) => Vec::new(),
            None => vec![Finding::failure(format!(
                "no step named {step:?} ran before"
            ))],
        }
    }
}

/// The payload each installed hook gets on stdin when the harness fires it:
/// a small object, as an agent's hook payload is.
const HOOK_PAYLOAD: &str = "{\"session_id\": \"agent-conform-hook-check\"}\n";

/// `check_read_only`: the work tree now against the snapshot `since`; what
/// the calls between changed there, judged as `info`'s (the host runs it
/// at discovery and in every hook, from the work tree's root).
fn read_only(since: &str, sandbox: &Sandbox, state: &CaseState) -> Vec<Finding> {
    use crate::judge::readonly;
    let Some(before) = state.work_trees.get(since) else {
        return vec![Finding::failure(format!("no snapshot named {since:?}"))];
    };
    let changed = readonly::changes(before, &readonly::scan(&sandbox.repo()));
    readonly::judge("info", &changed)
}
