//! The staging directory of a recording: what `record` and its shims share.
//!
//! `record` makes it (private, in the system's temporary directory) before
//! the agent starts; every shim call writes one numbered call directory into
//! it; `record` reads them back in order once the agent has exited, and
//! deletes it. Nothing reaches the output directory before the end, so that
//! `--redact` applies before anything is written there.
//!
//! Layout:
//! - `state.json`: the [`State`] (plugin, agent name, repository root);
//! - `calls/NNNNNN/`: one hook call, claimed by an atomic `mkdir` (hooks may
//!   fire concurrently: the first to create a number owns it), holding
//!   `payload` (the stdin bytes), `transcript` (the snapshot, when taken)
//!   and `call.json` (the [`Call`], written last, by a rename: a call
//!   without it was cut short);
//! - `log.txt`: the shims' errors and notes, one line each.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What every shim call needs to know about the recording.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    /// The plugin binary, absolute: its `parse-hook` answers each payload.
    pub plugin: PathBuf,
    /// The agent name of `entire hooks <agent> <hook>` calls to record (the
    /// plugin's file name without `entire-agent-`, as the host registers it).
    pub agent: String,
    /// The repository the agent runs in: `parse-hook`'s cwd and
    /// `ENTIRE_REPO_ROOT`, as the host sets them.
    pub repo: PathBuf,
    /// When the recording started, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// The environment `record` started the agent with: what a hook call's
    /// environment has besides is what the agent set.
    #[serde(default)]
    pub env_before: BTreeMap<String, String>,
}

/// One recorded hook call (`call.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Call {
    /// The hook name (`entire hooks <agent> <hook>`).
    pub hook: String,
    /// When the call arrived, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// What `parse-hook` made of the payload.
    pub answer: Answer,
    /// The event's `session_ref`, as the plugin wrote it.
    pub session_ref: Option<String>,
    /// Whether `transcript` holds a snapshot of the file `session_ref` names.
    pub snapshot: bool,
    /// The variables the agent set for this hook call (its environment
    /// less the one `record` started it with).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// The plugin's `parse-hook` answer at record time.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Answer {
    /// The event it printed (`null`: no event).
    Event(Value),
    /// It failed, timed out or printed no JSON: why.
    Refused(String),
}

/// A call read back from the staging directory.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// What the shim wrote in `call.json`.
    pub call: Call,
    /// The payload file.
    pub payload: PathBuf,
    /// The transcript snapshot file, when one was taken.
    pub snapshot: Option<PathBuf>,
}

const STATE_FILE: &str = "state.json";
const CALLS_DIR: &str = "calls";
const LOG_FILE: &str = "log.txt";
/// The payload's file name in a call directory.
pub const PAYLOAD_FILE: &str = "payload";
/// The snapshot's file name in a call directory.
pub const SNAPSHOT_FILE: &str = "transcript";
const CALL_FILE: &str = "call.json";

/// This process's variables that are Unicode (the others cannot be
/// written into a case file).
pub fn vars() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect()
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Writes the state file into a new staging directory.
pub fn init(dir: &Path, state: &State) -> io::Result<()> {
    fs::create_dir_all(dir.join(CALLS_DIR))?;
    let json = serde_json::to_vec_pretty(state).map_err(io::Error::other)?;
    fs::write(dir.join(STATE_FILE), json)
}

/// Reads the state file.
pub fn state(dir: &Path) -> io::Result<State> {
    let bytes = fs::read(dir.join(STATE_FILE))?;
    serde_json::from_slice(&bytes).map_err(io::Error::other)
}

/// Claims the next call number: the first `calls/NNNNNN` this process
/// creates. `mkdir` is atomic, so concurrent shims never share a number,
/// and numbers follow the order the calls claimed them in.
pub fn claim(dir: &Path) -> io::Result<PathBuf> {
    let calls = dir.join(CALLS_DIR);
    let mut n = fs::read_dir(&calls)?.count() + 1;
    loop {
        let candidate = calls.join(format!("{n:06}"));
        match fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => n += 1,
            Err(err) => return Err(err),
        }
    }
}

/// Finishes a claimed call: `call.json` appears whole or not at all.
pub fn finish(call_dir: &Path, call: &Call) -> io::Result<()> {
    let json = serde_json::to_vec_pretty(call).map_err(io::Error::other)?;
    let partial = call_dir.join("call.json.partial");
    fs::write(&partial, json)?;
    fs::rename(partial, call_dir.join(CALL_FILE))
}

/// Appends one line to the log; a log that cannot be written is given up
/// on, since the shim must answer the agent whatever happens.
pub fn log(dir: &Path, line: &str) {
    let appended = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(LOG_FILE))
        .and_then(|mut file| writeln!(file, "{}", line.replace('\n', " ")));
    drop(appended);
}

/// The log's lines.
pub fn log_lines(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join(LOG_FILE))
        .map(|text| text.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The finished calls, in number order; calls cut short are logged and
/// left out.
pub fn calls(dir: &Path) -> io::Result<Vec<Recorded>> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(dir.join(CALLS_DIR))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    dirs.sort();
    let mut found = Vec::new();
    for call_dir in dirs {
        match read_call(&call_dir) {
            Ok(recorded) => found.push(recorded),
            Err(err) => log(
                dir,
                &format!(
                    "call {} was cut short and is left out ({err})",
                    call_dir.file_name().unwrap_or_default().to_string_lossy()
                ),
            ),
        }
    }
    Ok(found)
}

fn read_call(call_dir: &Path) -> io::Result<Recorded> {
    let call: Call =
        serde_json::from_slice(&fs::read(call_dir.join(CALL_FILE))?).map_err(io::Error::other)?;
    let snapshot = call.snapshot.then(|| call_dir.join(SNAPSHOT_FILE));
    Ok(Recorded {
        call,
        payload: call_dir.join(PAYLOAD_FILE),
        snapshot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_never_share_a_number_and_cut_calls_are_left_out() {
        let dir = tempfile::tempdir().expect("temp dir");
        init(
            dir.path(),
            &State {
                plugin: "/p".into(),
                agent: "a".into(),
                repo: "/r".into(),
                started_ms: 0,
                env_before: BTreeMap::new(),
            },
        )
        .expect("init");
        let first = claim(dir.path()).expect("claim");
        let second = claim(dir.path()).expect("claim");
        assert_ne!(first, second);
        let call = Call {
            hook: "stop".into(),
            at_ms: 1,
            answer: Answer::Event(Value::Null),
            session_ref: None,
            snapshot: false,
            env: BTreeMap::new(),
        };
        finish(&second, &call).expect("finish");
        let found = calls(dir.path()).expect("calls");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].call.hook, "stop");
        assert_eq!(log_lines(dir.path()).len(), 1, "the cut call is logged");
    }
}
