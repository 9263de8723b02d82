//! The case model's actions: what the harness does between invocations.

use serde::Deserialize;

use super::{Evidence, Source};

/// Things the harness does between invocations, to check what no single
/// invocation shows: that a user's own files and settings survive the
/// plugin's hook installation (guide, "Hook Installation Patterns").
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Records the files under the repository and HOME under this name.
    Snapshot(String),
    /// Puts a user file into each of `info.protected_dirs` (creating it).
    PlantProtectedDirs,
    /// Puts a user file into every directory created or changed since the
    /// snapshot, and a user key into every JSON object file created or
    /// changed, skipping paths that mention `entire` (plugin-owned).
    PlantUserData {
        /// The snapshot to compare with.
        since: String,
    },
    /// Fails when a planted user file changed or went away, or a planted key
    /// is missing from a file that still exists (or from any file that
    /// existed before the plugin touched it).
    VerifyUserData,
    /// Warns about files created since the snapshot that are still there
    /// (the install's leftovers after an uninstall).
    CheckLeftovers {
        /// The snapshot taken before the install.
        since: String,
    },
    /// Fails when any file was created, changed or deleted since the
    /// snapshot (a second install-hooks must change nothing).
    CheckUnchanged {
        /// The snapshot taken after the first install.
        since: String,
    },
    /// Fails when a hook entry (`entire hooks <agent> <hook>`) that the
    /// install added is still in a file after the uninstall.
    CheckHooksRemoved {
        /// The snapshot taken before the install.
        before: String,
        /// The snapshot taken after it.
        installed: String,
    },
    /// Fails unless the agent could resume from what write-session was
    /// given: the file at the session reference holds the native data, or
    /// (for a plugin that keeps sessions elsewhere) the `read` step's
    /// read-session answer gives it back.
    ResumesFrom {
        /// The session file (a template: the session_ref written).
        file: String,
        /// The bytes write-session received as native_data.
        native_data: Source,
        /// The read-session step that stands in, by name.
        #[serde(default)]
        read: Option<String>,
    },
    /// Empties the repository and HOME, then creates every file learnt by
    /// `plant_user_data` (every file the install created or changed, but the
    /// plugin's own) holding the user's own content in its format, as a user
    /// who already had those files (see `judge::planted`).
    RestartWithLearntFiles,
    /// Fails unless the sandbox's `entire` stand-in received a call whose
    /// command line (`entire hooks foo stop`) contains `contains` (a
    /// template): what the plugin, or a hook it installed, ran of the host.
    HostCalled {
        /// The text the call must contain.
        contains: String,
    },
    /// The plugin's file name must be `entire-agent-<name>`.
    CheckFileName,
    /// `info.name` should equal the `<name>` of the file name.
    CheckInfoName,
    /// `<name>` must not be an agent built into the host, on the releases
    /// judged that build it in.
    CheckNotBuiltIn,
    /// `info.type` must not be a built-in agent's type.
    CheckInfoType,
    /// `info` must answer within the hooks' discovery deadline, measured as
    /// the host does: a fresh process each time (the gate's call and one more).
    CheckInfoTime,
    /// `caller_env_vars` the host keeps, and capability keys it acts on.
    CheckInfoDeclarations,
    /// `info.type` must be the gate's on another plain call and under the
    /// hook environment (the agent's marker and declared variables set).
    CheckInfoTypeStable,
    /// The work tree must be as it was at the snapshot: the calls between
    /// (`info`, which the host runs at discovery and in every hook) changed
    /// nothing there.
    CheckReadOnly {
        /// The snapshot taken before the calls.
        since: String,
    },
    /// Each `protected_files` and `protected_dirs` entry, read as the host
    /// reads it (relative to the repository), must be the agent's own:
    /// named for it, or created by its install (one `install-hooks` in the
    /// fresh sandbox, only when some entry is neither).
    CheckProtectedPaths,
    /// Warns when the hook entries the install added (between the
    /// snapshots) are in a file under HOME, which every repository shares,
    /// and shows it: install in a second repository, uninstall in this one,
    /// ask the second.
    CheckSharedHooks {
        /// The snapshot taken before the install.
        before: String,
        /// The snapshot taken after it.
        installed: String,
    },
    /// Runs every hook the install added (between the snapshots) as the
    /// agent would, in the sandbox, and fails unless they reach the
    /// `entire` stand-in as `entire hooks <this plugin's name> <hook>`.
    CheckHooksFire {
        /// The snapshot taken before the install.
        before: String,
        /// The snapshot taken after it.
        installed: String,
    },
    /// After a `detect` step named `detect` whose "present" was weighed
    /// (`setup_detect`): for a plugin with hooks, installs them once and
    /// lowers that finding to a note when the install writes nothing (the
    /// agent's own library fires the hooks: enabling it where it never
    /// runs costs the repository nothing). No call when nothing was found.
    WeighDetectByInstall,
    /// Judges the answers of the `for_each: /hook_names` step `step` as a
    /// whole: every hook refusing the host's own flags, or Events that can
    /// never make a checkpoint.
    CheckHookEvents {
        /// The step's name.
        step: String,
    },
    /// Judges the session ids of the Events the `for_each: /hook_names`
    /// step `step` gave for one full payload: a SessionStart or TurnStart
    /// without one, while other hooks' Events for that payload carry it
    /// (the plugin reads the id and drops it for those hooks).
    CheckEventIds {
        /// The step's name.
        step: String,
    },
    /// After a `write-session` step that was given a `session_ref` whose
    /// `..` components leave the session directory: what the call wrote
    /// where that reference points. A refusal says nothing; exit 0 with a
    /// file there (or one named after it beside it) is the escape, at the
    /// case's severity; exit 0 having written nothing there escaped
    /// nothing (the plugin writes its own file, whatever the reference
    /// says): a note.
    CheckEscape {
        /// The `write-session` step, by name.
        step: String,
        /// The escaping reference given to it (a template).
        path: String,
    },
    /// `restart_with_learnt_files`, but the case ends there, passed, when
    /// the install touched no file (hooks fired by the agent's own library:
    /// no config holds the user's hooks, nothing to check).
    RestartWithUserHooks,
    /// For every file the install wrote its hooks into (between the
    /// snapshots: JSON, TOML or YAML holding an `entire hooks` command),
    /// once per shape its format allows for the lists holding them, in a
    /// sandbox laid down anew: the file as a user has it before Entire,
    /// then install, the user's own edit, install again, uninstall (see
    /// `judge::lived`). Makes three calls a shape.
    LivedInConfig {
        /// The snapshot taken before the install.
        before: String,
        /// The snapshot taken after it.
        installed: String,
    },
    /// Asks each of the earlier analysis steps `steps` again, of a copy of
    /// the pass's transcript whose records hold long lines
    /// (`suite::lengthen`), and judges each answer against the step's own
    /// on the original (`judge::long_lines`). In a `for_each_transcript`
    /// case, after the steps it names.
    LongLines {
        /// The steps to ask again, by name.
        steps: Vec<String>,
    },
}

impl Action {
    /// Whether this is the `long_lines` action, which asks again only the
    /// steps that answered, and so still runs after another step of its
    /// pass refused the transcript.
    pub fn is_long_lines(&self) -> bool {
        matches!(self, Action::LongLines { .. })
    }

    /// What an action's checks rest on: what they read. The user data, the
    /// hooks and the files the agent resumes from are read in the files
    /// the plugin's own calls wrote or named (its own answers); the checks
    /// of `info` on the call the host makes with no input (the host's
    /// input). `check_hook_events` rests on the step it judges, which
    /// [`super::Case::rests_on`] looks up.
    pub fn rests_on(&self) -> Evidence {
        match self {
            Action::Snapshot(_)
            | Action::PlantProtectedDirs
            | Action::CheckFileName
            | Action::CheckInfoName
            | Action::CheckNotBuiltIn
            | Action::CheckInfoType
            | Action::CheckInfoTime
            | Action::CheckInfoDeclarations
            | Action::CheckInfoTypeStable
            | Action::CheckReadOnly { .. } => Evidence::HostInput,
            Action::CheckHookEvents { .. } => Evidence::Assumption,
            Action::PlantUserData { .. }
            | Action::VerifyUserData
            | Action::CheckLeftovers { .. }
            | Action::CheckUnchanged { .. }
            | Action::CheckHooksRemoved { .. }
            | Action::ResumesFrom { .. }
            | Action::RestartWithLearntFiles
            | Action::HostCalled { .. }
            | Action::CheckProtectedPaths
            | Action::CheckSharedHooks { .. }
            | Action::CheckHooksFire { .. }
            | Action::WeighDetectByInstall
            | Action::CheckEscape { .. }
            | Action::CheckEventIds { .. }
            | Action::LivedInConfig { .. }
            | Action::LongLines { .. }
            | Action::RestartWithUserHooks => Evidence::OwnAnswers,
        }
    }
}
