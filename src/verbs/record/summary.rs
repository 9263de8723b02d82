//! The summary `record` prints on stderr when the agent has exited: what was
//! written and where, the privacy note, the hooks seen and not seen, the
//! events produced and what `parse-hook` refused.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::staging::{Answer, Recorded};
use super::write::Written;

/// What the summary is made from.
#[derive(Debug)]
pub struct Facts<'a> {
    /// The calls recorded, in order.
    pub calls: &'a [Recorded],
    /// `info.hook_names`.
    pub hook_names: &'a [String],
    /// The files written (`None`: nothing was, no call was recorded).
    pub written: Option<&'a Written>,
    /// The shims' log lines.
    pub log: &'a [String],
    /// The output directory and plugin as the user wrote them: the replay
    /// command.
    pub out_shown: String,
    /// The plugin as the user wrote it.
    pub plugin_shown: String,
}

/// The summary's text (several lines, each starting with `agent-conform:`
/// or indented).
pub fn render(facts: &Facts) -> String {
    let mut text = String::new();
    match facts.written {
        None => text.push_str(
            "agent-conform: record: no `entire hooks` call of the plugin's agent reached the shim, so nothing was written\n  \
             hint: install the hooks first (the plugin's install-hooks, or `entire enable`), and make sure they call `entire` by name, not by path\n",
        ),
        Some(written) => wrote(&mut text, written, facts),
    }
    hooks(&mut text, facts);
    events(&mut text, facts.calls);
    for line in facts.log {
        let _ = writeln!(text, "  note: {line}");
    }
    text
}

fn wrote(text: &mut String, written: &Written, facts: &Facts) {
    let _ = writeln!(
        text,
        "agent-conform: record: wrote {} payload{} and {} transcript snapshot{} ({} bytes) to {}, and {}",
        written.payloads,
        plural(written.payloads),
        written.snapshots,
        plural(written.snapshots),
        written.bytes,
        written.samples.display(),
        written.case_file.display(),
    );
    text.push_str(
        "  they hold what the agent really sent (prompts, paths, maybe secrets): read them before committing; \
         --redact REGEX replaces matches\n",
    );
    let _ = writeln!(
        text,
        "  replay: agent-conform --cases {} {}",
        facts.out_shown, facts.plugin_shown
    );
}

fn hooks(text: &mut String, facts: &Facts) {
    // In the order first seen: the session's own order.
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for recorded in facts.calls {
        let hook = recorded.call.hook.as_str();
        match seen.iter_mut().find(|(h, _)| *h == hook) {
            Some((_, n)) => *n += 1,
            None => seen.push((hook, 1)),
        }
    }
    let counted: Vec<String> = seen.iter().map(|(h, n)| format!("{h} x{n}")).collect();
    let unseen: Vec<&str> = facts
        .hook_names
        .iter()
        .map(String::as_str)
        .filter(|h| !seen.iter().any(|(s, _)| s == h))
        .collect();
    let _ = writeln!(text, "  hooks seen: {}", list(&counted));
    let _ = writeln!(
        text,
        "  hooks not seen (of info.hook_names): {}",
        list(&unseen)
    );
    let unknown: Vec<&str> = seen
        .iter()
        .map(|(h, _)| *h)
        .filter(|h| !facts.hook_names.iter().any(|n| n == h))
        .collect();
    if !unknown.is_empty() {
        let _ = writeln!(
            text,
            "  hooks seen that info.hook_names does not list: {}",
            unknown.join(", ")
        );
    }
}

fn events(text: &mut String, calls: &[Recorded]) {
    // By event type: the lifecycle's order.
    let mut produced: BTreeMap<(u64, String), usize> = BTreeMap::new();
    let mut refused = Vec::new();
    for (i, recorded) in calls.iter().enumerate() {
        match &recorded.call.answer {
            Answer::Event(event) => {
                let order = event.get("type").and_then(Value::as_u64).unwrap_or(0);
                *produced.entry((order, event_name(event))).or_default() += 1;
            }
            Answer::Refused(why) => refused.push(format!(
                "  parse-hook refused {} (call {}): {why}",
                recorded.call.hook,
                i + 1
            )),
        }
    }
    let counted: Vec<String> = produced
        .iter()
        .map(|((_, e), n)| format!("{e} x{n}"))
        .collect();
    let _ = writeln!(text, "  events: {}", list(&counted));
    for line in refused {
        let _ = writeln!(text, "{line}");
    }
}

/// The event's type by name (`null` for no event).
fn event_name(event: &Value) -> String {
    let names = [
        "SessionStart",
        "TurnStart",
        "TurnEnd",
        "Compaction",
        "SessionEnd",
        "SubagentStart",
        "SubagentEnd",
    ];
    match event.get("type").and_then(Value::as_u64) {
        _ if event.is_null() => "null (no event)".into(),
        Some(n @ 1..=7) => format!("{} (type {n})", names[(n - 1) as usize]),
        Some(n) => format!("type {n}"),
        None => "no type".into(),
    }
}

fn list<T: AsRef<str>>(items: &[T]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_named_by_type() {
        assert_eq!(
            event_name(&serde_json::json!({"type": 3})),
            "TurnEnd (type 3)"
        );
        assert_eq!(event_name(&Value::Null), "null (no event)");
        assert_eq!(event_name(&serde_json::json!({"type": 9})), "type 9");
    }
}
