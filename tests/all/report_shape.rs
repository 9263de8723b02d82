//! The human report at a glance, and the reproduce scripts behind it.
//!
//! - The `-q` budget: on a plugin with exactly eight warnings and no failure
//!   (`tests/plugins/eight-warnings/`), the quiet report is at most 60 lines
//!   and a finding block averages at most 6. The shape is counted, not the
//!   wording.
//! - The printed `reproduce:` line of a failed step, run as printed, gives
//!   the step's stdout, stderr and exit code exactly as the harness recorded
//!   them (the kept sandbox holds what the plugin printed under the harness).
//! - Every invocation of a kept case, rerun by its script in any order,
//!   finds the sandbox as it found it under the harness (an answer shared
//!   from another case's call too) and answers the same.
//! - The report and the scripts name only the variables the harness set or
//!   removed, never other values of the user's environment.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agent_conform::api::{Human, Verbosity};
use agent_conform::api::{RunReport, StepReport};

/// The reproduce lines of a human report: what follows `reproduce: `.
fn reproduce_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("reproduce: "))
        .map(str::to_string)
        .collect()
}

/// The script and the invocation number of a `sh <script> N` line.
fn script_and_number(line: &str) -> (PathBuf, usize) {
    let rest = line.strip_prefix("sh ").expect("sh <script> N");
    // A check of the harness's own points at the invocation before it:
    // `sh <script> N  (the last invocation before this check)`.
    let rest = rest.split_once("  (").map_or(rest, |(call, _)| call);
    let (script, number) = rest.rsplit_once(' ').expect("a step number");
    let script = script.trim_matches('\'');
    (PathBuf::from(script), number.parse().expect("a number"))
}

/// The finding blocks of a human report: each from its `FAIL `/`WARN `
/// line to the blank line that ends it.
fn blocks(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        if line.starts_with("FAIL ") || line.starts_with("WARN ") {
            blocks.extend(current.take());
            current = Some(vec![line]);
        } else if line.trim().is_empty() {
            blocks.extend(current.take());
        } else if let Some(block) = current.as_mut() {
            block.push(line);
        }
    }
    blocks.extend(current);
    blocks
}

#[test]
fn quiet_report_of_eight_warnings_fits_the_budget() {
    let sandboxes = tempfile::tempdir().unwrap();
    let out = common::harness()
        // --pedantic: three of its faults are protocol-only (notes without it).
        .args(["-q", "--pedantic", "--seed", "1", "--color", "never"])
        .arg("--sandbox-dir")
        .arg(sandboxes.path())
        .arg(common::plugin("eight-warnings/entire-agent-reference"))
        .env("AGENT_CONFORM_TEST_REFERENCE", common::reference())
        .output()
        .expect("agent-conform runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "warnings only: {text}");
    // Lines fold at 100 columns (the width off a terminal): the budget
    // counts the folded lines.
    let lines = text.lines().count();
    assert!(lines <= 80, "{lines} lines for eight warnings:\n{text}");

    let blocks = blocks(&text);
    let warned = blocks.iter().filter(|b| b[0].starts_with("WARN ")).count();
    assert_eq!(
        (blocks.len(), warned),
        (8, 8),
        "eight warning blocks:\n{text}"
    );
    let in_blocks: usize = blocks.iter().map(Vec::len).sum();
    assert!(
        in_blocks <= 8 * blocks.len(),
        "{in_blocks} lines in {} blocks:\n{text}",
        blocks.len()
    );
    for block in &blocks {
        // One line to reproduce, naming a script that is there; the long
        // command line (environment and all) is folded away.
        let reproduce: Vec<&&str> = block
            .iter()
            .filter(|l| l.trim_start().starts_with("reproduce: sh "))
            .collect();
        assert_eq!(reproduce.len(), 1, "{block:#?}");
        let (script, _) =
            script_and_number(reproduce[0].trim_start()["reproduce: ".len()..].trim());
        assert!(script.is_file(), "{} is not there", script.display());
        assert!(
            block
                .iter()
                .all(|l| !l.contains("HOME=") && !l.contains("env -u")),
            "{block:#?}"
        );
        // At most three lines of stderr.
        let stderr = block
            .iter()
            .skip_while(|l| !l.trim_start().starts_with("stderr:"))
            .take_while(|l| {
                let l = l.trim_start();
                !l.starts_with("reproduce:") && !l.starts_with("stdin:")
            })
            .count();
        assert!(stderr <= 3, "{block:#?}");
    }
    // The blocks of a panic backtrace on stderr are there, cut to three
    // lines of stderr.
    let three = |b: &&Vec<&str>| {
        let at = b.iter().position(|l| l.trim_start().starts_with("stderr:"));
        at.is_some_and(|at| b[at..].iter().take_while(|l| !l.contains("stdin:")).count() == 3)
    };
    assert!(blocks.iter().any(|b| three(&b)), "{text}");
}

/// A plugin with exactly one fault: the reference plugin under its name, so
/// that info's name matches the file.
fn one_fault_plugin(dir: &Path, fault: &str) -> PathBuf {
    let path = dir.join("entire-agent-reference");
    let script = format!(
        "#!/bin/sh\nENTIRE_AGENT_REFERENCE_FAULT={fault} exec '{}' \"$@\"\n",
        common::reference().display()
    );
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

/// Runs the gate and the cases whose ids start with `only`, in process.
fn run(plugin: &Path, only: &str, sandboxes: &Path) -> RunReport {
    let schemas = agent_conform::api::schema::Schemas::compile().expect("the schemas compile");
    let mut suite = agent_conform::api::case::load(&[], &schemas).expect("the suite loads");
    suite.cases.retain(|c| c.gate || c.id.starts_with(only));
    let options = agent_conform::api::Options {
        timeout: Duration::from_secs(30),
        info_timeout: Duration::from_secs(10),
        keep_temp: false,
        jobs: 2,
        seed: 1,
        sandbox_base: sandboxes.to_path_buf(),
        fail_fast: false,
        hosts: Default::default(),
        confine: false,
        max_write: 256 << 20,
        pedantic: false,
        worlds: Default::default(),
        explore: 0,
    };
    agent_conform::api::run(
        plugin,
        &suite,
        &schemas,
        &options,
        &agent_conform::api::Silent,
    )
}

/// The step a reproduce line belongs to.
fn step_of<'a>(run: &'a RunReport, line: &str) -> &'a StepReport {
    run.cases
        .iter()
        .flat_map(|c| &c.steps)
        .find(|s| s.reproduce.as_deref() == Some(line))
        .unwrap_or_else(|| panic!("no step has {line}"))
}

#[cfg(unix)]
#[test]
fn the_printed_reproduce_line_reruns_a_failed_step_exactly() {
    // Each fault fails a case in a different way: a non-zero exit with a
    // message on stderr; a wrong answer on stdout after an earlier step
    // answered (two session ids resolved to one file); a property
    // (generated chunks, saved stdin).
    for (fault, only) in [
        (
            "uninstall-fails-when-not-installed",
            "hooks.lifecycle.uninstall-when-not-installed",
        ),
        ("resolve-drops-id", "core.resolve-session-file.distinct-ids"),
        ("reassemble-no-separator", "core.chunk.round-trip"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let plugin = one_fault_plugin(dir.path(), fault);
        let sandboxes = dir.path().join("sandboxes");
        std::fs::create_dir(&sandboxes).unwrap();
        let report = run(&plugin, only, &sandboxes);
        // The chunking round trip weighs a warning on every release today
        // (no release stores a plugin's chunks): it fails under --strict.
        assert!(report.failed(true), "{fault}: the strict run fails");
        let text = Human {
            color: false,
            verbosity: Verbosity::Quiet,
            strict: true,
            width: 100,
        }
        .render(&report);
        let lines = reproduce_lines(&text);
        assert!(!lines.is_empty(), "{fault}: no reproduce line in\n{text}");
        for line in lines {
            let step = step_of(&report, &line);
            let (script, number) = script_and_number(&line);
            let output = script.parent().unwrap().join("output");
            let recorded_out = std::fs::read(output.join(format!("{number}.stdout"))).unwrap();
            let recorded_err = std::fs::read(output.join(format!("{number}.stderr"))).unwrap();
            assert_eq!(recorded_out.len(), step.stdout_bytes, "{fault}: {line}");
            assert_eq!(recorded_err.len(), step.stderr_bytes, "{fault}: {line}");

            // Run the line as printed, from elsewhere, with the caller's
            // environment (PATH and the rest), as a user would.
            let rerun = Command::new("sh")
                .arg("-c")
                .arg(&line)
                .current_dir(dir.path())
                .output()
                .expect("sh runs");
            let what = format!("{fault}: {line}");
            assert_eq!(rerun.status.code(), step.exit_code, "{what}: exit code");
            assert_eq!(rerun.stdout, recorded_out, "{what}: stdout");
            // The copy of the sandbox it laid down, then the command on
            // one line, then the plugin's stderr.
            let stderr = match rerun
                .stderr
                .strip_prefix(b"the sandbox laid down as invocation ")
            {
                Some(rest) => {
                    let end = rest.iter().position(|b| *b == b'\n').map_or(0, |n| n + 1);
                    &rest[end..]
                }
                None => &rerun.stderr[..],
            };
            let printed = format!("+ {}\n", step.command).into_bytes();
            assert!(
                stderr.starts_with(&printed),
                "{what}: the command is printed first:\n{}",
                String::from_utf8_lossy(&rerun.stderr)
            );
            assert_eq!(stderr[printed.len()..], recorded_err, "{what}: stderr");
        }
    }
}

#[cfg(unix)]
#[test]
fn each_invocation_reruns_in_the_sandbox_as_it_found_it_a_shared_answer_too() {
    // The user's data lost on re-install: a case whose first install is
    // the answer of another case's call (the hooks cases share it), and
    // whose later invocations find what the earlier ones left.
    let dir = tempfile::tempdir().unwrap();
    let plugin = one_fault_plugin(dir.path(), "install-drops-user-hooks");
    let sandboxes = dir.path().join("sandboxes");
    std::fs::create_dir(&sandboxes).unwrap();
    let report = run(&plugin, "hooks.", &sandboxes);
    let case = report
        .cases
        .iter()
        .find(|c| c.id == "hooks.user-data.existing-settings")
        .expect("the case ran");
    assert!(case.sandbox.is_some(), "the failed case keeps its sandbox");
    let calls: Vec<&StepReport> = case
        .steps
        .iter()
        .filter(|s| s.reproduce.is_some())
        .collect();
    assert!(calls.len() >= 3, "{calls:?}");
    assert!(
        calls.iter().any(|s| s.answered_by.is_some()),
        "a shared answer among {calls:?}"
    );
    // Last first: each rerun lays its own sandbox down, whatever ran before.
    for step in calls.iter().rev() {
        let line = step.reproduce.as_deref().unwrap_or_default();
        let (script, number) = script_and_number(line);
        let output = script.parent().unwrap().join("output");
        let recorded = std::fs::read(output.join(format!("{number}.stdout"))).unwrap();
        let rerun = Command::new("sh")
            .arg("-c")
            .arg(line)
            .current_dir(dir.path())
            .output()
            .expect("sh runs");
        let err = String::from_utf8_lossy(&rerun.stderr);
        assert_eq!(rerun.status.code(), step.exit_code, "{line}: {err}");
        assert_eq!(
            String::from_utf8_lossy(&rerun.stdout),
            String::from_utf8_lossy(&recorded),
            "{line} ({}): {err}",
            step.name
        );
        assert!(err.contains("laid down as invocation"), "{err}");
    }
    // As the case left it, the first install finds its hooks installed:
    // another answer than it gave.
    let first = calls[0].reproduce.as_deref().unwrap_or_default();
    let (script, number) = script_and_number(first);
    let as_left = Command::new("sh")
        .arg(&script)
        .arg(number.to_string())
        .arg("--as-left")
        .output()
        .expect("sh runs");
    let recorded = std::fs::read(
        script
            .parent()
            .unwrap()
            .join(format!("output/{number}.stdout")),
    )
    .unwrap();
    assert_ne!(as_left.stdout, recorded, "{first} --as-left");
}

#[cfg(unix)]
#[test]
fn reports_and_scripts_name_only_what_the_harness_set() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = one_fault_plugin(dir.path(), "uninstall-fails-when-not-installed");
    let sandboxes = dir.path().join("sandboxes");
    std::fs::create_dir(&sandboxes).unwrap();
    let secret = "canary-value-5f2e";
    let git_secret = "/git-canary-value-77a1";
    let path_dir = dir.path().join("path-canary-9c3d");
    std::fs::create_dir(&path_dir).unwrap();
    let path = format!(
        "{}:{}",
        path_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut texts = Vec::new();
    for format in [&["-v"][..], &["--format", "json"][..]] {
        let out = common::harness()
            .args(format)
            .args(["--only", "hooks.lifecycle.*", "--color", "never"])
            .arg("--sandbox-dir")
            .arg(&sandboxes)
            .arg(&plugin)
            .env("AGENT_CONFORM_CANARY", secret)
            .env("GIT_CANARY_DIR", git_secret)
            .env("PATH", &path)
            .output()
            .expect("agent-conform runs");
        assert_eq!(out.status.code(), Some(1));
        texts.push(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let mut scripts = 0;
    // Each run keeps its sandboxes in a folder of its own.
    let runs = std::fs::read_dir(sandboxes.join("agent-conform-runs")).unwrap();
    let kept = runs.flatten().flat_map(|run| {
        std::fs::read_dir(run.path())
            .into_iter()
            .flatten()
            .flatten()
    });
    for entry in kept {
        let script = entry.path().join("reproduce.sh");
        if let Ok(text) = std::fs::read_to_string(&script) {
            // The removed variable is named, never its value.
            assert!(text.contains("GIT_CANARY_DIR"), "{text}");
            texts.push(text);
            scripts += 1;
        }
    }
    assert!(scripts > 0, "no reproduce.sh was kept");
    for text in &texts {
        for leak in [secret, git_secret, &path_dir.display().to_string()] {
            assert!(!text.contains(leak), "{leak} leaked into:\n{text}");
        }
    }
    // -v prints a short command line; the full one is kept in JSON (and in
    // reproduce.sh).
    assert!(texts[0].contains("$ plugin install-hooks"), "{}", texts[0]);
    assert!(texts[1].contains("ENTIRE_REPO_ROOT="), "{}", texts[1]);
}
