//! Plugins on `PATH`, found the way the host finds them: every file named
//! `entire-agent-<name>` in the `PATH` directories, in `PATH` order, the first
//! executable one of a name winning (docs/host.md, "Discovery and
//! registration").

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use super::{PREFIX, agent_name, scans_path_entry};

/// What a `PATH` entry named `entire-agent-*` is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A file with an execute bit (any file, where there are none).
    Executable,
    /// A file without an execute bit: the host cannot run it.
    NotExecutable,
    /// A file without an execute bit that is not a program either: it
    /// starts with neither `#!` nor an executable format's header (a build
    /// artefact such as a compiler's `.d` file). The host treats it as any
    /// file without the bit: it never runs it, and reports it unusable.
    NotAProgram,
    /// A directory.
    Directory,
    /// It could not be read (a dangling link, say).
    Unreadable(String),
}

/// One `entire-agent-*` entry of a `PATH` directory.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The file name, `entire-agent-<name>`.
    pub file_name: String,
    /// The agent name the host registers it under, when it has one.
    pub name: Option<String>,
    /// The full path.
    pub path: PathBuf,
    /// What it is.
    pub kind: Kind,
    /// The `PATH` entry it was found through, as written, when that entry is
    /// relative (`.`, `bin`). The host scans absolute entries only, so it
    /// never sees a file found only this way.
    pub relative_entry: Option<PathBuf>,
}

/// Every `entire-agent-*` entry of the directories in `path_var` (the value
/// of `PATH`), in `PATH` order, by name within a directory. A directory
/// listed twice is read once (once as a relative entry and once as an
/// absolute one, when it is listed both ways); empty and unreadable
/// directories add nothing. Paths are absolute (a relative `PATH` entry is
/// taken from the current directory, and marked in
/// [`Entry::relative_entry`]), since plugins run in sandbox directories.
pub fn scan(path_var: &OsStr) -> Vec<Entry> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut seen = HashSet::new();
    let mut entries = Vec::new();
    for written in std::env::split_paths(path_var) {
        if written.as_os_str().is_empty() {
            continue;
        }
        let relative = !scans_path_entry(&written);
        let dir = cwd.join(&written);
        if !seen.insert((dir.clone(), relative)) {
            continue;
        }
        let relative_entry = relative.then_some(written);
        entries.extend(scan_dir(&dir, relative_entry.as_deref()));
    }
    entries
}

fn scan_dir(dir: &Path, relative_entry: Option<&Path>) -> Vec<Entry> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = read
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(PREFIX))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|file_name| {
            let path = dir.join(&file_name);
            Entry {
                name: agent_name(&path),
                kind: kind(&path),
                file_name,
                path,
                relative_entry: relative_entry.map(Path::to_path_buf),
            }
        })
        .collect()
}

/// What `path` is, following links as the host's exec does.
fn kind(path: &Path) -> Kind {
    match std::fs::metadata(path) {
        Err(err) => Kind::Unreadable(err.to_string()),
        Ok(meta) if meta.is_dir() => Kind::Directory,
        Ok(meta) if is_executable(&meta) => Kind::Executable,
        Ok(_) if is_program(path) => Kind::NotExecutable,
        Ok(_) => Kind::NotAProgram,
    }
}

/// Whether the file starts as a program does: `#!`, or the header of ELF,
/// Mach-O (either byte order, or universal) or PE. A file that cannot be
/// read is given the benefit of the doubt.
fn is_program(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let Ok(mut file) = std::fs::File::open(path) else {
        return true;
    };
    let read = file.read(&mut head).unwrap_or(0);
    let head = &head[..read];
    const MAGICS: [&[u8]; 7] = [
        b"#!",
        b"\x7fELF",
        b"MZ",
        &[0xfe, 0xed, 0xfa, 0xce],
        &[0xfe, 0xed, 0xfa, 0xcf],
        &[0xce, 0xfa, 0xed, 0xfe],
        &[0xcf, 0xfa, 0xed, 0xfe],
    ];
    const UNIVERSAL: &[u8] = &[0xca, 0xfe, 0xba, 0xbe];
    MAGICS
        .iter()
        .chain([&UNIVERSAL])
        .any(|m| head.starts_with(m))
}

/// Whether a file may be executed: on Unix, any execute bit.
#[cfg(unix)]
pub fn is_executable(meta: &Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

/// Whether a file may be executed: anywhere else, any file.
#[cfg(not(unix))]
pub fn is_executable(_meta: &Metadata) -> bool {
    true
}

/// Whether a command-line argument names a plugin rather than a path: it
/// has no path separator, as a shell decides whether to search `PATH`.
pub fn is_bare_name(arg: &Path) -> bool {
    let text = arg.as_os_str().to_string_lossy();
    let separator = text.contains('/') || (cfg!(windows) && text.contains('\\'));
    !text.is_empty() && !separator
}

/// The file name a plugin argument stands for: `foo` and `entire-agent-foo`
/// both mean `entire-agent-foo`.
pub fn file_name_for(arg: &str) -> String {
    if arg.starts_with(PREFIX) {
        arg.to_string()
    } else {
        format!("{PREFIX}{arg}")
    }
}

/// No executable file of the wanted name on `PATH`.
#[derive(Debug)]
pub struct NotFound {
    /// The file name looked for.
    pub file_name: String,
    /// Entries of that name that exist but cannot run (not executable, ...).
    pub unusable: Vec<Entry>,
    /// Every `entire-agent-*` entry on `PATH`.
    pub on_path: Vec<Entry>,
}

/// Finds plugin `arg` (`foo` or `entire-agent-foo`) on `path_var`: the first
/// executable file of that name wins, as in the host.
pub fn lookup(arg: &str, path_var: &OsStr) -> Result<PathBuf, NotFound> {
    let file_name = file_name_for(arg);
    let on_path = scan(path_var);
    let same = |e: &&Entry| {
        e.file_name == file_name || (cfg!(windows) && e.file_name == format!("{file_name}.exe"))
    };
    if let Some(found) = on_path
        .iter()
        .filter(same)
        .find(|e| e.kind == Kind::Executable)
    {
        return Ok(found.path.clone());
    }
    let unusable = on_path.iter().filter(same).cloned().collect();
    Err(NotFound {
        file_name,
        unusable,
        on_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn file(dir: &Path, name: &str, mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[cfg(unix)]
    #[test]
    fn the_first_executable_of_a_name_wins_in_path_order() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        file(a.path(), "entire-agent-foo", 0o644);
        let winner = file(b.path(), "entire-agent-foo", 0o755);
        file(b.path(), "entire-agent-bar", 0o755);
        file(b.path(), "unrelated", 0o755);
        std::fs::create_dir(a.path().join("entire-agent-dir")).unwrap();
        let path = std::env::join_paths([a.path(), b.path(), a.path()]).unwrap();
        assert_eq!(lookup("foo", &path).unwrap(), winner);
        assert_eq!(lookup("entire-agent-foo", &path).unwrap(), winner);
        let missing = lookup("dir", &path).unwrap_err();
        assert_eq!(missing.unusable.len(), 1);
        assert_eq!(missing.unusable[0].kind, Kind::Directory);
        let entries = scan(&path);
        let names: Vec<&str> = entries.iter().map(|e| e.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "entire-agent-dir",
                "entire-agent-foo",
                "entire-agent-bar",
                "entire-agent-foo"
            ]
        );
    }

    #[test]
    fn bare_names_have_no_separator() {
        assert!(is_bare_name(Path::new("entire-agent-foo")));
        assert!(is_bare_name(Path::new("foo")));
        assert!(!is_bare_name(Path::new("./entire-agent-foo")));
        assert!(!is_bare_name(Path::new("/x/entire-agent-foo")));
        assert_eq!(file_name_for("foo"), "entire-agent-foo");
        assert_eq!(file_name_for("entire-agent-foo"), "entire-agent-foo");
    }
}
