//! What `info` declares that the host reads beyond registration
//! (docs/host.md, "The host of September 2026", "Discovery and
//! identity" and "Hooks"): its `type`, which stored sessions are mapped back
//! by; the capability keys; `caller_env_vars`.

use std::sync::LazyLock;

use regex::Regex;

use crate::host::Severity;

/// What an `info.name` other than the file's name costs (docs/host.md,
/// "Discovery and registration", "The registration key"): every lookup
/// uses the file's name, so without hooks nothing breaks (a note); with
/// hooks, interactive setup compares the registry keys with `info.name` and
/// reinstalls the plugin's hooks at every `entire enable` (a warning).
pub fn name_differs(hooks: bool) -> (Severity, &'static str) {
    if hooks {
        (
            Severity::Warning,
            "the host registers and finds the plugin by the file name, but interactive setup \
             compares that key with info.name: every interactive `entire enable` uninstalls and \
             reinstalls this plugin's hooks",
        )
    } else {
        (
            Severity::Note,
            "the host registers and finds the plugin by the file name (entire agent list, \
             --agent, entire attach --agent); info.name appears only in messages and as \
             agent_name in write-session, so nothing breaks",
        )
    }
}

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

/// The variable an agent sets in the environment of what it runs (its
/// hooks among them), recognised by the host without being declared
/// ("`caller_env_vars`: ... `AI_AGENT` is recognised without being
/// declared").
pub const AGENT_MARKER_VAR: &str = "AI_AGENT";

/// The variables an agent's hooks see that discovery outside a hook (a
/// listing, `entire enable`, the git hooks run from the user's terminal)
/// does not: [`AGENT_MARKER_VAR`] and every `caller_env_vars` name the
/// plugin declares that the host keeps, each set to `value`.
pub fn hook_only_environment(info: &serde_json::Value, value: &str) -> Vec<(String, String)> {
    let mut vars = vec![(AGENT_MARKER_VAR.to_string(), value.to_string())];
    let declared = info
        .get("caller_env_vars")
        .and_then(serde_json::Value::as_array);
    for name in declared.into_iter().flatten().filter_map(|n| n.as_str()) {
        if keeps_caller_env_var(name) && vars.iter().all(|(k, _)| k != name) {
            vars.push((name.to_string(), value.to_string()));
        }
    }
    vars
}

/// What a `type` that is not the same on every call costs: the host
/// records the session's owner type at TurnStart and drops every later
/// event of another type with exit 0 and nothing on stderr; resume, rewind
/// and the commit hooks map the stored type back to a registered agent
/// ("The newest host source (read December 2026)", "Silent loss, since
/// 0.6.0"). An empty `type` turns the filter off.
pub const TYPE_VARIES_COSTS: &str = "the host records the session's owner type at TurnStart \
             and silently drops every later event (TurnEnd, Compaction, SessionEnd, Subagent*) whose \
             agent's type differs, with exit 0 and nothing on stderr: no checkpoint and no warning; \
             entire resume, entire rewind and the commit hooks, run outside the agent's hooks, map the \
             stored type back to an agent and do not find this one";

/// Whether two `type` answers make the host's owner filter skip events:
/// they differ and neither is empty (an empty type turns the filter off).
pub fn types_conflict(a: &str, b: &str) -> bool {
    a != b && !a.is_empty() && !b.is_empty()
}

/// The hook names `info` declares (`hook_names`; none when missing or not
/// a list of strings, as Go's decoder leaves it).
pub fn hook_names(info: &serde_json::Value) -> Vec<String> {
    info.pointer("/hook_names")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(serde_json::Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

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

    #[test]
    fn the_hook_environment_sets_the_marker_and_the_declared_names() {
        let info = serde_json::json!({"caller_env_vars": ["MY_AGENT", "bad-name", "AI_AGENT"]});
        let vars = hook_only_environment(&info, "x");
        let names: Vec<&str> = vars.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["AI_AGENT", "MY_AGENT"]);
        assert!(types_conflict("A", "B"));
        assert!(!types_conflict("A", "A"));
        assert!(!types_conflict("", "B"));
    }
}
