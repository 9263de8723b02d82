//! Plugins in the wild (tests/common/wild.rs): installing hooks. An install
//! count under another name; configs in TOML, YAML, INI and a trust list
//! that keep the user's content (and their clobbering twins); hooks in TOML
//! edited in whatever list shape the user keeps them (and the twin that
//! breaks an inline array), a second `hooks:` key beside a YAML flow list,
//! a clean refusal of a shape a plugin does not edit; a state file of
//! the plugin's own; hooks the agent's own library fires; and writing under
//! the git dir where `.git` is a file (linked worktrees, submodules).

use crate::common;

use common::run_json;
use common::wild::{cases, failed_steps, passes_with, set, twin_fails, wild};

#[test]
fn a_renamed_install_count_only_degrades_and_the_lifecycle_is_still_checked() {
    // {"count": N} decodes as hooks_installed 0: the host prints "already
    // installed". One warning, at the case that covers the field; every
    // lifecycle case after the install still runs and passes.
    let run = passes_with("renamedcount", &[], &["hooks.lifecycle.install"], &[]);
    let message = run.messages("hooks.lifecycle.install");
    assert!(message.contains("already installed"), "{message}");
    for id in [
        "hooks.lifecycle.idempotent",
        "hooks.lifecycle.uninstall",
        "hooks.user-data.fresh-install",
        "session.enable-remove",
    ] {
        assert!(run.ids("passed").iter().any(|p| p == id), "{id} passes");
    }
}

#[test]
fn configs_in_toml_yaml_ini_and_a_trust_list_that_keep_the_users_content_pass() {
    // The user's own content is planted in each of its files (repository,
    // XDG_CONFIG_HOME, HOME) before the install; the plugin merges into them.
    // Its YAML and INI files, which hold hook entries, are under HOME:
    // shared by every repository, a warning (docs/host.md "Hooks in a file
    // every repository shares"). A user whose TOML hooks are an inline
    // array, or whose YAML list is a flow one, gets a clean refusal before
    // anything is written: `entire enable` fails for them and nothing of
    // theirs is lost, the other warning (docs/host.md "The user's machine,
    // not a clean room").
    let cases = cases("manyformats");
    let run = passes_with(
        "manyformats",
        &["--cases", &cases],
        &["hooks.lifecycle.shared-hooks", "hooks.user-data.lived-in"],
        &[],
    );
    assert!(
        run.ids("passed")
            .iter()
            .any(|p| p == "hooks.user-data.existing-settings")
    );
    let message = run.messages("hooks.user-data.lived-in");
    assert!(message.contains("TOML inline arrays"), "{message}");
    assert!(
        message.contains("left it untouched: nothing is lost"),
        "{message}"
    );
    assert!(
        message.contains("\"hooks\" is an inline array"),
        "{message}"
    );
}

#[test]
fn hooks_kept_in_toml_edited_in_whatever_list_shape_the_user_has_pass_strict() {
    // tomlhooks edits its TOML in place: its [[hooks]] tables appended, or
    // its items inside the user's inline `hooks = [...]`. The lived-in world
    // lays both shapes down with the user's hooks, edits it between two
    // installs, and wants the user's bytes back after the uninstall.
    let run = passes_with("tomlhooks", &[], &[], &[]);
    assert!(
        run.ids("passed")
            .iter()
            .any(|p| p == "hooks.user-data.lived-in")
    );
    // The bug of a plugin written for [[hooks]] tables only: they are
    // appended after the user's inline array too, `hooks` is defined twice
    // and the agent can no longer read its config.
    let only = ["--only", "hooks.user-data.lived-in"];
    let run = run_json(
        &wild("tomlhooks"),
        &only,
        &[("TOMLHOOKS_FAULT", "append-tables")],
    );
    assert_eq!(
        run.ids("failed"),
        vec!["hooks.user-data.lived-in".to_string()]
    );
    let message = run.messages("hooks.user-data.lived-in");
    assert!(message.contains("unreadable as TOML"), "{message}");
    assert!(message.contains("TOML inline arrays"), "{message}");
    assert_eq!(run.code, 1);
}

#[test]
fn a_second_hooks_key_beside_a_users_flow_list_fails() {
    // yamlconfig edits a one-line flow list in place (it passes --strict:
    // tests/all/wild_project.rs); its twin starts a block list under a second
    // `hooks:` key, which no YAML reader takes.
    let only = ["--only", "hooks.user-data.lived-in"];
    let fault = ("YAMLCONFIG_FAULT", "flow-second-key");
    let run = run_json(&wild("yamlconfig"), &only, &[fault]);
    assert_eq!(
        run.ids("failed"),
        vec!["hooks.user-data.lived-in".to_string()]
    );
    let message = run.messages("hooks.user-data.lived-in");
    assert!(message.contains("unreadable as YAML"), "{message}");
    assert!(message.contains("YAML flow sequences"), "{message}");
}

#[test]
fn a_config_clobbered_in_any_format_or_a_trust_list_rewritten_fails_naming_file_and_key() {
    let faults = [
        (
            "clobber-toml",
            ".manyformats/hooks.toml (TOML",
            "`agent_conform_user_model` was \"user-model-7\", now missing",
        ),
        (
            "clobber-yaml",
            "manyformats/config.yaml (YAML",
            // The user's spellings block sorts first in the summary now.
            "`agent_conform_user_model` was \"user-model-7\", now missing",
        ),
        (
            "clobber-ini",
            ".manyformats/settings.ini (INI",
            "`hooks.agent_conform_user_entry` was \"echo agent-conform-user-hook\", now missing",
        ),
        (
            "drop-trust",
            ".manyformats/trusted.json (JSON",
            "`folders` lost the user's items {\"path\":\"/home/user/trusted-project\",\"trusted\":true}",
        ),
        (
            "trust-all",
            ".manyformats/trusted.json (JSON",
            "{\"path\":\"/home/user/untrusted-project\",\"trusted\":false} changed: now {\"path\":\"/home/user/untrusted-project\",\"trusted\":true}",
        ),
    ];
    // (hooks.user-data.lived-in catches the clobbered hook configs too.)
    let args = [
        "--only",
        "hooks.user-data.existing-settings",
        "--cases",
        &cases("manyformats"),
    ];
    for (fault, file, key) in faults {
        let run = run_json(&wild("manyformats"), &args, &[("MANYFORMATS_FAULT", fault)]);
        let id = "hooks.user-data.existing-settings";
        assert_eq!(run.ids("failed"), vec![id.to_string()], "{fault}");
        let message = run.messages(id);
        assert!(message.contains("user data lost in "), "{fault}: {message}");
        assert!(message.contains(file), "{fault}: {message}");
        assert!(message.contains(key), "{fault}: {message}");
    }
}

#[test]
fn a_state_file_of_the_plugins_own_must_be_named_or_it_is_the_users() {
    // Without `own_files:`, the user's content planted in the plugin's state
    // file must be kept too: the plugin deletes it on uninstall.
    let run = run_json(&wild("manyformats"), &["--only", "hooks.user-data.*"], &[]);
    let id = "hooks.user-data.existing-settings";
    assert_eq!(run.ids("failed"), vec![id.to_string()]);
    let message = run.messages(id);
    assert!(
        message.contains("the user's own file was deleted")
            && message.contains("state/installed.json"),
        "{message}"
    );
}

#[test]
fn hooks_fired_by_the_agents_own_library_bend_written_rules_only() {
    // install-hooks changes nothing and reports 0, uninstall-hooks changes
    // nothing, are-hooks-installed is always true: every hook-install
    // finding is a written rule only, a warning that says why.
    passes_with(
        "libhooks",
        &[],
        &[
            "hooks.lifecycle.fresh-not-installed",
            "hooks.lifecycle.install",
            "hooks.lifecycle.uninstall",
            "hooks.user-data.existing-settings",
            "session.enable-remove",
        ],
        // The same finding in the other work trees: said once (also in).
        &[
            "session.enable-remove.linked-worktree",
            "session.enable-remove.submodule",
        ],
    );
    let run = run_json(&wild("libhooks"), &["--only", "hooks.lifecycle.*"], &[]);
    let message = run.messages("hooks.lifecycle.fresh-not-installed");
    assert!(
        message.contains("the agent's own library fires this plugin's hooks"),
        "{message}"
    );
    // The twin: are-hooks-installed true while install-hooks writes files.
    twin_fails(
        "are-installed-always-true",
        &[
            "hooks.lifecycle.fresh-not-installed",
            "session.enable-remove",
        ],
        "not the expected value",
    );
}

#[test]
fn writing_under_the_git_dir_as_git_resolves_it_passes_in_every_work_tree() {
    // docs/host.md "Linked worktrees and submodules": the plugin follows
    // `.git` when it is a file (gitdir:, commondir) and passes the hook
    // lifecycle and the session in a linked worktree and a submodule too.
    passes_with("gitexclude", &[], &[], &[]);
    let run = run_json(&wild("gitexclude"), &["--only", "session.*"], &[]);
    let passed = set(&run
        .ids("passed")
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    for kind in ["linked-worktree", "submodule"] {
        for case in ["session.enable-remove", "session.agent"] {
            let id = format!("{case}.{kind}");
            assert!(passed.contains(&id), "{id} passes: {passed:?}");
        }
    }
}

#[test]
fn joining_dot_git_naively_fails_install_hooks_in_a_linked_worktree() {
    // The faulty twin: the reference writes a marker at <root>/.git/... once
    // its hooks are written; in a plain repository nothing shows, in a
    // linked worktree or a submodule install-hooks fails "Not a directory"
    // (and are-hooks-installed would then answer true): `entire enable`
    // fails there.
    let fault = [("ENTIRE_AGENT_REFERENCE_FAULT", "install-git-dir-naive")];
    let run = run_json(
        &common::reference(),
        &["--only", "session.enable-remove*"],
        &fault,
    );
    assert_eq!(
        run.ids("failed"),
        vec![
            "session.enable-remove.linked-worktree".to_string(),
            "session.enable-remove.submodule".to_string()
        ]
    );
    assert_eq!(
        failed_steps(&run, "session.enable-remove.linked-worktree"),
        vec!["entire enable · install-hooks".to_string()]
    );
}
