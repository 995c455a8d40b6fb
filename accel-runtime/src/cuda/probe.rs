//! A look at a few device words as they were at an earlier point of a stream, without waiting
//! for the work queued since: what the executor's checks inside long loops use, so that checking
//! never drains the device.
//!
//! [`Probe::snapshot`] queues a copy of the words into page-locked host memory (mapped into the
//! device, so an ordinary device-to-device copy reaches it) and records an event after it;
//! [`Probe::look`] waits for that event only — the work queued after the snapshot keeps the
//! device busy meanwhile — and reads the copy. A probe is reused by later runs on its stream
//! (`Gpu::probe`): a snapshot queued by a run that ended early is overwritten by the next run's,
//! which the stream orders after it, and read only after the next run's own event.

use super::driver::{Event, Mapped, backend_error};
use super::memory::DeviceBuffer;
use super::stream::Stream;
use super::{Device, lock};
use accel_core::Result;
use std::sync::Arc;

/// Page-locked host memory for `WORDS` words and an event, for delayed looks at device words.
pub(super) struct Probe<const WORDS: usize> {
    device: Arc<Device>,
    /// `None` only while being dropped.
    mapped: Option<Mapped>,
    event: Event,
    /// Whether a snapshot was queued since the last look.
    pending: bool,
}

impl<const WORDS: usize> Probe<WORDS> {
    /// A fresh probe on `stream`'s device.
    pub(super) fn new(stream: &Stream) -> Result<Self> {
        let device = Arc::clone(stream.device());
        let context = |e| backend_error(format!("allocating {} bytes of page-locked host memory", WORDS * 8), e);
        let mapped = device.cx.malloc_mapped(WORDS * 8).map_err(context)?;
        let event = device.cx.event().map_err(|e| backend_error("creating a CUDA event", e))?;
        Ok(Probe { device, mapped: Some(mapped), event, pending: false })
    }

    /// Forgets any snapshot not yet looked at (one queued by an earlier run).
    pub(super) fn clear(&mut self) {
        self.pending = false;
    }

    /// Queues a copy of the first `WORDS` words of `words` on `stream`, after the work queued so
    /// far, for the next [`Probe::look`].
    pub(super) fn snapshot(&mut self, stream: &Stream, words: &DeviceBuffer) -> Result<()> {
        let mapped = self.mapped.as_ref().expect("a live probe has its memory");
        // SAFETY: `mapped` holds `WORDS` words (`new`) on `stream`'s device (a probe is only used
        // on the stream of the `Gpu` that made it) and is freed only after the event that follows
        // the copy (`drop`).
        unsafe { stream.copy_to_mapped(mapped, words, WORDS * 8)? };
        self.device.cx.record(stream.handle(), &self.event).map_err(|e| backend_error("recording a CUDA event", e))?;
        self.pending = true;
        Ok(())
    }

    /// The words of the last snapshot, once the device has copied them; `None` when no snapshot
    /// was queued since the last look.
    pub(super) fn look(&mut self) -> Result<Option<[u64; WORDS]>> {
        if !std::mem::replace(&mut self.pending, false) {
            return Ok(None);
        }
        self.device.cx.wait(&self.event).map_err(|e| backend_error("waiting for the device", e))?;
        let mapped = self.mapped.as_ref().expect("a live probe has its memory");
        let host = mapped.host.cast::<u64>();
        // SAFETY: the memory holds `WORDS` words (`new`), page-aligned, and the device finished
        // writing them before the event; nothing writes them until the next snapshot, which needs
        // `&mut self`. Volatile: the device wrote them behind the compiler's back.
        Ok(Some(std::array::from_fn(|k| unsafe { host.add(k).read_volatile() })))
    }
}

impl<const WORDS: usize> Drop for Probe<WORDS> {
    /// Waits for a copy still in flight, then frees the host memory.
    fn drop(&mut self) {
        let _ = self.device.cx.wait(&self.event);
        if let Some(mapped) = self.mapped.take() {
            // SAFETY: allocated by `malloc_mapped` of this context in `new`, freed once here, after
            // the last copy into it (the event follows it).
            let _ = unsafe { self.device.cx.free_mapped(mapped) };
        }
    }
}

/// Probes of finished runs, for the next runs on the same stream.
#[derive(Default)]
pub(super) struct Probes<const WORDS: usize>(std::sync::Mutex<Vec<Probe<WORDS>>>);

impl<const WORDS: usize> Probes<WORDS> {
    /// A probe with no pending snapshot: a cached one, or a fresh one on `stream`.
    pub(super) fn take(&self, stream: &Stream) -> Result<Probe<WORDS>> {
        match lock(&self.0).pop() {
            Some(mut probe) => {
                probe.clear();
                Ok(probe)
            }
            None => Probe::new(stream),
        }
    }

    /// Keeps `probe` for a later run on the same stream.
    pub(super) fn give_back(&self, probe: Probe<WORDS>) {
        lock(&self.0).push(probe);
    }
}
