//! What kind of finding a finding is, as data: a stable code that the
//! reports carry (`--format json`, JUnit), that CI can filter on, and that
//! decisions match on, so that rewording a message never changes a verdict.

/// Declares [`Kind`] with the stable code of each variant, so the list of
/// codes can never drift from the enum.
macro_rules! kinds {
    ($( $(#[$meta:meta])* $variant:ident = $code:literal, )*) => {
        /// The kind of a finding. Its [`Kind::code`] is stable: a report
        /// reader, `--allow` and the code's own decisions use it, never the
        /// message text.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Kind {
            $( $(#[$meta])* $variant, )*
        }

        impl Kind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];

            /// The stable code, as reports print it.
            pub fn code(self) -> &'static str {
                match self {
                    $( Kind::$variant => $code, )*
                }
            }

            /// The kind with this code, if any.
            pub fn from_code(code: &str) -> Option<Kind> {
                match code {
                    $( $code => Some(Kind::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

kinds! {
    /// A case's own expectation was not met (the default).
    #[default]
    Check = "check",
    /// The answer differs from the documented JSON Schema of its
    /// subcommand (`stdout_schema`).
    Schema = "schema",
    /// `chunk-transcript` or `reassemble-transcript` answered other than a
    /// case expects (a chunk over the size, bytes that do not come back).
    Chunking = "chunking",
    /// A generated chunking round trip (`property: round_trip`) did not
    /// give the transcript back as the host rebuilds it.
    RoundTrip = "round-trip",
    /// The answer cannot be decoded as the host decodes it (Go's
    /// `encoding/json`: not one JSON value, a wrong type, bad base64).
    Decoding = "decoding",
    /// A field's zero value (missing or `null`) and what the host then does.
    ZeroValue = "zero-value",
    /// The call ran past its deadline and was killed.
    Timeout = "timeout",
    /// stdout or stderr went over the host's 10 MiB limit.
    OutputFlood = "output-flood",
    /// The plugin could not be started.
    SpawnFailed = "spawn-failed",
    /// A write outside the sandbox, tried or done.
    EscapedSandbox = "escaped-sandbox",
    /// A write past the size limit (disk flood).
    DiskFlood = "disk-flood",
    /// A process left running after the call returned.
    LeftRunning = "left-running",
    /// A background process kept the pipes open.
    PipesHeld = "pipes-held",
    /// The plugin crashed: a traceback, a panic, a stack trace, a signal.
    Crashed = "crashed",
    /// A non-zero exit with nothing on stderr.
    SilentError = "silent-error",
    /// A clean refusal of an input the host never sends.
    Refused = "refused",
    /// A refusal of a transcript or payload in another agent's format.
    ForeignFormat = "foreign-format",
    /// A refusal naming a variable only the agent sets: not verified here
    /// (a note).
    AgentVariable = "agent-variable",
    /// Something the sandbox cannot provide (the agent's own store, an id
    /// the plugin never made): not verified here.
    NotVerified = "not-verified",
    /// A declared capability that no case could check (no own samples; a
    /// variable only the agent sets; the session replay's agent session
    /// refused): one warning per capability in a run.
    Unverified = "unverified",
    /// A defect on a path the host never takes for this plugin.
    Latent = "latent",
    /// A written rule on a call the host never makes, or on an input it
    /// never sends: a note (a warning under `--pedantic`).
    ProtocolOnly = "protocol-only",
    /// A declared capability whose subcommand is missing.
    MissingSubcommand = "missing-subcommand",
    /// Two plugins installed together get in each other's way.
    Conflict = "conflict",
    /// The user's data around an install: lost, rewritten, left behind.
    UserData = "user-data",
    /// Hooks that cannot fire, or never make a checkpoint.
    HooksInert = "hooks-inert",
    /// Hooks whose firing cannot be seen here (a marker file, hooks the
    /// agent reads as data without naming the plugin, a runner that calls
    /// `entire hooks` itself, a hook that accepts a payload and calls
    /// nothing): one warning for the plugin, until a recording shows them
    /// fire or `allow:` says why.
    HooksUnseen = "hooks-unseen",
    /// An analysis answer that falls short, or a call that fails, on a copy
    /// of a transcript it read whose records hold long lines (64 KiB, 1 MiB,
    /// 8 MiB).
    LongLines = "long-lines",
    /// A session owned by another `type`: the host drops its events silently.
    OwnerSkip = "owner-skip",
    /// A session file name the host refuses before `write-session`.
    SessionPath = "session-path",
    /// A session, tool or subagent id the host refuses.
    IdRule = "id-rule",
    /// Session ids that differ between the hooks of one agent session: the
    /// host splits the session, every hook succeeding, and resume hands the
    /// agent an id it does not know.
    SplitSession = "split-session",
    /// Two session ids resolved to one file: resume writes both there and
    /// the last wins, under a success message.
    SharedSessionFile = "shared-session-file",
    /// What is said about the plugin's name, type or discovery.
    Discovery = "discovery",
    /// A finding that depends on the host release.
    HostRelease = "host-release",
    /// A note pointing at the case where the run says a finding once (an
    /// unverified capability, a finding of every work tree): the defect is
    /// reported there, at its weight.
    SaidElsewhere = "said-elsewhere",
}

impl Kind {
    /// The codes of what a run could not verify here (a capability no case
    /// could check, something only the agent's own machine provides), which
    /// a recording of the agent's own session settles. `agent-conform
    /// init` allows them, with that reason, until the repository has one.
    pub const NOT_VERIFIED: &'static [Kind] =
        &[Kind::Unverified, Kind::NotVerified, Kind::HooksUnseen];
}

impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for kind in Kind::ALL {
            assert!(seen.insert(kind.code()), "{} twice", kind.code());
            assert_eq!(Kind::from_code(kind.code()), Some(*kind));
        }
    }
}
