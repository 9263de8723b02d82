//! The user's project as the host treats it: what setup does with a
//! plugin's `detect` (docs/host.md, "The user's project as the host treats
//! it", "Setup and detect").
//!
//! Since the release that brings [`crate::host::releases::Fact::SetupDetectsPlugins`],
//! setup asks every plugin on `PATH` whether its agent is present. A first
//! `entire enable` without a terminal and without `--agent` enables every
//! detected agent; one without the hooks capability aborts that enable.

use crate::host::Severity;

/// What a `detect` that says "present" where the agent has never been
/// (an empty repository, an empty HOME) costs the user, for a plugin that
/// declares the hooks capability (`hooks`) or not: the weight and why.
pub fn detect_present(hooks: bool) -> (Severity, String) {
    if hooks {
        return (
            Severity::Warning,
            "detect says present in an empty repository with an empty HOME, where the agent \
             has never run: a first non-interactive `entire enable` (no terminal, no --agent: \
             CI, devcontainers, agents) enables this agent in every repository and installs \
             its hooks there, and interactive setup offers it as found; say present only \
             where the agent's own files are"
                .to_string(),
        );
    }
    (
        Severity::Failure,
        "detect says present in an empty repository with an empty HOME, where the agent has \
         never run, and the plugin declares no hooks: a first non-interactive `entire enable` \
         (no terminal, no --agent: CI, devcontainers, agents) enables every detected agent and \
         stops at this one (\"agent does not support hooks\") before .entire and its settings \
         are written, after the other agents' hooks were installed: entire enable fails in \
         every repository while this plugin is on PATH; say present only where the agent's \
         own files are"
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_without_hooks_breaks_enable_and_with_hooks_degrades_it() {
        assert_eq!(detect_present(false).0, Severity::Failure);
        assert!(detect_present(false).1.contains("entire enable"));
        assert_eq!(detect_present(true).0, Severity::Warning);
    }
}
