//! The host's session and tool id rules, by variant (docs/host.md,
//! "What the host does with each answer" and, correcting it, "The newest
//! host source (read December 2026)", "Session and tool ids (newest
//! variants)"). Ids are validated on every event before any handler, so a
//! refused id fails the hook.
//!
//! The June host's rules (`schemas/common.json`, `host-session-id` and
//! `host-tool-id`) are held by the Event schemas on every release; the
//! newest variants' extra rules are [`newest_only`] and
//! [`device_tool_id`], on the releases of
//! [`crate::host::releases::Fact::StrictSessionIds`] and
//! [`crate::host::releases::Fact::DeviceToolIds`].

use super::session_path::names_device;

/// The device names the newest session id rule refuses (before the first
/// dot, without case): `CONIN$`, `CONOUT$` and `COM¹²³` included.
pub const ID_DEVICE_NAMES: &[&str] = &[
    "con", "prn", "aux", "nul", "conin$", "conout$", "com1", "com2", "com3", "com4", "com5",
    "com6", "com7", "com8", "com9", "com¹", "com²", "com³", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5",
    "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Why the June host (and every host with id validation) refuses a
/// non-empty session id: whitespace only, `/ \ : * ? [`, `.` or `..`,
/// absolute.
pub fn june_refusal(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        return None;
    }
    if id.trim().is_empty() {
        return Some("is whitespace only");
    }
    if id.contains(['/', '\\']) {
        return Some("contains a path separator");
    }
    if id.contains([':', '*', '?', '[']) {
        return Some("contains one of : * ? [");
    }
    if id == "." || id == ".." {
        return Some("is . or ..");
    }
    None
}

/// Why the newest variants refuse a non-empty session id: the June rules,
/// and leading or trailing whitespace, a control character, a trailing `.`
/// or space, a leading `-`, a Windows device name.
pub fn newest_refusal(id: &str) -> Option<&'static str> {
    if let Some(why) = june_refusal(id) {
        return Some(why);
    }
    if id.is_empty() {
        return None;
    }
    if id.trim() != id {
        return Some("has leading or trailing whitespace");
    }
    if id.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    if id.ends_with('.') {
        return Some("ends in a period");
    }
    if id.starts_with('-') {
        return Some("starts with -");
    }
    if names_device(id, ID_DEVICE_NAMES) {
        return Some("names a Windows device");
    }
    None
}

/// What only the newest variants refuse of a session id (the June rules
/// are the schema's, said on every release).
pub fn newest_only(id: &str) -> Option<&'static str> {
    match june_refusal(id) {
        Some(_) => None,
        None => newest_refusal(id),
    }
}

/// Whether one September variant refuses this `tool_use_id` or
/// `subagent_id`: a Windows device name.
pub fn device_tool_id(id: &str) -> bool {
    !id.is_empty() && names_device(id, ID_DEVICE_NAMES)
}

/// What a refused id costs, for messages.
pub const REFUSED_COSTS: &str = "the host validates ids on every event before any handler, so \
     this hook fails (exit 1) and the agent shows a failed hook";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_rules_add_to_the_june_ones() {
        for (id, june, newest) in [
            ("sess-1", false, false),
            ("a/b", true, true),
            ("2026-09-01T10:00:00", true, true),
            ("..", true, true),
            ("   ", true, true),
            (" sess", false, true),
            ("sess\t", false, true),
            ("se\u{1}ss", false, true),
            ("sess.", false, true),
            ("-sess", false, true),
            ("CONIN$", false, true),
            ("com²", false, true),
            ("nul.jsonl", false, true),
            ("console", false, false),
        ] {
            assert_eq!(june_refusal(id).is_some(), june, "{id:?} june");
            assert_eq!(newest_refusal(id).is_some(), newest, "{id:?} newest");
        }
        assert_eq!(newest_only("a/b"), None);
        assert_eq!(newest_only("-x"), Some("starts with -"));
        assert!(device_tool_id("COM1"));
        assert!(!device_tool_id("toolu_01"));
    }
}
