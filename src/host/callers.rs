//! How the host calls a plugin outside a hook's usual call, and what it
//! hands a hook (docs/host.md, "The host of September 2026",
//! "Invocation" and "Hooks"; the release each began in is a row of
//! [`crate::host::releases`]).

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::host::invocation::{
    CLI_VERSION_VAR, PROTOCOL_VERSION, PROTOCOL_VERSION_VAR, REPO_ROOT_VAR, environment,
};

/// The deadline every hook (`entire hooks <agent> <hook>`, the git hooks)
/// gives discovery, for all plugins at once: an `info` slower than this is
/// "unknown agent" in every hook ("`info` within 5 s inside hooks").
pub const HOOK_DISCOVERY_DEADLINE: Duration = Duration::from_secs(5);

/// Half of [`HOOK_DISCOVERY_DEADLINE`]: the 5 s are shared with every other
/// plugin probed at once, so an `info` slower than this leaves the others
/// (and a loaded machine) little room.
pub const SHARED_DISCOVERY_BUDGET: Duration = Duration::from_millis(2500);

/// A way the host calls, other than inside a work tree with its full
/// environment (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostCall {
    /// A setup or listing command run outside any repository: no
    /// `ENTIRE_REPO_ROOT`, and the working directory is the user's, not a
    /// work tree ("Invocation": "Run elsewhere ... the variable is absent").
    Listing,
    /// The manual uninstall command the host prints: only
    /// `ENTIRE_REPO_ROOT` and `ENTIRE_PROTOCOL_VERSION` set.
    ManualUninstall,
    /// A host before `ENTIRE_CLI_VERSION` was passed (table: 0.6.0): the
    /// full environment without that variable.
    NoCliVersion,
}

impl HostCall {
    /// The variables the host adds for this call, for a work tree at `repo`.
    pub fn environment(self, repo: &Path) -> Vec<(String, OsString)> {
        match self {
            HostCall::Listing => environment(repo)
                .into_iter()
                .filter(|(k, _)| k != REPO_ROOT_VAR)
                .collect(),
            HostCall::ManualUninstall => vec![
                (REPO_ROOT_VAR.into(), repo.as_os_str().to_owned()),
                (PROTOCOL_VERSION_VAR.into(), PROTOCOL_VERSION.into()),
            ],
            HostCall::NoCliVersion => environment(repo)
                .into_iter()
                .filter(|(k, _)| k != CLI_VERSION_VAR)
                .collect(),
        }
    }

    /// The host's variables this call does not set (removed from whatever
    /// the harness inherited).
    pub fn unset(self) -> Vec<String> {
        let all = [REPO_ROOT_VAR, PROTOCOL_VERSION_VAR, CLI_VERSION_VAR];
        let set = self.environment(Path::new("/"));
        all.iter()
            .filter(|v| !set.iter().any(|(k, _)| k == *v))
            .map(|v| v.to_string())
            .collect()
    }

    /// Whether the call runs from a directory outside any repository.
    pub fn outside_repository(self) -> bool {
        self == HostCall::Listing
    }

    /// The user command, for messages.
    pub fn command(self) -> &'static str {
        match self {
            HostCall::Listing => "a listing or setup command run outside a repository",
            HostCall::ManualUninstall => "the manual uninstall command the host prints",
            HostCall::NoCliVersion => "a host that passes no ENTIRE_CLI_VERSION",
        }
    }
}

/// What the newest hosts forward to `parse-hook` of the bytes the agent
/// sent ("What `parse-hook` receives", table: 0.9.0): a leading UTF-8
/// byte-order mark removed, then exactly the first JSON value's raw bytes
/// (whitespace before it dropped, anything after it too). Input that is no
/// JSON value is given back as it is (the host fails such a hook itself).
pub fn forwarded_hook_input(sent: &[u8]) -> Vec<u8> {
    let body = sent.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(sent);
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let body = &body[start..];
    let mut values =
        serde_json::Deserializer::from_slice(body).into_iter::<serde::de::IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => body[..values.byte_offset()].to_vec(),
        _ => sent.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_host_forwards_the_first_value_only() {
        assert_eq!(
            forwarded_hook_input(b"\xEF\xBB\xBF {\"a\":1}\n"),
            b"{\"a\":1}"
        );
        assert_eq!(forwarded_hook_input(b"{\"a\":1}{\"b\":2}"), b"{\"a\":1}");
        assert_eq!(forwarded_hook_input(b"not json"), b"not json");
    }

    #[test]
    fn each_call_sets_what_the_host_sets() {
        assert_eq!(HostCall::Listing.unset(), vec![REPO_ROOT_VAR.to_string()]);
        assert_eq!(
            HostCall::ManualUninstall.unset(),
            vec![CLI_VERSION_VAR.to_string()]
        );
        assert_eq!(
            HostCall::NoCliVersion.unset(),
            vec![CLI_VERSION_VAR.to_string()]
        );
    }
}
