//! Discovery and registration (host-behaviour.md, "Discovery and
//! registration"): which files the host considers, the name it registers
//! each under, the names it never runs, which `PATH` entries it scans, and
//! the repository setting without which it discovers nothing. The walk of
//! `PATH` itself is [`plugin_path`].

use std::path::Path;

use serde_json::Value;

pub mod plugin_path;

/// The prefix every plugin file name carries.
pub const PREFIX: &str = "entire-agent-";

/// Agent names built into the host; a plugin with one of these names is
/// never executed (host-behaviour.md lists them; newer hosts ship more).
pub const BUILT_IN: &[&str] = &[
    "claude-code",
    "gemini",
    "cursor",
    "opencode",
    "factoryai-droid",
    "copilot-cli",
    "pi",
];

/// The agent name the host derives from the file name, if it has the form
/// `entire-agent-<name>` (`.exe` is dropped on Windows).
pub fn agent_name(plugin: &Path) -> Option<String> {
    let file = plugin.file_name()?.to_str()?;
    let file = if cfg!(windows) {
        file.strip_suffix(".exe").unwrap_or(file)
    } else {
        file
    };
    file.strip_prefix(PREFIX)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
}

/// Agent names that newer hosts also build in ("Discovery and registration":
/// "newer hosts also build in `codex`").
pub const NEWER_BUILT_IN: &[&str] = &["codex"];

/// Whether a host, this one or a newer one, builds in an agent of this name
/// and so never runs a plugin that has it.
pub fn is_built_in(name: &str) -> bool {
    BUILT_IN.contains(&name) || NEWER_BUILT_IN.contains(&name)
}

/// Whether the host scans a `PATH` entry as written: absolute entries only;
/// a plugin found only through a relative one (`.`, `bin`) is never run.
pub fn scans_path_entry(written: &Path) -> bool {
    !written.is_relative()
}

/// The file of a repository that grants discovery, relative to its root: the
/// untracked local settings (the committed `.entire/settings.json` cannot
/// grant it) ("What each answer costs the user": no plugin is discovered
/// without it).
pub const SETTINGS_FILE: &str = ".entire/settings.local.json";

/// The key of [`SETTINGS_FILE`] that grants discovery.
pub const SETTING: &str = "external_agents";

/// Whether the settings document grants discovery: a JSON object whose
/// [`SETTING`] is `true`. Otherwise why not, as the end of a sentence about
/// the file ("does not set ...").
pub fn grants_discovery(settings: &Value) -> Result<(), String> {
    match settings {
        Value::Object(map) => match map.get(SETTING) {
            Some(Value::Bool(true)) => Ok(()),
            None => Err(format!("does not set \"{SETTING}\"")),
            Some(other) => Err(format!("sets \"{SETTING}\" to {other}, not true")),
        },
        _ => Err("is not a JSON object".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_the_name_from_the_file_name() {
        assert_eq!(
            agent_name(Path::new("/x/entire-agent-foo")),
            Some("foo".into())
        );
        assert_eq!(agent_name(Path::new("/x/entire-agent-")), None);
        assert_eq!(agent_name(Path::new("/x/foo")), None);
        assert!(is_built_in("codex") && is_built_in("cursor") && !is_built_in("mine"));
    }
}
