//! Where the recorded session lived on the recording machine: the
//! transcript's place (in the plugin's session directory, else relative to
//! the repository or HOME) and the directory the agent ran in (the
//! payloads' `cwd`), written into the recording so that the replay lays
//! them down the same way (docs/session-format.md, `transcript_at`, `cwd`).
//!
//! It also asks the plugin, as the host would at `entire resume`, where it
//! keeps and restores the session (`get-session-dir`, then
//! `resolve-session-file`): a transcript outside that directory, or not the
//! file the restore writes, is a resume that restores where the agent never
//! reads, said on stderr at record time.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::staging::{Answer, Recorded};
use crate::running::runner::{Invocation, Termination};

/// The place of a recorded session, and what is wrong with it.
#[derive(Debug, Default)]
pub struct Place {
    /// `transcript_at`: `{{session_dir}}/…`, `{{repo}}/…` or `{{home}}/…`.
    pub transcript_at: Option<String>,
    /// `cwd`: where the agent ran, `{{repo}}/…` or `{{home}}/…`.
    pub cwd: Option<String>,
    /// The resumes this session's layout breaks, one line each.
    pub warnings: Vec<String>,
}

/// What finding the place needs.
#[derive(Debug)]
pub struct Seen<'a> {
    /// The plugin binary.
    pub plugin: &'a Path,
    /// The repository root.
    pub repo: &'a Path,
    /// `$HOME`.
    pub home: Option<&'a Path>,
    /// The transcript the Events named (the first `session_ref`).
    pub transcript: Option<&'a str>,
}

/// Finds the place of the session of `calls` (before redaction: the
/// placeholders replace only the repository and HOME).
pub fn find(calls: &[Recorded], seen: &Seen) -> Place {
    let mut place = Place {
        cwd: calls
            .iter()
            .find_map(|c| payload_cwd(&c.payload))
            .and_then(|cwd| relative(Path::new(&cwd), seen)),
        ..Place::default()
    };
    let Some(transcript) = seen.transcript.map(PathBuf::from) else {
        return place;
    };
    let dir = ask(
        seen,
        &["get-session-dir", "--repo-path"],
        "session_dir",
        None,
    );
    let inside = dir.as_ref().and_then(|d| below(&transcript, Path::new(d)));
    place.transcript_at = match &inside {
        Some(rest) => Some(format!("{{{{session_dir}}}}/{rest}")),
        None => relative(&transcript, seen),
    };
    let Some(dir) = dir else {
        return place;
    };
    if inside.is_none() {
        place.warnings.push(format!(
            "the agent kept this session's transcript at {}, outside the plugin's session \
             directory {dir} (get-session-dir): the host's owner lookup finds no owner for it, \
             and entire session resume restores into {dir}, where the agent does not read",
            transcript.display()
        ));
    }
    let id = calls.iter().find_map(|c| match &c.call.answer {
        Answer::Event(event) => event
            .get("session_id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_string),
        Answer::Refused(_) => None,
    });
    let Some(id) = id else { return place };
    let file = ask(
        seen,
        &["resolve-session-file", "--session-dir"],
        "session_file",
        Some((&dir, &id)),
    );
    if let Some(file) = file
        && Path::new(&file) != transcript
    {
        place.warnings.push(format!(
            "entire session resume restores {file} (resolve-session-file for session {id}), \
             while the agent reads {}: the agent's resume finds nothing restored",
            transcript.display()
        ));
    }
    place
}

/// The `cwd` of a payload file, when it names one.
fn payload_cwd(payload: &Path) -> Option<String> {
    let bytes = std::fs::read(payload).ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    value
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|cwd| Path::new(cwd).is_absolute())
        .map(str::to_string)
}

/// `path` below `dir`, as a relative path with `/` (no `..`).
fn below(path: &Path, dir: &Path) -> Option<String> {
    let rest = path.strip_prefix(dir).ok()?;
    let parts: Vec<String> = rest
        .components()
        .map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// `path` as `{{repo}}/…` or `{{home}}/…` (the repository first: it may
/// lie in HOME); `{{repo}}` alone for the repository itself.
fn relative(path: &Path, seen: &Seen) -> Option<String> {
    let places = [(Some(seen.repo), "{{repo}}"), (seen.home, "{{home}}")];
    places.iter().find_map(|(at, placeholder)| {
        let at = (*at)?;
        if path == at {
            return Some((*placeholder).to_string());
        }
        below(path, at).map(|rest| format!("{placeholder}/{rest}"))
    })
}

/// Asks the plugin one call as the host does (cwd and `ENTIRE_REPO_ROOT`
/// the repository root); the string at `key` of its JSON answer.
fn ask(seen: &Seen, call: &[&str], key: &str, resolve: Option<(&str, &str)>) -> Option<String> {
    let mut args: Vec<String> = call.iter().map(|a| (*a).to_string()).collect();
    match resolve {
        Some((dir, id)) => args.extend([dir.to_string(), "--session-id".into(), id.into()]),
        None => args.push(seen.repo.display().to_string()),
    }
    let mut inv = Invocation::new(
        seen.plugin.to_path_buf(),
        args,
        seen.repo.to_path_buf(),
        crate::host::invocation::CALL_TIMEOUT,
    );
    inv.env = crate::host::invocation::environment(seen.repo);
    let outcome = crate::running::runner::run(&inv);
    if !matches!(outcome.termination, Termination::Exited(Some(0))) {
        return None;
    }
    let value: Value = serde_json::from_slice(&outcome.stdout).ok()?;
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| Path::new(s).is_absolute())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_relative_to_the_repository_before_home() {
        let seen = Seen {
            plugin: Path::new("/nowhere"),
            repo: Path::new("/h/u/repo"),
            home: Some(Path::new("/h/u")),
            transcript: None,
        };
        let at = |p: &str| relative(Path::new(p), &seen);
        assert_eq!(at("/h/u/repo/sub").as_deref(), Some("{{repo}}/sub"));
        assert_eq!(at("/h/u/repo").as_deref(), Some("{{repo}}"));
        assert_eq!(
            at("/h/u/.x/s.jsonl").as_deref(),
            Some("{{home}}/.x/s.jsonl")
        );
        assert_eq!(at("/elsewhere/s.jsonl"), None);
        assert_eq!(
            below(Path::new("/a/b/c"), Path::new("/a")).as_deref(),
            Some("b/c")
        );
    }
}
