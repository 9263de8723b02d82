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
