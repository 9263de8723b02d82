//! What `init` learns of the agent's environment: the variables the agent
//! sets for the plugin that the sandbox does not, named by `info`
//! (`caller_env_vars`) or by a clean refusal of a first call (`detect`,
//! `get-session-dir`; see [`crate::host::agent_env`]). The scaffold sets
//! them with `env:`, so that its cases and the suite run for real.

use std::path::Path;

use serde_json::Value;

use crate::running::runner::Invocation;
use crate::running::sandbox::{self, Sandbox};

/// The variables to set, in the order found, each once.
pub fn needed(plugin: &Path, sandbox: &Sandbox, info: &Value) -> Vec<String> {
    let probe = invocation(plugin, sandbox, Vec::new());
    let mut found: Vec<String> = info
        .get("caller_env_vars")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| upper_identifier(name) && !set(&probe, name))
        .map(str::to_string)
        .collect();
    let repo = sandbox.repo().display().to_string();
    for args in [
        vec!["detect"],
        vec!["get-session-dir", "--repo-path", &repo],
    ] {
        let args = args.into_iter().map(str::to_string).collect();
        let inv = invocation(plugin, sandbox, args);
        let outcome = crate::running::runner::run(&inv);
        if let Some(name) = crate::judge::environment::needed_variable(&inv, &outcome)
            && !found.contains(&name)
        {
            found.push(name);
        }
    }
    found
}

/// `FOO_HOME`: what `info.caller_env_vars` holds (docs/host.md, "After
/// the protocol text was written").
fn upper_identifier(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether `probe`'s environment sets `name`.
fn set(probe: &Invocation, name: &str) -> bool {
    probe.env.iter().any(|(k, _)| k == name)
        || (!probe.env_remove.iter().any(|k| k == name) && std::env::var_os(name).is_some())
}

/// A call of the plugin in the sandbox, as a run makes it.
fn invocation(plugin: &Path, sandbox: &Sandbox, args: Vec<String>) -> Invocation {
    let mut inv = Invocation::new(
        plugin.to_path_buf(),
        args,
        sandbox.repo(),
        crate::host::invocation::INFO_TIMEOUT,
    );
    inv.env = sandbox.env();
    inv.env_remove = sandbox::env_remove();
    inv.path_first = Some(sandbox.bin());
    inv.guard = Some(sandbox.guard(crate::running::bounds::DEFAULT_MAX_WRITE_MIB << 20));
    inv
}

/// The scaffold's `env:` block for `names` (nothing when there are none).
pub fn block(names: &[String]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "# The agent sets these for the plugin (its info or a first call named\n\
         # them), and the sandbox does not: set for every invocation of the run.\n\
         # TODO: the values your agent really sets.\n\
         env:\n",
    );
    for name in names {
        text.push_str(&format!(
            "  {name}: \"{{{{home}}}}/.{}\"\n",
            name.to_lowercase()
        ));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_sets_each_variable_under_home() {
        let text = block(&["FOO_HOME".to_string()]);
        assert!(
            text.contains("env:\n  FOO_HOME: \"{{home}}/.foo_home\"\n"),
            "{text}"
        );
        assert_eq!(block(&[]), "");
    }
}
