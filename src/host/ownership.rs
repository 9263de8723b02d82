//! Who owns a transcript: the host's owner lookup over the agents' session
//! directories (docs/host.md, "Real bugs that these plugins carry":
//! "The session directory claims what is not the plugin's" and "A shared
//! staging directory").
//!
//! For every hook event with a `session_ref`, the host looks for the owner
//! of that path: the first registered agent, in sorted name order, whose
//! session directory contains it (a prefix match with a separator,
//! case-insensitive on Windows). When the owner is not the agent whose hook
//! fired, the event is skipped ("forwarded hook"): no checkpoint. So a
//! session directory that contains what is not the plugin's (the work
//! tree, the home directory, `.entire`, a built-in agent's directory)
//! costs other agents every checkpoint while it is installed. What counts
//! is whose transcripts lie under it: a directory of the plugin's own
//! anywhere else (inside `.git`, under HOME, `.entire/<its name>`) owns
//! only its own subtree, and `.git` itself takes only the transcripts of
//! plugins keeping theirs inside it (a warning).
//!
//! [`contains`] and [`owner`] are the host's lookup; [`judge`] says what one
//! plugin's `get-session-dir` answer costs, given the built-in agents'
//! directories of [`super::builtin_dirs`].

use std::path::{Component, Path, PathBuf};

use super::Severity;
use super::builtin_dirs::{self, BuiltInDir};

/// Whether the host counts `path` as inside `dir`: `path` is `dir` itself
/// or starts with `dir` and a separator (docs/host.md, "The session
/// directory claims what is not the plugin's": "a prefix match with a
/// separator"), compared case-insensitively on Windows. Both are cleaned
/// lexically first (`.` components and trailing separators dropped, `..`
/// resolved), as the host cleans paths before comparing.
pub fn contains(dir: &Path, path: &Path) -> bool {
    let (dir, path) = (comparable(dir), comparable(path));
    if path == dir {
        return true;
    }
    let prefix = if dir.ends_with('/') {
        dir
    } else {
        format!("{dir}/")
    };
    path.starts_with(&prefix)
}

/// The owner the host finds for `path`: the first agent in sorted name
/// order whose session directory contains it ([`contains`]); `None` when no
/// agent's does (docs/host.md, "The session directory claims what is
/// not the plugin's"). `agents` are (registered name, session directory)
/// pairs in any order.
pub fn owner<'a>(path: &Path, agents: &'a [(String, PathBuf)]) -> Option<&'a str> {
    let mut sorted: Vec<&(String, PathBuf)> = agents.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    sorted
        .into_iter()
        .find(|(_, dir)| contains(dir, path))
        .map(|(name, _)| name.as_str())
}

/// A path as the host compares it: cleaned lexically, `/` as the separator,
/// lower case on Windows.
fn comparable(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut root = String::new();
    for component in path.components() {
        match component {
            Component::Prefix(p) => root.push_str(&p.as_os_str().to_string_lossy()),
            Component::RootDir => root.push('/'),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() && root.is_empty() {
                    parts.push("..".into());
                }
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
        }
    }
    let text = format!("{root}{}", parts.join("/"));
    if cfg!(windows) {
        text.replace('\\', "/").to_lowercase()
    } else {
        text
    }
}

/// What one `get-session-dir` answer costs, found by [`judge`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// A failure when an agent's events are skipped on the hosts users run
    /// today; a warning for the shared staging directory and older hosts.
    pub severity: Severity,
    /// What the directory claims, and whose events the host then skips.
    pub message: String,
}

/// The places of a sandbox (or a machine) a session directory is judged
/// against.
#[derive(Debug, Clone)]
pub struct Places<'a> {
    /// The plugin's registered name (`entire-agent-<name>`).
    pub agent: &'a str,
    /// The work tree's root (`--repo-path`).
    pub repo: &'a Path,
    /// The user's home directory.
    pub home: &'a Path,
}

/// What the host does with `dir` as this plugin's session directory
/// (docs/host.md, "The session directory claims what is not the
/// plugin's", "A shared staging directory"): one [`Claim`] per way it takes
/// other agents' transcripts (or gives its own away); none for a directory
/// of the plugin's own. A relative directory is not judged: the host's
/// prefix match of it against absolute references is not established
/// (`core.get-session-dir.absolute` warns about it).
pub fn judge(dir: &Path, places: &Places<'_>) -> Vec<Claim> {
    if !dir.is_absolute() {
        return Vec::new();
    }
    // A general claim names the built-ins it takes already.
    if let Some(claim) = general_claim(dir, places) {
        return vec![claim];
    }
    let mut claims = built_in_claims(dir, places);
    claims.extend(staging_claim(dir, places));
    claims.extend(git_dir_claim(dir, places));
    claims
}

/// `<repo>/.git` itself: no built-in agent keeps transcripts there, but a
/// plugin keeping its sessions in a directory of its own inside `.git`
/// (`.git/<its name>/sessions`, which owns only its own subtree) would
/// have its transcripts taken, and every event of it skipped when this
/// plugin sorts first: like the shared staging directory, it breaks only
/// beside such a plugin, a warning (docs/host.md, "The session
/// directory claims what is not the plugin's": "What counts is whose
/// transcripts lie under the directory").
fn git_dir_claim(dir: &Path, places: &Places<'_>) -> Option<Claim> {
    if comparable(dir) != comparable(&places.repo.join(".git")) {
        return None;
    }
    let message = format!(
        "get-session-dir is {}, the repository's .git directory itself: no built-in agent keeps \
         transcripts there, but {LOOKUP}, so {:?} owns every transcript under .git: another \
         plugin keeping its sessions in a directory of its own inside .git (.git/<its name>/...) \
         installed beside it has its events skipped and gets no checkpoints. A directory of the \
         plugin's own (.git/<name>/sessions) avoids it",
        dir.display(),
        places.agent
    );
    Some(Claim {
        severity: Severity::Warning,
        message,
    })
}

/// Why the host's owner lookup protects what a claim breaks, for messages.
const LOOKUP: &str = "for every hook event with a session_ref the host gives the transcript to \
                      the first agent, in sorted name order, whose session directory contains it, \
                      and skips the event when that is not the agent whose hook fired";

/// The work tree, one of its ancestors, the home directory or `.entire`
/// itself: every transcript under it is this plugin's.
fn general_claim(dir: &Path, places: &Places<'_>) -> Option<Claim> {
    let what = if contains(dir, places.repo) {
        "the work tree's root or one of its ancestors"
    } else if contains(dir, places.home) {
        "the home directory or one of its ancestors"
    } else if comparable(dir) == comparable(&places.repo.join(".entire")) {
        "Entire's own .entire directory"
    } else {
        return None;
    };
    let skipped = skipped_built_ins(dir, places, false);
    let built_ins = if skipped.is_empty() {
        String::new()
    } else {
        format!("the built-in {}, and of ", skipped.join(", "))
    };
    let message = format!(
        "get-session-dir is {}, {what}: {LOOKUP}, so {:?} owns every transcript under it. The events \
         of {built_ins}every other agent sorting after it whose transcripts live there (a plugin \
         staging in {}, as the official template does) are skipped: those agents get no \
         checkpoints for as long as this plugin is installed",
        dir.display(),
        places.agent,
        builtin_dirs::staging(places.repo).display()
    );
    Some(Claim {
        severity: Severity::Failure,
        message,
    })
}

/// The built-in agents (of `older` hosts, or of today's) whose events the
/// host skips because this plugin's directory takes their transcripts, as
/// "name (its directory)".
fn skipped_built_ins(dir: &Path, places: &Places<'_>, older: bool) -> Vec<String> {
    let agents = agents(dir, places, older);
    builtin_dirs::BUILT_IN_DIRS
        .iter()
        .filter(|b| b.older_hosts_only == older)
        .filter_map(|b| {
            let theirs = b.resolve(places.home, places.repo);
            let probe = theirs.join("transcript.jsonl");
            (owner(&probe, &agents) == Some(places.agent))
                .then(|| format!("{} ({})", b.agent, theirs.display()))
        })
        .collect()
}

/// This plugin and the built-in agents of today's hosts (or of `older`
/// ones) with their directories in this sandbox.
fn agents(dir: &Path, places: &Places<'_>, older: bool) -> Vec<(String, PathBuf)> {
    let mut agents: Vec<(String, PathBuf)> = builtin_dirs::BUILT_IN_DIRS
        .iter()
        .filter(|b| b.older_hosts_only == older)
        .map(|b| (b.agent.to_string(), b.resolve(places.home, places.repo)))
        .collect();
    agents.push((places.agent.to_string(), dir.to_path_buf()));
    agents
}

/// A directory that is, holds or lies inside a built-in agent's: the
/// built-in's events are skipped (this plugin sorts first), or this
/// plugin's own (the built-in sorts first). Today's built-ins: failures;
/// older hosts' (Kiro's `<repo>/.entire/tmp`, said by [`staging_claim`]
/// when it is exactly that): warnings.
fn built_in_claims(dir: &Path, places: &Places<'_>) -> Vec<Claim> {
    let mut claims = Vec::new();
    for older in [false, true] {
        let severity = if older {
            Severity::Warning
        } else {
            Severity::Failure
        };
        let hosts = if older { "on older hosts, " } else { "" };
        if older && is_staging(dir, places) {
            continue; // said by staging_claim
        }
        let related: Vec<&BuiltInDir> = builtin_dirs::BUILT_IN_DIRS
            .iter()
            .filter(|b| b.older_hosts_only == older)
            .filter(|b| {
                let theirs = b.resolve(places.home, places.repo);
                contains(dir, &theirs) || contains(&theirs, dir)
            })
            .collect();
        if related.is_empty() {
            continue;
        }
        let agents = agents(dir, places, older);
        let mine = owner(&dir.join("transcript.jsonl"), &agents).unwrap_or(places.agent);
        let theirs = related
            .iter()
            .find(|b| b.agent == mine)
            .map_or(String::new(), |b| {
                b.resolve(places.home, places.repo).display().to_string()
            });
        let skipped = skipped_built_ins(dir, places, older);
        let message = if !skipped.is_empty() {
            format!(
                "get-session-dir is {}, which holds the session directory of the built-in {}: \
                 {hosts}{LOOKUP}, and {:?} sorts first, so the built-in's events are skipped and \
                 it gets no checkpoints while this plugin is installed",
                dir.display(),
                skipped.join(", "),
                places.agent
            )
        } else if mine != places.agent {
            format!(
                "get-session-dir is {}, inside the session directory of the built-in {mine} \
                 ({theirs}): {hosts}{LOOKUP}, and {mine:?} sorts before {:?}, so every event of \
                 this plugin is skipped: it gets no checkpoints",
                dir.display(),
                places.agent
            )
        } else {
            continue;
        };
        claims.push(Claim { severity, message });
    }
    claims
}

/// Whether `dir` is the official template's shared staging directory
/// `<repo>/.entire/tmp`, or inside it.
fn is_staging(dir: &Path, places: &Places<'_>) -> bool {
    contains(&builtin_dirs::staging(places.repo), dir)
}

/// `<repo>/.entire/tmp` (or inside it), the official template's: alone it
/// works; two such plugins installed together own the same transcripts and
/// every event of the one that sorts later is skipped (docs/host.md,
/// "A shared staging directory"). A warning here.
fn staging_claim(dir: &Path, places: &Places<'_>) -> Option<Claim> {
    if !is_staging(dir, places) {
        return None;
    }
    let message = format!(
        "get-session-dir is {}, the shared staging directory of the official plugin template \
         (kiro, pi and other plugins of the official repository use it, as older hosts' built-in \
         Kiro did): alone that works, but {LOOKUP}. With another plugin of that template installed \
         beside {:?}, both own the same transcripts and every event of the one that sorts later \
         is skipped: it gets no checkpoints. A directory of the plugin's own (under its agent's \
         home, or <repo>/.entire/<name>) avoids it",
        dir.display(),
        places.agent
    );
    Some(Claim {
        severity: Severity::Warning,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places<'a>(agent: &'a str, repo: &'a Path, home: &'a Path) -> Places<'a> {
        Places { agent, repo, home }
    }

    #[test]
    fn contains_is_a_prefix_match_with_a_separator() {
        assert!(contains(Path::new("/a/b"), Path::new("/a/b")));
        assert!(contains(Path::new("/a/b"), Path::new("/a/b/c.jsonl")));
        assert!(contains(Path::new("/a/b/"), Path::new("/a/b/c")));
        assert!(!contains(Path::new("/a/b"), Path::new("/a/bc/d")));
        assert!(contains(Path::new("/"), Path::new("/x")));
        assert!(contains(Path::new("/a/./b"), Path::new("/a/c/../b/d")));
        assert!(!contains(Path::new("/a/b/c"), Path::new("/a/b")));
    }

    #[test]
    fn the_owner_is_the_first_agent_in_sorted_name_order() {
        let agents = vec![
            ("zeta".to_string(), PathBuf::from("/r")),
            ("alpha".to_string(), PathBuf::from("/r/.entire/tmp")),
            ("beta".to_string(), PathBuf::from("/r")),
        ];
        assert_eq!(
            owner(Path::new("/r/.entire/tmp/s.json"), &agents),
            Some("alpha")
        );
        assert_eq!(owner(Path::new("/r/x"), &agents), Some("beta"));
        assert_eq!(owner(Path::new("/elsewhere"), &agents), None);
    }

    #[test]
    fn the_repository_root_fails_and_names_the_built_ins_it_takes() {
        let (repo, home) = (Path::new("/sb/nest/repo"), Path::new("/sb/home"));
        let claims = judge(repo, &places("aaa", repo, home));
        assert_eq!(claims.len(), 1, "{claims:?}");
        assert_eq!(claims[0].severity, Severity::Failure);
        assert!(
            claims[0]
                .message
                .contains("opencode (/sb/nest/repo/.entire/opencode/sessions)")
        );
        let late = judge(repo, &places("zzz", repo, home));
        assert_eq!(late.len(), 1, "{late:?}");
        assert!(late[0].message.contains("work tree's root"));
        assert!(!late[0].message.contains("the built-in opencode"));
    }

    #[test]
    fn a_directory_inside_git_is_its_own_and_git_itself_warns() {
        let (repo, home) = (Path::new("/sb/nest/repo"), Path::new("/sb/home"));
        let mine = places("mine", repo, home);
        assert_eq!(
            judge(Path::new("/sb/nest/repo/.git/mine/sessions"), &mine),
            Vec::new()
        );
        let git = judge(Path::new("/sb/nest/repo/.git"), &mine);
        assert_eq!(git.len(), 1, "{git:?}");
        assert_eq!(git[0].severity, Severity::Warning);
    }

    #[test]
    fn home_and_entire_fail() {
        let (repo, home) = (Path::new("/sb/nest/repo"), Path::new("/sb/home"));
        for dir in ["/sb/home", "/sb/nest/repo/.entire"] {
            let claims = judge(Path::new(dir), &places("mine", repo, home));
            assert!(
                claims.iter().any(|c| c.severity == Severity::Failure),
                "{dir}: {claims:?}"
            );
        }
    }

    #[test]
    fn the_shared_staging_directory_is_a_warning_alone() {
        let (repo, home) = (Path::new("/sb/nest/repo"), Path::new("/sb/home"));
        let claims = judge(&repo.join(".entire/tmp"), &places("pi-like", repo, home));
        assert_eq!(claims.len(), 1, "{claims:?}");
        assert_eq!(claims[0].severity, Severity::Warning);
        assert!(claims[0].message.contains("sorts later"));
    }

    #[test]
    fn a_built_in_directory_fails_either_way() {
        let (repo, home) = (Path::new("/sb/nest/repo"), Path::new("/sb/home"));
        let claude = home.join(".claude");
        let early = judge(&claude, &places("aider", repo, home));
        assert!(
            early[0].message.contains("built-in claude-code"),
            "{early:?}"
        );
        let inside = home.join(".claude/projects/-sb-nest-repo/mine");
        let late = judge(&inside, &places("zed", repo, home));
        assert!(
            late[0].message.contains("every event of this plugin"),
            "{late:?}"
        );
        assert_eq!(late[0].severity, Severity::Failure);
    }

    #[test]
    fn a_directory_of_the_plugins_own_claims_nothing() {
        let (repo, home) = (Path::new("/sb/nest/repo"), Path::new("/sb/home"));
        for dir in [
            "/sb/home/.reference/projects/x",
            "/sb/nest/repo/.entire/mine",
            "rel/dir",
        ] {
            assert_eq!(
                judge(Path::new(dir), &places("mine", repo, home)),
                Vec::new(),
                "{dir}"
            );
        }
    }
}
