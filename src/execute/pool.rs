//! The job pool: `--jobs` slots, and the threads that fill them.
//!
//! A slot is the right to run a task (a case, or a unit of one): at most
//! `jobs` tasks run at once, so at most `jobs` plugin calls compete for the
//! machine. Some calls wait on purpose: a payload whose stdin arrives late
//! (`stdin_delay_ms`, half a second) leaves the plugin blocked on its stdin,
//! using nothing. Holding a slot through such a wait would idle one of the
//! `jobs` for half a second, and set the run's wall. So a worker *lends* its
//! slot for a deliberate wait ([`lend`]): it gives the slot back, a spare
//! thread takes it and runs the next tasks, and when the wait is over the
//! lender takes back the next slot a worker leaves between two tasks (before
//! any thread may start a new task on it) and goes on with its case.
//!
//! The threads: `jobs` workers, plus one spare per task that may lend (they
//! sleep until a slot is lent, so every lent slot finds a thread). A worker
//! keeps its slot from one task to the next, and looks (one atomic load)
//! whether a lender wants a slot back only between tasks: while nothing is
//! lent, no thread wakes another. Tasks are taken in the order given, so
//! the depot's plan (see [`crate::running::depot`]) still holds.
//!
//! It never hangs: a lender waits only for a slot, and every slot is held by
//! a worker between two tasks of finite length (each call has its deadline)
//! or is free; a worker that panics gives its slot back as it unwinds.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// The slots of one pool.
struct Slots {
    /// Slots no thread holds.
    free: Mutex<usize>,
    /// Signalled when a slot is given back or taken back.
    changed: Condvar,
    /// Lenders waiting to take a slot back; changed only under `free`'s
    /// lock, read without it by workers between tasks.
    returning: AtomicUsize,
}

impl Slots {
    fn lock(&self) -> MutexGuard<'_, usize> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a slot to start tasks on, leaving the free ones to lenders
    /// that want theirs back first.
    fn take(&self) {
        let mut free = self.lock();
        while *free <= self.returning.load(Ordering::SeqCst) {
            free = self
                .changed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
    }

    /// Gives a slot back.
    fn give(&self) {
        *self.lock() += 1;
        self.changed.notify_all();
    }

    /// Takes a slot back after a deliberate wait, before any new task.
    fn take_back(&self) {
        let mut free = self.lock();
        self.returning.fetch_add(1, Ordering::SeqCst);
        while *free == 0 {
            free = self
                .changed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        self.returning.fetch_sub(1, Ordering::SeqCst);
        drop(free);
        self.changed.notify_all();
    }

    /// Whether a lender waits for a slot.
    fn wanted(&self) -> bool {
        self.returning.load(Ordering::SeqCst) > 0
    }
}

thread_local! {
    /// The slots of the pool whose slot this thread holds, if it holds one.
    static HELD: RefCell<Option<Arc<Slots>>> = const { RefCell::new(None) };
}

/// A worker's slot: given back when the worker ends, even by a panic.
struct Held(Arc<Slots>);

impl Held {
    fn enter(slots: &Arc<Slots>) -> Held {
        slots.take();
        HELD.with(|h| *h.borrow_mut() = Some(slots.clone()));
        Held(slots.clone())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.with(|h| *h.borrow_mut() = None);
        self.0.give();
    }
}

/// A lent slot: taken back when the wait ends, even by a panic (the
/// worker's [`Held`] then gives it back once more, balanced).
struct Lent(Arc<Slots>);

impl Drop for Lent {
    fn drop(&mut self) {
        self.0.take_back();
    }
}

/// Runs `task(n)` for every `n` in `0..tasks`, taken in that order by the
/// next free worker, with at most `jobs` tasks at once outside deliberate
/// waits; `lenders` is how many tasks may lend their slot (as many spare
/// threads wait for one).
pub(super) fn run(tasks: usize, jobs: usize, lenders: usize, task: impl Fn(usize) + Sync) {
    let jobs = jobs.clamp(1, tasks.max(1));
    let slots = Arc::new(Slots {
        free: Mutex::new(jobs),
        changed: Condvar::new(),
        returning: AtomicUsize::new(0),
    });
    let next = AtomicUsize::new(0);
    let threads = jobs + lenders.min(tasks);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let held = Held::enter(&slots);
                loop {
                    if held.0.wanted() {
                        held.0.give();
                        held.0.take();
                    }
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= tasks {
                        break;
                    }
                    task(n);
                }
            });
        }
    });
}

/// Runs `wait` (a deliberate wait: nothing of the plugin's runs) with this
/// thread's slot lent to the pool, and takes a slot back after it. Outside
/// a pool (the gates run before it) `wait` just runs.
pub(super) fn lend<T>(wait: impl FnOnce() -> T) -> T {
    let Some(slots) = HELD.with(|h| h.borrow().clone()) else {
        return wait();
    };
    slots.give();
    let _lent = Lent(slots);
    wait()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// Every task runs once, with one job and lenders, and nothing hangs;
    /// outside deliberate waits no more than `jobs` tasks run at once.
    #[test]
    fn every_task_runs_once_and_only_waits_exceed_the_jobs() {
        for jobs in [1, 2, 3] {
            let ran: Vec<AtomicUsize> = (0..20).map(|_| AtomicUsize::new(0)).collect();
            let busy = AtomicUsize::new(0);
            let most = AtomicUsize::new(0);
            run(ran.len(), jobs, 3, |n| {
                let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                if n % 7 == 0 {
                    busy.fetch_sub(1, Ordering::SeqCst);
                    lend(|| std::thread::sleep(Duration::from_millis(20)));
                    busy.fetch_add(1, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(1));
                ran[n].fetch_add(1, Ordering::SeqCst);
                busy.fetch_sub(1, Ordering::SeqCst);
            });
            assert!(ran.iter().all(|r| r.load(Ordering::SeqCst) == 1));
            assert!(most.load(Ordering::SeqCst) <= jobs, "jobs {jobs}");
        }
    }

    #[test]
    fn lending_outside_a_pool_just_runs() {
        assert_eq!(lend(|| 7), 7);
    }
}
