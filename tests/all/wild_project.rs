//! The user's project as the host treats it (docs/host.md, "The user's
//! project as the host treats it"): `detect` as setup uses it, and the
//! places of the agent's transcripts that restores must hit. Each rule has
//! an independent plugin that passes `--strict` and a fault of the
//! reference plugin that it catches.

use crate::common;

use common::wild::{cases, outcome, set, wild};
use common::{reference, run_json};

#[test]
fn a_detect_present_only_where_the_agent_ran_passes_strict() {
    // No hooks (an attach-only adapter): detect says absent in the empty
    // sandbox and present where the agent's history file is (its own case).
    let run = run_json(
        &wild("repodetect"),
        &["--strict", "--cases", &cases("repodetect")],
        &[],
    );
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert!(outcome(&run, "passed").contains("repodetect.detect.where-it-ran"));
    assert!(outcome(&run, "passed").contains("core.detect.never-installed"));
    assert_eq!(run.code, 0);
}

#[test]
fn a_detect_always_present_without_hooks_fails_the_enable_by_release() {
    let only = ["--only", "core.detect.*"];
    let fault = ("ENTIRE_AGENT_REFERENCE_FAULT", "detect-always-present");
    let no_hooks = ("ENTIRE_AGENT_REFERENCE_VARIANT", "no-capabilities");
    let run = run_json(&reference(), &only, &[fault, no_hooks]);
    assert_eq!(
        outcome(&run, "failed"),
        set(&["core.detect.never-installed"])
    );
    let message = run.messages("core.detect.never-installed");
    assert!(message.contains("entire enable"), "{message}");
    assert!(message.contains("declares no hooks"), "{message}");
    // Before setup asked plugins' detect, a warning at most.
    let old = ["--only", "core.detect.*", "--host-version", "0.5.0"];
    let run = run_json(&reference(), &old, &[fault, no_hooks]);
    assert_eq!(
        outcome(&run, "warning"),
        set(&["core.detect.never-installed"])
    );
    // With hooks: the agent is enabled where it never runs, a warning.
    let run = run_json(&reference(), &only, &[fault]);
    assert_eq!(
        outcome(&run, "warning"),
        set(&["core.detect.never-installed"])
    );
    assert_eq!(run.ids("failed"), Vec::<String>::new());
}

/// `detect` where the agent is installed (`agent:` of the plugin's own
/// case file, laid down for `core.detect.installed`): present with hooks
/// passes, absent with hooks warns, present without hooks fails (a
/// non-interactive `entire enable` aborts), and without an `agent:` the
/// case is skipped, saying how to describe one.
#[test]
fn detect_where_the_agent_is_installed_is_judged_by_hooks() {
    let reference_cases = common::root().join("reference-plugin/conformance");
    let reference_cases = reference_cases.to_string_lossy().into_owned();
    let args = [
        "--only",
        "core.detect.installed",
        "--cases",
        &reference_cases,
    ];
    let with_hooks = run_json(&reference(), &args, &[]);
    assert!(outcome(&with_hooks, "passed").contains("core.detect.installed"));
    assert_eq!(with_hooks.code, 0);
    let never = ("ENTIRE_AGENT_REFERENCE_FAULT", "detect-never-present");
    let absent = run_json(&reference(), &args, &[never]);
    assert_eq!(outcome(&absent, "warning"), set(&["core.detect.installed"]));
    let no_hooks = ("ENTIRE_AGENT_REFERENCE_VARIANT", "no-capabilities");
    let hookless = run_json(&reference(), &args, &[no_hooks]);
    assert_eq!(
        outcome(&hookless, "failed"),
        set(&["core.detect.installed"])
    );
    let message = hookless.messages("core.detect.installed");
    assert!(message.contains("does not support hooks"), "{message}");
    // The independent plugin: present where its agent left its history.
    let world = common::root().join("tests/plugins/wild/repodetect-installed");
    let world = world.to_string_lossy().into_owned();
    let only = ["--only", "core.detect.installed"];
    let repodetect = run_json(
        &wild("repodetect"),
        &[&only[..], &["--cases", &world]].concat(),
        &[],
    );
    assert_eq!(
        outcome(&repodetect, "failed"),
        set(&["core.detect.installed"])
    );
    let undescribed = run_json(&wild("repodetect"), &only, &[]);
    assert_eq!(
        outcome(&undescribed, "skipped"),
        set(&["core.detect.installed"])
    );
}

#[test]
fn an_agent_that_names_its_own_transcripts_and_restores_there_passes_strict() {
    // Without a transcript path, its Events name <session dir>/<id>.log,
    // and resolve-session-file gives the same file.
    let run = run_json(&wild("agentplace"), &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert_eq!(run.ids("note"), Vec::<String>::new());
    assert_eq!(run.code, 0);
}

#[test]
fn a_restore_that_differs_from_the_events_transcript_fails_even_in_its_file_name() {
    let only = ["--only", "session.agent"];
    for (fault, needle) in [
        // Only the file name differs: <id>.json where the agent keeps <id>.jsonl.
        (
            "resolve-file-name",
            "the plugin's own Events name the agent's transcript",
        ),
        // Another directory, outside the session directory: no owner either.
        ("transcripts-elsewhere", "finds no owner"),
    ] {
        let run = run_json(
            &reference(),
            &only,
            &[("ENTIRE_AGENT_REFERENCE_FAULT", fault)],
        );
        assert_eq!(outcome(&run, "failed"), set(&["session.agent"]), "{fault}");
        let message = run.messages("session.agent");
        assert!(message.contains(needle), "{fault}: {message}");
    }
    let run = run_json(&reference(), &only, &[]);
    assert_eq!(
        outcome(&run, "passed"),
        set(&["discovery.info", "session.agent"])
    );
}

#[test]
fn protected_paths_of_the_agents_own_pass_strict_and_a_project_file_fails() {
    // agentconf (created by its install), sessionlog (created by its
    // session's parse-hook), .ownprotected (named for it), and an absolute
    // path under HOME (no project path under it).
    let run = run_json(&wild("ownprotected"), &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert!(outcome(&run, "passed").contains("core.protected-paths"));
    // Its hooks are in a file of the repository (agentconf/hooks.json).
    assert!(outcome(&run, "passed").contains("hooks.lifecycle.shared-hooks"));
    assert_eq!(run.code, 0);
    // config.toml, a file the agent keeps under HOME, hides the project's.
    let fault = ("ENTIRE_AGENT_REFERENCE_FAULT", "info-protects-project-file");
    let run = run_json(&reference(), &["--only", "core.protected-paths"], &[fault]);
    assert_eq!(outcome(&run, "failed"), set(&["core.protected-paths"]));
    let message = run.messages("core.protected-paths");
    assert!(
        message.contains("entire rewind does not restore it"),
        "{message}"
    );
    // Shown: the project's config.toml committed, then edited in a turn
    // between the reference's TurnStart and TurnEnd hooks.
    assert!(
        message.contains("the project's config.toml, committed, then edited in a turn"),
        "{message}"
    );
    assert!(
        message.contains("user-prompt-submit (TurnStart)"),
        "{message}"
    );
    assert!(
        message.contains("the turn makes no checkpoint"),
        "{message}"
    );
    assert!(
        message.contains("its committed bytes are not restored"),
        "{message}"
    );
    // Before 0.5.6 the host does not read them: not reported.
    let old = ["--only", "core.protected-paths", "--host-version", "0.5.5"];
    let run = run_json(&reference(), &old, &[fault]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
}

#[test]
fn hooks_in_a_file_under_home_warn_and_are_shown_with_a_second_repository() {
    let fault = ("ENTIRE_AGENT_REFERENCE_FAULT", "hooks-in-home");
    let only = ["--only", "hooks.lifecycle.shared-hooks"];
    let run = run_json(&reference(), &only, &[fault]);
    assert_eq!(
        outcome(&run, "warning"),
        set(&["hooks.lifecycle.shared-hooks"])
    );
    let message = run.messages("hooks.lifecycle.shared-hooks");
    assert!(message.contains("under HOME"), "{message}");
    assert!(message.contains("in the other answered false"), "{message}");
    let run = run_json(&reference(), &only, &[]);
    assert!(outcome(&run, "passed").contains("hooks.lifecycle.shared-hooks"));
}

#[test]
fn a_yaml_config_of_the_repository_edited_in_place_passes_strict() {
    // yamlconfig inserts its hook items into the user's YAML list by
    // editing the text (a block list, or a flow list on one line): the
    // planted comments, anchors and spellings stay.
    let run = run_json(&wild("yamlconfig"), &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert!(outcome(&run, "passed").contains("hooks.user-data.existing-settings"));
    assert!(outcome(&run, "passed").contains("hooks.lifecycle.shared-hooks"));
    // Its list as the user keeps it, in block and in flow style, edited
    // between two installs (docs/host.md "The user's machine, not a clean
    // room").
    assert!(outcome(&run, "passed").contains("hooks.user-data.lived-in"));
    assert_eq!(run.code, 0);
}

#[test]
fn a_config_re_marshalled_through_a_map_fails_with_its_first_changed_line() {
    // manyformats edits its TOML, YAML and INI files in place (its own
    // lines only); under `remarshal-ini` the INI file goes through
    // configparser: every value kept, the user's comments and spellings
    // lost.
    let args = [
        "--only",
        "hooks.user-data.existing-settings",
        "--cases",
        &cases("manyformats"),
    ];
    let run = run_json(&wild("manyformats"), &args, &[]);
    assert!(outcome(&run, "passed").contains("hooks.user-data.existing-settings"));
    let fault = ("MANYFORMATS_FAULT", "remarshal-ini");
    let run = run_json(&wild("manyformats"), &args, &[fault]);
    let id = "hooks.user-data.existing-settings";
    assert_eq!(outcome(&run, "failed"), set(&[id]));
    let message = run.messages(id);
    assert!(message.contains("user data rewritten in"), "{message}");
    assert!(message.contains("settings.ini"), "{message}");
    assert!(message.contains("line 1 of the user's file"), "{message}");
}

#[test]
fn the_reference_re_marshalling_its_toml_config_fails_with_the_first_changed_line() {
    // install-remarshals-config: the reference turns its hooks on in
    // .reference/config.toml through a map. The user's content (planted in
    // that file after a first install shows it) keeps its values and loses
    // its lines.
    let only = ["--only", "hooks.user-data.existing-settings"];
    let fault = ("ENTIRE_AGENT_REFERENCE_FAULT", "install-remarshals-config");
    let run = run_json(&reference(), &only, &[fault]);
    let id = "hooks.user-data.existing-settings";
    assert_eq!(outcome(&run, "failed"), set(&[id]));
    let message = run.messages(id);
    assert!(
        message.contains(".reference/config.toml (TOML"),
        "{message}"
    );
    assert!(message.contains("line 1 of the user's file"), "{message}");
    assert!(message.contains("re-marshalled through a map"), "{message}");
    let run = run_json(&reference(), &only, &[]);
    assert!(outcome(&run, "passed").contains(id));
}
