//! `agent-conform run` (the default verb): the plugin found as the host
//! finds it, the suite loaded and selected, the run's sandbox folder, the
//! run itself, and its reports (human or JSON on stdout, JUnit, GitHub).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::execute::{self, Options};
use crate::judge::allow::{Allowance, By};
use crate::outcome::Kind;
use crate::suite::case::{Suite, glob};
use crate::suite::schema::Schemas;
use crate::verbs::reports::{github, human, remember, write_junit};
use crate::verbs::usage::UsageError;
use crate::verbs::{
    Format, RunArgs, check_plugin, compile_schemas, default_jobs, did_you_mean, load_suite,
    print_stdout,
};

pub(super) fn run(mut args: RunArgs) -> Result<ExitCode, UsageError> {
    let plugins = check_plugins(&args.plugins)?;
    let host = args.host.as_deref().map(check_host).transpose()?;
    if host.is_some() && plugins.len() > 1 {
        return Err(UsageError::new(
            "--host replays one plugin at a time",
            "run each plugin with --host in a run of its own",
        ));
    }
    let hosts = host_range(args.host_version.as_deref())?;
    if let Some(dir) = &args.sandbox_dir
        && !dir.is_dir()
    {
        return Err(UsageError::new(
            format!("--sandbox-dir {} is not a directory", dir.display()),
            "create it first, or leave the flag out",
        ));
    }
    if let Some(path) = &args.junit {
        check_output("--junit", path)?;
    }
    // From here on plugins run: Ctrl-C must not leave one running.
    crate::running::interrupt::install();
    // The sandboxes' .git skeleton asks git once whether it is accepted:
    // that runs while the suite loads and the schemas compile.
    let warm = std::thread::spawn(crate::running::sandbox::warm_up);
    let names: Vec<String> = plugins.iter().map(|p| agent_name(p)).collect();
    if args.cases.is_empty()
        && plugins.len() == 1
        && let Some(dir) = super::cases::beside()
    {
        eprintln!(
            "agent-conform: using the case files of {} (found in the current directory; --cases DIR names others)",
            dir.display()
        );
        args.cases.push(dir);
    }
    let dirs = super::cases::per_plugin(&args.cases, &names)?;
    let schemas = compile_schemas()?;
    let mut suites = dirs
        .iter()
        .map(|d| load_suite(d, &schemas))
        .collect::<Result<Vec<Suite>, UsageError>>()?;
    // The worlds, over the embedded suite before anything is selected: a
    // case runs in the same world whatever else runs (`--only` reruns it).
    let worlds = crate::suite::worlds::Design::new(
        crate::suite::worlds::Axes::embedded(),
        suites.first().map_or(&[][..], |s| &s.cases),
        world(args.world.as_deref())?,
    );
    let _ = warm.join();
    let rerun = match args.rerun_failed {
        true => Some(last_run(&plugins)?),
        false => None,
    };
    if let Some(record) = &rerun {
        unknown_failed(&suites[0], record)?;
        // The failed run's inputs and allowances, unless given again.
        args.seed = args.seed.or(record.seed);
        for allow in &record.allow {
            if !args.allow.contains(allow) {
                args.allow.push(allow.clone());
            }
        }
    }
    // Before the selection: an allowance may name cases `--only` leaves out.
    let allowed = suites
        .iter()
        .map(|suite| allowances(&args.allow, suite, &suites))
        .collect::<Result<Vec<_>, UsageError>>()?;
    if !args.large {
        for suite in &mut suites {
            suite.cases.retain(|c| !c.tags.iter().any(|t| t == "large"));
        }
    }
    select(&mut suites, &args.only, &args.skip)?;
    if let Some(record) = &rerun
        && !select_failed(&mut suites[0], &plugins[0], record, &args)
    {
        return Ok(ExitCode::SUCCESS);
    }
    // A folder of this user's own: in the --sandbox-dir given, or in the
    // shared default base one named after the user.
    let runs = match &args.sandbox_dir {
        Some(dir) => crate::running::runs::folder(dir, true),
        None => crate::running::runs::folder(&crate::running::sandbox::default_base(), false),
    };
    let run_dir = start_run_dir(&runs, &plugins[0], args.keep_temp)?;
    let options = Options {
        timeout: args
            .timeout
            .unwrap_or(crate::host::invocation::CALL_TIMEOUT),
        info_timeout: args
            .timeout
            .unwrap_or(crate::host::invocation::INFO_TIMEOUT),
        keep_temp: args.keep_temp,
        jobs: args.jobs.map_or_else(default_jobs, |j| j as usize),
        seed: args.seed.unwrap_or_else(random_seed),
        sandbox_base: run_dir.path().to_path_buf(),
        fail_fast: args.fail_fast,
        hosts,
        confine: !args.no_confine && confinement_available(),
        max_write: args
            .max_write
            .unwrap_or(crate::running::bounds::DEFAULT_MAX_WRITE_MIB)
            << 20,
        pedantic: args.pedantic,
        worlds,
        explore: args.explore,
    };
    let code = if plugins.len() == 1 {
        run_one(
            &args,
            &plugins[0],
            &suites[0],
            &schemas,
            &options,
            &allowed[0],
            host.as_deref(),
        )?
    } else {
        let suites: Vec<&Suite> = suites.iter().collect();
        super::many::run(&args, &plugins, &suites, &schemas, &options, &allowed)?
    };
    drop(run_dir);
    Ok(code)
}

/// One plugin: its run and its reports.
fn run_one(
    args: &RunArgs,
    plugin: &Path,
    suite: &Suite,
    schemas: &Schemas,
    options: &Options,
    allowed: &[Allowance],
    host: Option<&Path>,
) -> Result<ExitCode, UsageError> {
    let progress = crate::report::progress::Bar::for_terminal(suite.cases.len());
    let mut report = execute::run(plugin, suite, schemas, options, progress.as_ref());
    match host {
        Some(host) => replay_through(&mut report, host, suite, options),
        None => report.entire_on_path = entire_on_path(),
    }
    let outcomes = super::reports::allow(&mut report, allowed);
    // An interrupted run ends where it is stopped, not with a report made
    // of the calls the interruption cut short.
    crate::running::interrupt::hold_if_interrupted();
    if let Some(path) = &args.junit {
        write_junit(path, &report, args.strict)?;
    }
    github(&report, args.strict, args.format == Format::Json);
    match args.format {
        Format::Human => print_stdout(&human(args).render(&report)),
        Format::Json => print_stdout(&crate::report::json::render(&report, args.strict)),
    }
    remember(&report, &outcomes, &args.allow);
    Ok(ExitCode::from(u8::from(report.failed(args.strict))))
}

/// An output file the run will write (`--junit PATH`), checked before any
/// plugin runs: its directory must exist, and the path must not be a
/// directory itself, so that a typo costs a second, not a whole run.
pub(super) fn check_output(flag: &str, path: &Path) -> Result<(), UsageError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(UsageError::new(
            format!(
                "{flag} {}: the directory {} does not exist",
                path.display(),
                dir.display()
            ),
            format!(
                "create it first (mkdir -p {}), or write the file elsewhere",
                dir.display()
            ),
        ));
    }
    if path.is_dir() {
        return Err(UsageError::new(
            format!("{flag} {} is a directory, not a file", path.display()),
            format!(
                "name a file in it, such as {}",
                path.join("report.xml").display()
            ),
        ));
    }
    Ok(())
}

/// `--rerun-failed`: what is on record of the one plugin given. No run on
/// record is a usage error.
fn last_run(plugins: &[PathBuf]) -> Result<crate::running::rerun::Record, UsageError> {
    let [plugin] = plugins else {
        return Err(UsageError::new(
            "--rerun-failed takes one plugin",
            "rerun each plugin's failures in a run of its own",
        ));
    };
    let dir = crate::running::rerun::records_dir();
    crate::running::rerun::last_run(&dir, plugin).ok_or_else(|| {
        UsageError::new(
            format!("no earlier run of {} is on record", plugin.display()),
            "run it once without --rerun-failed",
        )
    })
}

/// `--rerun-failed`: every case that did not pass when it last ran must be
/// in this run's suite; one that is not (its case file not given again)
/// would be left out in silence, and a rerun that passes would say nothing
/// failed. A usage error that names them.
fn unknown_failed(suite: &Suite, record: &crate::running::rerun::Record) -> Result<(), UsageError> {
    let missing: Vec<&str> = record
        .ids
        .iter()
        .filter(|id| !suite.cases.iter().any(|c| &c.id == *id))
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(UsageError::new(
        format!(
            "--rerun-failed: the last run's case(s) {} that did not pass are not in this run's cases",
            missing.join(", ")
        ),
        "give the --cases directories that run had (their case files define them)",
    ))
}

/// `--rerun-failed`: keeps the cases (and the gate) that did not pass when
/// they last ran, saying on stderr which seed and allowances the rerun
/// takes; `false` when there are none, said too.
fn select_failed(
    suite: &mut Suite,
    plugin: &Path,
    record: &crate::running::rerun::Record,
    args: &RunArgs,
) -> bool {
    suite.cases.retain(|c| c.gate || record.ids.contains(&c.id));
    let rerun = suite.cases.iter().filter(|c| !c.gate).count();
    if rerun == 0 {
        eprintln!(
            "agent-conform: every case passed when it last ran against {}: nothing to rerun",
            plugin.display()
        );
        return false;
    }
    let seed = args.seed.map_or(String::new(), |s| format!(", seed {s}"));
    let allow = match args.allow.is_empty() {
        true => String::new(),
        false => format!(", --allow {}", args.allow.join(" --allow ")),
    };
    eprintln!(
        "agent-conform: rerunning the {rerun} case(s) that did not pass when they last ran \
         against {} (as that run did{seed}{allow})",
        plugin.display()
    );
    true
}

/// The kinds of finding the run allows: `--allow` codes first, then the
/// case files' `allow:` (the first allowance of a kind says why). An
/// unknown code is a usage error that lists the codes.
pub(super) fn allowances(
    flags: &[String],
    suite: &Suite,
    every: &[Suite],
) -> Result<Vec<Allowance>, UsageError> {
    let kind = |code: &str, given: String| {
        Kind::from_code(code.trim()).ok_or_else(|| {
            let codes: Vec<&str> = Kind::ALL.iter().map(|k| k.code()).collect();
            UsageError::new(
                format!("{given} is not a finding code"),
                format!(
                    "the codes (the JSON report's \"code\"): {}",
                    codes.join(", ")
                ),
            )
        })
    };
    let from_flags = flags.iter().map(|value| {
        let (code, cases) = crate::judge::allow::split_flag(value);
        Ok(Allowance {
            kind: kind(code, format!("--allow {value:?}"))?,
            cases: scope(cases, every, &format!("--allow {value:?}"))?,
            by: By::Flag,
        })
    });
    let from_files = suite.allow.iter().map(|entry| {
        let given = format!("{}: allow: {:?}", entry.at, entry.code);
        Ok(Allowance {
            kind: kind(&entry.code, given.clone())?,
            cases: scope(entry.case.as_deref(), std::slice::from_ref(suite), &given)?,
            by: By::CaseFile(entry.reason.clone()),
        })
    });
    from_flags.chain(from_files).collect()
}

/// The cases an allowance names (`@CASES`, `case:`), which must match a
/// case of one of the suites: a typo would otherwise allow nothing,
/// silently.
fn scope(cases: Option<&str>, suites: &[Suite], given: &str) -> Result<Option<String>, UsageError> {
    let Some(cases) = cases else {
        return Ok(None);
    };
    let matched = suites
        .iter()
        .any(|s| s.cases.iter().any(|c| glob(cases, &c.id)));
    if cases.is_empty() || !matched {
        return Err(UsageError::new(
            format!("{given}: no case id matches {cases:?}"),
            did_you_mean(cases, &suites[0]),
        ));
    }
    Ok(Some(cases.to_string()))
}

/// Every plugin found as the host finds it; the same agent name twice (two
/// paths, or one path given twice) is a usage error, since the host
/// registers one plugin per name.
fn check_plugins(given: &[PathBuf]) -> Result<Vec<PathBuf>, UsageError> {
    if given.is_empty() {
        return Err(UsageError::new(
            "no plugin given",
            "agent-conform ./entire-agent-foo",
        ));
    }
    let mut plugins: Vec<PathBuf> = Vec::new();
    for arg in given {
        let plugin = check_plugin(arg)?;
        let name = |p: &Path| agent_name(p);
        if let Some(earlier) = plugins.iter().find(|p| name(p) == name(&plugin)) {
            return Err(UsageError::new(
                format!(
                    "{} and {} are both agent {:?}: the host registers only one plugin per name",
                    earlier.display(),
                    plugin.display(),
                    name(&plugin)
                ),
                "run them one at a time, or give each plugin once",
            ));
        }
        plugins.push(plugin);
    }
    Ok(plugins)
}

/// The name the host registers a plugin under (`foo` of
/// `entire-agent-foo`), or its file name when it has none.
fn agent_name(plugin: &Path) -> String {
    crate::host::discovery::agent_name(plugin).unwrap_or_else(|| {
        plugin
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    })
}

/// The host range of `--host-version` (every release with external plugins
/// when none is given); a requirement that cannot be read is a usage error.
pub(super) fn host_range(
    requirement: Option<&str>,
) -> Result<crate::host::range::HostRange, UsageError> {
    let Some(text) = requirement else {
        return Ok(crate::host::range::HostRange::default());
    };
    crate::host::range::HostRange::parse(text).map_err(|err| {
        UsageError::new(
            format!("--host-version {text:?} is not a host requirement: {err}"),
            format!("give one such as {}", crate::host::range::EXAMPLE),
        )
    })
}

/// Makes the run's folder of sandboxes in the runs folder `runs` and
/// removes those of earlier runs beyond the newest ones (see
/// [`crate::running::runs`]), saying so.
pub(super) fn start_run_dir(
    runs: &Path,
    plugin: &Path,
    keep_temp: bool,
) -> Result<crate::running::runs::RunDir, UsageError> {
    let run_dir = crate::running::runs::RunDir::create(runs, plugin, keep_temp).map_err(|err| {
        UsageError::new(
            format!(
                "cannot make this run's sandbox folder in {}: {err}",
                runs.display()
            ),
            "pass --sandbox-dir DIR, a directory of yours that you can write",
        )
    })?;
    crate::running::interrupt::track_run_dir(run_dir.path());
    let removed = crate::running::runs::prune(runs);
    if removed.runs > 0 {
        eprintln!(
            "agent-conform: {} (the newest {} runs of each plugin of the last 24 hours stay; \
             `agent-conform clean` removes them all)",
            removed.line(runs),
            crate::running::runs::KEEP_RUNS
        );
    }
    Ok(run_dir)
}

/// Whether the kernel can confine the plugin's writes; if not, says so
/// once, on stderr (the report itself stays the same).
pub(super) fn confinement_available() -> bool {
    match crate::running::confine::probe() {
        Ok(()) => true,
        Err(reason) => {
            eprintln!(
                "agent-conform: note: the plugin's writes are not confined ({reason}); \
                 only writes inside the sandbox's own directory are detected, after each case"
            );
            false
        }
    }
}

/// A seed from the clock: each run explores other inputs, and the report
/// prints the seed so any failure reruns exactly.
pub(super) fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

/// Keeps the cases `--only` and `--skip` select, in each plugin's suite; a
/// pattern must match a case of one of them. The gate always runs, since
/// every other case depends on the plugin's `info`.
pub(super) fn select(
    suites: &mut [Suite],
    only: &[String],
    skip: &[String],
) -> Result<(), UsageError> {
    if only.is_empty() && skip.is_empty() {
        return Ok(());
    }
    let matches = |patterns: &[String], id: &str| patterns.iter().any(|p| glob(p, id));
    for pattern in only.iter().chain(skip) {
        let matched = suites
            .iter()
            .any(|s| s.cases.iter().any(|c| glob(pattern, &c.id)));
        if !matched {
            return Err(UsageError::new(
                format!("no case id matches {pattern:?}"),
                did_you_mean(pattern, &suites[0]),
            ));
        }
    }
    for suite in suites {
        suite.cases.retain(|c| {
            c.gate || ((only.is_empty() || matches(only, &c.id)) && !matches(skip, &c.id))
        });
    }
    Ok(())
}

/// `--world`, read against the embedded axes: a name it does not know is
/// a usage error naming the axes.
fn world(text: Option<&str>) -> Result<Option<crate::suite::worlds::World>, UsageError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let axes = crate::suite::worlds::Axes::embedded();
    axes.parse_world(text).map(Some).map_err(|why| {
        let names: Vec<&str> = axes.axes.iter().map(|a| a.id.as_str()).collect();
        UsageError::new(
            format!("--world {text:?} is no world agent-conform knows: {why}"),
            format!(
                "name values as AXIS=VALUE, comma-separated (axes: {}); `agent-conform explain worlds` lists them",
                names.join(", ")
            ),
        )
    })
}

/// `--host`: the session replayed through the real host, after the run,
/// and the host's word put on the findings it reaches (before `--allow`).
fn replay_through(
    report: &mut crate::outcome::results::RunReport,
    host: &Path,
    suite: &Suite,
    options: &Options,
) {
    let Some(info) = report.info.clone() else {
        return;
    };
    let request = execute::host_replay::Request {
        plugin: &report.plugin.clone(),
        host,
        info: &info,
        suite,
        sandbox_base: &options.sandbox_base,
        confine: options.confine,
        keep: options.keep_temp,
    };
    let mut replay = execute::host_replay::replay(&request);
    crate::judge::host_word::apply(&mut report.cases, &mut replay);
    report.host_replay = Some(replay);
}

/// The `--host` binary: a path, or a name looked up on `PATH`; it must be
/// an executable file.
fn check_host(given: &Path) -> Result<PathBuf, UsageError> {
    let shown = given.display();
    let found = match crate::host::discovery::plugin_path::is_bare_name(given) {
        true => on_path(&given.to_string_lossy()),
        false => Some(given.to_path_buf()),
    };
    let hint = "pass the path of the host's binary, e.g. --host ~/go/bin/entire";
    let Some(path) = found else {
        return Err(UsageError::new(
            format!("--host {shown}: not found on PATH"),
            hint,
        ));
    };
    let meta = std::fs::metadata(&path)
        .map_err(|_| UsageError::new(format!("--host {shown}: no such file"), hint))?;
    if meta.is_dir() || !crate::host::discovery::plugin_path::is_executable(&meta) {
        return Err(UsageError::new(
            format!("--host {shown} is not an executable file"),
            hint,
        ));
    }
    crate::running::runner::absolute_program(&path).map_err(|err| {
        UsageError::new(
            format!("cannot resolve --host {shown}: {err}"),
            "run agent-conform from an existing directory",
        )
    })
}

/// An executable `entire` on `PATH`, if there is one (the human report
/// then says how to replay through it).
fn entire_on_path() -> Option<PathBuf> {
    on_path("entire")
}

/// The first executable file `name` in a directory of `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|file| {
            std::fs::metadata(file).is_ok_and(|m| {
                m.is_file() && crate::host::discovery::plugin_path::is_executable(&m)
            })
        })
}
