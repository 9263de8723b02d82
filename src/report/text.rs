//! Texts cut to fit a terminal report: at most three lines of stderr,
//! expected against got (a diff of at most twenty lines when both span
//! lines, the neighbourhood of the first difference when they do not), one
//! line of a long value, colour codes removed, and a long line folded at
//! the report's width. Pure functions of their text; split from
//! `human.rs`, which lays out the report.

/// Lines of stderr shown per invocation.
const MAX_STDERR_LINES: usize = 3;

/// Lines of a diff shown per finding.
const MAX_DIFF_LINES: usize = 20;

/// Characters of one side of a single-line value shown.
const MAX_VALUE_CHARS: usize = 120;

/// Combined length up to which expected and got share one line.
const ONE_LINE: usize = 72;

/// At most the last three lines of stderr (blank lines and terminal
/// escapes dropped): where the exception or the error is; the first says
/// how many came before.
pub fn stderr_lines(excerpt: &str, total_bytes: usize) -> Vec<String> {
    let mut cut = excerpt.len() < total_bytes;
    let lines: Vec<String> = excerpt
        .lines()
        .map(plain)
        .filter(|l| !l.trim().is_empty())
        .filter(|l| {
            // The excerpt's own mark of what it left out (`… (N earlier bytes)`).
            let mark = l.starts_with("… (") && l.ends_with(" earlier bytes)");
            cut |= mark;
            !mark
        })
        .collect();
    let earlier = lines.len().saturating_sub(MAX_STDERR_LINES);
    let mut shown: Vec<String> = lines[earlier..].iter().map(|l| clip(l)).collect();
    if let Some(first) = shown.first_mut()
        && (earlier > 0 || cut)
    {
        let earlier = if cut {
            format!("{earlier}+")
        } else {
            earlier.to_string()
        };
        *first = format!("… {earlier} earlier lines …  {first}");
    }
    shown
}

/// Expected and got, as the lines of a finding block (see
/// `Human::expected_got`).
pub fn expected_got(expected: Option<&str>, actual: Option<&str>) -> Vec<String> {
    match (expected, actual) {
        (None, None) => Vec::new(),
        (Some(e), None) => vec![format!("expected: {}", one_line(e))],
        (None, Some(a)) => vec![format!("got: {}", one_line(a))],
        (Some(e), Some(a)) if e.trim_end().contains('\n') && a.trim_end().contains('\n') => {
            diff(e, a)
        }
        (Some(e), Some(a)) => {
            let (e, a) = if one_line(e) == one_line(a) {
                (escaped(e), escaped(a))
            } else {
                (one_line(e), one_line(a))
            };
            let (e, a) = around_difference(&e, &a);
            if e.chars().count() + a.chars().count() <= ONE_LINE {
                vec![format!("expected: {e} / got: {a}")]
            } else {
                vec![format!("expected: {e}"), format!("got:      {a}")]
            }
        }
    }
}

/// A unified diff of two multi-line texts, cut at 20 lines.
fn diff(expected: &str, actual: &str) -> Vec<String> {
    let unified = similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(2)
        .header("expected", "got")
        .to_string();
    let mut lines: Vec<String> = unified.lines().map(|l| clip(&plain(l))).collect();
    if lines.len() > MAX_DIFF_LINES {
        let more = lines.len() - MAX_DIFF_LINES;
        lines.truncate(MAX_DIFF_LINES);
        lines.push(format!("… {more} more lines"));
    }
    lines
}

/// A value on one line: its first line, saying how many more there are.
fn one_line(text: &str) -> String {
    let mut lines = text.trim_end_matches('\n').lines();
    let first = plain(lines.next().unwrap_or_default());
    match lines.count() {
        0 => first,
        more => format!("{first} … ({more} more lines)"),
    }
}

/// A value whose difference is in whitespace or control characters,
/// quoted with escapes so that the difference shows.
fn escaped(text: &str) -> String {
    format!("\"{}\"", text.escape_debug())
}

/// Two single-line values cut to the window around their first difference,
/// so that a long JSON document shows where it went wrong.
fn around_difference(expected: &str, actual: &str) -> (String, String) {
    let e: Vec<char> = expected.chars().collect();
    let a: Vec<char> = actual.chars().collect();
    if e.len() <= MAX_VALUE_CHARS && a.len() <= MAX_VALUE_CHARS {
        return (expected.to_string(), actual.to_string());
    }
    let first = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let start = first.saturating_sub(MAX_VALUE_CHARS / 3);
    let window = |chars: &[char]| {
        let end = (start + MAX_VALUE_CHARS).min(chars.len());
        let text: String = chars[start.min(end)..end].iter().collect();
        let before = if start > 0 { "…" } else { "" };
        let after = if end < chars.len() { "…" } else { "" };
        format!("{before}{text}{after}")
    };
    (window(&e), window(&a))
}

/// A line cut to a readable length.
pub(super) fn clip(line: &str) -> String {
    match line.char_indices().nth(2 * MAX_VALUE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// The width a report folds its lines at when it is not told the
/// terminal's.
pub const DEFAULT_WIDTH: usize = 100;

/// `line` folded at spaces so that no line is wider than `width` columns
/// (terminal escapes take none), each continuation indented as `line` is
/// plus two, or by `rest` columns when given. A word longer than a line
/// stays whole, and so does a line with no room to fold in.
pub(super) fn fold(line: &str, width: usize, rest: Option<usize>) -> String {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = rest.unwrap_or(indent + 2);
    if visible(line) <= width || rest + 20 > width {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 16);
    let mut column = 0;
    let mut first = true;
    for word in line[indent..].split(' ') {
        let len = visible(word);
        if first {
            out.push_str(&line[..indent]);
            out.push_str(word);
            column = indent + len;
            first = false;
        } else if column + 1 + len > width && column > rest {
            out.push('\n');
            out.push_str(&" ".repeat(rest));
            out.push_str(word);
            column = rest + len;
        } else {
            out.push(' ');
            out.push_str(word);
            column += 1 + len;
        }
    }
    out
}

/// [`fold`] of `line` followed by `tail` (a finding's ` [code]`), which
/// never stands alone on the last line: when it would, the last word goes
/// down with it.
pub(super) fn fold_with_tail(line: &str, tail: &str, width: usize, rest: Option<usize>) -> String {
    let whole = fold(&format!("{line}{tail}"), width, rest);
    let last = whole.rsplit('\n').next().unwrap_or_default();
    let alone = whole.contains('\n') && plain(last).trim() == plain(tail).trim();
    if !alone {
        return whole;
    }
    // The last word goes down with the tail.
    let folded = fold(line, width, rest);
    let indent = rest.unwrap_or(line.len() - line.trim_start_matches(' ').len() + 2);
    match folded.rsplit_once(' ') {
        Some((head, word)) if !word.contains('\n') => {
            format!("{head}\n{}{word}{tail}", " ".repeat(indent))
        }
        _ => whole,
    }
}

/// The columns `text` takes on a terminal (see [`visible`]).
pub(super) fn line_width(text: &str) -> usize {
    visible(text)
}

/// `text` cut to `columns` characters, `…` ending what was cut.
pub(super) fn cut(text: &str, columns: usize) -> String {
    match text.char_indices().nth(columns.saturating_sub(1)) {
        Some((at, _)) if text.chars().count() > columns => format!("{}…", &text[..at]),
        _ => text.to_string(),
    }
}

/// The columns `text` takes on a terminal: its characters, terminal
/// escapes (`ESC [ ... letter`) left out.
fn visible(text: &str) -> usize {
    let mut count = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            count += 1;
        }
    }
    count
}

/// Text without terminal escapes or control characters (tabs stay), so that
/// a plugin's output cannot repaint the report.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
            }
            '\t' => out.push(c),
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{expected_got, fold, fold_with_tail, stderr_lines};

    #[test]
    fn a_long_line_folds_at_spaces_keeping_its_indentation() {
        let line = format!("  step 1 (info): {}", "word ".repeat(60).trim_end());
        let folded = fold(&line, 100, None);
        let lines: Vec<&str> = folded.lines().collect();
        assert!(lines.len() > 2, "{folded}");
        assert!(lines.iter().all(|l| l.chars().count() <= 100), "{folded}");
        assert!(lines[0].starts_with("  step 1"));
        assert!(
            lines[1..].iter().all(|l| l.starts_with("    word")),
            "{folded}"
        );
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(words(&folded), words(&line));
        // Short lines, and a word wider than the line, stay as they are.
        assert_eq!(fold("  short", 100, None), "  short");
        let long = "x".repeat(300);
        assert_eq!(fold(&long, 100, None), long);
        // Colour codes take no room.
        let painted = format!("\u{1b}[2m{}\u{1b}[0m", "a ".repeat(45).trim_end());
        assert_eq!(fold(&painted, 100, None), painted);
        // A finding's code stays after its last word.
        let message = format!("  step 1: {}", "x".repeat(90));
        let tail = fold_with_tail(&message[..96], " [check]", 100, None);
        assert!(
            tail.ends_with(" [check]") && tail.lines().count() == 2,
            "{tail}"
        );
        // An explicit continuation indent.
        let case = format!("SKIP x  {}", "because ".repeat(20));
        assert!(
            fold(&case, 60, Some(7))
                .lines()
                .skip(1)
                .all(|l| l.starts_with("       b"))
        );
    }

    #[test]
    fn short_values_share_a_line_long_ones_take_two() {
        assert_eq!(expected_got(Some("0"), Some("7")), ["expected: 0 / got: 7"]);
        let long = "x".repeat(80);
        assert_eq!(expected_got(Some(&long), Some("y")).len(), 2);
        assert!(expected_got(None, None).is_empty());
        assert_eq!(expected_got(Some("a"), None).len(), 1);
    }

    #[test]
    fn a_whitespace_difference_shows_escaped() {
        let lines = expected_got(Some("\n\n"), Some("\n\n\n"));
        assert_eq!(lines, [r#"expected: "\n\n" / got: "\n\n\n""#]);
    }

    #[test]
    fn long_single_lines_are_cut_around_the_difference() {
        let expected = format!("{}A{}", "x".repeat(500), "y".repeat(500));
        let actual = format!("{}B{}", "x".repeat(500), "y".repeat(500));
        let lines = expected_got(Some(&expected), Some(&actual));
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].contains('A') && lines[1].contains('B'),
            "{lines:?}"
        );
        assert!(lines.iter().all(|l| l.chars().count() < 140), "{lines:?}");
    }

    #[test]
    fn a_diff_stops_at_twenty_lines() {
        let expected: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let actual: String = (0..100).map(|i| format!("LINE {i}\n")).collect();
        let lines = expected_got(Some(&expected), Some(&actual));
        assert_eq!(lines.len(), 21);
        assert!(lines[20].starts_with("… ") && lines[20].ends_with(" more lines"));
        // Both sides on several lines, but short: still a diff.
        let lines = expected_got(Some("a\nb\n"), Some("a\nc\n"));
        assert!(lines.iter().any(|l| l == "-b") && lines.iter().any(|l| l == "+c"));
    }

    #[test]
    fn stderr_is_three_lines_at_most_without_escapes() {
        let text = "\n\u{1b}[31merror\u{1b}[0m: one\ntwo\n\nthree\nfour\nfive\n";
        let lines = stderr_lines(text, text.len());
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "… 2 earlier lines …  three");
        assert_eq!(lines[2], "five");
        let traceback =
            "Traceback (most recent call last):\n  File \"x\", line 1\nKeyError: 'id'\n";
        let shown = stderr_lines(traceback, traceback.len());
        assert_eq!(shown.last().map(String::as_str), Some("KeyError: 'id'"));
        assert_eq!(stderr_lines("only\n", 5), ["only"]);
        assert!(stderr_lines("  \n", 3).is_empty());
    }
}
