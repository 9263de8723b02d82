//! The user's project as the host treats it: what setup does with a
//! plugin's `detect` (docs/host.md, "The user's project as the host treats
//! it", "Setup and detect"), and what `protected_files` and
//! `protected_dirs` hide of the project ("Protected paths"), and hooks in a
//! file every repository shares ("Hooks in a file every repository
//! shares").
//!
//! Since the release that brings [`crate::host::releases::Fact::SetupDetectsPlugins`],
//! setup asks every plugin on `PATH` whether its agent is present. A first
//! `entire enable` without a terminal and without `--agent` enables every
//! detected agent; one without the hooks capability aborts that enable.

use crate::host::Severity;
use crate::host::hooks::UNINSTALL_FLOWS;

/// What a `detect` that says "present" where the agent has never been
/// (an empty repository, an empty HOME) costs the user, for a plugin that
/// declares the hooks capability (`hooks`) or not: the weight and why.
pub fn detect_present(hooks: bool) -> (Severity, String) {
    if hooks {
        return (
            Severity::Warning,
            "detect says present in an empty repository with an empty HOME, where the agent \
             has never run: a first non-interactive `entire enable` (no terminal, no --agent: \
             CI, devcontainers, agents) enables this agent in every repository and installs \
             its hooks there, and interactive setup offers it as found; say present only \
             where the agent's own files are"
                .to_string(),
        );
    }
    (
        Severity::Failure,
        "detect says present in an empty repository with an empty HOME, where the agent has \
         never run, and the plugin declares no hooks: a first non-interactive `entire enable` \
         (no terminal, no --agent: CI, devcontainers, agents) enables every detected agent and \
         stops at this one (\"agent does not support hooks\") before .entire and its settings \
         are written, after the other agents' hooks were installed: entire enable fails in \
         every repository while this plugin is on PATH; say present only where the agent's \
         own files are"
            .to_string(),
    )
}

/// What `detect`'s answer costs the user where the agent is installed (the
/// files it creates under HOME and in the repository, the variables it
/// sets: the case file's `agent:`), for a plugin that declares the hooks
/// capability or not (docs/host.md "Setup and detect"): `None` when setup
/// does right by it. Present with hooks: setup enables the agent there.
/// Present without hooks: a first non-interactive `entire enable` stops at
/// it ("does not support hooks"), in every repository of every user of the
/// agent. Absent with hooks: setup never offers the agent where it is, and
/// its hooks go uninstalled until `entire enable --agent`.
pub fn detect_installed(hooks: bool, present: bool) -> Option<(Severity, String)> {
    match (hooks, present) {
        (true, true) | (false, false) => None,
        (false, true) => Some((
            Severity::Failure,
            "detect says present where the agent is installed, and the plugin declares no \
             hooks: a first non-interactive `entire enable` (no terminal, no --agent: CI, \
             devcontainers, agents) enables every detected agent and stops at this one \
             (\"agent does not support hooks\") before .entire and its settings are written: \
             entire enable fails for every user of the agent while this plugin is on PATH; a \
             plugin without hooks is reached by `entire attach`, which needs no detect: say \
             absent"
                .to_string(),
        )),
        (true, false) => Some((
            Severity::Warning,
            "detect says absent where the agent is installed (the files and variables of the \
             case file's agent: section): setup never offers this agent, a non-interactive \
             `entire enable` leaves it out, and its hooks stay uninstalled until the user \
             names it (`entire enable --agent`); say present where the agent's own files are"
                .to_string(),
        )),
    }
}

/// What a `protected_files` or `protected_dirs` entry is to the host, which
/// reads it relative to the repository root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protected {
    /// Absolute, or leaving the repository (`..`): no path of the project
    /// is ever under it; it hides nothing.
    NoProjectPath,
    /// Its first component is named for the agent (`.kiro` for kiro,
    /// `.vibe` for mistral-vibe): the agent's own directory.
    NamedForAgent,
    /// Under the host's own directories (`.git`, `.entire`): never a
    /// project file of the user's.
    HostOwn,
    /// A path of the project, by this repository-relative name: hidden from
    /// every agent's checkpoints unless it is the agent's own (created by
    /// its install or its session).
    Project(String),
}

impl Protected {
    /// The weight of a project path neither named for the agent nor created
    /// by its install: a failure for a path a project has of its own (the
    /// issue's `config.toml`); a note for a hidden top-level name (`.x`),
    /// which is most often a state directory that the agent's session
    /// creates, and which a harness cannot see created without the agent.
    pub fn weight(path: &str) -> Severity {
        if path.starts_with('.') {
            Severity::Note
        } else {
            Severity::Failure
        }
    }
}

/// Reads one entry as the host does, for the agent registered as `agent`
/// (its file name's `<name>`) with `info.name` and `info.type` `names`.
pub fn protected(entry: &str, names: &[&str]) -> Protected {
    let Some(path) = relative(entry) else {
        return Protected::NoProjectPath;
    };
    let first = path.split('/').next().unwrap_or_default();
    if matches!(first, ".git" | ".entire") {
        return Protected::HostOwn;
    }
    if named_for(first, names) {
        return Protected::NamedForAgent;
    }
    Protected::Project(path)
}

/// An entry as the path of the repository the host reads it as (`./`
/// and empty components dropped, `/` between components); `None` for an
/// absolute entry, one that leaves the repository (`..`) or names nothing.
pub fn relative(entry: &str) -> Option<String> {
    let parts: Vec<&str> = entry
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let absolute = entry.starts_with(['/', '\\']) || entry.get(1..2) == Some(":");
    (!absolute && !parts.is_empty() && !parts.contains(&"..")).then(|| parts.join("/"))
}

/// Whether the repository's `path` is the plugin's own session directory
/// or lies inside it (`session_dir`, repository-relative, as the plugin's
/// `get-session-dir` names it): the agent's own transcripts live there,
/// and protecting them hides nothing of the project's (docs/host.md
/// "Protected paths"; the plugin's own answer says whose it is).
pub fn in_session_dir(path: &str, session_dir: &str) -> bool {
    !session_dir.is_empty() && untracked(path, &[session_dir.to_string()])
}

/// Whether the host leaves the repository's `path` out of session
/// tracking: it is one of the union `protected` of every registered
/// agent's protected paths (as [`relative`] reads them) or lies beneath one
/// (docs/host.md "Protected paths": `shouldIgnoreSessionTrackingPath`).
pub fn untracked(path: &str, protected: &[String]) -> bool {
    protected.iter().any(|p| {
        path == p
            || path
                .strip_prefix(p.as_str())
                .is_some_and(|r| r.starts_with('/'))
    })
}

/// Of the paths a turn changed, those the host's checkpoint of that turn
/// holds: none means the turn makes no checkpoint, and `entire rewind`
/// has nothing of it to restore.
pub fn tracked(changed: &[String], protected: &[String]) -> Vec<String> {
    changed
        .iter()
        .filter(|path| !untracked(path, protected))
        .cloned()
        .collect()
}

/// What the harness showed of a protected path of the project: a file of
/// the project put there and committed, then edited by a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// The project's `file` (at the protected path, or in the protected
    /// directory), committed, was edited between the turn's hooks `hooks`
    /// (none: the plugin names none the guide maps to TurnStart and
    /// TurnEnd); `changed` is every path the turn changed, as git saw it.
    Edited {
        /// The project file edited.
        file: String,
        /// The hooks played around the edit.
        hooks: Vec<String>,
        /// What the turn changed in the work tree.
        changed: Vec<String>,
    },
    /// Not shown here: why (git could not commit, the file could not be
    /// written).
    NotShown(String),
}

impl Shown {
    /// What the host does with the turn, by its rule: said for the
    /// finding, with the protected union `protected`.
    fn told(&self, protected: &[String]) -> String {
        let (file, hooks, changed) = match self {
            Shown::NotShown(why) => return format!("not shown here ({why})"),
            Shown::Edited {
                file,
                hooks,
                changed,
            } => (file, hooks, changed),
        };
        let around = if hooks.is_empty() {
            String::new()
        } else {
            format!(" between the hooks {}", hooks.join(" and "))
        };
        let head =
            format!("shown here: the project's {file}, committed, then edited in a turn{around}");
        if !changed.contains(file) {
            return format!("{head}, but git did not see it changed");
        }
        let kept = tracked(changed, protected);
        if kept.is_empty() {
            format!(
                "{head}, was that turn's only change (git status); by the host's rule the turn \
                 makes no checkpoint, and entire rewind to the one before leaves {file} as \
                 edited: its committed bytes are not restored"
            )
        } else {
            format!(
                "{head}; by the host's rule that turn's checkpoint holds only {}, and entire \
                 rewind restores those but leaves {file} as edited",
                kept.join(", ")
            )
        }
    }
}

/// Whether a path component is named for the agent: the component without
/// its leading dots, and one of the names, share a word (split at `-`, `_`,
/// `.` and spaces, compared without case) of at least two letters.
fn named_for(component: &str, names: &[&str]) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(['-', '_', '.', ' '])
            .filter(|w| w.len() >= 2)
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let own = words(component.trim_start_matches('.'));
    names
        .iter()
        .flat_map(|name| words(name))
        // Every plugin is `entire-agent-<name>`: `entire` names none.
        .filter(|word| word != "entire" && word != "agent")
        .any(|word| own.contains(&word))
}

/// The failure of a protected path of the project that is not the agent's
/// own: what the host then does with it, and what the harness showed
/// (`shown`, judged by the host's rule over the union `protected`).
pub fn hides_project_path(path: &str, shown: &Shown, protected: &[String]) -> String {
    format!(
        "protected path {path:?} is read by the host relative to the repository root, and the \
         union of every registered agent's protected paths is left out of session tracking: \
         the project's own {path} (neither the install nor the plugin's session hooks created \
         it, it is not named for the agent, and it is not the session directory its \
         get-session-dir names) is hidden from every agent's checkpoints while \
         this plugin is on PATH: a turn that edits only {path} makes no checkpoint, \
         checkpoints do not hold it, entire rewind does not restore it and the commit \
         trailers omit it ({}); name only the agent's own paths (relative to the repository), \
         never a file the agent keeps under HOME",
        shown.told(protected)
    )
}

/// What the other repository said after the uninstall in the first, when
/// the hooks live in a file under HOME that every repository shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedShown {
    /// `are-hooks-installed` there answered false: the uninstall in one
    /// repository removed the hooks of both.
    RemovedForAll,
    /// It still answered true, though the file it reads lost the hooks
    /// (or kept them for both): one answer for every repository.
    AnsweredForAll,
    /// Not shown (a call failed): the file alone says it.
    NotShown,
}

/// The warning of hooks installed into `files` under HOME, which every
/// repository shares (docs/host.md, "Hooks in a file every repository
/// shares"): weighed a warning, since each repository's hooks still fire
/// until one uninstalls.
pub fn shared_hooks(files: &[String], shown: SharedShown) -> String {
    let what = match shown {
        SharedShown::RemovedForAll => {
            "shown here: installed in two repositories, uninstalled in one, and \
             are-hooks-installed in the other answered false"
        }
        SharedShown::AnsweredForAll => {
            "shown here: installed in two repositories, uninstalled in one, and \
             are-hooks-installed in the other still answered true, an answer for every \
             repository at once"
        }
        SharedShown::NotShown => "not shown here: a call of the demonstration failed",
    };
    format!(
        "install-hooks put the hooks into {}, under HOME, a file every repository of the user \
         shares: removing the agent in one repository ({UNINSTALL_FLOWS}) removes the hooks \
         of every other, whose checkpoints then stop without a word, and \
         are-hooks-installed answers for all repositories at once ({what}); install the hooks \
         in a file of the repository",
        files.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths_are_the_projects_unless_named_for_the_agent_or_outside() {
        let names = ["mistral-vibe", "Mistral Vibe"];
        assert_eq!(protected(".vibe", &names), Protected::NamedForAgent);
        assert_eq!(protected("./.vibe/x", &names), Protected::NamedForAgent);
        assert_eq!(
            protected("config.toml", &names),
            Protected::Project("config.toml".into())
        );
        assert_eq!(protected("/home/u/.vibe", &names), Protected::NoProjectPath);
        assert_eq!(protected("../x", &names), Protected::NoProjectPath);
        assert_eq!(protected(".pi", &["pi", "Pi"]), Protected::NamedForAgent);
        let union = vec!["config.toml".to_string()];
        let shown = Shown::Edited {
            file: "config.toml".into(),
            hooks: vec!["user-prompt-submit".into(), "stop".into()],
            changed: vec!["config.toml".into()],
        };
        let message = hides_project_path("config.toml", &shown, &union);
        assert!(message.contains("entire rewind"), "{message}");
        assert!(
            message.contains("the turn makes no checkpoint"),
            "{message}"
        );
        assert_eq!(protected(".entire/tmp", &names), Protected::HostOwn);
        assert_eq!(
            protected(".entire-adapter", &["langgraph", "LangGraph"]),
            Protected::Project(".entire-adapter".into())
        );
        assert_eq!(Protected::weight(".entire-adapter"), Severity::Note);
        assert_eq!(Protected::weight("config.toml"), Severity::Failure);
    }

    #[test]
    fn the_host_leaves_out_a_protected_path_and_whatever_lies_beneath_it() {
        let protected = vec!["config.toml".to_string(), ".state".to_string()];
        assert!(untracked("config.toml", &protected));
        assert!(untracked(".state/a/b", &protected));
        assert!(!untracked("config.toml.bak", &protected));
        assert!(!untracked(".statefile", &protected));
        let changed = vec!["config.toml".to_string(), "src/main.rs".to_string()];
        assert_eq!(
            tracked(&changed, &protected),
            vec!["src/main.rs".to_string()]
        );
        assert_eq!(relative("./a//b/"), Some("a/b".into()));
        assert_eq!(relative("/etc/x"), None);
        // The turn changed something else too: a checkpoint without it.
        let shown = Shown::Edited {
            file: "config.toml".into(),
            hooks: Vec::new(),
            changed,
        };
        let told = shown.told(&protected);
        assert!(told.contains("holds only src/main.rs"), "{told}");
    }

    #[test]
    fn present_without_hooks_breaks_enable_and_with_hooks_degrades_it() {
        assert_eq!(detect_present(false).0, Severity::Failure);
        assert!(detect_present(false).1.contains("entire enable"));
        assert_eq!(detect_present(true).0, Severity::Warning);
    }
}
