//! The JSON reports of the reference plugin (with its own cases) and of a
//! failing plugin, compared with the ones recorded in tests/data/golden/,
//! modulo timings and paths. A refactoring must leave them as they are; a
//! change of what the suite says shows up here, in review, like the fault
//! matrix. After an intended change, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test --test golden`.
//!
//! Two plugins in one run (`two.json`): the reference plugin and a copy of
//! it named `entire-agent-twin` (one package installing one implementation
//! under two names, docs/host.md "Plugins installed together"): one
//! document with both reports and their conflicts.

use crate::common;

use std::path::Path;
use std::sync::LazyLock;

use serde_json::Value;

/// Keys whose values change from run to run: timings, memory, the
/// harness's version.
/// Output sizes too, since a plugin's output may hold its sandbox's path.
const VOLATILE: &[&str] = &[
    "harness",
    "peak_rss_bytes",
    "jobs",
    "stdout_bytes",
    "stderr_bytes",
];

/// The report with timings dropped and every run-specific path replaced:
/// the sandboxes (`<sandbox>`), the plugin (`<plugin>`), the repository
/// (`<root>`).
fn normalized(report: Value, sandboxes: &Path, plugin: &Path) -> Value {
    // Plugins that name a directory after the repository's path write it
    // with `-` for `/` and `.` (the reference plugin's session directory).
    let mangled = sandboxes.display().to_string().replace(['/', '.'], "-");
    let replacements = [
        (sandboxes.display().to_string(), "<sandboxes>".to_string()),
        (mangled, "<sandboxes>".to_string()),
        (plugin.display().to_string(), "<plugin>".to_string()),
        (common::root().display().to_string(), "<root>".to_string()),
    ];
    normalize(report, &replacements)
}

fn normalize(value: Value, replacements: &[(String, String)]) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !k.ends_with("_ms") && !VOLATILE.contains(&k.as_str()))
                .map(|(k, v)| (k, normalize(v, replacements)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| normalize(v, replacements))
                .collect(),
        ),
        Value::String(text) => {
            let text = replacements
                .iter()
                .fold(text, |text, (from, to)| text.replace(from.as_str(), to));
            Value::String(random_suffixes(&sandbox_names(&run_folders(&text))))
        }
        other => other,
    }
}

/// A run's sandboxes sit in a folder of its own (`agent-conform-runs/<plugin>-<date>-<time>-<pid>`,
/// see `src/running/runs.rs`): the folder is dropped, as plain and as mangled
/// path, so that `<sandboxes>/<run>/<sandbox>` reads `<sandboxes>/<sandbox>`.
fn run_folders(text: &str) -> String {
    // Compiled once: a report holds thousands of strings, and compiling
    // three expressions for each was most of this test's time.
    static PLAIN: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#"<sandboxes>/(?:agent-conform-runs/)?[^/\s"']+-\d{8}-\d{6}-\d+/"#)
            .expect("a regex")
    });
    static MANGLED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#"<sandboxes>-(?:agent-conform-runs-)?[^/\s"']*?-\d{8}-\d{6}-\d+-"#)
            .expect("a regex")
    });
    let (plain, mangled) = (&*PLAIN, &*MANGLED);
    let text = plain.replace_all(text, "<sandboxes>/");
    mangled.replace_all(&text, "<sandboxes>-").into_owned()
}

/// `<sandboxes>/<any name>` becomes `<sandboxes>/<sandbox>`: sandbox names
/// end in a random suffix.
fn sandbox_names(text: &str) -> String {
    const MARK: &str = "<sandboxes>/";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at + MARK.len()]);
        out.push_str("<sandbox>");
        rest = &rest[at + MARK.len()..];
        let end = rest
            .find(|c: char| c == '/' || c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A sandbox's name ends in six random characters; in a mangled path they
/// stand before the repository's (`-Caf---projects-repo`: `Café projects/repo`
/// with every other character a `-`; `-projects-repo` in the clean room's
/// place, and `-projects-repo-src-app` where the agent runs in a
/// subdirectory: docs/worlds.md).
fn random_suffixes(text: &str) -> String {
    static SUFFIX: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"-[A-Za-z0-9]{6}-((Caf-+)?projects-repo)").expect("a regex")
    });
    SUFFIX.replace_all(text, "-<random>-$1").into_owned()
}

fn check(name: &str, env: &[(&str, &str)]) {
    let sandboxes = tempfile::tempdir().expect("temp dir");
    let base = sandboxes
        .path()
        .to_str()
        .expect("utf-8 temp dir")
        .to_string();
    let cases = common::root().join("reference-plugin/conformance");
    let cases = cases.to_str().expect("utf-8 path").to_string();
    let plugin = common::reference();
    let args = [
        "--seed",
        "1",
        "-j",
        "1",
        "--cases",
        &cases,
        "--sandbox-dir",
        &base,
    ];
    let run = common::run_json(&plugin, &args, env);
    let got = normalized(run.report, sandboxes.path(), &plugin);
    compare(name, &got);
}

#[test]
fn the_reference_plugins_report_is_the_recorded_one() {
    check("reference", &[]);
}

#[test]
fn a_failing_plugins_report_is_the_recorded_one() {
    check(
        "failing",
        &[(
            "ENTIRE_AGENT_REFERENCE_FAULT",
            "session-id-changes-after-turn-end",
        )],
    );
}

#[test]
fn two_plugins_report_is_the_recorded_one() {
    let sandboxes = tempfile::tempdir().expect("temp dir");
    let base = sandboxes
        .path()
        .to_str()
        .expect("utf-8 temp dir")
        .to_string();
    let bin = tempfile::tempdir().expect("temp dir");
    let reference = common::reference();
    let twin = bin.path().join("entire-agent-twin");
    std::fs::copy(&reference, &twin).expect("the twin copied");
    let args = ["--seed", "1", "-j", "1", "--sandbox-dir", &base];
    let run = common::run_json_many(&[reference.clone(), twin.clone()], &args, &[]);
    assert_eq!(run.code, 1, "the twins conflict");
    let replacements = [
        (bin.path().display().to_string(), "<bin>".to_string()),
        (
            sandboxes.path().display().to_string(),
            "<sandboxes>".to_string(),
        ),
        (
            sandboxes
                .path()
                .display()
                .to_string()
                .replace(['/', '.'], "-"),
            "<sandboxes>".to_string(),
        ),
        (reference.display().to_string(), "<plugin>".to_string()),
        (common::root().display().to_string(), "<root>".to_string()),
    ];
    compare("two", &normalize(run.report, &replacements));
}

/// Compares a normalized report with the recorded one (or records it).
fn compare(name: &str, got: &Value) {
    let file = common::root().join(format!("tests/data/golden/{name}.json"));
    let pretty = serde_json::to_string_pretty(got).expect("JSON") + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&file, &pretty).expect("golden report written");
        return;
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    if want != pretty {
        let diff = similar::TextDiff::from_lines(&want, &pretty)
            .unified_diff()
            .context_radius(2)
            .header("recorded", "now")
            .to_string();
        let head: String = diff.lines().take(80).collect::<Vec<_>>().join("\n");
        panic!(
            "the {name} report differs from {} (UPDATE_GOLDEN=1 regenerates it after an intended \
             change):\n{head}",
            file.display()
        );
    }
}
