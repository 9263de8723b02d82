//! The part of the user's world a sandbox is made in: the folders around
//! the repository and HOME, the clock, and the variables the user's shell
//! exports or leaves unset. Plain values, chosen above this layer (the
//! axes of `suite::worlds`, assigned by `execute::worlds`): this layer lays
//! them down and knows nothing of axes or cases.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::host::clock::{self, Zone};

/// How a sandbox is laid out and what its calls' environment holds beyond
/// the host's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The folder between the sandbox root and the repository.
    pub nest: String,
    /// HOME's folder, under the sandbox root.
    pub home: String,
    /// The clock's zone (`None`: the process's own, as the harness has it).
    pub zone: Option<Zone>,
    /// Variables set, by name; `{home}` in a value is HOME's path.
    pub set: Vec<(String, String)>,
    /// Variables left unset (removed from what the harness inherited).
    pub unset: Vec<String>,
    /// Where the agent runs, relative to the repository (`""`: its root).
    /// The plugin still runs at the root, as the host runs it (docs/host.md,
    /// fifth pass): this moves only the payloads' working directory.
    pub cwd: String,
}

impl Default for Setting {
    /// The world every sandbox was made in before the axes: folders with a
    /// space and an accented letter, a zone off UTC by a half hour.
    fn default() -> Setting {
        Setting {
            nest: "Café projects".into(),
            home: "Zoë home".into(),
            zone: Some(clock::USER_ZONE),
            set: Vec::new(),
            unset: Vec::new(),
            cwd: String::new(),
        }
    }
}

impl Setting {
    /// The variables set for a sandbox whose HOME is `home`, after the
    /// defaults `base` (which they replace by name), and the zone's `TZ`.
    pub fn env(&self, home: &Path, mut base: Vec<(String, OsString)>) -> Vec<(String, OsString)> {
        base.retain(|(k, _)| !self.unset.contains(k));
        if let Some(zone) = self.zone {
            base.push((clock::TZ_VAR.into(), tz(zone).into()));
        }
        let home = home.display().to_string();
        for (name, value) in &self.set {
            let value: OsString = value.replace("{home}", &home).into();
            match base.iter_mut().find(|(k, _)| k == name) {
                Some((_, old)) => *old = value,
                None => base.push((name.clone(), value)),
            }
        }
        base
    }

    /// The directories the world's variables name under HOME, to make with
    /// the sandbox (a variable that names a folder the user has).
    pub fn dirs(&self, home: &Path) -> Vec<PathBuf> {
        let home_text = home.display().to_string();
        self.set
            .iter()
            .filter(|(_, v)| v.starts_with("{home}"))
            .map(|(_, v)| PathBuf::from(v.replace("{home}", &home_text)))
            .collect()
    }
}

/// The value of `TZ` that puts a process in `zone`: its tz database name
/// where the database has it (every runtime reads it, Go's included),
/// else its POSIX rule, which a C library reads without the database (a Go
/// plugin, which cannot, then runs in UTC: its zone bugs go unseen, never
/// a false finding).
pub fn tz(zone: Zone) -> String {
    static FOUND: OnceLock<std::sync::Mutex<Vec<(&'static str, bool)>>> = OnceLock::new();
    let found = FOUND.get_or_init(Default::default);
    let known = match found.lock() {
        Ok(mut seen) => match seen.iter().find(|(name, _)| *name == zone.name) {
            Some((_, known)) => *known,
            None => {
                let known = zone_file(zone.name);
                seen.push((zone.name, known));
                known
            }
        },
        Err(_) => zone_file(zone.name),
    };
    if known { zone.name } else { zone.posix }.to_string()
}

/// Whether the tz database holds `name` where C libraries and Go look
/// first (`/usr/share/zoneinfo`, or `$TZDIR`).
fn zone_file(name: &str) -> bool {
    let dir = std::env::var_os("TZDIR")
        .map_or_else(|| PathBuf::from("/usr/share/zoneinfo"), PathBuf::from);
    dir.join(name).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_sets_replaces_and_unsets_its_variables() {
        let setting = Setting {
            set: vec![("XDG_CONFIG_HOME".into(), "{home}/.xdg/config".into())],
            unset: vec!["XDG_CACHE_HOME".into()],
            zone: None,
            ..Setting::default()
        };
        let base = vec![
            ("XDG_CONFIG_HOME".to_string(), OsString::from("/h/.config")),
            ("XDG_CACHE_HOME".to_string(), OsString::from("/h/.cache")),
        ];
        let env = setting.env(Path::new("/h"), base);
        assert_eq!(
            env,
            vec![(
                "XDG_CONFIG_HOME".to_string(),
                OsString::from("/h/.xdg/config")
            )]
        );
        assert_eq!(
            setting.dirs(Path::new("/h")),
            vec![PathBuf::from("/h/.xdg/config")]
        );
    }
}
