//! Texts cut to fit a terminal report: at most three lines of stderr,
//! expected against got (a diff of at most twenty lines when both span
//! lines, the neighbourhood of the first difference when they do not), one
//! line of a long value, and colour codes removed. Pure functions of their
//! text; split from `human.rs`, which lays out the report.

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
