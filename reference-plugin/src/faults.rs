//! The fault switch: a testing aid, not part of the protocol.
//!
//! A conformance harness must prove that it *catches* broken plugins, not only that
//! it passes a good one. Setting `ENTIRE_AGENT_REFERENCE_FAULT=<name>` makes this
//! plugin misbehave in exactly one way, at one place, while everything else stays
//! correct, so a test can assert that the harness reports that one failure.
//!
//! Unset or empty means correct behaviour. An unknown name is a usage error (exit 2)
//! for every subcommand, so a typo in a test is loud instead of silently testing the
//! correct plugin. `entire-agent-reference --list-faults` prints every name.
//!
//! Plugin authors copying this code should delete this module and every
//! `ctx.fault(...)` check: none of them is needed by a real plugin.

use crate::error::{Error, Result};

/// The environment variable that selects a fault.
pub const ENV_VAR: &str = "ENTIRE_AGENT_REFERENCE_FAULT";

/// Declares the [`Fault`] enum together with the name of each variant, so the
/// list of names can never drift from the enum.
macro_rules! faults {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, )*) => {
        /// One deliberate misbehaviour. Each variant documents what breaks.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Fault {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Fault {
            /// Every fault, in documentation order.
            pub const ALL: &'static [Fault] = &[$(Fault::$variant,)*];

            /// The name used in `ENTIRE_AGENT_REFERENCE_FAULT`.
            pub fn name(self) -> &'static str {
                match self {
                    $( Fault::$variant => $name, )*
                }
            }
        }
    };
}

faults! {
    // --- sandbox ---
    /// `write-session` also writes a file one level above the repository
    /// (`../escaped-by-reference`), outside anything the plugin owns.
    WriteOutside = "write-outside",

    // --- path safety ---
    /// `read-transcript` follows a session reference with a `..` component.
    SessionRefUnchecked = "session-ref-unchecked",
    // --- info ---
    /// `info` reports `protocol_version` 2, which the host refuses to register.
    InfoProtocol2 = "info-protocol-2",
    /// `info` writes `protocol_version` as `1.0`; Go's decoder rejects a float for an int.
    InfoProtocolFloat = "info-protocol-float",
    /// `info` reports an empty `name`.
    InfoEmptyName = "info-empty-name",
    /// `info` omits the `description` field.
    InfoMissingDescription = "info-missing-description",
    /// `info` prints valid JSON followed by `\n{}`: two JSON values, which the host rejects.
    InfoTrailingGarbage = "info-trailing-garbage",
    /// `info` declares the hooks capability but lists no hook names.
    InfoHooksNoNames = "info-hooks-no-names",
    /// `info` fails: exit 1 with "info crashed" on stderr.
    InfoCrash = "info-crash",
    /// `info` sleeps 15 s before answering, past the host's 10 s discovery limit.
    InfoSlow = "info-slow",
    /// `info` sleeps 5.5 s: within discovery's 10 s, past the 5 s every hook
    /// gives discovery (every hook fails: unknown agent).
    InfoPastHookDeadline = "info-past-hook-deadline",
    /// `info` reports the type "Claude Code", a built-in agent's: resume and
    /// rewind may pick either agent.
    InfoBuiltInType = "info-built-in-type",
    /// `info` fails without `ENTIRE_REPO_ROOT`, which listing commands run
    /// outside a repository do not set.
    InfoNeedsRepoRoot = "info-needs-repo-root",
    /// `info` declares `caller_env_vars: ["_REFERENCE_AGENT"]`, a name the host
    /// drops.
    InfoBadCallerEnvVar = "info-bad-caller-env-var",
    /// `detect` fails without `ENTIRE_CLI_VERSION`, which hosts before 0.6.0
    /// do not set.
    DetectNeedsCliVersion = "detect-needs-cli-version",
    /// `parse-hook` fails on a payload followed by a newline, as hosts before
    /// 0.9.0 forward it.
    ParseHookRejectsTrailingNewline = "parse-hook-rejects-trailing-newline",
    /// `info` reports the name "other-agent", not the one in the binary's file name.
    InfoNameMismatch = "info-name-mismatch",
    /// `info` adds `"x_generated_at"`, the current time with nanoseconds, so two
    /// calls never give the same answer.
    InfoUnstable = "info-unstable",

    /// `info` names `config.toml` in `protected_files`, a file the agent keeps
    /// under HOME: the host reads it relative to the repository and hides the
    /// project's own `config.toml` from every agent's checkpoints.
    InfoProtectsProjectFile = "info-protects-project-file",

    // --- detect ---
    /// `detect` answers `{"present":"yes"}`: a string where a bool belongs.
    DetectStringBool = "detect-string-bool",
    /// `detect` sleeps an hour: the host must kill it at its deadline.
    DetectHang = "detect-hang",
    /// `detect` writes 11 MiB of `x` to stdout, over the host's 10 MiB limit.
    DetectFlood = "detect-flood",
    /// `detect` says present everywhere, where the agent has never run: setup
    /// enables it in every repository (without hooks: the enable aborts).
    DetectAlwaysPresent = "detect-always-present",
    /// `detect` says absent everywhere, where the agent is installed too:
    /// setup never offers it, and its hooks stay uninstalled.
    DetectNeverPresent = "detect-never-present",

    // --- session ---
    /// `get-session-id` answers `"wrong-" + id`.
    SessionIdWrong = "session-id-wrong",
    /// `get-session-dir` answers an empty directory.
    SessionDirEmpty = "session-dir-empty",
    /// `get-session-dir` answers the relative directory `.reference/sessions`.
    SessionDirRelative = "session-dir-relative",
    /// `get-session-dir` answers the work tree's root: the host's owner lookup
    /// then gives this plugin every transcript under the repository, and the
    /// events of the agents staged there (OpenCode, the template's plugins) are
    /// skipped.
    SessionDirRepoRoot = "session-dir-repo-root",
    /// `get-session-dir` answers `<repo>/.entire/tmp`, the official template's
    /// shared staging directory: fine alone, but beside another plugin of the
    /// template the one that sorts later loses every event.
    SessionDirEntireTmp = "session-dir-entire-tmp",
    /// `resolve-session-file` answers `D/restored/ID.jsonl`: inside the session
    /// directory, so the host accepts it, but the agent keeps and resumes the
    /// session at `D/ID.jsonl` (the session_ref of its own Events), so
    /// `entire resume` restores a file the agent never reads.
    ResolveElsewhere = "resolve-elsewhere",
    /// `resolve-session-file` answers `D/ID.json`, while the agent keeps the
    /// session at `D/ID.jsonl` (what `parse-hook` names for a payload without a
    /// transcript path): resume restores a file the agent never opens.
    ResolveFileName = "resolve-file-name",
    /// `parse-hook`, for a payload that names no transcript, names
    /// `$HOME/.reference/transcripts/ID.jsonl`: the agent keeps its transcripts
    /// there, outside the session directory where resume restores them.
    TranscriptsElsewhere = "transcripts-elsewhere",
    /// `resolve-session-file` ignores the id and answers `D/session.jsonl`.
    ResolveDropsId = "resolve-drops-id",
    /// `resolve-session-file` names the file after the first 12 characters of the
    /// session id only. Two sessions whose ids share those 12 characters resolve to
    /// one file: restoring both (resume, rewind) writes the first, then replaces it
    /// with the second, and the user's earlier session is silently lost.
    ResolveTruncatesId = "resolve-truncates-id",
    /// `resolve-session-file` joins the raw id, so `../x` escapes the session dir.
    ResolveTraversal = "resolve-traversal",
    /// `write-session` exits 1 with nothing on stderr and writes nothing.
    WriteSessionSilentFailure = "write-session-silent-failure",
    /// `write-session` refuses every call with a clean message (restoring is
    /// not implemented): whatever the id, its own included, resume and
    /// rewind fail.
    WriteSessionRefusesAll = "write-session-refuses-all",
    /// An attach-only plugin whose restores fail: `info` declares no hooks
    /// (no hook names), and `write-session` refuses every call. The host
    /// records its sessions through `entire attach` (0.5.6 on), so `entire
    /// resume` and `entire rewind` of everything it attaches fail.
    AttachOnlyRefusesRestore = "attach-only-refuses-restore",
    /// `write-session` refuses (exit 1) a `start_time` of `"0001-01-01T00:00:00Z"`,
    /// Go's zero time, which the host sends on every resume and rewind: both fail.
    WriteSessionRejectsZeroTime = "write-session-rejects-zero-time",
    /// `write-session` refuses (exit 1) `null` `modified_files`, `new_files` or
    /// `deleted_files`, which is what the host sends: resume and rewind fail.
    WriteSessionRejectsNullFiles = "write-session-rejects-null-files",
    /// `write-session` refuses (exit 1) an empty `repo_path`, which the host sends
    /// on rewind's restore paths: `entire rewind` fails to restore the session.
    WriteSessionRejectsEmptyRepo = "write-session-rejects-empty-repo",
    /// `write-session` follows a `session_ref` whose `..` components leave its
    /// session directory and writes the transcript there: a host that does not
    /// preflight the reference (older hosts) lets a restore write anywhere the
    /// user can write, overwriting a file outside the agent's sessions.
    WriteSessionFollowsDotdot = "write-session-follows-dotdot",
    /// `read-session` flips the lowest bit of the last byte of `native_data`.
    ReadSessionCorruptNative = "read-session-corrupt-native",
    /// `read-session` encodes `native_data` in the URL-safe base64 alphabet.
    ReadSessionUrlsafe = "read-session-urlsafe",
    /// `read-session` encodes `native_data` without `=` padding.
    ReadSessionUnpadded = "read-session-unpadded",
    /// `read-session` answers `"modified_files": null`.
    ReadSessionNullFiles = "read-session-null-files",
    /// `read-session` answers the non-RFC-3339 `start_time` "13/01/2026 12:00".
    ReadSessionBadStartTime = "read-session-bad-start-time",
    /// `read-session` answers the display type "Reference Agent" as `agent_name`.
    ReadSessionWrongAgentName = "read-session-wrong-agent-name",
    /// `read-session` answers an empty `repo_path`.
    ReadSessionDropsRepoPath = "read-session-drops-repo-path",

    // --- transcript storage ---
    /// `read-transcript` appends a `\n` to the file's bytes.
    ReadTranscriptAddsNewline = "read-transcript-adds-newline",
    /// `chunk-transcript` returns the whole input as one chunk, whatever `--max-size`.
    ChunkIgnoresMaxSize = "chunk-ignores-max-size",
    /// `chunk-transcript` encodes chunks in the URL-safe base64 alphabet.
    ChunkUrlsafe = "chunk-urlsafe",
    /// `chunk-transcript` encodes chunks without `=` padding.
    ChunkUnpadded = "chunk-unpadded",
    /// `chunk-transcript` drops one final `\n` of the input, so the round trip loses it.
    ChunkDropsTrailingNewline = "chunk-drops-trailing-newline",
    /// `chunk-transcript` accepts `--max-size 0` (as "unlimited").
    ChunkAcceptsZero = "chunk-accepts-zero",
    /// `chunk-transcript` accepts a negative `--max-size` (as "unlimited").
    ChunkAcceptsNegative = "chunk-accepts-negative",
    /// `chunk-transcript` accepts a non-numeric `--max-size` (as "unlimited").
    ChunkAcceptsGarbageSize = "chunk-accepts-garbage-size",
    /// `chunk-transcript` answers `{"chunks":null}` for empty input.
    ChunksNull = "chunks-null",
    /// `reassemble-transcript` joins the chunks with nothing instead of `\n`.
    ReassembleNoSeparator = "reassemble-no-separator",
    /// `reassemble-transcript` appends a `\n` to its output.
    ReassembleTrailingNewline = "reassemble-trailing-newline",
    /// `reassemble-transcript` fails on an empty chunks array.
    ReassembleEmptyError = "reassemble-empty-error",
    /// `reassemble-transcript` skips chunks that are not valid base64 and exits 0.
    ReassembleLenientBase64 = "reassemble-lenient-base64",
    /// `reassemble-transcript` treats a missing or non-array `chunks` as empty.
    ReassembleMissingChunksOk = "reassemble-missing-chunks-ok",
    /// `reassemble-transcript` re-encodes every JSONL line that is valid JSON
    /// compactly through serde_json: same JSON values, different bytes when the
    /// line had spaces (or keys out of order).
    ChunkJsonReencode = "chunk-json-reencode",
    /// `format-resume-command` answers an empty command.
    ResumeEmpty = "resume-empty",

    // --- command line and errors ---
    /// An unknown subcommand prints `{}` and exits 0 instead of failing.
    UnknownSubcommandOk = "unknown-subcommand-ok",
    /// No subcommand prints the usage on stdout and exits 0 instead of failing.
    NoSubcommandOk = "no-subcommand-ok",
    /// Every error exits 1 with nothing on stderr.
    SilentErrors = "silent-errors",
    /// Invalid JSON on the stdin of get-session-id, read-session and write-session is
    /// taken as `{}`; get-session-id then answers `{"session_id":"unknown"}`.
    InvalidJsonOk = "invalid-json-ok",
    /// A missing required value flag (of any subcommand) is taken as the empty
    /// string and the handler carries on; some handlers then guess a default, so
    /// that each of these exits 0: `get-session-dir` uses `ENTIRE_REPO_ROOT`,
    /// `resolve-session-file` answers `<dir>/session.jsonl`, `read-transcript`
    /// reads `$ENTIRE_REPO_ROOT/.reference/transcript.jsonl` (printing nothing if
    /// it does not exist), `chunk-transcript` uses a 50 MiB maximum.
    MissingFlagOk = "missing-flag-ok",
    /// Invalid JSON on stdin makes the plugin panic (Rust's message, exit 101).
    PanicOnInvalidJson = "panic-on-invalid-json",
    /// Every subcommand that reads stdin sleeps an hour, after reading it, when
    /// stdin holds more than 1 MiB.
    LargeStdinHang = "large-stdin-hang",

    // --- hooks ---
    /// `install-hooks` appends every Entire hook again on each run and reports them all.
    InstallNotIdempotent = "install-not-idempotent",
    /// `install-hooks` writes only a marker file with the time of the install
    /// (`.reference/installed`) and reports every hook installed: nothing the
    /// agent runs calls `entire hooks`, so nothing is ever recorded.
    InstallMarkerOnly = "install-marker-only",
    /// `install-hooks` writes only a marker of its own
    /// (`.reference/hooks-marker.json`), whose entries run `entire hooks
    /// claude-code <hook>`: another agent's name, so every event goes to
    /// that agent and none to this plugin.
    InstallMarkerOtherAgent = "install-marker-other-agent",
    /// `install-hooks` keeps every key of the user's settings but empties
    /// each list it adds its hook to first: the user's own hooks for those
    /// events are dropped from their lists.
    InstallDropsUserHooks = "install-drops-user-hooks",
    /// `install-hooks` reports 0 hooks installed even on the first install.
    InstallReportsZero = "install-reports-zero",
    /// `install-hooks` writes a fresh settings file, dropping the user's keys and hooks.
    InstallClobbersSettings = "install-clobbers-settings",
    /// `install-hooks` also writes `.git/hooks/pre-commit` (a script running
    /// `entire hooks reference pre-commit`) over whatever the user had there,
    /// and `uninstall-hooks` deletes it: the user's own git hook is gone for good.
    InstallOverwritesGitHook = "install-overwrites-git-hook",
    /// `install-hooks` writes each hook command as `cd <repository> && entire
    /// hooks reference <hook>`, the path unquoted: in a repository whose path
    /// holds a space the agent's shell splits it, `cd` fails and no hook
    /// reaches Entire.
    HookUnquotedPath = "hook-unquoted-path",
    /// `install-hooks` rejects `--local-dev`.
    InstallRejectsLocalDev = "install-rejects-local-dev",
    /// `install-hooks` rejects `--force`.
    InstallRejectsForce = "install-rejects-force",
    /// `uninstall-hooks` fails without `ENTIRE_CLI_VERSION`, which hosts
    /// before 0.6.0 and the manual uninstall command do not set.
    UninstallNeedsCliVersion = "uninstall-needs-cli-version",
    /// `install-hooks`, once its settings are written, writes a marker at
    /// `<repository>/.git/entire-reference-hooks`, as if `.git` were always a
    /// directory: in a linked worktree or a submodule (`.git` is a file) it
    /// fails "Not a directory" with the hooks already written, so
    /// `are-hooks-installed` then answers true.
    InstallGitDirNaive = "install-git-dir-naive",
    /// `install-hooks` also turns the hooks on in the agent's own TOML
    /// config, `.reference/config.toml` (`[entire] hooks = true`), which the
    /// user edits by hand and commits, by reading the file into a map and
    /// writing it back (`uninstall-hooks` takes the key out the same way):
    /// every value kept, the user's comments, blank lines, key order and
    /// spellings (`0o755`, `1e3`, inline tables, dotted keys) lost.
    InstallRemarshalsConfig = "install-remarshals-config",
    /// `uninstall-hooks` does nothing and exits 0.
    UninstallNoop = "uninstall-noop",
    /// `uninstall-hooks` removes the whole `.reference/` directory, user files included.
    UninstallDeletesDir = "uninstall-deletes-dir",
    /// `uninstall-hooks` leaves behind the empty `{}` settings file it created.
    UninstallLeavesFile = "uninstall-leaves-file",
    /// `uninstall-hooks` exits 1 with "no hooks installed" when there is no
    /// settings file, instead of succeeding with nothing to do.
    UninstallFailsWhenNotInstalled = "uninstall-fails-when-not-installed",
    /// `are-hooks-installed` always answers `{"installed":true}`.
    AreInstalledAlwaysTrue = "are-installed-always-true",
    /// `are-hooks-installed` answers the string `"true"`/`"false"` instead of a bool.
    AreInstalledString = "are-installed-string",
    /// `parse-hook --hook stop` answers type 2 (TurnStart) instead of 3 (TurnEnd).
    ParseHookWrongType = "parse-hook-wrong-type",
    /// `parse-hook --hook session-start` answers type 0, which is no event type.
    ParseHookTypeZero = "parse-hook-type-zero",
    /// `parse-hook` events omit `session_id`.
    ParseHookNoSessionId = "parse-hook-no-session-id",
    /// `parse-hook` events carry the timestamp "now", which is not RFC 3339.
    ParseHookBadTimestamp = "parse-hook-bad-timestamp",
    /// `parse-hook` events carry the local time as Go's layout
    /// `2006-01-02T15:04:05Z0700` prints it: `Z` in UTC, but `+0530` in
    /// India, an offset without its colon that RFC 3339 (and the host)
    /// refuses: off UTC every hook fails.
    TimestampNoColon = "timestamp-no-colon",
    /// `parse-hook` events carry the local time with its offset always
    /// after a `+` (`+05:30` east of UTC, but `+-3:30` west of it), which
    /// RFC 3339 (and the host) refuses: every hook fails west of UTC only
    /// (the clock axis's `newfoundland`, worlds/axes.yaml).
    TimestampPlusSign = "timestamp-plus-sign",
    /// `parse-hook` derives the Event's `session_ref` from the payload's
    /// `cwd` (the session directory of that folder) instead of its
    /// transcript path: right while the agent runs at the repository's
    /// root, a file that does not exist once it runs in a subdirectory
    /// (the place axis's `subdir`), where every TurnEnd fails.
    SessionRefFromCwd = "session-ref-from-cwd",
    /// `get-session-dir` reads `XDG_DATA_HOME` without a fallback and panics
    /// where the user's shell leaves it unset (macOS, ssh, cron: the env
    /// axis's `xdg-unset`): the session store breaks there.
    SessionDirNeedsXdg = "session-dir-needs-xdg",
    /// `install-hooks` finds its own entries by lines ending in `\n` alone:
    /// in a settings file with CRLF line ends (a Windows editor, git's
    /// autocrlf: the files axis's `crlf`) it finds none, and a second
    /// install adds every hook again.
    InstallLfOnly = "install-lf-only",
    /// `parse-hook --hook stop` without a transcript path answers an event without
    /// `session_ref` instead of `null`.
    ParseHookTurnendNoRef = "parse-hook-turnend-no-ref",
    /// `parse-hook` pre-task/post-task events omit `tool_use_id`.
    ParseHookSubagentNoToolUseId = "parse-hook-subagent-no-tool-use-id",
    /// `parse-hook` with empty stdin prints `not json` and exits 0.
    ParseHookEmptyOk = "parse-hook-empty-ok",
    /// `parse-hook` with an unknown hook name exits 1 with nothing on stderr.
    ParseHookUnknownErrorSilent = "parse-hook-unknown-error-silent",
    /// `parse-hook` with the payload `{}` (an object without any field) answers a
    /// bare event of the hook's type with `"session_id": ""` instead of `null`.
    ParseHookEmptyObjectEvent = "parse-hook-empty-object-event",
    /// `parse-hook` with a payload without a session id uses the id "unknown"
    /// instead of answering `null` (the other required fields are still checked).
    ParseHookUnknownSession = "parse-hook-unknown-session",
    /// `parse-hook --hook stop` (TurnEnd) carries as `session_ref` the directory
    /// that holds the transcript, not the transcript file. The host's existence
    /// check passes, then `read-transcript` fails on the directory: the TurnEnd
    /// hook fails and no checkpoint is ever written.
    TurnendRefSessionDir = "turnend-ref-session-dir",
    /// After `parse-hook` has answered one TurnEnd (`stop`) in this `$HOME` (a
    /// state file under `$HOME` remembers it), every later event's `session_id`
    /// gets the suffix `-2`. The host takes the next turn for a new session:
    /// the session is split in two, and the resume command names an id the
    /// agent does not know. Before the first TurnEnd every id is right.
    SessionIdChangesAfterTurnEnd = "session-id-changes-after-turn-end",

    /// `parse-hook` reads its payload with a 100 ms deadline, as plugins in
    /// the wild do, and when what arrived by then is no JSON, invents a
    /// session id (`reference-<pid>`) for the hook's Event: on a loaded
    /// machine, where the payload arrives later, the session is split.
    StdinDeadline = "stdin-deadline",

    // --- transcript analysis ---
    /// `get-transcript-position` answers the position as a string.
    PositionString = "position-string",
    /// `get-transcript-position` answers -1.
    PositionNegative = "position-negative",
    /// `get-transcript-position` writes the position with a fraction (`8.0`),
    /// which Go's decoder rejects for an int.
    PositionFloat = "position-float",
    /// Positions and offsets in bytes, as the protocol text's "byte position"
    /// has it: `get-transcript-position` and `current_position` answer the
    /// file's size, and `--offset N` skips N bytes (to the next line start).
    /// Consistent with itself, so a single turn looks right; the host counts
    /// lines: after a commit `entire explain --generate` finds nothing in the
    /// checkpoint's line slice, and later turns' files and tokens cover the
    /// whole session.
    PositionInBytes = "position-in-bytes",
    /// `extract-modified-files` ignores `--offset` and reads the whole transcript.
    ModifiedFilesIgnoreOffset = "modified-files-ignore-offset",
    /// `--offset` read as a byte offset (to the next line start), while
    /// positions stay line counts: the host passes line counts, so from a
    /// later turn's offset the plugin starts inside the first records and
    /// files, prompts and tokens of earlier turns come back.
    OffsetInBytes = "offset-in-bytes",
    /// The transcript analysis (`get-transcript-position`,
    /// `extract-modified-files`, `extract-prompts`, `calculate-tokens`) reads
    /// lines as Go's `bufio.Scanner` with its default 64 KiB limit and its
    /// error unchecked: it stops silently before the first line of 64 KiB or
    /// more (a tool's long output kept inline), and answers from the lines
    /// before it: the position falls short, the files, prompts and tokens
    /// after it are lost.
    TranscriptScanner64k = "transcript-scanner-64k",
    /// `extract-modified-files` answers `"files": null`.
    ModifiedFilesNull = "modified-files-null",
    /// `extract-modified-files` always answers `current_position` 0.
    PositionWrongCurrent = "position-wrong-current",
    /// `extract-prompts` ignores `--offset` and reads the whole transcript.
    PromptsIgnoreOffset = "prompts-ignore-offset",
    /// A session hand-over fault: `extract-modified-files`,
    /// `extract-all-modified-files` and `extract-prompts` ignore `--offset`
    /// (read from 0) when the transcript has grown since the last
    /// `get-transcript-position` on it (`get-transcript-position` remembers each
    /// path's size in a state file under `$HOME`). With no earlier position
    /// call, or an unchanged file, the offset is honoured, so a single call on a
    /// fixed transcript looks right. In a real session the host takes the
    /// position at TurnStart and extracts at TurnEnd after the transcript grew:
    /// turn 2's checkpoint gets turn 1's files and prompts again.
    AnalysisOffsetIgnoredWhenGrown = "analysis-offset-ignored-when-grown",
    /// `extract-summary` writes `has_summary` as a string.
    SummaryStringBool = "summary-string-bool",
    /// `extract-summary` answers `has_summary` true, with an empty summary,
    /// for a transcript without a summary.
    SummaryClaimedWithoutSummary = "summary-claimed-without-summary",
    /// `calculate-tokens` writes `input_tokens` as float text (`1500.0`).
    TokensFloat = "tokens-float",
    /// `calculate-tokens` ignores `--offset` and counts the whole transcript.
    TokensIgnoreOffset = "tokens-ignore-offset",
    /// `calculate-tokens` omits `output_tokens`, a required field.
    TokensMissingOutput = "tokens-missing-output",
    /// `calculate-tokens` is missing while `info` declares `token_calculator`:
    /// the call answers exactly as an unknown subcommand does (exit 2, the
    /// same usage error). The host logs it and every checkpoint is saved
    /// without token counts.
    TokensMissing = "tokens-missing",
    /// `generate-text` prints the bare text instead of `{"text": ...}`.
    GenerateTextPlain = "generate-text-plain",
    /// `generate-text` answers `{"text": ""}` with exit 0: `entire explain
    /// --generate` fails ("Failed to generate summary"), the post-commit
    /// auto-summary saves checkpoints without a summary, the review report is empty.
    GenerateTextEmpty = "generate-text-empty",
    /// `generate-text` is missing: it answers exactly as an unknown subcommand
    /// does (exit 2, the same usage error) while `info` declares `text_generator`: a
    /// declared capability without its subcommand; `entire explain
    /// --generate` fails.
    GenerateTextMissing = "generate-text-missing",
    /// `write-hook-response` prints nothing.
    HookResponseEmpty = "hook-response-empty",
    /// `extract-all-modified-files` ignores `--subagents-dir`.
    SubagentFilesIgnoreDir = "subagent-files-ignore-dir",
    /// `calculate-total-tokens` answers `subagent_tokens: null` even with subagent transcripts.
    SubagentTokensNull = "subagent-tokens-null",
    /// `calculate-total-tokens` writes `subagent_tokens.input_tokens` as a string
    /// when there are subagent transcripts.
    SubagentTokensString = "subagent-tokens-string",
    /// `extract-all-modified-files` and `calculate-total-tokens` exit 1 with "no
    /// subagent transcripts" when the subagents directory exists but holds no
    /// `*.jsonl` (a missing directory still means "no subagents").
    SubagentEmptyDirError = "subagent-empty-dir-error",
    /// `prepare-transcript` exits 0 for a transcript that does not exist.
    PrepareMissingOk = "prepare-missing-ok",
    /// `prepare-transcript` exits 1 with "cannot prepare" whatever the
    /// transcript, even one that exists and is not being written.
    PrepareFails = "prepare-fails",
    /// `prepare-transcript` sleeps an hour, unconditionally, ignoring its own
    /// 5 s bound: the caller's deadline must stop it.
    PrepareHang = "prepare-hang",

    // --- compact transcript ---
    /// `compact-transcript` answers `{"transcript": "", "assets": []}` for a
    /// transcript that compacts to something.
    CompactEmptyTranscript = "compact-empty-transcript",
    /// `compact-transcript` answers, beside the right transcript, the asset
    /// `{"name": "", "media_type": "text/plain", "data": "eA=="}` (no name).
    CompactBadAsset = "compact-bad-asset",
    /// `compact-transcript` needs the session's first line as its header: it
    /// refuses a transcript whose first entry is not the session's first (its
    /// `uuid` does not end in `-001`), such as the checkpoint's line slice
    /// (no header) that `entire explain --generate` writes to a temporary
    /// `*.jsonl` file: the summary has nothing to work on.
    CompactNeedsHeader = "compact-needs-header",

    // --- every subcommand ---
    /// Every subcommand also writes 11 MiB to stderr (its output stays correct).
    StderrFlood = "stderr-flood",

    // --- the newest host ---
    /// `info.type` is derived from the environment: "Reference Agent (hook)"
    /// when `AI_AGENT` is set (as an agent sets it in the environment of
    /// what it runs, its hooks among them), "Reference Agent" otherwise. Since
    /// 0.6.0 the host records the session's owner type and silently drops
    /// later events of another type: checkpoints are lost without a word.
    TypeFromEnv = "type-from-env",
    /// `resolve-session-file` names files by a timestamp with `:`
    /// (`2026-09-01T10:00:00-<id>.jsonl`): the newest hosts refuse the
    /// component before `write-session`, and resume fails there.
    SessionFileTimestamp = "session-file-timestamp",
    /// `info` writes `.reference-info.json` into its working directory, the
    /// work tree's root: `info` runs on every hook, so the user's
    /// repository is littered with an untracked file.
    InfoWritesCwd = "info-writes-cwd",
    // --- hooks ---
    /// `parse-hook` expects `--hook-name NAME` and refuses the host's `--hook
    /// NAME` with a usage error (exit 1): every hook fails.
    ParseHookWrongFlag = "parse-hook-wrong-flag",
    /// The installed hooks run the plugin binary directly
    /// (`entire-agent-reference parse-hook --hook NAME`) instead of `entire
    /// hooks reference NAME`: no hook ever reaches Entire.
    HooksNeverCallEntire = "hooks-never-call-entire",
    /// `parse-hook` maps every hook name to SessionStart: no turn ever starts
    /// or ends, no checkpoint is made.
    HooksOneType = "hooks-one-type",
    /// `are-hooks-installed` answers true when the settings file holds any
    /// hook entry at all, the user's own included, not only Entire's.
    AreInstalledWithUserHooks = "are-installed-with-user-hooks",
    /// `install-hooks` (and `are-hooks-installed`) look for Entire's hook
    /// only in the first matcher group of each event: in a fresh file that
    /// is its own, beside the user's own groups it never is, so every
    /// second install over a user's hooks adds each hook again (the agent
    /// fires it twice).
    InstallFindsOwnHookFirstOnly = "install-finds-own-hook-first-only",
    /// `install-hooks` keeps a record of the settings file it wrote
    /// (`.reference/entire-installed`, a hash) and trusts it: a file as it
    /// left it is installed; any other gets every hook added again. Once the
    /// user edits the file, the next `entire enable` doubles every hook.
    InstallTrustsOwnRecord = "install-trusts-own-record",
    // --- decoding and late stdin ---
    /// `parse-hook` starts a 100 ms deadline before the first byte of its
    /// payload: when nothing has arrived by then it gives up and invents a
    /// session id (`reference-<pid>`) for the hook's Event; once a byte has
    /// come, it reads to EOF. A payload whose first half comes at once is
    /// read whole; on a loaded machine, where the first byte comes late, the
    /// session is split.
    StdinFirstByteDeadline = "stdin-first-byte-deadline",
    /// `stdin-first-byte-deadline` in a plugin that starts slowly (300 ms, an
    /// interpreter under load) and measures its 100 ms from when it starts
    /// reading: a payload held back a fixed time from the spawn has already
    /// come by then; only one held back until the plugin reads is late.
    SlowStartStdinDeadline = "slow-start-stdin-deadline",
    // --- reach, own ids, the replay ---
    /// `write-session` writes the transcript into a sibling of the directory
    /// of the `session_ref` it is given (`<dir>-restored/<name>`), and
    /// `read-session` reads it back from there: the plugin is consistent
    /// with itself, but the agent keeps and resumes its sessions where the
    /// plugin's own Events put `session_ref`, so `entire resume` restores a
    /// file the agent never reads.
    WriteSessionElsewhere = "write-session-elsewhere",
    /// `write-session` leaves a session file that already exists alone (and
    /// exits 0): `entire resume --force` onto a machine holding an older
    /// copy, and every `entire rewind` (the host forces the write), restore
    /// nothing; the agent resumes the older conversation.
    WriteSessionKeepsExisting = "write-session-keeps-existing",
    /// `write-session` writes the transcript over the session file without
    /// truncating it: over a longer file (the agent's live one, grown with
    /// the turns after the checkpoint `entire rewind` goes back to) the
    /// later turns' tail stays after it, a torn line at the seam.
    WriteSessionNoTruncate = "write-session-no-truncate",
    /// `get-session-dir` creates the session directory and fails when it
    /// already exists (a `mkdir` without `-p`): the first call of a session
    /// works, the one the newest hosts make before every `write-session`
    /// fails, and with it the restore.
    SessionDirOnce = "session-dir-once",
    // --- the silent owner rule ---
    /// `install-hooks` writes its hooks into Claude Code's
    /// `.claude/settings.json` (it wraps Claude Code) rather than
    /// `.reference/settings.json`: if its Events reused Claude Code's session
    /// ids, the first agent to fire SessionStart would own every session.
    HooksInWrappedConfig = "hooks-in-wrapped-config",
    /// `install-hooks` writes its settings file under HOME
    /// (`~/.reference/settings.json`), which every repository shares: an
    /// uninstall in one repository removes the hooks of all.
    HooksInHome = "hooks-in-home",
    // --- subagents ---
    /// Once a SubagentEnd was answered, `extract-modified-files` fails: the
    /// host's call of it at SubagentEnd (`--offset 0`) fails that hook.
    SubagentEndFilesFail = "subagent-end-files-fail",
}

impl Fault {
    /// Look a fault up by its name.
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL
            .iter()
            .copied()
            .find(|fault| fault.name() == name)
    }
}

/// The fault selected by the environment, if any.
///
/// Returns `Err` (a usage error, exit 2) for a name that is not a fault.
pub fn active() -> Result<Option<Fault>> {
    let Some(raw) = std::env::var_os(ENV_VAR) else {
        return Ok(None);
    };
    let name = raw.to_string_lossy();
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    Fault::from_name(name).map(Some).ok_or_else(|| {
        Error::Usage(format!(
            "unknown {ENV_VAR} {name:?} (run with --list-faults for the names)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for fault in Fault::ALL {
            assert_eq!(Fault::from_name(fault.name()), Some(*fault));
        }
        let mut names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Fault::ALL.len());
    }
}
