//! The checks of the binary itself, before any subcommand: its file name
//! and `info.name` measured against the host's discovery rules
//! ([`crate::host::discovery`]).

use std::path::Path;

use serde_json::Value;

use crate::host::discovery::agent_name;
use crate::host::identity;
use crate::host::range::HostRange;
use crate::host::releases;
use crate::judge::checks::Finding;
use crate::outcome::Kind;

/// The file must be named `entire-agent-<name>`: the host scans PATH for that
/// pattern only.
pub fn check_file_name(plugin: &Path) -> Vec<Finding> {
    match agent_name(plugin) {
        Some(_) => Vec::new(),
        None => vec![Finding::failure(format!(
            "the file is named {:?}; the host only discovers executables named \
             entire-agent-<name> on PATH, so it would never find this one",
            plugin
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ))],
    }
}

/// `info.name` should equal the name in the file name; the host registers
/// the file name, and what a mismatch costs depends on the hooks
/// ([`identity::name_differs`]).
pub fn check_info_name(plugin: &Path, info: &Value) -> Vec<Finding> {
    let (Some(file_name), Some(name)) =
        (agent_name(plugin), info.get("name").and_then(Value::as_str))
    else {
        return Vec::new();
    };
    if file_name == name {
        return Vec::new();
    }
    let hooks = info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
    let (severity, why) = identity::name_differs(hooks);
    let mut finding = Finding::warning(format!(
        "info.name is {name:?} but the file name registers the agent as {file_name:?}: {why}"
    ))
    .kind(Kind::Discovery);
    finding.set_severity(severity);
    vec![finding]
}

/// A name that collides with a built-in agent is never executed by the
/// host, on the releases that build it in (docs/host.md, "The host of
/// September 2026", "Built-in names"): the finding names them; on the
/// releases judged that do not, the name is free and nothing is said.
pub fn check_not_built_in(plugin: &Path, hosts: &HostRange) -> Vec<Finding> {
    let Some(name) = agent_name(plugin) else {
        return Vec::new();
    };
    let Some(built_in) = releases::built_in(&name) else {
        return Vec::new();
    };
    let scope = hosts.built_in(built_in);
    if !scope.any() {
        return Vec::new();
    }
    let free = match scope.off.is_empty() {
        true => String::new(),
        false => format!(
            " (on entire {} it is free, and the plugin is run)",
            scope.elsewhere()
        ),
    };
    vec![Finding::warning(format!(
        "{}, `{name}` is a built-in agent: this plugin is never run there{free}; rename it to \
         entire-agent-<another name>, or judge only the releases it is meant for \
         (--host-version)",
        scope.prefix()
    ))]
}

/// `info.type` must not be a built-in agent's type: session state,
/// checkpoints and trailers store the type, and resume, rewind and the
/// commit hooks map it back to an agent in random order (docs/host.md,
/// "The host finds an agent by its `type` too"). A plugin named as that
/// built-in is the name check's: where the built-in exists, it never runs.
pub fn check_info_type(plugin: &Path, info: &Value, hosts: &HostRange) -> Vec<Finding> {
    let Some(agent_type) = info.get("type").and_then(Value::as_str) else {
        return Vec::new();
    };
    let Some(built_in) = releases::built_in_of_type(agent_type) else {
        return Vec::new();
    };
    if agent_name(plugin).as_deref() == Some(built_in.name) {
        return Vec::new();
    }
    let scope = hosts.built_in(built_in);
    if !scope.any() {
        return Vec::new();
    }
    vec![Finding::failure(format!(
        "{}: info.type is {agent_type:?}, the type of the built-in agent {}; {}; give the \
         plugin a type of its own",
        scope.prefix(),
        built_in.name,
        identity::TYPE_COLLISION_BREAKS
    ))]
}

/// `info.type` must be the same on every call and under the hook
/// environment (docs/host.md, "The newest host source (read December
/// 2026)", "Silent loss, since 0.6.0"): `gate` is the discovery answer,
/// `others` each later answer with how it was called (`Err`: the call gave
/// no answer to compare). A type that differs loses checkpoints silently:
/// a failure, which the case names by the releases that have the owner
/// rule.
pub fn check_type_stable(gate: &Value, others: &[(String, Result<Value, String>)]) -> Vec<Finding> {
    let type_of = |v: &Value| {
        v.get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let first = type_of(gate);
    let mut findings = Vec::new();
    for (how, answer) in others {
        match answer {
            Ok(info) => {
                let later = type_of(info);
                if identity::types_conflict(&first, &later) {
                    findings.push(
                        Finding::failure(format!(
                            "info.type is {first:?} at discovery and {later:?} when info is \
             called {how}: {}; give the plugin one fixed type",
                            identity::TYPE_VARIES_COSTS
                        ))
                        .kind(Kind::OwnerSkip)
                        .diff(first.clone(), later),
                    );
                }
            }
            Err(why) => findings.push(
                Finding::note(format!(
                    "info called {how} gave no answer to compare its type with ({why})"
                ))
                .kind(Kind::NotVerified),
            ),
        }
    }
    findings
}

/// What `info` declares that the host drops or ignores (docs/host.md,
/// "The host of September 2026", "Hooks"): a `caller_env_vars` name the
/// host drops is a warning (`entire review` then cannot tell this agent
/// called it); a capability key it ignores, a note.
pub fn check_info_declarations(info: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    let names = info.get("caller_env_vars").and_then(Value::as_array);
    for name in names.into_iter().flatten() {
        let kept = name.as_str().is_some_and(identity::keeps_caller_env_var);
        if !kept {
            findings.push(Finding::warning(format!(
                "caller_env_vars holds {name}, which the host drops (names must match {}): \
                 entire review cannot tell from it that this agent called",
                identity::CALLER_ENV_VAR_PATTERN
            )));
        }
    }
    let capabilities = info.get("capabilities").and_then(Value::as_object);
    for (key, value) in capabilities.into_iter().flatten() {
        if value == &Value::Bool(false) {
            continue;
        }
        if let Some(why) = identity::capability_ignored(key) {
            findings.push(Finding::note(format!(
                "capabilities declares {key:?}: {why}"
            )));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_other_than_the_files_warns_only_with_hooks() {
        let plugin = Path::new("/bin/entire-agent-mine");
        let info =
            |hooks: bool| serde_json::json!({"name": "Mine", "capabilities": {"hooks": hooks}});
        let without = check_info_name(plugin, &info(false));
        assert_eq!(without[0].severity, crate::host::Severity::Note);
        assert!(without[0].message.contains("nothing breaks"));
        let with = check_info_name(plugin, &info(true));
        assert_eq!(with[0].severity, crate::host::Severity::Warning);
        assert!(
            with[0]
                .message
                .contains("every interactive `entire enable`")
        );
        let same = serde_json::json!({"name": "mine", "capabilities": {"hooks": true}});
        assert!(check_info_name(plugin, &same).is_empty());
    }

    #[test]
    fn built_in_names_are_flagged() {
        let all = HostRange::default();
        let newest = HostRange::parse(">=0.12").unwrap();
        assert!(!check_not_built_in(Path::new("entire-agent-cursor"), &all).is_empty());
        assert!(check_not_built_in(Path::new("entire-agent-mine"), &all).is_empty());
        // gemini: built in before its retirement, free on the newest hosts.
        let gemini = Path::new("entire-agent-gemini");
        let said = check_not_built_in(gemini, &all);
        assert!(
            said[0]
                .message
                .starts_with("on entire 0.5.0–0.10.5 and perhaps 0.11.x")
        );
        assert!(said[0].message.contains("(on entire 0.12.x it is free"));
        assert!(check_not_built_in(gemini, &newest).is_empty());
        // antigravity and vogon: said, where before nothing was.
        let antigravity = check_not_built_in(Path::new("entire-agent-antigravity"), &all);
        assert!(antigravity[0].message.contains("0.12.x"));
        assert!(
            check_not_built_in(
                Path::new("entire-agent-antigravity"),
                &HostRange::parse("<0.11").unwrap()
            )
            .is_empty()
        );
        assert!(!check_not_built_in(Path::new("entire-agent-vogon"), &newest).is_empty());
        // codex: from 0.5.2.
        let codex = check_not_built_in(Path::new("entire-agent-codex"), &all);
        assert!(codex[0].message.starts_with("on entire 0.5.2–0.12.x"));
    }

    #[test]
    fn a_built_in_type_fails_where_that_agent_is_built_in() {
        let all = HostRange::default();
        let mine = Path::new("entire-agent-mine");
        let claude = serde_json::json!({"type": "Claude Code"});
        let found = check_info_type(mine, &claude, &all);
        assert_eq!(found[0].severity, crate::host::Severity::Failure);
        assert!(check_info_type(mine, &serde_json::json!({"type": "Mine"}), &all).is_empty());
        let gemini = serde_json::json!({"type": "Gemini CLI"});
        assert!(check_info_type(mine, &gemini, &HostRange::parse(">=0.12").unwrap()).is_empty());
        assert!(!check_info_type(mine, &gemini, &all).is_empty());
    }

    #[test]
    fn a_type_that_varies_fails_and_an_empty_one_does_not() {
        let gate = serde_json::json!({"type": "Mine"});
        let same = ("again".to_string(), Ok(gate.clone()));
        let hook = (
            "with AI_AGENT set".to_string(),
            Ok(serde_json::json!({"type": "Mine (hook)"})),
        );
        let empty = ("bare".to_string(), Ok(serde_json::json!({"type": ""})));
        assert!(check_type_stable(&gate, &[same.clone(), empty]).is_empty());
        let found = check_type_stable(&gate, &[same, hook]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, crate::host::Severity::Failure);
        assert_eq!(found[0].kind, Kind::OwnerSkip);
        let failed = ("bare".to_string(), Err("exit 1".to_string()));
        assert_eq!(
            check_type_stable(&gate, &[failed])[0].severity.label(),
            "note"
        );
    }

    #[test]
    fn declarations_the_host_drops_or_ignores() {
        let info = serde_json::json!({
            "caller_env_vars": ["MY_AGENT", "my-agent"],
            "capabilities": {"hooks": true, "streaming_text_generator": true, "uses_terminal": true}
        });
        let found = check_info_declarations(&info);
        let severities: Vec<_> = found.iter().map(|f| f.severity.label()).collect();
        assert_eq!(severities, ["warning", "note", "note"]);
    }
}
