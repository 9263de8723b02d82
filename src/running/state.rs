//! What a call can observe of its sandbox, as one number: the state an
//! answer is shared under (see `execute::answers`).
//!
//! The print covers every entry under the sandbox's root (the repository
//! and its git dir, HOME, TMPDIR, the scratch directories, the `entire`
//! stand-in and the calls it recorded): its path, its kind, its
//! permissions, and a file's bytes or a link's target. Times are left
//! out: a renewed sandbox holds the same tree at other times, and a call
//! that writes changes the bytes or the entries, which the print sees. A
//! file of megabytes (the harness's lengthened transcript) that changed
//! more than a clock tick ago is printed by its size, inode and times
//! instead of its bytes: any write changes its times, and it is not read
//! again before every shared call of a case. Two
//! sandboxes at one path with the same print hold the same files, so a
//! call with the same command line, environment and stdin sees the same
//! thing in both.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::path::Path;

/// The print of the tree under `root` (see the module).
pub fn print(root: &Path) -> io::Result<u64> {
    let mut hasher = DefaultHasher::new();
    let settled = std::time::SystemTime::now().checked_sub(RACY);
    walk(root, Path::new(""), settled, &mut hasher)?;
    Ok(hasher.finish())
}

/// A file past this size (a transcript of megabytes the harness wrote for
/// the long-lines calls) is printed by its identity, not its bytes, once
/// it has settled: reading and hashing megabytes before every shared call
/// of the later passes was most of a run's own time.
const LARGE: u64 = 1 << 20;

/// How long ago a file must have changed for its identity to stand for its
/// bytes: coarser than any file system's clock tick (one changed within
/// the same tick may keep its times), as git treats its index's "racy"
/// entries.
const RACY: std::time::Duration = std::time::Duration::from_millis(50);

/// Hashes the entries of `dir` (`rel` under the root), in name order.
fn walk(
    dir: &Path,
    rel: &Path,
    settled: Option<std::time::SystemTime>,
    hasher: &mut DefaultHasher,
) -> io::Result<()> {
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let name = rel.join(entry.file_name());
        let meta = fs::symlink_metadata(&path)?;
        name.hash(hasher);
        permissions(&meta).hash(hasher);
        if meta.file_type().is_symlink() {
            0u8.hash(hasher);
            fs::read_link(&path)?.hash(hasher);
        } else if meta.is_dir() {
            1u8.hash(hasher);
            walk(&path, &name, settled, hasher)?;
        } else if let Some(identity) = identity(&meta, settled) {
            3u8.hash(hasher);
            identity.hash(hasher);
        } else {
            2u8.hash(hasher);
            fs::read(&path)?.hash(hasher);
        }
    }
    Ok(())
}

/// A large file's identity (its size, inode and times), when it changed
/// before `settled`: any write changes its times, and a renewed sandbox's
/// file is another inode, so an equal identity is the same bytes.
#[cfg(unix)]
fn identity(meta: &fs::Metadata, settled: Option<std::time::SystemTime>) -> Option<[i64; 6]> {
    use std::os::unix::fs::MetadataExt;
    let old = meta.modified().ok()? < settled?;
    (meta.len() > LARGE && old).then(|| {
        [
            meta.size() as i64,
            meta.ino() as i64,
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        ]
    })
}

#[cfg(not(unix))]
fn identity(_meta: &fs::Metadata, _settled: Option<std::time::SystemTime>) -> Option<[i64; 6]> {
    None
}

#[cfg(unix)]
pub(super) fn permissions(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode()
}

#[cfg(not(unix))]
pub(super) fn permissions(meta: &fs::Metadata) -> u32 {
    u32::from(meta.permissions().readonly())
}

#[cfg(test)]
mod tests {
    use super::print;

    #[test]
    fn the_print_follows_the_bytes_and_the_entries_not_the_times() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("a");
        std::fs::write(&file, b"one").expect("written");
        let first = print(dir.path()).expect("printed");
        std::fs::write(&file, b"one").expect("written again");
        assert_eq!(print(dir.path()).expect("printed"), first);
        std::fs::write(&file, b"two").expect("changed");
        assert_ne!(print(dir.path()).expect("printed"), first);
        std::fs::write(&file, b"one").expect("back");
        std::fs::create_dir(dir.path().join("b")).expect("a new directory");
        assert_ne!(print(dir.path()).expect("printed"), first);
    }

    #[test]
    fn a_settled_large_file_prints_by_identity_and_any_write_shows() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("long.jsonl");
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let write = |byte: u8| {
            std::fs::write(&file, vec![byte; 2 << 20]).expect("written");
            let opened = std::fs::File::options().write(true).open(&file);
            opened.and_then(|f| f.set_modified(old)).expect("dated");
        };
        write(b'x');
        let first = print(dir.path()).expect("printed");
        assert_eq!(print(dir.path()).expect("printed"), first);
        write(b'y');
        assert_ne!(print(dir.path()).expect("printed"), first);
    }

    #[test]
    fn a_tree_laid_down_again_prints_as_it_did() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(dir.path().join("a/b")).expect("directories");
        std::fs::write(dir.path().join("a/b/f"), b"bytes").expect("a file");
        let tree = super::Tree::capture(dir.path()).expect("captured");
        let before = print(dir.path()).expect("printed");
        std::fs::write(dir.path().join("a/b/f"), b"other").expect("changed");
        std::fs::write(dir.path().join("g"), b"new").expect("added");
        tree.restore(dir.path()).expect("restored");
        assert_eq!(print(dir.path()).expect("printed"), before);
    }
}

/// A copy of the tree under a sandbox's root, to lay it down again: the
/// effect of a call that changed the sandbox, given to a case that shares
/// the call's answer (see `execute::answers`).
#[derive(Debug, Clone)]
pub struct Tree {
    /// Each entry, parents before children: its path under the root, its
    /// permissions, and what it is.
    entries: Vec<(std::path::PathBuf, u32, Entry)>,
}

#[derive(Debug, Clone)]
enum Entry {
    Dir,
    File(Vec<u8>),
    Link(std::path::PathBuf),
}

impl Tree {
    /// Copies the tree under `root`.
    pub fn capture(root: &Path) -> io::Result<Tree> {
        let mut tree = Tree {
            entries: Vec::new(),
        };
        tree.add(root, Path::new(""))?;
        Ok(tree)
    }

    fn add(&mut self, dir: &Path, rel: &Path) -> io::Result<()> {
        let mut entries: Vec<fs::DirEntry> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(fs::DirEntry::file_name);
        for entry in entries {
            let path = entry.path();
            let name = rel.join(entry.file_name());
            let meta = fs::symlink_metadata(&path)?;
            let mode = permissions(&meta);
            if meta.file_type().is_symlink() {
                self.entries
                    .push((name, mode, Entry::Link(fs::read_link(&path)?)));
            } else if meta.is_dir() {
                self.entries.push((name.clone(), mode, Entry::Dir));
                self.add(&path, &name)?;
            } else {
                self.entries
                    .push((name, mode, Entry::File(fs::read(&path)?)));
            }
        }
        Ok(())
    }

    /// Empties `root` and lays the tree down under it; a directory's
    /// permissions are set once its entries are written.
    pub fn restore(&self, root: &Path) -> io::Result<()> {
        for entry in fs::read_dir(root)? {
            let path = entry?.path();
            if path.is_dir() && !path.is_symlink() {
                fs::remove_dir_all(&path)?;
            } else {
                fs::remove_file(&path)?;
            }
        }
        for (rel, mode, entry) in &self.entries {
            let path = root.join(rel);
            match entry {
                Entry::Dir => fs::create_dir(&path)?,
                Entry::File(bytes) => {
                    fs::write(&path, bytes)?;
                    set_permissions(&path, *mode)?;
                }
                Entry::Link(target) => link(target, &path)?,
            }
        }
        for (rel, mode, entry) in self.entries.iter().rev() {
            if matches!(entry, Entry::Dir) {
                set_permissions(&root.join(rel), *mode)?;
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
pub(super) fn set_permissions(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
pub(super) fn set_permissions(path: &Path, readonly: u32) -> io::Result<()> {
    let mut permissions = fs::metadata(path)?.permissions();
    permissions.set_readonly(readonly != 0);
    fs::set_permissions(path, permissions)
}

#[cfg(unix)]
pub(super) fn link(target: &Path, path: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

#[cfg(not(unix))]
pub(super) fn link(_target: &Path, _path: &Path) -> io::Result<()> {
    Err(io::Error::other("symbolic links are not laid down here"))
}
