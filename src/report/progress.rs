//! The progress line: on a terminal, once a run has lasted a second, one
//! line on stderr naming the case that runs; nothing when stderr is not a
//! terminal (CI logs stay clean) or when the run is quick.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Receives the run's progress.
pub trait Progress: Sync {
    /// A case starts.
    fn started(&self, id: &str);
    /// A case ended.
    fn finished(&self, id: &str);
    /// The run ended: clear whatever was drawn.
    fn done(&self);
}

/// No progress at all.
pub struct Silent;

impl Progress for Silent {
    fn started(&self, _id: &str) {}
    fn finished(&self, _id: &str) {}
    fn done(&self) {}
}

/// A progress bar on stderr that appears once a run has taken a second.
pub struct Bar {
    bar: ProgressBar,
    start: Instant,
    shown: Mutex<bool>,
}

/// Runs shorter than this show no progress.
const DELAY: Duration = Duration::from_secs(1);

impl Bar {
    /// A bar for `total` cases when stderr is a terminal, else [`Silent`].
    pub fn for_terminal(total: usize) -> Box<dyn Progress> {
        if !std::io::stderr().is_terminal() {
            return Box::new(Silent);
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{pos}/{len} cases {wide_msg}") {
            bar.set_style(style);
        }
        Box::new(Bar {
            bar,
            start: Instant::now(),
            shown: Mutex::new(false),
        })
    }

    fn show_when_slow(&self) {
        if self.start.elapsed() < DELAY {
            return;
        }
        if let Ok(mut shown) = self.shown.lock()
            && !*shown
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            *shown = true;
        }
    }
}

impl Progress for Bar {
    fn started(&self, id: &str) {
        self.show_when_slow();
        self.bar.set_message(id.to_string());
    }

    fn finished(&self, _id: &str) {
        self.bar.inc(1);
        self.show_when_slow();
    }

    fn done(&self) {
        self.bar.finish_and_clear();
    }
}
