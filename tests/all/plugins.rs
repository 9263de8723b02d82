//! The harness against real plugins: the reference plugin and an independent
//! Python plugin pass with --strict; one-fault plugins fail on the expected
//! case, with the reason.

use crate::common;

use common::{plugin, reference, run_json};

#[test]
fn the_reference_plugin_passes_strict_with_its_own_cases_and_every_capability() {
    let cases = common::root().join("reference-plugin/conformance");
    // --pedantic: the protocol-only cases run too, and pass.
    let run = run_json(
        &reference(),
        &[
            "--strict",
            "--pedantic",
            "--cases",
            &cases.to_string_lossy(),
        ],
        &[],
    );
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert_eq!(
        run.ids("skipped"),
        Vec::<String>::new(),
        "every capability is declared"
    );
    assert_eq!(run.code, 0);
    let capabilities: std::collections::BTreeSet<&str> = run.report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"]["kind"] == "passed")
        .filter_map(|c| c["capability"].as_str())
        .collect();
    for cap in [
        "hooks",
        "transcript_analyzer",
        "transcript_preparer",
        "token_calculator",
        "text_generator",
        "hook_response_writer",
        "subagent_aware_extractor",
    ] {
        assert!(capabilities.contains(cap), "no case of {cap} passed");
    }
}

#[test]
fn an_independent_python_plugin_passes_strict() {
    let run = run_json(&plugin("entire-agent-pyconform"), &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert_eq!(run.code, 0);
}

/// Runs a broken plugin and checks that `case` failed, with `needle` in its
/// findings, and that the run exits 1.
fn fails_on(name: &str, args: &[&str], case: &str, needle: &str) {
    caught(name, args, "failed", case, needle);
}

/// Runs a broken plugin and checks that `case` has the outcome `kind`
/// (failed, or warning under `--strict`), with `needle` in its findings, and
/// that the run exits 1.
fn caught(name: &str, args: &[&str], kind: &str, case: &str, needle: &str) {
    let run = run_json(&plugin(&format!("broken/entire-agent-{name}")), args, &[]);
    assert_eq!(run.code, 1, "{name}: exit code");
    assert!(
        run.ids(kind).contains(&case.to_string()),
        "{name}: {case} is not {kind}; {kind}: {:?}",
        run.ids(kind)
    );
    let messages = run.messages(case);
    assert!(messages.contains(needle), "{name}: {case}: {messages}");
}

#[test]
fn bad_info_fails_the_gate_and_nothing_else_runs() {
    fails_on("bad-info", &[], "discovery.info", "/protocol_version");
    let run = run_json(&plugin("broken/entire-agent-bad-info"), &[], &[]);
    assert_eq!(run.ids("passed"), Vec::<String>::new());
    assert!(run.ids("not_run").len() > 20);
}

#[test]
fn a_wrong_round_trip_warns_on_every_release_today() {
    // No release stores a plugin's chunks yet (read-transcript's 10 MiB cap
    // comes first): a warning, caught with --strict.
    caught(
        "bad-roundtrip",
        &["--strict", "--only", "core.chunk.*"],
        "warning",
        "core.chunk.round-trip",
        "first difference at byte",
    );
}

#[test]
fn an_unknown_subcommand_answered_with_exit_0_warns() {
    // The host calls only what info declares: a rule of the protocol
    // (protocol-only), caught with --strict --pedantic.
    caught(
        "unknown-ok",
        &["--strict", "--pedantic", "--only", "core.errors.*"],
        "warning",
        "core.errors.unknown-subcommand",
        "exited 0",
    );
}

#[test]
fn a_hang_is_reported_as_a_timeout() {
    fails_on(
        "hang",
        &["--timeout", "2", "--only", "core.detect.*"],
        "core.detect.schema",
        "timed out after 2 s",
    );
}

#[test]
fn a_flood_of_stdout_is_reported_with_the_hosts_limit() {
    fails_on(
        "flood",
        &["--only", "core.detect.*"],
        "core.detect.schema",
        "10485760 bytes",
    );
}

#[test]
fn a_silent_error_warns() {
    // The call fails in the host either way; silence takes the user's clue
    // away: a warning, caught with --strict.
    caught(
        "silent-error",
        &["--strict", "--pedantic", "--only", "core.errors.*"],
        "warning",
        "core.errors.unknown-subcommand",
        "nothing on stderr",
    );
}

#[test]
fn trailing_garbage_fails() {
    fails_on(
        "garbage",
        &["--only", "core.detect.*"],
        "core.detect.schema",
        "more than one JSON value",
    );
}

#[test]
fn a_plugin_that_ignores_stdin_does_not_crash_the_harness() {
    // get-session-id is never called by the host: a wrong id is the
    // protocol's rule, protocol-only: a warning under --pedantic.
    caught(
        "early-exit",
        &["--strict", "--pedantic", "--only", "core.get-session-id.*"],
        "warning",
        "core.get-session-id.from-input",
        "/session_id",
    );
}

#[test]
fn a_single_json_document_plugin_with_its_own_sample_passes_strict() {
    let cases = common::root().join("tests/plugins/pyjsondoc-cases");
    let run = run_json(
        &plugin("entire-agent-pyjsondoc"),
        &["--strict", "--cases", &cases.to_string_lossy()],
        &[],
    );
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(run.ids("warning"), Vec::<String>::new());
    assert!(
        run.ids("passed")
            .contains(&"core.chunk.own-samples".to_string())
    );
    assert_eq!(run.code, 0);
}

#[test]
fn without_its_sample_a_plugin_that_refuses_jsonl_gets_a_warning() {
    let run = run_json(&plugin("entire-agent-pyjsondoc"), &[], &[]);
    assert_eq!(run.code, 0, "warnings alone do not fail without --strict");
    assert!(
        run.ids("warning")
            .contains(&"core.chunk.generated-jsonl".to_string())
    );
    assert!(
        run.messages("core.chunk.generated-jsonl")
            .contains("chunking is unverified")
    );
}

#[test]
fn a_fixture_case_expecting_wrong_values_fails_with_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("samples")).unwrap();
    std::fs::copy(
        common::root().join("cases/fixtures/transcript.jsonl"),
        dir.path().join("samples/session.jsonl"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("wrong.yaml"),
        r#"cases:
  - id: mine.files
    capability: transcript_analyzer
    title: expects a wrong file list
    spec: fixture
    files:
      - path: "{{tmp}}/s.jsonl"
        content: {path: samples/session.jsonl}
    steps:
      - args: [extract-modified-files, --path, "{{tmp}}/s.jsonl", --offset, "0"]
        expect:
          json:
            - {pointer: /files, equals: [src/auth.go]}
  - id: mine.prompt
    capability: transcript_analyzer
    title: expects a wrong prompt
    spec: fixture
    files:
      - path: "{{tmp}}/s.jsonl"
        content: {path: samples/session.jsonl}
    steps:
      - args: [extract-prompts, --session-ref, "{{tmp}}/s.jsonl", --offset, "4"]
        expect:
          json:
            - {pointer: /prompts/0, equals: "Fix the login bug"}
  - id: mine.event
    capability: hooks
    title: expects a wrong event type
    spec: fixture
    steps:
      - args: [parse-hook, --hook, stop]
        stdin: {json: {session_id: s1, transcript_path: /tmp/t.jsonl}}
        expect:
          json:
            - {pointer: /type, equals: 2}
"#,
    )
    .unwrap();
    let run = run_json(
        &reference(),
        &["--only", "mine.*", "--cases", &dir.path().to_string_lossy()],
        &[],
    );
    assert_eq!(run.code, 1);
    let failed = run.ids("failed");
    for id in ["mine.files", "mine.prompt", "mine.event"] {
        assert!(
            failed.contains(&id.to_string()),
            "{id} did not fail: {failed:?}"
        );
    }
    let case = run.report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "mine.files")
        .unwrap();
    let finding = &case["steps"][0]["findings"][0];
    assert!(
        finding["expected"]
            .as_str()
            .unwrap()
            .contains("src/auth.go")
    );
    assert!(
        finding["actual"]
            .as_str()
            .unwrap()
            .contains("src/auth_test.go")
    );
}

/// Legitimate ways to meet the spec (the reference plugin's variants) pass
/// with --strict.
#[test]
fn neutral_variations_pass_strict() {
    let cases = common::root().join("reference-plugin/conformance");
    for variant in [
        "chunk-bytes",
        "parse-hook-empty-null",
        "extra-fields",
        "missing-transcript-zero",
        "generated-session-id",
        "no-capabilities",
    ] {
        // The conformance cases pin the default behaviour (its own event for
        // empty input, line-based chunks); the generic suite must accept every
        // variant, so they run without them.
        let _ = &cases;
        let run = run_json(
            &reference(),
            &["--strict"],
            &[("ENTIRE_AGENT_REFERENCE_VARIANT", variant)],
        );
        assert_eq!(run.ids("failed"), Vec::<String>::new(), "{variant}");
        assert_eq!(run.ids("warning"), Vec::<String>::new(), "{variant}");
        assert_eq!(run.code, 0, "{variant}");
    }
}

/// The independent Python plugin implements every capability; one fault in
/// each of hook lifecycle, user data, event fields, token counts, text
/// generation, hook responses and a declared-but-missing subcommand is
/// caught by the expected case: a failure where the host breaks, a warning
/// (under `--strict`) where it only degrades. Each run is limited to the
/// cases of that capability.
#[test]
fn single_capability_faults_in_the_independent_plugin_are_caught() {
    for (name, only, case, needle) in [
        (
            "clobbers-settings",
            "hooks.user-data.*",
            "hooks.user-data.fresh-install",
            "user data lost",
        ),
        (
            "tokens-float",
            "token_calculator.*",
            "token_calculator.from-start",
            "plain integer",
        ),
    ] {
        fails_on(name, &["--only", only], case, needle);
    }
    // Empty text fails `entire explain --generate`: a failure.
    fails_on(
        "text-empty",
        &["--only", "text_generator.*"],
        "text_generator.generate",
        "Failed to generate summary",
    );
    // A second install that changes nothing but reports hooks installed
    // only changes the host's message: a note, which fails nothing.
    let run = run_json(
        &plugin("broken/entire-agent-hooks-not-idempotent"),
        &["--strict", "--only", "hooks.lifecycle.*"],
        &[],
    );
    assert_eq!(
        run.ids("note"),
        vec!["hooks.lifecycle.idempotent".to_string()]
    );
    assert!(
        run.messages("hooks.lifecycle.idempotent")
            .contains("/hooks_installed")
    );
    assert_eq!(run.code, 0, "a note never fails the run");
    for (name, only, case, needle) in [
        (
            "event-missing-fields",
            "hooks.parse-hook.*",
            "hooks.parse-hook.payload",
            "session_ref",
        ),
        (
            "hook-response-missing",
            "hook_response_writer.*",
            "hook_response_writer.write",
            "does not carry the message",
        ),
        // "unknown subcommand" on stderr: the declared capability is
        // missing (not another agent's format), at the host's severity for
        // token counts, a warning; the message quotes the plugin's stderr.
        (
            "declared-missing",
            "token_calculator.*",
            "token_calculator.from-start",
            "a declared capability without its subcommand: info declares token_calculator",
        ),
    ] {
        caught(name, &["--strict", "--only", only], "warning", case, needle);
    }
}

/// A session directory that takes other agents' transcripts fails, the
/// template's shared one warns, and a resume that restores where the agent
/// never reads warns, each message naming whose events are skipped or both
/// paths.
#[test]
fn session_directories_and_resume_are_judged_by_whose_transcripts_they_take() {
    // (fault, case, outcome, texts its message must carry)
    for (fault, case, kind, texts) in [
        (
            "session-dir-repo-root",
            "core.get-session-dir.non-empty",
            "failed",
            &["the work tree's root", "are skipped", "no checkpoints"][..],
        ),
        (
            "session-dir-entire-tmp",
            "core.get-session-dir.non-empty",
            "warning",
            &["shared staging directory", "sorts later is skipped"][..],
        ),
        (
            "resolve-elsewhere",
            "session.agent",
            "failed",
            &[
                "restored/sess-replay-1.jsonl",
                "keeps and resumes it at",
                "/sess-replay-1.jsonl (the session_ref",
                "`reference --resume sess-replay-1`",
            ][..],
        ),
    ] {
        let run = run_json(
            &reference(),
            &["--seed", "1", "--only", case],
            &[("ENTIRE_AGENT_REFERENCE_FAULT", fault)],
        );
        assert_eq!(run.ids(kind), [case], "{fault}: {case} is {kind}");
        let messages = run.messages(case);
        for text in texts {
            assert!(
                messages.contains(text),
                "{fault}: {text:?} not in {messages}"
            );
        }
    }
}

/// The real bugs the wild shows still fail the default run, with
/// no `--strict`: each breaks the host (the user's files deleted, a failed
/// resume, a broken session store).
#[test]
fn real_bugs_fail_the_default_run() {
    for (fault, case) in [
        ("uninstall-deletes-dir", "hooks.user-data.fresh-install"),
        // The store round trip writes with an id the plugin never made (a
        // refusal there is not verified); the replay writes with its own.
        ("write-session-silent-failure", "session.agent"),
        ("session-dir-empty", "core.get-session-dir.non-empty"),
        // A session directory that takes other agents' transcripts.
        ("session-dir-repo-root", "core.get-session-dir.non-empty"),
        // The five breaks of the host's source: each fails a
        // user command, so each fails the default run.
        (
            "are-installed-always-true",
            "hooks.lifecycle.fresh-not-installed",
        ),
        ("uninstall-noop", "hooks.lifecycle.uninstall"),
        ("install-not-idempotent", "hooks.lifecycle.idempotent"),
        ("generate-text-empty", "text_generator.generate"),
        ("resolve-drops-id", "core.resolve-session-file.distinct-ids"),
        // Faults that only show across calls: the host session.
        ("turnend-ref-session-dir", "session.agent"),
        ("session-id-changes-after-turn-end", "session.agent"),
        ("resolve-truncates-id", "session.agent"),
        ("analysis-offset-ignored-when-grown", "session.agent"),
        ("write-session-rejects-zero-time", "session.agent"),
        ("write-session-rejects-null-files", "session.agent"),
        ("write-session-rejects-empty-repo", "session.agent"),
    ] {
        let run = run_json(
            &reference(),
            &["--seed", "1"],
            &[("ENTIRE_AGENT_REFERENCE_FAULT", fault)],
        );
        assert_eq!(run.code, 1, "{fault}: exit code");
        assert!(
            run.ids("failed").contains(&case.to_string()),
            "{fault}: {case} did not fail; failed: {:?}",
            run.ids("failed")
        );
    }
}

#[test]
fn a_schema_warning_on_info_is_said_once() {
    // Three cases read info; its documented shape is core.info.schema's to
    // judge, so a missing description is one schema warning, not three.
    let fault = [("ENTIRE_AGENT_REFERENCE_FAULT", "info-missing-description")];
    let run = run_json(&reference(), &["--only", "core.info.*"], &fault);
    let schema_said: Vec<&str> = [
        "core.info.schema",
        "core.info.identity",
        "core.info.hooks-consistent",
    ]
    .into_iter()
    .filter(|id| run.messages(id).contains("schemas/info.json"))
    .collect();
    assert_eq!(schema_said, ["core.info.schema"]);
}
