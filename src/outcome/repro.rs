//! Reproducing an invocation by hand: the exact shell command line (kept in
//! the JSON report and printed with `-v`), and the `reproduce.sh` script
//! written into every kept sandbox, which the human report names in one line
//! (`reproduce: sh <sandbox>/reproduce.sh N`).
//!
//! Both name only what the harness itself set: the working directory, the
//! variables it set and the names of those it removed, the arguments and the
//! saved stdin, and the sandbox's `bin` put first on `PATH` (the stand-in
//! for the host's `entire`). Nothing else of the user's environment is
//! written down (the rest is inherited from whoever runs the command, as the
//! host passes its own).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::running::runner::Invocation;

/// The script's file name in a kept sandbox.
pub const SCRIPT: &str = "reproduce.sh";

/// Everything needed to rerun one invocation by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reproduction {
    /// The plugin (absolute path).
    pub program: PathBuf,
    /// The arguments after it.
    pub args: Vec<String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The variables the harness set.
    pub env: Vec<(String, OsString)>,
    /// The names of the variables the harness removed.
    pub env_remove: Vec<String>,
    /// The directory the harness put first on `PATH` (the `entire` stand-in).
    pub path_first: Option<PathBuf>,
    /// The saved stdin; `None` means no stdin (`/dev/null`).
    pub stdin_file: Option<PathBuf>,
    /// The deadline the harness gave the invocation.
    pub timeout: Duration,
    /// Whether the plugin ran confined (see [`crate::running::confine`]).
    pub confined: bool,
    /// The copy of the sandbox as the call found it (`before/N/` of a kept
    /// sandbox, see [`crate::running::journal`]), laid down again before the
    /// rerun; `None`: the sandbox as the case left it.
    pub state: Option<usize>,
}

impl Reproduction {
    /// The reproduction of `inv`, whose stdin is saved to `stdin_file` (if
    /// any), in the sandbox as the call found it (copy `state`).
    pub fn of(inv: &Invocation, stdin_file: Option<&Path>, state: Option<usize>) -> Reproduction {
        Reproduction {
            program: inv.program.clone(),
            args: inv.args.clone(),
            cwd: inv.cwd.clone(),
            env: inv.env.clone(),
            env_remove: inv.env_remove.clone(),
            path_first: inv.path_first.clone(),
            stdin_file: inv.stdin.as_ref().and(stdin_file).map(Path::to_path_buf),
            timeout: inv.timeout,
            confined: inv.confine.is_some(),
            state,
        }
    }

    /// The plugin, its arguments and the stdin redirection, quoted.
    fn invocation(&self) -> String {
        let mut line = quote(&self.program.to_string_lossy());
        for arg in &self.args {
            line.push(' ');
            line.push_str(&quote(arg));
        }
        line
    }

    /// The stdin file, or `/dev/null`, quoted.
    fn stdin(&self) -> String {
        self.stdin_file
            .as_ref()
            .map_or("/dev/null".to_string(), |f| quote(&f.to_string_lossy()))
    }
}

/// A POSIX shell command line reproducing `inv`.
pub fn command_line(inv: &Invocation, stdin_file: Option<&Path>) -> String {
    line_of(&Reproduction::of(inv, stdin_file, None))
}

/// A POSIX shell command line reproducing a [`Reproduction`]: `cd DIR && env -u
/// REMOVED... NAME=VALUE... PLUGIN ARGS... < STDIN`.
pub fn line_of(reproduction: &Reproduction) -> String {
    let mut line = format!("cd {} &&", quote(&reproduction.cwd.to_string_lossy()));
    if !reproduction.env_remove.is_empty() {
        line.push_str(" env");
        for key in &reproduction.env_remove {
            line.push_str(&format!(" -u {}", quote(key)));
        }
    }
    if let Some(dir) = &reproduction.path_first {
        line.push_str(&format!(" PATH={}", path_first(dir)));
    }
    for (key, value) in &reproduction.env {
        line.push_str(&format!(" {key}={}", quote(&value.to_string_lossy())));
    }
    line.push(' ');
    line.push_str(&reproduction.invocation());
    line.push_str(&format!(" < {}", reproduction.stdin()));
    line
}

/// The directory of a kept sandbox holding what each invocation printed.
pub const OUTPUT_DIR: &str = "output";

/// What an invocation printed, carried by its step until the case ends, so
/// that a kept sandbox holds it beside the script (`output/N.stdout`,
/// `output/N.stderr`): what the plugin printed under the harness, to compare
/// with a rerun.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printed {
    /// stdout, as the harness read it.
    pub stdout: Vec<u8>,
    /// stderr, as the harness read it.
    pub stderr: Vec<u8>,
}

impl Printed {
    /// Largest output carried (per stream): large outputs are not kept
    /// twice in memory for a file that a passing case never writes.
    const MAX: usize = 1 << 20;

    /// The output of `outcome`, unless it is large, or stdout was compared
    /// as it streamed instead of being kept.
    pub fn of(outcome: &crate::running::runner::Outcome) -> Option<Printed> {
        let whole = outcome.compared.is_none() && !outcome.stdout_overflow;
        let small = outcome.stdout.len() <= Self::MAX && outcome.stderr.len() <= Self::MAX;
        (whole && small).then(|| Printed {
            stdout: outcome.stdout.clone(),
            stderr: outcome.stderr.clone(),
        })
    }
}

/// One invocation of a kept case, numbered as in the report's steps.
#[derive(Debug, Clone, Copy)]
pub struct Numbered<'a> {
    /// Its number in the script (the step's position in the report, from 1).
    pub number: usize,
    /// The step's name.
    pub name: &'a str,
    /// How to rerun it.
    pub reproduction: &'a Reproduction,
}

/// `sh <script> N`, quoted for a POSIX shell.
pub fn script_command(script: &Path, number: usize) -> String {
    format!("sh {} {number}", quote(&script.to_string_lossy()))
}

/// Writes `text` to `path` as an executable script.
pub fn write_script(path: &Path, text: &str) -> io::Result<()> {
    std::fs::write(path, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// The text of `reproduce.sh` for a case's invocations: a POSIX shell script
/// taking the invocation's number. For that invocation it changes to the
/// working directory, sets the variables the harness set, removes every
/// `GIT_*` variable (as the harness does), prints the command line on stderr
/// and replaces itself with the plugin, stdin redirected from the saved file,
/// so that the exit code is the plugin's.
pub fn script(case_id: &str, steps: &[Numbered]) -> String {
    let mut out = String::new();
    header(&mut out, case_id, steps);
    if steps.iter().any(|s| s.reproduction.state.is_some()) {
        out.push_str(LAY_DOWN);
    }
    out.push_str("number=${1:-}\nas_left=${2:-}\nstate=\ncase \"$number\" in\n");
    for step in steps {
        branch(&mut out, step);
    }
    out.push_str("*)\n");
    let _ = writeln!(
        out,
        "  printf '%s\\n' \"usage: sh $0 N, to run invocation N of case {}:\" >&2",
        comment_text(case_id).replace(['"', '$', '`', '\\'], "?")
    );
    for step in steps {
        let _ = writeln!(
            out,
            "  printf '%s\\n' {} >&2",
            quote(&format!("  {}", listing(step)))
        );
    }
    out.push_str("  exit 2\n  ;;\nesac\n");
    out.push_str(
        "# agent-conform removes every GIT_* variable: git's own variables would point\n\
         # the plugin's git calls at another repository.\n\
         for name in $(env | sed -n 's/^\\(GIT_[A-Za-z0-9_]*\\)=.*/\\1/p'); do\n  \
         unset \"$name\"\ndone\n\
         if [ -n \"$state\" ] && [ \"$as_left\" != --as-left ]; then\n  \
         lay_down \"$state\"\n  \
         printf '%s\\n' \"the sandbox laid down as invocation $number found it (before/$state)\" >&2\n\
         fi\n\
         cd \"$dir\" || exit 125\n\
         printf '+ %s\\n' \"$line\" >&2\n\
         exec \"$@\" < \"$stdin\"\n",
    );
    out
}

/// The script's opening comment: what it does, and how the run differed.
fn header(out: &mut String, case_id: &str, steps: &[Numbered]) {
    let confined = steps.iter().any(|s| s.reproduction.confined);
    let deadline = steps
        .iter()
        .map(|s| s.reproduction.timeout)
        .max()
        .unwrap_or_default();
    let mut removed: Vec<&str> = steps
        .iter()
        .flat_map(|s| s.reproduction.env_remove.iter().map(String::as_str))
        .collect();
    removed.sort_unstable();
    removed.dedup();
    let removed = if removed.is_empty() {
        "none was set".to_string()
    } else {
        format!("in this run: {}", removed.join(", "))
    };
    let _ = writeln!(out, "#!/bin/sh");
    let _ = writeln!(
        out,
        "# Reruns an invocation of the agent-conform case {} by hand, as\n\
         # agent-conform {} ran it: the same working directory, the variables it set,\n\
         # without the GIT_* variables it removed ({removed}), the same\n\
         # arguments and the saved stdin, and the stand-in for the host's `entire`\n\
         # first on PATH (it records each call in entire-calls/ and exits 0). The rest\n\
         # of the environment is yours, as the host passes its own.\n\
         #\n\
         # Usage: sh reproduce.sh N [--as-left]\n\
         # It says on stderr which copy of the sandbox it laid down (below), prints\n\
         # the command, one line starting with \"+ \", then runs the plugin; the exit code is the plugin's. What the plugin printed\n\
         # under agent-conform is in output/N.stdout and output/N.stderr (small\n\
         # outputs only), to compare.\n\
         #",
        comment_text(case_id),
        env!("CARGO_PKG_VERSION"),
    );
    if confined {
        out.push_str(
            "# Under agent-conform the plugin ran confined: the kernel (Landlock) let it\n\
             # write only inside this sandbox. This script runs it unconfined, as the\n\
             # host does, so a write outside the sandbox now happens.\n",
        );
    } else {
        out.push_str("# The plugin ran unconfined under agent-conform too, as here.\n");
    }
    let _ = writeln!(
        out,
        "# agent-conform stopped an invocation at its deadline ({} s); here there is\n\
         # none.",
        deadline.as_secs_f64()
    );
    let all = steps.iter().all(|s| s.reproduction.state.is_some());
    let some = steps.iter().any(|s| s.reproduction.state.is_some());
    out.push_str(match (all, some) {
        (true, _) => {
            "# Before it runs invocation N, the script lays the sandbox down as that\n\
             # invocation found it (the copy in before/K/; an answer another case's call\n\
             # gave this case too): the repository, HOME, the scratch directories and\n\
             # the stand-in's record, nothing of the later invocations. `sh reproduce.sh\n\
             # N --as-left` runs it in the sandbox as it is now instead.\n"
        }
        (false, true) => {
            "# Before it runs invocation N, the script lays the sandbox down as that\n\
             # invocation found it (the copy in before/K/), where a copy was kept (not\n\
             # past 64 MiB of copies); the others run in the sandbox as the case left\n\
             # it. `sh reproduce.sh N --as-left` runs one in the sandbox as it is now.\n"
        }
        _ => {
            "# The sandbox holds what the whole case left behind: an invocation that\n\
             # depends on earlier ones finds their effects already made.\n"
        }
    });
    out.push_str("#\n# Invocations:\n");
    for step in steps {
        let _ = writeln!(out, "#   {}", listing(step));
    }
    out.push('\n');
}

/// The script's function that lays the sandbox down as a copy holds it
/// (`before/N/`, see [`crate::running::journal`]): every entry of the
/// sandbox but the script's own record removed, then the copy's tree laid
/// down with its permissions and times.
const LAY_DOWN: &str = "\
# lay_down N: the sandbox as invocation N's copy holds it (before/N/): every\n\
# entry but this script and its record (before/, output/, stdin/) removed,\n\
# then the copy's tree laid down with its permissions and times.\n\
root=$(cd \"$(dirname \"$0\")\" && pwd -P) || exit 125\n\
lay_down() {\n  \
  for entry in \"$root\"/* \"$root\"/.[!.]* \"$root\"/..?*; do\n    \
    [ -e \"$entry\" ] || [ -h \"$entry\" ] || continue\n    \
    case \"${entry##*/}\" in before|output|stdin|reproduce.sh) continue ;; esac\n    \
    [ -h \"$entry\" ] || chmod -R u+w \"$entry\" 2>/dev/null\n    \
    rm -rf \"$entry\" || exit 125\n  \
  done\n  \
  cp -PpR \"$root/before/$1/.\" \"$root/\" || exit 125\n\
}\n\n";

/// `N  name: args`, on one line.
fn listing(step: &Numbered) -> String {
    let args = step.reproduction.args.join(" ");
    comment_text(&format!("{:<2} {}: {args}", step.number, step.name))
}

/// The `case` branch of one invocation.
fn branch(out: &mut String, step: &Numbered) {
    let reproduction = step.reproduction;
    let _ = writeln!(out, "{})", step.number);
    let _ = writeln!(out, "  dir={}", quote(&reproduction.cwd.to_string_lossy()));
    if let Some(dir) = &reproduction.path_first {
        let _ = writeln!(out, "  export PATH={}", path_first(dir));
    }
    for (key, value) in &reproduction.env {
        let _ = writeln!(out, "  export {key}={}", quote(&value.to_string_lossy()));
    }
    if let Some(state) = reproduction.state {
        let _ = writeln!(out, "  state={state}");
    }
    let _ = writeln!(out, "  stdin={}", reproduction.stdin());
    let _ = writeln!(out, "  line={}", quote(&line_of(reproduction)));
    let _ = writeln!(out, "  set -- {}", reproduction.invocation());
    out.push_str("  ;;\n");
}

/// `DIR:"$PATH"`, quoted: the caller's `PATH` with `dir` first.
fn path_first(dir: &Path) -> String {
    format!("{}:\"$PATH\"", quote(&dir.to_string_lossy()))
}

/// Text made safe for a one-line shell comment: control characters shown
/// as `?`.
fn comment_text(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
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
    for word in shell_words(rest) {
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

/// The words of a command line from [`command_line`], split at its spaces
/// but not at one inside single quotes (a path with a space, as [`quote`]
/// writes it): a line broken there would put the break into the path.
fn shell_words(line: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (at, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if !quoted => escaped = true,
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                words.push(&line[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    words.push(&line[start..]);
    words
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
    fn a_quoted_path_with_a_space_stays_on_one_line() {
        let line = "cd '/s/Café projects/repo' && env -u GIT_DIR HOME='/s/Zoë home' \
                    TZ=Asia/Kolkata ENTIRE_REPO_ROOT='/s/Café projects/repo' \
                    ENTIRE_PROTOCOL_VERSION=1 /p/plugin info < /dev/null";
        let lines = super::wrap(line);
        assert_eq!(lines[0], "cd '/s/Café projects/repo' && \\");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("ENTIRE_REPO_ROOT='/s/Café projects/repo'"))
        );
        assert_eq!(lines.join(" ").replace(" \\ ", " "), line);
    }

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(quote("/usr/bin/x"), "/usr/bin/x");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
