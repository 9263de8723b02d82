//! The JSON Schema of case files (`schemas/case-file.json`, printed by
//! `agent-conform schema case-file`): every case file of the suite, of the
//! reference plugin and of the test plugins validates against it, and so
//! does the file `init` scaffolds; it lists the same checks, finding codes
//! and capabilities as the code; and it refuses what the loader refuses
//! (two checks, an unknown key, an `allow:` without a reason).

use crate::common;

use std::path::{Path, PathBuf};

use agent_conform::api::Kind;
use agent_conform::api::case::{CAPABILITIES, Check};
use agent_conform::api::schema::Schemas;
use assert_cmd::prelude::*;
use serde_json::Value;

const NAME: &str = "case-file";

fn schemas() -> Schemas {
    Schemas::compile().expect("the schemas compile")
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).expect("YAML")
}

/// The case files under `dir` (its `fixtures/` hold fixtures, not cases).
fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if path.is_dir() && name != "fixtures" {
            case_files(&path, out);
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            out.push(path);
        }
    }
}

/// The directories of case files in the repository: the embedded suite,
/// the reference plugin's, and every `*-cases` directory of the test plugins.
fn case_dirs() -> Vec<PathBuf> {
    let root = common::root();
    let mut dirs = vec![
        root.join("cases"),
        root.join("reference-plugin/conformance"),
    ];
    let mut stack = vec![root.join("tests/plugins")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("tests/plugins reads") {
            let path = entry.expect("entry").path();
            if !path.is_dir() {
                continue;
            }
            if path.to_string_lossy().ends_with("-cases") {
                dirs.push(path);
            } else {
                stack.push(path);
            }
        }
    }
    dirs
}

#[test]
fn every_case_file_of_the_repository_validates() {
    let schemas = schemas();
    let mut files = Vec::new();
    for dir in case_dirs() {
        case_files(&dir, &mut files);
    }
    assert!(files.len() > 25, "found only {files:?}");
    let broken: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("a case file reads");
            let violations = schemas.violations(NAME, &yaml(&text));
            (!violations.is_empty())
                .then(|| format!("{}:\n  {}", path.display(), violations.join("\n  ")))
        })
        .collect();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_scaffold_of_init_validates() {
    let info = agent_conform::api::init::Info {
        name: "Sample".into(),
        protected_dirs: vec![".sample".into()],
        hook_names: vec!["stop".into(), "session-start".into()],
        capabilities: CAPABILITIES.iter().map(|c| c.to_string()).collect(),
        env: vec!["SAMPLE_HOME".into()],
    };
    let request = agent_conform::api::init::Request {
        plugin: PathBuf::from("/bin/entire-agent-sample"),
        plugin_shown: "./entire-agent-sample".into(),
        dir: PathBuf::from("conformance"),
        github_workflow: false,
        force: false,
        cwd: PathBuf::from("/"),
        repo_root: None,
    };
    let files = agent_conform::api::init::scaffold(&info, &request);
    let case_file = files
        .iter()
        .find(|f| f.path.extension().is_some_and(|e| e == "yaml"))
        .expect("a case file");
    let violations = schemas().violations(NAME, &yaml(&case_file.text));
    assert!(violations.is_empty(), "{violations:?}\n{}", case_file.text);
    // Editors find the schema: the first line names the file written beside.
    let first = case_file.text.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "# yaml-language-server: $schema=case-file.schema.json"
    );
    let schema = files
        .iter()
        .find(|f| f.path == Path::new("conformance/case-file.schema.json"))
        .expect("the schema is written beside the case file");
    assert_eq!(
        Some(schema.text.as_str()),
        agent_conform::api::schema::source(NAME)
    );
}

/// The schema names what the code knows: a check added to [`Check`], a
/// finding kind or a capability must be added to the schema too.
#[test]
fn the_schema_lists_the_checks_codes_and_capabilities_of_the_code() {
    let schema: Value =
        serde_json::from_str(agent_conform::api::schema::source(NAME).expect("embedded"))
            .expect("JSON");
    let defs = &schema["$defs"];
    let one_of: Vec<&str> = defs["json_assert"]["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .map(|s| s["required"][0].as_str().expect("a key"))
        .collect();
    assert_eq!(one_of, Check::KEYS);
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .expect("an array")
            .iter()
            .map(|s| s.as_str().expect("a string").to_string())
            .collect()
    };
    let codes: Vec<String> = Kind::ALL.iter().map(|k| k.code().to_string()).collect();
    assert_eq!(strings(&defs["allow"]["properties"]["code"]["enum"]), codes);
    assert_eq!(strings(&defs["capability"]["enum"]), CAPABILITIES);
}

#[test]
fn the_schema_refuses_what_the_loader_refuses() {
    let schemas = schemas();
    let case = |assert: &str| {
        format!(
            "cases:\n  - id: x.y\n    title: t\n    steps:\n      - args: [detect]\n        \
             expect:\n          json:\n            - {assert}\n"
        )
    };
    let good = case("{pointer: /present, equals: true}");
    assert_eq!(schemas.violations(NAME, &yaml(&good)), Vec::<String>::new());
    for bad in [
        case("{pointer: /present, equals: true, contains: x}"),
        case("{pointer: /present}"),
        case("{pointer: /present, equal: true}"),
        case("{pointer: /present, not_empty: false}"),
        case("{pointer: present, equals: true}"),
        "allow: [{code: timeout}]\ncases: []\n".to_string(),
        "allow: [{code: no-such-code, reason: r}]\n".to_string(),
        "cases:\n  - id: x\n    title: t\n    steps: [{args: [info], action: check_file_name}]\n"
            .to_string(),
    ] {
        assert!(
            !schemas.violations(NAME, &yaml(&bad)).is_empty(),
            "the schema accepts:\n{bad}"
        );
    }
}

#[test]
fn schema_case_file_prints_the_file() {
    let out = common::harness()
        .args(["schema", NAME])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let file = std::fs::read(common::root().join("schemas/case-file.json")).expect("reads");
    assert_eq!(out.stdout, file);
    common::harness()
        .args(["schema"])
        .assert()
        .success()
        .stdout(predicates::str::contains("case-file\n"));
}
