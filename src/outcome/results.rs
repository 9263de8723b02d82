//! The results of a run: what every reporter reads. Plain data, so that the
//! human, JSON and JUnit reports cannot disagree about what happened.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::host::Severity;
use crate::outcome::Finding;

/// The outcome of one case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "reason")]
pub enum CaseOutcome {
    /// Every check held.
    Passed,
    /// A check of failure severity did not hold.
    Failed,
    /// Only warnings: a warning-severity case failed, or something went
    /// unverified in a way the spec allows.
    Warning,
    /// Only notes: observations that never fail the run.
    Note,
    /// The case needs a capability the plugin does not declare.
    Skipped(String),
    /// The case could not run (info failed, or the sandbox could not be made).
    NotRun(String),
}

impl CaseOutcome {
    /// A short lower-case label.
    pub fn label(&self) -> &'static str {
        match self {
            CaseOutcome::Passed => "passed",
            CaseOutcome::Failed => "failed",
            CaseOutcome::Warning => "warning",
            CaseOutcome::Note => "note",
            CaseOutcome::Skipped(_) => "skipped",
            CaseOutcome::NotRun(_) => "not-run",
        }
    }

    /// The outcome the findings of these steps make: that of the heaviest
    /// (findings are capped at the case's severity where they are made).
    /// One function, so that running a case, `--allow` and what the run
    /// says once cannot weigh findings differently.
    pub fn of(steps: &[StepReport]) -> CaseOutcome {
        let heaviest = steps
            .iter()
            .flat_map(|s| &s.findings)
            .map(Finding::weight)
            .max();
        match heaviest {
            None => CaseOutcome::Passed,
            Some(Severity::Note) => CaseOutcome::Note,
            Some(Severity::Warning) => CaseOutcome::Warning,
            Some(Severity::Failure) => CaseOutcome::Failed,
        }
    }
}

/// One invocation as reported.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The step's name.
    pub name: String,
    /// The arguments after the binary.
    pub args: Vec<String>,
    /// A shell command line that reproduces the invocation.
    pub command: String,
    /// What [`command`](Self::command) says, as data, for the sandbox's
    /// `reproduce.sh`, until its case ends (none for harness actions).
    #[serde(skip)]
    pub reproduction: Option<crate::outcome::repro::Reproduction>,
    /// `sh <sandbox>/reproduce.sh N`, when the sandbox was kept.
    pub reproduce: Option<String>,
    /// What the invocation printed, until its case ends (see
    /// [`crate::outcome::repro::Printed`]).
    #[serde(skip)]
    pub printed: Option<crate::outcome::repro::Printed>,
    /// Exit code, when the process exited normally.
    pub exit_code: Option<i32>,
    /// "exited", "timed-out", "signal" or "not-started".
    pub termination: String,
    /// Wall time of the invocation.
    #[serde(serialize_with = "millis", rename = "duration_ms")]
    pub duration: Duration,
    /// Bytes of stdout kept.
    pub stdout_bytes: usize,
    /// Bytes of stderr kept.
    pub stderr_bytes: usize,
    /// The start of stderr, for failure reports.
    #[serde(skip)]
    pub stderr_excerpt: String,
    /// What the step's input rests on (see
    /// [`crate::outcome::evidence::Evidence`]): the host's own input, the
    /// plugin's own answers, the author's samples, or an assumption of ours
    /// (a generic payload or transcript). Its findings that do not say what
    /// they rest on rest on this ([`StepReport::settle`]).
    pub rests_on: crate::outcome::evidence::Evidence,
    /// Problems found.
    #[serde(serialize_with = "findings")]
    pub findings: Vec<Finding>,
    /// What the invocation sent on stdin, as a report shows it (the JSON
    /// report's `command` names the saved file instead).
    #[serde(skip)]
    pub sent: Option<Sent>,
    /// The case whose call gave this answer, when this step did not start
    /// the plugin itself: the same command line, environment and stdin in
    /// the same sandbox state were asked there first, and the answer is
    /// shared (see `execute::answers`). The step is reported as its case
    /// saw it; [`RunReport::calls`] counts the call once, where it was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
}

/// The stdin of an invocation, as a report shows it: inline when it is
/// shorter than a line, else where it was saved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sent {
    /// Its length in bytes.
    pub bytes: usize,
    /// The text itself, when it is UTF-8, one line, short and free of
    /// control characters.
    pub inline: Option<String>,
    /// The file it was saved to, when the case's sandbox was kept.
    pub file: Option<PathBuf>,
    /// A stdin too long for a line that is one JSON object: its short
    /// top-level values (`session_id "s-1", transcript_path "/x/s.jsonl"`),
    /// so that the value a finding is about shows without opening the file.
    pub fields: Option<String>,
}

impl Sent {
    /// The longest stdin whose JSON fields are quoted (a payload, not a
    /// transcript: the five-MiB inputs are not parsed).
    const FIELDS_MAX_BYTES: usize = 64 << 10;
    /// The longest value quoted, and the most quoted in all, in characters.
    const FIELD_CHARS: usize = 160;
    const FIELDS_CHARS: usize = 240;

    /// The longest stdin shown inline, in characters.
    pub const INLINE_CHARS: usize = 100;

    /// What `stdin` shows: its text inline when it fits on a line.
    pub fn of(stdin: &[u8]) -> Sent {
        // A char is at most four bytes, and a final newline is not shown: a
        // longer stdin (the five-MiB payloads) is not scanned at all.
        let short = stdin.len() <= Sent::INLINE_CHARS * 4 + 1;
        let text = short.then(|| std::str::from_utf8(stdin).ok()).flatten();
        let one_line = text.map(|t| t.strip_suffix('\n').unwrap_or(t));
        let inline = one_line
            .filter(|t| !t.chars().any(char::is_control) && t.chars().count() <= Sent::INLINE_CHARS)
            .map(str::to_string);
        let fields = match inline {
            None if stdin.len() <= Sent::FIELDS_MAX_BYTES => Sent::fields_of(stdin),
            _ => None,
        };
        Sent {
            bytes: stdin.len(),
            inline,
            file: None,
            fields,
        }
    }

    /// The short top-level values of a JSON object, in its order, each as
    /// `key value` (strings quoted), until the line is full.
    fn fields_of(stdin: &[u8]) -> Option<String> {
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(stdin).ok()?;
        let mut said: Vec<String> = Vec::new();
        let mut chars = 0;
        for (key, value) in &map {
            let shown = match value {
                serde_json::Value::String(text) if text.chars().count() <= Sent::FIELD_CHARS => {
                    serde_json::Value::String(text.clone()).to_string()
                }
                serde_json::Value::Number(_) | serde_json::Value::Bool(_) => value.to_string(),
                _ => continue,
            };
            let one = format!("{key} {shown}");
            chars += one.chars().count() + 2;
            if chars > Sent::FIELDS_CHARS {
                break;
            }
            said.push(one);
        }
        (!said.is_empty()).then(|| said.join(", "))
    }

    /// One line that says it: `{"chunks":["@@"]}`, or `N bytes, <file>`.
    pub fn text(&self) -> String {
        let saved = match (&self.inline, &self.file) {
            (Some(inline), _) if !inline.is_empty() => return inline.clone(),
            (Some(_), _) => return "empty".to_string(),
            (None, Some(file)) => file.display().to_string(),
            (None, None) => "not kept".to_string(),
        };
        match &self.fields {
            Some(fields) => format!("{} bytes: {fields}; {saved}", self.bytes),
            None if self.file.is_some() => format!("{} bytes, {saved}", self.bytes),
            None => format!("{} bytes ({saved})", self.bytes),
        }
    }
}

impl StepReport {
    /// The step as a one-line report names it: its name, and the
    /// subcommand it ran when the name does not say it (`step 1 (detect)`,
    /// never a bare `step 1`).
    pub fn label(&self) -> String {
        let word = self.name.split([' ', '[']).next().unwrap_or_default();
        match self.args.first() {
            Some(sub) if !self.name.contains(sub.as_str()) && !sub.starts_with(word) => {
                format!("{} ({sub})", self.name)
            }
            _ => self.name.clone(),
        }
    }

    /// Whether this step started the plugin (see [`RunReport::calls`]).
    pub fn made_a_call(&self) -> bool {
        matches!(self.termination.as_str(), "exited" | "signal" | "timed-out")
            && self.answered_by.is_none()
    }

    /// A step with no invocation behind it (a harness action, a call that
    /// was never made), `termination` saying which.
    pub fn without_invocation(name: &str, termination: &str, findings: Vec<Finding>) -> StepReport {
        StepReport {
            name: name.to_string(),
            args: Vec::new(),
            command: String::new(),
            reproduction: None,
            reproduce: None,
            printed: None,
            exit_code: None,
            termination: termination.to_string(),
            duration: Duration::ZERO,
            stdout_bytes: 0,
            stderr_bytes: 0,
            stderr_excerpt: String::new(),
            rests_on: crate::outcome::evidence::Evidence::HostInput,
            findings,
            sent: None,
            answered_by: None,
        }
    }

    /// Settles each finding with what the step's input rests on
    /// ([`Finding::settle`]): the one place a step's input caps its
    /// findings.
    pub fn settle(&mut self) {
        let input = self.rests_on;
        self.findings.iter_mut().for_each(|f| f.settle(input));
    }
}

/// A failing world shrunk: the case run again with fewer of its world's
/// values, each put back to the clean room's, until the smallest world that
/// still shows what the case found.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Shrunk {
    /// The values the finding needs (`axis=value`); empty when it shows in
    /// the clean room too, and so says nothing of the world.
    pub needs: Vec<String>,
    /// The reruns it took.
    pub reruns: usize,
    /// The reruns ran out before every value was tried.
    pub bounded: bool,
}

/// One case as reported.
#[derive(Debug, Clone, Serialize)]
pub struct CaseReport {
    /// The case id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The spec section.
    pub spec: String,
    /// Capability (`core` for the always-required part).
    pub capability: String,
    /// Declared severity.
    pub severity: Severity,
    /// What happened.
    pub outcome: CaseOutcome,
    /// A note on the outcome (an accepted refusal, say).
    pub note: Option<String>,
    /// Wall time of the case, sandbox included.
    #[serde(serialize_with = "millis", rename = "duration_ms")]
    pub duration: Duration,
    /// The steps that ran.
    pub steps: Vec<StepReport>,
    /// The sandbox, when it was kept.
    pub sandbox: Option<PathBuf>,
    /// The calls the sandbox's `entire` stand-in received during the case
    /// (`entire hooks foo stop`), oldest first; left out of the JSON when
    /// there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub host_calls: Vec<String>,
    /// The world the case ran in: its values other than the clean room's,
    /// as `axis=value` (docs/worlds.md; `--world` takes them back).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub world: Vec<String>,
    /// What shrinking the world of a case that did not pass found, when it
    /// ran ([`Shrunk`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<Shrunk>,
    /// The steps are a timeline of host steps (the `session.*` cases): a
    /// report shows all of them when the case did not pass.
    #[serde(skip)]
    pub timeline: bool,
    /// Why the agent session of a timeline could not be verified (the
    /// plugin refused the generic payloads, say): its steps then tell
    /// nothing, and a report says so once in their place.
    #[serde(skip)]
    pub unverified: Option<String>,
    /// The case's sample was the scaffold's guess (`guess: true`) and the
    /// plugin refused it: the run says once what to fill in.
    #[serde(skip)]
    pub refused_guess: bool,
    /// When the case ran, from its start to its end (one span per unit of
    /// a case split across the pool): a report's wall time of several cases
    /// run in parallel is the union of their spans, not the sum.
    #[serde(skip)]
    pub ran: Vec<(Instant, Instant)>,
}

impl CaseReport {
    /// The wall time of `cases`, run in parallel: the length of the union of
    /// their spans ([`CaseReport::ran`]).
    pub fn wall_of<'a>(cases: impl IntoIterator<Item = &'a CaseReport>) -> Duration {
        let mut spans: Vec<(Instant, Instant)> = cases
            .into_iter()
            .flat_map(|c| c.ran.iter().copied())
            .collect();
        spans.sort();
        let mut total = Duration::ZERO;
        let mut current: Option<(Instant, Instant)> = None;
        for (start, end) in spans {
            current = match current {
                Some((s, e)) if start <= e => Some((s, e.max(end))),
                Some((s, e)) => {
                    total += e - s;
                    Some((start, end))
                }
                None => Some((start, end)),
            };
        }
        total + current.map_or(Duration::ZERO, |(s, e)| e - s)
    }

    /// The first finding that decided the outcome, for one-line messages.
    pub fn first_finding(&self) -> Option<(&StepReport, &Finding)> {
        let wanted = match self.outcome {
            CaseOutcome::Failed => Severity::Failure,
            CaseOutcome::Warning => Severity::Warning,
            _ => Severity::Note,
        };
        self.steps
            .iter()
            .flat_map(|s| s.findings.iter().map(move |f| (s, f)))
            .find(|(_, f)| f.severity == wanted)
    }

    /// One line saying why the case did not pass.
    pub fn summary_line(&self) -> String {
        match (&self.outcome, self.first_finding()) {
            (CaseOutcome::Skipped(r) | CaseOutcome::NotRun(r), _) => r.clone(),
            (_, Some((step, f))) => format!("{}: {}", step.label(), f.text()),
            (_, None) => self.note.clone().unwrap_or_default(),
        }
    }
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The plugin as given and resolved.
    pub plugin: PathBuf,
    /// The host releases judged.
    pub hosts: Hosts,
    /// Its `info` output, when it had one.
    pub info: Option<Value>,
    /// Cases in suite order (never completion order).
    pub cases: Vec<CaseReport>,
    /// Wall time of the run.
    #[serde(skip)]
    pub wall: Duration,
    /// Sum of all invocations' wall times.
    #[serde(skip)]
    pub invocations: Duration,
    /// The longest deliberate wait of the run's calls (a late stdin's
    /// delay, `stdin_delay_ms`): no run can be shorter.
    #[serde(skip)]
    pub deliberate_wait: Duration,
    /// Cases run in parallel.
    pub jobs: usize,
    /// Seed of the generated inputs.
    pub seed: u64,
    /// The harness's peak resident memory, where the system tells it.
    pub peak_rss_bytes: Option<u64>,
    /// Whether protocol-only findings weighed as warnings (`--pedantic`).
    pub pedantic: bool,
    /// The calls made outside the cases' steps: the probes after the gate
    /// and the calls inside the harness's actions.
    #[serde(skip)]
    pub calls_off_steps: usize,
    /// The replay through a real host (`--host`), when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_replay: Option<crate::outcome::host_replay::HostReplay>,
    /// An `entire` found on `PATH` when `--host` was not given (the human
    /// report says how to use it).
    #[serde(skip)]
    pub entire_on_path: Option<PathBuf>,
    /// `--explore N`: the worlds drawn from the seed beyond the design's,
    /// and how many found what the design's runs had not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explored: Option<Explored>,
}

/// What `--explore N` did (docs/worlds.md).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Explored {
    /// The worlds drawn.
    pub worlds: usize,
    /// The cases that failed or warned in one of them.
    pub found: usize,
}

/// The host releases a run judged (`--host-version`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Hosts {
    /// The requirement as given (`>=0.5.0` by default).
    pub requirement: String,
    /// The releases it matches, as spans (`0.5.0–0.12.x`).
    pub releases: String,
}

impl Hosts {
    /// The range as reported.
    pub fn of(range: &crate::host::range::HostRange) -> Hosts {
        Hosts {
            requirement: range.requirement.clone(),
            releases: range.describe(),
        }
    }
}

/// The process's peak resident set size (Linux: VmHWM in /proc/self/status).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

impl RunReport {
    /// Counts of each outcome: (passed, failed, warnings, skipped, not run).
    pub fn counts(&self) -> Counts {
        Counts::of(self.cases.iter())
    }

    /// True when the run fails: a case failed, or (strict) one warned.
    pub fn failed(&self, strict: bool) -> bool {
        let c = self.counts();
        c.failed > 0 || (strict && c.warnings > 0)
    }

    /// "N passed, N failed, N warnings, N notes, N skipped, N not run in X s,
    /// N calls to the plugin".
    pub fn summary_text(&self, strict: bool) -> String {
        let c = self.counts();
        let calls = self.calls();
        format!(
            "{} passed, {} failed, {} warnings, {} notes, {} skipped, {} not run in {:.2} s, {} call{} to the plugin{}",
            c.passed,
            c.failed,
            c.warnings,
            c.notes,
            c.skipped,
            c.not_run,
            self.wall.as_secs_f64(),
            calls,
            if calls == 1 { "" } else { "s" },
            if strict {
                " (strict: warnings fail)"
            } else {
                ""
            }
        )
    }

    /// The calls made to the plugin: every step that started it (it exited,
    /// was killed by a signal or timed out), and every call made outside the
    /// steps (the probes, the calls inside actions); not the calls never made
    /// nor an answer shared from another case.
    pub fn calls(&self) -> usize {
        self.cases
            .iter()
            .flat_map(|c| &c.steps)
            .filter(|s| s.made_a_call())
            .count()
            + self.calls_off_steps
    }

    /// Capability groups: `core`, then the protocol's order of capabilities.
    pub fn groups(&self) -> Vec<String> {
        let mut groups = vec!["core".to_string()];
        for case in &self.cases {
            if !groups.contains(&case.capability) {
                groups.push(case.capability.clone());
            }
        }
        let rank = |g: &String| {
            crate::suite::case::CAPABILITIES
                .iter()
                .position(|c| c == g)
                .map_or(if g == "core" { 0 } else { usize::MAX }, |i| i + 1)
        };
        groups.sort_by_key(rank);
        groups
    }

    /// Whether the plugin declares a capability (core is always declared).
    pub fn declares(&self, capability: &str) -> bool {
        capability == "core"
            || self
                .info
                .as_ref()
                .and_then(|i| i.pointer(&format!("/capabilities/{capability}")))
                == Some(&Value::Bool(true))
    }
}

/// Outcome counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Passed cases.
    pub passed: usize,
    /// Failed cases.
    pub failed: usize,
    /// Cases with warnings.
    pub warnings: usize,
    /// Cases with notes only.
    pub notes: usize,
    /// Skipped cases.
    pub skipped: usize,
    /// Cases not run.
    pub not_run: usize,
}

impl Counts {
    /// Counts a set of cases.
    pub fn of<'a>(cases: impl Iterator<Item = &'a CaseReport>) -> Counts {
        let mut c = Counts::default();
        for case in cases {
            match case.outcome {
                CaseOutcome::Passed => c.passed += 1,
                CaseOutcome::Failed => c.failed += 1,
                CaseOutcome::Warning => c.warnings += 1,
                CaseOutcome::Note => c.notes += 1,
                CaseOutcome::Skipped(_) => c.skipped += 1,
                CaseOutcome::NotRun(_) => c.not_run += 1,
            }
        }
        c
    }

    /// Total cases.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.warnings + self.notes + self.skipped + self.not_run
    }
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1e6).round() / 1e3)
}

fn findings<S: serde::Serializer>(list: &[Finding], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(list.len()))?;
    for f in list {
        let mut finding = serde_json::json!({
            "severity": f.weight(),
            "code": f.kind,
            "evidence": f.evidence(),
            "message": f.text(),
            "expected": f.expected,
            "actual": f.actual,
        });
        // Only with `--host`: the report of a run without it is unchanged.
        if let (Some(word), Some(map)) = (&f.host_word, finding.as_object_mut()) {
            map.insert("host_word".into(), serde_json::json!(word));
        }
        seq.serialize_element(&finding)?;
    }
    seq.end()
}

#[cfg(test)]
mod tests {
    use super::Sent;

    #[test]
    fn a_step_label_names_its_subcommand() {
        let mut step = super::StepReport::without_invocation("step 1", "exited", Vec::new());
        step.args = vec!["detect".to_string()];
        assert_eq!(step.label(), "step 1 (detect)");
        step.name = "parse [stop]".to_string();
        step.args = vec!["parse-hook".to_string()];
        assert_eq!(step.label(), "parse [stop]");
    }

    #[test]
    fn a_long_json_stdin_quotes_its_short_values() {
        let payload = serde_json::json!({
            "sessionId": "s-1",
            "transcriptPath": "/home/u/.foo/s-1.jsonl",
            "messages": ["x".repeat(500)],
            "prompt": "y".repeat(500),
            "turn": 3,
        });
        let sent = Sent::of(payload.to_string().as_bytes());
        assert_eq!(sent.inline, None);
        let text = sent.text();
        assert!(
            text.contains(r#"sessionId "s-1", transcriptPath "/home/u/.foo/s-1.jsonl", turn 3"#),
            "{text}"
        );
        assert!(!text.contains("yyy"), "{text}");
        assert_eq!(
            Sent::of(b"not json but long ".repeat(40).as_slice()).fields,
            None
        );
    }
}
