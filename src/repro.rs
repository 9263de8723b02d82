//! Reproduce commands: the exact shell command line that reruns one
//! invocation by hand, with the working directory, the environment the
//! harness set, the arguments and the saved stdin.

use std::path::Path;

use crate::runner::Invocation;

/// A POSIX shell command line reproducing `inv`.
pub fn command_line(inv: &Invocation, stdin_file: Option<&Path>) -> String {
    let mut line = format!("cd {} &&", quote(&inv.cwd.to_string_lossy()));
    if !inv.env_remove.is_empty() {
        line.push_str(" env");
        for key in &inv.env_remove {
            line.push_str(&format!(" -u {}", quote(key)));
        }
    }
    for (key, value) in &inv.env {
        line.push_str(&format!(" {key}={}", quote(&value.to_string_lossy())));
    }
    line.push(' ');
    line.push_str(&quote(&inv.program.to_string_lossy()));
    for arg in &inv.args {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    match stdin_file {
        Some(file) => line.push_str(&format!(" < {}", quote(&file.to_string_lossy()))),
        None => line.push_str(" < /dev/null"),
    }
    line
}

/// Splits a command line from [`command_line`] over several lines with
/// backslash continuations: the directory, the environment, the invocation.
/// The result still pastes into a shell as one command.
pub fn wrap(command: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let (cd, rest) = command.split_once(" && ").unwrap_or(("", command));
    if !cd.is_empty() {
        lines.push(format!("{cd} && \\"));
    }
    let mut current = String::new();
    for word in rest.split(' ') {
        let breaks = word.starts_with("ENTIRE_REPO_ROOT=")
            || (word.starts_with('/') && current.contains('='));
        if breaks && !current.is_empty() {
            lines.push(format!("{} \\", current.trim_end()));
            current.clear();
        }
        current.push_str(word);
        current.push(' ');
    }
    lines.push(current.trim_end().to_string());
    lines
}

/// Quotes a word for a POSIX shell, only when it needs it.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(quote("/usr/bin/x"), "/usr/bin/x");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
