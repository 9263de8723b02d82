//! Patterns of working plugins met in the field corpus (`tests/field.rs`),
//! each as an independent test plugin that must pass `--strict`:
//! - hook scripts that call the plugin by name (found on PATH where the host
//!   found it) and reach `entire hooks` only with input their agent alone
//!   gives (its own conversation id), with the user's own hook kept whole
//!   under a state directory of the plugin's and restored on uninstall
//!   (`keptaside`): the hooks are "not verified", never "inert";
//! - hooks the agent reads as data, one marker file per hook in a directory
//!   of the plugin's own, and an install stamp rewritten with a new time at
//!   every install (`markerhooks`): no user's hooks are planted in markers,
//!   and a rewritten stamp is no duplicated hook.
//!
//! Their faulty twins are faults of the reference plugin, caught in the
//! fault matrix: `hooks-never-call-entire` (every hook runs the plugin's
//! `parse-hook` directly), `install-marker-only` (a marker and no hook at
//! all), `write-session-refuses-all` (every id refused, its own included).

mod common;

use common::wild::passes_with;

#[test]
fn hook_scripts_that_need_the_agents_own_input_pass_strict() {
    passes_with(
        "keptaside",
        &["--strict"],
        &[],
        &[
            "hooks.fire.reach-entire",
            "hooks.lifecycle.uninstall",
            "session.enable-remove",
            "session.enable-remove.linked-worktree",
            "session.enable-remove.submodule",
        ],
    );
}

#[test]
fn hooks_read_as_data_and_a_rewritten_stamp_pass_strict() {
    passes_with(
        "markerhooks",
        &["--strict"],
        &[],
        &[
            "hooks.fire.reach-entire",
            "hooks.lifecycle.idempotent",
            "hooks.lifecycle.uninstall",
            "session.enable-remove",
            "session.enable-remove.linked-worktree",
            "session.enable-remove.submodule",
        ],
    );
}
