//! Every verb ends quietly when the reader of its stdout goes away
//! (`agent-conform completions bash | head -2`): no panic, no backtrace, the
//! verb's own exit code.

use crate::common;

use std::process::Stdio;

use common::{harness, reference};

/// Runs the harness with stdout on a pipe whose read end is already closed,
/// so that its first write fails with EPIPE; returns (exit code, stderr).
fn with_closed_stdout(args: &[&str], cwd: &std::path::Path) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = harness()
        .args(args)
        .current_dir(cwd)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("agent-conform runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_verb_ends_quietly_when_its_reader_goes_away() {
    let plugin = reference();
    let plugin = plugin.to_str().expect("utf-8 path");
    let dir = tempfile::tempdir().expect("temp dir");
    let verbs: Vec<Vec<&str>> = vec![
        vec!["completions", "bash"],
        vec!["list"],
        vec!["explain", "core.info.schema"],
        vec!["schema"],
        vec!["schema", "info"],
        vec!["coverage"],
        vec!["--help"],
        vec!["--version"],
        vec!["--only", "core.detect*", plugin],
        vec!["run", "--format", "json", "--only", "core.detect*", plugin],
        vec!["init", plugin, "scaffold"],
    ];
    for args in verbs {
        let (code, stderr) = with_closed_stdout(&args, dir.path());
        assert_eq!(
            code,
            Some(0),
            "agent-conform {args:?} exited with {code:?}: {stderr}"
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "agent-conform {args:?} was not quiet: {stderr}"
        );
    }
}
