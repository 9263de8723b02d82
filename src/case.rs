//! The case model: what a YAML case file may say, and the loader that rejects
//! a broken one before anything runs.
//!
//! A case is data: an id, a title, the spec section it checks, the capability
//! it needs, a severity, and steps. Each step runs the plugin once with
//! arguments and stdin and states what must come back. The runner is generic;
//! new checks are new YAML. See README.md, "Writing a case", for the format.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::embedded;
use crate::schema::Schemas;
use crate::template::{Template, Var, json_strings};

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

/// A case file: optional defaults and a list of cases.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    /// Default capability for every case of the file.
    #[serde(default)]
    capability: Option<String>,
    /// The plugin's own sample transcripts, relative to the case file: they
    /// join the generated chunking round trips (and must always round-trip).
    #[serde(default)]
    transcripts: Vec<String>,
    cases: Vec<Spanned<Case>>,
}

/// One conformance case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique id, dotted: `core.chunk.round-trip`.
    pub id: String,
    /// One line: what the plugin must do.
    pub title: String,
    /// The spec section(s) the case checks.
    pub spec: String,
    /// Why the rule exists, and why this severity.
    #[serde(default)]
    pub why: Option<String>,
    /// The capability the case needs; none means core (always required).
    #[serde(default)]
    pub capability: Option<String>,
    /// failure (default) or warning.
    #[serde(default)]
    pub severity: Severity,
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
    /// The invocations, in order.
    #[serde(default)]
    pub steps: Vec<Spanned<Step>>,
    /// A generated check run by the harness instead of (or before) steps.
    #[serde(default)]
    pub property: Option<Property>,
    /// Where the case was loaded from (set by the loader).
    #[serde(skip)]
    pub origin: Origin,
}

/// Checks over generated inputs, whose rules span many invocations.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Property {
    /// chunk-transcript then reassemble-transcript over a corpus.
    RoundTrip {
        /// Which inputs.
        corpus: RoundTripCorpus,
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
}

/// How much a failed case weighs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A failure fails the run.
    #[default]
    Failure,
    /// A warning fails the run only under `--strict`.
    Warning,
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

/// Bytes from somewhere: stdin, a file's content, an expected stdout.
#[derive(Debug, Clone, Deserialize)]
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
    /// stdin; none gives the plugin no stdin, as the host does for
    /// subcommands without input.
    #[serde(default)]
    pub stdin: Option<Source>,
    /// What must come back.
    #[serde(default)]
    pub expect: Expect,
    /// Values to remember for later steps: name to JSON pointer in stdout.
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
    /// A clean refusal (non-zero exit with a message) is acceptable here and
    /// ends the case with this outcome instead of a failure.
    #[serde(default)]
    pub on_refusal: Option<Refusal>,
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
}

/// Things the harness does between invocations, to check what no single
/// invocation shows: that a user's own files and settings survive the
/// plugin's hook installation (guide, "Hook Installation Patterns").
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Records the files under the repository and HOME under this name.
    Snapshot(String),
    /// Puts a user file into each of `info.protected_dirs` (creating it).
    PlantProtectedDirs,
    /// Puts a user file into every directory created or changed since the
    /// snapshot, and a user key into every JSON object file created or
    /// changed, skipping paths that mention `entire` (plugin-owned).
    PlantUserData {
        /// The snapshot to compare with.
        since: String,
    },
    /// Fails when a planted user file changed or went away, or a planted key
    /// is missing from a file that still exists (or from any file that
    /// existed before the plugin touched it).
    VerifyUserData,
    /// Warns about files created since the snapshot that are still there
    /// (the install's leftovers after an uninstall).
    CheckLeftovers {
        /// The snapshot taken before the install.
        since: String,
    },
    /// Empties the repository and HOME, then creates every JSON file learnt
    /// by `plant_user_data` holding only the user's own key, as a user who
    /// already had those settings files.
    RestartWithLearntFiles,
    /// The plugin's file name must be `entire-agent-<name>`.
    CheckFileName,
    /// `info.name` should equal the `<name>` of the file name.
    CheckInfoName,
    /// `<name>` must not be an agent built into the host.
    CheckNotBuiltIn,
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
    /// pass or warning.
    pub outcome: RefusalOutcome,
    /// Shown in the report: what was not verified, and why that is allowed.
    pub note: String,
    /// The outcome instead when the plugin names sample transcripts of its
    /// own (`transcripts:`), which `core.chunk.own-samples` checks.
    #[serde(default)]
    pub with_samples: Option<RefusalOutcome>,
}

/// The outcome of an accepted refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefusalOutcome {
    /// The refusal is a legitimate answer.
    Pass,
    /// Allowed, but something went unverified.
    Warning,
}

/// One assertion on a value of the stdout JSON.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonAssert {
    /// JSON pointer; a `*` segment means every element of an array.
    pub pointer: String,
    /// The value must equal this (strings take placeholders).
    #[serde(default, deserialize_with = "present")]
    pub equals: Option<Value>,
    /// The value must not equal this.
    #[serde(default, deserialize_with = "present")]
    pub not_equals: Option<Value>,
    /// The value must be a non-empty string or array.
    #[serde(default)]
    pub not_empty: Option<bool>,
    /// The value must be null, an empty string, array or object.
    #[serde(default)]
    pub empty: Option<bool>,
    /// The number must be at least this.
    #[serde(default)]
    pub min: Option<i64>,
    /// The string must contain this text (a template).
    #[serde(default)]
    pub contains: Option<String>,
    /// The value must have this JSON type (string, array, object, ...).
    #[serde(rename = "type", default)]
    pub json_type: Option<String>,
    /// The string must be an absolute path.
    #[serde(default)]
    pub absolute_path: Option<bool>,
    /// The string must be a path inside this directory (a template), after
    /// resolving `.` and `..` lexically.
    #[serde(default)]
    pub inside: Option<String>,
    /// The base64 string must decode to at most this many bytes (a template).
    #[serde(default)]
    pub base64_max_len: Option<String>,
    /// The base64 string must decode to exactly these bytes.
    #[serde(default)]
    pub base64_equals: Option<Source>,
    /// Only check when this other value of the same document matches.
    #[serde(default)]
    pub when: Option<Condition>,
    /// Overrides the case's severity for this assertion.
    #[serde(default)]
    pub severity: Option<Severity>,
    /// Why, shown with a failure of this assertion.
    #[serde(default)]
    pub because: Option<String>,
}

/// Keeps an explicit `null` as `Some(Value::Null)`: `equals: null` is a
/// check, not an absent key.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A precondition of an assertion.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// JSON pointer in the same document.
    pub pointer: String,
    /// The value it must have for the assertion to apply.
    pub equals: Value,
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
                if let Some(source) = &mut assert.base64_equals {
                    f(source);
                }
            }
        }
    }

    /// The capability shown in reports: the declared one or `core`.
    pub fn group(&self) -> &str {
        self.capability.as_deref().unwrap_or("core")
    }
}

/// Fixture files by name (the path under `fixtures/`), and every other
/// non-YAML file of the case trees by display path (for `path:` sources).
#[derive(Debug, Default, Clone)]
pub struct Fixtures {
    by_name: BTreeMap<String, Arc<[u8]>>,
    by_path: BTreeMap<String, Arc<[u8]>>,
}

impl Fixtures {
    /// A fixture's bytes.
    pub fn get(&self, name: &str) -> Option<&Arc<[u8]>> {
        self.by_name.get(name)
    }

    /// A file's bytes by its resolved display path.
    pub fn file(&self, path: &str) -> Option<&Arc<[u8]>> {
        self.by_path.get(path)
    }
}

/// The loaded suite.
#[derive(Debug, Default)]
pub struct Suite {
    /// Cases in load order: embedded first (sorted by file), then `--cases`.
    pub cases: Vec<Case>,
    /// Fixtures from every source.
    pub fixtures: Fixtures,
    /// Sample transcripts named by `transcripts:` in case files.
    pub samples: Vec<Sample>,
}

/// A case file that cannot be used: file, line and reason.
#[derive(Debug, Clone)]
pub struct LoadError {
    /// Display path of the file.
    pub file: String,
    /// Line number when known.
    pub line: Option<u64>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

/// Loads the embedded suite, then every directory of `extra` (`--cases`).
pub fn load(extra: &[PathBuf], schemas: &Schemas) -> Result<Suite, LoadError> {
    let mut fixtures = Fixtures::default();
    let mut files = Vec::new();
    for (path, bytes) in embedded::CASES {
        add_source(
            &format!("cases/{path}"),
            path,
            bytes.to_vec(),
            &mut files,
            &mut fixtures,
        );
    }
    for dir in extra {
        read_dir_sources(dir, &mut files, &mut fixtures)?;
    }
    let mut cases = Vec::new();
    let mut samples = Vec::new();
    for (display, text) in files {
        let (file_cases, transcripts) = parse_file(&display, &text)?;
        cases.extend(file_cases);
        for name in transcripts {
            let bytes = fixtures.file(&name).cloned().ok_or_else(|| LoadError {
                file: display.clone(),
                line: None,
                reason: format!(
                    "transcripts: no file {name} (paths are relative to the case file)"
                ),
            })?;
            samples.push(Sample { name, bytes });
        }
    }
    for case in &mut cases {
        let dir = parent_dir(&case.origin.file);
        case.for_each_source_mut(&mut |source| {
            if let Source::Path(rel) = source {
                *rel = normalize(&format!("{dir}/{rel}"));
            }
        });
    }
    let mut seen = BTreeMap::new();
    for case in &cases {
        validate(case, schemas, &fixtures)?;
        if let Some(first) = seen.insert(case.id.clone(), case.origin.clone()) {
            return Err(LoadError {
                file: case.origin.file.clone(),
                line: Some(case.origin.line),
                reason: format!(
                    "case id {:?} is already used at {}:{}",
                    case.id, first.file, first.line
                ),
            });
        }
    }
    Ok(Suite {
        cases,
        fixtures,
        samples,
    })
}

/// Sorts a file into case files (`*.yaml`, `*.yml`) and fixtures
/// (anything under `fixtures/`).
fn add_source(
    display: &str,
    rel: &str,
    bytes: Vec<u8>,
    files: &mut Vec<(String, Vec<u8>)>,
    fixtures: &mut Fixtures,
) {
    let is_case_file = rel.ends_with(".yaml") || rel.ends_with(".yml");
    if is_case_file && !rel.starts_with("fixtures/") {
        files.push((display.to_string(), bytes));
        return;
    }
    let bytes: Arc<[u8]> = Arc::from(bytes);
    if let Some(name) = rel.strip_prefix("fixtures/") {
        fixtures.by_name.insert(name.to_string(), bytes.clone());
    }
    fixtures.by_path.insert(display.to_string(), bytes);
}

fn read_dir_sources(
    dir: &Path,
    files: &mut Vec<(String, Vec<u8>)>,
    fixtures: &mut Fixtures,
) -> Result<(), LoadError> {
    let io_err = |path: &Path, err: std::io::Error| LoadError {
        file: path.display().to_string(),
        line: None,
        reason: format!("cannot read: {err}"),
    };
    if !dir.is_dir() {
        return Err(LoadError {
            file: dir.display().to_string(),
            line: None,
            reason: "is not a directory of case files".to_string(),
        });
    }
    let mut stack = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).map_err(|e| io_err(&current, e))? {
            let path = entry.map_err(|e| io_err(&current, e))?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    for path in found {
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = std::fs::read(&path).map_err(|e| io_err(&path, e))?;
        add_source(&path.display().to_string(), &rel, bytes, files, fixtures);
    }
    Ok(())
}

fn parse_file(display: &str, bytes: &[u8]) -> Result<(Vec<Case>, Vec<String>), LoadError> {
    let text = std::str::from_utf8(bytes).map_err(|_| LoadError {
        file: display.to_string(),
        line: None,
        reason: "is not UTF-8 text".to_string(),
    })?;
    let file: CaseFile = serde_saphyr::from_str(text).map_err(|err| yaml_error(display, &err))?;
    let dir = parent_dir(display);
    let transcripts = file
        .transcripts
        .iter()
        .map(|rel| normalize(&format!("{dir}/{rel}")))
        .collect();
    let cases = file
        .cases
        .into_iter()
        .map(|spanned| {
            let mut case = spanned.value;
            if case.capability.is_none() {
                case.capability = file.capability.clone();
            }
            case.origin = Origin {
                file: display.to_string(),
                line: spanned.referenced.line(),
            };
            case
        })
        .collect();
    Ok((cases, transcripts))
}

/// Turns serde-saphyr's error into our one-line form: `file:line: reason`.
/// Its message reads "error: line N column M: reason"; the position moves
/// into our prefix so it is not said twice.
fn yaml_error(display: &str, err: &serde_saphyr::Error) -> LoadError {
    let text = err.to_string();
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid YAML")
        .trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let (line, reason) = match split_position(first) {
        Some((line, column, reason)) => (Some(line), format!("column {column}: {reason}")),
        None => (None, first.to_string()),
    };
    LoadError {
        file: display.to_string(),
        line,
        reason,
    }
}

/// Splits "line N column M: reason" into its parts.
fn split_position(message: &str) -> Option<(u64, u64, &str)> {
    let rest = message.strip_prefix("line ")?;
    let (line, rest) = rest.split_once(" column ")?;
    let (column, reason) = rest.split_once(": ")?;
    Some((line.parse().ok()?, column.parse().ok()?, reason))
}

/// Checks what serde cannot: known capability and schema names, placeholders,
/// step references, one check per JSON assertion.
fn validate(case: &Case, schemas: &Schemas, fixtures: &Fixtures) -> Result<(), LoadError> {
    let fail = |line: u64, reason: String| LoadError {
        file: case.origin.file.clone(),
        line: Some(line),
        reason: format!("case {}: {reason}", case.id),
    };
    if let Some(cap) = &case.capability
        && !CAPABILITIES.contains(&cap.as_str())
    {
        return Err(fail(
            case.origin.line,
            format!(
                "unknown capability {cap:?}; known: {}",
                CAPABILITIES.join(", ")
            ),
        ));
    }
    if case.steps.is_empty() && case.property.is_none() {
        return Err(fail(case.origin.line, "has no steps".to_string()));
    }
    let mut names = BTreeSet::new();
    let mut captures = BTreeSet::new();
    let ctx = Known { fixtures, schemas };
    for setup in &case.files {
        ctx.check_template(&setup.path, &captures)
            .and_then(|()| match &setup.content {
                Some(content) => ctx.check_source(content, &captures, &names),
                None => Ok(()),
            })
            .map_err(|reason| fail(case.origin.line, reason))?;
    }
    for (index, spanned) in case.steps.iter().enumerate() {
        let step = &spanned.value;
        let line = spanned.referenced.line();
        ctx.check_step(step, &captures, &names)
            .map_err(|reason| fail(line, format!("{}: {reason}", case.step_name(index))))?;
        names.insert(case.step_name(index));
        captures.extend(step.capture.keys().cloned());
    }
    Ok(())
}

/// What a case may refer to.
struct Known<'a> {
    fixtures: &'a Fixtures,
    schemas: &'a Schemas,
}

impl Known<'_> {
    fn check_step(
        &self,
        step: &Step,
        captures: &BTreeSet<String>,
        names: &BTreeSet<String>,
    ) -> Result<(), String> {
        match (&step.args, &step.action) {
            (Some(_), Some(_)) => return Err("has both args and action; use one".to_string()),
            (None, None) => {
                return Err("has neither args (run the plugin) nor action".to_string());
            }
            _ => {}
        }
        for arg in step.args.iter().flatten() {
            self.check_item(arg, step)?;
            self.check_template(arg, captures)?;
        }
        if let Some(pointer) = &step.for_each {
            check_pointer(pointer)?;
        }
        if let Some(text) = &step.expect.stdout_carries {
            self.check_template(text, captures)?;
        }
        if let Some(stdin) = &step.stdin {
            self.check_source(stdin, captures, names)?;
        }
        if let Some(name) = &step.expect.stdout_schema
            && !self.schemas.contains(name)
        {
            let known: Vec<_> = self.schemas.names().collect();
            return Err(format!(
                "no schema named {name:?} in schemas/; known: {}",
                known.join(", ")
            ));
        }
        if let Some(stdout) = &step.expect.stdout {
            self.check_source(stdout, captures, names)?;
        }
        for assert in &step.expect.json {
            self.check_assert(assert, captures, names)?;
        }
        for pointer in step.capture.values() {
            check_pointer(pointer)?;
        }
        Ok(())
    }

    /// `{{item}}` only makes sense in a `for_each` step.
    fn check_item(&self, text: &str, step: &Step) -> Result<(), String> {
        let uses_item = Template::parse(text)?.vars().any(|v| *v == Var::Item);
        if uses_item && step.for_each.is_none() {
            return Err("uses {{item}} but has no for_each".to_string());
        }
        Ok(())
    }

    fn check_template(&self, text: &str, captures: &BTreeSet<String>) -> Result<(), String> {
        let template = Template::parse(text)?;
        for var in template.vars() {
            match var {
                Var::Capture(name) if !captures.contains(name) => {
                    return Err(format!(
                        "{{{{capture:{name}}}}} is not captured by an earlier step"
                    ));
                }
                Var::Base64(name) if self.fixtures.get(name).is_none() => {
                    return Err(format!("no fixture named {name:?} (looked in fixtures/)"));
                }
                Var::Info(pointer) => check_pointer(pointer)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn check_source(
        &self,
        source: &Source,
        captures: &BTreeSet<String>,
        names: &BTreeSet<String>,
    ) -> Result<(), String> {
        match source {
            Source::Text(text) | Source::File(text) => self.check_template(text, captures),
            Source::Fixture(name) if self.fixtures.get(name).is_none() => {
                Err(format!("no fixture named {name:?} (looked in fixtures/)"))
            }
            Source::Fixture(_) => Ok(()),
            Source::Json(value) | Source::PaddedJson { json: value, .. } => {
                let mut strings = Vec::new();
                json_strings(value, &mut strings);
                strings
                    .iter()
                    .try_for_each(|s| self.check_template(s, captures))
            }
            Source::StdoutOf(step) if !names.contains(step) => Err(format!(
                "stdout_of names {step:?}, which is not an earlier step of this case"
            )),
            Source::StdoutOf(_) => Ok(()),
            Source::Path(path) if self.fixtures.file(path).is_none() => Err(format!(
                "no file {path} (a path: source is relative to the case file)"
            )),
            Source::Path(_) => Ok(()),
        }
    }

    fn check_assert(
        &self,
        a: &JsonAssert,
        captures: &BTreeSet<String>,
        names: &BTreeSet<String>,
    ) -> Result<(), String> {
        check_pointer(&a.pointer)?;
        let checks = [
            a.equals.is_some(),
            a.not_equals.is_some(),
            a.not_empty == Some(true),
            a.empty == Some(true),
            a.min.is_some(),
            a.contains.is_some(),
            a.json_type.is_some(),
            a.absolute_path == Some(true),
            a.inside.is_some(),
            a.base64_max_len.is_some(),
            a.base64_equals.is_some(),
        ];
        if checks.iter().filter(|c| **c).count() != 1 {
            return Err(format!(
                "the assertion on {:?} must have exactly one check (equals, not_equals, \
                 not_empty: true, empty: true, min, contains, type, absolute_path: true, \
                 inside, base64_max_len, base64_equals)",
                a.pointer
            ));
        }
        for text in [&a.contains, &a.base64_max_len, &a.inside]
            .into_iter()
            .flatten()
        {
            self.check_template(text, captures)?;
        }
        for value in [&a.equals, &a.not_equals].into_iter().flatten() {
            self.check_source(&Source::Json(value.clone()), captures, names)?;
        }
        if let Some(source) = &a.base64_equals {
            self.check_source(source, captures, names)?;
        }
        if let Some(t) = &a.json_type {
            const TYPES: &[&str] = &["null", "boolean", "number", "string", "array", "object"];
            if !TYPES.contains(&t.as_str()) {
                return Err(format!("unknown type {t:?}; known: {}", TYPES.join(", ")));
            }
        }
        if let Some(cond) = &a.when {
            check_pointer(&cond.pointer)?;
        }
        Ok(())
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

/// The directory part of a display path (`cases/core/x.yaml` → `cases/core`).
fn parent_dir(display: &str) -> String {
    match display.rfind(['/', '\\']) {
        Some(at) => display[..at].to_string(),
        None => ".".to_string(),
    }
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

fn check_pointer(pointer: &str) -> Result<(), String> {
    if pointer.is_empty() || pointer.starts_with('/') {
        Ok(())
    } else {
        Err(format!(
            "{pointer:?} is not a JSON pointer (it must be empty or start with '/')"
        ))
    }
}
