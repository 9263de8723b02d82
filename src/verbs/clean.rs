//! `agent-conform clean`: removes the sandboxes earlier runs kept.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::verbs::print_stdout;
use crate::verbs::usage::UsageError;

/// `clean`: removes every kept sandbox folder of earlier runs.
pub(super) fn clean(sandbox_dir: Option<PathBuf>) -> Result<ExitCode, UsageError> {
    let bases = match sandbox_dir {
        Some(dir) if !dir.is_dir() => {
            return Err(UsageError::new(
                format!("--sandbox-dir {} is not a directory", dir.display()),
                "pass the --sandbox-dir the runs were given, or leave the flag out",
            ));
        }
        Some(dir) => vec![crate::running::runs::folder(&dir, true)],
        // This user's runs folder in each shared base, and the folders of
        // this user's in the runs folder every user shared before.
        None => [PathBuf::from("/dev/shm"), std::env::temp_dir()]
            .iter()
            .filter(|d| d.is_dir())
            .flat_map(|d| crate::running::runs::folders_to_clean(d))
            .collect(),
    };
    let cleaned = crate::running::runs::clean_all(&bases);
    let mut text = String::new();
    let mut freed = 0;
    for (dir, removed) in &cleaned {
        freed += removed.bytes;
        if removed.runs > 0 || removed.running > 0 {
            text.push_str(&removed.line(dir));
            text.push('\n');
        }
    }
    if text.is_empty() {
        let dirs: Vec<String> = cleaned
            .iter()
            .map(|(d, _)| d.display().to_string())
            .collect();
        text = format!(
            "nothing to remove: no kept sandboxes in {}\n",
            dirs.join(" or ")
        );
    } else {
        text.push_str(&format!(
            "freed {}\n",
            crate::running::bounds::size_text(freed)
        ));
    }
    print_stdout(&text);
    Ok(ExitCode::SUCCESS)
}
