//! A `write-session` given a `session_ref` whose `..` components leave the
//! plugin's session directory: what the call wrote where the reference
//! points (docs/host.md "What each answer costs the user", Sessions, resume
//! and rewind: older hosts forward such a reference from checkpoint data,
//! newer ones refuse it themselves).
//!
//! The rule reads the files, not the exit code alone: a plugin that writes
//! its own file wherever the reference points (the session directory and an
//! id of its checking, say) and exits 0 lets nothing escape. Only a file at
//! the reference, or one named after it beside it (`<ref>.session.json`),
//! shows that the call followed the `..` out.

use std::path::{Path, PathBuf};

use crate::judge::checks::Finding;
use crate::outcome::evidence::Evidence;
use crate::outcome::kind::Kind;

/// The finding of a `write-session` that exited 0 for the escaping
/// reference `target`: a warning (the case's weight) naming what it wrote
/// there, else a note that nothing escaped.
pub fn judge(target: &Path) -> Vec<Finding> {
    let written = written_at(target);
    if written.is_empty() {
        return vec![
            Finding::note(format!(
                "write-session exited 0 for the session_ref {}, whose `..` components leave the \
                 session directory, and wrote nothing where it points: nothing escaped (it writes \
                 a file of its own choosing, whatever the reference says); the protocol still asks \
                 for a refusal of such a reference",
                target.display()
            ))
            .kind(Kind::NotVerified)
            .rests_on(Evidence::OwnAnswers),
        ];
    }
    let list: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    vec![
        Finding::failure(format!(
            "write-session followed the `..` of session_ref {} out of its session directory and \
             wrote {}: a host that does not preflight the reference (older releases) lets a \
             restore write wherever checkpoint data points",
            target.display(),
            list.join(", ")
        ))
        .rests_on(Evidence::OwnAnswers)
        .diff(
            "a refusal (non-zero exit, a message on stderr)",
            format!("exit 0, and {} written", list.join(", ")),
        ),
    ]
}

/// What exists at `target`, resolved as the OS resolves it (through a
/// symlinked directory) and lexically, or beside it named after it.
fn written_at(target: &Path) -> Vec<PathBuf> {
    let mut places = vec![PathBuf::from(crate::suite::case::normalize(
        &target.to_string_lossy(),
    ))];
    if let (Some(parent), Some(name)) = (target.parent(), target.file_name())
        && let Ok(real) = parent.canonicalize()
    {
        places.push(real.join(name));
    }
    places.dedup();
    let mut found = Vec::new();
    for place in places {
        let (Some(dir), Some(name)) = (place.parent(), place.file_name()) else {
            continue;
        };
        let name = name.to_string_lossy().into_owned();
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let named = entry.file_name().to_string_lossy().starts_with(&name);
            if named && !found.contains(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Severity;

    #[test]
    fn a_write_that_leaves_nothing_at_the_reference_escaped_nothing() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let sessions = dir.path().join("sessions");
        std::fs::create_dir_all(&sessions).expect("created");
        let target = sessions.join("..").join("agent-conform-escaped.jsonl");
        let quiet = judge(&target);
        assert_eq!(quiet[0].severity, Severity::Note);
        std::fs::write(
            dir.path().join("agent-conform-escaped.jsonl.session.json"),
            "x",
        )
        .expect("written");
        let out = judge(&target);
        assert_eq!(out[0].weight(), Severity::Failure, "{out:?}");
        assert!(
            out[0].message.contains("session.json"),
            "{}",
            out[0].message
        );
    }
}
