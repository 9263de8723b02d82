//! The session directories of the host's built-in agents, as data
//! (docs/host.md, "Real bugs that these plugins carry", "The session
//! directory claims what is not the plugin's": "Known session directories of
//! built-in agents"). The owner lookup (`host::ownership`, which uses
//! this module) weighs a plugin's directory against them.

use std::path::{Path, PathBuf};

/// One built-in agent's session directory.
#[derive(Debug, Clone, Copy)]
pub struct BuiltInDir {
    /// The built-in agent's registered name.
    pub agent: &'static str,
    /// The directory: `{home}` is the user's home, `{repo}` the work tree's
    /// root, `{key}` the repository path made one directory name
    /// ([`repo_key`]).
    pub template: &'static str,
    /// Built in only on older hosts (Kiro): what it costs is a warning.
    pub older_hosts_only: bool,
}

/// The built-in agents whose session directories are known.
pub const BUILT_IN_DIRS: &[BuiltInDir] = &[
    BuiltInDir {
        agent: "claude-code",
        template: "{home}/.claude/projects/{key}",
        older_hosts_only: false,
    },
    BuiltInDir {
        agent: "cursor",
        template: "{home}/.cursor/projects/{key}/agent-transcripts",
        older_hosts_only: false,
    },
    BuiltInDir {
        agent: "opencode",
        template: "{repo}/.entire/opencode/sessions",
        older_hosts_only: false,
    },
    BuiltInDir {
        agent: "kiro",
        template: "{repo}/.entire/tmp",
        older_hosts_only: true,
    },
];

impl BuiltInDir {
    /// The directory for this home and work tree.
    pub fn resolve(&self, home: &Path, repo: &Path) -> PathBuf {
        let text = self
            .template
            .replace("{key}", &repo_key(repo))
            .replace("{home}", &home.to_string_lossy())
            .replace("{repo}", &repo.to_string_lossy());
        PathBuf::from(text)
    }
}

/// The repository path as one directory name: every byte that is not an
/// ASCII letter or digit becomes `-` (Claude Code's form; Cursor's may
/// differ in detail, which matters only for a directory at or below that
/// level).
pub fn repo_key(repo: &Path) -> String {
    repo.to_string_lossy()
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                char::from(b)
            } else {
                '-'
            }
        })
        .collect()
}

/// The official plugin template's shared staging directory,
/// `<repo>/.entire/tmp` (docs/host.md, "A shared staging directory").
pub fn staging(repo: &Path) -> PathBuf {
    repo.join(".entire").join("tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_resolve_for_a_home_and_a_repository() {
        let (home, repo) = (Path::new("/h"), Path::new("/src/app"));
        let dirs: Vec<PathBuf> = BUILT_IN_DIRS
            .iter()
            .map(|b| b.resolve(home, repo))
            .collect();
        assert_eq!(dirs[0], PathBuf::from("/h/.claude/projects/-src-app"));
        assert_eq!(dirs[2], PathBuf::from("/src/app/.entire/opencode/sessions"));
        assert_eq!(dirs[3], staging(repo));
    }
}
