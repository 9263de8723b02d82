//! The user's project as the host treats it, where the harness has to make
//! a call of its own: the protected paths of `info`, read as the host reads
//! them (relative to the repository), against what the install creates
//! (docs/host.md, "The user's project as the host treats it", "Protected
//! paths"; the rule is [`crate::host::project`]'s).

use serde_json::Value;

use crate::execute::Run;
use crate::host::project::{self, Protected};
use crate::judge::checks::Finding;
use crate::running::runner;
use crate::running::sandbox::Sandbox;
use crate::suite::case::Severity;

impl Run<'_> {
    /// `check_protected_paths`: each protected path of the project that is
    /// not the agent's own. An entry named for the agent, outside the
    /// repository or under the host's own directories costs no call; for
    /// the others, a plugin with hooks is installed once (into the fresh
    /// sandbox), and what the install created is the agent's own.
    pub(super) fn protected_paths(&self, sandbox: &Sandbox) -> Vec<Finding> {
        let registered = crate::host::discovery::agent_name(self.plugin).unwrap_or_default();
        let text = |key: &str| self.info.get(key).and_then(Value::as_str).unwrap_or("");
        let names = [registered.as_str(), text("name"), text("type")];
        let entries = ["/protected_files", "/protected_dirs"]
            .iter()
            .filter_map(|p| self.info.pointer(p).and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str);
        let paths: Vec<String> = entries
            .filter_map(|entry| match project::protected(entry, &names) {
                Protected::Project(path) => Some(path),
                _ => None,
            })
            .collect();
        if paths.is_empty() {
            return Vec::new();
        }
        if self.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true)) {
            let args = vec!["install-hooks".to_string()];
            let inv = self.invocation(sandbox, args, self.options.timeout);
            let _ = runner::run(&inv);
        }
        paths
            .iter()
            .filter(|path| !sandbox.repo().join(path).exists())
            .map(|path| hidden(path))
            .collect()
    }
}

/// The finding of one project path the plugin protects.
fn hidden(path: &str) -> Finding {
    let message = project::hides_project_path(path);
    match Protected::weight(path) {
        Severity::Failure => Finding::failure(message),
        _ => Finding::note(format!(
            "not verified here, as the install did not create it and only the agent's own \
             session might: {message}"
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
        let shared: Vec<String> = files
            .into_iter()
            .filter(|rel| rel.starts_with("home/"))
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
            let outcome = runner::run(&inv);
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
