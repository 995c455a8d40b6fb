//! The checked driver layer: the only module that calls the CUDA driver.
//!
//! Layers, as in cudarc: `cudarc::driver::sys` is the raw FFI, `cudarc::driver::result` turns each
//! `CUresult` into a `DriverError`, and this module owns the driver handles (primary context,
//! streams, modules, functions) and binds the context to the calling thread before every call. The
//! safe layer (`Gpu`, `DeviceBuffer`, `Kernel`) attaches what it was doing to each `DriverError`
//! through [`backend_error`]. Calls that take device addresses are `unsafe fn`s whose callers
//! vouch that the addresses lie inside live allocations.
//!
//! cudarc loads `libcuda` lazily and panics when the library or one of its entry points is
//! missing, so [`driver`] checks both before the first cudarc call; every later call may assume a
//! loaded, initialised driver.

use accel_core::Error;
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;
use std::ffi::{CStr, c_void};
use std::ptr;
use std::sync::{Mutex, OnceLock, PoisonError};

pub(super) type DriverResult<T> = std::result::Result<T, DriverError>;

/// Every driver entry point that this module reaches through cudarc, checked when the library is
/// loaded so that an old driver is a `NoDevice` error instead of cudarc's panic on the first call.
const ENTRY_POINTS: &[&str] = &[
    "cuInit",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamDestroy_v2",
    "cuStreamWaitEvent",
    "cuMemGetInfo_v2",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemsetD8Async",
    "cuMemHostAlloc",
    "cuMemHostGetDevicePointer_v2",
    "cuMemFreeHost",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuModuleLoadDataEx",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuLaunchKernel",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime_v2",
    "cuEventDestroy_v2",
];

/// Loads and initialises the driver once per process. `Err` says why no device can be used and
/// what to do about it.
pub(super) fn driver() -> Result<(), String> {
    static STATE: OnceLock<Result<(), String>> = OnceLock::new();
    STATE.get_or_init(load).clone()
}

fn load() -> Result<(), String> {
    // SAFETY: loading the driver library runs its initialisers, as starting any CUDA program does;
    // the probe opens the same candidate names that cudarc's loader tries, in the same order.
    if !unsafe { sys::is_culib_present() } {
        return Err("the CUDA driver library libcuda.so.1 was not found; install the NVIDIA driver or add its \
                    directory to LD_LIBRARY_PATH, or set ACCEL_BACKEND=cpu"
            .into());
    }
    // SAFETY: the probe above found the library, so `culib` loads it rather than panicking; the
    // symbols are only looked up, never called through this type.
    let library = unsafe { sys::culib() };
    let missing: Vec<&str> = ENTRY_POINTS
        .iter()
        .copied()
        // SAFETY: as above, a lookup only.
        .filter(|name| unsafe { library.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the CUDA driver is too old (it lacks {}); install a current NVIDIA driver, or set ACCEL_BACKEND=cpu",
            missing.join(", ")
        ));
    }
    result::init().map_err(|e| {
        format!("the CUDA driver failed to initialise ({}); check `nvidia-smi`, or set ACCEL_BACKEND=cpu", describe(e))
    })
}

/// Number of devices the driver reports; the driver must be loaded.
pub(super) fn device_count() -> DriverResult<usize> {
    result::device::get_count().map(|n| usize::try_from(n).unwrap_or(0))
}

/// `CUDA_ERROR_NAME: description`, from the driver's own tables.
pub(super) fn describe(e: DriverError) -> String {
    match e.error_string() {
        Ok(text) => format!("{:?}: {}", e.0, text.to_string_lossy()),
        Err(_) => format!("{:?}", e.0),
    }
}

/// An `accel_core::Error::Backend` for a failed driver call made while doing `context`; for a
/// fault CUDA keeps ([`is_sticky`]), the message says what to do.
pub(super) fn backend_error(context: impl Into<String>, e: DriverError) -> Error {
    let mut message = describe(e);
    if is_sticky(e) {
        message.push_str("; a kernel fault leaves CUDA unusable until the process ends: restart the program");
    }
    Error::backend("cuda", context, message)
}

pub(super) fn is_out_of_memory(e: DriverError) -> bool {
    e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
}

/// Whether `e` is a kernel fault that CUDA keeps for the rest of the process: every later call
/// in any context of the process fails with it (releasing the context does not clear it).
pub(super) fn is_sticky(e: DriverError) -> bool {
    use sys::CUresult::*;
    matches!(
        e.0,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_LAUNCH_FAILED
    )
}

/// A loaded module; unloaded only through [`Context::unload`].
pub(super) struct Module(sys::CUmodule);

/// A kernel inside a loaded module.
#[derive(Clone, Copy)]
pub(super) struct Function(sys::CUfunction);

// SAFETY: driver handles are plain identifiers that any thread may pass to the driver once the
// owning context is bound to it, which every `Context` method does first.
unsafe impl Send for Module {}
// SAFETY: as above; the handles are never dereferenced on the host.
unsafe impl Sync for Module {}
// SAFETY: as for `Module`.
unsafe impl Send for Function {}
// SAFETY: as for `Module`.
unsafe impl Sync for Function {}

/// A module that failed to load: the driver's error and the JIT compiler's log.
pub(super) struct LoadError {
    pub(super) error: DriverError,
    pub(super) log: String,
}

/// A device's primary context, the streams created in it, and the pinned buffer that small
/// downloads land in.
pub(super) struct Context {
    device: sys::CUdevice,
    context: sys::CUcontext,
    /// Every stream created in the context, at the index of its [`StreamId`]; destroyed with it.
    streams: Mutex<Vec<StreamHandle>>,
    staging: Mutex<Staging>,
}

/// A non-blocking stream of a [`Context`]: a queue of work that runs in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StreamHandle(sys::CUstream);

// SAFETY: a driver handle that any thread may pass to the driver once the owning context is bound
// to it, which every `Context` method does first; it lives as long as its context.
unsafe impl Send for StreamHandle {}
// SAFETY: as above; the handle is never dereferenced on the host.
unsafe impl Sync for StreamHandle {}

/// A stream's index among those of its context (see [`Context::create_stream`]).
pub(super) type StreamId = u32;

/// Page-locked host memory mapped into the device's address space: kernels write it directly, and
/// the host reads it once the stream that wrote it has been waited for (see
/// [`Context::malloc_mapped`]).
#[derive(Debug)]
pub(super) struct Mapped {
    pub(super) host: *mut u8,
    pub(super) device: u64,
}

// SAFETY: a pointer to host memory owned by the one block (a `DeviceBuffer` or the pool's free
// list) that holds it; only its holder reads it, after waiting for the device.
unsafe impl Send for Mapped {}
// SAFETY: as above; reads happen through `&self` only after the writes are complete.
unsafe impl Sync for Mapped {}

/// Downloads of at most this many bytes go through [`Staging`].
const STAGING_BYTES: usize = 64 << 10;

/// Page-locked host memory (allocated on the first small download, freed with the context): the
/// device writes into it directly, where a download into pageable memory waits for the driver to
/// stage it and copy it again. Small downloads (a scalar result, the error slot) are latency.
struct Staging(*mut u8);

// SAFETY: a pointer to host memory that only the holder of the context's lock reads or writes.
unsafe impl Send for Staging {}

// SAFETY: the context and streams are identifiers that any thread may use once the context is bound
// to it (each method binds it first); the driver serialises concurrent calls internally.
unsafe impl Send for Context {}
// SAFETY: as above; no method mutates host state.
unsafe impl Sync for Context {}

impl Context {
    /// Retains the primary context of device `ordinal`.
    pub(super) fn open(ordinal: usize) -> DriverResult<Context> {
        let ordinal = i32::try_from(ordinal).map_err(|_| DriverError(sys::CUresult::CUDA_ERROR_INVALID_DEVICE))?;
        let device = result::device::get(ordinal)?;
        // SAFETY: `device` came from cuDeviceGet; the retain is released in `drop`.
        let context = unsafe { result::primary_ctx::retain(device) }?;
        Ok(Context { device, context, streams: Mutex::default(), staging: Mutex::new(Staging(ptr::null_mut())) })
    }

    /// A new non-blocking stream, destroyed with the context, and its id: the number of streams
    /// created before it.
    pub(super) fn create_stream(&self) -> DriverResult<(StreamId, StreamHandle)> {
        self.bind()?;
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        let id = StreamId::try_from(streams.len()).map_err(|_| DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY))?;
        let stream = StreamHandle(result::stream::create(result::stream::StreamKind::NonBlocking)?);
        streams.push(stream);
        Ok((id, stream))
    }

    /// The stream with id `id` (made by [`Context::create_stream`]).
    pub(super) fn stream(&self, id: StreamId) -> Option<StreamHandle> {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner).get(id as usize).copied()
    }

    /// Makes this context current on the calling thread (a thread-local setting in the driver).
    fn bind(&self) -> DriverResult<()> {
        if result::ctx::get_current()? != Some(self.context) {
            // SAFETY: the context is retained until `drop`.
            unsafe { result::ctx::set_current(self.context) }?;
        }
        Ok(())
    }

    pub(super) fn name(&self) -> DriverResult<String> {
        result::device::get_name(self.device)
    }

    pub(super) fn attribute(&self, attribute: sys::CUdevice_attribute) -> DriverResult<i32> {
        // SAFETY: `device` came from cuDeviceGet.
        unsafe { result::device::get_attribute(self.device, attribute) }
    }

    /// Waits until everything issued on `stream` has finished; reports any earlier asynchronous
    /// failure (a faulting kernel leaves the context unusable and every later call fails too).
    pub(super) fn synchronize(&self, stream: StreamHandle) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: streams live until `drop`.
        unsafe { result::stream::synchronize(stream.0) }
    }

    /// Waits until everything issued on every stream of the context has finished.
    pub(super) fn synchronize_all(&self) -> DriverResult<()> {
        self.bind()?;
        result::ctx::synchronize()
    }

    /// Makes the work issued on `waiter` from now on wait for everything issued on `after` so far
    /// (an event recorded on `after`, waited for on the device: the host does not wait).
    pub(super) fn order(&self, waiter: StreamHandle, after: StreamHandle) -> DriverResult<()> {
        if waiter == after {
            return Ok(());
        }
        self.bind()?;
        let event = Event(result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?);
        // SAFETY: both streams live until `drop`; the event until the end of this block, and the
        // driver keeps a destroyed event's pending wait.
        unsafe {
            result::event::record(event.0, after.0)?;
            result::stream::wait_event(waiter.0, event.0, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
        }
    }

    /// (free, total) bytes of device memory.
    pub(super) fn mem_info(&self) -> DriverResult<(usize, usize)> {
        self.bind()?;
        result::mem_get_info()
    }

    /// A fresh allocation of `bytes > 0` bytes (uninitialised).
    pub(super) fn malloc(&self, bytes: usize) -> DriverResult<u64> {
        self.bind()?;
        // SAFETY: the memory is handed out as bytes, for which every bit pattern is valid.
        unsafe { result::malloc_sync(bytes) }
    }

    /// `bytes > 0` zeroed bytes of page-locked host memory, mapped into the device's address
    /// space.
    pub(super) fn malloc_mapped(&self, bytes: usize) -> DriverResult<Mapped> {
        self.bind()?;
        // SAFETY: a fresh allocation of `bytes` bytes, zeroed before anything reads it; on failure
        // of the mapping it is freed again, once.
        unsafe {
            let host: *mut u8 = result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP)?.cast();
            ptr::write_bytes(host, 0, bytes);
            let mut device = 0;
            match sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0).result() {
                Ok(()) => Ok(Mapped { host, device }),
                Err(e) => {
                    let _ = result::free_host(host.cast());
                    Err(e)
                }
            }
        }
    }

    /// # Safety
    /// `mapped` came from [`Context::malloc_mapped`] of this context, and no work that uses it is
    /// pending (synchronize first).
    pub(super) unsafe fn free_mapped(&self, mapped: Mapped) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the caller's contract; `mapped` is consumed, so it is freed once.
        unsafe { result::free_host(mapped.host.cast()) }
    }

    /// # Safety
    /// `address` came from [`Context::malloc`] of this context, is freed once, and no work that
    /// uses it is pending (synchronize first).
    pub(super) unsafe fn free(&self, address: u64) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the caller's contract.
        unsafe { result::free_sync(address) }
    }

    /// Zeroes `bytes` bytes at `address`, in `stream`'s order.
    ///
    /// # Safety
    /// The range lies inside a live allocation of this context.
    pub(super) unsafe fn zero(&self, stream: StreamHandle, address: u64, bytes: usize) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the caller's contract; streams live until `drop`.
        unsafe { result::memset_d8_async(address, 0, bytes, stream.0) }
    }

    /// Copies `src` to `address`, in `stream`'s order. The driver stages pageable host memory
    /// before it returns, so `src` may be reused at once; pinned memory would be read later.
    ///
    /// # Safety
    /// `address .. address + src.len()` lies inside a live allocation of this context.
    pub(super) unsafe fn upload(&self, stream: StreamHandle, address: u64, src: &[u8]) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the caller's contract; streams live until `drop`.
        unsafe { result::memcpy_htod_async(address, src, stream.0) }
    }

    /// Copies device memory at `address` into `dst` after `stream`'s earlier work, and waits.
    ///
    /// # Safety
    /// `address .. address + dst.len()` lies inside a live allocation of this context.
    pub(super) unsafe fn download(&self, stream: StreamHandle, dst: &mut [u8], address: u64) -> DriverResult<()> {
        self.bind()?;
        if dst.is_empty() || dst.len() > STAGING_BYTES {
            // SAFETY: the caller's contract. The stream is synchronised before `dst`'s borrow
            // ends, so the copy never writes to it afterwards.
            return unsafe {
                result::memcpy_dtoh_async(dst, address, stream.0)?;
                result::stream::synchronize(stream.0)
            };
        }
        let mut staging = self.staging.lock().unwrap_or_else(PoisonError::into_inner);
        if staging.0.is_null() {
            // SAFETY: a fresh allocation, freed once in `drop`, zeroed before it is read as bytes.
            unsafe {
                staging.0 = result::malloc_host(STAGING_BYTES, 0)?.cast();
                ptr::write_bytes(staging.0, 0, STAGING_BYTES);
            }
        }
        // SAFETY: `staging` holds STAGING_BYTES bytes of pinned memory that nobody else touches
        // while the lock is held; the stream is synchronised before the lock is released, so the
        // copy never writes to it afterwards. The device range is the caller's contract.
        unsafe {
            let pinned = std::slice::from_raw_parts_mut(staging.0, dst.len());
            result::memcpy_dtoh_async(pinned, address, stream.0)?;
            result::stream::synchronize(stream.0)?;
            dst.copy_from_slice(pinned);
        }
        Ok(())
    }

    /// Copies `bytes` bytes between device ranges, in `stream`'s order.
    ///
    /// # Safety
    /// Both ranges lie inside live allocations of this context.
    pub(super) unsafe fn copy(&self, stream: StreamHandle, dst: u64, src: u64, bytes: usize) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the caller's contract; streams live until `drop`.
        unsafe { result::memcpy_dtod_async(dst, src, bytes, stream.0) }
    }

    /// Loads a module image; on failure the JIT compiler's error log comes back too.
    ///
    /// # Safety
    /// `image` is NUL-terminated PTX text or a cubin (ELF) image aligned to 8 bytes: the driver
    /// reads as much as the image's own format says.
    pub(super) unsafe fn load(&self, image: &[u8]) -> Result<Module, LoadError> {
        self.bind().map_err(|error| LoadError { error, log: String::new() })?;
        let mut log = vec![0u8; 1 << 14];
        let mut options =
            [sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        // The size travels in the pointer-sized option slot, as the driver API defines.
        let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), ptr::without_provenance_mut(log.len())];
        let mut module = ptr::null_mut();
        // SAFETY: the caller vouches for `image`; the two options and their values match in
        // number and kind, and the log buffer outlives the call.
        let status = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                image.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        status.result().map(|()| Module(module)).map_err(|error| {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            LoadError { error, log: String::from_utf8_lossy(&log[..end]).trim().to_string() }
        })
    }

    /// # Safety
    /// `module` was loaded by this context; nothing uses it or its functions afterwards.
    pub(super) unsafe fn unload(&self, module: Module) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the caller's contract.
        unsafe { result::module::unload(module.0) }
    }

    /// The kernel `name` of `module`; `CUDA_ERROR_NOT_FOUND` when there is none.
    pub(super) fn function(&self, module: &Module, name: &CStr) -> DriverResult<Function> {
        self.bind()?;
        // SAFETY: `module` is loaded (only `unload`, which consumes it, ends that).
        unsafe { result::module::get_function(module.0, name.to_owned()) }.map(Function)
    }

    /// How many blocks of `block` threads of `function` a multiprocessor holds at once.
    pub(super) fn resident_blocks(&self, function: Function, block: u32) -> DriverResult<usize> {
        self.bind()?;
        // SAFETY: `function` belongs to a loaded module of this context.
        unsafe { result::occupancy::max_active_block_per_multiprocessor(function.0, block as i32, 0) }
            .map(|b| usize::try_from(b).unwrap_or(0))
    }

    /// The local memory a thread of `function` uses, in bytes: its stack frame and the
    /// registers ptxas spilled.
    pub(super) fn local_bytes(&self, function: Function) -> DriverResult<usize> {
        self.bind()?;
        let attribute = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES;
        // SAFETY: `function` belongs to a loaded module of this context.
        unsafe { result::function::get_function_attribute(function.0, attribute) }
            .map(|b| usize::try_from(b).unwrap_or(0))
    }

    /// Launches `function` on `grid` blocks of `block` threads in `stream`'s order, passing
    /// `words`.
    ///
    /// # Safety
    /// `function` belongs to a loaded module of this context and takes exactly `words.len()`
    /// parameters of 8 bytes each (the driver reads as many values as the kernel declares).
    pub(super) unsafe fn launch(
        &self,
        stream: StreamHandle,
        function: Function,
        grid: u32,
        block: u32,
        words: &[u64],
    ) -> DriverResult<()> {
        self.bind()?;
        // The driver reads the values behind these pointers during the call and never writes them.
        let mut parameters: Vec<*mut c_void> = words.iter().map(|w| ptr::from_ref(w).cast_mut().cast()).collect();
        // SAFETY: the caller's contract; `parameters` outlives the call.
        unsafe { result::launch_kernel(function.0, (grid, 1, 1), (block, 1, 1), 0, stream.0, &mut parameters) }
    }

    /// A fresh event of this context.
    pub(super) fn event(&self) -> DriverResult<Event> {
        self.bind()?;
        result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map(Event)
    }

    /// Records `event` at the current end of `stream`.
    pub(super) fn record(&self, stream: StreamHandle, event: &Event) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the event lives until dropped; streams live until `drop`.
        unsafe { result::event::record(event.0, stream.0) }
    }

    /// Waits until the work that preceded `event`'s last record has finished (at once if it was
    /// never recorded).
    pub(super) fn wait(&self, event: &Event) -> DriverResult<()> {
        self.bind()?;
        // SAFETY: the event is live.
        unsafe { result::event::synchronize(event.0) }
    }

    /// Waits for `end` and returns the milliseconds between `start` and `end`, both recorded on
    /// one stream, `start` first.
    pub(super) fn elapsed_ms(&self, start: &Event, end: &Event) -> DriverResult<f32> {
        self.bind()?;
        // SAFETY: both events are live; the caller recorded them in this order.
        unsafe {
            result::event::synchronize(end.0)?;
            result::event::elapsed(start.0, end.0)
        }
    }
}

/// A CUDA event of the current context, destroyed when dropped.
pub(super) struct Event(sys::CUevent);

// SAFETY: an event handle may be recorded, waited for and destroyed from any thread that binds its
// context (every `Context` method binds it first); the handle is owned by one `Event`.
unsafe impl Send for Event {}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created by `Context::event`, destroyed once; the driver releases a pending event later.
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

impl Drop for Context {
    /// Errors cannot be reported from here; a context in an error state is released all the same.
    fn drop(&mut self) {
        let _ = self.bind();
        for stream in self.streams.get_mut().unwrap_or_else(PoisonError::into_inner).drain(..) {
            // SAFETY: each stream was created by `create_stream` and is destroyed once, after its
            // work.
            unsafe {
                let _ = result::stream::synchronize(stream.0);
                let _ = result::stream::destroy(stream.0);
            }
        }
        let staging = self.staging.get_mut().unwrap_or_else(PoisonError::into_inner);
        if !staging.0.is_null() {
            // SAFETY: allocated by `download` with cuMemHostAlloc, freed once; the streams that
            // wrote into it were synchronised above.
            let _ = unsafe { result::free_host(staging.0.cast()) };
        }
        // SAFETY: balances the retain in `open`.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}
