//! User-data preservation: the harness actions behind the hook lifecycle
//! cases.
//!
//! The guide's first rule of hook installation is "preserve unknown fields -
//! don't destroy user's custom hooks or settings". No single invocation shows
//! whether a plugin keeps it, so the harness plays the user: it snapshots the
//! sandbox, plants its own files and JSON keys wherever the install wrote, and
//! checks after a re-install and an uninstall that all of it is still there.
//! A second pass starts over with every file the install touched already
//! holding the user's content in that file's format (`judge::planted`).
//! Paths that mention `entire` are the plugin's own (the guide's plugin-file
//! pattern, `.pi/extensions/entire/index.ts`), and so are the files a
//! plugin's case files name in `own_files:` (docs/host.md "Plugins in the
//! wild": a state file of the plugin's own), so nothing is planted there.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::host::hooks::UNINSTALL_FLOWS;
use crate::judge::checks::Finding;
use crate::judge::formats::{self, Format};
use crate::judge::moved;
use crate::judge::planted::{self, Expect};
use crate::outcome::kind::Kind;
use crate::running::sandbox::Sandbox;

mod reinstall;

/// The name of the file the harness plants as the user's.
pub const USER_FILE: &str = "agent-conform-user-file.txt";
/// Its content.
const USER_FILE_CONTENT: &str = "written by the user; a plugin must never remove or change it\n";
/// The key the harness adds to JSON settings files as the user's own.
pub const USER_KEY: &str = "agent_conform_user_key";
/// Its value.
const USER_VALUE: &str = "the user's own setting: keep me";

/// What a path held at snapshot time.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir(BTreeSet<String>),
    File(u64),
}

/// A snapshot: sandbox-relative path (`nest/repo/...`, `home/...`) to entry.
type Tree = BTreeMap<String, Entry>;

pub use crate::host::invocation::HOOK_MARK;

/// The user data of one case.
#[derive(Debug, Default)]
pub struct UserData {
    snapshots: BTreeMap<String, Tree>,
    /// Per snapshot, the number of hook entries in each file that has any.
    marks: BTreeMap<String, BTreeMap<String, usize>>,
    /// Per snapshot, the text of each file (small text files only), to
    /// tell what an install added to a file (`written_between`).
    texts: BTreeMap<String, BTreeMap<String, String>>,
    files: BTreeSet<PathBuf>,
    /// JSON files holding the user key: path and whether the user had the
    /// file before the plugin touched it.
    keys: BTreeMap<PathBuf, bool>,
    /// Every file the install created or changed (sandbox-relative), with
    /// what the plugin wrote there, except the plugin's own.
    learnt: BTreeMap<String, String>,
    /// The user's files in their formats, planted before an install: path,
    /// sandbox-relative path, format and what must stay.
    planted: BTreeMap<PathBuf, (String, Format, Expect)>,
    /// The bytes of each planted file, to find them again when the install
    /// moves the file aside (`judge::moved`).
    originals: BTreeMap<PathBuf, String>,
    /// The planted files an install moved aside, and where to.
    moved: BTreeMap<PathBuf, PathBuf>,
    /// The files that are the plugin's alone (`own_files:`), sandbox-relative;
    /// one ending in `/` holds every path beneath it.
    own: Vec<String>,
    /// Where a moved user's file is looked for beyond its own directory:
    /// the sandbox's repository, git hooks and home.
    roots: Vec<PathBuf>,
}

impl UserData {
    /// Names the files that are the plugin's alone (`own_files:` of case
    /// files: `{{repo}}/...` or `{{home}}/...`, a directory ending in `/`):
    /// nothing of the user's is planted in them.
    pub fn set_own_files(&mut self, own: &[String], sandbox: &Sandbox) {
        let rel = |p: PathBuf| relative(sandbox.root(), &p);
        self.own = own
            .iter()
            .map(|o| {
                o.replace("{{repo}}", &rel(sandbox.repo()))
                    .replace("{{home}}", &rel(sandbox.home()))
            })
            .collect();
    }

    fn is_own(&self, rel: &str) -> bool {
        mentions_entire(rel)
            || self
                .own
                .iter()
                .any(|o| o == rel || (o.ends_with('/') && rel.starts_with(o.as_str())))
    }

    /// Records the current tree under `name`.
    pub fn snapshot(&mut self, name: &str, sandbox: &Sandbox) {
        let tree = scan(sandbox);
        self.marks
            .insert(name.to_string(), hook_marks(&tree, sandbox));
        self.texts.insert(name.to_string(), texts(&tree, sandbox));
        self.snapshots.insert(name.to_string(), tree);
    }

    /// The files created or changed between the snapshots `before` and
    /// `after`, with their texts then, and whether each is executable now;
    /// `None` when either snapshot is missing.
    pub fn written_between(
        &self,
        before: &str,
        after: &str,
        sandbox: &Sandbox,
    ) -> Option<Vec<crate::judge::hookfire::Written>> {
        let (was, is) = (self.snapshots.get(before)?, self.snapshots.get(after)?);
        let (was_text, is_text) = (self.texts.get(before)?, self.texts.get(after)?);
        let written = is
            .iter()
            .filter(|(rel, e)| matches!(e, Entry::File(_)) && was.get(*rel) != Some(*e))
            .filter_map(|(rel, _)| {
                Some(crate::judge::hookfire::Written {
                    rel: rel.clone(),
                    before: was_text.get(rel).cloned(),
                    after: is_text.get(rel)?.clone(),
                    executable: is_executable(&sandbox.root().join(rel)),
                })
            })
            .collect();
        Some(written)
    }

    /// After an uninstall: a failure for every hook entry that the install
    /// added (between the snapshots `before` and `installed`) and that is
    /// still there; a note when the install added no recognisable entry.
    pub fn hooks_removed(&self, before: &str, installed: &str, sandbox: &Sandbox) -> Vec<Finding> {
        let (Some(was), Some(added)) = (self.marks.get(before), self.marks.get(installed)) else {
            return vec![Finding::failure(format!(
                "no snapshots named {before:?} and {installed:?}"
            ))];
        };
        let grew = |rel: &String, n: usize| n > was.get(rel).copied().unwrap_or(0);
        if !added.iter().any(|(rel, n)| grew(rel, *n)) {
            return vec![Finding::note(format!(
                "install-hooks added no line running `{} <agent> <hook>` that the harness could \
                 find, so only are-hooks-installed says whether the hooks are gone",
                HOOK_MARK.trim_end()
            ))];
        }
        let left: Vec<String> = hook_marks(&scan(sandbox), sandbox)
            .into_iter()
            .filter(|(rel, n)| grew(rel, *n))
            .map(|(rel, n)| format!("{rel} ({n} hook entries)"))
            .collect();
        if left.is_empty() {
            return Vec::new();
        }
        vec![Finding::failure(format!(
            "uninstall-hooks exited 0 but left hook entries of the plugin in {}: the host \
             reports \"Removed\" and never asks again, so the leftover hooks keep creating \
             checkpoints after the agent is removed in {UNINSTALL_FLOWS}, or fail on every \
             agent event once Entire is disabled",
            left.join(", ")
        ))]
    }

    /// The files (sandbox-relative) in which the hook entries grew between
    /// the snapshots `before` and `installed`; `None` when either is missing.
    pub fn hook_files_added(&self, before: &str, installed: &str) -> Option<Vec<String>> {
        let (was, added) = (self.marks.get(before)?, self.marks.get(installed)?);
        Some(
            added
                .iter()
                .filter(|(rel, n)| **n > was.get(*rel).copied().unwrap_or(0))
                .map(|(rel, _)| rel.clone())
                .collect(),
        )
    }

    /// The files (not the plugin's own) that the install wrote between the
    /// snapshots `before` and `installed` and that hold one of its `entire
    /// hooks` commands, with what it wrote; `None` when a snapshot is
    /// missing.
    pub fn hook_files(
        &self,
        before: &str,
        installed: &str,
        sandbox: &Sandbox,
    ) -> Option<Vec<(String, String)>> {
        let written = self.written_between(before, installed, sandbox)?;
        Some(
            written
                .into_iter()
                .filter(|w| !self.is_own(&w.rel) && w.after.contains(HOOK_MARK))
                .map(|w| (w.rel, w.after))
                .collect(),
        )
    }

    /// A user file in each protected dir of `info`, before the install.
    pub fn plant_protected_dirs(&mut self, info: &Value, sandbox: &Sandbox) -> Vec<Finding> {
        let dirs = info
            .pointer("/protected_dirs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut findings = Vec::new();
        for dir in dirs.iter().filter_map(Value::as_str) {
            if Path::new(dir).is_absolute() || dir.split(['/', '\\']).any(|c| c == "..") {
                continue;
            }
            let path = sandbox.repo().join(dir);
            if let Err(err) = self.plant_file(&path) {
                findings.push(harness_problem(&path, &err));
            }
        }
        findings
    }

    /// Plants user files and keys wherever the tree changed since `since`.
    pub fn plant_since(&mut self, since: &str, sandbox: &Sandbox) -> Vec<Finding> {
        let Some(before) = self.snapshots.get(since).cloned() else {
            return vec![Finding::failure(format!("no snapshot named {since:?}"))];
        };
        let now = scan(sandbox);
        let mut findings = Vec::new();
        for (rel, entry) in &now {
            if before.get(rel) == Some(entry) || self.is_own(rel) {
                continue;
            }
            let path = sandbox.root().join(rel);
            if matches!(entry, Entry::File(_))
                && let Ok(text) = fs::read_to_string(&path)
            {
                self.learnt.insert(rel.clone(), text);
            }
            let planted = match entry {
                Entry::Dir(_) => self.plant_file(&path),
                Entry::File(_) => self.plant_key(&path, before.contains_key(rel)),
            };
            if let Err(err) = planted {
                findings.push(harness_problem(&path, &err));
            }
        }
        findings
    }

    fn plant_file(&mut self, dir: &Path) -> std::io::Result<()> {
        fs::create_dir_all(dir)?;
        let file = dir.join(USER_FILE);
        if self.files.insert(file.clone()) {
            fs::write(&file, USER_FILE_CONTENT)?;
        }
        Ok(())
    }

    /// Adds the user key to a JSON object file; other files are left alone.
    fn plant_key(&mut self, path: &Path, existed: bool) -> std::io::Result<()> {
        let Ok(text) = fs::read(path) else {
            return Ok(());
        };
        let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(&text) else {
            return Ok(());
        };
        map.insert(USER_KEY.to_string(), Value::String(USER_VALUE.to_string()));
        let pretty =
            serde_json::to_string_pretty(&Value::Object(map)).map_err(std::io::Error::other)?;
        fs::write(path, pretty + "\n")?;
        self.keys.entry(path.to_path_buf()).or_insert(existed);
        Ok(())
    }

    /// Every planted file unchanged, every planted key still there. While
    /// the plugin is installed (`installed`), a user's line may hold the
    /// plugin's item added in place; after the uninstall the user's lines
    /// must be back as they were.
    pub fn verify(&mut self, installed: bool) -> Vec<Finding> {
        let mut findings = Vec::new();
        for file in &self.files {
            match fs::read(file) {
                Ok(bytes) if bytes == USER_FILE_CONTENT.as_bytes() => {}
                Ok(_) => findings.push(lost(file, "the user's file was changed")),
                Err(_) => findings.push(lost(file, "the user's file was deleted")),
            }
        }
        for (file, existed) in &self.keys {
            match fs::read(file) {
                Err(_) if !existed => {}
                Err(_) => findings.push(lost(file, "the user's own settings file was deleted")),
                Ok(bytes) => {
                    let value = serde_json::from_slice::<Value>(&bytes).ok();
                    let kept = value.as_ref().and_then(|v| v.get(USER_KEY))
                        == Some(&Value::String(USER_VALUE.to_string()));
                    if !kept {
                        findings.push(lost(
                            file,
                            &format!("the user's key {USER_KEY:?} is gone from this settings file"),
                        ));
                    }
                }
            }
        }
        findings.extend(self.verify_planted(installed));
        findings
    }

    /// Every planted file still there with every key, item and line of the
    /// user's, or moved aside whole while the plugin's hook is in its place
    /// and back exactly as it was once the plugin's hook is gone.
    fn verify_planted(&mut self, installed: bool) -> Vec<Finding> {
        let mut findings = Vec::new();
        for (path, (rel, format, expect)) in &self.planted {
            let original = self.originals.get(path).map_or(&[][..], |t| t.as_bytes());
            let Ok(text) = fs::read_to_string(path) else {
                let to = self.moved.get(path).cloned().or_else(|| {
                    moved::find(path, original, &self.roots).filter(|_| original.starts_with(b"#!"))
                });
                findings.push(match to {
                    Some(to) => not_moved_back(rel, &moved::shown(rel, path, &to)),
                    None => lost(path, "the user's own file was deleted"),
                });
                continue;
            };
            let losses = planted::losses(*format, expect, &text);
            let moved_aside = self.moved.contains_key(path);
            let original_text = String::from_utf8_lossy(original);
            let changed = match installed {
                true => planted::first_line_not_kept(*format, &original_text, &text),
                false => planted::first_changed_line(*format, &original_text, &text),
            };
            if let (true, false, Some((n, line))) = (losses.is_empty(), moved_aside, changed) {
                findings.push(rewritten(rel, *format, n, &line));
                continue;
            }
            if losses.is_empty() {
                if self.moved.contains_key(path) && text.as_bytes() != original {
                    findings.push(
                        Finding::failure(format!(
                            "user data changed in {rel}: the user's own file, moved aside by the \
                             install, is back with other bytes than the user's (a moved hook must \
                             come back exactly as it was)"
                        ))
                        .kind(Kind::UserData),
                    );
                }
                continue;
            }
            // Only a hook script is chained; a config moved aside is not read.
            let script = original.starts_with(b"#!");
            if let Some(to) = moved::find(path, original, &self.roots).filter(|_| script) {
                if !moved::chains(path, &to, &text) {
                    findings.push(unchained(rel, &moved::shown(rel, path, &to)));
                }
                self.moved.insert(path.clone(), to);
                continue;
            }
            findings.push(Finding::failure(format!(
                "user data lost in {rel} ({format}, the user's own file before the install): {} \
                 (the guide: never destroy a user's own hooks or settings; a plugin must merge \
                 its entries into the file and take out only its own)",
                planted::summary(&losses)
            )).kind(Kind::UserData));
        }
        findings
    }

    /// Files created since `since` that are still there and are not the user's.
    pub fn leftovers(&self, since: &str, sandbox: &Sandbox) -> Vec<Finding> {
        let Some(before) = self.snapshots.get(since) else {
            return vec![Finding::failure(format!("no snapshot named {since:?}"))];
        };
        let now = scan(sandbox);
        let left: Vec<&String> = now
            .iter()
            .filter(|(rel, entry)| matches!(entry, Entry::File(_)) && !before.contains_key(*rel))
            .map(|(rel, _)| rel)
            .filter(|rel| {
                let path = sandbox.root().join(rel);
                !self.files.contains(&path)
                    && !self.keys.contains_key(&path)
                    && !self.planted.contains_key(&path)
            })
            .collect();
        if left.is_empty() {
            return Vec::new();
        }
        let repo = sandbox.repo().display().to_string();
        let home = sandbox.home();
        let (agents, others): (Vec<String>, Vec<String>) =
            left.iter().map(|s| s.to_string()).partition(|rel| {
                let path = sandbox.root().join(rel);
                path.starts_with(&home)
                    && agents_own_file(rel, &fs::read(&path).unwrap_or_default(), &repo)
            });
        let mut findings = Vec::new();
        if !others.is_empty() {
            findings.push(Finding::warning(format!(
                "uninstall-hooks left behind files that install-hooks created: {}",
                others.join(", ")
            )));
        }
        if !agents.is_empty() {
            findings.push(
                Finding::note(format!(
                    "uninstall-hooks left {} under HOME, which install-hooks created in this empty \
                     HOME: the agent's own file, which a user of the agent already has, now \
                     holding nothing of the plugin's (no hook of its, no path of this repository): \
                     nothing of the install is left in it",
                    agents.join(", ")
                ))
                .kind(Kind::UserData)
                .rests_on(crate::outcome::evidence::Evidence::OwnAnswers),
            );
        }
        findings
    }

    /// Starts over in an empty repository and HOME that already hold every
    /// file the install touched, each with the user's own content in its
    /// format (git hooks included: `.git` stays, so they are overwritten).
    pub fn restart_with_learnt(&mut self, sandbox: &Sandbox) -> Vec<Finding> {
        let learnt = self.learnt.clone();
        self.restart_with(sandbox, learnt)
    }

    /// Whether the install wrote a hook config the user may share: a file
    /// (not the plugin's own) holding one of its `entire hooks` commands.
    /// A file that holds none (a marker of the plugin's own, one hook the
    /// agent reads as data) has no list of the plugin's hooks beside which
    /// a user keeps theirs.
    pub fn learnt_hook_config(&self) -> bool {
        self.learnt.values().any(|text| text.contains(HOOK_MARK))
    }

    /// [`UserData::restart_with_learnt`] for the hook configs only (see
    /// [`UserData::learnt_hook_config`]): the user's own hooks beside where
    /// the plugin's go.
    pub fn restart_with_user_hooks(&mut self, sandbox: &Sandbox) -> Vec<Finding> {
        let configs = self
            .learnt
            .iter()
            .filter(|(_, text)| text.contains(HOOK_MARK))
            .map(|(rel, text)| (rel.clone(), text.clone()))
            .collect();
        self.restart_with(sandbox, configs)
    }

    fn restart_with(
        &mut self,
        sandbox: &Sandbox,
        learnt: BTreeMap<String, String>,
    ) -> Vec<Finding> {
        if let Err(err) = sandbox.reset() {
            return vec![harness_problem(sandbox.root(), &err)];
        }
        self.files.clear();
        self.keys.clear();
        self.planted.clear();
        self.originals.clear();
        self.moved.clear();
        self.roots = vec![sandbox.repo(), sandbox.home()];
        let mut findings = Vec::new();
        for (rel, plugin_text) in learnt {
            let format = formats::detect(&rel, &plugin_text);
            let Some((text, expect)) = planted::user_file(format, &plugin_text) else {
                continue;
            };
            let path = sandbox.root().join(&rel);
            let written = path
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| fs::write(&path, &text))
                .and_then(|()| executable_like(&path, &plugin_text));
            match written {
                Ok(()) => {
                    self.originals.insert(path.clone(), text);
                    self.planted.insert(path, (rel, format, expect));
                }
                Err(err) => findings.push(harness_problem(&path, &err)),
            }
        }
        findings
    }
}

/// The user's file re-marshalled: its values kept, its bytes not.
fn rewritten(rel: &str, format: Format, n: usize, line: &str) -> Finding {
    Finding::failure(format!(
        "user data rewritten in {rel} ({format}, the user's own file before the install): line \
         {n} of the user's file, `{line}`, is changed or gone, so the file was re-marshalled \
         through a map rather than edited in place: the user's comments, blank lines, key \
         order, anchors and scalar spellings (`on`, `0755`, dates) are lost on every entire \
         enable and disable; add and remove only the plugin's own lines"
    ))
    .kind(Kind::UserData)
}

fn lost(path: &Path, what: &str) -> Finding {
    Finding::failure(format!(
        "user data lost: {what}: {} (the guide: never destroy a user's own hooks or settings)",
        path.display()
    ))
    .kind(Kind::UserData)
}

/// The user's file moved aside to `to` and its place left empty: after the
/// uninstall the user's own hook no longer runs.
fn not_moved_back(rel: &str, to: &str) -> Finding {
    Finding::failure(format!(
        "user data lost: the user's own {rel} was moved aside to {to} by the install and is not \
         back at its place: the user's hook no longer runs (a hook moved aside must be moved \
         back when the plugin's hook goes)"
    ))
    .kind(Kind::UserData)
}

/// The user's file moved aside to `to`, and the hook at its place does not
/// name it: while the plugin is installed the user's own hook stops running.
fn unchained(rel: &str, to: &str) -> Finding {
    Finding::warning(format!(
        "the install moved the user's own {rel} aside to {to} (kept whole) and the hook now at \
         its place does not name it: while Entire is installed the user's own hook does not \
         run (git hook managers chain to the moved hook)"
    ))
    .kind(Kind::UserData)
}

fn harness_problem(path: &Path, err: &std::io::Error) -> Finding {
    Finding::failure(format!(
        "the harness could not plant user data at {}: {err}",
        path.display()
    ))
}

/// Whether a file the install created and the uninstall left is the
/// agent's own, under HOME: not named for Entire (the plugin's own state
/// is), and holding nothing of the plugin's any more (no `entire hooks`
/// line, no path of the repository). A user of the agent already has such
/// a file (its config, its trust list), so an install on a real machine
/// creates nothing there, and the empty HOME here made it.
fn agents_own_file(rel: &str, bytes: &[u8], repo: &str) -> bool {
    let text = String::from_utf8_lossy(bytes);
    !mentions_entire(rel) && !text.contains(HOOK_MARK.trim_end()) && !mentions_path(&text, repo)
}

/// Whether `text` holds `path` as written, or as JSON writers that escape
/// every letter past ASCII write it (`Caf\u00e9`, Python's default).
fn mentions_path(text: &str, path: &str) -> bool {
    let escaped: String = path
        .chars()
        .map(|c| match c.is_ascii() {
            true => c.to_string(),
            false => {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect()
            }
        })
        .collect();
    text.contains(path) || text.contains(&escaped)
}

fn mentions_entire(rel: &str) -> bool {
    rel.to_ascii_lowercase().contains("entire")
}

/// Scans the repository (without `.git`, but with its hooks) and HOME (the
/// XDG directories are in it).
fn scan(sandbox: &Sandbox) -> Tree {
    let mut tree = Tree::new();
    let git_hooks = sandbox.repo().join(".git").join("hooks");
    for top in [sandbox.repo(), git_hooks, sandbox.home()] {
        walk(sandbox.root(), &top, &mut tree);
    }
    tree
}

fn walk(root: &Path, dir: &Path, tree: &mut Tree) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut names = BTreeSet::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == ".git" && dir.ends_with("repo") {
            continue;
        }
        names.insert(name);
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &path, tree);
        } else if kind.is_file() {
            tree.insert(relative(root, &path), Entry::File(hash_file(&path)));
        }
    }
    tree.insert(relative(root, dir), Entry::Dir(names));
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The files of a tree that hold hook entries, and how many each holds.
fn hook_marks(tree: &Tree, sandbox: &Sandbox) -> BTreeMap<String, usize> {
    tree.iter()
        .filter(|(_, e)| matches!(e, Entry::File(_)))
        .filter_map(|(rel, _)| {
            let bytes = fs::read(sandbox.root().join(rel)).ok()?;
            let text = String::from_utf8_lossy(&bytes);
            let n = text.matches(HOOK_MARK).count();
            (n > 0).then(|| (rel.clone(), n))
        })
        .collect()
}

/// The largest file whose text a snapshot keeps.
const TEXT_LIMIT: u64 = 256 * 1024;

/// The text of every small UTF-8 file of a tree.
fn texts(tree: &Tree, sandbox: &Sandbox) -> BTreeMap<String, String> {
    tree.iter()
        .filter(|(_, e)| matches!(e, Entry::File(_)))
        .filter_map(|(rel, _)| {
            let path = sandbox.root().join(rel);
            let small = fs::metadata(&path).ok()?.len() <= TEXT_LIMIT;
            let text = small.then(|| fs::read_to_string(&path).ok()).flatten()?;
            Some((rel.clone(), text))
        })
        .collect()
}

/// Makes the user's file at `path` executable when the plugin's file there
/// was a script (`#!`): the user's own hook script, as a user has it.
fn executable_like(path: &Path, plugin_text: &str) -> std::io::Result<()> {
    #[cfg(unix)]
    if plugin_text.starts_with("#!") {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    }
    let _ = (path, plugin_text);
    Ok(())
}

/// Whether the file at `path` has an execute bit (never on Windows).
fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

fn hash_file(path: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    fs::read(path).unwrap_or_default().hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_path_is_found_as_written_and_escaped_past_ascii() {
        let path = "/s/Café projects/repo";
        assert!(super::mentions_path(
            r#"{"p": "/s/Café projects/repo"}"#,
            path
        ));
        assert!(super::mentions_path(
            r#"{"p": "/s/Caf\u00e9 projects/repo"}"#,
            path
        ));
        assert!(!super::mentions_path(r#"{"p": "/s/other"}"#, path));
    }

    use super::*;
    use crate::host::Severity;

    #[test]
    fn an_install_that_added_no_hook_line_is_a_note_naming_the_command() {
        let base = tempfile::tempdir().expect("dir");
        let sandbox = Sandbox::create("userdata-test", base.path()).expect("sandbox");
        let mut user = UserData::default();
        user.snapshot("before", &sandbox);
        user.snapshot("installed", &sandbox);
        let found = user.hooks_removed("before", "installed", &sandbox);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Note);
        assert!(
            found[0]
                .message
                .contains("no line running `entire hooks <agent> <hook>`"),
            "{}",
            found[0].message
        );
    }
}
