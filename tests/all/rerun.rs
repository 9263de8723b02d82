//! `--rerun-failed`: the cases that did not pass in the last run of the
//! same plugin, and only those.

use crate::common;

use std::path::Path;

use common::{harness, reference};

/// Runs the reference with `args` (and a fault, when given), its records in
/// `cache`; returns the exit code, the ids of the cases that ran and stderr.
fn run(cache: &Path, fault: Option<&str>, args: &[&str]) -> (i32, Vec<String>, String) {
    let sandboxes = tempfile::tempdir().expect("a sandbox directory");
    let mut cmd = harness();
    cmd.env("XDG_CACHE_HOME", cache)
        .args([
            "--strict",
            // max-size-zero is protocol-only: a warning under --pedantic.
            "--pedantic",
            "--format",
            "json",
            "--seed",
            "1",
            "--sandbox-dir",
        ])
        .arg(sandboxes.path())
        .args(args)
        .arg(reference());
    if let Some(fault) = fault {
        cmd.env("ENTIRE_AGENT_REFERENCE_FAULT", fault);
    }
    let out = cmd.output().expect("agent-conform runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let ids = serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .ok()
        .and_then(|r| r["cases"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter(|c| c["outcome"]["kind"] != "skipped")
        .filter_map(|c| c["id"].as_str().map(str::to_string))
        .collect();
    (out.status.code().unwrap_or(-1), ids, stderr)
}

#[test]
fn reruns_what_failed_then_nothing() {
    let cache = tempfile::tempdir().expect("a cache directory");
    let never = run(cache.path(), None, &["--rerun-failed"]);
    assert_eq!(never.0, 2, "no run on record is a usage error: {}", never.2);
    assert!(never.2.contains("no earlier run"), "{}", never.2);

    let (code, all, _) = run(cache.path(), Some("chunk-accepts-zero"), &[]);
    assert_eq!(code, 1);
    let (code, again, stderr) = run(
        cache.path(),
        Some("chunk-accepts-zero"),
        &["--rerun-failed"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        again.contains(&"core.errors.max-size-zero".to_string()),
        "{again:?}"
    );
    assert!(
        again.len() < all.len() / 4,
        "only what failed reruns: {again:?}"
    );

    // Fixed: the rerun passes, and the next one has nothing to do.
    let (code, _, stderr) = run(cache.path(), None, &["--rerun-failed"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, ids, stderr) = run(cache.path(), None, &["--rerun-failed"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(ids.is_empty(), "{ids:?}");
    assert!(stderr.contains("nothing to rerun"), "{stderr}");
}

/// A failed case of the plugin's own cases is rerun only with them: a rerun
/// without them would leave it out in silence and pass, so it is refused,
/// naming the case.
#[test]
fn a_failed_case_whose_file_is_not_given_again_is_named() {
    let cache = tempfile::tempdir().expect("a cache directory");
    let own = common::root().join("reference-plugin/conformance");
    let own = own.display().to_string();
    let fault = Some("detect-never-present");
    let only = ["--only", "reference.detect.*", "--cases", &own];
    let (code, _, stderr) = run(cache.path(), fault, &only);
    assert_eq!(code, 1, "{stderr}");
    let (code, ids, stderr) = run(cache.path(), fault, &["--rerun-failed"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(ids.is_empty(), "{ids:?}");
    assert!(stderr.contains("reference.detect.present"), "{stderr}");
    assert!(stderr.contains("--cases"), "{stderr}");
    let (code, ids, stderr) = run(cache.path(), fault, &["--rerun-failed", "--cases", &own]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        ids.contains(&"reference.detect.present".to_string()),
        "{ids:?}"
    );
}
