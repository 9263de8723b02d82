//! Patterns of working plugins met in the field corpus (`tests/all/corpus.rs`),
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
//! - an agent whose own runner fires the hooks (`runnermarker`): a marker
//!   the runner reads is all the install writes, its payloads are the
//!   runner's camelCase ones (ours give Events with an empty session id),
//!   it echoes a `session_ref` unchecked, and its write-session writes its
//!   own file whatever the reference: one warning for hooks whose firing
//!   cannot be seen, and findings on our generic payloads never fail;
//! - a trust list kept on the user's line (`trustline`): the repository
//!   added to the user's `trusted = [...]` line in place, taken out again
//!   byte for byte, and the agent's own list left empty where the install
//!   created it in an empty HOME.
//!
//! Their faulty twins are faults of the reference plugin, caught in the
//! fault matrix: `hooks-never-call-entire` (every hook runs the plugin's
//! `parse-hook` directly), `install-marker-only` (a marker and no hook at
//! all: the one warning), `install-marker-other-agent` (a marker whose
//! entries run another agent's hooks: a failure), `write-session-refuses-all`
//! (every id refused, its own included), `write-session-follows-dotdot` (the
//! write really escapes), `install-drops-user-hooks` (the user's items of a
//! list dropped).

use crate::common;

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

#[test]
fn a_runner_that_fires_the_hooks_warns_once_and_generic_payloads_never_fail() {
    let run = passes_with(
        "runnermarker",
        &[],
        &["hooks.fire.reach-entire", "session.agent"],
        &[
            "core.path-safety.write-session-ref-escapes",
            "hooks.lifecycle.uninstall",
            "hooks.parse-hook.empty-object",
            "hooks.parse-hook.payload",
            "hooks.parse-hook.whole-stdin",
            "hostile.parse-hook.five-mib",
            "hostile.parse-hook.wrong-types",
            "session.enable-remove",
            "session.enable-remove.linked-worktree",
            "session.enable-remove.submodule",
            "session.agent.linked-worktree",
            "session.agent.submodule",
        ],
    );
    let codes = |id: &str| -> Vec<String> {
        let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
        cases
            .iter()
            .filter(|c| c["id"] == id)
            .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
            .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
            .map(|f| format!("{} {} {}", f["severity"], f["code"], f["evidence"]))
            .collect()
    };
    // The one warning: hooks whose firing cannot be seen, how to verify.
    assert_eq!(
        codes("hooks.fire.reach-entire"),
        vec![r#""warning" "hooks-unseen" "own-answers""#]
    );
    assert!(
        run.messages("hooks.fire.reach-entire")
            .contains("agent-conform record")
    );
    // An Event with an empty id made of our payload rests on it, and is
    // the hooks capability's one "not verified" (said at session.agent),
    // in every case alike: a note here.
    for id in ["hooks.parse-hook.payload", "hooks.parse-hook.whole-stdin"] {
        assert!(
            codes(id)
                .iter()
                .all(|c| c == r#""note" "said-elsewhere" "assumption""#),
            "{id}: {:?}",
            codes(id)
        );
    }
    // Nothing written where the `..` reference points: nothing escaped.
    assert!(
        run.messages("core.path-safety.write-session-ref-escapes")
            .contains("wrote nothing where it points")
    );
}

#[test]
fn a_trust_list_kept_on_the_users_line_passes_strict() {
    passes_with(
        "trustline",
        &["--strict"],
        &[],
        &["hooks.user-data.no-leftovers"],
    );
}
