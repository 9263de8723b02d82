//! A call's output, read within its limit: kept, or compared with the
//! expected bytes as it streams in (a large transcript is then never held
//! twice). Past the limit the reading stops and the flood flag is raised,
//! so that the waiter kills the plugin instead of the harness buffering an
//! endless stream.

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread;

use super::{Bytes, Compared};
use crate::running::bounds;

/// What a bounded reader brings back.
#[derive(Default)]
pub(super) struct Captured {
    pub(super) bytes: Vec<u8>,
    pub(super) overflow: bool,
    pub(super) total: usize,
    pub(super) compared: Option<Compared>,
}

/// A stream being read into a [`Sink`]: what was read so far.
pub(super) struct Reading {
    sink: Sink,
    captured: Captured,
    compare: Option<Comparison>,
}

impl Reading {
    pub(super) fn new(mut sink: Sink) -> Reading {
        let compare = sink.expected.take().map(Comparison::new);
        Reading {
            sink,
            captured: Captured::default(),
            compare,
        }
    }

    /// Takes `block` up to the sink's limit; `false` once past it (the rest
    /// is not read: the flood flag, if any, is raised).
    pub(super) fn feed(&mut self, block: &[u8]) -> bool {
        let room = self.sink.limit - self.captured.total;
        let take = block.len().min(room);
        match &mut self.compare {
            Some(c) => c.feed(&block[..take]),
            None => self.captured.bytes.extend_from_slice(&block[..take]),
        }
        self.captured.total += take;
        if block.len() > room {
            self.captured.overflow = true;
            if let Some(flag) = &self.sink.flooded {
                flag.store(true, Ordering::SeqCst);
            }
            return false;
        }
        true
    }

    /// What was read, the comparison finished.
    pub(super) fn finish(mut self) -> Captured {
        self.captured.compared = self.compare.map(Comparison::finish);
        self.captured
    }
}

/// Where a reader puts what it reads.
pub(super) struct Sink {
    /// Stop (and raise `flooded`) past this many bytes.
    pub(super) limit: usize,
    /// Raised past the limit (stdout's: the plugin is then killed).
    pub(super) flooded: Option<Arc<AtomicBool>>,
    /// Compare instead of keeping.
    pub(super) expected: Option<Bytes>,
}

/// Reads a pipe up to the sink's limit, keeping the bytes or comparing them
/// with the expected ones. Past the limit the reader raises `flooded` (when
/// given) and stops, so that the waiter kills the plugin instead of the
/// harness buffering an endless stream.
pub(super) fn read_bounded<R: Read + Send + 'static>(
    mut pipe: R,
    sink: Sink,
) -> Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _own = bounds::OwnThread::enter();
        let mut reading = Reading::new(sink);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) if reading.feed(&buf[..n]) => {}
                Ok(_) => break,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = tx.send(reading.finish());
    });
    rx
}

/// A streaming comparison of stdout with expected bytes.
struct Comparison {
    expected: Bytes,
    result: Compared,
}

impl Comparison {
    fn new(expected: Bytes) -> Comparison {
        Comparison {
            expected,
            result: Compared::default(),
        }
    }

    fn feed(&mut self, block: &[u8]) {
        let at = self.result.total;
        self.result.total += block.len();
        if self.result.first_diff.is_some() {
            return;
        }
        let want = self.expected.get(at..).unwrap_or_default();
        let same = block.iter().zip(want).position(|(a, b)| a != b);
        let diff = match same {
            Some(i) => Some(i),
            None if block.len() > want.len() => Some(want.len()),
            None => None,
        };
        if let Some(i) = diff {
            let from = i.saturating_sub(256);
            self.result.first_diff = Some(at + i);
            self.result.excerpt_start = at + from;
            self.result.excerpt = block[from..block.len().min(from + 1024)].to_vec();
        }
    }

    fn finish(mut self) -> Compared {
        if self.result.first_diff.is_none() && self.result.total < self.expected.len() {
            self.result.first_diff = Some(self.result.total);
            self.result.excerpt_start = self.result.total;
        }
        self.result
    }
}
