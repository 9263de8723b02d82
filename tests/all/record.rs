//! `agent-conform record`: a scripted agent (tests/agents/scripted-agent)
//! runs its hooks under the recorder. The recording holds every call in
//! order, with its payload, the transcript as it was then and the plugin's
//! event; the agent's own stdin, stdout and exit code are untouched; a real
//! `entire` further on PATH still receives every call; `--redact` leaves no
//! match behind; bad input exits 2.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{fast_python_path, harness, reference, root, run_json};
use serde_json::Value;

/// A repository (with the reference plugin's hooks installed, as
/// `entire enable` would) and a HOME, side by side in a temporary directory.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().expect("temp dir");
        let setup = Setup { dir };
        std::fs::create_dir_all(setup.repo()).expect("mkdir repo");
        std::fs::create_dir_all(setup.home()).expect("mkdir home");
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(setup.repo())
            .status()
            .expect("git runs");
        assert!(git.success());
        let installed = Command::new(reference())
            .arg("install-hooks")
            .current_dir(setup.repo())
            .env("ENTIRE_REPO_ROOT", setup.repo())
            .env("ENTIRE_PROTOCOL_VERSION", "1")
            .output()
            .expect("install-hooks runs");
        assert!(installed.status.success(), "{installed:?}");
        setup
    }

    fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn out(&self) -> PathBuf {
        self.repo().join("conformance")
    }

    /// Where the scripted agent started in `cwd` keeps its transcript.
    fn transcript_of(&self, cwd: &Path) -> PathBuf {
        let folder: String = cwd
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.home()
            .join(".reference/projects")
            .join(folder)
            .join("sess-rec-1.jsonl")
    }

    fn transcript(&self) -> PathBuf {
        self.transcript_of(&self.repo())
    }

    /// `agent-conform record` of the scripted agent, with `stdin` for the
    /// agent and `first_on_path` (a directory holding a real `entire`)
    /// ahead of the user's PATH.
    fn record(
        &self,
        options: &[&str],
        agent: &[&str],
        stdin: &str,
        first_on_path: Option<&Path>,
    ) -> Output {
        self.record_in(&self.repo(), options, agent, stdin, first_on_path)
    }

    /// [`Setup::record`] with the agent started in `cwd`.
    fn record_in(
        &self,
        cwd: &Path,
        options: &[&str],
        agent: &[&str],
        stdin: &str,
        first_on_path: Option<&Path>,
    ) -> Output {
        let mut cmd = harness();
        cmd.current_dir(cwd)
            .env("HOME", self.home())
            .env("PATH", path(first_on_path))
            .arg("record")
            .args(options)
            .arg(reference())
            .arg("--")
            .arg(root().join("tests/agents/scripted-agent"))
            .arg("--sample")
            .arg(sample())
            .args(agent)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("agent-conform runs");
        {
            use std::io::Write;
            let mut input = child.stdin.take().expect("stdin");
            input.write_all(stdin.as_bytes()).expect("stdin written");
        }
        child.wait_with_output().expect("agent-conform ends")
    }

    fn case_file(&self) -> Value {
        let text = read(&self.out().join("reference-session.yaml"));
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }
}

/// The reference plugin's sample session: the scripted agent's two turns.
fn sample() -> PathBuf {
    root().join("reference-plugin/conformance/samples/session.jsonl")
}

/// The test's PATH without any `entire` on it, `first` ahead when given.
fn path(first: Option<&Path>) -> String {
    let dirs = std::env::split_paths(fast_python_path())
        .filter(|dir| !dir.join("entire").exists())
        .collect::<Vec<_>>();
    let dirs = first.map(Path::to_path_buf).into_iter().chain(dirs);
    std::env::join_paths(dirs)
        .expect("a PATH")
        .to_string_lossy()
        .into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const HOOKS: [&str; 6] = [
    "session-start",
    "user-prompt-submit",
    "stop",
    "user-prompt-submit",
    "stop",
    "session-end",
];

#[test]
fn a_recorded_session_holds_every_call_in_order_with_payloads_snapshots_and_events() {
    let setup = Setup::new();
    let out = setup.record(&[], &[], "", None);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let yaml = setup.case_file();
    let hooks = yaml["session"]["hooks"].as_array().expect("hooks");
    let names: Vec<&str> = hooks.iter().filter_map(|h| h["hook"].as_str()).collect();
    assert_eq!(names, HOOKS);

    // Payloads: the agent's bytes, one file per call.
    let payload = |i: usize| {
        let rel = hooks[i]["payload"]["path"].as_str().expect("a path");
        read(&setup.out().join(rel))
    };
    let first: Value = serde_json::from_str(&payload(1)).expect("JSON payload");
    assert_eq!(
        first["prompt"],
        "Fix the login bug in src/auth.go — it rejects valid tokens ✓"
    );
    assert_eq!(first["hook_event_name"], "UserPromptSubmit");

    // Events: the plugin's answers, without the timestamp it made up.
    let types: Vec<u64> = hooks
        .iter()
        .filter_map(|h| h["event"]["type"].as_u64())
        .collect();
    assert_eq!(types, [1, 2, 3, 2, 3, 5]);
    assert_eq!(hooks[3]["event"]["session_id"], "sess-rec-1");
    assert!(hooks[3]["event"].get("timestamp").is_none());

    // Snapshots: the transcript as it was at each hook, written when it changed.
    let snapshot = |i: usize| {
        hooks[i]["transcript"]["path"]
            .as_str()
            .map(|rel| read(&setup.out().join(rel)))
    };
    let lines = read(&sample());
    let turn_one: String = lines.lines().take(4).map(|l| format!("{l}\n")).collect();
    assert_eq!(snapshot(0), None, "no transcript before the first turn");
    assert_eq!(snapshot(2).as_deref(), Some(turn_one.as_str()));
    assert_eq!(snapshot(3), None, "unchanged since the last snapshot");
    assert_eq!(snapshot(4).as_deref(), Some(lines.as_str()));
    let last = yaml["transcripts"][0].as_str().expect("transcripts");
    assert_eq!(read(&setup.out().join(last)), lines);

    // Paths: the machine's strings and the replay's placeholders.
    let paths = &yaml["session"]["paths"];
    let key = |p: PathBuf| p.display().to_string();
    assert_eq!(paths[key(setup.transcript())], "{{transcript}}");
    assert_eq!(paths[key(setup.repo())], "{{repo}}");
    assert_eq!(paths[key(setup.home())], "{{home}}");

    // The agent as installed: its own directories, the variable it set.
    let world = &yaml["agent"];
    let files: Vec<&str> = world["files"]
        .as_array()
        .expect("agent: files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files, ["{{repo}}/.reference", "{{home}}/.reference"]);

    // The world: the transcript in the plugin's session directory, the
    // agent started at the root; nothing breaks the resume.
    assert_eq!(
        yaml["session"]["transcript_at"],
        "{{session_dir}}/sess-rec-1.jsonl"
    );
    assert_eq!(yaml["session"]["cwd"], "{{repo}}");
    assert!(!err.contains("entire session resume restores"), "{err}");
    assert_eq!(
        world["env"],
        serde_json::json!({"REFERENCE_HOME": "{{home}}/.scripted-agent"})
    );

    // The summary: where, how much, the privacy note, hooks and events.
    assert!(
        err.contains("wrote 6 payloads and 2 transcript snapshots"),
        "{err}"
    );
    assert!(err.contains("read them before committing"), "{err}");
    assert!(
        err.contains("hooks not seen (of info.hook_names): pre-task, post-task, pre-compact"),
        "{err}"
    );
    assert!(err.contains("TurnEnd (type 3) x2"), "{err}");
}

#[test]
fn the_agents_stdin_stdout_and_exit_code_are_untouched() {
    let setup = Setup::new();
    let out = setup.record(&[], &["--exit", "3"], "hello agent\n", None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "agent heard: hello agent\n"
    );
    // Without a real entire, every hook answers 0, as with Entire disabled.
    let err = stderr(&out);
    assert_eq!(err.matches(" exited 0").count(), 6, "{err}");
}

#[test]
fn a_real_entire_further_on_path_receives_every_call_and_answers_the_agent() {
    let setup = Setup::new();
    let bin = setup.dir.path().join("real-bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let log = setup.dir.path().join("real-entire.log");
    let real = bin.join("entire");
    std::fs::write(
        &real,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{log}'\ncat >> '{log}'\nprintf '\\n' >> '{log}'\necho real-out\nexit 5\n",
            log = log.display()
        ),
    )
    .expect("write");
    make_executable(&real);
    let out = setup.record(&[], &["--direct"], "", Some(&bin));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("exited 5").count(), 6, "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("real-out")
            .count(),
        6,
        "the real entire's stdout is the agent's"
    );
    let received = read(&log);
    for hook in HOOKS {
        assert!(
            received.contains(&format!("hooks reference {hook}\n{{")),
            "{received}"
        );
    }
    // The payloads it received are the ones recorded, byte for byte.
    let yaml = setup.case_file();
    for hook in yaml["session"]["hooks"].as_array().expect("hooks") {
        let rel = hook["payload"]["path"].as_str().expect("path");
        assert!(received.contains(&read(&setup.out().join(rel))));
    }
}

#[test]
fn without_a_real_entire_hooks_answer_0_and_other_commands_are_refused() {
    let setup = Setup::new();
    let out = harness()
        .current_dir(setup.repo())
        .env("PATH", path(None))
        .args(["record", "--out", "rec"])
        .arg(reference())
        .args([
            "--",
            "sh",
            "-c",
            "echo '{}' | entire hooks reference stop; echo hook=$?; entire status; echo status=$?; \
             echo '{}' | entire hooks other-agent stop; echo other=$?; \
             printf '' | entire hooks reference stop; echo refused=$?",
        ])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, "hook=0\nstatus=1\nother=0\nrefused=0\n");
    let err = stderr(&out);
    assert!(
        err.lines()
            .any(|l| l.starts_with("entire: ") && l.contains("`entire status`")),
        "{err}"
    );
    assert!(err.contains("events: null (no event) x1"), "{err}");
    // What the shim could not record is said, and the agent never knew.
    assert!(
        err.contains(
            "note: a hook call for agent \"other-agent\" (stop) was forwarded, not recorded"
        ),
        "{err}"
    );
    assert!(
        err.contains("parse-hook refused stop (call 2): exited with code 1"),
        "{err}"
    );
}

#[test]
fn concurrent_hooks_each_get_a_number_of_their_own() {
    let setup = Setup::new();
    let script = r#"for i in 1 2 3 4 5 6 7 8; do
        echo "{\"session_id\": \"s$i\"}" | entire hooks reference session-start &
        done; wait"#;
    let out = harness()
        .current_dir(setup.repo())
        .env("PATH", path(None))
        .arg("record")
        .arg(reference())
        .args(["--", "sh", "-c", script])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let yaml = setup.case_file();
    let hooks = yaml["session"]["hooks"].as_array().expect("hooks");
    let mut ids: Vec<String> = hooks
        .iter()
        .map(|h| {
            let rel = h["payload"]["path"].as_str().expect("path");
            let payload: Value = serde_json::from_str(&read(&setup.out().join(rel))).expect("JSON");
            assert_eq!(h["event"]["session_id"], payload["session_id"]);
            payload["session_id"].as_str().expect("an id").to_string()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"]);
}

#[test]
fn redact_leaves_no_match_anywhere_in_the_recording() {
    let setup = Setup::new();
    // The temporary directory's random name is in every path: the user's.
    let user = setup
        .dir
        .path()
        .file_name()
        .expect("a name")
        .to_string_lossy();
    let user = regex::escape(&user);
    let patterns = ["sess-rec-[0-9]", "login bug", user.as_str()];
    let mut options = Vec::new();
    for p in patterns {
        options.extend(["--redact", p]);
    }
    let out = setup.record(&options, &[], "", None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut files = 0;
    for file in walk(&setup.out()) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("read")).into_owned();
        for p in patterns {
            let re = regex::Regex::new(p).expect("regex");
            assert!(!re.is_match(&text), "{p} in {}:\n{text}", file.display());
        }
        files += 1;
    }
    assert!(files >= 9, "payloads, snapshots and the case file: {files}");
    let yaml = setup.case_file();
    assert_eq!(
        yaml["session"]["hooks"][1]["event"]["session_id"],
        "REDACTED"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn bad_input_gets_one_sentence_a_hint_and_exit_2() {
    let setup = Setup::new();
    let cases: [(&[&str], &str); 3] = [
        (&["--"], "no agent command given"),
        (
            &["--redact", "(", "--", "true"],
            "is not a regular expression",
        ),
        (
            &["--", "no-such-agent-command"],
            "cannot run no-such-agent-command",
        ),
    ];
    for (args, message) in cases {
        let out = harness()
            .current_dir(setup.repo())
            .arg("record")
            .arg(reference())
            .args(args)
            .output()
            .expect("runs");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(message) && err.contains("hint:"),
            "{args:?}: {err}"
        );
    }
    let missing = harness()
        .args(["record", "./no-such-plugin", "--", "true"])
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(2));

    // An earlier recording is never overwritten without --force.
    assert_eq!(setup.record(&[], &[], "", None).status.code(), Some(0));
    let again = setup.record(&[], &[], "", None);
    let err = stderr(&again);
    assert_eq!(again.status.code(), Some(2), "{err}");
    assert!(
        err.contains("never overwrites") && err.contains("--force"),
        "{err}"
    );
    let forced = setup.record(&["--force"], &[], "", None);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
}

/// The recording replays green on the reference plugin and red on a plugin
/// with a session-level fault.
#[test]

fn the_recording_replays_green_on_the_reference_and_red_on_a_fault() {
    let setup = Setup::new();
    let out = setup.record(&[], &[], "", None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cases = setup.out().display().to_string();
    let green = run_json(&reference(), &["--cases", &cases, "--strict"], &[]);
    assert_eq!(green.code, 0, "failed: {:?}", green.ids("failed"));
    for fault in [
        "session-id-changes-after-turn-end",
        "parse-hook-no-session-id",
    ] {
        let red = run_json(
            &reference(),
            &["--cases", &cases],
            &[("ENTIRE_AGENT_REFERENCE_FAULT", fault)],
        );
        assert_eq!(red.code, 1, "{fault} passed the replay");
    }
}

/// A session recorded from a subdirectory keeps its world: the agent kept
/// its transcript in the subdirectory's folder, outside the plugin's session
/// directory, which `record` says; the replay lays it down there, and the
/// resume that restores into the root's folder fails.
#[test]
fn a_recording_from_a_subdirectory_keeps_its_layout_and_the_broken_resume_shows() {
    let setup = Setup::new();
    let sub = setup.repo().join("web/app");
    std::fs::create_dir_all(&sub).expect("mkdir sub");
    let out_dir = setup.out().display().to_string();
    let out = setup.record_in(&sub, &["--out", &out_dir], &[], "", None);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(setup.transcript_of(&sub).is_file(), "{err}");
    let yaml = setup.case_file();
    assert_eq!(yaml["session"]["cwd"], "{{repo}}/web/app");
    let at = yaml["session"]["transcript_at"]
        .as_str()
        .expect("transcript_at");
    assert!(at.starts_with("{{home}}/.reference/projects/"), "{at}");
    assert!(at.ends_with("-web-app/sess-rec-1.jsonl"), "{at}");
    assert!(
        err.contains("outside the plugin's session directory"),
        "{err}"
    );
    assert!(
        err.contains("entire session resume restores") && err.contains("while the agent reads"),
        "{err}"
    );
    let cases = setup.out().display().to_string();
    let run = run_json(&reference(), &["--cases", &cases], &[]);
    assert_eq!(run.code, 1, "the broken resume passed the replay");
    assert!(
        run.ids("failed").contains(&"session.agent".to_string()),
        "{:?}",
        run.ids("failed")
    );
    let messages = run.messages("session.agent");
    assert!(
        messages.contains("-web-app/sess-rec-1.jsonl") && messages.contains("resumes nothing"),
        "{messages}"
    );
}

/// A recorded Event that the plugin no longer gives: a different prompt
/// only changes what is stored (a warning); a different session id splits
/// the session (a failure).
#[test]
fn a_replayed_event_that_differs_from_the_recording_is_judged_by_what_the_host_does() {
    let setup = Setup::new();
    let out = setup.record(&[], &[], "", None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = setup.out().join("reference-session.yaml");
    let recorded = std::fs::read_to_string(&file).expect("the recording");
    let cases = setup.out().display().to_string();
    for (from, to, kind, code) in [
        ("\"prompt\":\"Fix", "\"prompt\":\"Mend", "warning", 0),
        (
            "\"session_id\":\"sess-rec-1\",\"session_ref\"",
            "\"session_id\":\"sess-other\",\"session_ref\"",
            "failed",
            1,
        ),
    ] {
        assert!(recorded.contains(from), "{from} in the recording");
        std::fs::write(&file, recorded.replacen(from, to, 1)).expect("edited");
        let run = run_json(&reference(), &["--cases", &cases], &[]);
        // The replay runs in the plain repository, a linked worktree and a
        // submodule: the recorded session differs in all three, said once
        // under the first (also in), the others note it.
        assert_eq!(run.ids(kind), vec!["session.agent".to_string()], "{from}");
        let variants = ["session.agent.linked-worktree", "session.agent.submodule"];
        assert_eq!(
            run.ids("note"),
            variants.map(String::from).to_vec(),
            "{from}"
        );
        assert!(
            run.messages("session.agent")
                .contains("differs from the one recorded")
        );
        assert_eq!(run.code, code, "{from}");
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) {}
