//! The depot: sandboxes made ahead of the cases that will use them, and
//! deleted after, on one background thread.
//!
//! Making a sandbox (a dozen directories, the `.git` skeleton, the
//! confinement ruleset) and deleting it cost a case about 0.2 ms of file
//! system work, as much as a quick plugin's call. Done by the worker that
//! runs the case, that time sits on the run's critical path; done here, it
//! overlaps the plugin calls of the running cases. The order in which the
//! workers take their tasks is known before they start (longest first), so
//! the depot makes each sandbox, named after its case, a few tasks ahead.
//! A worker that reaches a task the depot has not made yet makes its own
//! sandbox, and the depot skips that task: nothing waits for the depot.
//!
//! Workers never wake the depot's thread (a wake-up is a system call and,
//! on a virtual machine, an interrupt to another core, which costs more
//! than queueing a sandbox); it looks for work every millisecond or so
//! while the run lasts, and [`Depot::finish`] deletes what is left.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use crate::host::invocation::WorkTree;
use crate::running::sandbox::{Sandbox, Setting};

/// Makes the sandbox of a case from its name prefix, the work tree its
/// repository is and the user's world it is made in; `Err` is why not, in
/// words for the report.
pub type Make = dyn Fn(&str, WorkTree, &Setting) -> Result<Sandbox, String> + Send + Sync;

/// What a task's sandbox is: its name prefix, its work tree and its world.
pub type Order = (String, WorkTree, Setting);

/// How many tasks ahead of the workers the depot makes sandboxes.
const AHEAD: usize = 4;

/// Used sandboxes deleted at a time, between checks for sandboxes to make.
const BATCH: usize = 4;

/// How long the depot's thread first sleeps when it finds no work; each
/// further sleep is twice as long, up to [`LONGEST_TICK`]: a quick plugin's
/// cases take a sandbox every millisecond or two, a slow plugin's far less
/// often, and a thread that wakes for nothing still costs a little.
const TICK: Duration = Duration::from_millis(1);

/// The longest sleep between two looks for work.
const LONGEST_TICK: Duration = Duration::from_millis(16);

/// The background thread and what it shares with the workers.
pub struct Depot {
    shared: Arc<Shared>,
    handle: Option<thread::JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    make: Box<Make>,
}

/// The plan and its progress.
#[derive(Default)]
struct State {
    /// The sandbox of each task, in the order the workers take the tasks;
    /// `None` for a task that needs none.
    plan: Vec<Option<Order>>,
    /// What the depot made for each task, until its worker takes it.
    ready: Vec<Option<Result<Sandbox, String>>>,
    /// Tasks before this one are taken (or being taken) by workers.
    taken: usize,
    /// The next task the depot looks at.
    cursor: usize,
    /// Used sandboxes to delete (kept ones stay on disk when dropped).
    used: VecDeque<Sandbox>,
    /// The run has ended.
    done: bool,
}

impl Depot {
    /// Starts the depot's thread; `make` makes one sandbox.
    pub fn start(make: Box<Make>) -> Depot {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            make,
        });
        let worker = shared.clone();
        let handle = thread::spawn(move || worker.work());
        Depot {
            shared,
            handle: Some(handle),
        }
    }

    /// Sets the tasks the workers will take, in order: the sandbox of each,
    /// `None` for a task that needs no sandbox.
    pub fn plan(&self, plan: Vec<Option<Order>>) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.ready = plan.iter().map(|_| None).collect();
            state.plan = plan;
            state.taken = 0;
            state.cursor = 0;
        }
    }

    /// The sandbox of `task` (its index in the plan, `None` for work outside
    /// the plan): the one the depot made, else a new one made here.
    pub fn take(
        &self,
        task: Option<usize>,
        prefix: &str,
        work_tree: WorkTree,
        setting: &Setting,
    ) -> Result<Sandbox, String> {
        let made = task.and_then(|n| {
            let mut state = self.shared.state.lock().ok()?;
            state.taken = state.taken.max(n + 1);
            state.ready.get_mut(n)?.take()
        });
        made.unwrap_or_else(|| (self.shared.make)(prefix, work_tree, setting))
    }

    /// Hands a used sandbox over for deletion (a kept one stays on disk).
    /// Should the thread be gone, it is deleted when the depot is dropped.
    pub fn dispose(&self, sandbox: Sandbox) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.used.push_back(sandbox);
        }
    }

    /// Deletes every sandbox handed over and every one made but not used,
    /// and waits until that is done.
    pub fn finish(self) {
        drop(self);
    }
}

/// One unit of the depot's work.
enum Work {
    /// Make the sandbox of this task, as ordered.
    Make(usize, Order),
    /// Delete these used sandboxes.
    Delete(Vec<Sandbox>),
    /// The run has ended: delete these (used, and made but not taken).
    Finish(Vec<Sandbox>),
}

impl Shared {
    /// The depot's thread: makes sandboxes ahead of the workers, deletes
    /// used ones, and at the end deletes the rest.
    fn work(&self) {
        loop {
            let Some(work) = self.next_work() else {
                return;
            };
            match work {
                Work::Make(task, (prefix, work_tree, setting)) => {
                    let made = (self.make)(&prefix, work_tree, &setting);
                    self.deliver(task, made);
                }
                Work::Delete(sandboxes) => drop(sandboxes),
                Work::Finish(sandboxes) => return drop(sandboxes),
            }
        }
    }

    /// Waits for work, in the order: the end of the run, a sandbox a worker
    /// will soon need, used sandboxes to delete.
    fn next_work(&self) -> Option<Work> {
        let mut state = self.state.lock().ok()?;
        let mut tick = TICK;
        loop {
            if state.done {
                let mut rest: Vec<Sandbox> = state.used.drain(..).collect();
                let made = state.ready.iter_mut().filter_map(Option::take);
                rest.extend(made.filter_map(Result::ok));
                return Some(Work::Finish(rest));
            }
            if let Some(work) = to_make(&mut state) {
                return Some(work);
            }
            if !state.used.is_empty() {
                let n = state.used.len().min(BATCH);
                return Some(Work::Delete(state.used.drain(..n).collect()));
            }
            state = self.wake.wait_timeout(state, tick).ok()?.0;
            tick = (tick * 2).min(LONGEST_TICK);
        }
    }

    /// Files a sandbox the depot made; one whose task a worker took in the
    /// meantime (it made its own) is deleted.
    fn deliver(&self, task: usize, made: Result<Sandbox, String>) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if task < state.taken {
            if let Ok(sandbox) = made {
                state.used.push_back(sandbox);
            }
        } else if let Some(slot) = state.ready.get_mut(task) {
            *slot = Some(made);
        }
    }
}

/// The next task within [`AHEAD`] of the workers that needs a sandbox.
fn to_make(state: &mut State) -> Option<Work> {
    state.cursor = state.cursor.max(state.taken);
    while state.cursor < state.plan.len() && state.cursor < state.taken + AHEAD {
        let task = state.cursor;
        state.cursor += 1;
        if let Some(order) = &state.plan[task] {
            return Some(Work::Make(task, order.clone()));
        }
    }
    None
}

impl Drop for Depot {
    /// [`Depot::finish`]: the thread deletes what is left, and is joined.
    fn drop(&mut self) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.done = true;
        }
        self.shared.wake.notify_one();
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn depot(base: PathBuf) -> Depot {
        Depot::start(Box::new(
            move |prefix: &str, work_tree, setting: &Setting| {
                Sandbox::create_in(prefix, &base, work_tree, setting).map_err(|e| e.to_string())
            },
        ))
    }

    #[test]
    fn made_ahead_named_after_the_task_and_nothing_left_behind() {
        let base = tempfile::tempdir().unwrap();
        let depot = depot(base.path().to_path_buf());
        let plain = |p: &str| Some((p.to_string(), WorkTree::Plain, Setting::default()));
        depot.plan(vec![plain("a"), None, plain("c")]);
        let a = depot
            .take(Some(0), "a", WorkTree::Plain, &Setting::default())
            .unwrap();
        let c = depot
            .take(Some(2), "c", WorkTree::Plain, &Setting::default())
            .unwrap();
        let name = |s: &Sandbox| s.root().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name(&a).starts_with("agent-conform-a-"), "{}", name(&a));
        assert!(name(&c).starts_with("agent-conform-c-"), "{}", name(&c));
        depot.dispose(a);
        depot.dispose(c);
        depot.finish();
        assert_eq!(std::fs::read_dir(base.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_kept_sandbox_stays_and_work_outside_the_plan_gets_one() {
        let base = tempfile::tempdir().unwrap();
        let depot = depot(base.path().to_path_buf());
        let mut gate = depot
            .take(None, "gate", WorkTree::Plain, &Setting::default())
            .unwrap();
        gate.keep();
        let root = gate.root().to_path_buf();
        depot.dispose(gate);
        depot.plan(vec![
            Some((
                "unused".into(),
                WorkTree::Linked,
                Setting::default()
            ));
            3
        ]);
        depot.finish();
        assert!(root.is_dir());
        let left: Vec<_> = std::fs::read_dir(base.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the kept sandbox: {left:?}");
    }
}
