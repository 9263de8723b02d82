//! Writes a recording: the payloads and transcript snapshots under
//! `samples/recorded/`, and the case file whose `session:` replays them
//! (docs/session-format.md), all redacted first.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::redact::Redactor;
use super::staging::{Answer, Recorded};
use crate::verbs::usage::UsageError;

/// Where the samples go, relative to the output directory (and so to the
/// case file, which sits in it).
const SAMPLES: &str = "samples/recorded";

/// What the writer needs besides the calls.
#[derive(Debug)]
pub struct Target<'a> {
    /// The output directory (`--out`).
    pub out: &'a Path,
    /// The agent name: names the case file.
    pub agent: &'a str,
    /// The repository root the agent ran in: `{{repo}}` in the replay.
    pub repo: &'a Path,
    /// `$HOME`: `{{home}}` in the replay.
    pub home: Option<PathBuf>,
    /// When the recording started (ms since the epoch): hooks show their
    /// time from it.
    pub started_ms: u64,
    /// Applied to everything before it is written.
    pub redactor: &'a Redactor,
    /// The agent's own directories, found where it is installed (see
    /// [`world_dirs`]): the case file's `agent:` names them.
    pub world: &'a [PathBuf],
    /// The variables the plugin reads of the agent's (`info`'s
    /// `caller_env_vars`, those its refusals name): recorded when the agent
    /// set them, as those named for the agent are.
    pub agent_vars: &'a [String],
    /// Where the transcript was and the agent ran
    /// ([`place`](super::place)): `transcript_at` and `cwd`.
    pub place: &'a super::place::Place,
}

/// Whether a variable the agent set for its hooks is the agent's own: one
/// the plugin reads (`agent_vars`), or one named for the agent (`KETTLE_HOME`
/// of `kettle`, `CLAUDE_PROJECT_DIR` of `claude-code`). The rest (a language
/// launcher's, a shell's) is no part of the agent's world.
fn agents_own(name: &str, agent: &str, agent_vars: &[String]) -> bool {
    let token = agent
        .split(['-', '_', '.'])
        .next()
        .unwrap_or(agent)
        .to_ascii_uppercase();
    agent_vars.iter().any(|v| v == name) || (token.len() > 1 && name.contains(token.as_str()))
}

/// The directories the agent itself keeps where it is installed, as far
/// as a recording shows them: in the repository, each of `info`'s
/// `protected_dirs` that exists (the agent's own by the host's rule); under
/// HOME, the top directory holding the session's transcript (`~/.foo` of
/// `~/.foo/projects/x/s.jsonl`). Only directories: their files hold the
/// user's data, which is not recorded.
pub fn world_dirs(
    calls: &[Recorded],
    repo: &Path,
    home: Option<&Path>,
    protected_dirs: &[String],
) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = protected_dirs
        .iter()
        .map(|d| repo.join(d))
        .filter(|d| d.is_dir() && d.starts_with(repo))
        .collect();
    let top = |reference: &str| -> Option<PathBuf> {
        let home = home?;
        let below = Path::new(reference).strip_prefix(home).ok()?;
        let first = below.components().next()?;
        let dir = home.join(first);
        (dir.is_dir() && !repo.starts_with(&dir)).then_some(dir)
    };
    if let Some(dir) = primary_transcript(calls).as_deref().and_then(top)
        && !dirs.contains(&dir)
    {
        dirs.push(dir);
    }
    dirs
}

/// What was written, for the summary.
#[derive(Debug, Default)]
pub struct Written {
    /// The case file.
    pub case_file: PathBuf,
    /// The samples directory.
    pub samples: PathBuf,
    /// Payload files written.
    pub payloads: usize,
    /// Transcript snapshots written.
    pub snapshots: usize,
    /// Bytes of payloads and snapshots together.
    pub bytes: u64,
}

/// The case file of `agent` in `out`.
pub fn case_file(out: &Path, agent: &str) -> PathBuf {
    out.join(format!("{}-session.yaml", file_part(agent)))
}

/// Refuses to start a recording that would overwrite an earlier one (its
/// case file or its samples) unless `force`: checked before the agent runs,
/// so that no session is recorded in vain. Other files of the directory
/// (those `init` wrote) are never touched.
pub fn check_free(out: &Path, agent: &str, force: bool) -> Result<(), UsageError> {
    let taken: Vec<String> = [case_file(out, agent), out.join(SAMPLES)]
        .iter()
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if force || taken.is_empty() {
        return Ok(());
    }
    Err(UsageError {
        message: format!(
            "{} already exist{}, and record never overwrites a recording",
            taken.join(" and "),
            if taken.len() == 1 { "s" } else { "" }
        ),
        hint: Some("pass --force to replace it, or --out another directory".into()),
    })
}

/// One hook of the session, as the case file lists it.
struct Hook {
    hook: String,
    /// Milliseconds from the start of the recording.
    offset_ms: u64,
    payload: String,
    transcript: Option<String>,
    answer: Answer,
}

/// Writes the samples and the case file; `--force` has already been
/// checked, so an earlier recording's samples are replaced whole.
pub fn write(calls: &[Recorded], target: &Target) -> io::Result<Written> {
    let samples = target.out.join(SAMPLES);
    if samples.exists() {
        fs::remove_dir_all(&samples)?;
    }
    fs::create_dir_all(&samples)?;
    let primary = primary_transcript(calls);
    let mut written = Written {
        case_file: case_file(target.out, target.agent),
        samples: samples.clone(),
        ..Written::default()
    };
    let mut hooks = Vec::new();
    let mut last_snapshot: Option<(Vec<u8>, String)> = None;
    let width = calls.len().to_string().len().max(3);
    for (i, recorded) in calls.iter().enumerate() {
        let stem = format!("{:0width$}", i + 1);
        let payload_raw = fs::read(&recorded.payload)?;
        let payload = format!("{SAMPLES}/{stem}-{}.json", file_part(&recorded.call.hook));
        put(target, &payload, &target.redactor.bytes(&payload_raw))?;
        written.payloads += 1;
        written.bytes += payload_raw.len() as u64;
        let mut transcript = None;
        if let (Some(file), Some(reference)) = (&recorded.snapshot, &primary)
            && recorded.call.session_ref.as_deref() == Some(reference.as_str())
        {
            let bytes = target.redactor.bytes(&fs::read(file)?);
            // An unchanged transcript is not written again: a hook without
            // a snapshot leaves the replay's file as it was.
            if last_snapshot
                .as_ref()
                .is_none_or(|(last, _)| *last != bytes)
            {
                let name = format!("{SAMPLES}/{stem}-transcript{}", extension(reference));
                put(target, &name, &bytes)?;
                written.snapshots += 1;
                written.bytes += bytes.len() as u64;
                transcript = Some(name.clone());
                last_snapshot = Some((bytes, name));
            }
        }
        hooks.push(Hook {
            hook: recorded.call.hook.clone(),
            offset_ms: recorded.call.at_ms.saturating_sub(target.started_ms),
            payload,
            transcript,
            answer: expected(&recorded.call.answer, &payload_raw, target.redactor),
        });
    }
    let paths = paths(primary.as_deref(), target);
    let last = last_snapshot.map(|(_, name)| name);
    let mut text = render(target.agent, last.as_deref(), &paths, &hooks);
    render_place(&mut text, target);
    render_world(&mut text, calls, target);
    fs::write(&written.case_file, text)?;
    Ok(written)
}

/// Writes one sample, relative to the output directory.
fn put(target: &Target, relative: &str, bytes: &[u8]) -> io::Result<()> {
    fs::write(target.out.join(relative), bytes)
}

/// The transcript of the session: the first `session_ref` an event named.
/// The format has one `{{transcript}}`; a second transcript (a subagent's)
/// is left to the plugin's own files, not snapshotted.
pub fn primary_transcript(calls: &[Recorded]) -> Option<String> {
    calls.iter().find_map(|c| c.call.session_ref.clone())
}

/// `.jsonl` of `/x/y.jsonl`; empty without an extension.
fn extension(reference: &str) -> String {
    Path::new(reference)
        .extension()
        .map_or_else(String::new, |ext| format!(".{}", ext.to_string_lossy()))
}

/// The event to expect on replay: the answer at record time, redacted,
/// without a `timestamp` the plugin made up (the time of the call differs
/// at every call, so comparing it would fail without a fault); a timestamp
/// taken from the payload stays.
fn expected(answer: &Answer, payload: &[u8], redactor: &Redactor) -> Answer {
    let Answer::Event(event) = answer else {
        return answer.clone();
    };
    let mut event = event.clone();
    if let Value::Object(map) = &mut event
        && let Some(Value::String(stamp)) = map.get("timestamp")
        && !contains(payload, stamp.as_bytes())
    {
        map.remove("timestamp");
    }
    Answer::Event(redactor.json(&event))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// `session.paths`: the recording machine's strings and the replay's
/// placeholders, longest first (a repository under `$HOME` is replaced
/// before `$HOME`). `/` and empty strings are never keys: they would
/// replace every path separator.
fn paths(transcript: Option<&str>, target: &Target) -> Vec<(String, &'static str)> {
    let mut found: Vec<(String, &'static str)> = Vec::new();
    let candidates = [
        (transcript.map(str::to_string), "{{transcript}}"),
        (Some(target.repo.display().to_string()), "{{repo}}"),
        (
            target.home.as_ref().map(|h| h.display().to_string()),
            "{{home}}",
        ),
    ];
    for (key, placeholder) in candidates {
        let Some(key) = key.map(|k| target.redactor.text(k.trim_end_matches('/'))) else {
            continue;
        };
        if key.len() > 1 && !found.iter().any(|(k, _)| *k == key) {
            found.push((key, placeholder));
        }
    }
    found.sort_by_key(|(key, _)| std::cmp::Reverse(key.len()));
    found
}

/// The case file's text.
fn render(
    agent: &str,
    transcript: Option<&str>,
    paths: &[(String, &str)],
    hooks: &[Hook],
) -> String {
    let mut text = format!(
        "\
# A session of {agent}, recorded by `agent-conform record`: every `entire hooks
# {agent} <hook>` call of the agent, in order, with its payload, the transcript
# as it was at that moment, and the plugin's event at record time (see
# docs/session-format.md of agent-conform). Replay it with the suite:
#   agent-conform --cases <this directory> <the plugin>
#
# These files hold what the agent really sent: prompts, paths, maybe secrets.
# Read them before committing (record again with --redact REGEX to replace
# what must not leave your machine). An event's `timestamp` is left out when
# the plugin made it up, since it differs at every call.
"
    );
    match transcript {
        Some(name) => {
            let _ = writeln!(
                text,
                "\n# The transcript as the session left it: joins the chunking round trips.\ntranscripts: [{}]",
                quoted(name)
            );
        }
        None => text.push_str("\n# No event named an existing transcript file: no snapshot.\n"),
    }
    text.push_str("\ncases: []\n\nsession:\n  paths:\n");
    if paths.is_empty() {
        text.push_str("    {}\n");
    }
    for (key, placeholder) in paths {
        let _ = writeln!(text, "    {}: {}", quoted(key), quoted(placeholder));
    }
    text.push_str("  hooks:\n");
    for (i, hook) in hooks.iter().enumerate() {
        render_hook(&mut text, i + 1, hook);
    }
    text
}

/// `session.transcript_at` and `session.cwd`, appended after the hooks (the
/// `session:` section is the last one open), redacted.
fn render_place(text: &mut String, target: &Target) {
    let place = target.place;
    for (key, value) in [("transcript_at", &place.transcript_at), ("cwd", &place.cwd)] {
        if let Some(value) = value {
            let _ = writeln!(text, "  {key}: {}", quoted(&target.redactor.text(value)));
        }
    }
}

/// The `agent:` section: the agent's own directories and the variables
/// it set for its hooks, paths as placeholders, redacted; nothing when the
/// recording shows neither.
fn render_world(text: &mut String, calls: &[Recorded], target: &Target) {
    let mut env: Vec<(&String, &String)> = calls
        .iter()
        .flat_map(|c| &c.call.env)
        .filter(|(name, _)| agents_own(name, target.agent, target.agent_vars))
        .collect();
    env.sort();
    env.dedup_by(|a, b| a.0 == b.0);
    if target.world.is_empty() && env.is_empty() {
        return;
    }
    let places = places(target);
    let place = |value: &str| {
        let value = target.redactor.text(value);
        places
            .iter()
            .find_map(|(at, placeholder)| {
                value
                    .strip_prefix(at.as_str())
                    .filter(|rest| rest.is_empty() || rest.starts_with('/'))
                    .map(|rest| format!("{placeholder}{rest}"))
            })
            .unwrap_or(value)
    };
    text.push_str(
        "\n# The agent as installed here: its own directories (only the directories: fill in\n\
         # a file its detect reads) and the variables it set for its hooks. Cases with\n\
         # `installed: true` (core.detect.installed) run in it. Read it before committing.\n\
         agent:\n",
    );
    if !target.world.is_empty() {
        text.push_str("  files:\n");
        for dir in target.world {
            let _ = writeln!(
                text,
                "    - path: {}",
                quoted(&place(&dir.to_string_lossy()))
            );
        }
    }
    if !env.is_empty() {
        text.push_str("  env:\n");
        for (name, value) in env {
            let _ = writeln!(text, "    {name}: {}", quoted(&place(value)));
        }
    }
}

/// The repository and HOME, as the `agent:` section writes them.
fn places(target: &Target) -> Vec<(String, &'static str)> {
    let mut places = vec![(
        target.redactor.text(&target.repo.to_string_lossy()),
        "{{repo}}",
    )];
    if let Some(home) = &target.home {
        places.push((target.redactor.text(&home.to_string_lossy()), "{{home}}"));
    }
    places.sort_by_key(|(at, _)| std::cmp::Reverse(at.len()));
    places
}

fn render_hook(text: &mut String, n: usize, hook: &Hook) {
    let _ = writeln!(
        text,
        "    # {n}: {:.1} s into the recording",
        hook.offset_ms as f64 / 1000.0
    );
    let _ = writeln!(text, "    - hook: {}", quoted(&hook.hook));
    let _ = writeln!(text, "      payload: {{path: {}}}", quoted(&hook.payload));
    if let Some(transcript) = &hook.transcript {
        let _ = writeln!(text, "      transcript: {{path: {}}}", quoted(transcript));
    }
    match &hook.answer {
        Answer::Event(event) => {
            let _ = writeln!(text, "      event: {event}");
        }
        Answer::Refused(why) => {
            let _ = writeln!(
                text,
                "      # parse-hook refused this payload at record time: {}",
                why.replace('\n', " ")
            );
        }
    }
}

/// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
fn quoted(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// A hook or agent name made safe in a file name.
fn file_part(name: &str) -> String {
    let part: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if part.is_empty() { "hook".into() } else { part }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::record::staging::Call;

    #[test]
    fn a_made_up_timestamp_is_left_out_a_copied_one_stays() {
        let r = Redactor::default();
        let event =
            Answer::Event(serde_json::json!({"type": 3, "timestamp": "2026-01-01T00:00:00Z"}));
        let Answer::Event(kept) = expected(&event, br#"{"ts": "2026-01-01T00:00:00Z"}"#, &r) else {
            panic!("an event")
        };
        assert!(kept.get("timestamp").is_some());
        let Answer::Event(dropped) = expected(&event, b"{}", &r) else {
            panic!("an event")
        };
        assert_eq!(dropped, serde_json::json!({"type": 3}));
    }

    #[test]
    fn the_case_file_parses_and_keeps_order_and_paths_longest_first() {
        let dir = tempfile::tempdir().expect("temp dir");
        let staged = dir.path().join("staged");
        fs::create_dir_all(&staged).expect("mkdir");
        let mut calls = Vec::new();
        for (i, hook) in ["session-start", "stop"].iter().enumerate() {
            let payload = staged.join(format!("p{i}"));
            fs::write(&payload, br#"{"session_id": "s1"}"#).expect("write");
            let snapshot = staged.join(format!("t{i}"));
            fs::write(&snapshot, "{}\n").expect("write");
            calls.push(Recorded {
                call: Call {
                    hook: (*hook).into(),
                    at_ms: 1500 * i as u64,
                    answer: Answer::Event(
                        serde_json::json!({"type": i + 1, "session_ref": "/h/u/repo/t.jsonl"}),
                    ),
                    session_ref: Some("/h/u/repo/t.jsonl".into()),
                    snapshot: true,
                    env: [
                        ("FOO_HOME".to_string(), "/h/u/.foo".to_string()),
                        ("PYENV_DIR".to_string(), "/h/u".to_string()),
                    ]
                    .into(),
                },
                payload,
                snapshot: Some(snapshot),
            });
        }
        let out = dir.path().join("out");
        let redactor = Redactor::default();
        let target = Target {
            out: &out,
            agent: "foo",
            repo: Path::new("/h/u/repo"),
            home: Some("/h/u".into()),
            started_ms: 0,
            redactor: &redactor,
            world: &[PathBuf::from("/h/u/repo/.foo")],
            agent_vars: &[],
            place: &crate::verbs::record::place::Place {
                transcript_at: Some("{{home}}/x/t.jsonl".into()),
                cwd: Some("{{repo}}/sub".into()),
                warnings: Vec::new(),
            },
        };
        let written = write(&calls, &target).expect("written");
        assert_eq!(
            (written.payloads, written.snapshots),
            (2, 1),
            "unchanged snapshot skipped"
        );
        let text = fs::read_to_string(out.join("foo-session.yaml")).expect("read");
        let yaml: Value = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let paths: Vec<&String> = yaml["session"]["paths"]
            .as_object()
            .expect("paths")
            .keys()
            .collect();
        assert_eq!(paths.len(), 3);
        assert_eq!(
            yaml["session"]["paths"]["/h/u/repo/t.jsonl"],
            "{{transcript}}"
        );
        assert_eq!(yaml["session"]["hooks"][1]["hook"], "stop");
        assert_eq!(yaml["session"]["cwd"], "{{repo}}/sub");
        assert_eq!(yaml["session"]["transcript_at"], "{{home}}/x/t.jsonl");
        assert_eq!(yaml["agent"]["files"][0]["path"], "{{repo}}/.foo");
        assert_eq!(
            yaml["agent"]["env"],
            serde_json::json!({"FOO_HOME": "{{home}}/.foo"}),
            "a launcher's variable is no part of the agent's world"
        );
        assert_eq!(yaml["session"]["hooks"][1]["event"]["type"], 2);
        assert_eq!(
            yaml["transcripts"][0],
            "samples/recorded/001-transcript.jsonl"
        );
        assert!(text.find("/h/u/repo/t.jsonl\":") < text.find("/h/u/repo\":"));
        assert!(out.join("samples/recorded/002-stop.json").is_file());
    }
}
