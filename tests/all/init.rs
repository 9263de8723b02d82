//! `agent-conform init`: the scaffold of a plugin repository's own cases
//! loads, runs and passes on the reference plugin, follows what `info`
//! declares, and never overwrites a file without `--force`; `--ci github`
//! adds the workflow to an existing conformance directory, with the
//! plugin's own build.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{harness, reference, run_json};

/// Runs `agent-conform init` in `cwd` with extra arguments and environment.
fn init(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = harness();
    cmd.current_dir(cwd).arg("init").arg(reference()).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("agent-conform runs")
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_scaffold_of_the_reference_plugin_runs_and_passes() {
    let repo = tempfile::tempdir().expect("temp dir");
    let out = init(repo.path(), &["conformance", "--ci", "github"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "init failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("conformance/reference.yaml"), "{stdout}");

    let dir = repo.path().join("conformance");
    let cases = text(&dir.join("reference.yaml"));
    // Real payloads come from `record`: the scaffold says how.
    assert!(
        cases.contains("agent-conform record --out conformance "),
        "{cases}"
    );
    // One case per hook name, with the guide's event type where it names one.
    for hook in [
        "session-start",
        "session-end",
        "user-prompt-submit",
        "stop",
        "pre-task",
        "post-task",
        "pre-compact",
    ] {
        assert!(
            cases.contains(&format!("reference.parse-hook.{hook}\n")),
            "{hook} missing:\n{cases}"
        );
    }
    assert!(
        cases.contains("{pointer: /type, equals: 3}   # TurnEnd"),
        "{cases}"
    );
    // A commented template for each declared transcript capability.
    for template in [
        "transcript.analysis",
        "tokens",
        "subagents",
        "prepare",
        "compact",
    ] {
        assert!(
            cases.contains(&format!("# - id: reference.{template}\n")),
            "{template}:\n{cases}"
        );
    }
    assert!(text(&dir.join("samples/README.md")).contains("transcript_analyzer"));
    let workflow = text(&repo.path().join(".github/workflows/agent-conform.yml"));
    // The default branch until a release exists; the comment names the tag.
    assert!(
        workflow.contains("uses: entireio/agent-conform@main\n"),
        "{workflow}"
    );
    assert!(
        workflow.contains("pin its tag") && workflow.contains("entireio/agent-conform@v"),
        "{workflow}"
    );
    // No manifest in the temporary directory: a build step that fails.
    assert!(workflow.contains("exit 1"), "{workflow}");
    assert!(workflow.contains("cases: \"conformance\""), "{workflow}");

    let run = run_json(
        &reference(),
        &["--strict", "--cases", dir.to_str().expect("utf-8")],
        &[],
    );
    let own: Vec<String> = run
        .ids("passed")
        .into_iter()
        .filter(|id| id.starts_with("reference."))
        .collect();
    assert_eq!(
        run.code,
        0,
        "failed: {:?} warned: {:?}",
        run.ids("failed"),
        run.ids("warning")
    );
    // detect absent and present, and the seven hooks.
    assert_eq!(own.len(), 9, "{own:?}");
}

#[test]
fn a_plugin_without_capabilities_gets_only_the_detect_cases() {
    let repo = tempfile::tempdir().expect("temp dir");
    let variant = [("ENTIRE_AGENT_REFERENCE_VARIANT", "no-capabilities")];
    let out = init(repo.path(), &[], &variant);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = repo.path().join("conformance");
    let cases = text(&dir.join("reference.yaml"));
    assert!(!cases.contains("parse-hook"), "{cases}");
    assert!(
        !cases.contains("# - id:"),
        "no templates expected:\n{cases}"
    );
    assert!(!text(&dir.join("samples/README.md")).contains("transcript_analyzer"));
    assert!(
        !repo.path().join(".github").exists(),
        "no workflow without --ci"
    );

    let run = run_json(
        &reference(),
        &["--strict", "--cases", dir.to_str().expect("utf-8")],
        &variant,
    );
    assert_eq!(run.code, 0, "failed: {:?}", run.ids("failed"));
    let own: Vec<String> = run
        .ids("passed")
        .into_iter()
        .filter(|id| id.starts_with("reference."))
        .collect();
    assert_eq!(own, ["reference.detect.absent", "reference.detect.present"]);
}

#[test]
fn a_second_init_refuses_to_overwrite_without_force() {
    let repo = tempfile::tempdir().expect("temp dir");
    assert!(init(repo.path(), &[], &[]).status.success());
    let case_file = repo.path().join("conformance/reference.yaml");
    std::fs::write(&case_file, "# edited by the author\n").expect("write");

    let again = init(repo.path(), &[], &[]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("already exist") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(
        text(&case_file),
        "# edited by the author\n",
        "the file was overwritten"
    );

    let forced = init(repo.path(), &["--force"], &[]);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert!(text(&case_file).contains("reference.detect.absent"));
}

#[test]
fn a_plugin_whose_info_fails_is_a_usage_error() {
    let repo = tempfile::tempdir().expect("temp dir");
    let out = init(
        repo.path(),
        &[],
        &[("ENTIRE_AGENT_REFERENCE_FAULT", "info-crash")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("info exited with code 1"), "{stderr}");
    assert!(
        !repo.path().join("conformance").exists(),
        "nothing may be written"
    );
}

#[test]
fn a_variable_a_first_call_names_is_set_by_the_scaffold() {
    // needsenv refuses get-session-dir without FOO_HOME: the scaffold sets
    // it with `env:`, and the suite with the scaffold runs for real.
    let repo = tempfile::tempdir().expect("temp dir");
    let plugin = common::plugin("wild/entire-agent-needsenv");
    let out = harness()
        .current_dir(repo.path())
        .arg("init")
        .arg(&plugin)
        .arg("conformance")
        .output()
        .expect("agent-conform runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = repo.path().join("conformance");
    let cases = text(&dir.join("needsenv.yaml"));
    assert!(
        cases.contains("env:\n  FOO_HOME: \"{{home}}/.foo_home\"\n"),
        "{cases}"
    );
    let dir = dir.to_string_lossy().into_owned();
    let only = ["--cases", &dir, "--only", "core.get-session-dir.*"];
    let run = run_json(&plugin, &only, &[]);
    assert_eq!(run.code, 0);
    assert_eq!(run.ids("note"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
}

/// The workflow runs at the top of the repository, after checkout: its
/// paths are relative to it, wherever `init` ran; a plugin outside the
/// repository is named as given, and `init` says why.
#[test]
fn the_workflow_names_paths_relative_to_the_repository() {
    let repo = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(repo.path().join(".git")).expect("mkdir .git");
    let bin = repo.path().join("target/release");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(reference(), bin.join("entire-agent-reference")).expect("link");
    let sub = repo.path().join("plugin");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let out = harness()
        .current_dir(&sub)
        .args(["init", "../target/release/entire-agent-reference"])
        .args(["conformance", "--ci", "github"])
        .output()
        .expect("agent-conform runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("lies outside"), "{stdout}");
    let workflow = text(&repo.path().join(".github/workflows/agent-conform.yml"));
    assert!(
        workflow.contains("binary-path: \"target/release/entire-agent-reference\""),
        "{workflow}"
    );
    assert!(
        workflow.contains("cases: \"plugin/conformance\""),
        "{workflow}"
    );

    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(outside.path().join(".git")).expect("mkdir .git");
    let out = init(outside.path(), &["conformance", "--ci", "github"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("note: ") && stdout.contains("lies outside the repository"),
        "{stdout}"
    );
}

/// A plugin with payloads of its own shape refuses the scaffold's guessed
/// ones: the scaffold still runs green, with one note that says what to
/// fill in, and never a failure.
#[test]
fn a_scaffold_whose_guesses_the_plugin_refuses_runs_green_with_one_line() {
    let repo = tempfile::tempdir().expect("temp dir");
    let plugin = common::plugin("wild/entire-agent-ownhooks");
    let out = harness()
        .current_dir(repo.path())
        .arg("init")
        .arg(&plugin)
        .output()
        .expect("agent-conform runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = repo.path().join("conformance");
    let cases = text(&dir.join("ownhooks.yaml"));
    assert!(cases.contains("    guess: true"), "{cases}");
    // The comments lead with record.
    let record = cases.find("agent-conform record").expect("record");
    let run_line = cases.find("agent-conform --cases").expect("run");
    assert!(record < run_line, "{cases}");

    let dir = dir.to_string_lossy().into_owned();
    let args = ["--strict", "--cases", &dir, "--only", "ownhooks.*"];
    let run = run_json(&plugin, &args, &[]);
    assert_eq!(
        run.code,
        0,
        "failed: {:?} warned: {:?}",
        run.ids("failed"),
        run.ids("warning")
    );
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    let notes = run.ids("note");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        run.messages(&notes[0])
            .contains("your samples are still the scaffold's guess: record a session"),
        "{}",
        run.messages(&notes[0])
    );
    assert!(!run.ids("skipped").is_empty());

    let human = harness()
        .args([
            "-q",
            "--strict",
            "--color",
            "never",
            "--cases",
            &dir,
            "--only",
            "ownhooks.*",
        ])
        .arg(&plugin)
        .output()
        .expect("agent-conform runs");
    let stdout = String::from_utf8_lossy(&human.stdout);
    assert!(human.status.success(), "{stdout}");
    // (Lines fold at 100 columns: the words, whatever the lines.)
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(words.matches("scaffold's guess").count(), 1, "{stdout}");

    // What only a recording verifies (the agent session, replayed on the
    // generic payloads it answers with no TurnEnd) is allowed by the
    // scaffold, with its reason: green under --strict, said plainly.
    assert!(
        cases.contains("  - code: unverified\n    reason: not verified until"),
        "{cases}"
    );
    let args = ["--strict", "--cases", &dir, "--only", "session.agent"];
    let run = run_json(&plugin, &args, &[]);
    assert_eq!(run.code, 0, "warned: {:?}", run.ids("warning"));
    assert_eq!(run.ids("note"), ["session.agent"]);
    let said = run.messages("session.agent");
    assert!(said.contains("is not verified"), "{said}");
    assert!(
        said.contains("(allowed: not verified until this repository holds a recording"),
        "{said}"
    );
}

/// `--ci github` beside a conformance directory of the author's writes the
/// workflow alone, says so, and does not ask the plugin (whose `info` may
/// be what the author is fixing).
#[test]
fn the_workflow_is_added_to_an_existing_conformance_directory() {
    let repo = tempfile::tempdir().expect("temp dir");
    assert!(init(repo.path(), &[], &[]).status.success());
    let case_file = repo.path().join("conformance/reference.yaml");
    std::fs::write(&case_file, "# edited by the author\n").expect("write");
    let crash = [("ENTIRE_AGENT_REFERENCE_FAULT", "info-crash")];
    let out = init(repo.path(), &["conformance", "--ci", "github"], &crash);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wrote: Vec<&str> = stdout.lines().filter(|l| l.starts_with("wrote ")).collect();
    assert_eq!(
        wrote,
        ["wrote .github/workflows/agent-conform.yml"],
        "{stdout}"
    );
    assert!(stdout.contains("wrote only the workflow"), "{stdout}");
    assert_eq!(text(&case_file), "# edited by the author\n");

    // A second time, the workflow exists: refused without --force.
    let again = init(repo.path(), &["conformance", "--ci", "github"], &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("agent-conform.yml already exists"));
}

/// The workflow builds the plugin as the repository's `go.mod` says, into
/// the path its next step runs.
#[test]
fn the_workflow_builds_a_go_plugin_with_go_build() {
    let repo = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(repo.path().join(".git")).expect("mkdir .git");
    std::fs::write(repo.path().join("go.mod"), "module example.com/foo\n").expect("write");
    std::fs::write(repo.path().join("main.go"), "package main\n").expect("write");
    std::os::unix::fs::symlink(reference(), repo.path().join("entire-agent-reference"))
        .expect("link");
    let out = harness()
        .current_dir(repo.path())
        .args(["init", "./entire-agent-reference", "--ci", "github"])
        .output()
        .expect("agent-conform runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("note: the workflow builds the plugin as go.mod says"),
        "{stdout}"
    );
    let workflow = text(&repo.path().join(".github/workflows/agent-conform.yml"));
    assert!(
        workflow.contains("        run: |\n          go build -o entire-agent-reference .\n"),
        "{workflow}"
    );
    assert!(
        workflow.contains("binary-path: \"./entire-agent-reference\""),
        "{workflow}"
    );
}

/// A run with no `--cases`, in the directory `init` scaffolded, takes
/// `./conformance` and says so in one line; `--cases` given, it does not.
#[test]
fn a_run_beside_the_scaffold_picks_it_up_and_says_so() {
    let repo = tempfile::tempdir().expect("temp dir");
    assert!(init(repo.path(), &[], &[]).status.success());
    let sandboxes = tempfile::tempdir().expect("temp dir");
    let run = |extra: &[&str]| {
        harness()
            .current_dir(repo.path())
            .args(["--format", "json", "--only", "*.detect.*", "--sandbox-dir"])
            .arg(sandboxes.path())
            .args(extra)
            .arg(reference())
            .output()
            .expect("agent-conform runs")
    };
    let out = run(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("conformance"))
        .collect();
    assert_eq!(
        said,
        [
            "agent-conform: using the case files of ./conformance (found in the current directory; --cases DIR names others)"
        ]
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("\"reference.detect.absent\""), "{report}");

    let elsewhere = tempfile::tempdir().expect("temp dir");
    let elsewhere = elsewhere.path().to_str().expect("utf-8");
    let out = run(&["--cases", elsewhere]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("using the case files"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\"reference.detect.absent\""));
}
