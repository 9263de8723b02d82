//! What the host needs of the hooks a plugin installs and of the Events its
//! hooks give (docs/host.md, "The calls the host makes over a
//! session, in order"; "What the host does with each answer").

/// The host's subcommand that every installed hook runs: `entire hooks
/// <agent> <hook-name>`, `<agent>` being the name from the plugin's file name
/// (docs/host.md "Discovery and registration"). Any hook name is accepted
/// (docs/host.md "The host of September 2026").
pub const HOOKS_SUBCOMMAND: &str = "hooks";

/// The flows that call a plugin's `uninstall-hooks`, for messages: observed
/// on [`crate::host::releases::JUNE_BUILD`] only deselecting the agent in
/// the interactive agent manager does (`entire disable --uninstall` calls no
/// plugin, `entire agent remove` refuses external agents); `entire agent
/// remove` and `entire disable --uninstall` on the releases read from source.
pub const UNINSTALL_FLOWS: &str = "the interactive agent manager (`entire enable` with a terminal, \
     \"Manage agents\": the only flow that calls uninstall-hooks on entire 0.6.3-nightly, June 2026 \
     main; `entire agent remove` and `entire disable --uninstall` on the releases read from source)";

/// Event type 1, SessionStart: the session begins.
pub const SESSION_START: u64 = 1;
/// Event type 2, TurnStart: a turn begins (its prompt and transcript offset).
pub const TURN_START: u64 = 2;
/// Event type 3, TurnEnd: the transcript is read and the checkpoint made.
pub const TURN_END: u64 = 3;

/// Whether Events of these types can ever make a checkpoint: the host makes
/// them at TurnEnd, and at commits during a turn that a TurnStart opened;
/// without either no checkpoint is ever made.
pub fn can_checkpoint(types: &[u64]) -> bool {
    types.iter().any(|t| *t == TURN_START || *t == TURN_END)
}

/// Whether an Event of this type without a `session_id` fails its hook
/// (docs/host.md "What the host does with each answer": SessionStart and
/// TurnStart need one; TurnEnd makes it "unknown", the rest ignore it).
pub fn needs_session_id(event_type: u64) -> bool {
    event_type == SESSION_START || event_type == TURN_START
}

/// The host's own arguments of a hook call: `hooks <agent> <hook>`, split as
/// (agent, hook), or `None` for any other call of `entire`.
pub fn hook_call(args: &[String]) -> Option<(&str, &str)> {
    match args {
        [sub, agent, hook, ..] if sub == HOOKS_SUBCOMMAND => Some((agent, hook)),
        _ => None,
    }
}

/// The hook configs of built-in agents in a repository (agent-guide.txt,
/// "HookSupport": "Claude Code's .claude/settings.json, Gemini's
/// .gemini/settings.json, Cursor's .cursor/hooks.json, Factory AI Droid's
/// .factory/settings.json, or Copilot CLI's .github/hooks/entire.json"), as
/// (sandbox-relative path, built-in agent).
pub const BUILT_IN_HOOK_CONFIGS: &[(&str, &str)] = &[
    (".claude/settings.json", "claude-code"),
    (".gemini/settings.json", "gemini"),
    (".cursor/hooks.json", "cursor"),
    (".factory/settings.json", "factoryai-droid"),
    (".github/hooks/entire.json", "copilot-cli"),
];

/// The plugin subcommands the host calls itself, inside `entire hooks`
/// and its session calls (protocol, "Subcommands"; docs/host.md "The calls
/// the host makes over a session, in order"). An agent's hook that runs one
/// of them on the plugin directly (`entire-agent-x parse-hook --hook stop`)
/// does the host's part without the host: the Event goes to the hook's
/// stdout, nothing of Entire hears of it, and no checkpoint is made.
pub const HOST_SIDE_SUBCOMMANDS: &[&str] = &[
    "parse-hook",
    "read-transcript",
    "get-session-dir",
    "resolve-session-file",
    "write-session",
    "extract-modified-files",
    "extract-all-modified-files",
    "extract-prompts",
    "get-transcript-position",
    "prepare-transcript",
    "calculate-tokens",
    "calculate-total-tokens",
    "write-hook-response",
];

/// Whether the shell command `command` runs a host-side subcommand of an
/// `entire-agent-*` plugin directly ([`HOST_SIDE_SUBCOMMANDS`]): a word
/// naming such a binary (by name or path), followed by such a subcommand.
pub fn runs_host_side_directly(command: &str) -> bool {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || ";&|()'\"`".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|pair| {
        let program = pair[0].rsplit('/').next().unwrap_or(pair[0]);
        program.starts_with(crate::host::discovery::PREFIX)
            && HOST_SIDE_SUBCOMMANDS.contains(&pair[1])
    })
}

/// The built-in agent whose hook config `file` (sandbox-relative: under the
/// work tree or the home) is, if any: a plugin that installs its hooks there
/// wraps that agent.
pub fn built_in_config_of(file: &str) -> Option<&'static str> {
    BUILT_IN_HOOK_CONFIGS
        .iter()
        .find(|(path, _)| file == *path || file.ends_with(&format!("/{path}")))
        .map(|(_, agent)| *agent)
}

/// What a wrapper that reuses its agent's session ids costs: since 0.6.0
/// the first agent to fire `SessionStart` with a session id owns the
/// session, and the other's later events are skipped silently
/// (docs/host.md, "The newest host source", "Silent loss, since 0.6.0").
pub const WRAPPER_OWNER: &str = "if its Events reuse that agent's session ids, the agent that \
     fires SessionStart first owns the session (entire 0.6.0 on) and the host silently drops the \
     other's later events (exit 0, no checkpoint, no warning) whenever both agents' Entire hooks \
     are installed; give the sessions ids of the plugin's own making";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_in_agents_config_is_known_wherever_it_lies() {
        assert_eq!(
            built_in_config_of(".claude/settings.json"),
            Some("claude-code")
        );
        assert_eq!(
            built_in_config_of("repo/.cursor/hooks.json"),
            Some("cursor")
        );
        assert_eq!(built_in_config_of(".myagent/settings.json"), None);
    }

    #[test]
    fn a_hook_that_runs_the_hosts_side_itself_is_told() {
        assert!(runs_host_side_directly(
            "entire-agent-foo parse-hook --hook stop"
        ));
        assert!(runs_host_side_directly(
            "sh -c '/opt/bin/entire-agent-foo parse-hook --hook stop </dev/null'"
        ));
        assert!(!runs_host_side_directly("entire hooks foo stop"));
        assert!(!runs_host_side_directly(
            "'/h/bin/entire-agent-foo' run-hook --hook 'end-of-turn'"
        ));
    }

    #[test]
    fn only_turns_make_checkpoints() {
        assert!(!can_checkpoint(&[1, 1, 1]));
        assert!(!can_checkpoint(&[1, 4, 5]));
        assert!(can_checkpoint(&[1, 3]));
        assert!(can_checkpoint(&[2]));
    }

    #[test]
    fn a_hook_call_names_agent_and_hook() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            hook_call(&args(&["hooks", "foo", "stop"])),
            Some(("foo", "stop"))
        );
        assert_eq!(hook_call(&args(&["status"])), None);
    }
}
