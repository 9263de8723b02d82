//! `agent-conform init PLUGIN [DIR]`: scaffolds a plugin repository's
//! conformance directory from the plugin's `info`.
//!
//! The scaffold is one case file that loads and runs as is (detect present
//! and absent, a native-payload `parse-hook` case per name in `hook_names`),
//! commented templates for each declared transcript capability, a
//! `samples/README.md` saying which sample transcripts to add, the JSON
//! Schema of case files that the case file names for editors, and, with
//! `--ci github`, a workflow that builds the plugin and runs the action.
//! Every guess is marked `TODO` so that an author can find what to replace.
//! No file is overwritten without `--force`. With `--ci github` and a
//! conformance directory that exists already, only the workflow is
//! written (and the plugin is not asked).
//!
//! The scaffold's texts are written by `super::init_text` (case file,
//! samples README) and `super::init_ci` (the workflow, its build detected
//! by `super::init_build`); this module asks the plugin and writes files.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::running::runner::{Invocation, Termination};
use crate::running::sandbox::{self, Sandbox};
use crate::verbs::usage::UsageError;

use super::init_ci::workflow;
pub use super::init_ci::{CiPaths, ci_paths};
pub use super::init_text::{Info, Request};
use super::init_text::{SCHEMA_FILE, case_file, samples_readme, slug};

/// One file of the scaffold: where, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// Path to write.
    pub path: PathBuf,
    /// Contents.
    pub text: String,
}

/// What `init` did: the paths written, and what it says about them.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// The paths written, in order.
    pub paths: Vec<PathBuf>,
    /// One sentence each, printed as `note:` lines.
    pub notes: Vec<String>,
}

/// Runs `init`: asks the plugin for its `info`, then writes the scaffold;
/// or, with `--ci github` and a conformance directory that holds files
/// already, writes the workflow alone.
pub fn run(request: &Request) -> Result<Written, UsageError> {
    let mut notes = Vec::new();
    let files = if request.github_workflow && holds_files(&request.cwd.join(&request.dir)) {
        notes.push(format!(
            "{} exists: wrote only the workflow (init without --ci, with --force, rewrites the scaffold)",
            request.dir.display()
        ));
        vec![workflow_file(request)]
    } else {
        let info = query_info(&request.plugin)?;
        scaffold(&info, request)
    };
    write_all(&files, request.force)?;
    if request.github_workflow {
        let paths = ci_paths(request);
        notes.push(paths.build.note);
        notes.extend(paths.caveat);
    }
    Ok(Written {
        paths: files.into_iter().map(|f| f.path).collect(),
        notes,
    })
}

/// Whether `dir` is a directory with something in it.
fn holds_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// The workflow file of `request`.
fn workflow_file(request: &Request) -> File {
    let paths = ci_paths(request);
    File {
        text: workflow(&paths),
        path: paths.file,
    }
}

/// Runs `PLUGIN info` in a sandbox, as the host's discovery does, and reads
/// the fields the scaffold needs.
pub fn query_info(plugin: &Path) -> Result<Info, UsageError> {
    let error = |message: String| UsageError {
        message,
        hint: Some(format!(
            "agent-conform --only 'core.info*' {} shows what is wrong with info",
            plugin.display()
        )),
    };
    let sandbox = Sandbox::create("init", &sandbox::default_base())
        .map_err(|err| error(format!("cannot make a sandbox to run info in: {err}")))?;
    let mut inv = Invocation::new(
        plugin.to_path_buf(),
        vec!["info".to_string()],
        sandbox.repo(),
        crate::host::invocation::INFO_TIMEOUT,
    );
    inv.env = sandbox.env();
    inv.env_remove = sandbox::env_remove();
    // Nothing the call leaves running outlives it.
    inv.guard = Some(sandbox.guard(crate::running::bounds::DEFAULT_MAX_WRITE_MIB << 20));
    let outcome = crate::running::runner::run(&inv);
    match &outcome.termination {
        Termination::Exited(Some(0)) => {}
        Termination::Exited(code) => {
            return Err(error(format!(
                "{} info exited with {} ({})",
                plugin.display(),
                code.map_or("a signal".to_string(), |c| format!("code {c}")),
                String::from_utf8_lossy(&outcome.stderr).trim()
            )));
        }
        Termination::TimedOut => {
            return Err(error(format!(
                "{} info did not answer within 10 s",
                plugin.display()
            )));
        }
        Termination::SpawnFailed(why) => {
            return Err(error(format!("cannot run {}: {why}", plugin.display())));
        }
    }
    let value: Value = serde_json::from_slice(&outcome.stdout).map_err(|err| {
        error(format!(
            "{} info did not print one JSON object: {err}",
            plugin.display()
        ))
    })?;
    let mut info = parse_info(&value).map_err(error)?;
    info.env = crate::verbs::init_env::needed(plugin, &sandbox, &value);
    Ok(info)
}

/// Reads the scaffold's fields from an `info` document.
pub fn parse_info(value: &Value) -> Result<Info, String> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or("info has no \"name\" string")?
        .to_string();
    let strings = |key: &str| -> Vec<String> {
        value
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let capabilities = value
        .get("capabilities")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, on)| on.as_bool() == Some(true))
        .map(|(cap, _)| cap.clone())
        .collect();
    Ok(Info {
        name,
        protected_dirs: strings("protected_dirs"),
        hook_names: strings("hook_names"),
        capabilities,
        env: Vec::new(),
    })
}

/// The files of the scaffold (nothing is written).
pub fn scaffold(info: &Info, request: &Request) -> Vec<File> {
    let mut files = vec![
        File {
            path: request.dir.join(format!("{}.yaml", slug(&info.name))),
            text: case_file(info, request),
        },
        File {
            path: request.dir.join(SCHEMA_FILE),
            text: crate::suite::schema::source("case-file")
                .unwrap_or_default()
                .to_string(),
        },
        File {
            path: request.dir.join("samples").join("README.md"),
            text: samples_readme(info),
        },
    ];
    if request.github_workflow {
        files.push(workflow_file(request));
    }
    files
}

/// Writes every file, or none when one exists and `force` is off.
fn write_all(files: &[File], force: bool) -> Result<(), UsageError> {
    let existing: Vec<String> = files
        .iter()
        .filter(|f| f.path.exists())
        .map(|f| f.path.display().to_string())
        .collect();
    if !force && !existing.is_empty() {
        return Err(UsageError {
            message: format!(
                "{} already exist{}, and init never overwrites a file",
                existing.join(", "),
                if existing.len() == 1 { "s" } else { "" }
            ),
            hint: Some("pass --force to overwrite, or another DIR".to_string()),
        });
    }
    for file in files {
        let written = file
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&file.path, &file.text));
        written.map_err(|err| UsageError {
            message: format!("cannot write {}: {err}", file.path.display()),
            hint: Some("choose a DIR you can write to".to_string()),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::init_text::{cases, comment_out, event_type};

    #[test]
    fn the_guide_mapping_names_every_event_type_once_per_agent_column() {
        assert_eq!(event_type("stop"), Some((3, "TurnEnd")));
        assert_eq!(event_type("before-agent"), Some((2, "TurnStart")));
        assert_eq!(event_type("subagent-stop"), Some((7, "SubagentEnd")));
        assert_eq!(event_type("pre-tool-use"), None);
        assert_eq!(event_type("notification"), None);
    }

    #[test]
    fn slugs_keep_ids_plain() {
        assert_eq!(slug("Foo Bar"), "foo-bar");
        assert_eq!(slug("pre_task"), "pre_task");
        assert_eq!(slug("//"), "plugin");
    }

    #[test]
    fn info_without_a_name_is_refused() {
        assert!(parse_info(&serde_json::json!({"capabilities": {}})).is_err());
        let info = parse_info(&serde_json::json!({
            "name": "x",
            "hook_names": ["stop"],
            "capabilities": {"hooks": true, "token_calculator": false}
        }))
        .expect("parses");
        assert_eq!(info.hook_names, ["stop"]);
        assert_eq!(info.capabilities.into_iter().collect::<Vec<_>>(), ["hooks"]);
    }

    /// Every template, uncommented beside a sample, is a case file the
    /// loader accepts: an author who fills in the TODOs starts from valid YAML.
    #[test]
    fn every_template_loads_once_uncommented() {
        let info = Info {
            name: "Sample Agent".into(),
            protected_dirs: Vec::new(),
            hook_names: vec!["stop".into(), "pre-task".into(), "notification".into()],
            capabilities: crate::suite::case::CAPABILITIES
                .iter()
                .map(|c| c.to_string())
                .collect(),
            env: vec!["FOO_HOME".into()],
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let text = format!(
            "transcripts: [samples/session.jsonl]\n{}cases:\n{}",
            crate::verbs::init_env::block(&info.env),
            cases(&info, &slug(&info.name), true)
        );
        std::fs::create_dir_all(dir.path().join("samples")).expect("mkdir");
        std::fs::write(dir.path().join("sample.yaml"), &text).expect("write");
        for sample in ["session.jsonl", "subagent-task-1.jsonl"] {
            std::fs::write(dir.path().join("samples").join(sample), "{}\n").expect("write");
        }
        let schemas = crate::suite::schema::Schemas::compile().expect("schemas compile");
        let suite = crate::suite::case::load(&[dir.path().to_path_buf()], &schemas)
            .unwrap_or_else(|err| panic!("{err}\n{text}"));
        let ids: Vec<&str> = suite
            .cases
            .iter()
            .map(|c| c.id.as_str())
            .filter(|id| id.starts_with("sample-agent."))
            .collect();
        assert_eq!(
            ids,
            [
                "sample-agent.detect.absent",
                "sample-agent.detect.present",
                "sample-agent.parse-hook.stop",
                "sample-agent.parse-hook.pre-task",
                "sample-agent.parse-hook.notification",
                "sample-agent.transcript.analysis",
                "sample-agent.tokens",
                "sample-agent.subagents",
                "sample-agent.prepare",
                "sample-agent.compact",
            ]
        );
    }

    #[test]
    fn comment_out_keeps_indentation() {
        assert_eq!(
            comment_out("  - id: x\n    title: y\n\n      # note\n"),
            "  # - id: x\n  #   title: y\n\n  #     # note\n"
        );
    }
}
