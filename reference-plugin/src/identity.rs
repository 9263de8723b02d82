//! Who the agent is: `info`, `detect` and `format-resume-command`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::Request;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::faults::Fault;
use crate::hooks;
use crate::output::{self, Output};
use crate::protocol::{self, Capabilities, Info, PROTOCOL_VERSION};
use crate::timestamp;
use crate::variants::Variant;

/// Registry name. The host registers the plugin under the name in its file name
/// (`entire-agent-<name>`), so this must match it.
pub const AGENT_NAME: &str = "reference";

/// Display name, stored in checkpoint metadata.
pub const AGENT_TYPE: &str = "Reference Agent";

use crate::context::AGENT_DIR;

/// `info`: metadata and capabilities.
///
/// Every capability is declared true because every optional subcommand group is
/// fully implemented; a plugin that only implements some must declare the rest
/// false, as the host then never calls them.
pub fn info(ctx: &Context, _request: &Request) -> Result<Output> {
    if ctx.fault(Fault::InfoCrash) {
        return Err(Error::failed("info crashed"));
    }
    if ctx.fault(Fault::InfoSlow) {
        std::thread::sleep(Duration::from_secs(15));
    }
    if ctx.fault(Fault::InfoNeedsRepoRoot) && std::env::var_os("ENTIRE_REPO_ROOT").is_none() {
        return Err(Error::failed("ENTIRE_REPO_ROOT is not set"));
    }
    if ctx.fault(Fault::InfoPastHookDeadline) {
        std::thread::sleep(Duration::from_millis(5500));
    }

    let all = !ctx.variant(Variant::NoCapabilities);
    let info = Info {
        protocol_version: PROTOCOL_VERSION,
        name: AGENT_NAME,
        agent_type: AGENT_TYPE,
        description: "Reference Agent - the reference external agent plugin of agent-conform",
        is_preview: false,
        protected_dirs: vec![AGENT_DIR],
        hook_names: if all { hooks::hook_names() } else { Vec::new() },
        capabilities: Capabilities {
            hooks: all,
            transcript_analyzer: all,
            transcript_preparer: all,
            token_calculator: all,
            text_generator: all,
            hook_response_writer: all,
            subagent_aware_extractor: all,
            compact_transcript: all,
        },
    };

    let mut answer = protocol::to_json(&info)?;
    if ctx.fault(Fault::InfoWritesCwd) {
        let _ = std::fs::write(".reference-info.json", b"{}\n");
    }
    match ctx.fault {
        Some(Fault::TypeFromEnv) if std::env::var_os("AI_AGENT").is_some() => {
            answer["type"] = json!(format!("{AGENT_TYPE} (hook)"));
        }
        Some(Fault::InfoProtocol2) => answer["protocol_version"] = json!(2),
        Some(Fault::InfoProtocolFloat) => answer["protocol_version"] = json!(1.0),
        Some(Fault::InfoEmptyName) => answer["name"] = json!(""),
        Some(Fault::InfoNameMismatch) => answer["name"] = json!("other-agent"),
        Some(Fault::InfoBuiltInType) => answer["type"] = json!("Claude Code"),
        Some(Fault::InfoProtectsProjectFile) => answer["protected_files"] = json!(["config.toml"]),
        Some(Fault::InfoBadCallerEnvVar) => answer["caller_env_vars"] = json!(["_REFERENCE_AGENT"]),
        Some(Fault::AttachOnlyRefusesRestore) => {
            answer["hook_names"] = json!([]);
            answer["capabilities"]["hooks"] = json!(false);
        }
        Some(Fault::InfoHooksNoNames) => {
            answer["hook_names"] = json!([]);
            answer["capabilities"]["hooks"] = json!(true);
        }
        Some(Fault::InfoMissingDescription) => {
            if let Value::Object(object) = &mut answer {
                object.remove("description");
            }
        }
        Some(Fault::InfoUnstable) => {
            answer["x_generated_at"] = json!(timestamp::now_rfc3339_nanos());
        }
        Some(Fault::InfoTrailingGarbage) => {
            let mut bytes = output::json_bytes(ctx, answer)?;
            bytes.extend_from_slice(b"{}\n");
            return Ok(Output::Raw(bytes));
        }
        _ => {}
    }
    Ok(Output::Json(answer))
}

/// `detect`: whether the repository uses this agent, i.e. has `.reference/`.
pub fn detect(ctx: &Context, _request: &Request) -> Result<Output> {
    if ctx.fault(Fault::DetectHang) {
        std::thread::sleep(Duration::from_secs(3600));
    }
    if ctx.fault(Fault::DetectNeedsCliVersion) && std::env::var_os("ENTIRE_CLI_VERSION").is_none() {
        return Err(Error::failed("ENTIRE_CLI_VERSION is not set"));
    }
    if ctx.fault(Fault::DetectFlood) {
        output::flood(std::io::stdout().lock(), output::FLOOD_SIZE);
        return Ok(Output::Nothing);
    }
    let present = (ctx.repo_root()?.join(AGENT_DIR).exists()
        || ctx.fault(Fault::DetectAlwaysPresent))
        && !ctx.fault(Fault::DetectNeverPresent);
    if ctx.fault(Fault::DetectStringBool) {
        return Ok(Output::Json(json!({"present": "yes"})));
    }
    Ok(Output::Json(json!({"present": present})))
}

/// `format-resume-command --session-id ID`: the command a user types to resume.
///
/// The user copies it into a shell, so an id with shell metacharacters is quoted.
pub fn format_resume_command(ctx: &Context, request: &Request) -> Result<Output> {
    let session_id = request.args.value("--session-id");
    let command = if ctx.fault(Fault::ResumeEmpty) {
        String::new()
    } else {
        format!("{AGENT_NAME} --resume {}", shell_quote(session_id))
    };
    Ok(Output::Json(json!({ "command": command })))
}

/// Quote `word` for a POSIX shell when it contains anything but safe characters.
fn shell_quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_.:@%+=,/".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(shell_quote("abc-123_x.y"), "abc-123_x.y");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
