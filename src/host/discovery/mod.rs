//! Discovery and registration (docs/host.md, "Discovery and
//! registration"): which files the host considers, the name it registers
//! each under, the names it never runs (by release: [`built_in`]), which `PATH` entries it scans, and
//! the repository setting without which it discovers nothing. The walk of
//! `PATH` itself is [`plugin_path`].

use std::path::Path;

use serde_json::Value;

use crate::host::range::{HostRange, Scope};
use crate::host::releases::{self, Fact};

pub mod plugin_path;

/// The prefix every plugin file name carries.
pub const PREFIX: &str = "entire-agent-";

/// The agents built into the host, by release, are
/// [`crate::host::releases::BUILT_IN`]: which names a host never runs
/// depends on its release ("The host of September 2026", "Built-in names").
pub use crate::host::releases::built_in;

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

/// Whether the host scans a `PATH` entry as written: absolute entries only;
/// a plugin found only through a relative one (`.`, `bin`) is never run.
pub fn scans_path_entry(written: &Path) -> bool {
    !written.is_relative()
}

/// The file of a repository that grants discovery on every release,
/// relative to its root: the untracked local settings ("What each answer
/// costs the user": no plugin is discovered without the setting). The
/// releases with [`Fact::AbsolutePaths`] read it from this file only (read
/// from source); the others from [`SHARED_SETTINGS_FILE`] too.
pub const SETTINGS_FILE: &str = ".entire/settings.local.json";

/// The committed settings of a repository, relative to its root: where
/// `entire enable --agent <name>` writes `external_agents`, and without
/// which the git hooks do nothing, on the releases with
/// [`Fact::EnableWritesSettings`] (observed on [`releases::JUNE_BUILD`]).
pub const SHARED_SETTINGS_FILE: &str = ".entire/settings.json";

/// Where the releases judged read the discovery setting.
#[derive(Debug, Clone)]
pub struct SettingsReading {
    /// The releases that read it only from [`SETTINGS_FILE`] (read from
    /// source).
    pub local_only: Scope,
    /// The releases whose `entire enable --agent` writes it into
    /// [`SHARED_SETTINGS_FILE`] and whose git hooks are inert without that
    /// file, so that a [`SETTINGS_FILE`] made before the first enable
    /// leaves them so (observed on [`releases::JUNE_BUILD`]).
    pub enable_writes_shared: Scope,
}

/// How the releases of `hosts` read the discovery setting.
pub fn settings_reading(hosts: &HostRange) -> SettingsReading {
    let local_only = hosts.with_fact(Fact::AbsolutePaths);
    let enable_writes_shared = hosts.scope_by(Some(Fact::EnableWritesSettings), |release| {
        match (
            releases::has(release, Fact::AbsolutePaths),
            releases::has(release, Fact::EnableWritesSettings),
        ) {
            (Some(true), _) | (_, Some(false)) => Some(false),
            (Some(false), Some(true)) => Some(true),
            _ => None,
        }
    });
    SettingsReading {
        local_only,
        enable_writes_shared,
    }
}

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
        assert!(built_in("codex").is_some() && built_in("mine").is_none());
    }

    #[test]
    fn the_setting_is_read_by_release() {
        let june = settings_reading(&HostRange::parse("0.7").expect("a range"));
        assert!(june.enable_writes_shared.everywhere() && !june.local_only.any());
        let newest = settings_reading(&HostRange::parse(">=0.12").expect("a range"));
        assert!(newest.local_only.everywhere() && !newest.enable_writes_shared.any());
        let all = settings_reading(&HostRange::parse(">=0.5.0").expect("a range"));
        assert!(all.local_only.any() && all.enable_writes_shared.any());
    }
}
