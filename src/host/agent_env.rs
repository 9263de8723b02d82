//! The agent's environment: variables an agent always exports to the hooks
//! and commands it runs, which the host passes on to the plugin with the
//! rest of its environment (docs/host.md, "Plugins in the wild": "An
//! agent that always exports an environment variable to its hooks").
//!
//! Without such a variable a plugin refuses cleanly in every session and
//! hook subcommand, naming it ("X must be set"). Where the agent runs it is
//! always set; in a harness's sandbox it is not, so such a refusal means
//! "not verified here", never "broken". This module tells, from a refusal's
//! stderr, which variable it names: an UPPER_CASE identifier in one of the
//! phrasings below that the call's environment does not set. Ordinary
//! stderr ("invalid JSON", "file not found", an upper-case word such as
//! `JSON` or `ERROR` in no such phrasing, or a variable that *is* set) is
//! never read as one.

use std::sync::OnceLock;

use regex::Regex;

/// The phrasings that name a variable the plugin needs, each with the
/// variable in the group `v`:
/// - `X must be set`, `X is not set`, `X not set`, `X is unset`, `X is
///   required`, `X is empty`, `X must be defined`, `X is not defined`
///   (Go's `os.Getenv` checks, Python's `os.environ` checks);
/// - `$X` and `${X}` (a shell's `${X:?}`, a message quoting the variable);
/// - `missing X`, `missing environment variable X`, `environment variable
///   X`, `env var X` (libraries' wording).
///
/// Python's `KeyError: 'X'` of `os.environ["X"]` is no such phrasing: it
/// is the last line of a traceback, a crash (`crate::host::crash`), never
/// a clean refusal.
const PATTERNS: &[&str] = &[
    r"\b(?P<v>[A-Z][A-Z0-9_]+)\b['`\x22]?\s+(?:must be (?:set|defined|provided)|is (?:not set|unset|required|empty|not defined|undefined)|not set|unset|required)\b",
    r"\$\{?(?P<v>[A-Z][A-Z0-9_]+)\b",
    r"(?i:missing|unset|undefined)(?:\s+(?i:required))?(?:\s+(?i:environment|env))?(?:\s+(?i:variable|var))?:?\s+['`\x22]?(?P<v>[A-Z][A-Z0-9_]+)\b",
    r"(?i:environment variable|env var|env variable)s?:?\s+['`\x22]?(?P<v>[A-Z][A-Z0-9_]+)\b",
];

fn patterns() -> &'static [Regex] {
    static COMPILED: OnceLock<Vec<Regex>> = OnceLock::new();
    COMPILED.get_or_init(|| PATTERNS.iter().filter_map(|p| Regex::new(p).ok()).collect())
}

/// Words that read like a variable in these phrasings but are not one.
const NOT_VARIABLES: &[&str] = &["JSON", "ID", "URL", "PATH_TO", "EOF", "HOME_DIR_NOT"];

/// The first variable that `stderr` says is needed and that `is_set` says
/// the call's environment does not set.
pub fn needed_variable(stderr: &str, is_set: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut found: Vec<(usize, String)> = patterns()
        .iter()
        .flat_map(|re| re.captures_iter(stderr))
        .filter_map(|c| c.name("v"))
        .map(|m| (m.start(), m.as_str().to_string()))
        .filter(|(_, v)| v.contains('_') || v.len() >= 4)
        .filter(|(_, v)| !NOT_VARIABLES.contains(&v.as_str()))
        .filter(|(_, v)| !is_host_variable(v))
        .filter(|(_, v)| !is_set(v))
        .collect();
    found.sort();
    found.into_iter().map(|(_, v)| v).next()
}

/// Whether `name` is one of the host's own variables (`ENTIRE_REPO_ROOT`,
/// `ENTIRE_PROTOCOL_VERSION`, `ENTIRE_CLI_VERSION`, and any other
/// `ENTIRE_*`): the host, not the agent, sets them (docs/host.md,
/// "Invocation"), and whether it does depends on the release and on where it
/// runs ("The host of September 2026", "Invocation"). A refusal that names
/// one is judged by the case that leaves it out, never "not verified here".
fn is_host_variable(name: &str) -> bool {
    name.starts_with("ENTIRE_")
}

/// How [`not_verified`] begins, before the variable.
const NOT_VERIFIED: &str = "not verified here: the plugin needs ";

/// The message of a refusal for a variable the agent sets: "not verified
/// here" (a note), with the case-file YAML that sets it.
pub fn not_verified(variable: &str) -> String {
    format!(
        "{NOT_VERIFIED}{variable}, which its agent sets (its stderr \
         names it, and the sandbox does not set it); the host runs the plugin with the \
         agent's environment, so this refusal would not happen there. To run these checks \
         for real, set it in a case file of yours (--cases DIR): `env: {{{variable}: \
         \"{{{{home}}}}/...\"}}`"
    )
}

/// The refusal in a few words, without its advice: what a later case
/// repeats when it points at the case where the run says it in full.
pub fn wanting(variable: &str) -> String {
    format!("{NOT_VERIFIED}{variable}, which its agent sets")
}

/// The message of a declared capability that such refusals left with
/// nothing verified (the one warning per capability, docs/verdicts.md
/// "The agent's environment"): the refusal, that the capability is
/// unverified, and the case-file YAML that sets the variable.
pub fn unverified_for(variable: &str, capability: &str) -> String {
    format!(
        "{NOT_VERIFIED}{variable}, which its agent sets (its stderr names it, and the sandbox \
         does not set it); {capability}, which info declares, is unverified: nothing of it was \
         checked. The host runs the plugin with the agent's environment; to run these checks \
         for real, set it in a case file of yours (--cases DIR): `env: {{{variable}: \
         \"{{{{home}}}}/...\"}}`"
    )
}

/// The same refusal met again in the run: short, pointing at the case
/// where the run said it in full. The finding names the variable as data
/// (its subject), so no message is read back for it.
pub fn not_verified_again(variable: &str, first: &str) -> String {
    format!(
        "{NOT_VERIFIED}{variable}, which its agent sets (see {first}, where the run says it once)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unset(stderr: &str) -> Option<String> {
        needed_variable(stderr, &|v| v == "HOME" || v == "PATH")
    }

    #[test]
    fn the_usual_phrasings_name_the_variable() {
        for stderr in [
            "entire-agent-foo: FOO_HOME must be set",
            "error: FOO_HOME is not set",
            "FOO_HOME not set; run inside foo",
            "environment variable FOO_HOME is required",
            "missing FOO_HOME",
            "missing environment variable: FOO_HOME",
            "sh: 1: FOO_HOME: parameter not set (${FOO_HOME:?})",
            "cannot read $FOO_HOME/config",
            "FOO_HOME is empty",
        ] {
            assert_eq!(unset(stderr).as_deref(), Some("FOO_HOME"), "{stderr}");
        }
    }

    #[test]
    fn the_hosts_own_variables_are_never_the_agents() {
        assert_eq!(unset("ENTIRE_CLI_VERSION is not set"), None);
        assert_eq!(unset("ENTIRE_REPO_ROOT must be set"), None);
    }

    #[test]
    fn ordinary_stderr_names_no_variable() {
        for stderr in [
            "invalid JSON on stdin: EOF",
            "ERROR: file not found",
            "session ID is required",
            "HOME is not set",
            "cannot read $PATH entries",
            "unknown subcommand: calculate-tokens",
            "the transcript is not in FOO format",
            "--session-ref is required",
        ] {
            assert_eq!(unset(stderr), None, "{stderr}");
        }
    }

    #[test]
    fn the_message_gives_the_yaml() {
        let text = not_verified("FOO_HOME");
        assert!(
            text.contains("`env: {FOO_HOME: \"{{home}}/...\"}`"),
            "{text}"
        );
        assert!(
            not_verified_again("FOO_HOME", "a.case").contains("see a.case"),
            "the note points at the case that says it"
        );
        let unverified = unverified_for("FOO_HOME", "hooks");
        assert!(
            unverified.starts_with(&wanting("FOO_HOME"))
                && unverified.contains("hooks, which info declares, is unverified")
                && unverified.contains("`env: {FOO_HOME: \"{{home}}/...\"}`"),
            "{unverified}"
        );
    }
}
