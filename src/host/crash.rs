//! A crash, told from a clean refusal: what the host's user sees when a
//! plugin dies instead of answering (docs/host.md, "Invocation": "A
//! non-zero exit fails the call; the error shown to the user is
//! `<subcommand>: <stderr, trimmed>`").
//!
//! A clean refusal says why in a line or two of stderr and exits non-zero.
//! A crash is the language runtime's own death: a Python traceback, a Go or
//! Rust panic, a Node or Java stack trace, or a fatal signal (the process
//! killed by SIGSEGV, SIGABRT, ..., or a shell's exit status 128 + such a
//! signal). The host fails the call either way; what it shows the user is
//! then a trace whose one useful line (the exception) is at its end, or,
//! for a Go panic, at its head. This module recognises a crash and finds
//! that line, so that every judge reports a crash as one ("crashed:
//! `ValueError: ...`") and never as a clean refusal of another agent's
//! format or of a variable only the agent sets: a crash says nothing about
//! what the plugin meant to refuse.

/// A crash of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// What died: "Python traceback", "Rust panic", "killed by signal 11
    /// (SIGSEGV)", ...
    pub what: String,
    /// The exception: the line (or two) of stderr that says what went
    /// wrong, at most 300 characters; empty when stderr says nothing.
    pub said: String,
}

impl Crash {
    /// `what: said`, or `what` alone, for messages.
    pub fn describe(&self) -> String {
        if self.said.is_empty() {
            self.what.clone()
        } else {
            format!("{} (`{}`)", self.what, self.said)
        }
    }
}

/// How much of stderr is read: a trace's useful lines are in its first or
/// last 64 KiB.
const READ: usize = 64 * 1024;

/// The longest exception line kept.
const SAID: usize = 300;

/// The signals that mean the process died of its own fault: SIGILL,
/// SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS (SIGKILL and SIGTERM
/// come from outside; SIGXFSZ is the harness's write limit).
const CRASH_SIGNALS: &[(i32, &str)] = &[
    (4, "SIGILL"),
    (5, "SIGTRAP"),
    (6, "SIGABRT"),
    (7, "SIGBUS"),
    (8, "SIGFPE"),
    (11, "SIGSEGV"),
    (31, "SIGSYS"),
];

/// The crash of a call that ended with `exit` (its code; `None` when a
/// signal ended it, `signal`) and printed `stderr`; `None` for a call that
/// exited 0 or refused cleanly. A trace on stderr of a call that exited 0
/// is [`trace`]'s to tell, not a crash.
pub fn crashed(stderr: &[u8], exit: Option<i32>, signal: Option<i32>) -> Option<Crash> {
    if exit == Some(0) {
        return None;
    }
    let text = readable(stderr);
    if let Some((what, said)) = language_trace(&text) {
        return Some(Crash {
            what: what.to_string(),
            said,
        });
    }
    let died = match (exit, signal) {
        (None, Some(signal)) => Some(signal),
        (Some(code), _) if code > 128 => Some(code - 128),
        _ => None,
    };
    let name = died.and_then(|s| CRASH_SIGNALS.iter().find(|(n, _)| *n == s))?;
    let what = match exit {
        None => format!("killed by signal {} ({})", name.0, name.1),
        Some(code) => format!(
            "exit {code}, a process killed by signal {} ({})",
            name.0, name.1
        ),
    };
    Some(Crash {
        what,
        said: last_lines(&text),
    })
}

/// A language's crash trace on stderr, whatever the exit: what it is and
/// its exception line.
pub fn trace(stderr: &[u8]) -> Option<Crash> {
    let (what, said) = language_trace(&readable(stderr))?;
    Some(Crash {
        what: what.to_string(),
        said,
    })
}

/// The head and the tail of stderr, as text.
fn readable(stderr: &[u8]) -> String {
    if stderr.len() <= 2 * READ {
        return String::from_utf8_lossy(stderr).into_owned();
    }
    let head = String::from_utf8_lossy(&stderr[..READ]);
    let tail = String::from_utf8_lossy(&stderr[stderr.len() - READ..]);
    format!("{head}\n{tail}")
}

/// Which language's trace `text` holds, and its exception line.
fn language_trace(text: &str) -> Option<(&'static str, String)> {
    let lines: Vec<&str> = text.lines().collect();
    if let Some(at) = lines.iter().position(|l| l.contains("panicked at")) {
        // Rust: "thread 'main' panicked at src/main.rs:2:5:" then the
        // message (Rust 1.73 on), or the message on the same line before.
        let message = lines[at + 1..]
            .iter()
            .map(|l| l.trim())
            .take_while(|l| {
                !l.is_empty() && !l.starts_with("note: ") && !l.starts_with("stack backtrace")
            })
            .collect::<Vec<_>>()
            .join(" ");
        let said = if message.is_empty() {
            lines[at].trim().to_string()
        } else {
            message
        };
        return Some(("Rust panic", cut(&said)));
    }
    if text.contains("Traceback (most recent call last)") {
        return Some(("Python traceback", python_exception(&lines)));
    }
    if text.contains("goroutine ") && (text.contains("panic: ") || text.contains("fatal error: ")) {
        let said = lines
            .iter()
            .find(|l| l.starts_with("panic: ") || l.starts_with("fatal error: "))
            .map_or_else(String::new, |l| cut(l.trim()));
        return Some(("Go panic", said));
    }
    if let Some(line) = lines.iter().find(|l| l.contains("Exception in thread")) {
        return Some(("Java exception", cut(line.trim())));
    }
    let frames = lines.iter().filter(|l| is_node_frame(l)).count();
    if frames >= 2 {
        return Some(("Node stack trace", node_exception(&lines)));
    }
    None
}

/// A Node frame: `    at f (/x/y.js:3:7)`, `    at /x/y.mjs:1:1`.
fn is_node_frame(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("at ")
        && [".js:", ".mjs:", ".cjs:", ".ts:", "node:"]
            .iter()
            .any(|e| line.contains(e))
}

/// Python's exception: the last line that is not indented after the
/// traceback ("ValueError: bad", "KeyError: 'X'"), skipping the notes that
/// follow it ("During handling ..." belongs to a chained traceback).
fn python_exception(lines: &[&str]) -> String {
    lines
        .iter()
        .rev()
        .map(|l| l.trim_end())
        .find(|l| {
            !l.is_empty()
                && !l.starts_with(' ')
                && !l.starts_with('\t')
                && !l.starts_with("Traceback")
        })
        .map_or_else(String::new, cut)
}

/// Node's exception: the first line before the first frame that reads as
/// one (`Error: boom`, `TypeError: x is not a function`).
fn node_exception(lines: &[&str]) -> String {
    let first_frame = lines.iter().position(|l| is_node_frame(l)).unwrap_or(0);
    lines[..first_frame]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !l.starts_with('^') && l.contains(':'))
        .map_or_else(String::new, cut)
}

/// The last non-empty line of stderr.
fn last_lines(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map_or_else(String::new, cut)
}

/// At most [`SAID`] characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(SAID) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(stderr: &str, exit: Option<i32>, signal: Option<i32>) -> Option<(String, String)> {
        crashed(stderr.as_bytes(), exit, signal).map(|c| (c.what, c.said))
    }

    #[test]
    fn a_python_traceback_is_told_by_its_last_line() {
        let stderr = "Traceback (most recent call last):\n  File \"/p/entire-agent-x\", line 9, in <module>\n    main()\n  File \"/p/entire-agent-x\", line 5, in main\n    raise ValueError(\"not our format\")\nValueError: not our format\n";
        assert_eq!(
            said(stderr, Some(1), None),
            Some((
                "Python traceback".into(),
                "ValueError: not our format".into()
            ))
        );
    }

    #[test]
    fn a_rust_panic_is_told_by_its_message() {
        let stderr = "thread 'main' panicked at src/main.rs:2:5:\nboom here\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(
            said(stderr, Some(101), None),
            Some(("Rust panic".into(), "boom here".into()))
        );
    }

    #[test]
    fn a_go_panic_is_told_by_its_head() {
        let stderr = "panic: runtime error: index out of range [3] with length 1\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:7 +0x1d\nexit status 2\n";
        assert_eq!(
            said(stderr, Some(2), None),
            Some((
                "Go panic".into(),
                "panic: runtime error: index out of range [3] with length 1".into()
            ))
        );
    }

    #[test]
    fn a_node_stack_is_told_by_its_error() {
        let stderr = "/p/x.js:3\n  throw new Error('boom');\n  ^\n\nError: boom\n    at Object.<anonymous> (/p/x.js:3:9)\n    at Module._compile (node:internal/modules/cjs/loader:1256:14)\n\nNode.js v18.19.0\n";
        assert_eq!(
            said(stderr, Some(1), None),
            Some(("Node stack trace".into(), "Error: boom".into()))
        );
    }

    #[test]
    fn a_fatal_signal_is_a_crash_and_an_outside_one_is_not() {
        let (what, _) = said("", None, Some(11)).unwrap();
        assert!(what.contains("SIGSEGV"), "{what}");
        let (what, said_) = said("Aborted (core dumped)\n", Some(134), None).unwrap();
        assert!(what.contains("SIGABRT"), "{what}");
        assert_eq!(said_, "Aborted (core dumped)");
        assert_eq!(said("", None, Some(9)), None);
        assert_eq!(said("", None, Some(15)), None);
    }

    #[test]
    fn a_clean_refusal_is_no_crash() {
        for (stderr, exit) in [
            ("entire-agent-x: not a transcript of ours", Some(1)),
            ("unknown subcommand: foo", Some(2)),
            ("FOO_HOME must be set", Some(1)),
            ("error: the answer is 2", Some(2)),
        ] {
            assert_eq!(said(stderr, exit, None), None, "{stderr}");
        }
        // A trace of a call that succeeded is no crash of the call.
        assert_eq!(
            said("Traceback (most recent call last):\nX: y\n", Some(0), None),
            None
        );
        assert!(trace(b"Traceback (most recent call last):\nX: y\n").is_some());
    }
}
