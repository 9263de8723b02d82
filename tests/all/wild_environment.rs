//! Plugins in the wild (tests/common/wild.rs): what a plugin needs around
//! it. A variable its agent always sets (`env:` in its cases runs the checks
//! for real), `entire` on PATH (the sandbox's stand-in), a name that is
//! built in on the older hosts (retired `gemini`), and the user's machine:
//! a clock off UTC, a repository in a folder with a space and an accent,
//! transcript lines of megabytes (`userworld`, a Go program, and its twins
//! that fail).

use crate::common;

use common::go::go_plugin;
use common::run_json;
use common::wild::{cases, go_passes_with, outcome, passes_with, set, wild};

#[test]
fn a_variable_its_agent_always_sets_is_not_verified_here_and_env_runs_the_checks_for_real() {
    // FOO_HOME must be set in every session and hook subcommand: each case
    // that needs it is "not verified here", a note, said in full once (at
    // the first case in report order) with the YAML that sets it. Nothing
    // of hooks, which info declares, was verified: that is the one warning
    // (code `unverified`), at the first hooks case, with the same YAML; the
    // other hooks cases point there. The core session subcommands are no
    // declared capability: notes only.
    let core = [
        "core.path-safety.session-id-parent",
        "core.path-safety.session-id-absolute",
        "core.path-safety.session-id-backslash",
        "core.path-safety.write-session-ref-escapes",
        "core.format-resume-command.non-empty",
        "core.format-resume-command.mentions-id",
        "core.get-session-dir.non-empty",
        "core.get-session-dir.absolute",
        "core.resolve-session-file.contains-id",
        "core.resolve-session-file.host-names",
        "core.resolve-session-file.distinct-ids",
        "core.session.write-then-read",
        "session.agent",
        "session.agent.linked-worktree",
        "session.agent.submodule",
    ];
    let hooks = [
        "hooks.lifecycle.fresh-not-installed",
        "hooks.lifecycle.install",
        "hooks.lifecycle.idempotent",
        "hooks.lifecycle.force",
        "hooks.lifecycle.local-dev",
        "hooks.lifecycle.uninstall",
        "hooks.lifecycle.uninstall-when-not-installed",
        "hooks.lifecycle.user-hooks-not-installed",
        "hooks.user-data.fresh-install",
        "hooks.user-data.existing-settings",
        "hooks.user-data.lived-in",
        "hooks.user-data.no-leftovers",
        "hooks.lifecycle.manual-uninstall",
        "hooks.lifecycle.shared-hooks",
        "hooks.parse-hook.whole-stdin",
        "session.enable-remove",
        "session.enable-remove.linked-worktree",
        "session.enable-remove.submodule",
    ];
    let notes: Vec<&str> = core.iter().chain(&hooks).copied().collect();
    let first = "hooks.fire.reach-entire";
    let run = passes_with("needsenv", &[], &[first], &notes);
    let message = run.messages(first);
    assert!(
        message.contains("not verified here: the plugin needs FOO_HOME, which its agent sets")
            && message.contains("hooks, which info declares, is unverified")
            && message.contains("`env: {FOO_HOME: \"{{home}}/...\"}`"),
        "{message}"
    );
    let full = run.messages(core[0]);
    assert!(
        full.contains("not verified here: the plugin needs FOO_HOME, which its agent sets")
            && full.contains("`env: {FOO_HOME: \"{{home}}/...\"}`"),
        "{full}"
    );
    let again = run.messages("hooks.lifecycle.install");
    assert!(
        again.contains(&format!(
            "hooks is unverified (see {first}, where the run says it once)"
        )),
        "{again}"
    );
    let again = run.messages("core.session.write-then-read");
    assert!(
        again.contains(&format!("(see {}, where the run says it once)", core[0])),
        "{again}"
    );
    // Its own case file sets FOO_HOME with `env:`: everything runs and passes.
    let args = ["--cases", &cases("needsenv")];
    let run = passes_with("needsenv", &args, &[], &[]);
    for id in [
        "needsenv.session-dir.under-foo-home",
        "needsenv.session-dir.case-env",
        "hooks.lifecycle.install",
        "core.session.write-then-read",
        "session.agent",
    ] {
        assert!(run.ids("passed").iter().any(|p| p == id), "{id} passes");
    }
}

#[test]
fn a_plugin_that_needs_entire_on_path_finds_the_stand_in() {
    // install-hooks refuses without `entire` on PATH; the sandbox's
    // stand-in is there, as the host is, and records the call it gets.
    passes_with("needsentire", &[], &[], &[]);
    let args = ["--cases", &cases("needsentire")];
    let run = passes_with("needsentire", &args, &[], &[]);
    let case = run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["id"] == "needsentire.install.asks-the-host")
        .cloned()
        .unwrap_or_default();
    assert_eq!(case["outcome"]["kind"], "passed", "{case}");
    assert_eq!(case["host_calls"], serde_json::json!(["entire --version"]));
}

#[test]
fn a_plugin_named_like_the_retired_gemini_passes_for_the_newest_hosts_and_warns_for_the_older() {
    // Judged for every release: gemini is built in on the older ones, where
    // the plugin is never run; the finding names them, and --strict fails.
    let plugin = wild("gemini");
    let all = run_json(&plugin, &["--strict"], &[]);
    assert_eq!(outcome(&all, "warning"), set(&["discovery.not-built-in"]));
    assert_eq!(outcome(&all, "failed"), set(&[]));
    let said = all.messages("discovery.not-built-in");
    assert!(
        said.starts_with("on entire 0.5.0–0.10.5 and perhaps 0.11.x")
            && said.contains("`gemini` is a built-in agent: this plugin is never run there")
            && said.contains("0.12.0 at the latest"),
        "{said}"
    );
    assert_eq!(all.code, 1);
    // Judged for the newest hosts only, which retired the built-in: it
    // passes under --strict, its type "Gemini CLI" colliding with nothing.
    let newest = run_json(&plugin, &["--strict", "--host-version", ">=0.12"], &[]);
    assert_eq!(outcome(&newest, "warning"), set(&[]));
    assert_eq!(outcome(&newest, "failed"), set(&[]));
    assert_eq!(newest.report["hosts"]["releases"], "0.12.x");
    assert_eq!(newest.code, 0);
}

#[test]
fn a_plugin_at_home_on_the_users_machine_passes_strict() {
    // Local time with its offset in every Event (+05:30 in the sandbox,
    // -03:30 in the session replay), the repository's path quoted in its
    // hook commands, transcripts read a line at a time however long: a Go
    // program (tests/plugins/go/entire-agent-userworld).
    let Some(run) = go_passes_with("userworld", &[], &[], &[]) else {
        return;
    };
    for id in [
        "hooks.fire.reach-entire",
        "hooks.parse-hook.payload",
        "session.agent",
        "transcript_analyzer.long-lines",
        "token_calculator.long-lines",
    ] {
        assert!(run.ids("passed").contains(&id.to_string()), "{id} passes");
    }
}

/// Its twins: the same Go source built with one habit switched
/// (`main.variant`).
#[test]
fn its_twins_off_utc_with_an_unquoted_path_or_a_64k_scanner_fail() {
    let twins = [
        // Go's layout Z0700: +0530, without its colon.
        ("z0700", "hooks.parse-hook.payload", "no colon"),
        ("unquoted", "hooks.fire.reach-entire", "sh splits the path"),
        // bufio.Scanner's default limit, its error unchecked.
        (
            "scanner",
            "transcript_analyzer.long-lines",
            "is not the original's",
        ),
    ];
    for (variant, case, needle) in twins {
        let Some(twin) = go_plugin("userworld", Some(variant)) else {
            return;
        };
        let run = run_json(&twin, &["--only", case], &[]);
        assert_eq!(outcome(&run, "failed"), set(&[case]), "{variant}");
        assert!(
            run.messages(case).contains(needle),
            "{needle:?} in {}",
            run.messages(case)
        );
    }
    // The scanner's error checked: the call fails where it answered the
    // original; the host logs it and falls back, a warning.
    let Some(checked) = go_plugin("userworld", Some("scanner-checked")) else {
        return;
    };
    let run = run_json(&checked, &["--only", "token_calculator.long-lines"], &[]);
    assert_eq!(
        outcome(&run, "warning"),
        set(&["token_calculator.long-lines"])
    );
    assert!(
        run.messages("token_calculator.long-lines")
            .contains("bufio.Scanner: token too long")
    );
}
