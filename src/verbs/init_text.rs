//! The texts `agent-conform init` writes: the case file (detect, a
//! `parse-hook` case per hook name, commented templates per declared
//! capability, `env:` when the plugin names a variable its agent sets, the
//! case-file schema named for editors) and the samples README (the GitHub
//! workflow is `init_ci`'s). Split from `init.rs`, which asks
//! the plugin and writes the files; everything here is a pure function of
//! the plugin's `Info` and the `Request`, which are defined here (and
//! re-exported by `init`) so that this module names no other.

use crate::outcome::Kind;
use std::fmt::Write as _;

use std::collections::BTreeSet;
use std::path::PathBuf;

/// What `init` was asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    /// The plugin binary, absolute.
    pub plugin: PathBuf,
    /// The plugin as the user wrote it (shown in commands and the workflow).
    pub plugin_shown: String,
    /// The conformance directory to write.
    pub dir: PathBuf,
    /// Also write `.github/workflows/agent-conform.yml` (at the top of the
    /// git repository around the current directory, else under it).
    pub github_workflow: bool,
    /// The current directory, absolute.
    pub cwd: PathBuf,
    /// The top of the git repository around the current directory, if any:
    /// the workflow's paths are relative to it, as the runner checks it out.
    pub repo_root: Option<PathBuf>,
    /// Overwrite existing files.
    pub force: bool,
}

/// The parts of a plugin's `info` the scaffold is made from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// `info.name`.
    pub name: String,
    /// `info.protected_dirs`: the first one is the guess for what `detect` looks for.
    pub protected_dirs: Vec<String>,
    /// `info.hook_names`.
    pub hook_names: Vec<String>,
    /// The capabilities declared `true`.
    pub capabilities: BTreeSet<String>,
    /// Variables the agent sets for the plugin that the sandbox does not
    /// (see `crate::verbs::init_env`): the scaffold sets them with `env:`.
    pub env: Vec<String>,
}

/// The Event type (number and name) the guide's "Event Mapping Reference"
/// gives a hook name, across the agents it lists. `pre-tool-use` and
/// `post-tool-use` are left out: they map to subagent events only under a
/// config-level matcher.
pub fn event_type(hook: &str) -> Option<(u8, &'static str)> {
    let found = match hook {
        "session-start" => (1, "SessionStart"),
        "user-prompt-submit"
        | "before-agent"
        | "before-submit-prompt"
        | "turn-start"
        | "user-prompt-submitted" => (2, "TurnStart"),
        "stop" | "after-agent" | "turn-end" | "agent-stop" => (3, "TurnEnd"),
        "pre-compress" | "pre-compact" | "compaction" => (4, "Compaction"),
        "session-end" => (5, "SessionEnd"),
        "pre-task" | "subagent-start" => (6, "SubagentStart"),
        "post-task" | "subagent-stop" => (7, "SubagentEnd"),
        _ => return None,
    };
    Some(found)
}

/// A name made safe for case ids and file names: lower-case ASCII letters,
/// digits, `-` and `_`.
pub(super) fn slug(name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if slug.trim_matches('-').is_empty() {
        "plugin".to_string()
    } else {
        slug
    }
}

/// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
pub(super) fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// The file beside the case file that holds the JSON Schema of case files
/// (`agent-conform schema case-file`), which the case file's first line
/// names for editors (the YAML language server's modeline).
pub(super) const SCHEMA_FILE: &str = "case-file.schema.json";

/// The header of the case file: the schema for editors, how to run it and
/// what to replace.
fn header(info: &Info, request: &Request) -> String {
    format!(
        "\
# yaml-language-server: $schema={SCHEMA_FILE}
# Conformance cases of {name}, scaffolded by `agent-conform init` from its
# `info`: the part of conformance no generic case can know.
#
# First, record a session of your agent: its real payloads, transcripts and
# events replace the guesses below, and the suite replays them in CI:
#   agent-conform record --out {dir} {plugin} -- <your agent's command>
# It writes {dir}/<agent>-session.yaml and {dir}/samples/recorded/; read them
# before committing (prompts, paths, secrets; --redact REGEX replaces matches).
# Then run these cases with the embedded suite:
#   agent-conform --cases {dir} {plugin}
#
# Every case below loads and runs as is. Cases marked `guess: true` send a
# payload guessed by init (shaped like Claude Code's): while your plugin
# refuses it, the run says so in one note and fails nothing; paste a payload
# your agent really sends (a recording's samples/recorded/ holds them) and
# delete `guess: true`. Other lines marked TODO are guesses to check; commented
# blocks are templates for the capabilities your plugin declares, to fill in
# and uncomment once samples/ holds a transcript.
# agent-conform's docs/writing-cases.md describes every key. Paths in
# `path:` sources and in `transcripts:` are relative to this file.
# Editors with the YAML language server (VS Code's YAML extension, Neovim,
# Helix, Zed) complete and check every key from {SCHEMA_FILE}, named on the
# first line; after upgrading agent-conform, refresh it with
#   agent-conform schema case-file > {dir}/{SCHEMA_FILE}

# TODO: copy a real session transcript of your agent to samples/ (see
# samples/README.md; a recording's samples/recorded/ holds some) and uncomment
# the line below: the sample then joins the chunking round trips
# (core.chunk.own-samples) and must always round-trip.
# transcripts: [samples/session.jsonl]

{allow}
# TODO: the agent as installed on a user's machine: the files it creates itself
# under {{{{home}}}} and in {{{{repo}}}}, the variables it sets (a recording writes
# this section). core.detect.installed then asks detect there: present with
# hooks, absent without (a detected agent without hooks aborts `entire enable`).
# agent:
#   files:
#     - path: \"{{{{home}}}}/.your-agent\"        # no content: a directory
#   env: {{YOUR_AGENT_HOME: \"{{{{home}}}}/.your-agent\"}}

{env}cases:
",
        allow = allow_block(),
        env = crate::verbs::init_env::block(&info.env),
        name = info.name,
        dir = request.dir.display(),
        plugin = request.plugin_shown,
    )
}

/// The scaffold's `allow:`: every code of what a run cannot verify before
/// a recording exists ([`Kind::NOT_VERIFIED`]), allowed with the reason, so
/// that a correct plugin's CI is green from its first push while the report
/// still shows each such finding, allowed, with how to verify it.
fn allow_block() -> String {
    let mut text = String::from(
        "# Until this repository holds a recording of your agent's own session, what only\n\
         # it can show is not verified here. The report still shows each such finding,\n\
         # as a note saying it is allowed, why, and how to verify it; these entries keep\n\
         # CI green meanwhile. Delete them once `agent-conform record` has run: from\n\
         # then on such a finding counts.\n\
         allow:\n",
    );
    for kind in Kind::NOT_VERIFIED {
        text.push_str(&format!(
            "  - code: {}\n    reason: not verified until this repository holds a recording of the \
             agent's own session (agent-conform record); delete this entry then\n",
            kind.code()
        ));
    }
    text
}

/// The case file.
pub(super) fn case_file(info: &Info, request: &Request) -> String {
    let prefix = slug(&info.name);
    let mut text = header(info, request);
    text.push_str(&cases(info, &prefix, false));
    text
}

/// The cases; `live` leaves the templates uncommented (the tests load them).
pub(super) fn cases(info: &Info, prefix: &str, live: bool) -> String {
    let mut text = detect_cases(info, prefix, live);
    if info.capabilities.contains("hooks") {
        for hook in &info.hook_names {
            text.push_str(&hook_case(prefix, hook));
        }
    }
    text.push_str(&templates(info, prefix, live));
    text
}

/// A template block, commented out unless `live`.
fn template(block: &str, live: bool) -> String {
    if live {
        block.to_string()
    } else {
        comment_out(block)
    }
}

fn detect_cases(info: &Info, prefix: &str, live: bool) -> String {
    let mut text = format!(
        "  - id: {prefix}.detect.absent
    title: detect answers false in a repository the agent has never touched
    spec: 'protocol \"detect\"'
    steps:
      - args: [detect]
        expect:
          json:
            - {{pointer: /present, equals: false}}
"
    );
    let present = |marker: &str| {
        format!(
            "  - id: {prefix}.detect.present
    title: detect answers true in a repository that has the agent's files
    spec: 'protocol \"detect\"'
    files:
      # TODO: what your detect looks for (no content: an empty directory;
      # `content: {{text: \"...\"}}` makes a file).
      - path: {path}
    steps:
      - args: [detect]
        expect:
          json:
            - {{pointer: /present, equals: true}}
",
            path = quoted(&format!("{{{{repo}}}}/{marker}")),
        )
    };
    match info.protected_dirs.first() {
        Some(dir) => {
            text.push_str(
                "\n  # The first of info's protected_dirs is the guess for what detect looks for.\n",
            );
            text.push_str(&present(dir));
        }
        None => {
            text.push_str(
                "\n  # TODO: info declares no protected_dirs, so init cannot guess what\n  # detect looks for; uncomment this case and fill in the path.\n",
            );
            text.push_str(&template(&present(".your-agent"), live));
        }
    }
    text
}

/// Comments a block out as an editor's "toggle comment" does: `# ` at the
/// block's smallest indentation, so that toggling it back restores the YAML.
pub(super) fn comment_out(block: &str) -> String {
    let indent = block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    block
        .lines()
        .map(|line| {
            if line.trim().is_empty() {
                return "\n".to_string();
            }
            let (head, rest) = line.split_at(indent.min(line.len()));
            format!("{head}# {rest}\n")
        })
        .collect()
}

/// A `parse-hook` case for one hook name: the native payload, and the Event
/// the guide's mapping gives it (or a marked placeholder).
fn hook_case(prefix: &str, hook: &str) -> String {
    let event = event_type(hook);
    let subagent = matches!(event, Some((6 | 7, _)));
    let mut payload =
        String::from("{session_id: sess-init-1, transcript_path: \"{{tmp}}/session.jsonl\"");
    if matches!(event, Some((2, _))) {
        payload.push_str(", prompt: \"Fix the login bug\"");
    }
    if subagent {
        payload.push_str(
            ", tool_use_id: toolu_init_1, tool_input: {subagent_type: general-purpose, description: Write docs}",
        );
    }
    payload.push('}');
    let title = match event {
        Some((n, name)) => {
            format!("parse-hook --hook {hook} maps the native payload to {name} (type {n})")
        }
        None => format!("parse-hook --hook {hook} accepts the native payload"),
    };
    let mut text = format!(
        "
  - id: {prefix}.parse-hook.{id}
    capability: hooks
    title: {title}
    spec: 'guide \"Event Mapping Reference\", \"Event Field Requirements\"'
    guess: true   # TODO: the payload below is init's guess; delete once it is your agent's
    files:   # the transcript the payload names: the host reads it at turn end
      - path: \"{{{{tmp}}}}/session.jsonl\"
        content: {{text: \"\"}}   # TODO: a transcript of yours, e.g. {{path: samples/session.jsonl}}
    steps:
      - args: [parse-hook, --hook, {hook_q}]
        # TODO: a payload your agent really sends for {hook_q} (`agent-conform
        # record` captures them: see the top of this file).
        stdin:
          json: {payload}
        expect:
          stdout_schema: parse-hook
",
        id = slug(hook),
        title = quoted(&title),
        hook_q = quoted(hook),
    );
    match event {
        Some((n, name)) => {
            let _ = writeln!(
                text,
                "          json:\n            - {{pointer: /type, equals: {n}}}   # {name}, per the guide's mapping\n            - {{pointer: /session_id, equals: sess-init-1}}"
            );
            if matches!(n, 2 | 3 | 6 | 7) {
                text.push_str(
                    "            - {pointer: /session_ref, equals: \"{{tmp}}/session.jsonl\"}\n",
                );
            }
            if subagent {
                text.push_str("            - {pointer: /tool_use_id, equals: toolu_init_1}\n");
            }
        }
        None => {
            let _ = writeln!(
                text,
                "          # TODO: {hook_q} is not in the guide's Event Mapping Reference: say which\n          # Event it gives, or that it gives none (null), e.g.\n          # json:\n          #   - {{pointer: /type, equals: 3}}\n          #   - {{pointer: \"\", equals: null}}",
                hook_q = quoted(hook)
            );
        }
    }
    text
}

/// Commented templates, one per declared capability that reads transcripts.
fn templates(info: &Info, prefix: &str, live: bool) -> String {
    let sample = "\"{{tmp}}/session.jsonl\"";
    let files = format!(
        "    files:\n      - path: {sample}\n        content: {{path: samples/session.jsonl}}\n"
    );
    let mut text = String::new();
    let mut add = |cap: &str, what: &str, body: String| {
        if !info.capabilities.contains(cap) {
            return;
        }
        text.push_str(&format!(
            "\n  # TODO ({cap}): once samples/ holds a transcript, uncomment this case\n  # and fill in {what}.\n"
        ));
        text.push_str(&template(&body, live));
    };
    add(
        "transcript_analyzer",
        "what the sample holds",
        format!(
            "  - id: {prefix}.transcript.analysis
    capability: transcript_analyzer
    title: the sample's position, modified files, prompts and summary
    spec: 'protocol \"get-transcript-position\", \"extract-modified-files\", \"extract-prompts\", \"extract-summary\"'
{files}    steps:
      - args: [get-transcript-position, --path, {sample}]
        expect:
          json:
            - {{pointer: /position, equals: 0}}      # TODO: the sample's position
      - args: [extract-modified-files, --path, {sample}, --offset, \"0\"]
        expect:
          json:
            - {{pointer: /files, equals: []}}        # TODO: the files it edits
      - args: [extract-prompts, --session-ref, {sample}, --offset, \"0\"]
        expect:
          json:
            - {{pointer: /prompts, equals: []}}      # TODO: the user's prompts
      - args: [extract-summary, --session-ref, {sample}]
        expect:
          json:
            - {{pointer: /has_summary, equals: false}}   # TODO: whether it has one
"
        ),
    );
    add(
        "token_calculator",
        "the sample's token counts",
        format!(
            "  - id: {prefix}.tokens
    capability: token_calculator
    title: calculate-tokens sums the sample's usage
    spec: 'protocol \"calculate-tokens\"'
    steps:
      - args: [calculate-tokens, --offset, \"0\"]
        stdin: {{path: samples/session.jsonl}}
        expect:
          json:
            - {{pointer: /input_tokens, equals: 0}}   # TODO
            - {{pointer: /output_tokens, equals: 0}}  # TODO
"
        ),
    );
    add(
        "subagent_aware_extractor",
        "a subagent transcript and the files it edits",
        format!(
            "  - id: {prefix}.subagents
    capability: subagent_aware_extractor
    title: the subagent's files are added to the main transcript's
    spec: 'protocol \"extract-all-modified-files\"'
    files:
      - path: \"{{{{tmp}}}}/subagents/task-1.jsonl\"   # TODO: your agent's subagent file name
        content: {{path: samples/subagent-task-1.jsonl}}
    steps:
      - args: [extract-all-modified-files, --offset, \"0\", --subagents-dir, \"{{{{tmp}}}}/subagents\"]
        stdin: {{path: samples/session.jsonl}}
        expect:
          json:
            - {{pointer: /files, equals: []}}         # TODO
"
        ),
    );
    add(
        "transcript_preparer",
        "nothing more",
        format!(
            "  - id: {prefix}.prepare
    capability: transcript_preparer
    title: prepare-transcript accepts the sample session
    spec: 'protocol \"prepare-transcript\"'
{files}    steps:
      - args: [prepare-transcript, --session-ref, {sample}]
"
        ),
    );
    add(
        "compact_transcript",
        "nothing more",
        format!(
            "  - id: {prefix}.compact
    capability: compact_transcript
    title: compact-transcript compacts the sample session
    spec: 'docs/host.md \"compact-transcript\"'
{files}    steps:
      - args: [compact-transcript, --session-ref, {sample}]
        expect:
          stdout_schema: compact-transcript
"
        ),
    );
    text
}

/// Transcript capabilities and what a sample transcript lets a case check.
const SAMPLE_USES: &[(&str, &str)] = &[
    (
        "transcript_analyzer",
        "the position, the modified files, the prompts and the summary extracted from it",
    ),
    ("token_calculator", "the token counts summed from it"),
    (
        "subagent_aware_extractor",
        "the files and tokens of a subagent transcript beside it (samples/subagent-task-1.jsonl)",
    ),
    (
        "transcript_preparer",
        "that prepare-transcript accepts a finished session",
    ),
    ("compact_transcript", "that compact-transcript compacts it"),
];

/// `samples/README.md`: which transcripts to put here and what they check.
pub(super) fn samples_readme(info: &Info) -> String {
    let mut text = format!(
        "\
# Sample transcripts of {name}

A green run before this folder holds anything verifies the host's side of
your plugin and little of the agent's: every payload and transcript it sent
was ours, not your agent's. The run's last line says how much of your
plugin's own side was verified, per capability. A recording is what verifies
the agent's side: `agent-conform record` while you use the agent for a few
minutes (one short session with a prompt, an edit and a commit is enough).

Put real session transcripts of your agent here, exactly as it writes them
(redact anything private, keep the format byte for byte). The case file one
directory up names them:

- `transcripts: [samples/session.jsonl]` makes every sample join the chunking
  round trips (`core.chunk.own-samples`): chunk-transcript then
  reassemble-transcript must give it back byte for byte. Rename the file to
  your format's extension if it is not JSONL.

`agent-conform record PLUGIN -- <your agent's command>` captures a real
session instead of guesses: every hook payload your agent sends, the
transcript as it was at each hook, and your plugin's events, under
`samples/recorded/`, with a case file that replays them. Read what it wrote
before committing it.
",
        name = info.name
    );
    let uses: Vec<&(&str, &str)> = SAMPLE_USES
        .iter()
        .filter(|(cap, _)| info.capabilities.contains(*cap))
        .collect();
    if !uses.is_empty() {
        text.push_str(
            "\nYour plugin declares these transcript capabilities; the commented case for\neach, in the case file, checks against the sample:\n\n",
        );
        for (cap, what) in uses {
            let _ = writeln!(text, "- `{cap}`: {what}.");
        }
    }
    text
}
