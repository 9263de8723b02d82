//! What the host asks at TurnEnd from the turn's offset (prompts, modified
//! files, tokens) and at SessionEnd, and how the replay judges the
//! hand-over of that offset.

use serde_json::Value;

use crate::execute::session::{OFFSET_FROM_TURN_START, Play, TURN1_FILE};
use crate::host::positions;
use crate::suite::case::Severity;

impl Play<'_, '_> {
    /// What the host asks at TurnEnd from the turn's offset: prompts (when
    /// the turn has none), modified files, tokens.
    pub(super) fn analyse(&mut self, turn: usize, label: &str, session_ref: &str, bytes: &[u8]) {
        self.host_offset();
        let offset = self.offset.to_string();
        if self.prompt.is_empty() && self.declared("transcript_analyzer") {
            let args = vec![
                "extract-prompts".into(),
                "--session-ref".into(),
                session_ref.into(),
                "--offset".into(),
                offset.clone(),
            ];
            if let Some(prompts) = self.list(
                turn,
                &format!("{label} · extract-prompts"),
                args,
                None,
                "extract-prompts",
                "prompts",
            ) {
                self.no_earlier_prompts(turn, &prompts);
            }
        }
        let subagents = self.declared("subagent_aware_extractor");
        let subagents_dir = self.sandbox.work().join("subagents").display().to_string();
        let files = if subagents {
            let _ = std::fs::create_dir_all(&subagents_dir);
            let args = vec![
                "extract-all-modified-files".into(),
                "--offset".into(),
                offset.clone(),
                "--subagents-dir".into(),
                subagents_dir.clone(),
            ];
            let label = format!("{label} · extract-all-modified-files");
            self.list(
                turn,
                &label,
                args,
                Some(bytes.to_vec()),
                "extract-all-modified-files",
                "files",
            )
        } else if self.declared("transcript_analyzer") {
            let args = vec![
                "extract-modified-files".into(),
                "--path".into(),
                session_ref.into(),
                "--offset".into(),
                offset.clone(),
            ];
            let label = format!("{label} · extract-modified-files");
            self.list(turn, &label, args, None, "extract-modified-files", "files")
        } else {
            None
        };
        if let Some(files) = &files {
            self.no_earlier_files(turn, files);
        }
        let changed = files.as_ref().is_none_or(|f| !f.is_empty());
        if changed && !self.stopped {
            self.tokens(turn, label, &offset, bytes, &subagents_dir);
        }
    }

    /// After the session's first checkpoint, the replay passes the host's
    /// own checkpoint start, as the host does after a commit: the line count
    /// it measured at the last condensation (docs/host.md "Positions and
    /// offsets: the host counts lines"). So `--offset N` must mean "skip N
    /// lines". For a transcript that is one JSON document the host's count
    /// is no unit of the plugin's: the plugin's own offset stays.
    fn host_offset(&mut self) {
        self.offset_from = OFFSET_FROM_TURN_START;
        // The last checkpoint before this turn's (pushed just before).
        let Some((_, last)) = self.checkpoints.iter().rev().nth(1) else {
            return;
        };
        let name = self.path();
        if positions::layout(&name, last) != positions::Layout::Jsonl {
            return;
        }
        let Ok(start) = i64::try_from(positions::line_count(last)) else {
            return;
        };
        if self.offset == start {
            return;
        }
        self.offset = start;
        self.offset_from = "the host's checkpoint start (its line count of the transcript at \
                            the last checkpoint, the offset it passes after a commit)";
    }

    /// The plugin's position at TurnStart against the host's line count of
    /// the transcript (docs/host.md "Positions and offsets: the host counts
    /// lines"): another unit for a JSONL transcript is a failure, for one
    /// JSON document a note.
    pub(super) fn host_unit(&mut self, turn: usize, session_ref: &str, position: &Value) {
        let Ok(bytes) = std::fs::read(session_ref) else {
            return;
        };
        let what = format!("turn {turn}'s position (get-transcript-position at TurnStart)");
        // The answer against the file's own lines and bytes: a fact of the
        // plugin's answer, in whatever format the transcript is.
        if let Some((severity, message)) = positions::judge(session_ref, &bytes, position, &what) {
            self.find_own(severity, message);
        }
    }

    /// A list of strings from an analysis answer; `None` when the call
    /// failed (logged by the host) or printed nothing usable.
    fn list(
        &mut self,
        turn: usize,
        label: &str,
        args: Vec<String>,
        stdin: Option<Vec<u8>>,
        schema: &str,
        key: &str,
    ) -> Option<Vec<String>> {
        let answer = self.call(label.to_string(), args, stdin)?;
        if !answer.ok() {
            self.analysis_failed(turn, schema, "the checkpoint is saved without this data");
            return None;
        }
        let json = self.decoded(schema, &answer, Severity::Warning)?;
        let items = json.get(key).and_then(Value::as_array)?;
        Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
        )
    }

    /// Turn N's prompts come from its offset: an earlier turn's prompt there
    /// means the offset from TurnStart was lost.
    fn no_earlier_prompts(&mut self, turn: usize, prompts: &[String]) {
        let leaked: Vec<&String> = self
            .earlier_prompts
            .iter()
            .filter(|earlier| prompts.iter().any(|p| p.contains(earlier.as_str())))
            .collect();
        if let Some(first) = leaked.first() {
            let message = format!(
                "turn {turn}'s checkpoint records an earlier turn's prompt ({first:?}): \
                 extract-prompts did not start at {} ({}), so every checkpoint repeats the \
                 prompts before it",
                self.offset_from, self.offset
            );
            // It read the transcript (it found prompts in it): the offset
            // it did not honour is its own answer's.
            self.find_own(Severity::Failure, message);
        }
    }

    /// On the generic transcript, turn 2 edits only the test file.
    fn no_earlier_files(&mut self, turn: usize, files: &[String]) {
        if self.recorded() || turn < 2 || !files.iter().any(|f| f == TURN1_FILE) {
            return;
        }
        let message = format!(
            "turn {turn}'s checkpoint lists {TURN1_FILE}, which only turn 1 changed: the files \
             were not read from {} ({}), so the checkpoint is attributed files of another turn",
            self.offset_from, self.offset
        );
        self.find_own(Severity::Failure, message);
    }

    /// Token counts, with the transcript on stdin.
    fn tokens(
        &mut self,
        turn: usize,
        label: &str,
        offset: &str,
        bytes: &[u8],
        subagents_dir: &str,
    ) {
        let (subcommand, mut args) = if self.declared("subagent_aware_extractor") {
            let args = vec!["--subagents-dir".to_string(), subagents_dir.to_string()];
            ("calculate-total-tokens", args)
        } else if self.declared("token_calculator") {
            ("calculate-tokens", Vec::new())
        } else {
            return;
        };
        let mut all = vec![
            subcommand.to_string(),
            "--offset".into(),
            offset.to_string(),
        ];
        all.append(&mut args);
        let Some(answer) = self.call(format!("{label} · {subcommand}"), all, Some(bytes.to_vec()))
        else {
            return;
        };
        if !answer.ok() {
            self.analysis_failed(turn, subcommand, "the session's token totals are short");
            return;
        }
        let _ = self.decoded(subcommand, &answer, Severity::Warning);
    }

    /// `SubagentEnd`: the host calls `extract-modified-files --offset 0`
    /// over the subagent's whole transcript (`agent-<subagent_id>.jsonl`
    /// beside the `session_ref` when there is one, else the `session_ref`),
    /// and a failure of it fails the hook (docs/host.md, "The newest host
    /// source", "Subagents"). Only with `transcript_analyzer` declared: the
    /// host calls no undeclared capability.
    pub(super) fn subagent_end(&mut self, hook: &str, session_ref: &str, subagent_id: &str) {
        if session_ref.is_empty() || !self.declared("transcript_analyzer") {
            return;
        }
        let beside = std::path::Path::new(session_ref)
            .parent()
            .map(|dir| dir.join(format!("agent-{subagent_id}.jsonl")))
            .filter(|p| !subagent_id.is_empty() && p.is_file());
        let path = beside.map_or(session_ref.to_string(), |p| p.display().to_string());
        let args = vec![
            "extract-modified-files".into(),
            "--path".into(),
            path,
            "--offset".into(),
            "0".into(),
        ];
        let label = format!(
            "turn {} · hook {hook} (SubagentEnd) · extract-modified-files",
            self.turn
        );
        let Some(answer) = self.call(label, args, None) else {
            return;
        };
        if answer.ok() {
            return;
        }
        // A transcript the plugin already read for a checkpoint is no other
        // agent's format: its refusal now is the plugin's own failure.
        match self.recorded() || !self.checkpoints.is_empty() {
            true => self.find_own(
                Severity::Failure,
                format!(
                    "hook {hook} fails: at SubagentEnd the host calls extract-modified-files \
                     --offset 0 over the subagent's transcript, and it exited {}: the agent \
                     shows a failed hook",
                    answer.code.map_or("by a signal".into(), |c| c.to_string())
                ),
            ),
            false => self.unverified(
                "extract-modified-files --offset 0 (SubagentEnd) refused the generic transcript \
                 (another agent's format)"
                    .to_string(),
            ),
        }
    }

    pub(super) fn session_end(&mut self) {
        let Some((_, bytes)) = self.checkpoints.last().cloned() else {
            return;
        };
        let dir = self.sandbox.work().join("subagents").display().to_string();
        self.tokens(self.turn, "SessionEnd", "0", &bytes, &dir);
    }
}
