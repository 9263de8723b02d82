//! `--cases [NAME=]DIR`: whose cases a directory holds. With one plugin, a
//! plain `DIR` is that plugin's; in a run of several, each directory names
//! its plugin (`--cases foo=agents/foo/conformance`), and a plugin gets the
//! embedded suite and its own directories only: never another's cases,
//! samples, recording, variables or allowances.

use std::path::{Path, PathBuf};

use crate::verbs::usage::UsageError;

/// The directory `init` scaffolds, `conformance` in the current directory,
/// when it holds a case file (`*.yaml`, `*.yml`): a run without `--cases`
/// takes it.
pub(super) fn beside() -> Option<PathBuf> {
    let dir = PathBuf::from("conformance");
    let holds_cases = std::fs::read_dir(&dir).ok()?.flatten().any(|entry| {
        let path = entry.path();
        path.is_file()
            && path
                .extension()
                .is_some_and(|ext| ext == "yaml" || ext == "yml")
    });
    holds_cases.then(|| PathBuf::from("./conformance"))
}

/// One `--cases` value: the plugin it names, if any, and the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Given {
    /// The agent name before `=` (`foo`, or `entire-agent-foo`).
    pub owner: Option<String>,
    /// The directory of case files.
    pub dir: PathBuf,
}

/// Reads `NAME=DIR` or `DIR`. A value that is an existing directory as a
/// whole is a directory, even with a `=` in its name; a `NAME` holds no `/`.
pub(super) fn parse(value: &Path) -> Given {
    let text = value.to_string_lossy();
    let plain = Given {
        owner: None,
        dir: value.to_path_buf(),
    };
    if value.is_dir() {
        return plain;
    }
    match text.split_once('=') {
        Some((name, dir)) if !name.is_empty() && !name.contains('/') && !dir.is_empty() => Given {
            owner: Some(
                name.strip_prefix("entire-agent-")
                    .unwrap_or(name)
                    .to_string(),
            ),
            dir: PathBuf::from(dir),
        },
        _ => plain,
    }
}

/// The directories alone, whoever they belong to (`list`, `explain`,
/// `coverage`: no plugin runs).
pub(super) fn dirs(given: &[PathBuf]) -> Vec<PathBuf> {
    given.iter().map(|v| parse(v).dir).collect()
}

/// The case directories of each plugin, in the plugins' order; `names` are
/// the plugins' agent names. A directory naming no plugin of the run, or a
/// plain directory in a run of several, is a usage error.
pub(super) fn per_plugin(
    given: &[PathBuf],
    names: &[String],
) -> Result<Vec<Vec<PathBuf>>, UsageError> {
    let mut dirs: Vec<Vec<PathBuf>> = names.iter().map(|_| Vec::new()).collect();
    for value in given {
        let one = parse(value);
        let at = match &one.owner {
            None if names.len() == 1 => 0,
            None => {
                return Err(UsageError::new(
                    format!(
                        "--cases {}: with several plugins, say whose cases these are",
                        value.display()
                    ),
                    format!(
                        "give each plugin its own: --cases {}={}",
                        names[0],
                        one.dir.display()
                    ),
                ));
            }
            Some(owner) => names.iter().position(|n| n == owner).ok_or_else(|| {
                UsageError::new(
                    format!(
                        "--cases {}: no plugin of this run is named {owner:?}",
                        value.display()
                    ),
                    format!("the plugins of this run: {}", names.join(", ")),
                )
            })?,
        };
        dirs[at].push(one.dir);
    }
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_named_directory_goes_to_its_plugin_only() {
        let given = [
            PathBuf::from("foo=a/conformance"),
            PathBuf::from("entire-agent-bar=b"),
        ];
        let dirs = per_plugin(&given, &names(&["foo", "bar", "baz"])).expect("assigned");
        assert_eq!(dirs[0], [PathBuf::from("a/conformance")]);
        assert_eq!(dirs[1], [PathBuf::from("b")]);
        assert!(dirs[2].is_empty());
    }

    #[test]
    fn a_plain_directory_is_the_one_plugins_and_refused_with_several() {
        let given = [PathBuf::from("conformance")];
        let one = per_plugin(&given, &names(&["foo"])).expect("assigned");
        assert_eq!(one, [[PathBuf::from("conformance")]]);
        let err = per_plugin(&given, &names(&["foo", "bar"])).expect_err("refused");
        assert!(
            err.hint
                .is_some_and(|h| h.contains("--cases foo=conformance"))
        );
        let unknown = per_plugin(&[PathBuf::from("qux=x")], &names(&["foo"]));
        assert!(unknown.is_err());
    }

    #[test]
    fn a_path_with_a_slash_before_the_equals_sign_is_a_directory() {
        assert_eq!(parse(Path::new("a/b=c")).owner, None);
        assert_eq!(parse(Path::new("foo=a/b")).owner.as_deref(), Some("foo"));
    }
}
