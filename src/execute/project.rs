//! The user's project as the host treats it, where the harness has to make
//! a call of its own: the protected paths of `info`, read as the host reads
//! them (relative to the repository), against what the install creates
//! (docs/host.md, "The user's project as the host treats it", "Protected
//! paths"; the rule is [`crate::host::project`]'s).

use std::path::Path;

use serde_json::Value;

use crate::execute::Run;
use crate::host::project::{self, Protected, Shown};
use crate::host::session::{EventType, generic_payload, guessed_type};
use crate::judge::checks::Finding;
use crate::running::sandbox::Sandbox;
use crate::suite::case::Severity;

/// The session id of the turns played here.
const SESSION: &str = "sess-protected-1";
/// The file put into a protected directory as the project's own.
const IN_DIR: &str = "agent-conform-project-file.txt";

impl Run<'_> {
    /// `check_protected_paths`: each protected path of the project that is
    /// not the agent's own. An entry named for the agent, outside the
    /// repository or under the host's own directories costs no call; for
    /// the others, a plugin with hooks is installed once (into the fresh
    /// sandbox) and a turn of its hooks is played: what they created is
    /// the agent's own. At every other path a file of the project is put
    /// and committed, and a turn edits it: the finding says what the host
    /// then does with that turn.
    pub(super) fn protected_paths(&self, sandbox: &Sandbox) -> Vec<Finding> {
        let registered = crate::host::discovery::agent_name(self.plugin).unwrap_or_default();
        let text = |key: &str| self.info.get(key).and_then(Value::as_str).unwrap_or("");
        let names = [registered.as_str(), text("name"), text("type")];
        let entries = |key: &str| -> Vec<String> {
            self.info
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        };
        let (files, dirs) = (entries("protected_files"), entries("protected_dirs"));
        let union: Vec<String> = files
            .iter()
            .chain(&dirs)
            .filter_map(|e| project::relative(e))
            .collect();
        let tagged = files.iter().map(|e| (e, false));
        let paths: Vec<(String, bool)> = tagged
            .chain(dirs.iter().map(|e| (e, true)))
            .filter_map(|(entry, dir)| match project::protected(entry, &names) {
                Protected::Project(path) => Some((path, dir)),
                _ => None,
            })
            .collect();
        if paths.is_empty() {
            return Vec::new();
        }
        // The plugin's own answer first: its session directory is the
        // agent's own, whatever its name.
        let own = self.session_dir_in_repo(sandbox);
        let paths: Vec<(String, bool)> = paths
            .into_iter()
            .filter(|(path, _)| {
                !own.as_deref()
                    .is_some_and(|dir| project::in_session_dir(path, dir))
            })
            .collect();
        if paths.is_empty() {
            return Vec::new();
        }
        let hooks = self.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
        if hooks {
            let args = vec!["install-hooks".to_string()];
            let inv = self.invocation(sandbox, args, self.options.timeout);
            let _ = self.spawn(&inv);
        }
        let turn = self.turn_hooks(hooks);
        // The session of the agent: what its hooks create is its own.
        let _ = self.play_turn(sandbox, &turn, || Ok(()));
        let hidden: Vec<(String, bool)> = paths
            .into_iter()
            .filter(|(path, _)| !sandbox.repo().join(path).exists())
            .collect();
        if hidden.is_empty() {
            return Vec::new();
        }
        let shown = self.edit_in_a_turn(sandbox, &hidden, &turn);
        hidden
            .iter()
            .zip(shown)
            .map(|((path, _), shown)| hidden_path(path, &shown, &union))
            .collect()
    }

    /// The session directory `get-session-dir` names, relative to the
    /// repository, when it lies in it; asked only when some protected path
    /// would be judged.
    fn session_dir_in_repo(&self, sandbox: &Sandbox) -> Option<String> {
        let repo = sandbox.repo();
        let args = vec![
            "get-session-dir".to_string(),
            "--repo-path".to_string(),
            repo.display().to_string(),
        ];
        let inv = self.invocation(sandbox, args, self.options.timeout);
        let outcome = self.spawn(&inv);
        if outcome.exit_code() != Some(0) {
            return None;
        }
        let json = crate::host::decoding::decode_host_json(&outcome.stdout).ok()?;
        let dir = std::path::PathBuf::from(json.get("session_dir")?.as_str()?);
        let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let inside = dir
            .strip_prefix(&repo)
            .ok()
            .map(Path::to_path_buf)
            .or_else(|| {
                real(&dir)
                    .strip_prefix(real(&repo))
                    .ok()
                    .map(Path::to_path_buf)
            })?;
        project::relative(&inside.to_string_lossy())
    }

    /// The plugin's hooks the guide maps to TurnStart and TurnEnd (none
    /// without the hooks capability).
    fn turn_hooks(&self, hooks: bool) -> Vec<(String, EventType)> {
        if !hooks {
            return Vec::new();
        }
        let names = crate::host::identity::hook_names(&self.info);
        [EventType::TurnStart, EventType::TurnEnd]
            .into_iter()
            .filter_map(|kind| {
                let hook = names.iter().find(|h| guessed_type(h) == Some(kind))?;
                Some((hook.clone(), kind))
            })
            .collect()
    }

    /// A turn of the agent: its TurnStart hooks, then `edit` (the agent's
    /// work), then its TurnEnd hooks, each with the guide's payload naming
    /// a transcript in the scratch directory. Their answers are not judged
    /// here (the hook cases do); what they leave in the sandbox is the
    /// agent's own.
    fn play_turn(
        &self,
        sandbox: &Sandbox,
        turn: &[(String, EventType)],
        edit: impl FnOnce() -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let transcript = sandbox.work().join("protected-turn.jsonl");
        if let Some(bytes) = self.fixtures.get("transcript.jsonl") {
            std::fs::write(&transcript, bytes.as_ref())?;
        }
        let repo = sandbox.repo().display().to_string();
        let fire = |hook: &str| {
            let payload = generic_payload(
                hook,
                SESSION,
                &transcript.display().to_string(),
                &repo,
                Some("Edit the project's files"),
            );
            let args = vec!["parse-hook".to_string(), "--hook".to_string(), hook.into()];
            let mut inv = self.invocation(sandbox, args, self.options.timeout);
            inv.stdin = Some(std::sync::Arc::new(payload.to_string().into_bytes()));
            let _ = self.spawn(&inv);
        };
        let of = |kind: EventType| turn.iter().filter(move |(_, k)| *k == kind);
        of(EventType::TurnStart).for_each(|(hook, _)| fire(hook));
        let edited = edit();
        of(EventType::TurnEnd).for_each(|(hook, _)| fire(hook));
        edited
    }

    /// Puts a file of the project at each of `hidden` (in it, for a
    /// directory), commits them, and plays a turn that edits them: what
    /// each showed, in the order of `hidden`.
    fn edit_in_a_turn(
        &self,
        sandbox: &Sandbox,
        hidden: &[(String, bool)],
        turn: &[(String, EventType)],
    ) -> Vec<Shown> {
        let files: Vec<String> = hidden
            .iter()
            .map(|(path, dir)| match dir {
                true => format!("{path}/{IN_DIR}"),
                false => path.clone(),
            })
            .collect();
        let not_shown = |why: String| vec![Shown::NotShown(why); files.len()];
        let repo = sandbox.repo();
        for file in &files {
            if let Err(err) = write_project_file(&repo, file, "the project's own file\n") {
                return not_shown(format!("could not write {file}: {err}"));
            }
        }
        match sandbox.commit(&files) {
            Ok(Ok(())) => {}
            Ok(Err(why)) => return not_shown(why),
            Err(err) => return not_shown(err.to_string()),
        }
        let before = sandbox.changes();
        let edited = self.play_turn(sandbox, turn, || {
            files.iter().try_for_each(|file| {
                write_project_file(&repo, file, "the project's own file\nedited in a turn\n")
            })
        });
        let after = sandbox.changes();
        let changed = match (edited, before, after) {
            (Err(err), _, _) | (_, Err(err), _) | (_, _, Err(err)) => {
                return not_shown(err.to_string());
            }
            (_, Ok(Err(why)), _) | (_, _, Ok(Err(why))) => return not_shown(why),
            (Ok(()), Ok(Ok(before)), Ok(Ok(after))) => after
                .into_iter()
                .filter(|p| files.contains(p) || !before.contains(p))
                .collect::<Vec<String>>(),
        };
        let hooks: Vec<String> = turn
            .iter()
            .map(|(h, k)| format!("{h} ({})", k.name()))
            .collect();
        files
            .into_iter()
            .map(|file| Shown::Edited {
                file,
                hooks: hooks.clone(),
                changed: changed.clone(),
            })
            .collect()
    }
}

/// Writes a file of the project at `rel` in the repository `repo`.
fn write_project_file(repo: &Path, rel: &str, text: &str) -> std::io::Result<()> {
    let path = repo.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

/// The finding of one project path the plugin protects, with what the
/// turn showed (`shown`) over the protected union `union`.
fn hidden_path(path: &str, shown: &Shown, union: &[String]) -> Finding {
    let message = project::hides_project_path(path, shown, union);
    match Protected::weight(path) {
        Severity::Failure => Finding::failure(message),
        _ => Finding::note(format!(
            "not verified here, as neither the install nor the plugin's session hooks created \
             it and only the agent itself might: {message}"
        )),
    }
}

impl Run<'_> {
    /// `check_shared_hooks`: when the hook entries the install added (between
    /// the snapshots `before` and `installed`) are in a file under HOME,
    /// shows what that does to a second repository (install there,
    /// uninstall in the first, ask the second): a warning either way. No
    /// call when the hooks are in the repository.
    pub(super) fn shared_hooks(
        &self,
        before: &str,
        installed: &str,
        sandbox: &Sandbox,
        state: &crate::execute::CaseState,
    ) -> Vec<Finding> {
        let Some(files) = state.user.hook_files_added(before, installed) else {
            return vec![Finding::failure(format!(
                "no snapshots named {before:?} and {installed:?}"
            ))];
        };
        let home = sandbox.home();
        let home = home.strip_prefix(sandbox.root()).unwrap_or(&home);
        let shared: Vec<String> = files
            .into_iter()
            .filter(|rel| std::path::Path::new(rel).starts_with(home))
            .collect();
        if shared.is_empty() {
            return Vec::new();
        }
        let shown = self.show_shared(sandbox);
        vec![Finding::warning(project::shared_hooks(&shared, shown))]
    }

    /// Two repositories: install in the other, uninstall in this one, and
    /// ask the other whether its hooks are installed.
    fn show_shared(&self, sandbox: &Sandbox) -> project::SharedShown {
        let Ok(other) = sandbox.other_repo() else {
            return project::SharedShown::NotShown;
        };
        let call = |args: &[&str], repo: Option<&std::path::Path>| {
            let args = args.iter().map(|a| a.to_string()).collect();
            let mut inv = self.invocation(sandbox, args, self.options.timeout);
            if let Some(repo) = repo {
                inv.env.retain(|(k, _)| k != "ENTIRE_REPO_ROOT");
                inv.env
                    .push(("ENTIRE_REPO_ROOT".into(), repo.as_os_str().to_owned()));
                inv.cwd = repo.to_path_buf();
            }
            let outcome = self.spawn(&inv);
            (outcome.exit_code() == Some(0)).then_some(outcome.stdout)
        };
        let steps = call(&["install-hooks"], Some(&other))
            .and_then(|_| call(&["uninstall-hooks"], None))
            .and_then(|_| call(&["are-hooks-installed"], Some(&other)));
        let answer = steps
            .and_then(|out| serde_json::from_slice::<Value>(&out).ok())
            .and_then(|v| v.get("installed").and_then(Value::as_bool));
        match answer {
            Some(false) => project::SharedShown::RemovedForAll,
            Some(true) => project::SharedShown::AnsweredForAll,
            None => project::SharedShown::NotShown,
        }
    }
}
