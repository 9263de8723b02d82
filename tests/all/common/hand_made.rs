//! Hand-made runs for the reporter tests: `RunReport`s built by hand (a
//! passing run, a run where every case fails, a run whose gate failed, a
//! mixed run, a run with a warning) so that every outcome is covered without
//! running a plugin.

use std::path::PathBuf;
use std::time::Duration;

use agent_conform::api::Finding;
use agent_conform::api::case::Severity;
use agent_conform::api::{CaseOutcome, CaseReport, RunReport, StepReport};
use serde_json::{Value, json};

pub fn finding(severity: Severity, message: &str, expected: &str, actual: &str) -> Finding {
    Finding {
        severity,
        ..Finding::failure(message).diff(expected, actual)
    }
}

pub fn step(name: &str, findings: Vec<Finding>) -> StepReport {
    StepReport {
        name: name.to_string(),
        args: vec![name.to_string(), "--flag".to_string()],
        command: format!(
            "cd /tmp/sb/repo && HOME=/tmp/sb/home ENTIRE_REPO_ROOT=/tmp/sb/repo \
             ENTIRE_PROTOCOL_VERSION=1 /plugins/entire-agent-x {name} --flag < /dev/null"
        ),
        reproduction: None,
        reproduce: None,
        printed: None,
        exit_code: Some(if findings.is_empty() { 0 } else { 1 }),
        termination: "exited".to_string(),
        duration: Duration::from_micros(12_345),
        stdout_bytes: 17,
        stderr_bytes: 0,
        stderr_excerpt: String::new(),
        rests_on: Default::default(),
        findings,
        sent: None,
        answered_by: None,
    }
}

pub fn case(
    id: &str,
    capability: &str,
    outcome: CaseOutcome,
    steps: Vec<StepReport>,
) -> CaseReport {
    CaseReport {
        id: id.to_string(),
        title: format!("{id} does what the spec says, with <angle> & \"quotes\""),
        spec: "protocol \"x\"".to_string(),
        capability: capability.to_string(),
        severity: Severity::Failure,
        sandbox: matches!(outcome, CaseOutcome::Failed | CaseOutcome::Warning)
            .then(|| PathBuf::from(format!("/tmp/agent-conform-{id}-abc"))),
        outcome,
        note: None,
        duration: Duration::from_millis(250),
        steps,
        host_calls: Vec::new(),
        world: Vec::new(),
        shrunk: None,
        timeline: false,
        ran: Vec::new(),
        unverified: None,
        refused_guess: false,
    }
}

pub fn info(hooks: bool) -> Value {
    json!({
        "protocol_version": 1,
        "name": "x",
        "type": "X Agent",
        "description": "a test agent",
        "capabilities": {"hooks": hooks, "transcript_analyzer": false}
    })
}

pub fn run_of(cases: Vec<CaseReport>, info: Option<Value>) -> RunReport {
    RunReport {
        plugin: PathBuf::from("/plugins/entire-agent-x"),
        hosts: agent_conform::api::Hosts {
            requirement: ">=0.5.0".into(),
            releases: "0.5.0–0.12.x".into(),
        },
        info,
        cases,
        wall: Duration::from_millis(1234),
        invocations: Duration::from_millis(2345),
        jobs: 2,
        deliberate_wait: Duration::ZERO,
        seed: 42,
        peak_rss_bytes: Some(12 << 20),
        pedantic: false,
        calls_off_steps: 0,
        host_replay: None,
        entire_on_path: None,
        explored: None,
    }
}

pub fn passed(id: &str, capability: &str) -> CaseReport {
    case(
        id,
        capability,
        CaseOutcome::Passed,
        vec![step("detect", vec![])],
    )
}

pub fn passing_run() -> RunReport {
    run_of(
        vec![
            passed("discovery.info", "core"),
            passed("core.detect.schema", "core"),
            passed("core.chunk.round-trip", "core"),
            passed("hooks.install.idempotent", "hooks"),
            passed("hooks.parse.session-start", "hooks"),
        ],
        Some(info(true)),
    )
}

/// A failing case with a multi-line diff, a stderr excerpt with an ANSI
/// escape and XML-special characters, and a message spanning lines.
pub fn failed(id: &str, capability: &str) -> CaseReport {
    let mut s = step(
        "reassemble",
        vec![
            finding(
                Severity::Failure,
                "stdout differs from the expected bytes:\nfirst difference at byte 12 (100% <sure> & \"so\")",
                "line one\nline two\nline three\n",
                "line one\nline 2\nline three\n\n",
            ),
            finding(Severity::Warning, "slow: took 9 s", "under 5 s", "9 s"),
        ],
    );
    s.stderr_excerpt =
        "\u{1b}[31merror:\u{1b}[0m bad <input> & worse\nsecond \u{0}\u{7}\u{FFFF} line\n"
            .to_string();
    s.stderr_bytes = s.stderr_excerpt.len();
    s.reproduce = Some(format!("sh /tmp/agent-conform-{id}-abc/reproduce.sh 2"));
    case(
        id,
        capability,
        CaseOutcome::Failed,
        vec![step("chunk", vec![]), s],
    )
}

/// Every case fails, in two capability groups.
pub fn failing_run() -> RunReport {
    run_of(
        vec![
            failed("discovery.info", "core"),
            failed("core.detect.schema", "core"),
            failed("core.chunk.round-trip", "core"),
            failed("hooks.install.idempotent", "hooks"),
        ],
        Some(info(true)),
    )
}

/// A mixed run: failures, a warning, a skipped capability, a pass.
pub fn mixed_run() -> RunReport {
    run_of(
        vec![
            passed("discovery.info", "core"),
            failed("core.chunk.round-trip", "core"),
            warned("core.chunk.refusal"),
            case(
                "transcript_analyzer.position",
                "transcript_analyzer",
                CaseOutcome::Skipped(
                    "capability transcript_analyzer is not declared in info".to_string(),
                ),
                vec![],
            ),
            passed("hooks.install.idempotent", "hooks"),
        ],
        Some(info(true)),
    )
}

pub const GATE_REASON: &str =
    "not run: discovery.info failed (info: at /protocol_version: not the expected value)";

/// The gate failed: every other case is not run.
pub fn gate_run() -> RunReport {
    let mut cases = vec![failed("discovery.info", "core")];
    for (id, cap) in [
        ("core.detect.schema", "core"),
        ("core.chunk.round-trip", "core"),
        ("hooks.install.idempotent", "hooks"),
        ("hooks.parse.session-start", "hooks"),
    ] {
        cases.push(case(
            id,
            cap,
            CaseOutcome::NotRun(GATE_REASON.to_string()),
            vec![],
        ));
    }
    run_of(cases, None)
}

/// A warning case: a clean refusal accepted with a note.
pub fn warned(id: &str) -> CaseReport {
    let mut c = case(
        id,
        "core",
        CaseOutcome::Warning,
        vec![step(
            "chunk",
            vec![finding(
                Severity::Warning,
                "the plugin refused a JSONL transcript,\nso chunking was not verified",
                "exit 0",
                "exit 1",
            )],
        )],
    );
    c.severity = Severity::Warning;
    c
}

pub fn warning_run() -> RunReport {
    run_of(
        vec![
            passed("discovery.info", "core"),
            warned("core.chunk.refusal"),
            passed("core.detect.schema", "core"),
        ],
        Some(info(false)),
    )
}
