//! Device memory: a caching allocator, the RAII buffer it hands out, and the copies.
//!
//! Algorithm: a request rounds up to a size class, a multiple of 512 B up to 1 MiB and of 2 MiB
//! above. A dropped buffer goes onto its class's free list with the streams that used it, and the
//! next request of that class takes it without a driver call: preferably a block that only the
//! requesting stream used, which needs no synchronisation (the stream runs the new work after the
//! old), else the most recently freed one, after the requesting stream is made to wait for the
//! block's streams (module `stream` says why that is enough). Cached blocks are retained until
//! `cuMemAlloc` runs out of memory; then the device is synchronised, every cached block is freed,
//! and the allocation is retried once before it fails with `Error::OutOfDeviceMemory`.
//!
//! A small result that the host reads at once (a reduction's rank-0 result) may live in a block
//! with a host mirror: page-locked host memory mapped into the device, which the kernel writing
//! the block also writes, so that the host reads the value after its wait without a copy from the
//! device (a second round trip). Mirrored blocks are pooled apart, their mirrors kept with them.
//! A write the mirror does not see (a copy into the block, zeroing, a kernel recorded with
//! [`DeviceBuffer::record_use`]) retires the mirror: reads then copy from the device again.
//!
//! Limits: a request takes only blocks of its own class; the waste is under 512 B per block up to
//! 1 MiB and under 2 MiB above (under half of the block either way). Finding a block of the
//! requesting stream scans its class's free list when the last block freed is another stream's.

use super::driver::{self, Context, Mapped, StreamHandle, StreamId, backend_error};
use super::stream::Stream;
use super::{Device, Gpu, lock};
use accel_core::{Error, Result};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Granularity of the small classes.
const SMALL_QUANTUM: usize = 512;
/// The largest small class.
const SMALL_LIMIT: usize = 1 << 20;
/// Granularity of the large classes (the driver maps large allocations in 2 MiB pages).
const LARGE_QUANTUM: usize = 2 << 20;

/// The block size that serves a request of `bytes` (an empty request takes the smallest block, so
/// every buffer has a distinct, valid address); `None` when it overflows.
pub(super) fn size_class(bytes: usize) -> Option<usize> {
    let quantum = if bytes <= SMALL_LIMIT { SMALL_QUANTUM } else { LARGE_QUANTUM };
    bytes.max(1).checked_next_multiple_of(quantum)
}

/// The streams that may still use a block: the one it was allocated on, and any other that a
/// copy, a download or [`DeviceBuffer::record_use`] named.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StreamSet {
    home: StreamId,
    others: Vec<StreamId>,
}

impl StreamSet {
    fn new(home: StreamId) -> StreamSet {
        StreamSet { home, others: Vec::new() }
    }

    fn insert(&mut self, stream: StreamId) {
        if stream != self.home && !self.others.contains(&stream) {
            self.others.push(stream);
        }
    }

    /// Whether `stream` is the only stream of the set.
    fn is_only(&self, stream: StreamId) -> bool {
        self.home == stream && self.others.is_empty()
    }

    /// The streams of the set other than `stream`: those that work on `stream` must wait for.
    fn except(&self, stream: StreamId) -> impl Iterator<Item = StreamId> + '_ {
        std::iter::once(self.home).chain(self.others.iter().copied()).filter(move |&s| s != stream)
    }
}

/// A cached block, its host mirror if it has one, and the streams that used it.
#[derive(Debug)]
struct FreeBlock {
    address: u64,
    mirror: Option<Mapped>,
    streams: StreamSet,
}

/// The allocator's bookkeeping, apart from the driver: free lists per class (and whether its
/// blocks have host mirrors) and byte counts.
#[derive(Debug, Default)]
pub(super) struct Pool {
    free: HashMap<(usize, bool), Vec<FreeBlock>>,
    stats: PoolStats,
}

/// Bytes of device memory a [`Gpu`]'s allocator holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// In blocks that live buffers own (rounded up to their size classes).
    pub in_use: usize,
    /// In free blocks kept for reuse.
    pub cached: usize,
}

impl Pool {
    /// A cached block of `class` bytes (with a host mirror if `mirrored`) for work on `stream`,
    /// now in use: the most recently freed one that only `stream` used, else the most recently
    /// freed one.
    fn take(&mut self, class: usize, mirrored: bool, stream: StreamId) -> Option<FreeBlock> {
        let blocks = self.free.get_mut(&(class, mirrored))?;
        let position = blocks.iter().rposition(|b| b.streams.is_only(stream)).or(blocks.len().checked_sub(1))?;
        let block = blocks.remove(position);
        self.stats.cached -= class;
        self.stats.in_use += class;
        Some(block)
    }

    /// A block fresh from the driver, now in use.
    fn add(&mut self, class: usize) {
        self.stats.in_use += class;
    }

    /// A block whose buffer was dropped, with the streams that used it.
    fn give_back(&mut self, class: usize, block: FreeBlock) {
        self.free.entry((class, block.mirror.is_some())).or_default().push(block);
        self.stats.in_use -= class;
        self.stats.cached += class;
    }

    /// Removes every cached block, for the caller to free.
    fn drain(&mut self) -> Vec<FreeBlock> {
        self.stats.cached = 0;
        self.free.drain().flat_map(|(_, blocks)| blocks).collect()
    }
}

/// A block of device memory from a [`Gpu`]'s pool, allocated on one of its streams.
///
/// Dropping it returns the block to the pool without synchronising (see the module docs); the
/// device itself stays alive until its last buffer and kernel are gone. Its address may be passed
/// to kernels of the same `Gpu` only, and to a kernel launched on a stream other than the one it
/// was allocated on only with [`DeviceBuffer::record_use`].
pub struct DeviceBuffer {
    address: u64,
    len: usize,
    class: usize,
    /// The stream it was allocated on.
    home: StreamHandle,
    /// The streams that may still use it.
    streams: Mutex<StreamSet>,
    /// Its host mirror, if it has one (see the module docs), and whether it still holds what the
    /// block holds.
    mirror: Option<Mapped>,
    mirror_current: AtomicBool,
    device: Arc<Device>,
}

impl DeviceBuffer {
    /// The device address of the first byte.
    pub fn ptr(&self) -> u64 {
        self.address
    }

    /// Length in bytes, as requested (the block may be larger).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fills `dst` from the buffer starting at byte `offset`, after all work issued so far on the
    /// streams that used it has finished (what a lazily downloaded array needs: it has no `Gpu`
    /// at hand). The copy runs on the stream the buffer was allocated on; a buffer with a current
    /// host mirror is read from the mirror after that stream's wait, with no copy.
    pub fn download_into(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        let len = dst.len();
        let address = self.range("DeviceBuffer::download_into", offset, len)?;
        let context = || format!("copying {len} bytes from the device");
        let cx = &self.device.cx;
        let others = lock(&self.streams).others.clone();
        for other in others.into_iter().filter_map(|id| cx.stream(id)) {
            cx.order(self.home, other).map_err(|e| backend_error(context(), e))?;
        }
        let mirror = self.current_mirror();
        if len == 0 || mirror.is_some() {
            cx.synchronize(self.home).map_err(|e| backend_error(context(), e))?;
            if let Some(m) = mirror {
                read_mirror(m, offset, dst);
            }
            return Ok(());
        }
        // SAFETY: `range` checked that the bytes lie inside the buffer, which stays alive.
        unsafe { cx.download(self.home, dst, address) }.map_err(|e| backend_error(context(), e))
    }

    /// Whether the buffer was allocated on `gpu`'s device.
    pub fn belongs_to(&self, gpu: &Gpu) -> bool {
        Arc::ptr_eq(&self.device, &gpu.device)
    }

    /// Records that work on `stream` uses the buffer: a kernel launched there with its address
    /// among its words (copies, zeroing and downloads record their stream themselves). Its block
    /// is then reused only after that work (module `stream`). A kernel that writes a buffer with a
    /// host mirror (a reduction's rank-0 result, [`Stream::alloc_mirrored`]) needs this on any
    /// stream, its own included: it retires the mirror, which would not see the write.
    ///
    /// ```no_run
    /// # fn main() -> accel_core::Result<()> {
    /// # let (gpu, ptx) = (accel_runtime::cuda::Gpu::open(0)?, "");
    /// let fill = gpu.kernel(ptx, "fill_u32")?;
    /// let side = gpu.stream()?;
    /// let out = gpu.alloc(4096)?; // on the default stream
    /// side.wait_for(gpu.default_stream())?;
    /// side.launch(&fill, 4, &[out.ptr(), 1024, 7])?;
    /// out.record_use(&side)?;
    /// drop(out); // its block is reused only after the kernel
    /// # Ok(())
    /// # }
    /// ```
    pub fn record_use(&self, stream: &Stream) -> Result<()> {
        stream.check_device("DeviceBuffer::record_use", "the device buffer", &self.device)?;
        self.used_on(stream);
        // The kernel may write the buffer, which a host mirror would not see.
        self.retire_mirror();
        Ok(())
    }

    /// Adds `stream` to the streams that use the buffer (of the same device).
    fn used_on(&self, stream: &Stream) {
        lock(&self.streams).insert(stream.id());
    }

    /// The device address of the buffer's host mirror ([`Stream::alloc_mirrored`]), which the
    /// kernel that writes the buffer writes too; 0 when it has none, or no longer has one (a write
    /// the mirror did not see retired it).
    pub fn mirror_address(&self) -> u64 {
        self.current_mirror().map_or(0, |m| m.device)
    }

    /// The host mirror, while it holds what the block holds.
    fn current_mirror(&self) -> Option<&Mapped> {
        self.mirror.as_ref().filter(|_| self.mirror_current.load(Ordering::Acquire))
    }

    /// A write the mirror does not see is queued: reads copy from the device from now on.
    fn retire_mirror(&self) {
        self.mirror_current.store(false, Ordering::Release);
    }

    /// The device address of bytes `offset .. offset + len`, checked against the buffer.
    fn range(&self, op: &str, offset: usize, len: usize) -> Result<u64> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => Ok(self.address + offset as u64),
            _ => Err(Error::invalid_argument(
                op,
                format!(
                    "bytes {offset}..{} lie outside a device buffer of {} bytes",
                    offset.saturating_add(len),
                    self.len
                ),
            )),
        }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let streams = self.streams.get_mut().unwrap_or_else(PoisonError::into_inner);
        let streams = std::mem::replace(streams, StreamSet::new(streams.home));
        let block = FreeBlock { address: self.address, mirror: self.mirror.take(), streams };
        lock(&self.device.pool).give_back(self.class, block);
    }
}

impl fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBuffer({:#x}, {} bytes)", self.address, self.len)
    }
}

/// Fills `dst` from `mirror` at byte `offset`, a range of its buffer checked by the caller, who has
/// waited for the stream that the buffer was allocated on (the one its writers are ordered on).
fn read_mirror(mirror: &Mapped, offset: usize, dst: &mut [u8]) {
    // SAFETY: the mirror has the size of its buffer's block, of which `offset..offset + dst.len()`
    // is a checked range, and lives as long as the buffer; the kernels that wrote it have
    // finished (the caller waited for them).
    unsafe { std::ptr::copy_nonoverlapping(mirror.host.add(offset), dst.as_mut_ptr(), dst.len()) }
}

/// A buffer of `bytes` bytes for work on `stream`, from its device's pool, contents undefined; with
/// a host mirror if `mirrored`.
fn allocate(stream: &Stream, bytes: usize, mirrored: bool) -> Result<DeviceBuffer> {
    let device = stream.device();
    let cx = &device.cx;
    let out_of_memory = || -> Result<DeviceBuffer> {
        let (free, total) = cx.mem_info().map_err(|e| backend_error("querying free device memory", e))?;
        Err(Error::out_of_device_memory(bytes, free, total))
    };
    let Some(class) = size_class(bytes) else { return out_of_memory() };
    let mut pool = lock(&device.pool);
    let (address, mirror) = match pool.take(class, mirrored, stream.id()) {
        Some(block) => {
            let ordered = block
                .streams
                .except(stream.id())
                .filter_map(|id| cx.stream(id))
                .try_for_each(|other| cx.order(stream.handle(), other));
            if let Err(e) = ordered {
                pool.give_back(class, block);
                return Err(backend_error("ordering the reuse of device memory after its last use", e));
            }
            (block.address, block.mirror)
        }
        None => {
            let fresh = match cx.malloc(class) {
                Err(e) if driver::is_out_of_memory(e) && release_cached(cx, &mut pool)? => cx.malloc(class),
                first => first,
            };
            let address = match fresh {
                Ok(address) => address,
                Err(e) if driver::is_out_of_memory(e) => return out_of_memory(),
                Err(e) => return Err(backend_error(format!("allocating {class} bytes of device memory"), e)),
            };
            let mirror = if mirrored {
                match cx.malloc_mapped(class) {
                    Ok(mirror) => Some(mirror),
                    Err(e) => {
                        // SAFETY: just allocated, and nothing has used it.
                        let _ = unsafe { cx.free(address) };
                        return Err(backend_error(format!("allocating {class} bytes of mapped host memory"), e));
                    }
                }
            } else {
                None
            };
            pool.add(class);
            (address, mirror)
        }
    };
    Ok(DeviceBuffer {
        address,
        len: bytes,
        class,
        home: stream.handle(),
        streams: Mutex::new(StreamSet::new(stream.id())),
        mirror_current: AtomicBool::new(mirror.is_some()),
        mirror,
        device: Arc::clone(device),
    })
}

/// Frees every cached block once the device has finished with them; `false` when there was none.
/// A failed wait leaves them cached; a failed free is reported after the others are freed.
pub(super) fn release_cached(cx: &Context, pool: &mut Pool) -> Result<bool> {
    if pool.stats.cached == 0 {
        return Ok(false);
    }
    cx.synchronize_all().map_err(|e| backend_error("waiting for the device to release cached memory", e))?;
    let mut failed = None;
    for block in pool.drain() {
        // SAFETY: cached blocks and their mirrors came from `malloc` and `malloc_mapped`, no
        // buffer owns them, and every stream has finished every use of them.
        let freed = unsafe { cx.free(block.address) }.map_err(|e| backend_error("releasing cached device memory", e));
        failed = failed.or(freed.err());
        if let Some(mirror) = block.mirror {
            // SAFETY: as above.
            let freed =
                unsafe { cx.free_mapped(mirror) }.map_err(|e| backend_error("releasing cached mapped host memory", e));
            failed = failed.or(freed.err());
        }
    }
    failed.map_or(Ok(true), Err)
}

impl Stream {
    /// A buffer of `bytes` bytes (0 allowed) for work on this stream, contents undefined, from the
    /// caching pool.
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer> {
        allocate(self, bytes, false)
    }

    /// [`Stream::alloc`] for a small result the host reads at once: the block has a host mirror
    /// (page-locked host memory mapped into the device), whose device address
    /// ([`DeviceBuffer::mirror_address`]) the kernel that writes the block must write too; reads
    /// of the buffer then take the bytes from the mirror after their wait, without a copy from
    /// the device. A copy into the buffer, zeroing it or [`DeviceBuffer::record_use`] retire the
    /// mirror (reads copy from the device again). The reductions of the executor use it for
    /// their rank-0 results.
    pub fn alloc_mirrored(&self, bytes: usize) -> Result<DeviceBuffer> {
        allocate(self, bytes, true)
    }

    /// A buffer of `bytes` zero bytes; the zeroing is queued on this stream.
    pub fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer> {
        let buffer = self.alloc(bytes)?;
        self.zero(&buffer)?;
        Ok(buffer)
    }

    /// Queues the zeroing of all of `buffer` on this stream.
    pub fn zero(&self, buffer: &DeviceBuffer) -> Result<()> {
        self.check_owner("Stream::zero", buffer)?;
        if buffer.len == 0 {
            return Ok(());
        }
        buffer.used_on(self);
        buffer.retire_mirror();
        // SAFETY: the range is the buffer's own, and the buffer keeps its block alive.
        unsafe { buffer.device.cx.zero(self.handle(), buffer.address, buffer.len) }
            .map_err(|e| backend_error(format!("zeroing {} bytes of device memory", buffer.len), e))
    }

    /// A buffer holding a copy of `bytes`. The copy is queued on this stream; `bytes` may be
    /// reused as soon as this returns (the driver stages pageable memory before returning).
    pub fn upload(&self, bytes: &[u8]) -> Result<DeviceBuffer> {
        let buffer = self.alloc(bytes.len())?;
        if !bytes.is_empty() {
            // SAFETY: the buffer was just allocated with `bytes.len()` bytes.
            unsafe { self.device().cx.upload(self.handle(), buffer.address, bytes) }
                .map_err(|e| backend_error(format!("copying {} bytes to the device", bytes.len()), e))?;
        }
        Ok(buffer)
    }

    /// Bytes `offset .. offset + len` of `buffer`, after all work issued so far on this stream
    /// has finished.
    pub fn download(&self, buffer: &DeviceBuffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; len];
        self.download_into(buffer, offset, &mut bytes)?;
        Ok(bytes)
    }

    /// Fills `dst` from `buffer` starting at byte `offset`, after all work issued so far on this
    /// stream has finished (so that a typed host vector can be filled in place).
    pub fn download_into(&self, buffer: &DeviceBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.check_owner("Gpu::download", buffer)?;
        let len = dst.len();
        let address = buffer.range("Gpu::download", offset, len)?;
        let context = || format!("copying {len} bytes from the device");
        buffer.used_on(self);
        // The mirror is read only by a download on the stream its writers are ordered on.
        let mirror = buffer.current_mirror().filter(|_| buffer.home == self.handle());
        if len == 0 || mirror.is_some() {
            self.synchronize()?;
            if let Some(m) = mirror {
                read_mirror(m, offset, dst);
            }
            return Ok(());
        }
        // SAFETY: `range` checked that the bytes lie inside the buffer, which stays alive.
        unsafe { self.device().cx.download(self.handle(), dst, address) }.map_err(|e| backend_error(context(), e))
    }

    /// Queues a copy of `bytes` bytes from `src[src_offset..]` to `dst[dst_offset..]` on this
    /// stream.
    pub fn copy(
        &self,
        dst: &DeviceBuffer,
        dst_offset: usize,
        src: &DeviceBuffer,
        src_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        self.check_owner("Gpu::copy", dst)?;
        self.check_owner("Gpu::copy", src)?;
        let to = dst.range("Gpu::copy", dst_offset, bytes)?;
        let from = src.range("Gpu::copy", src_offset, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        dst.used_on(self);
        dst.retire_mirror();
        src.used_on(self);
        // SAFETY: `range` checked both ranges against their live buffers.
        unsafe { self.device().cx.copy(self.handle(), to, from, bytes) }
            .map_err(|e| backend_error(format!("copying {bytes} bytes on the device"), e))
    }

    /// Queues a copy of the first `bytes` bytes of `src` into `dst`, page-locked host memory
    /// mapped into the device, in this stream's order.
    ///
    /// # Safety
    /// `dst` came from `malloc_mapped` of this stream's context with at least `bytes` bytes and
    /// stays allocated until the copy has run.
    pub(super) unsafe fn copy_to_mapped(&self, dst: &Mapped, src: &DeviceBuffer, bytes: usize) -> Result<()> {
        self.check_owner("Stream::copy_to_mapped", src)?;
        let from = src.range("Stream::copy_to_mapped", 0, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        src.used_on(self);
        // SAFETY: `range` checked the source against its live buffer; the caller vouches for `dst`.
        unsafe { self.device().cx.copy(self.handle(), dst.device, from, bytes) }
            .map_err(|e| backend_error(format!("copying {bytes} bytes to page-locked host memory"), e))
    }

    /// Buffers work only with the streams of the `Gpu` that made them.
    fn check_owner(&self, op: &str, buffer: &DeviceBuffer) -> Result<()> {
        self.check_device(op, "the device buffer", &buffer.device)
    }
}

/// On the default stream.
impl Gpu {
    /// A buffer of `bytes` bytes (0 allowed), contents undefined, from the caching pool.
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer> {
        self.stream.alloc(bytes)
    }

    /// A buffer of `bytes` zero bytes; the zeroing is queued on the default stream.
    pub fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer> {
        self.stream.alloc_zeroed(bytes)
    }

    /// A buffer holding a copy of `bytes`, queued on the default stream (see [`Stream::upload`]).
    pub fn upload(&self, bytes: &[u8]) -> Result<DeviceBuffer> {
        self.stream.upload(bytes)
    }

    /// Bytes `offset .. offset + len` of `buffer`, after all work issued so far on the default
    /// stream has finished.
    pub fn download(&self, buffer: &DeviceBuffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        self.stream.download(buffer, offset, len)
    }

    /// [`Stream::download_into`] on the default stream.
    pub fn download_into(&self, buffer: &DeviceBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.stream.download_into(buffer, offset, dst)
    }

    /// [`Stream::copy`] on the default stream.
    pub fn copy(
        &self,
        dst: &DeviceBuffer,
        dst_offset: usize,
        src: &DeviceBuffer,
        src_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        self.stream.copy(dst, dst_offset, src, src_offset, bytes)
    }

    /// (free, total) bytes of device memory; blocks cached by the pool count as used.
    pub fn mem_info(&self) -> Result<(usize, usize)> {
        self.device.cx.mem_info().map_err(|e| backend_error("querying free device memory", e))
    }

    /// What the caching allocator holds now.
    pub fn pool_stats(&self) -> PoolStats {
        lock(&self.device.pool).stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes() {
        assert_eq!(size_class(0), Some(512));
        assert_eq!(size_class(1), Some(512));
        assert_eq!(size_class(512), Some(512));
        assert_eq!(size_class(513), Some(1024));
        assert_eq!(size_class(1_000_000), Some(1954 * 512));
        assert_eq!(size_class(1 << 20), Some(1 << 20));
        assert_eq!(size_class((1 << 20) + 1), Some(2 << 20));
        assert_eq!(size_class(5 << 20), Some(6 << 20));
        assert_eq!(size_class(usize::MAX), None);
        for bytes in [0, 1, 511, 4097, 1 << 20, (1 << 20) + 7, 123_456_789] {
            let class = size_class(bytes).unwrap();
            assert!(class >= bytes.max(1) && class - bytes < class / 2 + 512, "{bytes} -> {class}");
        }
    }

    fn block(address: u64, streams: &[StreamId]) -> FreeBlock {
        let mut set = StreamSet::new(streams[0]);
        streams[1..].iter().for_each(|&s| set.insert(s));
        FreeBlock { address, mirror: None, streams: set }
    }

    fn taken(pool: &mut Pool, class: usize, stream: StreamId) -> Option<(u64, Vec<StreamId>)> {
        pool.take(class, false, stream).map(|b| (b.address, b.streams.except(stream).collect()))
    }

    #[test]
    fn pool_bookkeeping() {
        let mut pool = Pool::default();
        assert!(pool.take(512, false, 0).is_none());
        pool.add(512);
        pool.add(512);
        pool.add(2 << 20);
        assert_eq!(pool.stats, PoolStats { in_use: 512 + 512 + (2 << 20), cached: 0 });
        pool.give_back(512, block(0x1000, &[0]));
        pool.give_back(2 << 20, block(0x2000, &[0]));
        assert_eq!(pool.stats, PoolStats { in_use: 512, cached: 512 + (2 << 20) });
        // Blocks are reused by exact class only, most recently freed first.
        assert!(pool.take(1024, false, 0).is_none());
        assert_eq!(taken(&mut pool, 512, 0), Some((0x1000, vec![])));
        assert!(pool.take(512, false, 0).is_none());
        assert_eq!(pool.stats, PoolStats { in_use: 1024, cached: 2 << 20 });
        pool.give_back(512, block(0x1000, &[0]));
        pool.give_back(512, block(0x3000, &[0]));
        assert_eq!(taken(&mut pool, 512, 0), Some((0x3000, vec![])));
        let mut drained: Vec<u64> = pool.drain().into_iter().map(|b| b.address).collect();
        drained.sort();
        assert_eq!(drained, [0x1000, 0x2000]);
        assert_eq!(pool.stats, PoolStats { in_use: 512, cached: 0 });
        assert!(pool.take(2 << 20, false, 0).is_none());
    }

    #[test]
    fn blocks_of_the_requesting_stream_first() {
        let mut pool = Pool::default();
        (0..5).for_each(|_| pool.add(512));
        pool.give_back(512, block(0x1000, &[1]));
        pool.give_back(512, block(0x2000, &[0]));
        pool.give_back(512, block(0x3000, &[1, 0]));
        pool.give_back(512, block(0x4000, &[2, 1, 2]));
        pool.give_back(512, block(0x5000, &[1]));
        // Stream 0's own block, though freed earlier than others; with nothing to wait for.
        assert_eq!(taken(&mut pool, 512, 0), Some((0x2000, vec![])));
        // None of stream 0's own left: the last freed, after waiting for its stream.
        assert_eq!(taken(&mut pool, 512, 0), Some((0x5000, vec![1])));
        // A block used on 1 and 0 is not stream 1's alone.
        assert_eq!(taken(&mut pool, 512, 1), Some((0x1000, vec![])));
        assert_eq!(taken(&mut pool, 512, 1), Some((0x4000, vec![2])));
        assert_eq!(taken(&mut pool, 512, 3), Some((0x3000, vec![1, 0])));
        assert!(pool.take(512, false, 3).is_none());
        assert_eq!(pool.stats, PoolStats { in_use: 5 * 512, cached: 0 });
    }

    #[test]
    fn stream_sets() {
        let mut set = StreamSet::new(4);
        assert!(set.is_only(4) && !set.is_only(5));
        set.insert(4);
        assert!(set.is_only(4));
        set.insert(7);
        set.insert(2);
        set.insert(7);
        assert!(!set.is_only(4));
        assert_eq!(set.except(4).collect::<Vec<_>>(), [7, 2]);
        assert_eq!(set.except(7).collect::<Vec<_>>(), [4, 2]);
        assert_eq!(set.except(9).collect::<Vec<_>>(), [4, 7, 2]);
    }
}
