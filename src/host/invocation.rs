//! How the host calls a plugin (docs/host.md, "Invocation"): the
//! variables it adds to its environment, its deadlines and its output
//! limits. The running layer spawns calls with these; the judgement quotes
//! them.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

/// The host keeps at most this many bytes of stdout and of stderr (10 MiB);
/// a call whose stdout went over it fails ("Invocation", "Output limits").
pub const OUTPUT_LIMIT: usize = 10 * 1024 * 1024;

/// The host's deadline for every call but discovery's `info` ("Invocation",
/// "Time limits").
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The host's deadline for `info` during discovery ("Invocation", "Time
/// limits").
pub const INFO_TIMEOUT: Duration = Duration::from_secs(10);

/// The protocol version the host speaks (`ENTIRE_PROTOCOL_VERSION`), which
/// `info` must declare for the host to register the plugin ("Discovery and
/// registration").
pub const PROTOCOL_VERSION: &str = "1";

/// The host version announced in `ENTIRE_CLI_VERSION`: ours, marked as such,
/// in place of the real host's.
pub const CLI_VERSION: &str = concat!("agent-conform-", env!("CARGO_PKG_VERSION"));

/// The variable naming the git work tree the plugin runs in (also its cwd).
pub const REPO_ROOT_VAR: &str = "ENTIRE_REPO_ROOT";

/// The variable holding [`PROTOCOL_VERSION`].
pub const PROTOCOL_VERSION_VAR: &str = "ENTIRE_PROTOCOL_VERSION";

/// The variable holding [`CLI_VERSION`].
pub const CLI_VERSION_VAR: &str = "ENTIRE_CLI_VERSION";

/// The host's own command: whenever the host runs a plugin it is on `PATH`,
/// and the hooks a plugin installs call `entire hooks <agent> <hook>`
/// (docs/host.md, "Plugins in the wild": "A plugin that expects
/// `entire` on `PATH`"). The sandbox puts a stand-in of that name first on
/// `PATH` (`running::sandbox`).
pub const HOST_COMMAND: &str = "entire";

/// The variables the host adds to its own environment for every call, for a
/// work tree at `repo`, in the order reports print them.
pub fn environment(repo: &Path) -> Vec<(String, OsString)> {
    vec![
        (REPO_ROOT_VAR.into(), repo.as_os_str().to_owned()),
        (PROTOCOL_VERSION_VAR.into(), PROTOCOL_VERSION.into()),
        (CLI_VERSION_VAR.into(), CLI_VERSION.into()),
    ]
}

/// The kinds of git work tree a user runs the host in, each of which the
/// host supports (docs/host.md, "Plugins in the wild", "Linked worktrees
/// and submodules"): in a linked worktree (`git worktree add`) and in a
/// submodule, `.git` at the work tree's root is a file (`gitdir: ...`), not
/// a directory, so a plugin that joins paths under `.git/` fails there
/// ("Not a directory"), and `entire enable` with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkTree {
    /// A repository of its own: `.git` is a directory.
    #[default]
    Plain,
    /// A linked worktree: `.git` is a file naming
    /// `<main>/.git/worktrees/<name>`; the common git dir is the main one's.
    Linked,
    /// A submodule: `.git` is a file naming the superproject's
    /// `.git/modules/<name>`.
    Submodule,
}

impl WorkTree {
    /// The suffix of a case id run in this work tree (none for the plain one).
    pub fn id_suffix(self) -> &'static str {
        match self {
            WorkTree::Plain => "",
            WorkTree::Linked => ".linked-worktree",
            WorkTree::Submodule => ".submodule",
        }
    }

    /// Where the case runs, in words for titles (none for the plain one).
    pub fn title_suffix(self) -> &'static str {
        match self {
            WorkTree::Plain => "",
            WorkTree::Linked => " (in a linked worktree)",
            WorkTree::Submodule => " (in a submodule)",
        }
    }
}

/// The text that marks a hook entry: every hook a plugin installs runs
/// `entire hooks <agent> <hook-name>` (guide, "Hook Installation Patterns").
pub const HOOK_MARK: &str = "entire hooks ";
