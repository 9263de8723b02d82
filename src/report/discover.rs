//! The reports of `agent-conform discover`: each a function of a
//! [`Discovery`] alone, so the same discovery gives the same bytes.

use serde::Serialize;

use crate::outcome::discover::{Discovery, Found, Registration, Settings};
use crate::outcome::many::Conflict;

/// A short label of a registration, for the text report.
pub fn label(registration: Registration) -> &'static str {
    match registration {
        Registration::Registered => "registered",
        Registration::NameDiffers => "registered (name differs)",
        Registration::Shadowed => "shadowed",
        Registration::NotExecutable => "not executable",
        Registration::Directory => "a directory",
        Registration::BuiltIn => "built-in name",
        Registration::NoName => "no agent name",
        Registration::InfoFailed => "info failed",
        Registration::InfoTimedOut => "info timed out",
        Registration::ProtocolVersion => "other protocol version",
        Registration::RelativePath => "relative PATH entry",
    }
}

/// The text report: one line per entry, then a count, then what the
/// current repository's settings mean for discovery.
pub fn text(discovery: &Discovery) -> String {
    let found = &discovery.found;
    let settings_line = format!("\n{}\n", discovery.settings.message);
    if found.is_empty() {
        return format!(
            "no entire-agent-* files in the {} directories of PATH; the host would find \
             no plugin\n{settings_line}",
            discovery.path_dirs
        );
    }
    let mut out = entries_text(found);
    let registered = found.iter().filter(|f| f.registered).count();
    out.push_str(&format!(
        "\n{} entire-agent-* on PATH: {registered} registered, {} not\n",
        found.len(),
        found.len() - registered
    ));
    broken_text(&mut out, found);
    conflicts_text(&mut out, &discovery.conflicts);
    out.push_str(&settings_line);
    out
}

/// One line per entry, in columns, each caveat on a line of its own below.
fn entries_text(found: &[Found]) -> String {
    let width = |f: fn(&Found) -> usize| found.iter().map(f).max().unwrap_or(0);
    let name_w = width(|f| f.name.len()).max(4);
    let path_w = width(|f| f.path.display().to_string().len());
    let mut out = String::new();
    for f in found {
        out.push_str(&format!(
            "{:<name_w$}  {:<path_w$}  {}: {}\n",
            if f.name.is_empty() { "-" } else { &f.name },
            f.path.display(),
            label(f.registration),
            f.reason
        ));
        for caveat in &f.caveats {
            out.push_str(&format!("{:<name_w$}  {caveat}\n", ""));
        }
    }
    out
}

/// The entries the newest host lists as broken, when there are any.
fn broken_text(out: &mut String, found: &[Found]) {
    let broken: Vec<&Found> = found.iter().filter(|f| f.broken).collect();
    if broken.is_empty() {
        return;
    }
    out.push_str("\nbroken external agents (as the newest host lists them):\n");
    for f in broken {
        out.push_str(&format!("  {}: {}\n", f.path.display(), f.reason));
    }
}

/// The conflicts between the registered plugins, when there are two or more.
fn conflicts_text(out: &mut String, conflicts: &[Conflict]) {
    if conflicts.is_empty() {
        return;
    }
    out.push_str(&format!(
        "\n{} conflict(s) between the plugins installed together:\n",
        conflicts.len()
    ));
    for c in conflicts {
        out.push_str(&format!(
            "  {}: {} and {} ({}): {}\n",
            c.severity.label(),
            c.plugins[0],
            c.plugins[1],
            c.kind.label(),
            c.message
        ));
    }
}

/// The JSON report: `{"plugins": [...], "conflicts": [...], "settings":
/// {...}}`, the plugins in `PATH` order, the conflicts between the
/// registered ones as in a run's report.
pub fn json(discovery: &Discovery) -> String {
    /// The document: the entries in `PATH` order, their conflicts and the
    /// repository's settings.
    #[derive(Serialize)]
    struct Doc<'a> {
        plugins: &'a [Found],
        conflicts: &'a [Conflict],
        settings: &'a Settings,
    }
    let doc = Doc {
        plugins: &discovery.found,
        conflicts: &discovery.conflicts,
        settings: &discovery.settings,
    };
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string())
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn discovery(found: Vec<Found>) -> Discovery {
        Discovery {
            found,
            conflicts: Vec::new(),
            settings: Settings {
                repository: None,
                file: None,
                external_agents: false,
                message: "not in a git work tree".to_string(),
            },
            path_dirs: 3,
        }
    }

    fn entry(name: &str, registration: Registration, registered: bool) -> Found {
        Found {
            name: name.to_string(),
            path: PathBuf::from(format!("/bin/entire-agent-{name}")),
            registration,
            registered,
            reason: "why".to_string(),
            info: None,
            broken: !registered,
            caveats: Vec::new(),
        }
    }

    #[test]
    fn nothing_found_says_how_many_directories_were_searched() {
        let text = text(&discovery(Vec::new()));
        assert_eq!(
            text,
            "no entire-agent-* files in the 3 directories of PATH; the host would find no \
             plugin\n\nnot in a git work tree\n"
        );
    }

    #[test]
    fn the_json_keeps_the_key_verdict_and_the_kebab_case_values() {
        let found = vec![
            entry("a", Registration::NameDiffers, true),
            entry("b", Registration::InfoTimedOut, false),
        ];
        let doc: serde_json::Value =
            serde_json::from_str(&json(&discovery(found.clone()))).expect("JSON");
        assert_eq!(doc["plugins"][0]["verdict"], "name-differs");
        assert_eq!(doc["plugins"][1]["verdict"], "info-timed-out");
        let text = text(&discovery(found));
        assert!(text.contains("registered (name differs): why\n"), "{text}");
        assert!(text.contains("2 entire-agent-* on PATH: 1 registered, 1 not"));
        assert!(text.contains("broken external agents"));
    }
}
