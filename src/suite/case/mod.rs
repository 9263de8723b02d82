//! The case model: what a YAML case file may say, and the loader that rejects
//! a broken one before anything runs.
//!
//! A case is data: an id, a title, the spec section it checks, the capability
//! it needs, a severity, and steps. Each step runs the plugin once with
//! arguments and stdin and states what must come back. The runner is generic;
//! new checks are new YAML. See docs/writing-cases.md, for the format.
//!
//! The module is five files with one job each: this one is the model (what
//! a case may say); `assert` its JSON assertions (one check each, an enum);
//! `recording` a recorded session; `load` reads the embedded suite and
//! `--cases` directories into it; `validate` refuses what serde alone cannot (unknown
//! schemas, bad placeholders, references to later steps). Imports go one way:
//! the case model uses [`crate::suite::template`], never the reverse.
//!
//! Over 500 lines: the case model is one serde type tree, documented field
//! by field (the documentation is most of it).

mod action;
mod assert;
mod load;
mod recording;
mod share;
mod validate;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

pub use crate::host::Severity;
pub use crate::host::evidence::Evidence;
pub use crate::host::invocation::WorkTree;
pub use crate::suite::fixtures::Fixtures;
pub use action::Action;
pub use assert::{Check, JsonAssert, JsonType, Precondition};
pub use load::{LoadError, Suite, load};
pub use recording::Recording;
pub use validate::check_env;

/// Capabilities that have subcommands of their own, as named in `info`.
pub const CAPABILITIES: &[&str] = &[
    "hooks",
    "transcript_analyzer",
    "transcript_preparer",
    "token_calculator",
    "text_generator",
    "hook_response_writer",
    "subagent_aware_extractor",
    "compact_transcript",
];

/// One conformance case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique id, dotted: `core.chunk.round-trip`.
    pub id: String,
    /// One line: what the plugin must do.
    pub title: String,
    /// The spec section(s) the case checks; required in the embedded suite,
    /// optional in a plugin's own case files.
    #[serde(default)]
    pub spec: String,
    /// Why the rule exists, and why this severity.
    #[serde(default)]
    pub why: Option<String>,
    /// The capability the case needs; none means core (always required).
    #[serde(default)]
    pub capability: Option<String>,
    /// failure (default), warning or note: the heaviest a finding of this
    /// case can weigh (timeouts and floods stay failures everywhere).
    #[serde(default)]
    pub severity: Severity,
    /// The host releases the case is for: a requirement (`>=0.9`, as
    /// `--host-version` takes it) or a fact of the host's releases
    /// (`before cli-version-env`, `from gemini-retired`; see
    /// [`crate::host::releases::TABLE`]). Its findings name the releases of
    /// the judged range where they hold; where it holds on none, the case is
    /// skipped, or weighs [`Case::elsewhere`].
    #[serde(default)]
    pub host_version: Option<String>,
    /// The heaviest a finding weighs on the judged releases outside
    /// `host_version` (none: the case is not reported there).
    #[serde(default)]
    pub elsewhere: Option<Severity>,
    /// `never-sent` when the case's input is one the host never sends
    /// (hostile payloads, flag values it never passes): its findings are
    /// protocol-only, a note (a warning under `--pedantic`); see
    /// [`crate::host::protocol_only`].
    #[serde(default)]
    pub input: crate::host::protocol_only::Input,
    /// A gate runs before every other case; when it fails, nothing else runs.
    /// The suite's gate is `info`, as in the host's discovery; the last
    /// step's stdout JSON becomes `{{info:/...}}` for every other case.
    #[serde(default)]
    pub gate: bool,
    /// The specification items the case checks (`coverage/spec-items.yaml`;
    /// `*` globs allowed). Subcommands and flags in `args` count too.
    #[serde(default)]
    pub covers: Vec<String>,
    /// Free tags (`large` marks opt-in cases).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Files written into the sandbox before the first step.
    #[serde(default)]
    pub files: Vec<FileSetup>,
    /// Variables set for this case's invocations, over those of the run
    /// (`env:` at the top of a case file): name to a template with
    /// `{{home}}`, `{{repo}}`, `{{tmp}}`. The agent's own environment, which
    /// the host passes on to the plugin (docs/host.md, "Plugins in the
    /// wild": an agent that always exports a variable to its hooks).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The invocations, in order.
    #[serde(default)]
    pub steps: Vec<Spanned<Step>>,
    /// A generated check run by the harness instead of (or before) steps.
    #[serde(default)]
    pub property: Option<Property>,
    /// Runs the steps once per transcript the plugin may accept: the generic
    /// one, then each of the plugin's own samples (`transcripts:`).
    #[serde(default)]
    pub for_each_transcript: Option<EachTranscript>,
    /// Plays what the host does over a whole agent session instead of
    /// steps (the `session.*` cases; see [`crate::host::session`]).
    #[serde(default)]
    pub replay: Option<ReplayKind>,
    /// The case's sample is a guess of `agent-conform init` (a payload in
    /// another agent's shape), not the agent's own: should the plugin
    /// refuse it, the run says once that the samples are still the
    /// scaffold's guess, and the case fails nothing.
    #[serde(default)]
    pub guess: bool,
    /// The case runs where the agent is installed: the files and variables
    /// of the case files' `agent:` ([`AgentWorld`]) are laid down and set
    /// before its own. Without an `agent:` the case is skipped, saying how
    /// to describe one ([`Case::world_missing`]).
    #[serde(default)]
    pub installed: bool,
    /// Set by the loader: the case is `installed`, and no case file
    /// describes the agent as installed.
    #[serde(skip)]
    pub world_missing: bool,
    /// The git work trees the case runs in (`work_trees: [plain, linked,
    /// submodule]`): the loader makes one case of each, ids suffixed with
    /// [`WorkTree::id_suffix`]. Empty: the plain repository only.
    #[serde(default)]
    pub work_trees: Vec<WorkTree>,
    /// The work tree this case runs in (set by the loader from `work_trees`).
    #[serde(skip)]
    pub work_tree: WorkTree,
    /// Where the case was loaded from (set by the loader).
    #[serde(skip)]
    pub origin: Origin,
}

/// How a case runs over transcripts (`for_each_transcript:`).
///
/// The checks of such a case are format-independent (a position above 0,
/// offsets that agree, nothing read from the end), so they hold for any
/// transcript the plugin accepts. The generic transcript is in another
/// agent's format for most plugins, and the host never sends one of those
/// (docs/host.md, "What the host does with each answer"): a clean refusal
/// of it ends that pass quietly. The plugin's own samples must be accepted,
/// and their findings weigh in full. `{{transcript}}` is the current
/// transcript's path, `{{transcript_name}}` its file name, and
/// `current_transcript` (a source) its bytes. An all-zero answer (`{}`,
/// position 0, no files) at the first step of the generic pass counts as a
/// refusal too: the plugin did not read another agent's format, and the
/// host never sends it one (docs/host.md, "Plugins in the wild"); so the
/// first step of such a case must be one whose answer is non-zero for a
/// plugin that reads the transcript.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EachTranscript {
    /// The generic transcript, a fixture name.
    #[serde(default = "generic_transcript")]
    pub generic: String,
    /// What the case reports when the plugin refuses the generic transcript
    /// and names no sample of its own: `warning` for the one case of a
    /// capability that says so, `note` for the others.
    pub unverified: Severity,
}

fn generic_transcript() -> String {
    "transcript.jsonl".to_string()
}

/// What a replay case plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayKind {
    /// An agent session hook by hook (the plugin's recorded one, or a
    /// generic one), then `entire resume` and `entire rewind` of two
    /// sessions, each call as the host makes it, handing over only what the
    /// host would have.
    HostSession,
}

/// Checks over generated inputs, whose rules span many invocations.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Property {
    /// chunk-transcript then reassemble-transcript over a corpus.
    RoundTrip {
        /// Which inputs.
        corpus: RoundTripCorpus,
        /// The fixtures of the `fixtures` corpus, by name.
        #[serde(default)]
        fixtures: Vec<String>,
        /// The `--max-size` values for every input (default: per input, 1,
        /// 2, 16, its longest line and 1 MiB; for samples, their own length
        /// and the host's 50 MiB).
        #[serde(default)]
        max_sizes: Vec<usize>,
    },
    /// The round trip of one large generated JSONL transcript, streamed so
    /// that the harness never holds it twice (opt-in: tag `large`).
    LargeRoundTrip {
        /// Size of the transcript in MiB.
        mib: usize,
        /// The `--max-size` values to try.
        max_sizes: Vec<usize>,
    },
}

/// The inputs of a round-trip property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundTripCorpus {
    /// Generated JSONL (the host's default format).
    Jsonl,
    /// Generated arbitrary bytes.
    Bytes,
    /// The plugin's own sample transcripts (`transcripts:` in case files).
    Samples,
    /// Fixed JSONL transcripts, the fixtures named by `fixtures:`.
    Fixtures,
}

/// One of the plugin's own sample transcripts.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Its path, for messages.
    pub name: String,
    /// Its bytes.
    pub bytes: Arc<[u8]>,
}

/// The file and line a case came from.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    /// Display path of the case file.
    pub file: String,
    /// Line of the case in that file.
    pub line: u64,
    /// Part of the embedded suite (held to stricter metadata rules than a
    /// plugin's own `--cases`).
    pub embedded: bool,
}

/// A file created in the sandbox before the steps run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSetup {
    /// Where, as a template (`{{tmp}}/transcript.jsonl`).
    pub path: String,
    /// What it holds; none creates an empty directory at `path` instead.
    #[serde(default)]
    pub content: Option<Source>,
}

/// The agent as installed on a user's machine (`agent:` in a plugin's own
/// case file): the files the agent itself creates under HOME and in the
/// repository, and the variables it sets for the plugin. The cases marked
/// `installed: true` run in it (`core.detect.installed`); `agent-conform
/// record` writes one from the machine it records on.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentWorld {
    /// The agent's files, as `files:` of a case (`{{home}}/...`,
    /// `{{repo}}/...`; no content: a directory).
    #[serde(default)]
    pub files: Vec<FileSetup>,
    /// The variables the agent sets.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// Bytes from somewhere: stdin, a file's content, an expected stdout.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// Text with placeholders.
    Text(String),
    /// A fixture file, byte for byte.
    Fixture(String),
    /// A JSON value written compactly; its strings take placeholders.
    Json(Value),
    /// The stdout of an earlier step of the same case, by step name.
    StdoutOf(String),
    /// A file in the sandbox, read when the step runs.
    File(String),
    /// A file shipped beside the case file, by a path relative to it (a
    /// plugin's own sample transcript or hook payload). Read at load time.
    Path(String),
    /// The bytes of the current transcript of a `for_each_transcript` case.
    CurrentTranscript,
    /// A checkpoint's line slice of the current transcript: its lines from
    /// the middle on, without the first (a header), as `entire explain
    /// --generate` writes it for `compact-transcript`
    /// ([`crate::host::positions::fragment`]).
    CurrentTranscriptFragment,
    /// A JSON object padded with an extra string field up to `bytes` bytes
    /// (hostile-input cases: a payload far larger than any real hook's).
    PaddedJson {
        /// The object (its strings take placeholders).
        json: Value,
        /// The size to reach.
        bytes: usize,
    },
}

/// One invocation of the plugin.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A name for reports and `stdout_of` (default: `step N`).
    #[serde(default)]
    pub name: Option<String>,
    /// Arguments after the binary (templates). A step has either `args` (it
    /// runs the plugin) or `action` (the harness does something itself).
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// A harness action instead of a plugin invocation.
    #[serde(default)]
    pub action: Option<Action>,
    /// Runs the step once per element of the array at this pointer in the
    /// plugin's `info` output (`/hook_names`); `{{item}}` is the element.
    #[serde(default)]
    pub for_each: Option<String>,
    /// With `for_each`: only the first this many elements (a check whose
    /// answer does not depend on the element, asked once rather than per
    /// hook name).
    #[serde(default)]
    pub at_most: Option<usize>,
    /// stdin; none gives the plugin no stdin, as the host does for
    /// subcommands without input.
    #[serde(default)]
    pub stdin: Option<Source>,
    /// Deliver stdin late: its first byte after half of this many
    /// milliseconds, its second half (split at the middle) after the other
    /// half (a payload that arrives late: a deadline that waits for the
    /// first byte and one that waits for the whole payload both miss it). The
    /// invocations of a `for_each` step with a delay run at once, so the
    /// waits overlap.
    #[serde(default)]
    pub stdin_delay_ms: Option<u64>,
    /// What must come back.
    #[serde(default)]
    pub expect: Expect,
    /// Values to remember for later steps: name to JSON pointer in stdout.
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
    /// How the host calls here, when not as inside a hook with its full
    /// environment: `listing` (no `ENTIRE_REPO_ROOT`, run from outside any
    /// repository), `manual_uninstall` (only `ENTIRE_REPO_ROOT` and
    /// `ENTIRE_PROTOCOL_VERSION`), `no_cli_version` (hosts before
    /// `ENTIRE_CLI_VERSION`); see [`crate::host::callers::HostCall`].
    #[serde(default)]
    pub host_call: Option<crate::host::callers::HostCall>,
    /// A clean refusal (non-zero exit with a message) is acceptable here and
    /// ends the case with this outcome instead of a failure.
    #[serde(default)]
    pub on_refusal: Option<Refusal>,
    /// What the step's input rests on, declared where it cannot be derived
    /// ([`Step::rests_on`]): the same generic payload forwarded with the
    /// trailing newline older hosts add rests on the host's input, though
    /// the payload alone is ours.
    #[serde(default)]
    pub rests_on: Option<Evidence>,
}

/// Which transcript a `for_each_transcript` pass runs over, for what a
/// step's input rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Not a transcript pass.
    None,
    /// The generic transcript, in the guide's (Claude Code's) shape.
    Generic,
    /// One of the author's own sample transcripts.
    Sample,
}

impl Step {
    /// What the step's input rests on: what the case file declares, else
    /// what the step shows. A harness action rests on what it reads
    /// ([`Action::rests_on`]); a call whose stdin is a file of the author's
    /// (`path:`), or that runs over a sample transcript, on the samples; a
    /// `parse-hook` payload written in the suite's own cases, or a call over
    /// the generic transcript, on an assumption (the host only sends the
    /// agent's own payloads and transcripts), one the author wrote in a
    /// case file of theirs (`authored`) on the samples; anything else on the
    /// host's input (the host's own flags, and the request bodies it
    /// marshals itself).
    pub fn rests_on(&self, pass: Pass, authored: bool) -> Evidence {
        if let Some(declared) = self.rests_on {
            return declared;
        }
        if let Some(action) = &self.action {
            return action.rests_on();
        }
        let sample = matches!(self.stdin, Some(Source::Path(_)));
        match pass {
            Pass::Sample => return Evidence::Samples,
            Pass::Generic if !sample => return Evidence::Assumption,
            _ => {}
        }
        if sample {
            return Evidence::Samples;
        }
        let subcommand = self
            .args
            .as_ref()
            .and_then(|a| a.first())
            .map(String::as_str);
        match (
            subcommand == Some("parse-hook") && self.stdin.is_some(),
            authored,
        ) {
            (true, true) => Evidence::Samples,
            (true, false) => Evidence::Assumption,
            _ => Evidence::HostInput,
        }
    }
}

/// What a step expects.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// success (exit 0, the default), failure (non-zero) or any.
    #[serde(default)]
    pub exit: ExitExpect,
    /// The schema stdout must match (after decoding as the host does).
    #[serde(default)]
    pub stdout_schema: Option<String>,
    /// Assertions on values of the stdout JSON.
    #[serde(default)]
    pub json: Vec<JsonAssert>,
    /// stdout must equal these bytes exactly.
    #[serde(default)]
    pub stdout: Option<Source>,
    /// stdout must be non-empty and carry this text, verbatim or in a JSON
    /// string's escaped form (a template).
    #[serde(default)]
    pub stdout_carries: Option<String>,
    /// The answer must say what an earlier step's answer said for the same
    /// `for_each` element: a refusal, no Event, or an Event of the same type
    /// and session id.
    #[serde(default)]
    pub same_answer_as: Option<SameAnswer>,
}

/// `same_answer_as:`: the earlier step whose answer this one must repeat.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SameAnswer {
    /// The earlier step, by name.
    pub step: String,
    /// The weight of a different answer.
    pub severity: Severity,
    /// Why, shown with the finding.
    pub because: String,
}

impl Case {
    /// What step `index`'s input rests on ([`Step::rests_on`]), in `pass`;
    /// `check_hook_events` rests on the step it judges, unless declared.
    pub fn rests_on(&self, index: usize, pass: Pass) -> Evidence {
        let Some(step) = self.steps.get(index).map(|s| &s.value) else {
            return Evidence::HostInput;
        };
        let authored = !self.origin.embedded && !self.guess;
        match (&step.action, step.rests_on) {
            (Some(Action::CheckHookEvents { step: judged }), None) => self
                .steps
                .iter()
                .position(|s| s.value.name.as_deref() == Some(judged.as_str()))
                .filter(|n| *n != index)
                .map_or(Evidence::Assumption, |n| self.rests_on(n, pass)),
            _ => step.rests_on(pass, authored),
        }
    }
}

/// The expected exit status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExitExpect {
    /// Exit code 0.
    #[default]
    Success,
    /// A non-zero exit (with a message on stderr, as every non-zero exit).
    Failure,
    /// Either; the other expectations apply only on success.
    Any,
}

/// What to do when the plugin refuses a step cleanly.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Refusal {
    /// pass, warning, note or skip.
    pub outcome: RefusalOutcome,
    /// Shown in the report: what was not verified, and why that is allowed.
    pub note: String,
    /// The outcome instead when the plugin names sample transcripts of its
    /// own (`transcripts:`), which `core.chunk.own-samples` checks.
    #[serde(default)]
    pub with_samples: Option<RefusalOutcome>,
    /// Instead of ending the case, go on with these captures (name to a
    /// template): what the host would otherwise have. A refusal of state
    /// the sandbox lacks (the agent's own store) is "not verified here",
    /// and the steps after it still run (a `write-session` that always
    /// fails must still fail).
    #[serde(default)]
    pub continue_with: BTreeMap<String, String>,
    /// For a `write-session` step: before the refusal is accepted, the
    /// write is tried again with an id of the plugin's own making
    /// (`execute::own_id`); a plugin that refuses that one too refuses
    /// every id, and fails.
    #[serde(default)]
    pub own_id: bool,
    /// The variable the agent sets whose absence the refusal is for
    /// (`judge::environment::refusal`): never written in a case file, set
    /// by the harness so that the finding carries it as data.
    #[serde(skip)]
    pub variable: Option<String>,
}

/// The outcome of an accepted refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefusalOutcome {
    /// The refusal is a legitimate answer.
    Pass,
    /// Allowed, but something went unverified.
    Warning,
    /// Allowed; worth a line in the report.
    Note,
    /// The refusal leaves the case nothing to check for this plugin (its
    /// input is another agent's, say): the case is a skip, the note its
    /// reason, unless an earlier step found something.
    Skip,
}

/// Keeps an explicit `null` as `Some(Value::Null)`: a recorded `event:
/// null` is an answer (no event), not an absent key.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Case {
    /// The display name of step `index`.
    pub fn step_name(&self, index: usize) -> String {
        self.steps[index]
            .value
            .name
            .clone()
            .unwrap_or_else(|| format!("step {}", index + 1))
    }

    /// Calls `f` on every [`Source`] of the case.
    pub fn for_each_source_mut(&mut self, f: &mut dyn FnMut(&mut Source)) {
        for setup in &mut self.files {
            if let Some(content) = &mut setup.content {
                f(content);
            }
        }
        for step in &mut self.steps {
            let step = &mut step.value;
            if let Some(stdin) = &mut step.stdin {
                f(stdin);
            }
            if let Some(stdout) = &mut step.expect.stdout {
                f(stdout);
            }
            for assert in &mut step.expect.json {
                if let Check::Base64Equals(source) = &mut assert.check {
                    f(source);
                }
            }
            if let Some(Action::ResumesFrom { native_data, .. }) = &mut step.action {
                f(native_data);
            }
        }
    }

    /// The capability shown in reports: the declared one or `core`.
    pub fn group(&self) -> &str {
        self.capability.as_deref().unwrap_or("core")
    }
}

/// Glob matching (case ids, spec items): `*` any run of bytes, `?` one
/// byte. Ids are ASCII; matching bytes keeps it allocation-free, which
/// matters when every `covers:` entry is matched against every item.
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == b'*')
}

/// Resolves `.` and `..` lexically, so that `a/b/../c` and `a/c` name the
/// same loaded file.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
