//! What the host never asks of a plugin: the calls it never makes and the
//! inputs it never sends (docs/host.md, "The calls the host makes over a
//! session, in order": "Never called in production"; "What the host does
//! with each answer": "The host only sends inputs it made").
//!
//! A rule there is the protocol's, not the host's: no user command meets
//! it, so a finding there is protocol-only, a note, and a warning under
//! `--pedantic` for authors who want the letter of the protocol. A case
//! that is protocol-only as a whole runs only under `--pedantic`
//! (`execute::reach::pedantic_only`). A hang or a flood keeps its weight
//! there (the host's limits hold whatever the input).

use serde::Deserialize;

use crate::host::Severity;

/// The subcommands the host never calls ("Never called in production"):
/// the session id of a hook is the Event's `session_id`, so no host asks
/// `get-session-id`; no host reads a session back with `read-session`;
/// `extract-summary` is gone from the host.
pub const NEVER_CALLED: &[&str] = &["get-session-id", "read-session", "extract-summary"];

/// Whether the host ever calls `subcommand` (a subcommand it does not know,
/// `no-such-subcommand`, it never calls either: it calls only the protocol's
/// subcommands that `info` declares).
pub fn host_calls(subcommand: &str) -> bool {
    !NEVER_CALLED.contains(&subcommand)
}

/// What a case sends the plugin, as far as the host is concerned
/// (`input:` of a case).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    /// The input the host makes (the default): the protocol's request with
    /// the host's own flags and values.
    #[default]
    Host,
    /// An input the host never sends: empty or invalid JSON, a JSON array,
    /// fields of the wrong type, a padded payload, a flag value the host
    /// never passes, a subcommand it does not call. The host writes every
    /// request itself ("The host only sends inputs it made").
    NeverSent,
}

/// Why a finding is protocol-only, for its message.
pub fn why(never_called: Option<&str>) -> String {
    match never_called {
        Some(subcommand) => format!(
            "protocol-only: the host never calls {subcommand}, so no user command meets this"
        ),
        None => "protocol-only: the host never sends this input (it writes every request \
                 itself), so no user command meets this"
            .to_string(),
    }
}

/// The most a protocol-only finding weighs: a note, a warning under
/// `--pedantic`.
pub fn weight(pedantic: bool) -> Severity {
    if pedantic {
        Severity::Warning
    } else {
        Severity::Note
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_never_calls_the_session_readers() {
        assert!(!host_calls("get-session-id"));
        assert!(!host_calls("read-session"));
        assert!(!host_calls("extract-summary"));
        assert!(host_calls("write-session"));
        assert!(host_calls("reassemble-transcript"));
    }

    #[test]
    fn protocol_only_is_a_note_unless_pedantic() {
        assert_eq!(weight(false), Severity::Note);
        assert_eq!(weight(true), Severity::Warning);
        assert!(why(Some("read-session")).contains("never calls read-session"));
    }
}
