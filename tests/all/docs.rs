//! The documentation stays true to the repository and to the command line:
//! every relative link of the README, ARCHITECTURE.md and `docs/*.md` (and
//! of the plugin READMEs) names a file that exists, and an `#anchor` names a
//! heading of that file; the options table of `docs/running.md` lists
//! exactly the long flags clap gives the run verb; the usage block lists
//! every other verb's flags; the README keeps the two project-build
//! commands `.ci/run` runs.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The Markdown files whose links are checked.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut files = vec![
        root.join("README.md"),
        root.join("ARCHITECTURE.md"),
        root.join("CHANGELOG.md"),
        root.join("reference-plugin/README.md"),
        root.join("tests/plugins/README.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The lines of a Markdown text outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// A line with its inline code spans removed (a link inside backticks is
/// no link).
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for ch in line.chars() {
        if ch == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(ch);
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a text. Links may
/// span a line break between `[` and `]`, so the prose is joined first.
fn link_targets(text: &str) -> Vec<String> {
    let prose: Vec<String> = prose_lines(text)
        .into_iter()
        .map(without_code_spans)
        .collect();
    let joined = prose.join("\n");
    let mut targets = Vec::new();
    let mut rest = joined.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => {
                targets.push(after[..end].trim().to_string());
                rest = &after[end..];
            }
            None => break,
        }
    }
    targets
}

/// GitHub's anchor of a heading: lower case, punctuation dropped except `-`
/// and `_`, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a Markdown file, repeated headings numbered as GitHub
/// numbers them (`name`, `name-1`, ...).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut all = BTreeSet::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let count = seen.entry(base.clone()).or_insert(0);
        let anchor = if *count == 0 {
            base.clone()
        } else {
            format!("{base}-{count}")
        };
        *count += 1;
        all.insert(anchor);
    }
    all
}

fn is_external(target: &str) -> bool {
    target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:")
}

/// The broken links of one document, each as a line of the failure message.
fn broken_links(doc: &Path) -> Vec<String> {
    let text = read(doc);
    let dir = doc.parent().expect("a document's directory");
    let mut broken = Vec::new();
    for target in link_targets(&text) {
        if is_external(&target) {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        let path = if file.is_empty() {
            doc.to_path_buf()
        } else {
            dir.join(file)
        };
        if !path.exists() {
            broken.push(format!("{}: ({target}): no such file", doc.display()));
            continue;
        }
        let Some(anchor) = anchor else { continue };
        if path.extension().is_none_or(|ext| ext != "md") {
            broken.push(format!(
                "{}: ({target}): an anchor into a file that is not Markdown",
                doc.display()
            ));
            continue;
        }
        if !anchors(&read(&path)).contains(anchor) {
            broken.push(format!(
                "{}: ({target}): no heading with the anchor #{anchor} in {}",
                doc.display(),
                path.display()
            ));
        }
    }
    broken
}

#[test]
fn every_relative_link_resolves() {
    let broken: Vec<String> = documents()
        .iter()
        .flat_map(|doc| broken_links(doc))
        .collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_can_fail() {
    let dir = std::env::temp_dir().join(format!("agent-conform-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let doc = dir.join("a.md");
    std::fs::write(
        &doc,
        "# Top\n\n## Some `code`: here\n\n[ok](#some-code-here) [ok](a.md#top) [bad](b.md) \
         [bad](#nowhere) `[not a link](c.md)`\n\n```\n[not a link](d.md)\n```\n",
    )
    .expect("write a.md");
    let broken = broken_links(&doc);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(broken.len(), 2, "{broken:#?}");
    assert!(broken[0].contains("(b.md): no such file"), "{broken:#?}");
    assert!(broken[1].contains("#nowhere"), "{broken:#?}");
}

#[test]
fn anchors_are_numbered_like_github() {
    let all = anchors("# A b\n## A b\n### Why: `discover`\n## The plugin's own\n");
    let want: BTreeSet<String> = ["a-b", "a-b-1", "why-discover", "the-plugins-own"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(all, want);
}

/// The long flags (`--name`, without the dashes) in a text.
fn long_flags(text: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        let before = rest[..at].chars().last();
        let name: String = rest[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let word_start = before.is_none_or(|c| !c.is_alphanumeric() && c != '-');
        if word_start && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            flags.insert(name.trim_end_matches('-').to_string());
        }
        rest = &rest[at + 2..];
    }
    flags
}

/// The long flags clap prints in `agent-conform [VERB] --help`, without
/// clap's own `--help` and `--version`.
fn clap_flags(verb: Option<&str>) -> BTreeSet<String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-conform"));
    command.args(verb).arg("--help");
    let output = command.output().expect("agent-conform --help runs");
    assert!(output.status.success(), "{verb:?} --help: {output:?}");
    let help = String::from_utf8(output.stdout).expect("UTF-8 help");
    let options: String = help
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            line.starts_with("--") || (line.starts_with('-') && line.get(2..4) == Some(", "))
        })
        .map(|line| {
            line.split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut flags = long_flags(&options);
    flags.remove("help");
    flags.remove("version");
    flags
}

/// The text of a `## NAME` section of a Markdown text.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let head = format!("\n## {name}\n");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("no section {name:?}"))
        + head.len();
    let end = text[start..]
        .find("\n## ")
        .map_or(text.len(), |end| start + end);
    &text[start..end]
}

#[test]
fn the_options_table_is_the_run_verbs_flags() {
    let running = read(&root().join("docs/running.md"));
    let table: String = section(&running, "Options")
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| line.split('|').nth(1).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let documented = long_flags(&table);
    for verb in [None, Some("run")] {
        let clap = clap_flags(verb);
        let missing: Vec<_> = clap.difference(&documented).collect();
        let stale: Vec<_> = documented.difference(&clap).collect();
        assert!(
            missing.is_empty() && stale.is_empty(),
            "docs/running.md \"Options\" against `agent-conform {} --help`: \
             flags without a row: {missing:?}; rows of no flag: {stale:?}",
            verb.unwrap_or("")
        );
    }
}

/// Every verb of `agent-conform --help`, the hidden ones aside.
fn verbs() -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_agent-conform"))
        .arg("--help")
        .output()
        .expect("agent-conform --help runs");
    let help = String::from_utf8(output.stdout).expect("UTF-8 help");
    let commands = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section in --help");
    commands
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|verb| *verb != "help" && *verb != "run")
        .map(String::from)
        .collect()
}

#[test]
fn the_usage_block_lists_every_verb_and_its_flags() {
    let running = read(&root().join("docs/running.md"));
    let usage = section(&running, "Usage");
    let mut documented = long_flags(usage);
    documented.remove("help");
    let verbs = verbs();
    assert!(verbs.len() >= 8, "verbs found in --help: {verbs:?}");
    let mut all = BTreeSet::new();
    for verb in &verbs {
        assert!(
            usage.contains(&format!("agent-conform {verb}")),
            "docs/running.md \"Usage\" has no line for `agent-conform {verb}`"
        );
        let flags = clap_flags(Some(verb));
        let missing: Vec<_> = flags.difference(&documented).collect();
        assert!(
            missing.is_empty(),
            "docs/running.md \"Usage\" does not show `agent-conform {verb}`'s {missing:?}"
        );
        all.extend(flags);
    }
    let stale: Vec<_> = documented.difference(&all).collect();
    assert!(
        stale.is_empty(),
        "docs/running.md \"Usage\" names flags no verb has: {stale:?}"
    );
}

#[test]
fn the_readme_keeps_the_commands_ci_runs() {
    let readme = read(&root().join("README.md"));
    let ci = read(&root().join(".ci/run"));
    let test_command = "cargo fmt --all -- --check && cargo clippy --workspace --all-targets -- -D warnings && cargo test --workspace";
    assert!(readme.contains(test_command), "README lost command 2");
    assert!(
        ci.contains(test_command),
        ".ci/run no longer runs the README's command 2"
    );
    assert!(
        readme.contains("cargo build --release --workspace && ./target/release/agent-conform --strict ./target/release/entire-agent-reference"),
        "README lost command 1"
    );
}

#[test]
fn the_readme_stays_short() {
    // Issue 59's bound: under 300 (the report's examples fold at 100
    // columns, as a log shows them).
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines < 300,
        "README.md has {lines} lines: move detail into docs/"
    );
}

/// The YAML blocks of a Markdown text marked `<!-- loads as a case file -->`
/// on the line before their fence.
fn marked_case_files(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "<!-- loads as a case file -->" {
            continue;
        }
        assert_eq!(
            lines.next().map(str::trim),
            Some("```yaml"),
            "a marked block opens with ```yaml"
        );
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        blocks.push(block.join("\n") + "\n");
    }
    blocks
}

/// docs/writing-cases.md's examples of `allow:`, `agent:` and every harness
/// action load as they are written (agent-conform's own loader and
/// validator, through `list --cases`), and together they show every action
/// the case-file schema knows, in its form.
#[test]
fn the_documented_case_file_examples_load_and_show_every_action() {
    let doc = read(&root().join("docs/writing-cases.md"));
    let blocks = marked_case_files(&doc);
    assert!(blocks.len() >= 3, "marked examples: {}", blocks.len());
    for (n, block) in blocks.iter().enumerate() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("example.yaml"), block).expect("write");
        let out = Command::new(env!("CARGO_BIN_EXE_agent-conform"))
            .args(["list", "--cases"])
            .arg(dir.path())
            .output()
            .expect("agent-conform runs");
        assert!(
            out.status.success(),
            "example {n} does not load: {}\n{block}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let all = blocks.concat();
    assert!(
        all.contains("\nallow:") || all.starts_with("allow:"),
        "no allow: example"
    );
    assert!(all.contains("case: "), "no allow: example scoped to cases");
    assert!(
        all.starts_with("agent:") || all.contains("\nagent:"),
        "no agent: example"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&read(&root().join("schemas/case-file.json"))).expect("the schema");
    let mut actions: Vec<String> = Vec::new();
    for form in schema["$defs"]["action"]["oneOf"]
        .as_array()
        .expect("action forms")
    {
        match form["enum"].as_array() {
            Some(names) => actions.extend(
                names
                    .iter()
                    .filter_map(|n| n.as_str())
                    .map(|n| format!("action: {n}")),
            ),
            None => actions.extend(
                form["required"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|k| k.as_str())
                    .map(|k| format!("action: {{{k}: ")),
            ),
        }
    }
    assert!(actions.len() > 10, "{actions:?}");
    let missing: Vec<&String> = actions
        .iter()
        .filter(|a| !all.contains(a.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "actions with no tested example in docs/writing-cases.md: {missing:?}"
    );
}
