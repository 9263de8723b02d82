//! The command line: flags, verbs, exit codes.
//!
//! Exit codes: 0 nothing failed (warnings allowed), 1 a case failed (or warned
//! under `--strict`), 2 the harness could not run as asked (bad flags, no such
//! plugin, a broken case or schema file). Misuse gets one sentence and a hint.
//!
//! This file holds the clap definitions, the dispatch and the helpers the
//! verbs share; each verb has a module of its own: `run` (and `many`, for
//! several plugins), `catalog` (list,
//! explain, coverage, schema), `discover`, `init`, `record`, `clean`.
//! Over 500 lines: the clap definitions carry every flag's help text, which
//! is the command line's documentation and reads best in one place.

mod cases;
mod catalog;
mod clean;
mod discover;
pub mod init;
mod init_build;
mod init_ci;
mod init_env;
mod init_text;
mod many;
pub mod record;
mod reports;
mod run;
pub mod usage;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use usage::UsageError;

use crate::host::discovery::plugin_path;
use crate::suite::case::{self, Suite};
use crate::suite::schema::Schemas;

const AFTER_HELP: &str = "\
Examples:
  In a terminal, while fixing a plugin:
    agent-conform ./target/debug/entire-agent-foo
    agent-conform -v --keep-temp ./entire-agent-foo
  In CI (fails on warnings too; JUnit for the test reporter):
    agent-conform --strict --junit agent-conform.xml ./entire-agent-foo
    agent-conform --format json ./entire-agent-foo > report.json
  A plugin installed on PATH, by name (as the host finds it):
    agent-conform entire-agent-foo
    agent-conform discover
  A repository of plugins, in one run (a report each, the matrix, and the
  conflicts between plugins installed together):
    agent-conform agents/entire-agent-*
  Stop at the first failure:
    agent-conform --fail-fast ./entire-agent-foo
  Just some cases, or with your own:
    agent-conform --only 'core.chunk.*' ./entire-agent-foo
    agent-conform --cases ./conformance ./entire-agent-foo

Exit codes: 0 passed (warnings allowed), 1 a case failed (or warned with
--strict), 2 agent-conform could not run as asked.";

const RECORD_HELP: &str = "\
Examples:
  agent-conform record ./entire-agent-foo -- foo-agent
  agent-conform record --redact 'sk-[A-Za-z0-9]+' ./entire-agent-foo -- foo-agent --model x
  agent-conform --cases conformance ./entire-agent-foo    # replays it

The agent keeps its terminal; the summary goes to stderr when it exits, and
record exits with the agent's exit code. The files hold what the agent really
sent (prompts, paths, maybe secrets): read them before committing.";

/// Conformance harness for Entire CLI external agent plugins.
#[derive(Debug, Parser)]
#[command(
    name = "agent-conform",
    version,
    about,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the suite against a plugin, or several together (the default verb).
    Run(Box<RunArgs>),
    /// List the cases: id, capability, severity, title.
    List {
        /// Only cases of this capability (`core` for the required part).
        #[arg(long)]
        capability: Option<String>,
        /// Extra case directories, as for `run`.
        #[arg(long = "cases", value_name = "DIR")]
        cases: Vec<PathBuf>,
    },
    /// Explain one case: what it checks, why, its spec section and steps.
    Explain {
        /// The case id.
        id: String,
        /// Extra case directories, as for `run`.
        #[arg(long = "cases", value_name = "DIR")]
        cases: Vec<PathBuf>,
    },
    /// Print a JSON Schema by name (`agent-conform schema info`).
    Schema {
        /// Schema name; omit to list them.
        name: Option<String>,
    },
    /// Print the specification's items and the cases that check each.
    Coverage {
        /// Extra case directories, as for `run`.
        #[arg(long = "cases", value_name = "DIR")]
        cases: Vec<PathBuf>,
    },
    /// List every entire-agent-* on PATH and what the host makes of it.
    Discover {
        /// Deadline of each plugin's `info`, in seconds [default: 10, as in the host].
        #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
        timeout: Option<Duration>,
        /// Report format on stdout: human text, or one JSON document.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// The host releases to judge for, as a requirement (`>=0.6`,
        /// `>=0.9, <0.12`, `*`) [default: >=0.5.0].
        #[arg(long, value_name = "REQ")]
        host_version: Option<String>,
        /// The host's managed plugin directory, which releases from 0.6.1
        /// put first on PATH.
        #[arg(long, value_name = "DIR")]
        managed_dir: Option<PathBuf>,
    },
    /// Scaffold a plugin repository's own cases (DIR, default `conformance`)
    /// from the plugin's `info`.
    Init {
        /// The plugin binary (`entire-agent-<name>`).
        plugin: PathBuf,
        /// The directory to write the case file and samples/ into.
        #[arg(default_value = "conformance")]
        dir: PathBuf,
        /// Also write a CI workflow that runs agent-conform (`github`:
        /// .github/workflows/agent-conform.yml under the current directory).
        #[arg(long, value_enum, value_name = "CI")]
        ci: Option<Ci>,
        /// Overwrite files that already exist.
        #[arg(long)]
        force: bool,
    },
    /// Record a real agent session (every `entire hooks` call, its payload,
    /// the transcript, the plugin's event) as a case file that replays it.
    #[command(after_help = RECORD_HELP)]
    Record {
        /// The plugin binary (`entire-agent-<name>`) whose hooks the agent calls.
        plugin: PathBuf,
        /// The directory to write the case file and samples/recorded/ into.
        #[arg(long, value_name = "DIR", default_value = "conformance")]
        out: PathBuf,
        /// Replace an earlier recording in DIR.
        #[arg(long)]
        force: bool,
        /// Replace every match of REGEX, in payloads, transcripts and events,
        /// with REDACTED before anything is written; repeatable.
        #[arg(long, value_name = "REGEX")]
        redact: Vec<String>,
        /// The agent's command, after `--`.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<OsString>,
    },
    /// The `entire` shim of `record` (internal).
    #[command(name = "__record-shim", hide = true)]
    RecordShim {
        /// The recording's staging directory.
        #[arg(long)]
        state: PathBuf,
        /// The real `entire` to forward to.
        #[arg(long)]
        real: Option<PathBuf>,
        /// The arguments `entire` was called with.
        #[arg(last = true)]
        args: Vec<OsString>,
    },
    /// Remove the sandboxes earlier runs kept (`--keep-temp` ones too) and
    /// print what that freed.
    Clean {
        /// Where the runs made their sandboxes [default: /dev/shm and the
        /// system's temporary directory].
        #[arg(long, value_name = "DIR")]
        sandbox_dir: Option<PathBuf>,
    },
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The plugin: a path, or a name looked up on PATH as the host does
    /// (`foo` or `entire-agent-foo`). Several (a shell glob works) run
    /// together: a report each, a matrix, and their conflicts when
    /// installed together.
    #[arg(value_name = "PLUGIN", required = true)]
    plugins: Vec<PathBuf>,

    /// Treat warnings as failures (exit 1).
    #[arg(long)]
    strict: bool,

    /// Also run the protocol-only cases (a call the host never makes, an
    /// input it never sends; skipped by default), and weigh protocol-only
    /// findings as warnings, not notes.
    #[arg(long)]
    pedantic: bool,

    /// Run every case that reads the user's world in this one world, over
    /// the base (`place=subdir,clock=utc`, or bare value names), instead of
    /// the covering design: what a report's "fails only where" names.
    /// `agent-conform explain worlds` lists the axes and their values.
    #[arg(long, value_name = "AXIS=VALUE,...")]
    world: Option<String>,

    /// After the covering design, draw N more worlds from the seed, one
    /// case each, for a deeper search (the same --seed draws the same).
    #[arg(long, value_name = "N", default_value_t = 0)]
    explore: usize,

    /// Deadline of every invocation, in seconds (0.5 works too) [default: 30,
    /// and 10 for info].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    timeout: Option<Duration>,

    /// Stop at the first failed case: cases already running finish, the rest
    /// are reported as not run.
    #[arg(long)]
    fail_fast: bool,

    /// The host releases to judge for, as a requirement: `>=0.6`, `0.10.3`,
    /// `>=0.9, <0.12`, `*`. A finding that holds on some releases only names
    /// them; one outside the range is not reported [default: >=0.5.0, every
    /// release with external plugins].
    #[arg(long, value_name = "REQ")]
    host_version: Option<String>,

    /// After the run, replay the session through this real `entire` (a
    /// sandbox repository set up as a user sets it up: enable, the hooks,
    /// a commit, resume, rewind, uninstall) and mark each finding it
    /// reaches with what the host showed: confirmed, beyond its sight, or
    /// not confirmed (then lowered, and listed).
    #[arg(long, value_name = "ENTIRE")]
    host: Option<PathBuf>,

    /// Also load the case files (and fixtures/) of DIR; repeatable. With
    /// several plugins, `NAME=DIR` gives DIR to plugin NAME only (`foo` of
    /// entire-agent-foo); a plugin gets no other's cases. Without it, one
    /// plugin's run takes ./conformance when it holds case files, and says so.
    #[arg(long = "cases", value_name = "[NAME=]DIR")]
    cases: Vec<PathBuf>,

    /// Cases run in parallel [default: the number of cores].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: Option<u64>,

    /// Seed of the generated inputs (printed in the report) [default: random].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,

    /// Run only the cases whose id matches this glob (`*`, `?`); repeatable.
    #[arg(long, value_name = "PATTERN")]
    only: Vec<String>,

    /// Skip the cases whose id matches this glob; repeatable.
    #[arg(long, value_name = "PATTERN")]
    skip: Vec<String>,

    /// Run only the cases that did not pass when they last ran against this
    /// plugin (kept in the user's cache, per plugin).
    #[arg(long)]
    rerun_failed: bool,

    /// Also run the opt-in large-transcript cases (1, 10 and 60 MiB).
    #[arg(long)]
    large: bool,

    /// Make sandboxes in DIR [default: /dev/shm when it has room, else the
    /// system's temporary directory].
    #[arg(long, value_name = "DIR")]
    sandbox_dir: Option<PathBuf>,

    /// The largest file a plugin call may write, and the most its sandbox
    /// may hold, in MiB [default: 256].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    max_write: Option<u64>,

    /// Keep every sandbox (those of cases that did not pass are always kept).
    #[arg(long)]
    keep_temp: bool,

    /// Let the plugin write outside its sandbox (by default, on Linux, the
    /// kernel blocks such writes and the case fails naming the path).
    #[arg(long)]
    no_confine: bool,

    /// Turn every finding of this code (the JSON report's "code", printed
    /// in brackets: timeout, crashed, chunking, ...) into a note that says
    /// so; `CODE@CASES` only in the cases a glob names
    /// (`crashed@'core.errors.*'`); repeatable. A plugin's own case file
    /// does the same with `allow: [{code, case, reason}]`.
    #[arg(long, value_name = "CODE[@CASES]")]
    allow: Vec<String>,

    /// Also write a JUnit XML report to PATH (for CI test reporters).
    #[arg(long, value_name = "PATH")]
    junit: Option<PathBuf>,

    /// Report format on stdout: human text, or one JSON document.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,

    /// When to use colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,

    /// Print every invocation: command line, exit, time, output sizes.
    #[arg(long, short = 'v', conflicts_with = "quiet")]
    verbose: bool,

    /// Print only the failures and the summary.
    #[arg(long, short = 'q')]
    quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Ci {
    Github,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Runs the command line; returns the process exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("agent-conform: error: {}", err.message);
            if let Some(hint) = err.hint {
                eprintln!("  hint: {hint}");
            }
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode, UsageError> {
    match cli.command {
        Some(Command::Run(args)) => run::run(*args),
        Some(Command::List { capability, cases }) => catalog::list(capability.as_deref(), &cases),
        Some(Command::Explain { id, cases }) => catalog::explain(&id, &cases),
        Some(Command::Schema { name }) => catalog::print_schema(name.as_deref()),
        Some(Command::Coverage { cases }) => catalog::coverage(&cases),
        Some(Command::Discover {
            timeout,
            format,
            host_version,
            managed_dir,
        }) => discover::discover(timeout, format, host_version.as_deref(), managed_dir),
        Some(Command::Clean { sandbox_dir }) => clean::clean(sandbox_dir),
        Some(Command::Init {
            plugin,
            dir,
            ci,
            force,
        }) => init(&plugin, dir, ci == Some(Ci::Github), force),
        Some(Command::Record {
            plugin,
            out,
            force,
            redact,
            command,
        }) => record(&plugin, out, force, redact, command),
        Some(Command::RecordShim { state, real, args }) => Ok(crate::verbs::record::shim::main(
            &state,
            real.as_deref(),
            &args,
        )),
        Some(Command::Completions { shell }) => {
            // Into a buffer first: clap_complete panics when its writer fails,
            // and a closed pipe (`| head`) must end the run quietly.
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "agent-conform", &mut out);
            print_stdout(&String::from_utf8_lossy(&out));
            Ok(ExitCode::SUCCESS)
        }
        None => run::run(cli.run),
    }
}

/// The schemas and the suite with the case directories `cases` (`--cases`
/// values, `NAME=` prefixes dropped).
fn load(cases: &[PathBuf]) -> Result<(Schemas, Suite), UsageError> {
    let schemas = compile_schemas()?;
    let suite = load_suite(&cases::dirs(cases), &schemas)?;
    Ok((schemas, suite))
}

/// The compiled schemas.
fn compile_schemas() -> Result<Schemas, UsageError> {
    Schemas::compile().map_err(|err| {
        UsageError::new(
            format!("{err}"),
            "this is a defect of agent-conform's own schemas; please report it",
        )
    })
}

/// The embedded suite and the case directories `dirs`.
fn load_suite(dirs: &[PathBuf], schemas: &Schemas) -> Result<Suite, UsageError> {
    let broken = |err: String| {
        UsageError::new(
            format!("broken case file: {err}"),
            "fix the case file (see docs/writing-cases.md), or drop its --cases directory",
        )
    };
    let suite = case::load(dirs, schemas).map_err(|err| broken(err.to_string()))?;
    let items = crate::suite::coverage::items().map_err(|err| {
        UsageError::new(
            err,
            "this is a defect of agent-conform's own spec items; please report it",
        )
    })?;
    crate::suite::coverage::check_covers(&suite.cases, &items).map_err(broken)?;
    Ok(suite)
}

/// A hint naming the case ids closest to what was asked for.
fn did_you_mean(wanted: &str, suite: &Suite) -> String {
    let plain = wanted.replace(['*', '?'], "");
    let mut ranked: Vec<(usize, &str)> = suite
        .cases
        .iter()
        .map(|c| (distance_to_prefix(&plain, &c.id), c.id.as_str()))
        .filter(|(d, _)| *d <= 3.max(plain.len() / 4))
        .collect();
    ranked.sort();
    let close: Vec<&str> = ranked.iter().map(|(_, id)| *id).take(3).collect();
    if close.is_empty() {
        "agent-conform list shows every case id".to_string()
    } else {
        format!("did you mean {}?", close.join(" or "))
    }
}

/// Edit distance between `wanted` and the start of `id` of the same length,
/// so that a misspelt prefix (`core.chnk`) finds `core.chunk.round-trip`.
fn distance_to_prefix(wanted: &str, id: &str) -> usize {
    let prefix: String = id.chars().take(wanted.chars().count()).collect();
    edit_distance(wanted, &prefix)
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Seconds, whole or not (`30`, `0.5`), from 0.1 to 3600.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.1..=3600.0).contains(&secs) {
        return Err(format!("{text} s is out of range: use 0.1 to 3600"));
    }
    Ok(Duration::from_millis((secs * 1000.0).round() as u64))
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// Writes to stdout, ignoring a closed pipe (`agent-conform ... | head`).
fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn init(plugin: &Path, dir: PathBuf, github: bool, force: bool) -> Result<ExitCode, UsageError> {
    let plugin_path = check_plugin(plugin)?;
    // The plugin is run (`info`): Ctrl-C must not leave it running.
    crate::running::interrupt::install();
    let cwd = std::env::current_dir().map_err(|err| {
        UsageError::new(
            format!("cannot read the current directory: {err}"),
            "run agent-conform init from an existing directory",
        )
    })?;
    let request = crate::verbs::init::Request {
        plugin: plugin_path,
        plugin_shown: plugin.display().to_string(),
        dir,
        github_workflow: github,
        force,
        repo_root: repo_root(&cwd),
        cwd,
    };
    let written = crate::verbs::init::run(&request);
    crate::running::interrupt::hold_if_interrupted();
    let written = written?;
    let mut text = String::new();
    for path in &written.paths {
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    for note in &written.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    text.push_str(&format!(
        "next: replace the TODOs, then run\n  agent-conform --cases {} {}\n",
        request.dir.display(),
        request.plugin_shown
    ));
    print_stdout(&text);
    Ok(ExitCode::SUCCESS)
}

/// The top of the git repository around `dir`: the nearest directory, `dir`
/// or above, that holds `.git` (a directory, or a file in a linked work tree
/// or a submodule).
fn repo_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

fn record(
    plugin: &Path,
    out: PathBuf,
    force: bool,
    redact: Vec<String>,
    command: Vec<OsString>,
) -> Result<ExitCode, UsageError> {
    let request = crate::verbs::record::Request {
        plugin: check_plugin(plugin)?,
        plugin_shown: plugin.display().to_string(),
        out,
        force,
        redact,
        command,
    };
    crate::verbs::record::run(&request)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The plugin must be an existing, executable file; the path is made
/// absolute because every invocation runs in a sandbox directory. A bare
/// name (no path separator) is looked up on PATH, as the host does.
fn check_plugin(path: &Path) -> Result<PathBuf, UsageError> {
    let found;
    let path = if plugin_path::is_bare_name(path) {
        found = find_on_path(&path.to_string_lossy())?;
        found.as_path()
    } else {
        path
    };
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|_| {
        UsageError::new(
            format!("no such file: {shown}"),
            "pass the path of your plugin binary, e.g. ./target/release/entire-agent-foo",
        )
    })?;
    if meta.is_dir() {
        return Err(UsageError::new(
            format!("{shown} is a directory, not a plugin binary"),
            "pass the path of the entire-agent-<name> executable inside it",
        ));
    }
    if !plugin_path::is_executable(&meta) {
        return Err(UsageError::new(
            format!("{shown} is not executable, so the host would not run it either"),
            format!("chmod +x {shown}"),
        ));
    }
    crate::running::runner::absolute_program(path).map_err(|err| {
        UsageError::new(
            format!("cannot resolve {shown}: {err}"),
            "run agent-conform from an existing directory",
        )
    })
}

/// Looks a plugin up on PATH; not found names what is there instead.
fn find_on_path(name: &str) -> Result<PathBuf, UsageError> {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let missing = match plugin_path::lookup(name, &path_var) {
        Ok(found) => return Ok(found),
        Err(missing) => missing,
    };
    let file = &missing.file_name;
    let message = match missing.unusable.first() {
        Some(entry) => format!(
            "{file} is on PATH at {}, but it is {}, so the host could not run it either",
            entry.path.display(),
            match entry.kind {
                plugin_path::Kind::Directory => "a directory",
                _ => "not executable",
            }
        ),
        None => format!("no {file} on PATH"),
    };
    let on_path: Vec<String> = missing
        .on_path
        .iter()
        .map(|e| e.path.display().to_string())
        .collect();
    let mut hint = if on_path.is_empty() {
        "there is no entire-agent-* file on PATH".to_string()
    } else {
        format!("entire-agent-* files on PATH: {}", on_path.join(", "))
    };
    hint.push_str(&format!(
        "; pass a path to run a plugin that is not installed (./{file}), or see \
         `agent-conform discover`"
    ));
    Err(UsageError::new(message, hint))
}
