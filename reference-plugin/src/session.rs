//! Session management: where the agent keeps its sessions and how a session is
//! read into, and restored from, the host's AgentSession object.
//!
//! A session of the reference agent is one JSONL transcript file,
//! `$HOME/.reference/projects/<sanitized repo path>/<session id>.jsonl`. The
//! AgentSession's `native_data` is that file's bytes, unchanged, so a
//! `read-session` followed by a `write-session` restores the file byte for byte.

use std::fs;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde_json::json;

use crate::Request;
use crate::analysis;
use crate::context::Context;
use crate::error::{Error, ErrorContext, Result};
use crate::faults::Fault;
use crate::identity::{AGENT_NAME, AGENT_TYPE};
use crate::output::Output;
use crate::protocol::{self, AgentSession, HookInput, WriteSessionRequest};
use crate::transcript;
use crate::variants::Variant;

/// `get-session-id`: the `session_id` of the HookInput on stdin.
pub fn get_session_id(ctx: &Context, request: &Request) -> Result<Output> {
    let (input, coerced) = parse_request::<HookInput>(ctx, &request.stdin, "HookInput")?;
    let session_id = match input.session_id.filter(|id| !id.is_empty()) {
        Some(id) if ctx.fault(Fault::SessionIdWrong) => format!("wrong-{id}"),
        Some(id) => id,
        None if coerced => "unknown".to_owned(),
        None if ctx.variant(Variant::GeneratedSessionId) => generated_session_id(),
        None => return Err(Error::failed("HookInput has no session_id")),
    };
    Ok(Output::Json(json!({ "session_id": session_id })))
}

/// A fresh `ref-<16 hex digits>` id from the clock and the process id
/// (the `generated-session-id` variant).
fn generated_session_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    // Keep the low 64 bits of the clock; the pid separates processes started
    // within the same nanosecond.
    let clock = u64::try_from(nanos & u128::from(u64::MAX)).unwrap_or(0);
    format!("ref-{:016x}", clock ^ (u64::from(std::process::id()) << 40))
}

/// `get-session-dir --repo-path P`: `$HOME/.reference/projects/<P sanitized>`.
///
/// The repository path becomes one directory name by replacing every byte that
/// is not an ASCII letter or digit with `-`, as Claude Code does, so sessions of
/// different repositories never mix.
pub fn get_session_dir(ctx: &Context, request: &Request) -> Result<Output> {
    // The missing-flag-ok fault: guess the repository instead of refusing.
    let guessed_root;
    let repo_path = if request.args.missing("--repo-path") {
        guessed_root = ctx.repo_root()?.to_string_lossy().into_owned();
        guessed_root.as_str()
    } else {
        request.args.value("--repo-path")
    };
    if !Path::new(repo_path).is_absolute() {
        return Err(Error::failed(format!(
            "--repo-path must be an absolute path, got {repo_path:?}"
        )));
    }
    let home = ctx
        .home()
        .ok_or_else(|| Error::failed("HOME is not set: cannot locate the session directory"))?;
    if !home.is_absolute() {
        return Err(Error::failed(format!(
            "HOME must be an absolute path, got {:?}",
            home.display()
        )));
    }
    if ctx.fault(Fault::SessionDirNeedsXdg) {
        // As `std::env::var("XDG_DATA_HOME").expect(...)` would: a panic
        // where the variable is unset.
        if std::env::var_os("XDG_DATA_HOME").is_none() {
            panic!("XDG_DATA_HOME: environment variable not found");
        }
    }
    let session_dir = match ctx.fault {
        Some(Fault::SessionDirEmpty) => String::new(),
        Some(Fault::SessionDirRelative) => ".reference/sessions".to_owned(),
        Some(Fault::SessionDirRepoRoot) => repo_path.to_owned(),
        Some(Fault::SessionDirEntireTmp) => Path::new(repo_path)
            .join(".entire")
            .join("tmp")
            .to_string_lossy()
            .into_owned(),
        _ => own_session_dir(&home, repo_path)
            .to_string_lossy()
            .into_owned(),
    };
    if ctx.fault(Fault::SessionDirOnce) {
        if let Some(parent) = Path::new(&session_dir).parent() {
            fs::create_dir_all(parent).context(|| format!("creating {}", parent.display()))?;
        }
        fs::create_dir(&session_dir).context(|| format!("creating {session_dir}"))?;
    }
    Ok(Output::Json(json!({ "session_dir": session_dir })))
}

/// Where the agent keeps the sessions of a repository:
/// `$HOME/.reference/projects/<repository path, sanitized>`.
fn own_session_dir(home: &Path, repo_path: &str) -> std::path::PathBuf {
    home.join(".reference")
        .join("projects")
        .join(sanitize_path(repo_path))
}

/// The transcript the agent keeps for a session, `<session dir>/<id>.jsonl`:
/// what `parse-hook` names when the payload names none (the agent writes it
/// there; `resolve-session-file` restores to the same file). `None` for an
/// id that could name another file, or without HOME.
pub fn agent_transcript(ctx: &Context, session_id: &str) -> Option<String> {
    check_session_id(session_id).ok()?;
    let home = ctx.home().filter(|home| home.is_absolute())?;
    let dir = if ctx.fault(Fault::TranscriptsElsewhere) {
        home.join(".reference").join("transcripts")
    } else {
        own_session_dir(&home, &ctx.repo_root().ok()?.to_string_lossy())
    };
    Some(
        dir.join(format!("{session_id}.jsonl"))
            .to_string_lossy()
            .into_owned(),
    )
}

/// The transcript the session directory of `folder` would hold for
/// `session_id`, for the `session-ref-from-cwd` fault (a folder that is not
/// the repository's root has a session directory of its own, empty).
pub fn agent_transcript_in(ctx: &Context, folder: &str, session_id: &str) -> Option<String> {
    check_session_id(session_id).ok()?;
    let home = ctx.home().filter(|home| home.is_absolute())?;
    let file = own_session_dir(&home, folder).join(format!("{session_id}.jsonl"));
    Some(file.to_string_lossy().into_owned())
}

/// Replace every byte that is not an ASCII alphanumeric with `-`.
fn sanitize_path(path: &str) -> String {
    path.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() {
                char::from(byte)
            } else {
                '-'
            }
        })
        .collect()
}

/// `resolve-session-file --session-dir D --session-id ID`: `D/ID.jsonl`.
///
/// The id comes from an agent payload, so it is untrusted: one that could name a
/// file outside `D` (a separator, `.`/`..`, or `..` anywhere) is refused.
pub fn resolve_session_file(ctx: &Context, request: &Request) -> Result<Output> {
    let session_dir = Path::new(request.args.value("--session-dir"));
    let session_id = request.args.value("--session-id");
    let file_name = match ctx.fault {
        Some(Fault::ResolveDropsId) => "session.jsonl".to_owned(),
        // The missing-flag-ok fault: guess a file instead of refusing.
        _ if request.args.missing("--session-id") => "session.jsonl".to_owned(),
        Some(Fault::ResolveTraversal) => format!("{session_id}.jsonl"),
        Some(Fault::ResolveTruncatesId) => {
            check_session_id(session_id)?;
            let prefix: String = session_id.chars().take(TRUNCATED_ID_CHARS).collect();
            format!("{prefix}.jsonl")
        }
        Some(Fault::SessionFileTimestamp) => {
            check_session_id(session_id)?;
            format!("2026-09-01T10:00:00-{session_id}.jsonl")
        }
        Some(Fault::ResolveFileName) => {
            check_session_id(session_id)?;
            format!("{session_id}.json")
        }
        Some(Fault::ResolveElsewhere) => {
            check_session_id(session_id)?;
            format!("restored/{session_id}.jsonl")
        }
        _ => {
            check_session_id(session_id)?;
            format!("{session_id}.jsonl")
        }
    };
    let session_file = session_dir.join(file_name);
    Ok(Output::Json(
        json!({ "session_file": session_file.to_string_lossy() }),
    ))
}

/// How many characters of the id the `resolve-truncates-id` fault keeps.
const TRUNCATED_ID_CHARS: usize = 12;

/// Refuse session ids that could escape the session directory.
fn check_session_id(session_id: &str) -> Result<()> {
    let problem = if session_id.is_empty() {
        "is empty"
    } else if session_id.contains(['/', '\\']) {
        "contains a path separator"
    } else if session_id.contains("..") || session_id == "." {
        "could leave the session directory"
    } else if session_id.contains('\0') {
        "contains a NUL byte"
    } else {
        return Ok(());
    };
    Err(Error::failed(format!(
        "--session-id {session_id:?} {problem}"
    )))
}

/// `read-session`: the session named by the HookInput on stdin, as AgentSession.
pub fn read_session(ctx: &Context, request: &Request) -> Result<Output> {
    let (input, _) = parse_request::<HookInput>(ctx, &request.stdin, "HookInput")?;
    let session_ref = input.session_ref.unwrap_or_default();
    if session_ref.is_empty() {
        return Err(Error::failed("HookInput has no session_ref"));
    }
    let from = match ctx.fault {
        Some(Fault::WriteSessionElsewhere) => elsewhere(Path::new(&session_ref))
            .filter(|p| p.is_file())
            .map_or(session_ref.clone(), |p| p.to_string_lossy().into_owned()),
        _ => session_ref.clone(),
    };
    let content = fs::read(&from).context(|| format!("reading session file {from}"))?;

    let native_data = if ctx.fault(Fault::ReadSessionCorruptNative) {
        let mut corrupt = content.clone();
        if let Some(last) = corrupt.last_mut() {
            *last ^= 1;
        }
        encode_native(ctx, &corrupt)
    } else {
        encode_native(ctx, &content)
    };
    let session = AgentSession {
        session_id: input.session_id.unwrap_or_default(),
        agent_name: AGENT_NAME.to_owned(),
        repo_path: ctx.repo_root()?.to_string_lossy().into_owned(),
        session_ref,
        start_time: transcript::start_time(&content).unwrap_or_default(),
        native_data: Some(native_data),
        modified_files: transcript::modified_files(&content, 0),
        new_files: Vec::new(),
        deleted_files: Vec::new(),
    };

    let mut answer = protocol::to_json(&session)?;
    match ctx.fault {
        Some(Fault::ReadSessionNullFiles) => answer["modified_files"] = json!(null),
        Some(Fault::ReadSessionBadStartTime) => answer["start_time"] = json!("13/01/2026 12:00"),
        Some(Fault::ReadSessionWrongAgentName) => answer["agent_name"] = json!(AGENT_TYPE),
        Some(Fault::ReadSessionDropsRepoPath) => answer["repo_path"] = json!(""),
        _ => {}
    }
    Ok(Output::Json(answer))
}

/// Base64 of the native data: standard and padded, unless a fault says otherwise.
fn encode_native(ctx: &Context, bytes: &[u8]) -> String {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE};
    if ctx.fault(Fault::ReadSessionUrlsafe) {
        URL_SAFE.encode(bytes)
    } else if ctx.fault(Fault::ReadSessionUnpadded) {
        STANDARD_NO_PAD.encode(bytes)
    } else {
        protocol::encode_bytes(bytes)
    }
}

/// `write-session`: restore the transcript file from the AgentSession on stdin.
///
/// Only `session_ref` and `native_data` are used: everything else the host
/// sends is accepted as it comes, as the host sends it on resume and rewind
/// (docs/host.md "What write-session receives"): `start_time` Go's zero time
/// `"0001-01-01T00:00:00Z"`, `null` file lists, an empty `repo_path`.
///
/// `session_ref` is the file `resolve-session-file` returned; one with a `.` or
/// `..` component is refused, since a `..` leaves the session directory (the
/// newer hosts refuse such a reference themselves). The parent directories are
/// created as needed.
///
/// `native_data: null` means there is no data to restore: the file is left
/// alone rather than truncated, so a session without data can never wipe a
/// transcript. An empty string is zero bytes and does write an empty file.
pub fn write_session(ctx: &Context, request: &Request) -> Result<Output> {
    if ctx.fault(Fault::WriteSessionSilentFailure) {
        return Err(Error::Silent);
    }
    if ctx.fault(Fault::WriteSessionRefusesAll) || ctx.fault(Fault::AttachOnlyRefusesRestore) {
        return Err(Error::failed(
            "write-session is not supported: restoring a session is not implemented",
        ));
    }
    if ctx.fault(Fault::WriteOutside) {
        let _ = fs::write(
            "../escaped-by-reference",
            b"written outside the repository\n",
        );
    }
    let (session, _) = parse_request::<WriteSessionRequest>(ctx, &request.stdin, "AgentSession")?;
    let session_ref = session.session_ref.unwrap_or_default();
    if session_ref.is_empty() {
        return Err(Error::failed("AgentSession has no session_ref"));
    }
    if !ctx.fault(Fault::WriteSessionFollowsDotdot) {
        analysis::check_reference(&session_ref)?;
    }
    refuse_host_values(ctx, &request.stdin)?;
    let Some(native_data) = session.native_data else {
        return Ok(Output::Nothing);
    };
    let bytes = protocol::decode_bytes(&native_data, "native_data")?;

    let moved = match ctx.fault {
        Some(Fault::WriteSessionElsewhere) => elsewhere(Path::new(&session_ref)),
        _ => None,
    };
    let path = moved.as_deref().unwrap_or(Path::new(&session_ref));
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)
            .context(|| format!("creating directory {}", parent.display()))?;
    }
    if ctx.fault(Fault::WriteSessionKeepsExisting) && path.exists() {
        return Ok(Output::Nothing);
    }
    if ctx.fault(Fault::WriteSessionNoTruncate) {
        return write_over(path, &bytes).context(|| format!("writing session file {session_ref}"));
    }
    fs::write(path, bytes).context(|| format!("writing session file {session_ref}"))?;
    Ok(Output::Nothing)
}

/// The `write-session-no-truncate` fault: the bytes written from the start
/// of the file, whatever was after them left in place.
fn write_over(path: &Path, bytes: &[u8]) -> std::io::Result<Output> {
    use std::io::Write;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    file.write_all(bytes)?;
    Ok(Output::Nothing)
}

/// The `write-session-elsewhere` fault's file: `<dir>-restored/<name>` for
/// `<dir>/<name>`.
fn elsewhere(session_ref: &Path) -> Option<std::path::PathBuf> {
    let dir = session_ref.parent()?;
    let mut sibling = dir.as_os_str().to_owned();
    sibling.push("-restored");
    Some(Path::new(&sibling).join(session_ref.file_name()?))
}

/// The `write-session-rejects-*` faults: refuse a value the host really sends.
fn refuse_host_values(ctx: &Context, stdin: &[u8]) -> Result<()> {
    let Some(fault) = ctx.fault else {
        return Ok(());
    };
    let Ok(serde_json::Value::Object(session)) = serde_json::from_slice(stdin) else {
        return Ok(());
    };
    let field = |name: &str| session.get(name).cloned().unwrap_or_default();
    match fault {
        Fault::WriteSessionRejectsZeroTime if field("start_time") == json!(GO_ZERO_TIME) => {
            Err(Error::failed(format!(
                "start_time {GO_ZERO_TIME} is not a valid start time"
            )))
        }
        Fault::WriteSessionRejectsNullFiles => {
            for name in ["modified_files", "new_files", "deleted_files"] {
                if session.get(name).is_some_and(serde_json::Value::is_null) {
                    return Err(Error::failed(format!("{name} must be an array, got null")));
                }
            }
            Ok(())
        }
        Fault::WriteSessionRejectsEmptyRepo
            if field("repo_path").as_str().unwrap_or("").is_empty() =>
        {
            Err(Error::failed("AgentSession has an empty repo_path"))
        }
        _ => Ok(()),
    }
}

/// Go's zero `time.Time` in RFC 3339, the `start_time` the host sends on
/// resume and rewind.
const GO_ZERO_TIME: &str = "0001-01-01T00:00:00Z";

/// Parse a JSON request of the session subcommands.
///
/// Returns the request and whether it was *coerced*: under the `invalid-json-ok`
/// fault, stdin that is not JSON at all is taken as `{}` instead of failing.
fn parse_request<T: DeserializeOwned + Default>(
    ctx: &Context,
    stdin: &[u8],
    what: &str,
) -> Result<(T, bool)> {
    if ctx.fault(Fault::InvalidJsonOk) && !protocol::is_json(stdin) {
        return Ok((T::default(), true));
    }
    Ok((protocol::parse_object(ctx, stdin, what)?, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizes_every_non_alphanumeric_byte() {
        assert_eq!(sanitize_path("/home/me/my repo"), "-home-me-my-repo");
        assert_eq!(sanitize_path("/tmp/é"), "-tmp---");
    }

    #[test]
    fn refuses_escaping_session_ids() {
        for bad in ["", ".", "..", "a/b", "a\\b", "x..y", "../up"] {
            assert!(check_session_id(bad).is_err(), "{bad:?}");
        }
        for good in ["abc", "a.b", "0d7e-uuid", ".hidden"] {
            assert!(check_session_id(good).is_ok(), "{good:?}");
        }
    }

    /// What the host sends on rewind (docs/host.md "What write-session
    /// receives"), for the session file `session_ref`.
    fn host_write_request(session_ref: &str) -> Request {
        let stdin = json!({
            "session_id": "sess-1", "agent_name": "reference", "repo_path": "",
            "session_ref": session_ref, "native_data": "eA==",
            "start_time": GO_ZERO_TIME,
            "modified_files": null, "new_files": null, "deleted_files": null,
        });
        Request {
            stdin: stdin.to_string().into_bytes(),
            ..Request::default()
        }
    }

    #[test]
    fn write_session_accepts_what_the_host_sends_and_refuses_dotdot() {
        let dir = std::env::temp_dir().join(format!("reference-write-{}", std::process::id()));
        let file = dir.join("sessions").join("sess-1.jsonl");
        let file_text = file.to_string_lossy().into_owned();
        let correct = Context::default();
        assert!(write_session(&correct, &host_write_request(&file_text)).is_ok());
        assert_eq!(fs::read(&file).expect("written"), b"x");

        for fault in [
            Fault::WriteSessionRejectsZeroTime,
            Fault::WriteSessionRejectsNullFiles,
            Fault::WriteSessionRejectsEmptyRepo,
        ] {
            let ctx = Context {
                fault: Some(fault),
                ..Context::default()
            };
            assert!(
                write_session(&ctx, &host_write_request(&file_text)).is_err(),
                "{fault:?}"
            );
        }

        let escaping = format!("{}/sessions/../escaped.jsonl", dir.display());
        assert!(write_session(&correct, &host_write_request(&escaping)).is_err());
        assert!(!dir.join("escaped.jsonl").exists());
        let follows = Context {
            fault: Some(Fault::WriteSessionFollowsDotdot),
            ..Context::default()
        };
        assert!(write_session(&follows, &host_write_request(&escaping)).is_ok());
        assert!(dir.join("escaped.jsonl").exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn generated_ids_have_the_documented_shape() {
        let id = generated_session_id();
        let hex = id.strip_prefix("ref-").expect("prefix");
        assert_eq!(hex.len(), 16);
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
