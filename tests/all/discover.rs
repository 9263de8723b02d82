//! `agent-conform discover` on a PATH of test plugins covering every verdict.
//! Each plugin appends its name to a counter file when run, so the test
//! knows which ones the probe ran (never the shadowed or built-in ones).

#![cfg(unix)]

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Writes an executable shell script that records its run, then does `body`.
fn script(dir: &Path, file: &str, body: &str) -> PathBuf {
    let path = dir.join(file);
    let text = format!("#!/bin/sh\necho {file} >> \"$DISCOVER_COUNTER\"\n{body}\n");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn info(name: &str, version: &str) -> String {
    format!(
        "printf '%s\\n' '{{\"protocol_version\": {version}, \"name\": \"{name}\", \"type\": \"T\", \
         \"description\": \"d\", \"capabilities\": {{}}}}'"
    )
}

/// Two plugins that answer only once the other one has started too: probed
/// one after the other, the first would time out.
fn rendezvous(me: &str, other: &str, marks: &Path) -> String {
    let marks = marks.display();
    format!(
        "touch {marks}/{me}\nwhile [ ! -e {marks}/{other} ]; do sleep 0.05; done\n{}",
        info(me, "1")
    )
}

struct World {
    _dirs: Vec<tempfile::TempDir>,
    path: std::ffi::OsString,
    counter: PathBuf,
    first: PathBuf,
    second: PathBuf,
}

fn world() -> World {
    let (first, second, scratch) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (a, b) = (first.path(), second.path());
    let marks = scratch.path();
    // The probe runs in a sandbox: a git work tree that is ENTIRE_REPO_ROOT.
    let sandboxed = "[ -d \"$ENTIRE_REPO_ROOT/.git\" ] && [ \"$(pwd -P)\" = \"$ENTIRE_REPO_ROOT\" ] \
                     || { echo 'not in a sandbox' >&2; exit 1; }";
    script(
        a,
        "entire-agent-good",
        &format!("{sandboxed}\n{}", info("good", "1")),
    );
    script(a, "entire-agent-ping", &rendezvous("ping", "pong", marks));
    script(a, "entire-agent-pong", &rendezvous("pong", "ping", marks));
    script(a, "entire-agent-renamed", &info("something-else", "1"));
    script(a, "entire-agent-twice", &info("twice", "1"));
    script(b, "entire-agent-twice", &info("twice", "1"));
    let plain = script(a, "entire-agent-plain", &info("plain", "1"));
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
    // A compiler's dependency file beside the binary: no execute bit, and
    // not a program either.
    let artefact = a.join("entire-agent-good.d");
    std::fs::write(&artefact, "entire-agent-good: src/main.rs\n").unwrap();
    std::fs::set_permissions(&artefact, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::create_dir(a.join("entire-agent-folder")).unwrap();
    script(a, "entire-agent-cursor", &info("cursor", "1"));
    script(
        a,
        "entire-agent-broken",
        "echo 'no config found' >&2\nexit 3",
    );
    script(a, "entire-agent-slow", "exec sleep 3600");
    script(a, "entire-agent-future", &info("future", "2"));
    script(a, "entire-agent-", &info("", "1"));
    let original = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![a.to_path_buf(), b.to_path_buf()];
    dirs.extend(std::env::split_paths(&original));
    World {
        path: std::env::join_paths(dirs).unwrap(),
        counter: scratch.path().join("calls"),
        first: a.to_path_buf(),
        second: b.to_path_buf(),
        _dirs: vec![first, second, scratch],
    }
}

fn discover(world: &World, format: &str) -> (i32, String) {
    let out = common::harness()
        .env("PATH", &world.path)
        .env("DISCOVER_COUNTER", &world.counter)
        .args(["discover", "--timeout", "3", "--format", format])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// (path, verdict, registered, reason) of each entry in our directories.
fn ours(world: &World, report: &Value) -> Vec<(PathBuf, String, bool, String)> {
    report["plugins"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                PathBuf::from(p["path"].as_str().unwrap_or_default()),
                p["verdict"].as_str().unwrap_or_default().to_string(),
                p["registered"].as_bool().unwrap_or_default(),
                p["reason"].as_str().unwrap_or_default().to_string(),
            )
        })
        .filter(|(path, ..)| path.starts_with(&world.first) || path.starts_with(&world.second))
        .collect()
}

#[test]
fn every_verdict_is_shown_with_its_reason() {
    let world = world();
    let (code, text) = discover(&world, "json");
    assert_eq!(code, 0, "{text}");
    let report: Value = serde_json::from_str(&text).expect("one JSON document");
    let found = ours(&world, &report);
    let a = |f: &str| world.first.join(f);
    let expected = [
        (a("entire-agent-"), "no-name", false, "no agent name"),
        (
            a("entire-agent-broken"),
            "info-failed",
            false,
            "exited 3: no config found",
        ),
        (
            a("entire-agent-cursor"),
            "built-in",
            false,
            "built into the host",
        ),
        (a("entire-agent-folder"), "directory", false, "a directory"),
        (
            a("entire-agent-future"),
            "protocol-version",
            false,
            "protocol_version 2",
        ),
        (
            a("entire-agent-good"),
            "registered",
            true,
            "registers \"good\"",
        ),
        (
            a("entire-agent-good.d"),
            "not-executable",
            false,
            "not a program",
        ),
        (
            a("entire-agent-ping"),
            "registered",
            true,
            "registers \"ping\"",
        ),
        (a("entire-agent-plain"), "not-executable", false, "chmod +x"),
        (
            a("entire-agent-pong"),
            "registered",
            true,
            "registers \"pong\"",
        ),
        (
            a("entire-agent-renamed"),
            "name-differs",
            true,
            "\"something-else\"",
        ),
        (
            a("entire-agent-slow"),
            "info-timed-out",
            false,
            "within 3 s",
        ),
        (
            a("entire-agent-twice"),
            "registered",
            true,
            "registers \"twice\"",
        ),
        (
            world.second.join("entire-agent-twice"),
            "shadowed",
            false,
            "entire-agent-twice, earlier on PATH",
        ),
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for ((path, verdict, registered, reason), want) in found.iter().zip(&expected) {
        assert_eq!(path, &want.0);
        assert_eq!(verdict, want.1, "{}: {reason}", path.display());
        assert_eq!(*registered, want.2, "{}", path.display());
        assert!(reason.contains(want.3), "{}: {reason}", path.display());
    }
    // Each file the host would run was run once; the others never.
    let calls = std::fs::read_to_string(&world.counter).unwrap_or_default();
    let mut calls: Vec<&str> = calls.lines().collect();
    calls.sort();
    let run = [
        "entire-agent-broken",
        "entire-agent-future",
        "entire-agent-good",
        "entire-agent-ping",
        "entire-agent-pong",
        "entire-agent-renamed",
        "entire-agent-slow",
        "entire-agent-twice",
    ];
    assert_eq!(calls, run);
}

#[test]
fn the_text_report_has_one_line_per_file() {
    let world = world();
    let (code, text) = discover(&world, "human");
    assert_eq!(code, 0);
    let line = |file: &str| {
        let path = world.first.join(file).display().to_string();
        text.lines()
            .find(|l| l.contains(&format!(" {path} ")))
            .unwrap_or_else(|| panic!("no line for {path}:\n{text}"))
            .to_string()
    };
    assert!(line("entire-agent-good").starts_with("good "));
    assert!(line("entire-agent-good").contains("registered: "));
    assert!(line("entire-agent-slow").contains("info timed out: "));
    assert!(line("entire-agent-cursor").contains("built-in name: "));
    assert!(text.contains("entire-agent-* on PATH: "), "{text}");
}

/// Runs `discover` in `dir` with `PATH` set to `path`.
fn discover_in(dir: &Path, path: &std::ffi::OsStr, counter: &Path, format: &str) -> String {
    let out = common::harness()
        .current_dir(dir)
        .env("PATH", path)
        .env("DISCOVER_COUNTER", counter)
        .args(["discover", "--timeout", "3", "--format", format])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "discover always exits 0");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A git work tree (a `.git` directory is all the host's root search needs).
fn repository() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join(".git")).unwrap();
    repo
}

#[test]
fn a_repository_without_the_setting_gets_the_line_to_add() {
    let repo = repository();
    let root = repo.path().canonicalize().unwrap();
    let nested = root.join("src");
    std::fs::create_dir(&nested).unwrap();
    let counter = root.join("calls");
    let empty = std::ffi::OsString::new();
    let file = root.join(".entire/settings.local.json");
    let fix = format!("add \"external_agents\": true to {}", file.display());

    let text = discover_in(&nested, &empty, &counter, "human");
    assert!(text.contains(&fix), "{text}");
    assert!(text.contains("\"unknown agent\""), "{text}");

    let report: Value =
        serde_json::from_str(&discover_in(&nested, &empty, &counter, "json")).unwrap();
    let settings = &report["settings"];
    assert_eq!(settings["repository"], root.display().to_string());
    assert_eq!(settings["file"], file.display().to_string());
    assert_eq!(settings["external_agents"], false);
    assert!(
        settings["message"].as_str().unwrap().contains(&fix),
        "{settings}"
    );

    // The key present but false is no better.
    std::fs::create_dir(root.join(".entire")).unwrap();
    std::fs::write(&file, r#"{"external_agents": false}"#).unwrap();
    let text = discover_in(&root, &empty, &counter, "human");
    assert!(text.contains(&fix), "{text}");
}

#[test]
fn a_repository_with_the_setting_gets_no_line_to_add() {
    let repo = repository();
    let root = repo.path();
    std::fs::create_dir(root.join(".entire")).unwrap();
    std::fs::write(
        root.join(".entire/settings.local.json"),
        r#"{"external_agents": true, "other": 1}"#,
    )
    .unwrap();
    let empty = std::ffi::OsString::new();
    let counter = root.join("calls");
    let text = discover_in(root, &empty, &counter, "human");
    assert!(!text.contains("add \"external_agents\""), "{text}");
    let report: Value = serde_json::from_str(&discover_in(root, &empty, &counter, "json")).unwrap();
    assert_eq!(report["settings"]["external_agents"], true, "{report}");
}

#[test]
fn a_plugin_found_only_through_a_relative_path_entry_is_not_registered_nor_run() {
    let repo = repository();
    let root = repo.path().canonicalize().unwrap();
    let (bin, other) = (root.join("bin"), root.join("other"));
    std::fs::create_dir(&bin).unwrap();
    std::fs::create_dir(&other).unwrap();
    script(&bin, "entire-agent-rel", &info("rel", "1"));
    script(&other, "entire-agent-abs", &info("abs", "1"));
    let counter = root.join("calls");
    // The system's PATH after ours: the probe's sandbox needs git.
    let system = std::env::var_os("PATH").unwrap_or_default();
    let path_of = |ours: Vec<PathBuf>| {
        std::env::join_paths(ours.into_iter().chain(std::env::split_paths(&system))).unwrap()
    };
    let path = path_of(vec![PathBuf::from("bin"), other.clone()]);

    let report: Value = serde_json::from_str(&discover_in(&root, &path, &counter, "json")).unwrap();
    let plugins = report["plugins"].as_array().unwrap();
    let rel = plugins
        .iter()
        .find(|p| p["name"] == "rel")
        .expect("rel is listed");
    assert_eq!(
        rel["path"],
        bin.join("entire-agent-rel").display().to_string()
    );
    assert_eq!(rel["verdict"], "relative-path");
    assert_eq!(rel["registered"], false);
    let reason = rel["reason"].as_str().unwrap();
    assert!(reason.contains("relative PATH entry \"bin\""), "{reason}");
    assert!(reason.contains("absolute entries only"), "{reason}");
    let abs = plugins
        .iter()
        .find(|p| p["name"] == "abs")
        .expect("abs is listed");
    assert_eq!(abs["verdict"], "registered");
    let calls = std::fs::read_to_string(&counter).unwrap_or_default();
    assert_eq!(calls.lines().collect::<Vec<_>>(), ["entire-agent-abs"]);

    // The same directory also listed as an absolute entry: the host finds it there.
    let path = path_of(vec![PathBuf::from("bin"), bin.clone()]);
    let report: Value = serde_json::from_str(&discover_in(&root, &path, &counter, "json")).unwrap();
    let plugins = report["plugins"].as_array().unwrap();
    let ours: Vec<&Value> = plugins
        .iter()
        .filter(|p| {
            p["path"]
                .as_str()
                .unwrap_or_default()
                .starts_with(&*root.to_string_lossy())
        })
        .collect();
    assert_eq!(ours.len(), 1, "{report}");
    assert_eq!(ours[0]["verdict"], "registered", "{report}");
}

/// `discover --format json` on a PATH of one directory, with more arguments.
fn discover_range(dir: &Path, args: &[&str]) -> Value {
    let path = std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = common::harness()
        .args(["discover", "--format", "json"])
        .args(args)
        .env("PATH", path)
        .env("DISCOVER_COUNTER", dir.join("counter"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The entry of one agent name, in a directory of ours.
fn entry<'a>(report: &'a Value, dir: &Path, name: &str) -> &'a Value {
    report["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["name"] == name
                && p["path"]
                    .as_str()
                    .unwrap()
                    .starts_with(&*dir.to_string_lossy())
        })
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

#[test]
fn built_in_names_the_managed_directory_and_broken_plugins_follow_the_range() {
    let (dir, managed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let d = dir.path();
    script(d, "entire-agent-gemini", &info("gemini", "1"));
    script(d, "entire-agent-vogon", &info("vogon", "1"));
    script(d, "entire-agent-twoproto", &info("twoproto", "2"));
    script(
        managed.path(),
        "entire-agent-managed",
        &info("managed", "1"),
    );
    let managed_arg = managed.path().to_string_lossy().into_owned();
    let all = discover_range(d, &["--managed-dir", &managed_arg]);
    // vogon is built into every release: never run. gemini only into the
    // older ones: probed, with a line naming them.
    assert_eq!(entry(&all, d, "vogon")["verdict"], "built-in");
    let gemini = entry(&all, d, "gemini");
    assert_eq!(gemini["verdict"], "registered");
    let caveat = gemini["caveats"][0].as_str().unwrap();
    assert!(
        caveat.starts_with("on entire 0.5.0–0.10.5 and perhaps 0.11.x"),
        "{caveat}"
    );
    // The newest host lists the plugin of another protocol as broken.
    let twoproto = entry(&all, d, "twoproto");
    assert_eq!(twoproto["broken"], true);
    // The managed directory is searched first from 0.6.1.
    let found = entry(&all, managed.path(), "managed");
    assert_eq!(found["verdict"], "registered");
    assert!(
        found["caveats"][0]
            .as_str()
            .unwrap()
            .contains("0.5.0–0.6.0 it is not searched")
    );
    let newest = discover_range(
        d,
        &["--host-version", ">=0.12", "--managed-dir", &managed_arg],
    );
    assert!(entry(&newest, d, "gemini").get("caveats").is_none());
    assert!(
        entry(&newest, managed.path(), "managed")
            .get("caveats")
            .is_none()
    );
    let oldest = discover_range(
        d,
        &["--host-version", "<0.6.1", "--managed-dir", &managed_arg],
    );
    let names: Vec<&str> = oldest["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(!names.contains(&"managed"), "{names:?}");
}
