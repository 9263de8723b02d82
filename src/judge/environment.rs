//! The agent's environment in the sandbox: a clean refusal that names a
//! variable the sandbox does not set is "not verified here"
//! ([`crate::host::agent_env`]), and the case goes on as it would after
//! any accepted refusal.

use crate::host::agent_env;
use crate::running::runner::{Invocation, Outcome};
use crate::suite::case::{Refusal, RefusalOutcome};

/// The variable a clean refusal of `inv` names that its environment does
/// not set: `None` for a call that exited 0, crashed or timed out. A crash
/// ([`crate::host::crash`]) is never such a refusal, whatever its trace
/// names (a source line, a `KeyError`): it says nothing of what the plugin
/// meant to refuse.
pub fn needed_variable(inv: &Invocation, out: &Outcome) -> Option<String> {
    if out.exit_code().is_none_or(|code| code == 0) {
        return None;
    }
    if crate::host::crash::crashed(&out.stderr, out.exit_code(), out.signal).is_some() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    agent_env::needed_variable(&stderr, &|name| is_set(inv, name))
}

/// Whether the call's environment sets `name`: the harness set it, or it
/// is inherited (and not removed), or it is `PATH`.
fn is_set(inv: &Invocation, name: &str) -> bool {
    name == "PATH"
        || inv.env.iter().any(|(k, _)| k == name)
        || (!inv.env_remove.iter().any(|k| k == name) && std::env::var_os(name).is_some())
}

/// The refusal a missing variable amounts to: a note that says "not
/// verified here" with the YAML that sets it, naming the variable as data
/// ([`Refusal::variable`]); a step that goes on after a refusal
/// (`on_refusal: continue_with`) still does. A declared capability that
/// such refusals leave with nothing verified gets its one warning from the
/// run's fold (`execute::fold`), never from one refusal.
pub fn refusal(variable: &str, written: Option<&Refusal>) -> Refusal {
    Refusal {
        own_id: false,
        outcome: RefusalOutcome::Note,
        note: agent_env::not_verified(variable),
        with_samples: None,
        continue_with: written.map(|r| r.continue_with.clone()).unwrap_or_default(),
        variable: Some(variable.to_string()),
    }
}
