//! The CUDA backend's device layer: one [`Gpu`] per device, with its context, its streams
//! ([`Stream`]), a caching allocator ([`DeviceBuffer`]), a module cache ([`Kernel`]) and the error
//! slot that kernels report failures through.
//!
//! Layers, each in its own module: `driver` is the only code that calls the CUDA driver (through
//! cudarc, loaded at run time) and owns the raw handles; `stream`, `memory`, `module` and `launch`
//! build the safe API on it. Without `libcuda.so.1`, [`Gpu::device_count`] is 0 and [`Gpu::open`]
//! is `Error::NoDevice`; nothing here panics.
//!
//! Ordering: work goes onto a stream in the order the calls are made; a `Gpu`'s own methods and
//! the executor use its default stream, so their copies, launches and reuse of freed memory need
//! no events. Work on other streams ([`Gpu::stream`]) overlaps with it unless ordered
//! ([`Stream::wait_for`]); the allocator orders the reuse of memory across streams itself (module
//! `stream`). Only downloads, [`Gpu::synchronize`], [`Stream::synchronize`] and
//! [`Gpu::take_device_error`] wait for the device, and they are where a kernel's asynchronous
//! fault shows up as `Error::Backend`. A reduction's scalar result is read from its host mirror
//! (module `memory`) after the wait; any other download of up to 64 KiB (an error slot, a small
//! array) lands in a pinned buffer of the context, one DMA after the wait, instead of going
//! through the driver's staging of pageable memory. One-launch reductions use their stream's
//! ticket counters, which the stream keeps from overlapping.
//!
//! Threads: `Gpu`, `Stream`, `DeviceBuffer` and `Kernel` are `Send + Sync`. Each call makes the
//! device's context current on the calling thread first; calls from several threads interleave on
//! a stream, each thread's calls staying in order.

mod driver;
mod exec;
mod launch;
mod memory;
mod module;
mod prepared;
mod probe;
mod stream;
mod value;

pub use memory::{DeviceBuffer, PoolStats};
pub use module::{DeviceModule, Kernel};
pub use stream::Stream;
pub use value::{DArray, DSegments, DValue, FromDevice, IntoDevice};

use accel_core::kernel::Strategy;
use accel_core::{Error, Result};
use accel_kernels::abi::ERROR_SLOT_WORDS;
use cudarc::driver::result::DriverError;
use cudarc::driver::sys::CUdevice_attribute;
use driver::{Context, StreamId, backend_error, describe};
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The oldest devices that accel's PTX (built for `sm_80`) runs on.
const MIN_COMPUTE_CAPABILITY: (usize, usize) = (8, 0);

/// What a `Gpu` shares with the streams, buffers and kernels it hands out, which keep it alive.
struct Device {
    pool: Mutex<memory::Pool>,
    modules: Mutex<module::Modules>,
    /// Streams of dropped [`Stream`]s, for the next ones.
    idle_streams: Mutex<Vec<StreamId>>,
    /// Last, so that it is released after everything above.
    cx: Context,
}

impl Drop for Device {
    /// Runs when the `Gpu` and all its streams, buffers and kernels are gone. Errors cannot be
    /// reported from here; the context is released in any case.
    fn drop(&mut self) {
        let _ = self.cx.synchronize_all();
        let _ = memory::release_cached(&self.cx, self.pool.get_mut().unwrap_or_else(PoisonError::into_inner));
        module::unload_all(&self.cx, self.modules.get_mut().unwrap_or_else(PoisonError::into_inner));
    }
}

/// Locks host-side bookkeeping; every update leaves it consistent, so a poisoned lock is usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One CUDA device, opened for accel: its primary context, a default stream, the device's
/// properties, a caching allocator, the loaded modules and a zeroed error slot.
pub struct Gpu {
    device: Arc<Device>,
    /// The default stream: this `Gpu`'s own methods and the executor issue their work on it.
    stream: Stream,
    ordinal: usize,
    name: String,
    sm_count: usize,
    compute_capability: (usize, usize),
    /// Whether modules load from their SASS when they have one for this device (`ACCEL_SASS`).
    sass_enabled: bool,
    /// The most blocks of any launch sized by [`Gpu::resident_grid`], which every grid-stride
    /// kernel of the executor is (`ACCEL_GRID_CAP`; unlimited when unset): a small cap makes
    /// small inputs take the grid-stride paths of every kernel (a block's second tile, say), for
    /// the tests under compute-sanitizer, whose sizes are small.
    grid_cap: u32,
    /// The strategy every fused expand and permute runs by, if forced (`ACCEL_EXPAND`,
    /// [`Gpu::set_expand_strategy`]): 0 for none (each run selects one from its sizes), else
    /// one more than its position in [`Strategy::ALL`].
    expand_strategy: AtomicU8,
    error_slot: DeviceBuffer,
    /// Zeroed error slots of finished runs, for the next runs (saves a memset per run).
    clean_slots: Mutex<Vec<DeviceBuffer>>,
    /// Probes of the error slot for the checks inside loops, kept from run to run.
    slot_probes: probe::Probes<ERROR_SLOT_WORDS>,
    /// The programs run on this device, prepared once each.
    programs: Mutex<prepared::Programs>,
}

impl Gpu {
    /// Number of CUDA devices; 0 when there is no driver or it cannot be initialised.
    pub fn device_count() -> usize {
        driver::driver().ok().and_then(|()| driver::device_count().ok()).unwrap_or(0)
    }

    /// Opens device `ordinal`. `Error::NoDevice` says why it cannot be used (no driver library,
    /// initialisation failed, no such device, compute capability below 8.0, ...) and what to do;
    /// `Error::Backend`, that a kernel fault earlier in the process left CUDA unusable (CUDA
    /// clears such a fault only when the process ends).
    pub fn open(ordinal: usize) -> Result<Gpu> {
        let no_device = |reason: String| Error::NoDevice { reason };
        driver::driver().map_err(no_device)?;
        let count = driver::device_count()
            .map_err(|e| no_device(format!("the CUDA driver cannot list its devices ({})", describe(e))))?;
        if ordinal >= count {
            return Err(no_device(if count == 0 {
                "the CUDA driver sees no device; check `nvidia-smi` and CUDA_VISIBLE_DEVICES, or set ACCEL_BACKEND=cpu"
                    .into()
            } else {
                format!(
                    "CUDA device {ordinal} was requested but the driver sees {count} (ordinals 0 to {}); check \
                     CUDA_VISIBLE_DEVICES",
                    count - 1
                )
            }));
        }
        let cannot_open = |e: DriverError| {
            if driver::is_sticky(e) {
                return backend_error(format!("opening CUDA device {ordinal}"), e);
            }
            no_device(format!(
                "CUDA device {ordinal} cannot be opened ({}); check `nvidia-smi` (a device in exclusive-process mode \
                 may be taken), or set ACCEL_BACKEND=cpu",
                describe(e)
            ))
        };
        let cx = Context::open(ordinal).map_err(cannot_open)?;
        let name = cx.name().map_err(cannot_open)?;
        let attribute = |a| cx.attribute(a).map(|v| usize::try_from(v).unwrap_or(0)).map_err(cannot_open);
        let sm_count = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        let compute_capability = (
            attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        if compute_capability < MIN_COMPUTE_CAPABILITY {
            let ((major, minor), (min_major, min_minor)) = (compute_capability, MIN_COMPUTE_CAPABILITY);
            return Err(no_device(format!(
                "CUDA device {ordinal} ({name}) has compute capability {major}.{minor}; accel's kernels need \
                 {min_major}.{min_minor} or newer"
            )));
        }
        let device =
            Arc::new(Device { pool: Mutex::default(), modules: Mutex::default(), idle_streams: Mutex::default(), cx });
        let stream = Stream::open(&device)
            .and_then(|stream| Ok((stream.alloc_zeroed(ERROR_SLOT_WORDS * 8)?, stream)))
            .map_err(|e| no_device(format!("CUDA device {ordinal} ({name}) cannot be opened: {e}")));
        let (error_slot, stream) = stream?;
        device.cx.synchronize_all().map_err(cannot_open)?;
        let sass_enabled = std::env::var("ACCEL_SASS").map_or(true, |v| v != "off");
        let expand_strategy = strategy_from_env(std::env::var("ACCEL_EXPAND").ok().as_deref())?;
        let grid_cap = grid_cap_from_env(std::env::var("ACCEL_GRID_CAP").ok().as_deref())?;
        Ok(Gpu {
            device,
            stream,
            ordinal,
            name,
            sm_count,
            compute_capability,
            sass_enabled,
            grid_cap,
            expand_strategy: AtomicU8::new(strategy_code(expand_strategy)),
            error_slot,
            clean_slots: Mutex::default(),
            slot_probes: probe::Probes::default(),
            programs: Mutex::default(),
        })
    }

    /// The strategy by which every `permute` of an `expand` on this device spreads its work
    /// (`accel_core::kernel::Strategy`), or `None` to let each run select one from the sizes of
    /// its expansion (the default, unless `ACCEL_EXPAND` names a strategy). A `fold_seg` over a
    /// vector follows it too: `Tiles` walks ranges of 256 values, `Block` wide ranges of
    /// thousands, the others rows split into parts (`accel_kernels::abi::walk`).
    /// Runs already queued keep theirs.
    pub fn set_expand_strategy(&self, strategy: Option<Strategy>) {
        self.expand_strategy.store(strategy_code(strategy), Ordering::Relaxed);
    }

    /// The strategy [`Gpu::set_expand_strategy`] forces, if any.
    pub fn expand_strategy(&self) -> Option<Strategy> {
        match self.expand_strategy.load(Ordering::Relaxed) {
            0 => None,
            code => Strategy::ALL.get(usize::from(code) - 1).copied(),
        }
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Number of streaming multiprocessors.
    pub fn sm_count(&self) -> usize {
        self.sm_count
    }

    /// (major, minor), e.g. (9, 0) for an H100.
    pub fn compute_capability(&self) -> (usize, usize) {
        self.compute_capability
    }

    /// Waits until all work issued so far on every stream of the device has finished; reports any
    /// failure of that work.
    pub fn synchronize(&self) -> Result<()> {
        self.device.cx.synchronize_all().map_err(|e| backend_error("waiting for the device", e))
    }

    /// Runs `work` and measures the device time of what it issued on the default stream, with
    /// CUDA events recorded before and after it (so host work in between, such as uploads staged
    /// by the driver, counts only where the stream waited for it). Waits for the work to finish.
    ///
    /// ```no_run
    /// # fn main() -> accel_core::Result<()> {
    /// let gpu = accel_runtime::cuda::Gpu::open(0)?;
    /// let buffer = gpu.alloc(1 << 30)?;
    /// let (_, took) = gpu.time(|| gpu.copy(&buffer, 0, &buffer, 1 << 29, 1 << 29))?;
    /// println!("copied 512 MiB in {took:?}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn time<T>(&self, work: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
        self.stream.time(work)
    }

    /// The `ERROR_SLOT_WORDS` words (zeroed at open) in which kernels record their first failure;
    /// kernels receive its address as a parameter.
    pub fn error_slot(&self) -> &DeviceBuffer {
        &self.error_slot
    }

    /// A zeroed error slot for one run of a program: a recycled one, or a fresh one.
    pub(crate) fn clean_slot(&self) -> Result<DeviceBuffer> {
        match lock(&self.clean_slots).pop() {
            Some(slot) => Ok(slot),
            None => self.alloc_zeroed(ERROR_SLOT_WORDS * size_of::<u64>()),
        }
    }

    /// Takes back a slot that is still all zero after all work that used it.
    pub(crate) fn recycle_slot(&self, slot: DeviceBuffer) {
        lock(&self.clean_slots).push(slot);
    }

    /// A probe for delayed looks at a run's error slot on the default stream (see `probe`).
    fn slot_probe(&self) -> Result<probe::Probe<ERROR_SLOT_WORDS>> {
        self.slot_probes.take(&self.stream)
    }

    /// Takes back a probe for later runs.
    fn recycle_slot_probe(&self, probe: probe::Probe<ERROR_SLOT_WORDS>) {
        self.slot_probes.give_back(probe);
    }

    /// The default stream's ticket counters for a one-launch reduction (see [`Stream::tickets`]).
    pub(crate) fn tickets(&self, rows: usize) -> Result<Arc<DeviceBuffer>> {
        self.stream.tickets(rows)
    }

    /// The error slot's contents if a kernel recorded a failure (word 0 is not 0), after all work
    /// issued so far; the slot is zeroed again for the next program.
    pub fn take_device_error(&self) -> Result<Option<[u64; ERROR_SLOT_WORDS]>> {
        let mut bytes = [0u8; ERROR_SLOT_WORDS * 8];
        self.download_into(&self.error_slot, 0, &mut bytes)?;
        let mut words = [0u64; ERROR_SLOT_WORDS];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(8)) {
            *word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        }
        if words[0] == 0 {
            return Ok(None);
        }
        self.stream.zero(&self.error_slot)?;
        Ok(Some(words))
    }
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = self.compute_capability;
        write!(f, "Gpu({}: {}, sm_{major}{minor}, {} SMs)", self.ordinal, self.name, self.sm_count)
    }
}

fn strategy_code(strategy: Option<Strategy>) -> u8 {
    strategy.map_or(0, |s| 1 + Strategy::ALL.iter().position(|&x| x == s).expect("a listed strategy") as u8)
}

/// `ACCEL_GRID_CAP`: a positive number of blocks, or no cap when unset or empty.
fn grid_cap_from_env(value: Option<&str>) -> Result<u32> {
    match value.map(str::trim) {
        None | Some("") => Ok(u32::MAX),
        Some(text) => text.parse::<u32>().ok().filter(|&cap| cap > 0).ok_or_else(|| {
            Error::invalid_argument(
                "Gpu::open",
                format!("ACCEL_GRID_CAP is `{text}`; expected a positive number of blocks (or nothing, for no cap)"),
            )
        }),
    }
}

/// The strategy `ACCEL_EXPAND` forces: unset, empty or `auto` for none (each run selects), else
/// `thread`, `warp`, `block` or `tiles`.
fn strategy_from_env(value: Option<&str>) -> Result<Option<Strategy>> {
    match value.map(str::trim) {
        None | Some("" | "auto") => Ok(None),
        Some(name) => Strategy::from_name(name).map(Some).ok_or_else(|| {
            Error::invalid_argument(
                "Gpu::open",
                format!(
                    "ACCEL_EXPAND is `{name}`; the accepted values are `auto`, `thread`, `warp`, `block` and `tiles`"
                ),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_cap_is_a_positive_number_of_blocks_or_none() {
        assert_eq!(grid_cap_from_env(None).unwrap(), u32::MAX);
        assert_eq!(grid_cap_from_env(Some(" ")).unwrap(), u32::MAX);
        assert_eq!(grid_cap_from_env(Some("2")).unwrap(), 2);
        for bad in ["0", "-1", "two", "1.5", "4294967296"] {
            let e = grid_cap_from_env(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("ACCEL_GRID_CAP") && e.contains(bad), "{e}");
        }
    }
}
