//! The real host's commands, as a user runs them (`--host ENTIRE`), and
//! what each of their outcomes says about a finding of the model
//! (docs/verdicts.md, "The host's word"; `../shared/spec/host-behaviour.md`,
//! "Observed on a build of the host", fifth pass).
//!
//! Nothing here runs anything: `execute::host_replay` makes the calls,
//! `judge::host_word` puts the word on the findings; this module says which
//! command to run, how the build is read, and which observation of the
//! host confirms or contradicts which finding ([`WORDS`]).

use crate::host::Severity;
use crate::host::releases::RELEASES;

/// The variables a user's `entire` runs with here: no terminal (so no
/// prompt), no telemetry, no update check (fifth pass, "Setting up").
pub const USER_ENV: &[(&str, &str)] = &[
    ("ENTIRE_TEST_TTY", "0"),
    ("ENTIRE_TELEMETRY_OPTOUT", "1"),
    ("ENTIRE_NO_AUTO_UPDATE", "1"),
];

/// The ref where the host keeps its checkpoints.
pub const CHECKPOINT_REF: &str = "entire/checkpoints/v1";

/// The file a checkpoint's session folder holds its transcript in.
pub const CHECKPOINT_TRANSCRIPT: &str = "full.jsonl";

/// The local settings file that, created before the first enable, leaves
/// the git hooks inert (fifth pass): a user following the docs has none.
pub const LOCAL_SETTINGS: &str = ".entire/settings.local.json";

/// The build `entire version` names, as the replay runs it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Build {
    /// The first line of `entire version` (`Entire CLI 0.6.3-nightly...`).
    pub line: String,
    /// The known release it is run as.
    pub run_as: &'static str,
    /// Why it is run as another release than it names, when it is (a
    /// `dev` or nightly build, a release newer than the table).
    pub unknown: Option<String>,
}

/// Reads `entire version`'s output: a release of [`RELEASES`] is run as
/// itself; anything else (`dev`, a nightly or dirty build, a release the
/// table does not have) as the newest known release, said so.
pub fn build(version_output: &str) -> Build {
    let line = version_output
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string();
    let newest = RELEASES.last().map_or("unknown", |r| r.name);
    // The version is the first word that starts with a digit (`0.6.3`,
    // `v0.10.3`, `0.6.3-nightly...`), else the last (`dev`).
    let word = line
        .split_whitespace()
        .map(|w| w.strip_prefix('v').unwrap_or(w))
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .or_else(|| line.split_whitespace().last())
        .unwrap_or("");
    let numbers: Vec<u64> = word.split('.').map_while(|n| n.parse().ok()).collect();
    let known = match numbers.as_slice() {
        [major, minor, patch] => RELEASES
            .iter()
            .find(|r| r.version == (*major, *minor, *patch) || (r.family && r.version.1 == *minor)),
        _ => None,
    };
    match known {
        Some(release) => Build {
            line,
            run_as: release.name,
            unknown: None,
        },
        None => {
            let what = if word.is_empty() {
                "a build that names no version".to_string()
            } else {
                format!("{word:?}, not a release agent-conform knows (a dev or nightly build)")
            };
            Build {
                line,
                run_as: newest,
                unknown: Some(format!("{what}: run as the newest known release, {newest}")),
            }
        }
    }
}

/// `entire version`.
pub fn version_args() -> Vec<String> {
    words(&["version"])
}

/// `entire enable --agent <name>`, non-interactive (fifth pass).
pub fn enable_args(agent: &str) -> Vec<String> {
    words(&["enable", "--agent", agent])
}

/// `entire hooks <agent> <hook>`, the payload on stdin.
pub fn hook_args(agent: &str, hook: &str) -> Vec<String> {
    words(&[crate::host::hooks::HOOKS_SUBCOMMAND, agent, hook])
}

/// `entire session resume <branch> --force`.
pub fn resume_args(branch: &str) -> Vec<String> {
    words(&["session", "resume", branch, "--force"])
}

/// `entire rewind --list` (JSON on stdout).
pub fn rewind_list_args() -> Vec<String> {
    words(&["rewind", "--list"])
}

/// `entire rewind --to <checkpoint>`.
pub fn rewind_to_args(checkpoint: &str) -> Vec<String> {
    words(&["rewind", "--to", checkpoint])
}

/// `entire disable --uninstall --force`: calls no plugin (fifth pass).
pub fn disable_args() -> Vec<String> {
    words(&["disable", "--uninstall", "--force"])
}

/// `entire session attach <id> --agent <name>`, for a plugin without hooks.
pub fn attach_args(session: &str, agent: &str) -> Vec<String> {
    words(&["session", "attach", session, "--agent", agent, "--force"])
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| w.to_string()).collect()
}

/// The checkpoint ids `entire rewind --list` names (its JSON list's `id`),
/// newest first, as the host lists them.
pub fn rewind_points(stdout: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(stdout);
    // The list is the JSON after any line the host prints first.
    let start = text.find('[').unwrap_or(text.len());
    let list: Vec<serde_json::Value> = serde_json::from_str(&text[start..]).unwrap_or_default();
    list.iter()
        .filter_map(|p| p.get("id").and_then(|v| v.as_str()).map(str::to_string))
        .collect()
}

/// The file a resume or rewind says it wrote: `Writing transcript to:
/// <path>` on its stdout (fifth pass build).
pub fn written_file(stdout: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stdout).lines().find_map(|l| {
        l.trim()
            .strip_prefix("Writing transcript to:")
            .map(|p| p.trim().to_string())
    })
}

/// How many `entire hooks <agent> ` commands `text` holds: the hook lines
/// an agent's config keeps.
pub fn hook_lines(text: &str, agent: &str) -> Vec<String> {
    let needle = format!("entire hooks {agent} ");
    let mut hooks = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        let hook: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "-_.:".contains(*c))
            .collect();
        if !hook.is_empty() {
            hooks.push(hook);
        }
    }
    hooks
}

/// What the replay saw the host do: each field `None` when the replay did
/// not get that far.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Seen {
    /// `entire enable` exited 0.
    pub enable: Option<bool>,
    /// The hooks fired, each with whether `entire hooks` exited 0 and the
    /// first line of its stderr.
    pub hooks: Vec<(String, bool, String)>,
    /// `entire/checkpoints/v1` holds a checkpoint after the turn.
    pub checkpoint: Option<bool>,
    /// `entire session resume --force` exited 0.
    pub resume: Option<bool>,
    /// The file resume wrote holds the transcript's bytes.
    pub resume_bytes: Option<bool>,
    /// `entire rewind --to` exited 0.
    pub rewind: Option<bool>,
    /// The file rewind wrote over the grown one holds the checkpoint's bytes.
    pub rewind_bytes: Option<bool>,
    /// `entire hooks` lines left in the agent's config after uninstall.
    pub hooks_left: Option<usize>,
    /// `entire session attach` exited 0 (a plugin without hooks).
    pub attach: Option<bool>,
}

/// The consequence of a finding that the host shows, or cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consequence {
    /// The hook fails: `entire hooks` exits non-zero.
    HookFails,
    /// The turn leaves no checkpoint (or one without the transcript).
    Checkpoint,
    /// `entire enable` fails.
    EnableFails,
    /// The restore fails, or writes other bytes than the checkpoint's.
    Restore,
    /// Uninstall: `entire disable --uninstall` calls no plugin.
    Uninstall,
    /// Harm on the agent's side only (its config, the files it reads).
    AgentSide,
    /// Harm where the agent reads a session: which file it resumes from,
    /// the bytes it finds there, the session id it knows. The host reports
    /// the restore a success either way ("✓ Restored session"), so its
    /// outcome never contradicts such a finding.
    AgentReads,
    /// A condition the replay does not reproduce (a payload delivered
    /// late): no word.
    NotReplayed,
}

/// One row of [`WORDS`]: the findings of the cases `cases` names (an id,
/// or a prefix ending in `*`), made by a call of `call` (`Some("")`: a
/// step that made no call, a check of the files; `None`: any step), at a
/// step `step` names, of kind `kind`, and the consequence the host may
/// show.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The case id, or a prefix ending in `*`.
    pub cases: &'static str,
    /// The step's subcommand (`""`: no call; `None`: any).
    pub call: Option<&'static str>,
    /// The step's name, or its last part after ` · ` (a prefix of the
    /// name when it ends in `*`); `None`: any step. Names are the
    /// harness's own, never the plugin's.
    pub step: Option<&'static str>,
    /// The finding's kind; `None`: any.
    pub kind: Option<&'static str>,
    /// What the host shows of such a finding.
    pub consequence: Consequence,
}

const fn row(cases: &'static str, call: Option<&'static str>, consequence: Consequence) -> Row {
    Row {
        cases,
        call,
        step: None,
        kind: None,
        consequence,
    }
}

impl Row {
    /// The row, for findings at steps `step` names only.
    const fn at(mut self, step: &'static str) -> Row {
        self.step = Some(step);
        self
    }

    /// The row, for findings of `kind` only.
    const fn of(mut self, kind: &'static str) -> Row {
        self.kind = Some(kind);
        self
    }

    /// Whether the row names a finding of kind `kind` of case `case`, at a
    /// step named `step` whose subcommand is `call`.
    fn matches(&self, case: &str, call: &str, step: &str, kind: &str) -> bool {
        let case_matches = match self.cases.strip_suffix('*') {
            Some(prefix) => case.starts_with(prefix),
            None => case == self.cases,
        };
        let step_matches = self.step.is_none_or(|want| match want.strip_suffix('*') {
            Some(prefix) => step.starts_with(prefix),
            None => step == want || step.ends_with(&format!(" · {want}")),
        });
        case_matches
            && step_matches
            && self.call.is_none_or(|c| c == call)
            && self.kind.is_none_or(|k| k == kind)
    }
}

/// Which findings the replay reaches, and the host observation that
/// answers each (fifth pass): the first row that matches wins. The host's
/// word lowers a finding only where its own outcome contradicts exactly
/// the consequence the row names (a hook that exits 0, a checkpoint that
/// holds the transcript, a restore that exits 0 with the right bytes);
/// harm where the agent reads is [`Consequence::AgentReads`], whatever the
/// host's success message says.
pub const WORDS: &[Row] = &[
    // Ids that change within a session, two ids on one file: every hook
    // and the restore succeed on the host (fifth pass); the agent resumes
    // an id it does not know, or another session's bytes.
    row("*", None, Consequence::AgentReads).of("split-session"),
    row("*", None, Consequence::AgentReads).of("shared-session-file"),
    // The replay delivers every payload at once.
    row("hooks.parse-hook.*", None, Consequence::NotReplayed).at("late [*"),
    row(
        "hooks.parse-hook.payload",
        Some("parse-hook"),
        Consequence::HookFails,
    ),
    row(
        "hooks.parse-hook.whole-stdin",
        Some("parse-hook"),
        Consequence::HookFails,
    ),
    row("session.agent*", Some("parse-hook"), Consequence::HookFails),
    // An empty or unusable session directory fails the restore, not the
    // hooks (fifth pass: the host creates it before write-session).
    row(
        "session.agent*",
        Some("get-session-dir"),
        Consequence::Restore,
    ),
    // Positions cut what a checkpoint holds, which the replay does not
    // read (fifth pass: inflated tokens, an unscoped checkpoint; nothing
    // fails): no row, no word.
    row(
        "session.agent*",
        Some("read-transcript"),
        Consequence::HookFails,
    ),
    row(
        "session.agent*",
        Some("resolve-session-file"),
        Consequence::Restore,
    ),
    row(
        "session.agent*",
        Some("write-session"),
        Consequence::Restore,
    ),
    row("session.agent*", Some(""), Consequence::AgentReads).at("where the agent reads it"),
    row("session.agent*", Some(""), Consequence::AgentReads).at("the file the agent resumes from"),
    row("session.agent*", Some(""), Consequence::AgentReads).at("resumable"),
    // The generic session unverified: it predicts no checkpoint.
    row("session.agent*", Some(""), Consequence::Checkpoint)
        .at("the agent session")
        .of("unverified"),
    row("session.agent*", Some(""), Consequence::Restore),
    row("core.session.write-then-read", None, Consequence::Restore),
    row(
        "hooks.lifecycle.install",
        Some("install-hooks"),
        Consequence::EnableFails,
    ),
    row(
        "session.enable-remove*",
        Some("install-hooks"),
        Consequence::EnableFails,
    ),
    row("hooks.lifecycle.uninstall", None, Consequence::Uninstall),
    row(
        "hooks.lifecycle.manual-uninstall",
        None,
        Consequence::Uninstall,
    ),
    row(
        "session.enable-remove*",
        Some("uninstall-hooks"),
        Consequence::Uninstall,
    ),
    row("hooks.user-data.*", None, Consequence::AgentSide),
    row("hooks.fire.reach-entire", None, Consequence::AgentSide),
];

/// The row of [`WORDS`] for a finding of kind `kind` of case `case` at a
/// step named `step` whose subcommand is `call` (`""`: no call), if the
/// replay reaches it.
pub fn row_for(case: &str, call: &str, step: &str, kind: &str) -> Option<&'static Row> {
    WORDS.iter().find(|r| r.matches(case, call, step, kind))
}

/// The host's word on a finding, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The host shows the predicted consequence: the severity stands.
    Confirmed,
    /// The harm is on the agent's side, where the host does not look: the
    /// severity stands.
    BeyondSight,
    /// The host's outcome contradicts the prediction: the finding is
    /// lowered to what the host showed.
    NotConfirmed,
}

/// What the host said of one finding: the verdict, its sentence, and the
/// severity a contradicted finding is lowered to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Confirmed, beyond sight or not confirmed.
    pub verdict: Verdict,
    /// The sentence, prefix included ("confirmed by entire 0.12.x: ...").
    pub text: String,
    /// Where a contradicted finding goes.
    pub lowered_to: Option<Severity>,
}

impl Consequence {
    /// The host's word on a finding of this consequence at hook `hook`
    /// (the step's `--hook`, if it has one), from what the replay saw, on
    /// `build`; `None` when the replay did not get there.
    pub fn word(self, seen: &Seen, hook: Option<&str>, build: &Build) -> Option<Word> {
        let confirmed = |what: String| Word {
            verdict: Verdict::Confirmed,
            text: format!("confirmed by entire {}: {what}", build.run_as),
            lowered_to: None,
        };
        let beyond = |what: String| Word {
            verdict: Verdict::BeyondSight,
            text: format!("beyond the host's sight: {what}"),
            lowered_to: None,
        };
        let contradicted = |what: String| Word {
            verdict: Verdict::NotConfirmed,
            text: format!("not confirmed: the host {what}"),
            lowered_to: Some(Severity::Note),
        };
        match self {
            Consequence::HookFails => {
                let fired: Vec<&(String, bool, String)> = seen
                    .hooks
                    .iter()
                    .filter(|(h, _, _)| hook.is_none_or(|want| want == h))
                    .collect();
                let failed = fired.iter().find(|(_, ok, _)| !ok);
                match (failed, fired.is_empty()) {
                    (Some((h, _, err)), _) => Some(confirmed(format!(
                        "`entire hooks` {h} exited non-zero ({err})"
                    ))),
                    (None, false) => Some(contradicted(format!(
                        "ran every `entire hooks` call of {} with exit 0",
                        hook.unwrap_or("the session")
                    ))),
                    (None, true) => None,
                }
            }
            Consequence::Checkpoint => {
                let failed = seen.hooks.iter().any(|(_, ok, _)| !ok);
                match (seen.checkpoint?, failed, seen.resume_bytes) {
                    (false, _, _) => Some(confirmed(format!(
                        "no checkpoint in {CHECKPOINT_REF} after the turn"
                    ))),
                    (true, false, Some(true)) => Some(contradicted(
                        "ran every hook with exit 0 and made a checkpoint whose transcript the \
                         restore wrote back byte for byte"
                            .into(),
                    )),
                    _ => None,
                }
            }
            Consequence::EnableFails => match seen.enable? {
                false => Some(confirmed("`entire enable` exited non-zero".into())),
                true => Some(contradicted("`entire enable` exited 0".into())),
            },
            Consequence::Restore => {
                if seen.resume == Some(false) || seen.rewind == Some(false) {
                    let which = if seen.resume == Some(false) {
                        "`entire session resume --force`"
                    } else {
                        "`entire rewind --to`"
                    };
                    return Some(confirmed(format!("{which} exited non-zero")));
                }
                if seen.resume_bytes == Some(false) || seen.rewind_bytes == Some(false) {
                    return Some(beyond(
                        "the host reported the restore a success, and the file it wrote does \
                         not hold the checkpoint's bytes: only the agent reading it sees that"
                            .into(),
                    ));
                }
                match (seen.resume, seen.resume_bytes, seen.rewind_bytes) {
                    (Some(true), Some(true), Some(true) | None) => Some(contradicted(
                        "restored the session (exit 0) and the file it wrote holds the \
                         checkpoint's bytes"
                            .into(),
                    )),
                    _ => None,
                }
            }
            Consequence::Uninstall => {
                let left = seen.hooks_left?;
                Some(beyond(format!(
                    "`entire disable --uninstall` calls no plugin ({left} hook line(s) left in \
                     the agent's config); only the interactive agent manager calls \
                     uninstall-hooks"
                )))
            }
            Consequence::AgentReads => {
                let restored = seen.resume.or(seen.rewind);
                seen.enable?;
                let told = match restored {
                    Some(true) => "the host reported the restore a success",
                    Some(false) => "the host's restore failed",
                    None => "the host ran the session's hooks",
                };
                Some(beyond(format!(
                    "{told}; which file the agent resumes from, the bytes it reads there and \
                     the session id it knows are the agent's side, where the host does not look"
                )))
            }
            Consequence::NotReplayed => None,
            Consequence::AgentSide => {
                seen.enable?;
                Some(beyond(
                    "the host reads only the plugin's answer, not the agent's config".into(),
                ))
            }
        }
    }
}

/// The one line the human report prints when `entire` is on `PATH` and
/// `--host` was not given.
pub fn on_path_hint(entire: &str) -> String {
    format!(
        "entire is on PATH ({entire}): `agent-conform --host {entire} <plugin>` replays the \
         session through it and marks each finding with what the real host showed"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nightly_build_runs_as_the_newest_release_and_says_so() {
        let b = build("Entire CLI 0.6.3-nightly.2026+dirty\nGo version: go1.26\n");
        assert_eq!(b.line, "Entire CLI 0.6.3-nightly.2026+dirty");
        assert_eq!(
            b.run_as,
            RELEASES.last().map(|r| r.name).unwrap_or_default()
        );
        assert!(b.unknown.is_some());
        let dev = build("Entire CLI dev\n");
        assert!(dev.unknown.is_some());
        let known = build("Entire CLI 0.10.3\n");
        assert_eq!((known.run_as, known.unknown), ("0.10.3", None));
        assert_eq!(build("Entire CLI v0.11.2").run_as, "0.11.x");
    }

    #[test]
    fn the_table_finds_the_first_row_of_a_case_and_call() {
        let of = |case: &str, call: &str, step: &str, kind: &str| {
            row_for(case, call, step, kind).map(|r| r.consequence)
        };
        let r = of(
            "session.agent.linked-worktree",
            "parse-hook",
            "turn 1 · hook stop · parse-hook",
            "check",
        );
        assert_eq!(r, Some(Consequence::HookFails));
        assert_eq!(
            of("session.agent", "", "entire resume · x", "check"),
            Some(Consequence::Restore)
        );
        assert!(of("core.info.schema", "info", "info", "check").is_none());
        assert!(of("session.agent", "extract-prompts", "x", "check").is_none());
        // Where the agent reads, ids that split: the agent's side.
        let reads = "entire resume · session s1 · where the agent reads it";
        assert_eq!(
            of("session.agent", "", reads, "check"),
            Some(Consequence::AgentReads)
        );
        let split = of("session.agent", "parse-hook", "t", "split-session");
        assert_eq!(split, Some(Consequence::AgentReads));
        let dir = of(
            "session.agent",
            "get-session-dir",
            "turn 1 · TurnEnd · get-session-dir",
            "check",
        );
        assert_eq!(dir, Some(Consequence::Restore));
        let late = of(
            "hooks.parse-hook.payload",
            "parse-hook",
            "late [stop]",
            "check",
        );
        assert_eq!(late, Some(Consequence::NotReplayed));
    }

    #[test]
    fn a_failed_hook_confirms_and_a_clean_session_contradicts() {
        let b = build("Entire CLI 0.10.3");
        let mut seen = Seen {
            hooks: vec![("start".into(), true, String::new())],
            ..Seen::default()
        };
        let w = Consequence::HookFails.word(&seen, Some("start"), &b);
        assert_eq!(w.map(|w| w.verdict), Some(Verdict::NotConfirmed));
        seen.hooks
            .push(("stop".into(), false, "invalid timestamp".into()));
        let w = Consequence::HookFails.word(&seen, None, &b);
        assert_eq!(w.as_ref().map(|w| w.verdict), Some(Verdict::Confirmed));
        assert!(w.is_some_and(|w| w.text.starts_with("confirmed by entire 0.10.3: ")));
        // A hook the replay never fired is not reached.
        assert_eq!(Consequence::HookFails.word(&seen, Some("other"), &b), None);
    }

    #[test]
    fn a_restore_the_host_calls_fine_with_wrong_bytes_is_beyond_its_sight() {
        let b = build("Entire CLI 0.10.3");
        let seen = Seen {
            resume: Some(true),
            resume_bytes: Some(true),
            rewind: Some(true),
            rewind_bytes: Some(false),
            ..Seen::default()
        };
        let w = Consequence::Restore.word(&seen, None, &b);
        assert_eq!(w.map(|w| w.verdict), Some(Verdict::BeyondSight));
    }

    #[test]
    fn the_hosts_success_message_never_lowers_harm_where_the_agent_reads() {
        let b = build("Entire CLI 0.10.3");
        let seen = Seen {
            enable: Some(true),
            hooks: vec![("stop".into(), true, String::new())],
            checkpoint: Some(true),
            resume: Some(true),
            resume_bytes: Some(true),
            rewind: Some(true),
            rewind_bytes: Some(true),
            ..Seen::default()
        };
        let w = Consequence::AgentReads.word(&seen, None, &b);
        assert_eq!(w.map(|w| w.verdict), Some(Verdict::BeyondSight));
        // A predicted lost checkpoint is contradicted by one that holds
        // the transcript.
        let w = Consequence::Checkpoint.word(&seen, None, &b);
        assert_eq!(w.map(|w| w.verdict), Some(Verdict::NotConfirmed));
        assert_eq!(Consequence::NotReplayed.word(&seen, None, &b), None);
    }

    #[test]
    fn the_host_outputs_are_read_as_the_fifth_pass_saw_them() {
        let list = b"Command \"rewind\" is deprecated\n[{\"id\":\"abc\",\"message\":\"m\"}]\n";
        assert_eq!(rewind_points(list), vec!["abc".to_string()]);
        assert_eq!(
            written_file(b"Writing transcript to: /h/s1.jsonl\n\xe2\x9c\x93 Restored\n"),
            Some("/h/s1.jsonl".to_string())
        );
        let config =
            r#"{"a":[{"command":"entire hooks lyra prompt"},"entire hooks lyra turn-done"]}"#;
        assert_eq!(hook_lines(config, "lyra"), vec!["prompt", "turn-done"]);
    }
}
