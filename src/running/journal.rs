//! The sandbox as each call found it: a copy of its tree taken before every
//! call, kept in memory until the case ends, and written into a kept
//! sandbox (`before/N/`) so that `reproduce.sh` can lay the tree down again
//! as it was before the invocation it reruns (see `outcome::repro`).
//!
//! Most calls change little or nothing, so a copy costs little: the tree is
//! walked for its entries' metadata, and a file's bytes are read again
//! only when its size, times or inode changed since the last copy (a file
//! that did not is the last copy's bytes, shared). A file changed within
//! the file system's clock tick of the last copy could keep its times and
//! size; as git does for its index ("racy" entries), such a file is read
//! again. A call that finds the tree as the last one did gets that copy's
//! number. A file of megabytes (a transcript the harness lengthened) is not
//! held in memory: the kept sandbox's copy takes it from the sandbox, and
//! a copy whose large file changed since is left out. The copies of one sandbox are bounded ([`Journal::LIMIT`]): past
//! that, later calls get none, and their script says the sandbox is as the
//! case left it.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::state::{link, permissions as mode, set_permissions as set_mode};

/// Entries at the top of a sandbox that are the harness's record of the
/// case, written when it is kept, never part of what a call found.
pub const OWN_ENTRIES: &[&str] = &["before", "output", "stdin", "reproduce.sh"];

/// The directory of a kept sandbox holding the copies (`before/N/`).
pub const DIR: &str = "before";

/// The copies of one sandbox's tree, one per distinct state a call found.
#[derive(Debug, Default)]
pub struct Journal {
    states: Vec<State>,
    /// The bytes held by every copy, counted once per file version.
    held: u64,
    /// Set once [`Journal::LIMIT`] was reached: no further copies.
    full: bool,
}

/// One copy of the tree, and when it was taken.
#[derive(Debug)]
struct State {
    entries: Vec<Entry>,
    taken: SystemTime,
}

/// One entry: its path under the root, its permissions, what it is.
#[derive(Debug, Clone)]
struct Entry {
    path: PathBuf,
    mode: u32,
    item: Item,
}

#[derive(Debug, Clone)]
enum Item {
    Dir,
    File(Arc<Vec<u8>>, Stamp),
    /// A file past [`LARGE`] bytes (a transcript of megabytes the harness
    /// wrote), held by its stamp only: copied from the live file when the
    /// sandbox is kept, if it is unchanged by then.
    Large(Stamp),
    Link(PathBuf),
}

/// The size past which a file is not held in memory but taken from the
/// sandbox when it is kept (see [`Item::Large`]).
const LARGE: u64 = 1 << 20;

/// What says a file is unchanged: its size, modification and change
/// times, and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    changed: i128,
    inode: u64,
}

/// How close to a copy a file's time may be and still be trusted: coarser
/// than any file system's clock tick.
const RACY: Duration = Duration::from_millis(50);

impl Journal {
    /// The most bytes a sandbox's copies hold (each file version once).
    pub const LIMIT: u64 = 64 << 20;

    /// Forgets every copy (the sandbox is renewed for another case).
    pub fn clear(&mut self) {
        *self = Journal::default();
    }

    /// Copies the tree under `root` as a call finds it now; returns the
    /// copy's number (that of the last copy when nothing changed), or
    /// `None` when it cannot be taken or the copies are full.
    pub fn record(&mut self, root: &Path) -> Option<usize> {
        if self.full {
            return None;
        }
        let taken = SystemTime::now();
        let last = self.states.last();
        let known: HashMap<&Path, (&Arc<Vec<u8>>, Stamp)> = last
            .map(|s| {
                s.entries
                    .iter()
                    .filter_map(|e| match &e.item {
                        Item::File(bytes, stamp) => Some((e.path.as_path(), (bytes, *stamp))),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let trusted_before = last.and_then(|s| s.taken.checked_sub(RACY));
        let mut walk = Walk {
            known: &known,
            trusted_before,
            entries: Vec::new(),
            read: 0,
        };
        walk.dir(root, Path::new(""), true).ok()?;
        let Walk { entries, read, .. } = walk;
        if let Some(last) = self.states.last_mut()
            && same(&last.entries, &entries)
        {
            // Every file that was racy has just been read and found the
            // same: the copy is as good as one taken now.
            last.taken = taken;
            return Some(self.states.len() - 1);
        }
        self.held = self.held.saturating_add(read);
        if self.held > Self::LIMIT {
            // The copies so far stay (earlier calls name them); no more.
            self.full = true;
            return None;
        }
        self.states.push(State { entries, taken });
        Some(self.states.len() - 1)
    }

    /// Writes the copies `numbers` of the sandbox at `root` into `dir` as
    /// `dir/N/`, a file shared between copies written once and linked from
    /// the others; returns the numbers written whole (a large file changed
    /// since its copy leaves its copy out).
    pub fn write(&self, numbers: &[usize], root: &Path, dir: &Path) -> io::Result<Vec<usize>> {
        let mut written: HashMap<(*const Vec<u8>, u32), PathBuf> = HashMap::new();
        let mut whole = Vec::new();
        for &number in numbers {
            let Some(state) = self.states.get(number) else {
                continue;
            };
            let base = dir.join(number.to_string());
            if !state.large_unchanged(root) {
                continue;
            }
            fs::create_dir_all(&base)?;
            for entry in &state.entries {
                let path = base.join(&entry.path);
                match &entry.item {
                    Item::Dir => fs::create_dir_all(&path)?,
                    Item::Link(target) => link(target, &path)?,
                    Item::Large(_) => {
                        let live = root.join(&entry.path);
                        if fs::hard_link(&live, &path).is_err() {
                            fs::copy(&live, &path)?;
                        }
                    }
                    Item::File(bytes, _) => {
                        let key = (Arc::as_ptr(bytes), entry.mode);
                        let linked = written
                            .get(&key)
                            .is_some_and(|first| fs::hard_link(first, &path).is_ok());
                        if !linked {
                            fs::write(&path, bytes.as_slice())?;
                            set_mode(&path, entry.mode)?;
                            written.insert(key, path);
                        }
                    }
                }
            }
            // A directory's permissions once its entries are written: a
            // read-only one could not have been filled.
            for entry in state.entries.iter().rev() {
                if matches!(entry.item, Item::Dir) {
                    set_mode(&base.join(&entry.path), entry.mode)?;
                }
            }
            whole.push(number);
        }
        Ok(whole)
    }
}

impl State {
    /// Whether every large file of the copy is in the sandbox at `root` as
    /// it was when the copy was taken.
    fn large_unchanged(&self, root: &Path) -> bool {
        self.entries.iter().all(|e| match &e.item {
            Item::Large(stamp) => {
                fs::symlink_metadata(root.join(&e.path)).is_ok_and(|meta| stamp_of(&meta) == *stamp)
            }
            _ => true,
        })
    }
}

/// One walk of the tree, reusing the last copy's bytes where it can.
struct Walk<'a> {
    known: &'a HashMap<&'a Path, (&'a Arc<Vec<u8>>, Stamp)>,
    trusted_before: Option<SystemTime>,
    entries: Vec<Entry>,
    read: u64,
}

impl Walk<'_> {
    fn dir(&mut self, dir: &Path, rel: &Path, top: bool) -> io::Result<()> {
        let mut names: Vec<fs::DirEntry> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        names.sort_by_key(fs::DirEntry::file_name);
        for found in names {
            let name = found.file_name();
            if top && OWN_ENTRIES.iter().any(|own| name == *own) {
                continue;
            }
            let path = found.path();
            let rel = rel.join(&name);
            let meta = fs::symlink_metadata(&path)?;
            let mode = mode(&meta);
            if meta.file_type().is_symlink() {
                let item = Item::Link(fs::read_link(&path)?);
                self.entries.push(Entry {
                    path: rel,
                    mode,
                    item,
                });
            } else if meta.is_dir() {
                self.entries.push(Entry {
                    path: rel.clone(),
                    mode,
                    item: Item::Dir,
                });
                self.dir(&path, &rel, false)?;
            } else if meta.len() > LARGE {
                self.entries.push(Entry {
                    path: rel,
                    mode,
                    item: Item::Large(stamp_of(&meta)),
                });
            } else {
                let stamp = stamp_of(&meta);
                let bytes = match self.known.get(rel.as_path()) {
                    Some((bytes, was)) if *was == stamp && self.settled(&stamp) => {
                        Arc::clone(bytes)
                    }
                    _ => {
                        let bytes = fs::read(&path)?;
                        self.read = self.read.saturating_add(bytes.len() as u64);
                        Arc::new(bytes)
                    }
                };
                self.entries.push(Entry {
                    path: rel,
                    mode,
                    item: Item::File(bytes, stamp),
                });
            }
        }
        Ok(())
    }

    /// Whether a file with `stamp` was last changed well before the last
    /// copy was taken (else it may have changed again within the same tick).
    fn settled(&self, stamp: &Stamp) -> bool {
        match (stamp.modified, self.trusted_before) {
            (Some(modified), Some(before)) => modified < before,
            _ => false,
        }
    }
}

/// Whether two copies hold the same tree: the same entries, the same
/// permissions, the same bytes (shared) and link targets.
fn same(a: &[Entry], b: &[Entry]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.path == y.path
                && x.mode == y.mode
                && match (&x.item, &y.item) {
                    (Item::Dir, Item::Dir) => true,
                    (Item::Link(p), Item::Link(q)) => p == q,
                    (Item::File(p, _), Item::File(q, _)) => Arc::ptr_eq(p, q) || p == q,
                    (Item::Large(p), Item::Large(q)) => p == q,
                    _ => false,
                }
        })
}

#[cfg(unix)]
fn stamp_of(meta: &fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        changed: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        inode: meta.ino(),
    }
}

#[cfg(not(unix))]
fn stamp_of(meta: &fs::Metadata) -> Stamp {
    Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        changed: 0,
        inode: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::Journal;
    use std::fs;

    #[test]
    fn a_copy_is_the_tree_as_it_was_and_an_unchanged_tree_keeps_its_number() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("repo/.agent")).expect("directories");
        fs::write(root.join("repo/.agent/settings.json"), b"{}").expect("a file");
        let mut journal = Journal::default();
        let first = journal.record(&root).expect("recorded");
        assert_eq!(journal.record(&root), Some(first), "nothing changed");
        fs::write(root.join("repo/.agent/settings.json"), b"{\"hooks\":1}").expect("changed");
        fs::create_dir(root.join("stdin")).expect("the harness's own");
        let second = journal.record(&root).expect("recorded");
        assert_ne!(first, second);
        let out = dir.path().join("before");
        let whole = journal
            .write(&[first, second], &root, &out)
            .expect("written");
        assert_eq!(whole, [first, second]);
        let read = |n: usize| fs::read(out.join(format!("{n}/repo/.agent/settings.json")));
        assert_eq!(read(first).expect("first"), b"{}");
        assert_eq!(read(second).expect("second"), b"{\"hooks\":1}");
        assert!(!out.join(format!("{second}/stdin")).exists());
    }

    #[test]
    fn a_file_rewritten_at_once_with_the_same_size_is_read_again() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        fs::write(dir.path().join("f"), b"one").expect("a file");
        let mut journal = Journal::default();
        let first = journal.record(dir.path()).expect("recorded");
        fs::write(dir.path().join("f"), b"two").expect("same size, same tick");
        let second = journal.record(dir.path()).expect("recorded");
        assert_ne!(first, second, "a racy file is read again");
    }

    #[test]
    fn a_large_file_is_taken_from_the_sandbox_unless_it_changed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().join("root");
        fs::create_dir(&root).expect("the root");
        fs::write(root.join("long.jsonl"), vec![b'x'; 2 << 20]).expect("a large file");
        let mut journal = Journal::default();
        let first = journal.record(&root).expect("recorded");
        assert_eq!(journal.held, 0, "not held in memory");
        let out = dir.path().join("before");
        let whole = journal.write(&[first], &root, &out).expect("written");
        assert_eq!(whole, [first]);
        let copied = fs::metadata(out.join(format!("{first}/long.jsonl"))).expect("copied");
        assert_eq!(copied.len(), 2 << 20);
        fs::write(root.join("long.jsonl"), vec![b'y'; 3 << 20]).expect("changed");
        let again = dir.path().join("again");
        let whole = journal.write(&[first], &root, &again).expect("written");
        assert!(whole.is_empty(), "the copy is left out");
    }
}
