//! The session's history as the host lives it (docs/host.md "The user's
//! machine, not a clean room": history). The restore does not write into
//! an empty place: `entire resume --force` may land on a machine that holds
//! an older copy of the session's file (the host skips the write when the
//! file exists, unless `--force`), and `entire rewind` writes an earlier
//! checkpoint over the agent's live file after it has grown with later
//! turns (the host always forces that write: "The calls the host makes
//! over a session, in order"). Either way the file must then hold exactly
//! the checkpoint's bytes: nothing of the older copy or of the later turns,
//! no torn line where they met.
//!
//! The bytes laid down are the session's own: its earlier checkpoint as
//! the older copy of the last, its last checkpoint as the later turns of
//! the earlier one (which it continues). Judged only where the plugin
//! writes at the file `resolve-session-file` gave (the other session's
//! fresh file holds its transcript): a plugin that keeps its sessions in a
//! store of its own is not judged by a file it never writes.

use std::path::{Path, PathBuf};

use crate::execute::session::Play;
use crate::host::session::Restore;
use crate::judge::checks::Finding;

impl Play<'_, '_> {
    /// Before `entire resume`: the last session's file holds an older copy
    /// of it (the earlier checkpoint it continues), as on a machine where
    /// the session ran before.
    pub(super) fn older_copy(&mut self, sessions: &[(String, Vec<u8>); 2], files: &[String]) {
        let (mine, older) = (&sessions[0].1, &sessions[1].1);
        if !continues(mine, older) || files[0] == files[1] {
            return;
        }
        let label = format!(
            "entire resume --force · session {} · an older copy of its file on this machine",
            sessions[0].0
        );
        self.lay(Restore::Resume, 0, &files[0], older, &label);
    }

    /// Before `entire rewind`: the earlier session's file, which the resume
    /// restored, has grown with the later turns (the last session's
    /// transcript, which continues it).
    pub(super) fn later_turns(
        &mut self,
        sessions: &[(String, Vec<u8>); 2],
        files: &[String],
        held: &[bool; 2],
    ) {
        let (later, mine) = (&sessions[0].1, &sessions[1].1);
        if !held[1] || !continues(later, mine) || files[0] == files[1] {
            return;
        }
        let label = format!(
            "entire rewind · session {} · the agent's file has grown with later turns",
            sessions[1].0
        );
        self.lay(Restore::Rewind, 1, &files[1], later, &label);
    }

    /// Writes `bytes` at the session file `file` (inside the sandbox only)
    /// before the writes of `restore`, and says so on the timeline.
    fn lay(&mut self, restore: Restore, n: usize, file: &str, bytes: &[u8], label: &str) {
        let Some(path) = self.inside(file) else {
            return;
        };
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, bytes));
        if written.is_ok() {
            self.lived.push((restore, n, bytes.to_vec()));
            self.check_line(label, Vec::new());
        }
    }

    fn inside(&self, file: &str) -> Option<PathBuf> {
        let path = Path::new(file);
        (path.is_absolute() && crate::host::ownership::contains(self.sandbox.root(), path))
            .then(|| path.to_path_buf())
    }

    /// Whether the replay laid down session `n`'s file before a restore
    /// (what it holds is then judged here, not as the other session's).
    pub(super) fn laid(&self, n: usize) -> bool {
        self.lived.iter().any(|(_, m, _)| *m == n)
    }

    /// After the writes of `restore`: each file laid down before them that
    /// does not hold its session's checkpoint, where the plugin writes at
    /// the files `resolve-session-file` gives (the other session's file
    /// held its transcript: `held`), is a failure naming what it holds.
    /// Which sessions were so reported.
    pub(super) fn judge_lived(
        &mut self,
        restore: Restore,
        sessions: &[(String, Vec<u8>); 2],
        files: &[String],
        held: [bool; 2],
    ) -> [bool; 2] {
        let mut reported = [false, false];
        let laid: Vec<(usize, Vec<u8>)> = self
            .lived
            .iter()
            .filter(|(r, _, _)| *r == restore)
            .map(|(_, n, b)| (*n, b.clone()))
            .collect();
        for (n, before) in laid {
            let writes_there = held[n] || held[1 - n] || restore == Restore::Rewind;
            let Some(path) = self.inside(&files[n]) else {
                continue;
            };
            let on_disk = std::fs::read(&path).unwrap_or_default();
            let (id, mine) = (&sessions[n].0, &sessions[n].1);
            if on_disk == *mine || !writes_there {
                continue;
            }
            let message = what_it_holds(restore, id, &files[n], mine, &before, &on_disk);
            let label = format!(
                "{} · session {id} · the file the agent resumes from",
                restore.command()
            );
            self.check_line(&label, vec![Finding::failure(message)]);
            reported[n] = true;
        }
        reported
    }
}

/// Whether `longer` continues `shorter`: it begins with all of it and has
/// more.
fn continues(longer: &[u8], shorter: &[u8]) -> bool {
    !shorter.is_empty() && longer.len() > shorter.len() && longer.starts_with(shorter)
}

/// What a file that should hold `mine` holds instead, `before` having been
/// there before the write.
fn what_it_holds(
    restore: Restore,
    id: &str,
    file: &str,
    mine: &[u8],
    before: &[u8],
    on_disk: &[u8],
) -> String {
    let command = match restore {
        Restore::Resume => "entire resume --force",
        _ => "entire rewind",
    };
    let there = match restore {
        Restore::Resume => "an older copy of the session (an earlier checkpoint)",
        _ => "the agent's live transcript, grown with the turns after the checkpoint",
    };
    let what = if on_disk == before {
        "it still holds exactly that: write-session did not replace the file (it left a file \
         that exists alone, or wrote the checkpoint over its start without truncating it), and \
         the host forces this write"
            .to_string()
    } else if on_disk.len() == before.len() + mine.len()
        && on_disk.starts_with(before)
        && on_disk.ends_with(mine)
    {
        "write-session appended the checkpoint to it instead of replacing it".to_string()
    } else if on_disk.starts_with(mine) {
        format!(
            "it holds the checkpoint's {} bytes and then {} bytes of what was there (the file was \
             not truncated: a torn line where they meet)",
            mine.len(),
            on_disk.len() - mine.len()
        )
    } else {
        format!(
            "it holds {} bytes that are neither the checkpoint's {} nor what was there",
            on_disk.len(),
            mine.len()
        )
    };
    format!(
        "{command} of session {id}: before write-session {file} held {there}; after it, \
         {what}; the agent resumes from this file, with turns the user {} (the restore writes \
         over the agent's file, which must then hold exactly the checkpoint's bytes)",
        match restore {
            Restore::Resume => "has since had: the newer ones are lost to it",
            _ => "rewound away",
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_way_a_write_can_leave_what_was_there_is_named() {
        let (mine, before) = (b"a\nb\n".as_slice(), b"a\nb\nc\nd\n".as_slice());
        let kept = what_it_holds(Restore::Rewind, "s", "/f", mine, before, before);
        assert!(kept.contains("still holds exactly that"), "{kept}");
        let torn = what_it_holds(Restore::Rewind, "s", "/f", mine, before, b"a\nb\nc\nd\n");
        assert!(torn.contains("still holds"), "{torn}");
        let tail = what_it_holds(Restore::Rewind, "s", "/f", b"x\n", before, b"x\nb\nc\nd\n");
        assert!(tail.contains("not truncated"), "{tail}");
        let appended = what_it_holds(
            Restore::Resume,
            "s",
            "/f",
            before,
            mine,
            b"a\nb\na\nb\nc\nd\n",
        );
        assert!(appended.contains("appended"), "{appended}");
        assert!(continues(before, mine) && !continues(mine, before) && !continues(before, b""));
    }
}
