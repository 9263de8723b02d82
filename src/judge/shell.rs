//! What `sh -c` makes of an installed hook's command line, as far as a path
//! with a space goes (docs/host.md, "The user's machine, not a clean
//! room": repositories live in folders with spaces, the host passes paths as
//! they are, and agents run hook commands through a shell).
//!
//! The command is expanded as sh expands it, keeping for every character
//! whether sh splits words there: a space written outside quotes, or one
//! that an unquoted `$VAR` brought in. A path of the sandbox found in the
//! expansion with such a space is split: `cd /x/Café projects/repo` runs
//! `cd` with two words, `$ENTIRE_REPO_ROOT/hook.sh` runs `/x/Café`. Quoted
//! paths, a `~` (whose expansion sh never splits) and a space that only
//! separates words are fine. Command substitutions are not run: what they
//! print is not known here, and counts as nothing.

/// The first of `paths` that sh splits at one of its spaces when it runs
/// `command` with the variables `vars` set; `None` when it splits none.
pub fn split_path<'p>(
    command: &str,
    paths: &'p [String],
    vars: &[(String, String)],
) -> Option<&'p str> {
    let expanded = expand(command, vars);
    paths
        .iter()
        .find(|path| splits(&expanded, path))
        .map(String::as_str)
}

/// One character of the expanded command, and whether sh splits words at
/// it (an unquoted blank).
type Expanded = Vec<(char, bool)>;

/// Whether `path` occurs in `expanded` with one of its blanks a split.
fn splits(expanded: &Expanded, path: &str) -> bool {
    let want: Vec<char> = path.chars().collect();
    if want.is_empty() || !want.iter().any(|c| is_blank(*c)) {
        return false;
    }
    expanded.windows(want.len()).any(|window| {
        window.iter().zip(&want).all(|((c, _), w)| c == w)
            && window.iter().any(|(c, split)| *split && is_blank(*c))
    })
}

/// sh's default field separators.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// `command` as sh expands it (see the module).
fn expand(command: &str, vars: &[(String, String)]) -> Expanded {
    let chars: Vec<char> = command.chars().collect();
    let mut out = Expanded::new();
    let mut quote = Quote::None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        i += 1;
        match (quote, c) {
            (Quote::Single, '\'') | (Quote::Double, '"') => quote = Quote::None,
            (Quote::Single, _) => out.push((c, false)),
            (Quote::None, '\'') => quote = Quote::Single,
            (Quote::None, '"') => quote = Quote::Double,
            (Quote::None, '\\') => {
                out.extend(next.map(|n| (n, false)));
                i += 1;
            }
            (Quote::Double, '\\') if next.is_some_and(|n| "$`\"\\\n".contains(n)) => {
                out.extend(next.map(|n| (n, false)));
                i += 1;
            }
            (_, '$') => {
                let (value, used) = parameter(&chars[i..], vars);
                i += used;
                let unquoted = quote == Quote::None;
                match value {
                    Some(value) => out.extend(value.chars().map(|v| (v, unquoted && is_blank(v)))),
                    None if used == 0 => out.push(('$', false)),
                    None => {}
                }
            }
            (_, '`') => i += skip_to(&chars[i..], '`'),
            (Quote::None, '~')
                if at_word_start(&out) && next.is_none_or(|n| n == '/' || is_blank(n)) =>
            {
                let home = lookup(vars, "HOME").unwrap_or_default();
                out.extend(home.chars().map(|h| (h, false)));
            }
            (Quote::None, _) => out.push((c, is_blank(c))),
            (Quote::Double, _) => out.push((c, false)),
        }
    }
    out
}

/// Whether the next character starts a word: the command's start, or after
/// a split or an operator.
fn at_word_start(out: &Expanded) -> bool {
    out.last()
        .is_none_or(|(c, split)| *split || matches!(c, ';' | '&' | '|' | '(' | '='))
}

/// The parameter after a `$`: its value (`None`: unknown or not a
/// parameter) and how many characters it took. `$(...)` is a command
/// substitution, taken whole and unknown.
fn parameter(rest: &[char], vars: &[(String, String)]) -> (Option<String>, usize) {
    match rest.first() {
        Some('{') => {
            let len = skip_to(&rest[1..], '}');
            let inside: String = rest[1..len].iter().collect();
            let name: String = inside
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (lookup(vars, &name), len + 1)
        }
        Some('(') => (None, 1 + skip_to(&rest[1..], ')')),
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let len = rest
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .count();
            let name: String = rest[..len].iter().collect();
            (lookup(vars, &name), len)
        }
        Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(*c) => (None, 1),
        _ => (None, 0),
    }
}

/// How many characters up to and including the first `end` (all of them
/// when there is none).
fn skip_to(rest: &[char], end: char) -> usize {
    rest.iter()
        .position(|c| *c == end)
        .map_or(rest.len(), |at| at + 1)
}

fn lookup(vars: &[(String, String)], name: &str) -> Option<String> {
    vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPO: &str = "/s/Café projects/repo";
    const HOME: &str = "/s/Zoë home";

    fn split(command: &str) -> Option<&'static str> {
        static PATHS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        let paths = PATHS.get_or_init(|| vec![REPO.to_string(), HOME.to_string()]);
        let vars = [
            ("HOME".to_string(), HOME.to_string()),
            ("ENTIRE_REPO_ROOT".to_string(), REPO.to_string()),
        ];
        split_path(command, paths, &vars)
    }

    #[test]
    fn an_unquoted_path_is_split() {
        for command in [
            "cd /s/Café projects/repo && entire hooks x stop",
            "/s/Café projects/repo/.x/hook.sh stop",
            "cd $ENTIRE_REPO_ROOT && entire hooks x stop",
            "sh ${ENTIRE_REPO_ROOT}/.x/hook.sh",
            "cd \"$ENTIRE_REPO_ROOT\" && python3 $HOME/.x/hook.py",
        ] {
            assert!(split(command).is_some(), "{command}");
        }
        assert_eq!(split("cd $HOME; entire hooks x stop"), Some(HOME));
    }

    #[test]
    fn a_quoted_path_a_tilde_and_no_path_are_not() {
        for command in [
            "entire hooks x stop",
            "cd '/s/Café projects/repo' && entire hooks x stop",
            "cd \"/s/Café projects/repo\" && entire hooks x stop",
            "cd \"$ENTIRE_REPO_ROOT\" && entire hooks x stop",
            "cd /s/Café\\ projects/repo && entire hooks x stop",
            "sh ~/.x/hook.sh",
            "cd \"${ENTIRE_REPO_ROOT}\" && $(command -v entire) hooks x stop",
            "echo '$HOME' `pwd`",
        ] {
            assert_eq!(split(command), None, "{command}");
        }
    }
}
