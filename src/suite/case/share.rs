//! Which cases may share answers: those that begin the same way.
//!
//! A call's answer is shared only where the host would see no difference:
//! the same command line, environment and stdin, in a sandbox in the same
//! state (`execute::answers` checks that at every call, by the sandbox's
//! print). What the case model decides is only which cases get the
//! chance: those whose first call, and everything the case does before it
//! (its files, its variables, the harness's actions, its work tree), are
//! the same data. They run one after another in one sandbox, renewed
//! between them, so that their first call, and any later one that stays
//! the same, is asked once. Nothing here is a list of cases: a case of a
//! plugin's own shares like the suite's.

use super::Case;

impl Case {
    /// The key of the cases this one may share answers with (see the
    /// module); `None` for a case that always runs alone: the gate, a round
    /// trip (split into units of its own), a host session replay (its calls
    /// are made by the replay, not read from steps), a case without a call,
    /// and one whose first call's stdin arrives late (its timing is the
    /// question).
    pub fn share_key(&self) -> Option<String> {
        if self.gate {
            return None;
        }
        self.lead_key()
    }

    /// The key of the cases a gate's answers are kept for: the gate runs
    /// alone, before every other case, and the group of cases that begin
    /// as it does starts with its answers (`info` asked once more to see
    /// that it is stable is then one call, not two).
    pub fn seed_key(&self) -> Option<String> {
        self.gate.then(|| self.lead_key()).flatten()
    }

    fn lead_key(&self) -> Option<String> {
        if self.property.is_some() || self.replay.is_some() {
            return None;
        }
        let first = self.steps.iter().position(|s| s.value.args.is_some())?;
        if self.steps[first].value.stdin_delay_ms.is_some() {
            return None;
        }
        // A snapshot only reads the sandbox: cases that differ by one before
        // their first call begin the same way.
        let lead: Vec<String> = self.steps[..=first]
            .iter()
            .filter(|s| !matches!(s.value.action, Some(super::Action::Snapshot(_))))
            .map(|s| {
                let v = &s.value;
                format!(
                    "{:?} {:?} {:?} {:?} {:?}",
                    v.action, v.args, v.stdin, v.for_each, v.host_call
                )
            })
            .collect();
        let transcripts = self.for_each_transcript.as_ref().map(|e| &e.generic);
        Some(format!(
            "{:?} {:?} {:?} {:?} {}",
            self.work_tree,
            self.files,
            self.env,
            transcripts,
            lead.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::Case;

    fn case(yaml: &str) -> Case {
        serde_saphyr::from_str(yaml).expect("a valid case")
    }

    #[test]
    fn cases_that_begin_with_the_same_call_share_a_key() {
        let a = case("id: a\ntitle: t\nsteps:\n  - args: [info]\n");
        let b = case(
            "id: b\ntitle: u\nsteps:\n  - args: [info]\n    expect: {exit: any}\n  - args: [detect]\n",
        );
        let c = case("id: c\ntitle: t\nsteps:\n  - args: [detect]\n");
        let late = case(
            "id: d\ntitle: t\nsteps:\n  - args: [info]\n    stdin: {text: x}\n    stdin_delay_ms: 10\n",
        );
        assert_eq!(a.share_key(), b.share_key());
        assert_ne!(a.share_key(), c.share_key());
        assert_eq!(late.share_key(), None);
    }

    #[test]
    fn a_snapshot_before_the_first_call_changes_nothing() {
        let plain = case("id: a\ntitle: t\nsteps:\n  - args: [install-hooks]\n");
        let snapshot = case(
            "id: b\ntitle: t\nsteps:\n  - action: {snapshot: before}\n  - args: [install-hooks]\n",
        );
        let planted = case(
            "id: c\ntitle: t\nsteps:\n  - action: plant_protected_dirs\n  - args: [install-hooks]\n",
        );
        assert_eq!(plain.share_key(), snapshot.share_key());
        assert_ne!(plain.share_key(), planted.share_key());
    }
}
