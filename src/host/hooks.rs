//! What the host needs of the hooks a plugin installs and of the Events its
//! hooks give (host-behaviour.md, "The calls the host makes over a
//! session, in order"; "What the host does with each answer").

/// The host's subcommand that every installed hook runs: `entire hooks
/// <agent> <hook-name>`, `<agent>` being the name from the plugin's file name
/// (host-behaviour "Discovery and registration"). Any hook name is accepted
/// (host-behaviour "The host of September 2026").
pub const HOOKS_SUBCOMMAND: &str = "hooks";

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

/// The host's own arguments of a hook call: `hooks <agent> <hook>`, split as
/// (agent, hook), or `None` for any other call of `entire`.
pub fn hook_call(args: &[String]) -> Option<(&str, &str)> {
    match args {
        [sub, agent, hook, ..] if sub == HOOKS_SUBCOMMAND => Some((agent, hook)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
