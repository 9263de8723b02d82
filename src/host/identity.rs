//! What `info` declares that the host reads beyond registration
//! (host-behaviour.md, "The host of September 2026", "Discovery and
//! identity" and "Hooks"): its `type`, which stored sessions are mapped back
//! by; the capability keys; `caller_env_vars`.

use std::sync::LazyLock;

use regex::Regex;

/// The capability keys the host reads ("Capability keys the host reads").
pub const CAPABILITY_KEYS: &[&str] = &[
    "hooks",
    "transcript_analyzer",
    "transcript_preparer",
    "token_calculator",
    "compact_transcript",
    "text_generator",
    "streaming_text_generator",
    "hook_response_writer",
    "subagent_aware_extractor",
];

/// A key the host reads but that does nothing for a plugin: it implements
/// no streaming call for plugins.
pub const INERT_CAPABILITY: &str = "streaming_text_generator";

/// What the host does with a declared capability key that is not one of
/// [`CAPABILITY_KEYS`] or is [`INERT_CAPABILITY`]: nothing; `None` for a key
/// it acts on.
pub fn capability_ignored(key: &str) -> Option<&'static str> {
    if key == INERT_CAPABILITY {
        Some("the host implements no streaming call for plugins, so it has no effect")
    } else if CAPABILITY_KEYS.contains(&key) {
        None
    } else {
        Some("the host reads no such capability key and ignores it")
    }
}

/// The names `caller_env_vars` may hold; the host drops any other
/// ("`caller_env_vars`: names that do not match ... are dropped").
pub const CALLER_ENV_VAR_PATTERN: &str = "^[A-Z][A-Z0-9_]{1,63}$";

static CALLER_ENV_VAR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(CALLER_ENV_VAR_PATTERN).ok());

/// Whether the host keeps a `caller_env_vars` name.
pub fn keeps_caller_env_var(name: &str) -> bool {
    CALLER_ENV_VAR.as_ref().is_some_and(|re| re.is_match(name))
}

/// The user commands that break when two agents share a `type`: the host
/// maps stored sessions back to an agent by a search over every registered
/// agent in Go map order ("The host finds an agent by its `type` too").
pub const TYPE_COLLISION_BREAKS: &str = "entire resume and entire rewind (and the commit hooks) \
     map stored sessions back to an agent by type, over every registered agent in random \
     order: the built-in agent may resume or rewind this plugin's sessions, and this plugin \
     the built-in's";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caller_env_var_names_as_the_host_keeps_them() {
        assert!(keeps_caller_env_var("MY_AGENT"));
        assert!(!keeps_caller_env_var("my_agent"));
        assert!(!keeps_caller_env_var("A"));
        assert!(!keeps_caller_env_var("MY-AGENT"));
        assert_eq!(capability_ignored("hooks"), None);
        assert!(capability_ignored("uses_terminal").is_some());
        assert!(capability_ignored(INERT_CAPABILITY).is_some());
    }
}
