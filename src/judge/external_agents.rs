//! Whether the host discovers plugins in a repository at all: it discovers
//! none unless the repository's settings set `external_agents` (docs/host.md,
//! "What each answer costs the user"), read by release
//! ([`discovery::settings_reading`]), so `discover` says whether the current
//! repository does on the releases judged, and how to set it up there.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::host::discovery::{self, SETTINGS_FILE, SHARED_SETTINGS_FILE, SettingsReading};
use crate::host::range::HostRange;
use crate::host::releases::JUNE_BUILD;
use crate::outcome::discover::Settings;

/// Why a settings file does not grant discovery, as the end of a sentence
/// about it; empty when it does.
fn problem(file: &Path) -> String {
    match std::fs::read(file) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => "does not exist".to_string(),
        Err(err) => format!("cannot be read ({err})"),
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Err(err) => format!("is not valid JSON ({err})"),
            Ok(settings) => discovery::grants_discovery(&settings)
                .err()
                .unwrap_or_default(),
        },
    }
}

/// How to set a repository up on the releases judged, `local` being its
/// local settings file: `entire enable --agent <name>` first, never the
/// local file before it.
fn advice(reading: &SettingsReading, local: &str) -> String {
    let mut out = "run `entire enable --agent <name>` first".to_string();
    let shared = &reading.enable_writes_shared;
    if shared.any() {
        out.push_str(&format!(
            "; {} it writes \"external_agents\": true into {SHARED_SETTINGS_FILE} itself \
             (observed on {JUNE_BUILD}), and a {SETTINGS_FILE} created before that first \
             enable leaves the git hooks inert (commits get no checkpoint): do not create it \
             first",
            shared.prefix()
        ));
    }
    if reading.local_only.any() {
        out.push_str(&format!(
            "; {} the host reads the setting only from the local file (read from source): \
             after enabling, add \"external_agents\": true to {local}",
            reading.local_only.prefix()
        ));
    }
    out
}

/// Reads the discovery setting of the git work tree that holds `dir`, as
/// the releases of `hosts` read it.
///
/// A JSON `true` under `external_agents` is taken as enabled, anything else
/// (a missing file or key, `false`, another value, a file that is not a
/// JSON object) as off. The local `.entire/settings.local.json` grants it on
/// every release; the committed `.entire/settings.json` only on the
/// releases without [`crate::host::releases::Fact::AbsolutePaths`], where
/// that file must also exist for the git hooks to act.
pub fn setting(dir: &Path, hosts: &HostRange) -> Settings {
    let reading = discovery::settings_reading(hosts);
    let Some(root) = work_tree_root(dir) else {
        return Settings {
            repository: None,
            file: None,
            external_agents: false,
            message: format!(
                "not in a git work tree: the host's discovery setting (\"external_agents\": \
                 true) is per repository; run discover in yours to check it. To set one up: \
                 {}",
                advice(&reading, SETTINGS_FILE)
            ),
        };
    };
    let local = root.join(SETTINGS_FILE);
    let shared = root.join(SHARED_SETTINGS_FILE);
    let (local_problem, shared_problem) = (problem(&local), problem(&shared));
    let local_only = &reading.local_only;
    let fix = advice(&reading, &local.display().to_string());
    let (external_agents, file, message) = if local_problem.is_empty() {
        let inert = &reading.enable_writes_shared;
        let message = if !shared.exists() && inert.any() {
            format!(
                "{} sets \"external_agents\": true, but {} does not exist: {} the project \
                 then counts as not set up and its git hooks do nothing (commits get no \
                 checkpoint; observed on {JUNE_BUILD}); move the local file aside and run \
                 `entire enable --agent <name>`, which writes {SHARED_SETTINGS_FILE}",
                local.display(),
                shared.display(),
                inert.prefix()
            )
        } else {
            format!(
                "{} sets \"external_agents\": true: the host discovers plugins in {}",
                local.display(),
                root.display()
            )
        };
        (true, local, message)
    } else if shared_problem.is_empty() && !local_only.everywhere() {
        let mut message = format!(
            "{} sets \"external_agents\": true: the host discovers plugins in {}",
            shared.display(),
            root.display()
        );
        if local_only.any() {
            message = format!(
                "{message} on entire {}; {} it reads the setting only from the local file \
                 (read from source), and {} {local_problem}: add \"external_agents\": true \
                 to it",
                local_only.elsewhere(),
                local_only.prefix(),
                local.display()
            );
        }
        (
            !local_only.any(),
            if local_only.any() { local } else { shared },
            message,
        )
    } else {
        let message = format!(
            "{} {local_problem}{}: the host discovers no plugin in {}, and hooks of an \
             installed plugin fail with \"unknown agent\"; {fix}",
            local.display(),
            if local_only.everywhere() {
                String::new()
            } else {
                format!(" and {} {shared_problem}", shared.display())
            },
            root.display()
        );
        (false, local, message)
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
        let all = HostRange::parse(">=0.5.0").expect("a range");
        let off = setting(&nested, &all);
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
            let off = setting(root, &all);
            assert!(!off.external_agents, "{text}");
            assert!(off.message.contains(want), "{text}: {}", off.message);
        }
        std::fs::write(&file, r#"{"external_agents": true}"#).expect("settings");
        assert!(setting(root, &all).external_agents);
        // The June line: the local file alone leaves the git hooks inert.
        let june = HostRange::parse("0.7").expect("a range");
        let inert = setting(root, &june);
        assert!(
            inert.message.contains("git hooks do nothing"),
            "{}",
            inert.message
        );
        std::fs::remove_file(&file).expect("no local file");
        let advice = setting(root, &june).message;
        assert!(advice.contains("do not create it first"), "{advice}");
        assert!(!advice.contains("add \"external_agents\""), "{advice}");
        std::fs::write(
            root.join(SHARED_SETTINGS_FILE),
            r#"{"external_agents": true}"#,
        )
        .expect("settings.json");
        assert!(setting(root, &june).external_agents);
        let newest = HostRange::parse(">=0.12").expect("a range");
        let local_only = setting(root, &newest);
        assert!(!local_only.external_agents, "{}", local_only.message);
        assert!(
            local_only.message.contains("read from source"),
            "{}",
            local_only.message
        );
    }
}
