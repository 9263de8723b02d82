//! The host's releases as data (docs/host.md, "The host of September
//! 2026", its table "Which release brought what" and the release list under
//! it): every release users run, and every host behaviour that differs
//! across them, with the first release that has it and how sure that is.
//!
//! Nothing outside `src/host/` knows a release number: a check asks
//! the host range (`range.rs`) where a [`Fact`] holds, and names the
//! releases it is told.

/// One release of the host, or a family of releases (`0.11.x`) whose
/// patches the notes do not tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// How it is written: `0.10.3`, or `0.11.x` for a family.
    pub name: &'static str,
    /// Major, minor and patch (a family: patch 0).
    pub version: (u64, u64, u64),
    /// A family of patch releases rather than one release.
    pub family: bool,
    /// When it came out (2026), as the notes give it.
    pub date: &'static str,
}

const fn release(name: &'static str, minor: u64, patch: u64, date: &'static str) -> Release {
    Release {
        name,
        version: (0, minor, patch),
        family: false,
        date,
    }
}

const fn family(name: &'static str, minor: u64, date: &'static str) -> Release {
    Release {
        name,
        version: (0, minor, 0),
        family: true,
        date,
    }
}

/// Every release with external plugins, oldest first ("Releases: 0.5.0
/// (03-06) … 0.12.x (October), all 2026"); dates between the ones the notes
/// give are left as the month they fall in.
pub const RELEASES: &[Release] = &[
    release("0.5.0", 5, 0, "2026-03-06"),
    release("0.5.1", 5, 1, "2026-03"),
    release("0.5.2", 5, 2, "2026-03-30"),
    release("0.5.3", 5, 3, "2026-04"),
    release("0.5.4", 5, 4, "2026-04-10"),
    release("0.5.5", 5, 5, "2026-04"),
    release("0.5.6", 5, 6, "2026-04-24"),
    release("0.6.0", 6, 0, "2026-05-04"),
    release("0.6.1", 6, 1, "2026-05-07"),
    release("0.6.2", 6, 2, "2026-05"),
    release("0.6.3", 6, 3, "2026-05-27"),
    family("0.7.x", 7, "2026-06-02"),
    release("0.8.0", 8, 0, "2026-06-03"),
    release("0.8.1", 8, 1, "2026-07-07"),
    release("0.9.0", 9, 0, "2026-07-27"),
    release("0.10.0", 10, 0, "2026-08-12"),
    release("0.10.1", 10, 1, "2026-08"),
    release("0.10.2", 10, 2, "2026-08"),
    release("0.10.3", 10, 3, "2026-08-27"),
    release("0.10.4", 10, 4, "2026-08/09"),
    release("0.10.5", 10, 5, "2026-09-03"),
    family("0.11.x", 11, "2026-09/10"),
    family("0.12.x", 12, "2026-10"),
];

/// How sure the notes are of a fact's first release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confidence {
    /// Read from tagged releases.
    High,
    /// Read from dated commits between releases.
    Medium,
    /// A bound only ("after 0.10.3", "0.12.0 at the latest").
    Low,
}

impl Confidence {
    /// The word used in the table and in messages.
    pub fn label(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

/// A host behaviour that some releases have and others lack. The case files
/// name one by its id (`host_version: before cli-version-env`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    /// External plugins at all (protocol 1, `entire-agent-*` on `PATH`).
    ExternalPlugins,
    /// `vogon`, the test agent, built into every build.
    VogonBuiltIn,
    /// `codex` built in.
    CodexBuiltIn,
    /// The 5 s discovery deadline inside hooks (the git hooks first, then
    /// `entire hooks`).
    HookDiscoveryDeadline,
    /// The `compact_transcript` capability read.
    CompactTranscript,
    /// `ENTIRE_CLI_VERSION` passed to plugins (absent before).
    CliVersionEnv,
    /// The host's managed plugin directory put first on `PATH`.
    ManagedPluginDir,
    /// `parse-hook` gets the first JSON value's raw bytes only (older hosts
    /// read to EOF and forward all of stdin).
    ParseHookFirstValue,
    /// `--local-dev` never sent to `install-hooks`.
    LocalDevDropped,
    /// A failing `are-hooks-installed` read as "unknown".
    HooksInstalledUnknown,
    /// `external_agents` only from `settings.local.json`; absolute `PATH`
    /// entries and plugin paths only.
    AbsolutePaths,
    /// Session ids validated, resolved files kept inside the session
    /// directory, the write-side preflight.
    SessionPreflight,
    /// `antigravity` built in, `gemini` retired (claimable by a plugin).
    GeminiRetired,
    /// A session owned by a `type`: other types' later events dropped
    /// silently ("The newest host source", "Silent loss, since 0.6.0").
    SessionOwnerType,
    /// Every path component under the session directory checked before
    /// `write-session` (`:`, control characters, trailing dot or space,
    /// device names, symlinks): "Resume and rewind (newest variants)".
    SessionPathComponents,
    /// The stricter session ids of the newest variants: leading or trailing
    /// whitespace, control characters, a trailing dot or space, a leading
    /// `-`, device names (`CONIN$`, `CONOUT$`, `COM¹²³` included); the June
    /// host had neither the dash nor the device rule ("Session and tool
    /// ids (newest variants)").
    StrictSessionIds,
    /// One September variant refuses device names as `tool_use_id` and
    /// `subagent_id` too (a variant only: a warning at most).
    DeviceToolIds,
    /// `get-session-dir` asked before every filesystem-shaped
    /// `write-session` ("The newest host source", "Resume and rewind
    /// (newest variants)"; the release is not given: a bound only).
    SessionDirBeforeWrite,
    /// Setup discovers every plugin on `PATH` and asks its `detect`; a
    /// first non-interactive `entire enable` enables every detected agent
    /// (docs/host.md, "Setup and detect").
    SetupDetectsPlugins,
    /// `protected_files` and `protected_dirs`, relative to the repository,
    /// left out of session tracking for every agent (docs/host.md,
    /// "Protected paths").
    ProtectedPathsUntracked,
    /// The host stores a plugin's chunks: `chunk-transcript` is asked only
    /// above 50 MiB, and `read-transcript`'s 10 MiB output cap fails the
    /// `TurnEnd` hook first, so no release uses a plugin's chunks
    /// (docs/host.md, "Sessions, resume and rewind"). A release that lifts
    /// the cap becomes this fact's first release; until then it is
    /// [`UNRELEASED`] and holds on no release.
    ChunksStored,
    /// `entire attach --agent <name> <session-id>`: a session recorded for
    /// any registered agent, hooks or not, whose resume and rewind reach
    /// the plugin's session subcommands (docs/host.md, "Plugins in the
    /// wild", "`entire attach`").
    Attach,
    /// `entire enable --agent <name>` writes `external_agents` into the
    /// committed `.entire/settings.json` itself, and the git hooks do
    /// nothing until that file exists: a `.entire/settings.local.json`
    /// made before the first enable leaves them inert (observed on
    /// [`JUNE_BUILD`]; the first release is not known). The releases with
    /// [`Fact::AbsolutePaths`] read the setting from the local file only
    /// (read from source).
    EnableWritesSettings,
}

/// The first release of a fact that no release has yet.
pub const UNRELEASED: &str = "unreleased";

/// One row of "Which release brought what".
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The behaviour.
    pub fact: Fact,
    /// Its name in case files.
    pub id: &'static str,
    /// What changed, as the notes say it.
    pub what: &'static str,
    /// The earliest release that may have it.
    pub earliest: &'static str,
    /// The first release that surely has it; releases from `earliest` up
    /// to this one may or may not.
    pub certain: &'static str,
    /// How sure the notes are.
    pub confidence: Confidence,
    /// The first release as the notes give it, for messages.
    pub noted: &'static str,
    /// The host a build of which showed it (docs/verdicts.md, "What a build
    /// of the host confirmed"); `None`: read from source or the notes.
    pub observed: Option<&'static str>,
}

/// The host the fifth pass drove (`../shared/spec/host-behaviour.md`,
/// "Observed on a build of the host"): upstream main of 2026-06-26, the
/// state of the 0.7.x line, whose `entire version` reads 0.6.3-nightly.
pub const JUNE_BUILD: &str = "entire 0.6.3-nightly (June 2026 main)";

/// The table "Which release brought what" (docs/host.md, "The host of
/// September 2026"). `repo_path` on rewind is "not established: assume
/// both", so it is no row: both forms are always replayed.
pub const TABLE: &[Row] = &[
    Row {
        fact: Fact::ExternalPlugins,
        id: "external-plugins",
        what: "external plugins at all (protocol 1, entire-agent-* on PATH, opt-in setting); Event 8 ModelUpdate",
        earliest: "0.5.0",
        certain: "0.5.0",
        confidence: Confidence::High,
        noted: "0.5.0 (2026-03-06)",
        observed: None,
    },
    Row {
        fact: Fact::VogonBuiltIn,
        id: "vogon-built-in",
        what: "vogon (a test agent) built into every build",
        earliest: "0.5.0",
        certain: "0.5.0",
        confidence: Confidence::Medium,
        noted: "0.5.0 (2026-03-06)",
        observed: None,
    },
    Row {
        fact: Fact::CodexBuiltIn,
        id: "codex-built-in",
        what: "codex built in",
        earliest: "0.5.2",
        certain: "0.5.2",
        confidence: Confidence::High,
        noted: "0.5.2 (2026-03-30)",
        observed: None,
    },
    Row {
        fact: Fact::HookDiscoveryDeadline,
        id: "hook-discovery-deadline",
        what: "a 5 s discovery deadline in the git hooks (0.5.2) and in entire hooks (0.5.4)",
        earliest: "0.5.2",
        certain: "0.5.4",
        confidence: Confidence::Medium,
        noted: "0.5.2 / 0.5.4 (2026-04-10)",
        observed: None,
    },
    Row {
        fact: Fact::CompactTranscript,
        id: "compact-transcript",
        what: "the compact_transcript capability",
        earliest: "0.5.6",
        certain: "0.5.6",
        confidence: Confidence::High,
        noted: "0.5.6 (2026-04-24)",
        observed: None,
    },
    Row {
        fact: Fact::CliVersionEnv,
        id: "cli-version-env",
        what: "ENTIRE_CLI_VERSION passed to plugins (absent before)",
        earliest: "0.6.0",
        certain: "0.6.0",
        confidence: Confidence::High,
        noted: "0.6.0 (2026-05-04)",
        observed: None,
    },
    Row {
        fact: Fact::ManagedPluginDir,
        id: "managed-plugin-dir",
        what: "the host's managed plugin directory first on PATH",
        earliest: "0.6.1",
        certain: "0.6.1",
        confidence: Confidence::Medium,
        noted: "0.6.1 (2026-05-07)",
        observed: None,
    },
    Row {
        fact: Fact::ParseHookFirstValue,
        id: "parse-hook-first-value",
        what: "parse-hook input streamed, first JSON value only, no EOF wait (older hosts read to EOF and forward everything)",
        earliest: "0.9.0",
        certain: "0.9.0",
        confidence: Confidence::Medium,
        noted: "0.9.0 (2026-07-27)",
        observed: None,
    },
    Row {
        fact: Fact::LocalDevDropped,
        id: "local-dev-dropped",
        what: "--local-dev never sent to install-hooks (older hosts may send it)",
        earliest: "0.10.1",
        certain: "0.10.2",
        confidence: Confidence::Medium,
        noted: "0.10.1–0.10.2 (2026-08)",
        observed: None,
    },
    Row {
        fact: Fact::HooksInstalledUnknown,
        id: "hooks-installed-unknown",
        what: "a failing are-hooks-installed read as \"unknown\" (older: as \"not installed\")",
        earliest: "0.10.3",
        certain: "0.10.3",
        confidence: Confidence::Low,
        noted: "0.10.3 (2026-08-27)",
        observed: None,
    },
    Row {
        fact: Fact::AbsolutePaths,
        id: "absolute-paths",
        what: "external_agents honoured only from settings.local.json; only absolute PATH entries; plugin paths must be absolute",
        earliest: "0.10.4",
        certain: "0.12.x",
        confidence: Confidence::Low,
        noted: "after 0.10.3",
        observed: None,
    },
    Row {
        fact: Fact::SessionPreflight,
        id: "session-preflight",
        what: "session ids validated and resolve-session-file results kept inside the session directory; the write-side preflight",
        earliest: "0.10.4",
        certain: "0.12.x",
        confidence: Confidence::Low,
        noted: "after 0.10.3 (open work in September)",
        observed: None,
    },
    Row {
        fact: Fact::GeminiRetired,
        id: "gemini-retired",
        what: "antigravity built in, gemini retired and claimable by a plugin",
        earliest: "0.11.x",
        certain: "0.12.x",
        confidence: Confidence::Low,
        noted: "0.12.0 at the latest (October 2026)",
        observed: None,
    },
    Row {
        fact: Fact::SessionOwnerType,
        id: "session-owner-type",
        what: "a session owned by a type: other types' later events skipped silently",
        earliest: "0.6.0",
        certain: "0.6.0",
        confidence: Confidence::High,
        noted: "0.6.0 (2026-05-04)",
        observed: None,
    },
    Row {
        fact: Fact::SessionPathComponents,
        id: "session-path-components",
        what: "every path component under the session directory checked before write-session (':', control characters, trailing dot or space, device names, symlinks)",
        earliest: "0.8.1",
        certain: "0.12.x",
        confidence: Confidence::Low,
        noted: "the newest variants (September 2026 or later; stored sources end at 0.8.0)",
        observed: None,
    },
    Row {
        fact: Fact::StrictSessionIds,
        id: "strict-session-ids",
        what: "session ids also refused with leading or trailing whitespace, a control character, a trailing dot or space, a leading '-', or a Windows device name (CONIN$, CONOUT$, COM¹²³ included)",
        earliest: "0.8.1",
        certain: "0.12.x",
        confidence: Confidence::Low,
        noted: "the newest variants (the June host had neither the dash nor the device rule)",
        observed: None,
    },
    Row {
        fact: Fact::DeviceToolIds,
        id: "device-tool-ids",
        what: "device names refused as tool_use_id and subagent_id (one September variant)",
        earliest: "0.8.1",
        certain: "0.12.x",
        confidence: Confidence::Low,
        noted: "one September 2026 variant only",
        observed: None,
    },
    Row {
        fact: Fact::SessionDirBeforeWrite,
        id: "session-dir-before-write",
        what: "get-session-dir asked before every filesystem-shaped write-session",
        earliest: "0.10.4",
        certain: "0.12.x",
        confidence: Confidence::Low,
        noted: "the newest variants (source read December 2026)",
        observed: None,
    },
    Row {
        fact: Fact::SetupDetectsPlugins,
        id: "setup-detects-plugins",
        what: "setup discovers every plugin on PATH and asks detect; a non-interactive first entire enable enables every detected agent",
        earliest: "0.5.1",
        certain: "0.5.1",
        confidence: Confidence::Medium,
        noted: "0.5.1 (2026-03)",
        observed: None,
    },
    Row {
        fact: Fact::ProtectedPathsUntracked,
        id: "protected-paths-untracked",
        what: "protected_files and protected_dirs, read relative to the repository root, left out of session tracking for every agent",
        earliest: "0.5.6",
        certain: "0.5.6",
        confidence: Confidence::Medium,
        noted: "0.5.6 (2026-04-24)",
        observed: None,
    },
    Row {
        fact: Fact::Attach,
        id: "attach",
        what: "entire attach records a session for any registered agent, hooks or not; resume and rewind of it reach the plugin's session subcommands",
        earliest: "0.5.6",
        certain: "0.5.6",
        confidence: Confidence::High,
        noted: "0.5.6 (2026-04-24)",
        observed: None,
    },
    Row {
        fact: Fact::ChunksStored,
        id: "chunks-stored",
        what: "a plugin's chunks stored: read-transcript's 10 MiB cap no longer comes before chunking (above 50 MiB)",
        earliest: UNRELEASED,
        certain: UNRELEASED,
        confidence: Confidence::High,
        noted: "no release yet (read-transcript's 10 MiB cap comes first on every release)",
        observed: None,
    },
    Row {
        fact: Fact::EnableWritesSettings,
        id: "enable-writes-settings",
        what: "entire enable --agent writes external_agents into settings.json; a settings.local.json made before the first enable makes the git hooks inert",
        earliest: "0.5.0",
        certain: "0.7.x",
        confidence: Confidence::Low,
        noted: "observed on entire 0.6.3-nightly (June 2026 main, the 0.7.x line); its first release is not known",
        observed: Some(JUNE_BUILD),
    },
];

impl Fact {
    /// Its row of [`TABLE`].
    pub fn row(self) -> &'static Row {
        TABLE
            .iter()
            .find(|row| row.fact == self)
            .unwrap_or(&TABLE[0])
    }

    /// The fact a case file names.
    pub fn from_id(id: &str) -> Option<Fact> {
        TABLE.iter().find(|row| row.id == id).map(|row| row.fact)
    }
}

/// The place of a release in [`RELEASES`].
pub fn index(name: &str) -> Option<usize> {
    RELEASES.iter().position(|r| r.name == name)
}

/// Whether a release has a fact: `Some(true)` surely, `Some(false)` surely
/// not, `None` when the notes do not know (between its earliest and its
/// certain first release).
pub fn has(release: &Release, fact: Fact) -> Option<bool> {
    let row = fact.row();
    if row.earliest == UNRELEASED {
        return Some(false);
    }
    let here = index(release.name).unwrap_or(0);
    let earliest = index(row.earliest).unwrap_or(0);
    let certain = index(row.certain).unwrap_or(0);
    if here >= certain {
        Some(true)
    } else if here < earliest {
        Some(false)
    } else {
        None
    }
}

/// An agent built into the host, and the releases that build it in.
#[derive(Debug, Clone, Copy)]
pub struct BuiltIn {
    /// Its name: a plugin named so is never run where it is built in.
    pub name: &'static str,
    /// Its `info.type`, which session state and trailers store; `None`
    /// where the notes do not give it (antigravity's).
    pub agent_type: Option<&'static str>,
    /// Built in from the release that brings this fact (none: always).
    pub from: Option<Fact>,
    /// Built in until the release that brings this fact (none: still).
    pub until: Option<Fact>,
}

const fn always(name: &'static str, agent_type: &'static str) -> BuiltIn {
    BuiltIn {
        name,
        agent_type: Some(agent_type),
        from: None,
        until: None,
    }
}

/// Every agent some release builds in ("Discovery and registration", and
/// "The host of September 2026", "Built-in names" and "The host finds an
/// agent by its type too").
pub const BUILT_IN: &[BuiltIn] = &[
    always("claude-code", "Claude Code"),
    always("cursor", "Cursor"),
    always("opencode", "OpenCode"),
    always("factoryai-droid", "Factory AI Droid"),
    always("copilot-cli", "Copilot CLI"),
    always("pi", "Pi"),
    BuiltIn {
        name: "vogon",
        agent_type: Some("Vogon Agent"),
        from: Some(Fact::VogonBuiltIn),
        until: None,
    },
    BuiltIn {
        name: "codex",
        agent_type: Some("Codex"),
        from: Some(Fact::CodexBuiltIn),
        until: None,
    },
    BuiltIn {
        name: "gemini",
        agent_type: Some("Gemini CLI"),
        from: None,
        until: Some(Fact::GeminiRetired),
    },
    BuiltIn {
        name: "antigravity",
        agent_type: None,
        from: Some(Fact::GeminiRetired),
        until: None,
    },
];

impl BuiltIn {
    /// Whether a release builds this agent in (`None`: not known).
    pub fn on(&self, release: &Release) -> Option<bool> {
        let from = self.from.map_or(Some(true), |f| has(release, f));
        let until = self.until.map_or(Some(false), |f| has(release, f));
        match (from, until) {
            (Some(false), _) | (_, Some(true)) => Some(false),
            (Some(true), Some(false)) => Some(true),
            _ => None,
        }
    }
}

/// The built-in agent of this name, if any release has one.
pub fn built_in(name: &str) -> Option<&'static BuiltIn> {
    BUILT_IN.iter().find(|b| b.name == name)
}

/// The built-in agents whose `info.type` is this one.
pub fn built_in_of_type(agent_type: &str) -> Option<&'static BuiltIn> {
    BUILT_IN.iter().find(|b| b.agent_type == Some(agent_type))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_known_releases_in_order() {
        for row in TABLE.iter().filter(|row| row.earliest != UNRELEASED) {
            let (earliest, certain) = (index(row.earliest), index(row.certain));
            assert!(earliest.is_some() && certain.is_some(), "{}", row.id);
            assert!(earliest <= certain, "{}", row.id);
            assert_eq!(Fact::from_id(row.id), Some(row.fact));
        }
        assert!(RELEASES.windows(2).all(|w| w[0].version < w[1].version));
    }

    #[test]
    fn no_release_stores_a_plugins_chunks_yet() {
        for release in RELEASES {
            assert_eq!(has(release, Fact::ChunksStored), Some(false));
        }
        assert_eq!(Fact::from_id("chunks-stored"), Some(Fact::ChunksStored));
    }

    #[test]
    fn an_observed_fact_names_its_host() {
        let row = Fact::EnableWritesSettings.row();
        assert_eq!(row.observed, Some(JUNE_BUILD));
        assert_eq!(
            has(&RELEASES[index("0.7.x").unwrap()], row.fact),
            Some(true)
        );
        assert_eq!(has(&RELEASES[0], row.fact), None);
        assert!(TABLE.iter().filter(|r| r.observed.is_some()).count() >= 1);
    }

    #[test]
    fn gemini_is_built_in_until_its_retirement() {
        let gemini = built_in("gemini").unwrap();
        let at = |name| gemini.on(&RELEASES[index(name).unwrap()]);
        assert_eq!(at("0.5.0"), Some(true));
        assert_eq!(at("0.10.5"), Some(true));
        assert_eq!(at("0.11.x"), None);
        assert_eq!(at("0.12.x"), Some(false));
        let codex = built_in("codex").unwrap();
        assert_eq!(codex.on(&RELEASES[0]), Some(false));
        assert_eq!(codex.on(&RELEASES[2]), Some(true));
    }
}
