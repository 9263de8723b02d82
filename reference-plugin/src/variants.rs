//! Neutral variations: a testing aid, not part of the protocol.
//!
//! Where the specification leaves a choice, a harness must accept every reasonable
//! answer. `ENTIRE_AGENT_REFERENCE_VARIANT=<name>[,<name>...]` switches this plugin
//! to the *other* legitimate answer, so a test can prove the harness does not
//! hard-code one of them. Every combination stays fully spec-conforming.
//!
//! An unknown name is a usage error (exit 2), like an unknown fault.
//! `entire-agent-reference --list-variants` prints every name.

use crate::error::{Error, Result};

/// The environment variable that selects variants (comma-separated).
pub const ENV_VAR: &str = "ENTIRE_AGENT_REFERENCE_VARIANT";

/// One legitimate alternative behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Chunk by bytes: fixed slices of at most `--max-size` bytes that ignore line
    /// boundaries (so a long line is never an error), reassembled by plain
    /// concatenation. The protocol only asks that the round trip be exact.
    ChunkBytes,
    /// `parse-hook` on empty stdin prints `null` ("no event") instead of failing.
    /// The guide wants an error, the public Go test suite wants success.
    ParseHookEmptyNull,
    /// Every JSON object printed carries `"x_reference_extra"`, an unknown field
    /// the host ignores.
    ExtraFields,
    /// `get-transcript-position` on a missing file answers 0 instead of failing;
    /// the specification is silent on this case.
    MissingTranscriptZero,
    /// `get-session-id` on input without a session id answers a generated
    /// `ref-<16 hex digits>` instead of failing.
    GeneratedSessionId,
    /// `info` declares every capability false (and no hook names), so a harness
    /// can check that it gates optional subcommands on the capabilities.
    NoCapabilities,
}

impl Variant {
    /// Every variant, in documentation order.
    pub const ALL: &'static [Variant] = &[
        Variant::ChunkBytes,
        Variant::ParseHookEmptyNull,
        Variant::ExtraFields,
        Variant::MissingTranscriptZero,
        Variant::GeneratedSessionId,
        Variant::NoCapabilities,
    ];

    /// The name used in `ENTIRE_AGENT_REFERENCE_VARIANT`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::ChunkBytes => "chunk-bytes",
            Variant::ParseHookEmptyNull => "parse-hook-empty-null",
            Variant::ExtraFields => "extra-fields",
            Variant::MissingTranscriptZero => "missing-transcript-zero",
            Variant::GeneratedSessionId => "generated-session-id",
            Variant::NoCapabilities => "no-capabilities",
        }
    }

    /// Look a variant up by its name.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.iter().copied().find(|v| v.name() == name)
    }
}

/// The set of variants in force.
#[derive(Debug, Clone, Default)]
pub struct Variants(Vec<Variant>);

impl Variants {
    /// Whether `variant` is switched on.
    pub fn has(&self, variant: Variant) -> bool {
        self.0.contains(&variant)
    }

    /// Parse a comma-separated list of names; blanks around names and empty
    /// entries are ignored.
    pub fn parse(list: &str) -> Result<Variants> {
        let mut variants = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let variant = Variant::from_name(name).ok_or_else(|| {
                Error::Usage(format!(
                    "unknown {ENV_VAR} {name:?} (run with --list-variants for the names)"
                ))
            })?;
            variants.push(variant);
        }
        Ok(Variants(variants))
    }
}

/// The variants selected by the environment (none when unset).
pub fn active() -> Result<Variants> {
    match std::env::var_os(ENV_VAR) {
        Some(raw) => Variants::parse(&raw.to_string_lossy()),
        None => Ok(Variants::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_rejects_unknown_names() {
        let variants = Variants::parse(" chunk-bytes, ,extra-fields ").expect("valid list");
        assert!(variants.has(Variant::ChunkBytes));
        assert!(variants.has(Variant::ExtraFields));
        assert!(!variants.has(Variant::NoCapabilities));
        assert!(Variants::parse("").expect("empty list").0.is_empty());
        assert!(matches!(
            Variants::parse("chunk-byte"),
            Err(Error::Usage(_))
        ));
    }
}
