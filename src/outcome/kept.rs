//! What a case's steps leave in a kept sandbox once the case is over: the
//! `reproduce.sh` of [`crate::outcome::repro`] and what each invocation
//! printed; or, when the sandbox goes, nothing carried any longer.

use std::path::Path;

use crate::outcome::repro::{Numbered, OUTPUT_DIR, SCRIPT, script, script_command, write_script};
use crate::outcome::results::StepReport;

/// Drops what the steps carried for the script: the case is over, and its
/// sandbox (with `reproduce.sh`) kept or gone.
pub fn release(steps: &mut [StepReport]) {
    for step in steps {
        step.printed = None;
        step.reproduction = None;
    }
}

/// The copies of the sandbox the steps' reproductions lay down again (see
/// `running::journal`), each once, in order.
pub fn states(steps: &[StepReport]) -> Vec<usize> {
    let mut numbers: Vec<usize> = steps
        .iter()
        .filter_map(|s| s.reproduction.as_ref()?.state)
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// Forgets the copies other than `written` (they could not be written):
/// the script runs those invocations in the sandbox as the case left it.
pub fn keep_states(steps: &mut [StepReport], written: &[usize]) {
    for step in steps {
        if let Some(reproduction) = &mut step.reproduction
            && reproduction.state.is_some_and(|k| !written.contains(&k))
        {
            reproduction.state = None;
        }
    }
}

/// Writes the case's steps into `<sandbox>/reproduce.sh` and gives each
/// step that ran the plugin its one-line reproduce command (see
/// [`script_command`]). Steps without an invocation get none; should the
/// script not be written, no step gets one and the report falls back to the
/// full command line.
pub fn keep(sandbox: &Path, case_id: &str, steps: &mut [StepReport]) {
    let numbered: Vec<Numbered> = steps
        .iter()
        .enumerate()
        .filter_map(|(i, step)| {
            step.reproduction.as_ref().map(|reproduction| Numbered {
                number: i + 1,
                name: &step.name,
                reproduction,
            })
        })
        .collect();
    if numbered.is_empty() {
        return;
    }
    let path = sandbox.join(SCRIPT);
    if write_script(&path, &script(case_id, &numbered)).is_err() {
        return;
    }
    save_printed(&sandbox.join(OUTPUT_DIR), steps);
    for (i, step) in steps.iter_mut().enumerate() {
        let Some(reproduction) = &step.reproduction else {
            continue;
        };
        if let (Some(sent), Some(file)) = (&mut step.sent, &reproduction.stdin_file) {
            sent.file = Some(file.clone());
        }
        step.reproduce = Some(script_command(&path, i + 1));
    }
}

/// Writes what each step printed into `dir` as `N.stdout` and `N.stderr`.
fn save_printed(dir: &Path, steps: &[StepReport]) {
    if steps.iter().all(|s| s.printed.is_none()) || std::fs::create_dir_all(dir).is_err() {
        return;
    }
    for (i, step) in steps.iter().enumerate() {
        if let Some(printed) = &step.printed {
            let _ = std::fs::write(dir.join(format!("{}.stdout", i + 1)), &printed.stdout);
            let _ = std::fs::write(dir.join(format!("{}.stderr", i + 1)), &printed.stderr);
        }
    }
}
