//! How the workflow `init --ci github` writes builds the plugin: detected
//! from the repository `init` runs in, so that the workflow is green as
//! written.
//!
//! The project is the nearest directory, from the plugin's own directory
//! (when it lies in the repository) and then from the current directory up
//! to the top of the repository, that holds a manifest: `go.mod` (`go build
//! -o BINARY PACKAGE`), `Cargo.toml` (`cargo build --release`, the binary
//! under `target/release/`), `package.json` (`npm ci`, the package's `bin`)
//! or `pyproject.toml` (a virtual environment, `pip install .`, the
//! project's script). Each build leaves the plugin at the path the
//! action's `binary-path` names, under the plugin's own file name. A plugin
//! that is a script in the repository (it starts with `#!`) needs no build;
//! anything else gets a step that fails, saying what to write there.
//!
//! Only files are read here: no build is run, and nothing is spawned.

use crate::outcome::repro::quote as sh;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The build the workflow runs before the action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// The workflow's steps, in order (none for a script in the repository).
    pub steps: Vec<Step>,
    /// The action's `binary-path`: where the steps leave the plugin,
    /// relative to the top of the repository.
    pub binary: String,
    /// What `init` says about it, one sentence.
    pub note: String,
    /// Whether the build is a TODO: nothing was detected.
    pub todo: bool,
}

/// One `run:` step of the workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The step's name.
    pub name: String,
    /// Its `working-directory`, relative to the top of the repository
    /// (`.` for the top itself).
    pub dir: String,
    /// The shell lines of its `run:`.
    pub run: Vec<String>,
}

/// Where the plugin is and what the workflow names it as.
#[derive(Debug, Clone)]
pub struct Plugin<'a> {
    /// The plugin binary, absolute.
    pub path: &'a Path,
    /// The `binary-path` the workflow would name without a build: relative
    /// to the top of the repository when `inside`, else as given.
    pub binary: &'a str,
    /// Whether the plugin lies inside the repository.
    pub inside: bool,
}

/// The manifests looked for, in the order they are preferred in one
/// directory.
const MANIFESTS: [&str; 4] = ["go.mod", "Cargo.toml", "package.json", "pyproject.toml"];

/// The build for `plugin` in the repository at `root` (or, outside a
/// repository, in `cwd` alone).
pub fn detect(root: Option<&Path>, cwd: &Path, plugin: &Plugin) -> Build {
    let name = plugin
        .path
        .file_name()
        .map_or_else(|| "entire-agent-plugin".into(), |n| n.to_string_lossy());
    let top = root.map_or_else(|| plain(cwd), plain);
    let given = plugin.inside.then_some(plugin.binary);
    if let Some((dir, manifest)) = project(root, cwd, plugin) {
        let at = Project {
            rel: relative(&top, &dir),
            dir,
            root: top,
            name: &name,
        };
        return match manifest {
            "go.mod" => go(&at, given),
            "Cargo.toml" => cargo(&at, given),
            "package.json" => npm(&at),
            _ => python(&at),
        };
    }
    let script = std::fs::read(plugin.path).is_ok_and(|bytes| bytes.starts_with(b"#!"));
    if plugin.inside && script {
        return Build {
            steps: Vec::new(),
            binary: plugin.binary.to_string(),
            note: format!(
                "{} is a script in the repository: the workflow runs it as checked out, with no build step",
                plugin.binary
            ),
            todo: false,
        };
    }
    todo(
        plugin.binary,
        &format!(
            "found no {} in the repository",
            MANIFESTS.join(", ").replace(", pyproject", " or pyproject")
        ),
    )
}

/// The directory a manifest was found in, and the top it is relative to.
struct Project<'a> {
    /// The directory, absolute.
    dir: PathBuf,
    /// It relative to `root` (`.` for the top).
    rel: String,
    /// The top of the repository (or the current directory outside one).
    root: PathBuf,
    /// The plugin's file name.
    name: &'a str,
}

impl Project<'_> {
    /// `path` (relative to the project) relative to the top.
    fn at(&self, path: &str) -> String {
        if self.rel == "." {
            path.to_string()
        } else {
            format!("{}/{path}", self.rel)
        }
    }

    /// `binary` (relative to the top) as the project's steps name it.
    fn in_steps(&self, binary: &str) -> String {
        if self.rel == "." {
            return sh(binary);
        }
        match binary.strip_prefix(&format!("{}/", self.rel)) {
            Some(rest) => sh(rest),
            None => format!("\"$GITHUB_WORKSPACE\"/{}", sh(binary)),
        }
    }

    /// A step of this project.
    fn step(&self, what: &str, run: Vec<String>) -> Step {
        Step {
            name: format!("Build the plugin ({})", self.at(what)),
            dir: self.rel.clone(),
            run,
        }
    }
}

/// The nearest directory holding a manifest, and which.
fn project(root: Option<&Path>, cwd: &Path, plugin: &Plugin) -> Option<(PathBuf, &'static str)> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    match root.map(plain) {
        Some(root) => {
            let from_plugin = plugin
                .inside
                .then(|| plugin.path.parent().map(plain))
                .flatten();
            for start in from_plugin.into_iter().chain([plain(cwd)]) {
                dirs.extend(
                    start
                        .ancestors()
                        .take_while(|d| d.starts_with(&root))
                        .map(Path::to_path_buf),
                );
            }
        }
        None => dirs.push(plain(cwd)),
    }
    dirs.into_iter().find_map(|dir| {
        MANIFESTS
            .iter()
            .find(|m| dir.join(m).is_file())
            .map(|m| (dir.clone(), *m))
    })
}

/// `go build -o BINARY PACKAGE`, into the path given when it lies in the
/// repository, else beside `go.mod`.
fn go(at: &Project, given: Option<&str>) -> Build {
    let binary = given.map_or_else(|| at.at(at.name), str::to_string);
    let package = go_package(&at.dir, at.name);
    let command = format!("go build -o {} {package}", at.in_steps(&binary));
    Build {
        note: format!(
            "the workflow builds the plugin as {} says: `{command}`",
            at.at("go.mod")
        ),
        steps: vec![at.step("go.mod", vec![command])],
        binary,
        todo: false,
    }
}

/// The package holding the plugin's `main`: the module's top, else
/// `./cmd/NAME`, else the first `./cmd/*` that is a main package.
fn go_package(dir: &Path, name: &str) -> String {
    if is_main(dir) {
        return ".".to_string();
    }
    let cmd = dir.join("cmd");
    if is_main(&cmd.join(name)) {
        return format!("./cmd/{}", sh(name));
    }
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&cmd)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    subdirs
        .iter()
        .find(|d| is_main(d))
        .and_then(|d| d.file_name())
        .map_or_else(
            || ".".to_string(),
            |n| format!("./cmd/{}", sh(&n.to_string_lossy())),
        )
}

/// Whether `dir` holds a Go file of `package main` (tests aside).
fn is_main(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let file = entry.file_name().to_string_lossy().into_owned();
        file.ends_with(".go")
            && !file.ends_with("_test.go")
            && std::fs::read_to_string(entry.path())
                .is_ok_and(|text| text.lines().any(|l| l.trim() == "package main"))
    })
}

/// `cargo build --release`: the binary under the workspace's
/// `target/release/`, or the path given when it is there already.
fn cargo(at: &Project, given: Option<&str>) -> Build {
    // The workspace's top is the highest Cargo.toml with `[workspace]`.
    let ancestors: Vec<&Path> = at
        .dir
        .ancestors()
        .take_while(|d| d.starts_with(&at.root))
        .collect();
    let workspace = ancestors
        .iter()
        .rev()
        .find(|d| {
            std::fs::read_to_string(d.join("Cargo.toml"))
                .ok()
                .and_then(|text| text.parse::<toml::Table>().ok())
                .is_some_and(|t| t.contains_key("workspace"))
        })
        .map_or_else(|| at.dir.clone(), |d| d.to_path_buf());
    let locked = ancestors.iter().any(|d| d.join("Cargo.lock").is_file());
    let built = {
        let top = relative(&at.root, &workspace);
        let under = format!("target/release/{}", at.name);
        if top == "." {
            under
        } else {
            format!("{top}/{under}")
        }
    };
    let binary = given
        .filter(|g| g.starts_with("target/release/") || g.contains("/target/release/"))
        .map_or(built, str::to_string);
    let command = format!(
        "cargo build --release{}",
        if locked { " --locked" } else { "" }
    );
    Build {
        note: format!(
            "the workflow builds the plugin as {} says: `{command}`, then runs {binary}",
            at.at("Cargo.toml")
        ),
        steps: vec![at.step("Cargo.toml", vec![command])],
        binary,
        todo: false,
    }
}

/// `npm ci` (`npm install` without a lockfile), the package's `build`
/// script when it has one, and its `bin` named as the plugin.
fn npm(at: &Project) -> Build {
    let manifest = at.at("package.json");
    let package: Value = std::fs::read_to_string(at.dir.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let bin = match package.get("bin") {
        Some(Value::String(path)) => Some((String::new(), path.clone())),
        Some(Value::Object(bins)) => bins
            .get(at.name)
            .map(|p| (at.name.to_string(), p))
            .or_else(|| bins.iter().next().map(|(k, p)| (k.clone(), p)))
            .and_then(|(k, p)| p.as_str().map(|p| (k, p.to_string()))),
        _ => None,
    };
    let Some((_, path)) = bin else {
        return todo(
            &at.at(at.name),
            &format!("{manifest} names no \"bin\" to run"),
        );
    };
    let locked = ["package-lock.json", "npm-shrinkwrap.json"]
        .iter()
        .any(|f| at.dir.join(f).is_file());
    let mut run = vec![if locked { "npm ci" } else { "npm install" }.to_string()];
    if package.pointer("/scripts/build").is_some() {
        run.push("npm run build".to_string());
    }
    let path = path.trim_start_matches("./").to_string();
    run.push(format!("chmod +x {}", sh(&path)));
    let binary = named(at, &path, &mut run);
    Build {
        note: format!(
            "the workflow installs the plugin as {manifest} says (`{}`), then runs {binary}",
            run[0]
        ),
        steps: vec![at.step("package.json", run)],
        binary,
        todo: false,
    }
}

/// A virtual environment with the project installed (`pip install .`),
/// and its script named as the plugin.
fn python(at: &Project) -> Build {
    let manifest = at.at("pyproject.toml");
    let table = std::fs::read_to_string(at.dir.join("pyproject.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .unwrap_or_default();
    let scripts = |path: &[&str]| -> Vec<String> {
        let mut value = table.get(path[0]);
        for key in &path[1..] {
            value = value.and_then(|v| v.get(key));
        }
        value
            .and_then(toml::Value::as_table)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut names = scripts(&["project", "scripts"]);
    names.extend(scripts(&["tool", "poetry", "scripts"]));
    let script = names
        .iter()
        .find(|n| n.as_str() == at.name)
        .or_else(|| names.first());
    let Some(script) = script else {
        return todo(
            &at.at(at.name),
            &format!("{manifest} declares no [project.scripts] to run"),
        );
    };
    let mut run = vec![
        "python3 -m venv .venv".to_string(),
        ".venv/bin/pip install .".to_string(),
    ];
    let binary = named(at, &format!(".venv/bin/{script}"), &mut run);
    Build {
        note: format!(
            "the workflow installs the plugin as {manifest} says (`pip install .` in a virtual environment), then runs {binary}"
        ),
        steps: vec![at.step("pyproject.toml", run)],
        binary,
        todo: false,
    }
}

/// The plugin at `path` (relative to the project), under the plugin's own
/// file name: `path` itself when it has it, else a link that has, made by
/// one more line of `run`. The binary's path relative to the top.
fn named(at: &Project, path: &str, run: &mut Vec<String>) -> String {
    if Path::new(path).file_name().is_some_and(|n| n == at.name) {
        return at.at(path);
    }
    let link = format!(".agent-conform/bin/{}", at.name);
    run.push(format!(
        "mkdir -p .agent-conform/bin && ln -sf \"$PWD\"/{} {}",
        sh(path),
        sh(&link)
    ));
    at.at(&link)
}

/// A step that fails, saying what to write there.
fn todo(binary: &str, why: &str) -> Build {
    let message = format!(
        "TODO: agent-conform init {why}: write this step, so that it builds the plugin into {binary}"
    );
    Build {
        steps: vec![Step {
            name: "Build the plugin (TODO)".to_string(),
            dir: ".".to_string(),
            run: vec![format!("echo {} >&2", sh(&message)), "exit 1".to_string()],
        }],
        binary: binary.to_string(),
        note: format!("{why}: the workflow's build step is a TODO that fails until you write it"),
        todo: true,
    }
}

/// `path` relative to `root`, `/`-separated (`.` for `root` itself).
fn relative(root: &Path, path: &Path) -> String {
    let parts: Vec<String> = path
        .strip_prefix(root)
        .map(|rel| {
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// `path` with its links resolved, when it exists.
fn plain(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with `files` (path, text), and the build `detect` finds
    /// for a plugin at `plugin` in it.
    fn build(files: &[(&str, &str)], plugin: &str, inside: bool) -> Build {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = plain(dir.path());
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let path = root.join(plugin);
        detect(
            Some(&root),
            &root,
            &Plugin {
                path: &path,
                binary: plugin,
                inside,
            },
        )
    }

    fn runs(build: &Build) -> Vec<String> {
        build.steps.iter().flat_map(|s| s.run.clone()).collect()
    }

    #[test]
    fn go_builds_the_main_package_into_the_given_path() {
        let top = build(
            &[("go.mod", "module x\n"), ("main.go", "package main\n")],
            "entire-agent-foo",
            true,
        );
        assert_eq!(runs(&top), ["go build -o entire-agent-foo ."]);
        assert_eq!(top.binary, "entire-agent-foo");
        let cmd = build(
            &[
                ("agents/foo/go.mod", "module x\n"),
                ("agents/foo/lib.go", "package foo\n"),
                ("agents/foo/cmd/entire-agent-foo/main.go", "package main\n"),
            ],
            "agents/foo/bin/entire-agent-foo",
            true,
        );
        assert_eq!(
            runs(&cmd),
            ["go build -o bin/entire-agent-foo ./cmd/entire-agent-foo"]
        );
        assert_eq!(cmd.steps[0].dir, "agents/foo");
        assert_eq!(cmd.binary, "agents/foo/bin/entire-agent-foo");
    }

    #[test]
    fn cargo_runs_the_release_binary_of_the_workspace() {
        let files = [
            ("Cargo.toml", "[workspace]\nmembers = [\"plugin\"]\n"),
            ("Cargo.lock", ""),
            (
                "plugin/Cargo.toml",
                "[package]\nname = \"entire-agent-foo\"\n",
            ),
        ];
        let outside = build(&files, "plugin/entire-agent-foo", false);
        assert_eq!(runs(&outside), ["cargo build --release --locked"]);
        assert_eq!(outside.binary, "target/release/entire-agent-foo");
    }

    #[test]
    fn npm_and_python_name_the_plugin_as_given() {
        let npm = build(
            &[(
                "package.json",
                r#"{"bin": {"entire-agent-foo": "./dist/cli.js"}, "scripts": {"build": "tsc"}}"#,
            )],
            "entire-agent-foo",
            false,
        );
        assert_eq!(
            runs(&npm),
            [
                "npm install",
                "npm run build",
                "chmod +x dist/cli.js",
                "mkdir -p .agent-conform/bin && ln -sf \"$PWD\"/dist/cli.js .agent-conform/bin/entire-agent-foo"
            ]
        );
        assert_eq!(npm.binary, ".agent-conform/bin/entire-agent-foo");
        let python = build(
            &[(
                "pyproject.toml",
                "[project]\nname = \"foo\"\n[project.scripts]\nentire-agent-foo = \"foo:main\"\n",
            )],
            "entire-agent-foo",
            false,
        );
        assert_eq!(
            runs(&python),
            ["python3 -m venv .venv", ".venv/bin/pip install ."]
        );
        assert_eq!(python.binary, ".venv/bin/entire-agent-foo");
    }

    #[test]
    fn nothing_detected_is_a_step_that_fails() {
        let none = build(&[("README.md", "")], "entire-agent-foo", false);
        let run = runs(&none);
        assert!(run[0].starts_with("echo 'TODO: agent-conform init found no go.mod, Cargo.toml, package.json or pyproject.toml"), "{run:?}");
        assert_eq!(run[1], "exit 1");
        let script = build(
            &[("entire-agent-foo", "#!/bin/sh\n")],
            "entire-agent-foo",
            true,
        );
        assert!(script.steps.is_empty(), "{script:?}");
    }

    #[test]
    fn words_are_quoted_for_sh() {
        assert_eq!(sh("a/b-c.d"), "a/b-c.d");
        assert_eq!(sh("a b"), "'a b'");
        assert_eq!(sh("it's"), r"'it'\''s'");
    }
}
