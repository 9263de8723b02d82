//! The replay through a real host (`--host ENTIRE`), after the run: one
//! sandbox repository set up as a user sets it up, then, for a plugin with
//! hooks, `entire enable --agent <name>`, the hooks its own install wrote
//! (else `info`'s `hook_names`) fired as `entire hooks <name> <hook>` with
//! the run's generic payloads, a file edit and a `git commit` mid-turn,
//! TurnEnd, `entire session resume <branch> --force` after the transcript
//! is removed, `entire rewind --to` the newest point of `rewind --list`
//! over a grown file, and `entire disable --uninstall --force`; for a
//! plugin without hooks, `entire session attach`. What the host made of it
//! is [`crate::host::replay::Seen`]; `judge::host_word` turns it into the
//! findings' words. The commands and how their outputs read are
//! [`crate::host::replay`]'s; `world` makes every call through the runner.

use std::path::Path;

use serde_json::Value;

use crate::host::replay::{self as host, Seen};
use crate::host::session::{self as session, EventType};
use crate::outcome::host_replay::HostReplay;
use crate::suite::case::Suite;

mod world;

use world::World;

/// The replay's session id.
const SESSION_ID: &str = "sess-host-1";
/// The prompt of its one turn.
const PROMPT: &str = "Fix the login bug";
/// Lines of the generic transcript at the session's start, and by the
/// turn's end.
const LINES: [usize; 2] = [1, 4];
/// The file the user's turn edits and commits.
const EDITED: &str = "src/auth.go";
/// The line the agent adds to the restored transcript before rewind (the
/// session goes on after resume).
const GROWN: &[u8] = b"{\"type\":\"user\",\"content\":\"and one more thing\"}\n";

/// What the replay needs of the run.
pub struct Request<'a> {
    /// The plugin binary.
    pub plugin: &'a Path,
    /// The host binary (`--host`).
    pub host: &'a Path,
    /// The plugin's `info` at the gate.
    pub info: &'a Value,
    /// The run's suite (its generic transcript).
    pub suite: &'a Suite,
    /// Where the sandbox goes.
    pub sandbox_base: &'a Path,
    /// Confine the calls to the sandbox.
    pub confine: bool,
    /// Keep the sandbox.
    pub keep: bool,
}

/// Replays the plugin's session through the real host; never fails: what
/// went wrong is in the replay's `stopped` and steps.
pub fn replay(request: &Request) -> HostReplay {
    let agent = crate::host::discovery::agent_name(request.plugin).unwrap_or_default();
    let mut replay = HostReplay {
        host: request.host.display().to_string(),
        build: host::build(""),
        agent: agent.clone(),
        steps: Vec::new(),
        seen: Seen::default(),
        stopped: None,
        contradicted: Vec::new(),
        words: [0; 3],
    };
    let mut world = match World::new(
        request.sandbox_base,
        request.host,
        request.plugin,
        request.confine,
    ) {
        Ok(world) => world,
        Err(err) => {
            replay.stopped = Some(format!("cannot make the replay's sandbox: {err}"));
            return replay;
        }
    };
    let version = world.entire("version", host::version_args(), None);
    replay.build = host::build(&String::from_utf8_lossy(&version.stdout));
    let mut play = Play {
        world: &mut world,
        agent: &agent,
        seen: Seen::default(),
        transcript: Vec::new(),
    };
    let hooks = request.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
    let generic = request
        .suite
        .fixtures
        .get("transcript.jsonl")
        .map(|b| b.to_vec())
        .unwrap_or_default();
    let stopped = match play.first_commit() {
        Err(why) => Some(why),
        Ok(()) if hooks => play.with_hooks(request.info, &generic).err(),
        Ok(()) => play.attach(&generic).err(),
    };
    replay.seen = play.seen;
    replay.stopped = stopped;
    replay.steps = std::mem::take(&mut world.steps);
    if request.keep {
        world.sandbox.keep();
    }
    replay
}

/// The replay in progress.
struct Play<'w> {
    world: &'w mut World,
    agent: &'w str,
    seen: Seen,
    /// The transcript's bytes at the turn's end: what a restore must give
    /// back.
    transcript: Vec<u8>,
}

impl Play<'_> {
    fn transcript_path(&self) -> std::path::PathBuf {
        self.world.sandbox.work().join("session-transcript.jsonl")
    }

    fn payload(&self, hook: &str, prompt: Option<&str>) -> Vec<u8> {
        let repo = self.world.sandbox.repo().display().to_string();
        let path = self.transcript_path().display().to_string();
        session::generic_payload(hook, SESSION_ID, &path, &repo, prompt)
            .to_string()
            .into_bytes()
    }

    /// The project as the user has it before Entire: a README, committed.
    fn first_commit(&mut self) -> Result<(), String> {
        let repo = self.world.sandbox.repo();
        let local = repo.join(host::LOCAL_SETTINGS);
        let _ = std::fs::remove_file(local);
        std::fs::write(repo.join("README.md"), "# A project\n")
            .map_err(|e| format!("cannot write README.md: {e}"))?;
        let added = self.world.git("git add", &["add", "README.md"]);
        let done = added.ok()
            && self
                .world
                .git("git commit", &["commit", "-q", "-m", "initial commit"])
                .ok();
        match done {
            true => Ok(()),
            false => Err("git could not make the project's first commit".into()),
        }
    }

    /// The session of a plugin with hooks.
    fn with_hooks(&mut self, info: &Value, generic: &[u8]) -> Result<(), String> {
        let enabled = self
            .world
            .entire("entire enable", host::enable_args(self.agent), None);
        self.seen.enable = Some(enabled.ok());
        if !enabled.ok() {
            return Err(format!("`entire enable` failed: {}", enabled.first_err));
        }
        let hooks = self.installed_hooks(info);
        let typed: Vec<(String, Option<EventType>)> =
            hooks.iter().map(|h| (h.clone(), self.type_of(h))).collect();
        let of = |t: EventType| -> Vec<String> {
            typed
                .iter()
                .filter(|(_, k)| *k == Some(t))
                .map(|(h, _)| h.clone())
                .collect()
        };
        // After the turn: compaction and the hooks of no known type. A
        // subagent's hooks belong inside a turn with a subagent transcript
        // of their own, which the generic session does not have: fired
        // out of place, they make the host restore the subagent's file.
        let others: Vec<String> = typed
            .iter()
            .filter(|(_, k)| matches!(k, Some(EventType::Compaction) | None))
            .map(|(h, _)| h.clone())
            .collect();
        self.write_transcript(generic, LINES[0])?;
        for hook in of(EventType::SessionStart) {
            self.fire(&hook, None);
        }
        for hook in of(EventType::TurnStart) {
            self.fire(&hook, Some(PROMPT));
        }
        self.write_transcript(generic, LINES[1])?;
        self.edit_and_commit()?;
        for hook in of(EventType::TurnEnd) {
            self.fire(&hook, None);
        }
        for hook in others.iter().chain(&of(EventType::SessionEnd)) {
            self.fire(hook, None);
        }
        let checkpoint = self.checkpoint();
        self.seen.checkpoint = Some(checkpoint);
        // Without a checkpoint there is nothing to restore: the replay
        // does not reach the restore (its findings get no word).
        if checkpoint {
            self.restore();
        }
        let disabled = self
            .world
            .entire("entire disable", host::disable_args(), None);
        let _ = disabled;
        let left: usize = self
            .world
            .config_files()
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .map(|t| host::hook_lines(&t, self.agent).len())
            .sum();
        self.seen.hooks_left = Some(left);
        Ok(())
    }

    /// The hooks the plugin's install wrote (`entire hooks <name> <hook>`
    /// lines in the agent's config), else `info`'s `hook_names`.
    fn installed_hooks(&self, info: &Value) -> Vec<String> {
        let mut hooks: Vec<String> = Vec::new();
        for file in self.world.config_files() {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for hook in host::hook_lines(&text, self.agent) {
                if !hooks.contains(&hook) {
                    hooks.push(hook);
                }
            }
        }
        if hooks.is_empty() {
            hooks = info
                .get("hook_names")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
        }
        hooks
    }

    /// A hook's Event type: the guide's name, else the plugin's answer.
    fn type_of(&mut self, hook: &str) -> Option<EventType> {
        session::guessed_type(hook).or_else(|| {
            let payload = self.payload(hook, None);
            self.world
                .event_type(hook, payload)
                .and_then(EventType::from_number)
        })
    }

    fn write_transcript(&mut self, generic: &[u8], lines: usize) -> Result<(), String> {
        let mut end = 0;
        for line in generic.split_inclusive(|b| *b == b'\n').take(lines) {
            end += line.len();
        }
        self.transcript = generic[..end].to_vec();
        std::fs::write(self.transcript_path(), &self.transcript)
            .map_err(|e| format!("cannot write the transcript: {e}"))
    }

    fn fire(&mut self, hook: &str, prompt: Option<&str>) {
        let payload = self.payload(hook, prompt);
        let said = self.world.entire(
            &format!("hook {hook}"),
            host::hook_args(self.agent, hook),
            Some(payload),
        );
        self.seen
            .hooks
            .push((hook.to_string(), said.ok(), said.first_err));
    }

    /// The user edits a file and commits everything, as users do.
    fn edit_and_commit(&mut self) -> Result<(), String> {
        let file = self.world.sandbox.repo().join(EDITED);
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::write(&file, "package auth\n\nfunc Valid() bool { return true }\n")
            .map_err(|e| format!("cannot edit {EDITED}: {e}"))?;
        self.world.git("git add", &["add", "-A"]);
        self.world
            .git("git commit", &["commit", "-q", "-m", "Fix the login bug"]);
        Ok(())
    }

    /// Whether the checkpoint ref holds a session transcript.
    fn checkpoint(&mut self) -> bool {
        let listed = self.world.git(
            "git ls-tree",
            &["ls-tree", "-r", "--name-only", host::CHECKPOINT_REF],
        );
        String::from_utf8_lossy(&listed.stdout)
            .lines()
            .any(|l| l.ends_with(host::CHECKPOINT_TRANSCRIPT))
    }

    /// Resume with the transcript removed, then rewind over a grown file.
    fn restore(&mut self) {
        let _ = std::fs::remove_file(self.transcript_path());
        let resumed = self
            .world
            .entire("entire session resume", host::resume_args("main"), None);
        self.seen.resume = Some(resumed.ok());
        let written = host::written_file(&resumed.stdout)
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| self.transcript_path());
        if resumed.ok() {
            self.seen.resume_bytes =
                Some(std::fs::read(&written).ok().as_ref() == Some(&self.transcript));
        }
        let listed = self
            .world
            .entire("entire rewind --list", host::rewind_list_args(), None);
        let Some(point) = host::rewind_points(&listed.stdout).into_iter().next() else {
            return;
        };
        if let Ok(mut bytes) = std::fs::read(&written) {
            bytes.extend_from_slice(GROWN);
            let _ = std::fs::write(&written, bytes);
        }
        let rewound = self
            .world
            .entire("entire rewind --to", host::rewind_to_args(&point), None);
        self.seen.rewind = Some(rewound.ok());
        let written = host::written_file(&rewound.stdout)
            .map(std::path::PathBuf::from)
            .unwrap_or(written);
        if rewound.ok() {
            self.seen.rewind_bytes =
                Some(std::fs::read(&written).ok().as_ref() == Some(&self.transcript));
        }
    }

    /// A plugin without hooks: `entire enable` (which refuses it, fifth
    /// pass), the project's settings as the docs have the user write them,
    /// then `entire session attach`.
    fn attach(&mut self, generic: &[u8]) -> Result<(), String> {
        let enabled = self
            .world
            .entire("entire enable", host::enable_args(self.agent), None);
        self.seen.enable = Some(enabled.ok());
        let settings = self
            .world
            .sandbox
            .repo()
            .join(".entire")
            .join("settings.json");
        if !settings.exists() {
            let _ = std::fs::create_dir_all(settings.parent().unwrap_or(Path::new(".")));
            let _ = std::fs::write(
                &settings,
                "{\"enabled\": true, \"external_agents\": true}\n",
            );
        }
        self.write_transcript(generic, LINES[1])?;
        let attached = self.world.entire(
            "entire session attach",
            host::attach_args(SESSION_ID, self.agent),
            None,
        );
        self.seen.attach = Some(attached.ok());
        Ok(())
    }
}
