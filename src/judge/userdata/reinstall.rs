//! A second `install-hooks` over the first: what it changed, and whether
//! a hook entry was added (a hook that fires twice) or only a marker of the
//! plugin's own rewritten (docs/host.md "What each answer costs the user":
//! install-hooks twice).

use std::collections::BTreeMap;
use std::fs;

use super::{Entry, Tree, UserData, hook_marks, scan};
use crate::judge::checks::Finding;
use crate::running::sandbox::Sandbox;

impl UserData {
    /// A failure when any file was created, changed or deleted since the
    /// snapshot `since` (a second install-hooks must leave every file as
    /// the first left it: a duplicated hook entry fires every hook twice).
    pub fn unchanged(&self, since: &str, sandbox: &Sandbox) -> Vec<Finding> {
        let Some(before) = self.snapshots.get(since) else {
            return vec![Finding::failure(format!("no snapshot named {since:?}"))];
        };
        let now = scan(sandbox);
        let files = |tree: &Tree| -> BTreeMap<String, u64> {
            tree.iter()
                .filter_map(|(rel, e)| match e {
                    Entry::File(h) => Some((rel.clone(), *h)),
                    Entry::Dir(_) => None,
                })
                .collect()
        };
        let (was, is) = (files(before), files(&now));
        let mut changes = Vec::new();
        for (rel, hash) in &is {
            match was.get(rel) {
                None => changes.push(format!("{rel} (created)")),
                Some(h) if h != hash => changes.push(format!("{rel} (changed)")),
                _ => {}
            }
        }
        changes.extend(
            was.keys()
                .filter(|r| !is.contains_key(*r))
                .map(|r| format!("{r} (deleted)")),
        );
        if changes.is_empty() {
            return Vec::new();
        }
        if !self.entire_grew(since, &was, &is, sandbox) {
            // A marker of the plugin's own rewritten (a new timestamp, the
            // same entries): no hook is doubled, nothing fires twice.
            return vec![
                Finding::note(format!(
                    "the second install-hooks rewrote {}, adding no hook entry: nothing fires \
                     twice (a file left as it was spares the user a diff)",
                    changes.join(", ")
                ))
                .rests_on(crate::outcome::finding::Evidence::OwnAnswers),
            ];
        }
        let doubled = self.doubled_marks(since, sandbox);
        vec![Finding::failure(format!(
            "the second install-hooks changed what the first had installed: {}{doubled}; \
             hooks must be installed once (a duplicated entry makes the agent fire the hook \
             twice: a doubled TurnStart records the prompt twice and restarts the turn)",
            changes.join(", ")
        ))]
    }

    /// Whether the files changed since the snapshot `since` mention Entire
    /// (`entire hooks`, `entire-agent-…`) more often now than then: a
    /// second install that added an entry, in a file or as a new file
    /// (a hook that fires twice). A rewrite that mentions it as often (a
    /// marker with a new timestamp) did not.
    fn entire_grew(
        &self,
        since: &str,
        was: &BTreeMap<String, u64>,
        is: &BTreeMap<String, u64>,
        sandbox: &Sandbox,
    ) -> bool {
        let texts = self.texts.get(since);
        let count = |text: &str| text.matches("entire").count();
        let mut before = 0;
        let mut after = 0;
        for rel in was.keys().chain(is.keys()) {
            if was.get(rel) == is.get(rel) {
                continue;
            }
            if was.contains_key(rel) {
                match texts.and_then(|t| t.get(rel)) {
                    Some(text) => before += count(text),
                    // A file too large to keep, or not text: cannot tell.
                    None => return true,
                }
            }
            if is.contains_key(rel) {
                match fs::read_to_string(sandbox.root().join(rel)) {
                    Ok(text) => after += count(&text),
                    Err(_) => return true,
                }
            }
        }
        after > before
    }

    /// ", hook entries doubled in FILE (N → M)" when a file holds more hook
    /// entries now than at snapshot `since`.
    fn doubled_marks(&self, since: &str, sandbox: &Sandbox) -> String {
        let was = self.marks.get(since).cloned().unwrap_or_default();
        let now = hook_marks(&scan(sandbox), sandbox);
        now.iter()
            .filter(|(rel, n)| was.get(*rel).is_some_and(|w| *n > w))
            .map(|(rel, n)| format!("; hook entries in {rel}: {} before, {n} now", was[rel]))
            .collect()
    }
}
