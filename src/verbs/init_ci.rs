//! The workflow `agent-conform init --ci github` writes: where it goes,
//! the paths it names (relative to the top of the repository, the runner's
//! working directory after checkout), the plugin's build
//! (`super::init_build`) and the action's reference.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::init_build::{self, Build};
use super::init_text::{Request, quoted};

/// Where the workflow goes and the paths it names: relative to the top of
/// the repository, which is the runner's working directory after
/// `actions/checkout`; `caveat` says why a path could not be made so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CiPaths {
    /// The workflow file to write.
    pub file: PathBuf,
    /// The action's `binary-path`: where the build leaves the plugin.
    pub binary: String,
    /// The action's `cases`.
    pub cases: String,
    /// Why `binary` (or `cases`) is the path as given, not one relative to
    /// the repository.
    pub caveat: Option<String>,
    /// The steps that build the plugin, detected from the repository.
    pub build: Build,
}

/// The workflow's paths for `request` (see [`CiPaths`]).
pub fn ci_paths(request: &Request) -> CiPaths {
    let workflow = Path::new(".github/workflows/agent-conform.yml");
    let dir = request.cwd.join(&request.dir);
    let Some(root) = &request.repo_root else {
        let build = init_build::detect(
            None,
            &request.cwd,
            &init_build::Plugin {
                path: &request.plugin,
                binary: &request.plugin_shown,
                inside: false,
            },
        );
        return CiPaths {
            file: workflow.to_path_buf(),
            binary: build.binary.clone(),
            cases: request.dir.display().to_string(),
            caveat: Some(format!(
                "{} is not inside a git repository, so the workflow's binary-path \
                 ({}) and cases are the paths as given: make them relative to the \
                 repository's top, where the workflow runs",
                request.cwd.display(),
                build.binary
            )),
            build,
        };
    };
    let cases = within(root, &dir);
    let binary = within(root, &request.plugin);
    let build = init_build::detect(
        Some(root),
        &request.cwd,
        &init_build::Plugin {
            path: &request.plugin,
            binary: binary.as_deref().unwrap_or(&request.plugin_shown),
            inside: binary.is_some(),
        },
    );
    let caveat = match (&binary, &cases) {
        (Some(_), Some(_)) => None,
        // The build puts the plugin in the repository.
        (None, Some(_)) if !build.todo => None,
        (None, _) => Some(format!(
            "{} lies outside the repository {}, so the runner cannot find it there: \
             the workflow's binary-path is {} as given; build the plugin inside the \
             repository (the workflow's TODO step) and put that path there",
            request.plugin.display(),
            root.display(),
            request.plugin_shown
        )),
        (Some(_), None) => Some(format!(
            "{} lies outside the repository {}: the workflow's cases is the path as given",
            dir.display(),
            root.display()
        )),
    };
    // A path of the repository's top, `entire-agent-foo`, would be a name
    // to look up on PATH.
    let binary = if (binary.is_some() || !build.todo) && !build.binary.contains('/') {
        format!("./{}", build.binary)
    } else {
        build.binary.clone()
    };
    CiPaths {
        file: root.join(workflow),
        binary,
        cases: cases.unwrap_or_else(|| request.dir.display().to_string()),
        caveat,
        build,
    }
}

/// `path` relative to `root`, `/`-separated, when it lies inside it.
fn within(root: &Path, path: &Path) -> Option<String> {
    let plain = |p: &Path| -> PathBuf {
        let canonical = p.canonicalize().ok();
        canonical.unwrap_or_else(|| p.components().collect())
    };
    let root = plain(root);
    // The file itself is not resolved: a symbolic link inside the
    // repository is where the runner finds it. It may not exist yet either
    // (a cases directory to write).
    let path = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => plain(parent).join(name),
        _ => plain(path),
    };
    let rel = path.strip_prefix(&root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    })
}

/// The workflow's build steps, as YAML items of `steps:`.
fn build_steps(build: &Build) -> String {
    let mut text = String::new();
    for step in &build.steps {
        let _ = writeln!(text, "      - name: {}", quoted(&step.name));
        if step.dir != "." {
            let _ = writeln!(text, "        working-directory: {}", quoted(&step.dir));
        }
        text.push_str("        run: |\n");
        for line in &step.run {
            let _ = writeln!(text, "          {line}");
        }
    }
    text
}

/// `.github/workflows/agent-conform.yml`: builds the plugin and runs the
/// action on every push.
pub(super) fn workflow(paths: &CiPaths) -> String {
    format!(
        "\
# Runs agent-conform on every push and pull request; scaffolded by
# `agent-conform init --ci github`. Paths are relative to the repository's
# top, the runner's working directory after actions/checkout.
name: agent-conform

on:
  push:
  pull_request:

jobs:
  conformance:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
{build}      # @main, the default branch, builds agent-conform from source (cached
      # after the first run). Once agent-conform has a release, pin its tag
      # instead, which downloads the checked binary: entireio/agent-conform@v{version}
      - uses: entireio/agent-conform@main
        with:
          binary-path: {plugin}
          cases: {dir}
          strict: \"true\"
          # pedantic: \"true\"  # run the protocol-only cases too (calls the host
          #                     # never makes, inputs it never sends): they warn
          junit: agent-conform-junit.xml
      - if: always()
        uses: actions/upload-artifact@v4
        with:
          name: agent-conform-junit
          path: agent-conform-junit.xml
",
        build = build_steps(&paths.build),
        plugin = quoted(&paths.binary),
        dir = quoted(&paths.cases),
        version = env!("CARGO_PKG_VERSION"),
    )
}
