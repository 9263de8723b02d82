//! `--host ENTIRE`: the session replayed through a host after the run, and
//! the host's word on the findings it reaches. CI cannot build the real
//! host: the plumbing is tested against a stand-in of ours
//! (tests/agents/entire-standin, written from the fifth pass of
//! host-behaviour.md, and saying so in `entire version`). The tests
//! against a real host run when `AGENT_CONFORM_TEST_HOST` names its binary.

use std::path::PathBuf;

use serde_json::Value;

use crate::common;

fn standin() -> String {
    common::root()
        .join("tests")
        .join("agents")
        .join("entire-standin")
        .display()
        .to_string()
}

/// The words of the findings of case `id`, as (verdict, severity).
fn words(run: &common::Run, id: &str) -> Vec<(String, String)> {
    run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"] == id)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f.get("host_word").is_some())
        .map(|f| {
            let verdict = f["host_word"]["verdict"].as_str().unwrap_or_default();
            let severity = f["severity"].as_str().unwrap_or_default();
            (verdict.to_string(), severity.to_string())
        })
        .collect()
}

fn step_names(replay: &Value) -> Vec<String> {
    replay["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| s["what"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_replay_through_the_stand_in_reports_each_command_and_what_the_host_made() {
    let host = standin();
    let args = ["--only", "hooks.parse-hook.*", "--host", host.as_str()];
    let run = common::run_json(&common::reference(), &args, &[]);
    assert_eq!(run.code, 0, "{:#}", run.report["host_replay"]);
    let replay = &run.report["host_replay"];
    let line = replay["build"]["line"].as_str().unwrap_or_default();
    assert!(line.contains("stand-in"), "{line}");
    // Not a release: run as the newest known one, and said so.
    assert!(replay["build"]["unknown"].is_string(), "{replay:#}");
    let names = step_names(replay);
    for want in [
        "version",
        "entire enable",
        "hook session-start",
        "hook user-prompt-submit",
        "git commit",
        "hook stop",
        "entire session resume",
        "entire rewind --list",
        "entire rewind --to",
        "entire disable",
    ] {
        assert!(names.iter().any(|n| n == want), "no {want:?} in {names:?}");
    }
    let seen = &replay["seen"];
    assert_eq!(seen["enable"], true, "{seen:#}");
    assert_eq!(seen["checkpoint"], true, "{seen:#}");
    assert_eq!(seen["resume_bytes"], true, "{seen:#}");
    assert_eq!(seen["rewind_bytes"], true, "{seen:#}");
    // The stand-in's disable calls no plugin, as the host's: the hook
    // lines stay in the agent's config.
    assert!(
        seen["hooks_left"].as_u64().is_some_and(|n| n > 0),
        "{seen:#}"
    );
    assert_eq!(replay["contradicted"], serde_json::json!([]));
}

#[test]
fn a_hook_the_host_fails_confirms_the_finding_and_keeps_its_severity() {
    let host = standin();
    let args = [
        "--only",
        "hooks.parse-hook.payload",
        "--host",
        host.as_str(),
    ];
    let env = [("ENTIRE_AGENT_REFERENCE_FAULT", "timestamp-no-colon")];
    let run = common::run_json(&common::reference(), &args, &env);
    assert_eq!(run.code, 1);
    let said = words(&run, "hooks.parse-hook.payload");
    assert!(!said.is_empty(), "{:#}", run.report["host_replay"]);
    assert!(
        said.iter().all(|(v, s)| v == "confirmed" && s == "failure"),
        "{said:?}"
    );
}

#[test]
fn a_finding_the_host_contradicts_is_lowered_and_listed_with_both_outcomes() {
    // The stand-in does not refuse an Event without a session id, where
    // the model predicts that the host fails the hook.
    let host = standin();
    let args = [
        "--only",
        "hooks.parse-hook.payload",
        "--host",
        host.as_str(),
    ];
    let env = [("ENTIRE_AGENT_REFERENCE_FAULT", "parse-hook-no-session-id")];
    let run = common::run_json(&common::reference(), &args, &env);
    let said = words(&run, "hooks.parse-hook.payload");
    assert!(!said.is_empty(), "{:#}", run.report["host_replay"]);
    assert!(
        said.iter()
            .all(|(v, s)| v == "not-confirmed" && s == "note"),
        "{said:?}"
    );
    let listed = run.report["host_replay"]["contradicted"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(listed.len(), said.len());
    for c in &listed {
        assert_eq!(c["case"], "hooks.parse-hook.payload");
        assert!(c["predicted"].is_string() && c["host_showed"].is_string());
        assert_ne!(c["was"], "note", "{c}");
    }
}

/// The words on the findings of case `id` at steps whose name ends with
/// `step`, as (verdict, severity).
fn words_at(run: &common::Run, id: &str, step: &str) -> Vec<(String, String)> {
    run.report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"] == id)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .filter(|s| s["name"].as_str().is_some_and(|n| n.ends_with(step)))
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f.get("host_word").is_some())
        .map(|f| {
            let verdict = f["host_word"]["verdict"].as_str().unwrap_or_default();
            let severity = f["severity"].as_str().unwrap_or_default();
            (verdict.to_string(), severity.to_string())
        })
        .collect()
}

#[test]
fn a_restore_where_the_agent_never_reads_stays_beyond_the_hosts_sight() {
    // The stand-in restores the checkpoint's bytes and reports "Restored"
    // success, to a file the agent never reads: the host's success says
    // nothing of where the agent reads, so the finding keeps its severity.
    let host = standin();
    let args = ["--only", "session.agent", "--host", host.as_str()];
    let env = [("ENTIRE_AGENT_REFERENCE_FAULT", "session-dir-repo-root")];
    let run = common::run_json(&common::reference(), &args, &env);
    let seen = &run.report["host_replay"]["seen"];
    assert_eq!(seen["resume"], true, "{seen:#}");
    assert_eq!(seen["resume_bytes"], true, "{seen:#}");
    let said = words_at(&run, "session.agent", "where the agent reads it");
    assert!(!said.is_empty(), "{:#}", run.report["host_replay"]);
    assert!(
        said.iter()
            .all(|(v, s)| v == "beyond-sight" && s == "failure"),
        "{said:?}"
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.report["host_replay"]["contradicted"],
        serde_json::json!([])
    );
}

#[test]
fn a_host_that_is_not_there_is_a_usage_error() {
    let out = common::harness()
        .args(["--host", "/nonexistent/entire"])
        .arg(common::reference())
        .output()
        .expect("the harness runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--host") && stderr.contains("hint:"),
        "{stderr}"
    );
}

#[test]
fn without_host_an_entire_on_path_gets_one_line_and_the_report_no_replay() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let entire = dir.path().join("entire");
    std::os::unix::fs::symlink(standin(), &entire).expect("a link");
    let path = format!("{}:{}", dir.path().display(), common::fast_python_path());
    let out = common::harness()
        .env("PATH", &path)
        .args(["--only", "core.info.schema", "--color", "never"])
        .arg(common::reference())
        .output()
        .expect("the harness runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("agent-conform --host"))
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    let run = common::run_json(&common::reference(), &["--only", "core.info.schema"], &[]);
    assert!(run.report.get("host_replay").is_none());
}

/// The real host, when `AGENT_CONFORM_TEST_HOST` names it.
fn real_host() -> Option<String> {
    let host = std::env::var("AGENT_CONFORM_TEST_HOST").ok()?;
    (!host.is_empty()).then_some(host)
}

/// Prints what the real host said of a plugin's findings, one line.
fn say(name: &str, run: &common::Run) {
    let replay = &run.report["host_replay"];
    eprintln!(
        "host_replay: {name}: words {} (confirmed, beyond sight, not confirmed); seen {}",
        replay["words"], replay["seen"]
    );
}

#[test]
fn the_real_host_replays_the_reference_plugin_without_contradiction() {
    let Some(host) = real_host() else {
        eprintln!("skipped: AGENT_CONFORM_TEST_HOST names no real host binary");
        return;
    };
    let run = common::run_json(&common::reference(), &["--host", host.as_str()], &[]);
    say("reference", &run);
    assert_eq!(run.code, 0);
    let seen = &run.report["host_replay"]["seen"];
    assert_eq!(seen["checkpoint"], true, "{seen:#}");
    assert_eq!(seen["resume_bytes"], true, "{seen:#}");
    assert_eq!(
        run.report["host_replay"]["contradicted"],
        serde_json::json!([])
    );
}

#[test]
fn the_real_host_confirms_a_wild_plugins_failed_hooks() {
    let Some(host) = real_host() else {
        eprintln!("skipped: AGENT_CONFORM_TEST_HOST names no real host binary");
        return;
    };
    // `AGENT_CONFORM_WILD`, else `../shared/wild`, as the field corpus.
    let wild = std::env::var_os("AGENT_CONFORM_WILD")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join("..").join("shared").join("wild"))
        .join("lyra");
    let plugin = |build: &str| -> PathBuf { wild.join(build).join("entire-agent-lyra") };
    if !plugin("buggy").exists() {
        eprintln!("skipped: no ../shared/wild/lyra here");
        return;
    }
    let buggy = common::run_json(&plugin("buggy"), &["--host", host.as_str()], &[]);
    say("lyra buggy", &buggy);
    let said = words(&buggy, "hooks.parse-hook.payload");
    assert!(
        !said.is_empty() && said.iter().all(|(v, _)| v == "confirmed"),
        "{said:?}"
    );
    let clean = common::run_json(&plugin("clean"), &["--host", host.as_str()], &[]);
    say("lyra clean", &clean);
    assert_eq!(clean.code, 0);
    assert_eq!(
        clean.report["host_replay"]["contradicted"],
        serde_json::json!([])
    );
}

#[test]
fn the_real_host_leaves_a_restore_where_the_agent_never_reads_at_its_severity() {
    let Some(host) = real_host() else {
        eprintln!("skipped: AGENT_CONFORM_TEST_HOST names no real host binary");
        return;
    };
    for fault in ["session-dir-repo-root", "resolve-file-name"] {
        let env = [("ENTIRE_AGENT_REFERENCE_FAULT", fault)];
        let run = common::run_json(&common::reference(), &["--host", host.as_str()], &env);
        say(fault, &run);
        let said = words_at(&run, "session.agent", "where the agent reads it");
        assert!(
            !said.is_empty()
                && said
                    .iter()
                    .all(|(v, s)| v == "beyond-sight" && s == "failure"),
            "{fault}: {said:?}"
        );
        assert_eq!(
            run.report["host_replay"]["contradicted"],
            serde_json::json!([]),
            "{fault}"
        );
    }
}
