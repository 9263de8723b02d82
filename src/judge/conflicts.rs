//! Hooks of two plugins installed together (see [`crate::host::conflicts`]):
//! whether uninstalling one took the other's entries with it.
//!
//! A file's entries are its JSON leaves, each with its path (array indexes
//! left out, so that removing another plugin's element does not move them),
//! or its lines when it is not JSON. What the second plugin's install added
//! must all still be there after the first plugin's uninstall.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::running::sandbox::Sandbox;

/// Files larger than this are compared by their size only.
const MAX_READ: u64 = 1 << 20;

/// A sandbox's files: path (`<repo>/...`, `~/...`), and bytes.
pub type Files = BTreeMap<String, Vec<u8>>;

/// The files of the repository (its `.git/hooks` included, the rest of
/// `.git` not) and of HOME, named `<repo>/...` and `~/...`.
pub fn files(sandbox: &Sandbox) -> Files {
    let mut files = Files::new();
    let (repo, home) = (sandbox.repo(), sandbox.home());
    walk(&repo, &repo, "<repo>", &mut files);
    walk(&home, &home, "~", &mut files);
    let hooks = repo.join(".git").join("hooks");
    walk(&repo, &hooks, "<repo>", &mut files);
    files
}

fn walk(top: &Path, dir: &Path, label: &str, files: &mut Files) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if dir == top && entry.file_name() == ".git" {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(top, &path, label, files);
        } else if kind.is_file() {
            let rel = path.strip_prefix(top).unwrap_or(&path);
            let rel = format!("{label}/{}", rel.to_string_lossy().replace('\\', "/"));
            let bytes = match entry.metadata() {
                Ok(meta) if meta.len() > MAX_READ => format!("{} bytes", meta.len()).into_bytes(),
                _ => fs::read(&path).unwrap_or_default(),
            };
            files.insert(rel, bytes);
        }
    }
}

/// The files an install created or changed, between `before` and `after`.
pub fn touched(before: &Files, after: &Files) -> Vec<String> {
    after
        .iter()
        .filter(|(rel, bytes)| before.get(*rel) != Some(*bytes))
        .map(|(rel, _)| rel.clone())
        .collect()
}

/// For each file the second install changed (between `before` and
/// `installed`), the entries it added that are gone in `after`; one line
/// per file that lost any.
pub fn lost_entries(before: &Files, installed: &Files, after: &Files) -> Vec<String> {
    let mut lost = Vec::new();
    for rel in touched(before, installed) {
        let was = before.get(&rel).map(|b| entries(b)).unwrap_or_default();
        let added = minus(&entries(&installed[&rel]), &was);
        if added.is_empty() {
            continue;
        }
        let Some(now) = after.get(&rel) else {
            lost.push(format!(
                "{rel} was deleted, with its {} entries",
                count(&added)
            ));
            continue;
        };
        let gone = minus(&added, &entries(now));
        if let Some(first) = gone.keys().next() {
            lost.push(format!(
                "{rel} lost {} of the {} entries it added ({first})",
                count(&gone),
                count(&added)
            ));
        }
    }
    lost
}

/// Entries with how often each occurs.
type Bag = BTreeMap<String, usize>;

fn count(bag: &Bag) -> usize {
    bag.values().sum()
}

fn minus(a: &Bag, b: &Bag) -> Bag {
    a.iter()
        .filter_map(|(k, n)| {
            let left = n.saturating_sub(b.get(k).copied().unwrap_or(0));
            (left > 0).then(|| (k.clone(), left))
        })
        .collect()
}

/// A file's entries: its JSON leaves, else its non-blank lines.
fn entries(bytes: &[u8]) -> Bag {
    let mut bag = Bag::new();
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => leaves(&value, String::new(), &mut bag),
        Err(_) => {
            for line in String::from_utf8_lossy(bytes).lines() {
                if !line.trim().is_empty() {
                    *bag.entry(line.trim().to_string()).or_default() += 1;
                }
            }
        }
    }
    bag
}

fn leaves(value: &Value, path: String, bag: &mut Bag) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                leaves(v, format!("{path}.{key}"), bag);
            }
        }
        Value::Array(items) => {
            for v in items {
                leaves(v, format!("{path}[]"), bag);
            }
        }
        leaf => *bag.entry(format!("{path}={leaf}")).or_default() += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(rel: &str, text: &str) -> Files {
        Files::from([(rel.to_string(), text.as_bytes().to_vec())])
    }

    #[test]
    fn an_uninstall_that_keeps_the_others_entries_loses_nothing() {
        let a = one(
            "f",
            r#"{"hooks":{"Stop":[{"command":"entire hooks a stop"}]}}"#,
        );
        let ab = one(
            "f",
            r#"{"hooks":{"Stop":[{"command":"entire hooks a stop"},{"command":"entire hooks b stop"}]}}"#,
        );
        let b = one(
            "f",
            r#"{"hooks":{"Stop":[{"command":"entire hooks b stop"}]}}"#,
        );
        assert!(lost_entries(&a, &ab, &b).is_empty());
    }

    #[test]
    fn an_uninstall_that_sweeps_every_entire_hook_is_caught() {
        let a = one(
            "f",
            r#"{"hooks":{"Stop":[{"command":"entire hooks a stop"}]}}"#,
        );
        let ab = one(
            "f",
            r#"{"hooks":{"Stop":[{"command":"entire hooks a stop"},{"command":"entire hooks b stop"}]}}"#,
        );
        let swept = one("f", r#"{"hooks":{"Stop":[]}}"#);
        let lost = lost_entries(&a, &ab, &swept);
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert!(lost[0].contains("entire hooks b stop"), "{lost:?}");
        assert_eq!(lost_entries(&a, &ab, &Files::new()).len(), 1);
    }

    #[test]
    fn lines_of_a_text_file_count_as_entries() {
        let ab = one("hook", "#!/bin/sh\nentire hooks a x\nentire hooks b x\n");
        let a_only = one("hook", "#!/bin/sh\nentire hooks a x\n");
        assert!(
            lost_entries(&a_only, &ab, &one("hook", "#!/bin/sh\nentire hooks b x\n")).is_empty()
        );
        assert_eq!(
            lost_entries(&a_only, &ab, &one("hook", "#!/bin/sh\n")).len(),
            1
        );
    }
}
