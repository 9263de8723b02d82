//! Whether the host discovers plugins in a repository at all: it discovers
//! none unless the repository's `.entire/settings.local.json` sets
//! `external_agents` (docs/host.md, "What each answer costs the user"), so
//! `discover` says whether the current repository does.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::host::discovery::{self, SETTINGS_FILE};
use crate::outcome::discover::Settings;

/// Reads the discovery setting of the git work tree that holds `dir`.
///
/// The host discovers plugins only when the untracked
/// `.entire/settings.local.json` of the repository sets `external_agents`
/// (the committed `.entire/settings.json` cannot grant it); a JSON `true` is
/// taken as enabled, anything else (a missing file or key, `false`, another
/// value, a file that is not a JSON object) as off.
pub fn setting(dir: &Path) -> Settings {
    let Some(root) = work_tree_root(dir) else {
        return Settings {
            repository: None,
            file: None,
            external_agents: false,
            message: format!(
                "not in a git work tree: the host's discovery setting (\"external_agents\": \
                 true in {SETTINGS_FILE}) is per repository; run discover in yours to check it"
            ),
        };
    };
    let file = root.join(SETTINGS_FILE);
    let problem = match std::fs::read(&file) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => "does not exist".to_string(),
        Err(err) => format!("cannot be read ({err})"),
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Err(err) => format!("is not valid JSON ({err})"),
            Ok(settings) => discovery::grants_discovery(&settings)
                .err()
                .unwrap_or_default(),
        },
    };
    let external_agents = problem.is_empty();
    let message = if external_agents {
        format!(
            "{} sets \"external_agents\": true: the host discovers plugins in {}",
            file.display(),
            root.display()
        )
    } else {
        format!(
            "{} {problem}: the host discovers no plugin in {}, and hooks of an installed \
             plugin fail with \"unknown agent\"; add \"external_agents\": true to {}",
            file.display(),
            root.display(),
            file.display()
        )
    };
    Settings {
        repository: Some(root),
        file: Some(file),
        external_agents,
        message,
    }
}

/// The root of the git work tree that holds `dir`: the nearest directory,
/// `dir` itself or above, with a `.git` entry (a directory, or the file of a
/// linked worktree or submodule).
fn work_tree_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_line_says_when_discovery_is_off() {
        let repo = tempfile::tempdir().expect("a temporary directory");
        let root = repo.path();
        std::fs::create_dir(root.join(".git")).expect(".git");
        let nested = root.join("src");
        std::fs::create_dir(&nested).expect("src");
        let off = setting(&nested);
        assert_eq!(off.repository.as_deref(), Some(root));
        assert!(!off.external_agents);
        assert!(off.message.contains("does not exist"), "{}", off.message);
        assert!(off.message.contains("add \"external_agents\": true to"));

        std::fs::create_dir(root.join(".entire")).expect(".entire");
        let file = root.join(SETTINGS_FILE);
        for (text, want) in [
            ("{}", "does not set"),
            (r#"{"external_agents": false}"#, "to false, not true"),
            (r#"{"external_agents": "true"}"#, "not true"),
            ("[]", "not a JSON object"),
            ("{", "not valid JSON"),
        ] {
            std::fs::write(&file, text).expect("settings");
            let off = setting(root);
            assert!(!off.external_agents, "{text}");
            assert!(off.message.contains(want), "{text}: {}", off.message);
        }
        std::fs::write(&file, r#"{"external_agents": true}"#).expect("settings");
        assert!(setting(root).external_agents);
    }
}
