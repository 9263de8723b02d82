//! What `agent-conform discover` found, as data: every `entire-agent-*` on
//! `PATH` with its [`Registration`] (what the host does with it), the
//! conflicts between the registered ones, and what the current
//! repository's settings mean for discovery. The judge writes it (its
//! `registration` module), the reporter renders it (its `discover` module):
//! named here without links, since a layer names none above it.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::outcome::many::Conflict;

/// What the host does with one `PATH` entry. Not a verdict (a run's pass
/// or fail): a plugin is neither passed nor failed by being found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Registration {
    /// Registered under its file name.
    Registered,
    /// Registered under its file name; `info.name` says otherwise.
    NameDiffers,
    /// An earlier `PATH` entry of the same name wins; never run.
    Shadowed,
    /// No execute bit (or unreadable): the host cannot run it.
    NotExecutable,
    /// A directory.
    Directory,
    /// The name of an agent built into the host; never run.
    BuiltIn,
    /// `entire-agent-` with nothing after it: no agent name.
    NoName,
    /// `info` failed: did not start, exited non-zero, or printed no usable JSON.
    InfoFailed,
    /// `info` did not answer within the deadline.
    InfoTimedOut,
    /// `info` declared another protocol version.
    ProtocolVersion,
    /// Found only through a relative `PATH` entry, which the host skips; never run.
    RelativePath,
}

/// One `PATH` entry and what the host does with it.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    /// The agent name (from the file name; empty when there is none).
    pub name: String,
    /// The full path.
    pub path: PathBuf,
    /// What the host does with it. Serialized as `verdict`, the key the
    /// JSON report has always had.
    #[serde(rename = "verdict")]
    pub registration: Registration,
    /// Whether the host registers it.
    pub registered: bool,
    /// Why, in a sentence.
    pub reason: String,
    /// The `info` output, when the file was probed and printed JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<Value>,
    /// Whether the newest host lists it under "broken external agents"
    /// (found, but not loadable), with [`Found::reason`] as the reason.
    pub broken: bool,
    /// What differs on some releases of the range judged (a name built in
    /// on some only, the managed plugin directory on PATH from 0.6.1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub caveats: Vec<String>,
}

/// What the current repository's settings mean for discovery.
#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    /// The root of the git work tree holding the current directory; `None`
    /// outside one.
    pub repository: Option<PathBuf>,
    /// The settings file that grants discovery on the releases judged
    /// (`<root>/.entire/settings.local.json`, or `.entire/settings.json` where
    /// every release judged reads it).
    pub file: Option<PathBuf>,
    /// Whether that file sets `external_agents` to `true`.
    pub external_agents: bool,
    /// One sentence for the user: the fix when discovery is off.
    pub message: String,
}

/// Everything `discover` found, for a reporter.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// Every `entire-agent-*` entry, in `PATH` order.
    pub found: Vec<Found>,
    /// The conflicts between the registered plugins installed together.
    pub conflicts: Vec<Conflict>,
    /// What the current repository's settings mean for discovery.
    pub settings: Settings,
    /// How many directories the user's `PATH` holds: the human report says
    /// how many were searched when nothing was found.
    pub path_dirs: usize,
}
