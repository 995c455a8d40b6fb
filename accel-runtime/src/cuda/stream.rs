//! Streams: queues of device work, several per device.
//!
//! Work issued on one [`Stream`] runs in the order it was issued; work on different streams may
//! run at the same time unless ordered with [`Stream::wait_for`]. A [`Gpu`] has a default stream,
//! which its own methods (`alloc`, `upload`, `launch`, ...) and the executor use; [`Gpu::stream`]
//! makes more.
//!
//! Memory and streams: a buffer belongs to the stream it was allocated on and remembers every
//! other stream it was used on. Copies, zeroing and downloads record their stream themselves; a
//! kernel's words are plain numbers, so a launch cannot see which buffers they address and the
//! caller records a buffer used by a kernel on another stream ([`DeviceBuffer::record_use`]). A
//! dropped buffer's block goes back to the pool with that set of streams. The pool gives it to a
//! request on the same stream, when that is the only one, with no synchronisation at all (the
//! stream runs the new work after the old); to a request on another stream only after making that
//! stream wait, on the device, for an event recorded on each stream of the set. The events are
//! recorded at reuse, later than the drop, which orders at least everything that used the block:
//! the single-stream case, the common one, pays nothing for the others.
//!
//! Stream ids are recycled: a dropped `Stream` waits for its work and hands its id and driver
//! stream to the next [`Gpu::stream`]. A block that still names the id then waits for work of
//! the new stream too, which is only conservative.

use super::driver::{StreamHandle, StreamId, backend_error};
use super::{Device, DeviceBuffer, Gpu, lock};
use accel_core::{Error, Result};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A queue of work on one device: copies, launches and the reuse of freed memory run in the order
/// they were issued on it. Made by [`Gpu::stream`]; a `Gpu`'s own methods use its
/// [`Gpu::default_stream`].
///
/// ```no_run
/// # fn main() -> accel_core::Result<()> {
/// let gpu = accel_runtime::cuda::Gpu::open(0)?;
/// let (a, b) = (gpu.stream()?, gpu.stream()?);
/// let x = a.upload(&[1, 2, 3, 4])?; // queued on `a`
/// b.wait_for(&a)?; // what `b` does next runs after the upload
/// let y = b.alloc(4)?;
/// b.copy(&y, 0, &x, 0, 4)?;
/// assert_eq!(b.download(&y, 0, 4)?, [1, 2, 3, 4]);
/// # Ok(())
/// # }
/// ```
pub struct Stream {
    id: StreamId,
    handle: StreamHandle,
    device: Arc<Device>,
    /// The ticket counters of this stream's one-launch reductions (see [`Stream::tickets`]).
    tickets: Mutex<Option<Arc<DeviceBuffer>>>,
}

impl Stream {
    /// A stream of `device`: an idle one of an earlier `Stream`, or a new one.
    pub(super) fn open(device: &Arc<Device>) -> Result<Stream> {
        let idle = lock(&device.idle_streams).pop();
        let (id, handle) = match idle.and_then(|id| Some((id, device.cx.stream(id)?))) {
            Some(stream) => stream,
            None => device.cx.create_stream().map_err(|e| backend_error("creating a CUDA stream", e))?,
        };
        Ok(Stream { id, handle, device: Arc::clone(device), tickets: Mutex::default() })
    }

    pub(super) fn id(&self) -> StreamId {
        self.id
    }

    pub(super) fn handle(&self) -> StreamHandle {
        self.handle
    }

    pub(super) fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// Waits until all work issued on this stream so far has finished; reports any failure of
    /// that work (and of earlier work on the device's other streams: CUDA reports a kernel fault
    /// to every later call).
    pub fn synchronize(&self) -> Result<()> {
        self.device.cx.synchronize(self.handle).map_err(|e| backend_error("waiting for a CUDA stream", e))
    }

    /// Makes the work issued on this stream from now on wait for all work issued on `other` so
    /// far. The host does not wait: the device does, through an event.
    pub fn wait_for(&self, other: &Stream) -> Result<()> {
        self.check_device("Stream::wait_for", "the other stream", &other.device)?;
        self.device.cx.order(self.handle, other.handle).map_err(|e| backend_error("ordering two CUDA streams", e))
    }

    /// Runs `work` and measures the device time of what it issued on this stream, with CUDA events
    /// recorded before and after it (so host work in between, such as uploads staged by the
    /// driver, counts only where the stream waited for it). Waits for the work to finish.
    pub fn time<T>(&self, work: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
        let context = "timing device work with CUDA events";
        let cx = &self.device.cx;
        let (start, end) = (cx.event(), cx.event());
        let (start, end) = start.and_then(|s| Ok((s, end?))).map_err(|e| backend_error(context, e))?;
        cx.record(self.handle, &start).map_err(|e| backend_error(context, e))?;
        let value = work()?;
        cx.record(self.handle, &end).map_err(|e| backend_error(context, e))?;
        let ms = cx.elapsed_ms(&start, &end).map_err(|e| backend_error(context, e))?;
        Ok((value, Duration::from_secs_f64(f64::from(ms) / 1e3)))
    }

    /// At least `rows` ticket counters (`u32`) for a one-launch reduction
    /// (`accel_kernels::reduce`): zero when the kernel starts, and zero again when it ends, so
    /// every reduction on this stream (they run one after another) uses the same ones; another
    /// stream has its own. Grown, and zeroed in stream order, when a reduction has more rows than
    /// any before. The caller holds the buffer until its launch is queued: a buffer replaced
    /// meanwhile by another thread goes back to the caching allocator only then, so no later
    /// allocation can be queued before it.
    pub(crate) fn tickets(&self, rows: usize) -> Result<Arc<DeviceBuffer>> {
        let bytes = rows
            .checked_mul(size_of::<u32>())
            .ok_or_else(|| Error::invalid_argument("fold", format!("{rows} rows are too many to reduce")))?;
        let mut tickets = lock(&self.tickets);
        match &*tickets {
            Some(buffer) if buffer.len() >= bytes => Ok(Arc::clone(buffer)),
            _ => {
                let buffer = Arc::new(self.alloc_zeroed(bytes.next_power_of_two().max(1024))?);
                *tickets = Some(Arc::clone(&buffer));
                Ok(buffer)
            }
        }
    }

    /// Buffers, kernels and streams work only with the streams of the `Gpu` that made them;
    /// `what` (of `device`) names the one checked.
    pub(super) fn check_device(&self, op: &str, what: &str, device: &Arc<Device>) -> Result<()> {
        if Arc::ptr_eq(device, &self.device) {
            Ok(())
        } else {
            Err(Error::invalid_argument(op, format!("{what} belongs to another `Gpu`")))
        }
    }
}

impl Drop for Stream {
    /// Waits for the stream's work (errors cannot be reported from here) and hands its id to the
    /// next [`Gpu::stream`].
    fn drop(&mut self) {
        let _ = self.device.cx.synchronize(self.handle);
        lock(&self.device.idle_streams).push(self.id);
    }
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Stream({})", self.id)
    }
}

impl Gpu {
    /// A new stream of this device, for work that may overlap with the default stream's (see
    /// [`Stream`]).
    pub fn stream(&self) -> Result<Stream> {
        Stream::open(&self.device)
    }

    /// The stream that this `Gpu`'s own methods and the programs run on it use.
    pub fn default_stream(&self) -> &Stream {
        &self.stream
    }
}
