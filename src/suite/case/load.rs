//! The loader: reads the embedded suite and `--cases` directories, sorts
//! their files into case files and fixtures, and parses the YAML into the
//! case model, with `file:line: reason` for anything broken.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::recording::SessionSection;
use super::validate::validate;
use super::{
    AgentWorld, Case, Check, JsonAssert, Origin, Precondition, Recording, Sample, Severity, Source,
    normalize,
};
use crate::embedded;
use crate::suite::fixtures::Fixtures;
use crate::suite::schema::Schemas;

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
    /// Files that are the plugin's alone (a state file in a directory it
    /// creates): `{{repo}}/...` or `{{home}}/...`, a directory ending in `/`.
    /// The user data cases plant nothing of the user's in them.
    #[serde(default)]
    own_files: Vec<String>,
    /// A recorded agent session (`docs/session-format.md`).
    #[serde(default)]
    session: Option<SessionSection>,
    /// Variables set for every invocation of the run: the agent's
    /// environment (see [`Case::env`]).
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Finding codes this plugin is allowed (see [`Allow`]).
    #[serde(default)]
    allow: Vec<Spanned<AllowEntry>>,
    /// The agent as installed (see [`AgentWorld`]).
    #[serde(default)]
    agent: Option<AgentWorld>,
    #[serde(default)]
    cases: Vec<Spanned<Case>>,
}

/// One entry of `allow:` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowEntry {
    code: String,
    #[serde(default)]
    case: Option<String>,
    reason: String,
}

/// A finding code a plugin's own case file allows (`allow: [{code, reason}]`
/// at the top of the file): its findings of that code become notes for the
/// plugin's run, saying the reason. The code is checked against the finding
/// kinds where the run starts (`verbs::run`); the suite knows no kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allow {
    /// The finding code (the JSON report's `"code"`).
    pub code: String,
    /// The cases it is allowed in (a case id or a glob); `None` for all.
    pub case: Option<String>,
    /// Why the plugin may have such findings; shown with each one.
    pub reason: String,
    /// Where it is written: `file:line`.
    pub at: String,
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
    /// The plugin's recorded session (`session:` in a case file), if any.
    pub recording: Option<Recording>,
    /// The files that are the plugin's alone (`own_files:` in case files).
    pub own_files: Vec<String>,
    /// Variables set for every invocation (`env:` at the top of a case
    /// file): name to template.
    pub env: BTreeMap<String, String>,
    /// The finding codes the plugin's own case files allow (`allow:`).
    pub allow: Vec<Allow>,
    /// The agent as installed (`agent:` of a case file), if described.
    pub agent: Option<AgentWorld>,
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
    let embedded_files = files.len();
    for dir in extra {
        read_dir_sources(dir, &mut files, &mut fixtures)?;
    }
    let mut cases = Vec::new();
    let mut samples = Vec::new();
    let mut recording: Option<Recording> = None;
    let mut own_files = Vec::new();
    let mut env = BTreeMap::new();
    let mut allow = Vec::new();
    let mut agent: Option<(AgentWorld, String)> = None;
    for (n, (display, text)) in files.into_iter().enumerate() {
        let Parsed {
            cases: mut file_cases,
            transcripts,
            session,
            own_files: own,
            env: file_env,
            allow: file_allow,
            agent: file_agent,
        } = parse_file(&display, &text, n < embedded_files)?;
        if let Some(world) = file_agent {
            agent = Some(described(world, &display, agent.as_ref())?);
        }
        own_files.extend(own);
        allow.extend(file_allow);
        merge_env(&mut env, file_env, &display)?;
        if let Some(session) = session {
            recording = Some(load_recording(
                session,
                &display,
                recording.as_ref(),
                &fixtures,
            )?);
        }
        if n >= embedded_files {
            file_cases.iter_mut().for_each(hold_own_events_to_the_host);
        }
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
    let agent = agent.map(|(world, _)| world);
    for case in cases.iter_mut().filter(|c| c.installed) {
        match &agent {
            Some(world) => install(case, world),
            None => case.world_missing = true,
        }
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
        recording,
        own_files,
        env,
        allow,
        agent,
    })
}

/// The `agent:` of the case file `display`, its `path:` sources made
/// relative to that file; a second `agent:` in the run is refused (the
/// agent is installed one way).
fn described(
    mut world: AgentWorld,
    display: &str,
    earlier: Option<&(AgentWorld, String)>,
) -> Result<(AgentWorld, String), LoadError> {
    let fail = |reason: String| LoadError {
        file: display.to_string(),
        line: None,
        reason,
    };
    if let Some((_, first)) = earlier {
        return Err(fail(format!(
            "agent: is described in {first} already; describe the agent as installed once"
        )));
    }
    super::check_env(&world.env).map_err(fail)?;
    let dir = parent_dir(display);
    for setup in &mut world.files {
        if let Some(Source::Path(rel)) = &mut setup.content {
            *rel = normalize(&format!("{dir}/{rel}"));
        }
    }
    Ok((world, display.to_string()))
}

/// Lays the agent's world under an `installed` case: its files first (the
/// case's own may replace one), its variables under the case's own.
fn install(case: &mut Case, world: &AgentWorld) {
    let mut files = world.files.clone();
    files.append(&mut case.files);
    case.files = files;
    for (name, value) in &world.env {
        case.env
            .entry(name.clone())
            .or_insert_with(|| value.clone());
    }
}

/// Adds a file's `env:` to the run's; a variable that another file sets
/// to another value is refused.
fn merge_env(
    env: &mut BTreeMap<String, String>,
    file_env: BTreeMap<String, String>,
    display: &str,
) -> Result<(), LoadError> {
    let fail = |reason: String| LoadError {
        file: display.to_string(),
        line: None,
        reason,
    };
    super::check_env(&file_env).map_err(fail)?;
    for (name, value) in file_env {
        match env.get(&name) {
            Some(other) if *other != value => {
                return Err(fail(format!(
                    "env: {name} is set to {other:?} by another case file; set it once"
                )));
            }
            _ => {
                env.insert(name, value);
            }
        }
    }
    Ok(())
}

/// Loads the `session:` section of a case file; a second one is refused
/// (the replay plays one agent session).
fn load_recording(
    session: SessionSection,
    display: &str,
    earlier: Option<&Recording>,
    fixtures: &Fixtures,
) -> Result<Recording, LoadError> {
    if let Some(first) = earlier {
        return Err(LoadError {
            file: display.to_string(),
            line: None,
            reason: format!(
                "a second session: section (the first is in {}); the replay plays one recorded session",
                first.file
            ),
        });
    }
    session
        .load(display, &parent_dir(display), fixtures)
        .map_err(|reason| LoadError {
            file: display.to_string(),
            line: None,
            reason,
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

/// Events made from the plugin's own payloads (its `--cases` files) are held
/// to the host's per-type table in full, whatever the case says: what fails
/// a hook is a failure, the guide's table a warning (docs/host.md, "What
/// the host does with each answer"). Checked only when the step exits 0 and
/// prints JSON, so a case may still expect `null` or a refusal.
fn hold_own_events_to_the_host(case: &mut Case) {
    for step in &mut case.steps {
        let step = &mut step.value;
        let parses = step
            .args
            .as_ref()
            .and_then(|a| a.first())
            .map(String::as_str);
        if parses != Some("parse-hook") {
            continue;
        }
        for (schema, severity, because) in [
            (
                "parse-hook-full",
                Severity::Failure,
                "the host fails the hook on this Event (a payload of the plugin's own)",
            ),
            (
                "parse-hook-guide",
                Severity::Warning,
                "the guide's per-type table; the host degrades without these fields",
            ),
        ] {
            step.expect
                .json
                .push(JsonAssert::schema(schema, severity, because));
        }
        step.expect.json.push(JsonAssert {
            pointer: "/session_ref".to_string(),
            check: Check::FileExists,
            when: Some(Precondition {
                pointer: "/type".to_string(),
                equals: serde_json::json!(3),
            }),
            because: Some(
                "the host reads the transcript at turn end and fails the hook when it is not there"
                    .to_string(),
            ),
            severity: Some(Severity::Failure),
        });
    }
}

/// What one case file holds: its cases, its sample transcripts, its
/// recorded session, the plugin's own files, its variables and the finding
/// codes it allows.
struct Parsed {
    cases: Vec<Case>,
    transcripts: Vec<String>,
    session: Option<SessionSection>,
    own_files: Vec<String>,
    env: BTreeMap<String, String>,
    allow: Vec<Allow>,
    agent: Option<AgentWorld>,
}

fn parse_file(display: &str, bytes: &[u8], embedded: bool) -> Result<Parsed, LoadError> {
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
        .flat_map(|spanned| {
            let mut case = spanned.value;
            if case.capability.is_none() {
                case.capability = file.capability.clone();
            }
            case.origin = Origin {
                file: display.to_string(),
                line: spanned.referenced.line(),
                embedded,
            };
            per_work_tree(case)
        })
        .collect();
    let allow = allowed(display, file.allow, embedded)?;
    if embedded && file.agent.is_some() {
        return Err(LoadError {
            file: display.to_string(),
            line: None,
            reason: "agent: is for a plugin's own case files".to_string(),
        });
    }
    Ok(Parsed {
        cases,
        transcripts,
        session: file.session,
        own_files: file.own_files,
        env: file.env,
        allow,
        agent: file.agent,
    })
}

/// A file's `allow:` entries, each with a reason; the embedded suite allows
/// nothing (it is every plugin's).
fn allowed(
    display: &str,
    entries: Vec<Spanned<AllowEntry>>,
    embedded: bool,
) -> Result<Vec<Allow>, LoadError> {
    entries
        .into_iter()
        .map(|spanned| {
            let line = spanned.referenced.line();
            let fail = |reason: &str| LoadError {
                file: display.to_string(),
                line: Some(line),
                reason: reason.to_string(),
            };
            if embedded {
                return Err(fail("allow: is for a plugin's own case files"));
            }
            let entry = spanned.value;
            if entry.reason.trim().is_empty() {
                return Err(fail(&format!(
                    "allow: {}: the reason is empty; say why this plugin may have such findings",
                    entry.code
                )));
            }
            Ok(Allow {
                code: entry.code,
                case: entry
                    .case
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty()),
                reason: entry.reason.trim().to_string(),
                at: format!("{display}:{line}"),
            })
        })
        .collect()
}

/// One case per work tree of its `work_trees:` (none listed: the case as
/// it is, in the plain repository): the id and title say which.
fn per_work_tree(case: Case) -> Vec<Case> {
    if case.work_trees.is_empty() {
        return vec![case];
    }
    case.work_trees
        .iter()
        .map(|&kind| {
            let mut one = case.clone();
            one.id.push_str(kind.id_suffix());
            one.title.push_str(kind.title_suffix());
            one.work_tree = kind;
            one
        })
        .collect()
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

/// The directory part of a display path (`cases/core/x.yaml` → `cases/core`).
pub(super) fn parent_dir(display: &str) -> String {
    match display.rfind(['/', '\\']) {
        Some(at) => display[..at].to_string(),
        None => ".".to_string(),
    }
}
