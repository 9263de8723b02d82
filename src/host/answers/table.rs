//! The table: every JSON answer the host decodes into a struct, each
//! field's Go type, and what its zero value costs the user
//! (docs/host.md, "What each answer costs the user, from the host's
//! source"). Data, kept apart from the judging in `mod.rs`.

use super::{Field, GoType, GoType::*, Zero, Zero::*};

const fn field(name: &'static str, ty: GoType, zero: Zero) -> Field {
    Field { name, ty, zero }
}

/// Token counts are not checked by the host (missing ones add 0 to the
/// session's totals); the token cases judge the values.
const TOKEN_ZERO: Zero = Fine;

/// TokenUsage (calculate-tokens, calculate-total-tokens).
const TOKEN_USAGE: &[Field] = &[
    field("input_tokens", Int, TOKEN_ZERO),
    field("output_tokens", Int, TOKEN_ZERO),
    field("cache_creation_tokens", Int, Fine),
    field("cache_read_tokens", Int, Fine),
    field("api_call_count", Int, Fine),
    field("subagent_tokens", Struct(SUBAGENT_USAGE), Fine),
];

/// The nested TokenUsage: its missing fields are only zero.
const SUBAGENT_USAGE: &[Field] = &[
    field("input_tokens", Int, Fine),
    field("output_tokens", Int, Fine),
    field("cache_creation_tokens", Int, Fine),
    field("cache_read_tokens", Int, Fine),
    field("api_call_count", Int, Fine),
];

/// Fields of answers the host never asks for (`get-session-id`,
/// `read-session`, `extract-summary`: docs/host.md, "The calls the host
/// makes over a session"): the protocol's rules only, judged by the cases
/// at warning severity at most.
const NEVER_CALLED: Zero = Fine;

const ASSET: &[Field] = &[
    field(
        "name",
        Str,
        Degrades("an asset without a name makes the host drop the compact copy"),
    ),
    field(
        "media_type",
        Str,
        Degrades("an asset without a media type makes the host drop the compact copy"),
    ),
    field("data", Bytes, Fine),
];

/// The capabilities the host reads, each a Go `bool` (docs/host.md "The
/// host of September 2026", Hooks: "Capability keys the host reads"); any
/// other key (`uses_terminal`) is ignored by the host.
const CAPABILITIES: &[Field] = &[
    field("hooks", Bool, Fine),
    field("transcript_analyzer", Bool, Fine),
    field("transcript_preparer", Bool, Fine),
    field("token_calculator", Bool, Fine),
    field("compact_transcript", Bool, Fine),
    field("text_generator", Bool, Fine),
    field("streaming_text_generator", Bool, Fine),
    field("hook_response_writer", Bool, Fine),
    field("subagent_aware_extractor", Bool, Fine),
];

/// The Event `parse-hook` prints (protocol "Event Object"), as the host
/// decodes it. What each field's zero value costs depends on the type of
/// the Event, which the layered schemas say (`schemas/event-host.json` and
/// the rest): here only the Go types, for [`super::go`]. `timestamp` is a
/// string that the host parses only when non-empty; `tool_input` a raw
/// message; `metadata` a `map[string]string`.
pub const EVENT: &[Field] = &[
    field("type", Int, Fine),
    field("session_id", Str, Fine),
    field("previous_session_id", Str, Fine),
    field("session_ref", Str, Fine),
    field("prompt", Str, Fine),
    field("model", Str, Fine),
    field("timestamp", Str, Fine),
    field("tool_use_id", Str, Fine),
    field("subagent_id", Str, Fine),
    field("tool_input", Raw, Fine),
    field("subagent_type", Str, Fine),
    field("task_description", Str, Fine),
    field("response_message", Str, Fine),
    field("metadata", Object, Fine),
];

/// Every JSON answer the host decodes into a struct, by the name of its
/// schema (the subcommand). `parse-hook` is not here: its Event has its own
/// layered schemas (`event-decode`, `event-host`, ...).
const ANSWERS: &[(&str, &[Field])] = &[
    (
        "info",
        &[
            field(
                "protocol_version",
                Int,
                Breaks(
                    "decodes as 0: the host registers only protocol 1, so the plugin is never registered",
                ),
            ),
            field("name", Str, Fine),
            field("type", Str, Fine),
            field("description", Str, Fine),
            field("is_preview", Bool, Fine),
            field("protected_dirs", Strings, Fine),
            field("hook_names", Strings, Fine),
            field("protected_files", Strings, Fine),
            field("caller_env_vars", Strings, Fine),
            field(
                "capabilities",
                Struct(CAPABILITIES),
                Degrades("no capability is declared: the host calls no optional subcommand"),
            ),
        ],
    ),
    (
        "detect",
        &[field(
            "present",
            Bool,
            Degrades("decodes as false: the host does not offer this agent where it is present"),
        )],
    ),
    ("get-session-id", &[field("session_id", Str, NEVER_CALLED)]),
    (
        "get-session-dir",
        &[field(
            "session_dir",
            Str,
            Breaks(
                "the host fails the session store (\"session directory is required\"): entire resume and rewind fail",
            ),
        )],
    ),
    (
        "resolve-session-file",
        &[field(
            "session_file",
            Str,
            Breaks("entire resume and rewind have no file to restore the session to"),
        )],
    ),
    (
        "read-session",
        &[
            field("session_id", Str, NEVER_CALLED),
            field("agent_name", Str, NEVER_CALLED),
            field("repo_path", Str, NEVER_CALLED),
            field("session_ref", Str, NEVER_CALLED),
            field("start_time", Time, Fine),
            field("native_data", Bytes, NEVER_CALLED),
            field("modified_files", Strings, Fine),
            field("new_files", Strings, Fine),
            field("deleted_files", Strings, Fine),
        ],
    ),
    ("chunk-transcript", &[field("chunks", BytesList, Fine)]),
    (
        "format-resume-command",
        &[field(
            "command",
            Str,
            Degrades("entire resume shows the user no command to resume with"),
        )],
    ),
    (
        "install-hooks",
        &[field(
            "hooks_installed",
            Int,
            Degrades(
                "decodes as 0: the host prints \"already installed\" instead of \"Installed N hooks\"",
            ),
        )],
    ),
    (
        "are-hooks-installed",
        &[field(
            "installed",
            Bool,
            Degrades("decodes as false: the host reads \"not installed\""),
        )],
    ),
    ("get-transcript-position", &[field("position", Int, Fine)]),
    (
        "extract-modified-files",
        &[
            field("files", Strings, Fine),
            field("current_position", Int, Fine),
        ],
    ),
    (
        "extract-all-modified-files",
        &[field("files", Strings, Fine)],
    ),
    ("extract-prompts", &[field("prompts", Strings, Fine)]),
    (
        "extract-summary",
        &[
            field("summary", Str, NEVER_CALLED),
            field("has_summary", Bool, NEVER_CALLED),
        ],
    ),
    ("calculate-tokens", TOKEN_USAGE),
    ("calculate-total-tokens", TOKEN_USAGE),
    (
        "generate-text",
        &[field(
            "text",
            Str,
            Breaks("entire explain --generate fails (\"Failed to generate summary\")"),
        )],
    ),
    (
        "compact-transcript",
        &[
            field(
                "transcript",
                GoType::Bytes,
                Degrades(
                    "an empty compact transcript: the host logs it and skips the compact copy",
                ),
            ),
            field("assets", Structs(ASSET), Fine),
        ],
    ),
];

/// The fields of an answer, when the host decodes it into a struct.
pub fn fields(schema: &str) -> Option<&'static [Field]> {
    ANSWERS
        .iter()
        .find(|(name, _)| *name == schema)
        .map(|(_, fields)| *fields)
}
