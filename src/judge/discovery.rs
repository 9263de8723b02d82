//! The checks of the binary itself, before any subcommand: its file name
//! and `info.name` measured against the host's discovery rules
//! ([`crate::host::discovery`]).

use std::path::Path;

use serde_json::Value;

use crate::host::discovery::{BUILT_IN, agent_name};
use crate::judge::checks::Finding;

/// The file must be named `entire-agent-<name>`: the host scans PATH for that
/// pattern only.
pub fn check_file_name(plugin: &Path) -> Vec<Finding> {
    match agent_name(plugin) {
        Some(_) => Vec::new(),
        None => vec![Finding::failure(format!(
            "the file is named {:?}; the host only discovers executables named \
             entire-agent-<name> on PATH, so it would never find this one",
            plugin
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ))],
    }
}

/// `info.name` should equal the name in the file name; the host registers
/// the file name and logs a warning otherwise.
pub fn check_info_name(plugin: &Path, info: &Value) -> Vec<Finding> {
    let (Some(file_name), Some(name)) =
        (agent_name(plugin), info.get("name").and_then(Value::as_str))
    else {
        return Vec::new();
    };
    if file_name == name {
        return Vec::new();
    }
    vec![Finding::warning(format!(
        "info.name is {name:?} but the file name registers the agent as {file_name:?}; \
         the host keeps the file name and logs a warning"
    ))]
}

/// A name that collides with a built-in agent is never executed by the host.
pub fn check_not_built_in(plugin: &Path) -> Vec<Finding> {
    match agent_name(plugin) {
        Some(name) if BUILT_IN.contains(&name.as_str()) => vec![Finding::warning(format!(
            "{name:?} is the name of an agent built into the host: the host will ignore \
             this binary; rename it to entire-agent-<another name>"
        ))],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_names_are_flagged() {
        assert!(!check_not_built_in(Path::new("entire-agent-cursor")).is_empty());
        assert!(check_not_built_in(Path::new("entire-agent-mine")).is_empty());
    }
}
