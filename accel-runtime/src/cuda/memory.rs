//! Device memory: a caching allocator, the RAII buffer it hands out, and the copies.
//!
//! Algorithm: a request rounds up to a size class, a multiple of 512 B up to 1 MiB and of 2 MiB
//! above. A dropped buffer goes onto its class's free list and the next request of that class
//! takes it without a driver call. Cached blocks are retained until `cuMemAlloc` runs out of
//! memory; then the stream is synchronised, every cached block is freed, and the allocation is
//! retried once before it fails with `Error::OutOfDeviceMemory`.
//!
//! Reuse needs no synchronisation because all work runs on the device's one stream: whatever used
//! a block before its buffer was dropped was issued before whatever uses it next.
//!
//! Limits: a request takes only blocks of its own class; the waste is under 512 B per block up to
//! 1 MiB and under 2 MiB above (under half of the block either way).

use super::driver::{self, Context, backend_error};
use super::{Device, Gpu, lock};
use accel_core::{Error, Result};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

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

/// The allocator's bookkeeping, apart from the driver: free lists per class and byte counts.
#[derive(Debug, Default)]
pub(super) struct Pool {
    free: HashMap<usize, Vec<u64>>,
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
    /// A cached block of `class` bytes, now in use.
    fn take(&mut self, class: usize) -> Option<u64> {
        let address = self.free.get_mut(&class)?.pop()?;
        self.stats.cached -= class;
        self.stats.in_use += class;
        Some(address)
    }

    /// A block fresh from the driver, now in use.
    fn add(&mut self, class: usize) {
        self.stats.in_use += class;
    }

    /// A block whose buffer was dropped.
    fn give_back(&mut self, address: u64, class: usize) {
        self.free.entry(class).or_default().push(address);
        self.stats.in_use -= class;
        self.stats.cached += class;
    }

    /// Removes every cached block, for the caller to free.
    fn drain(&mut self) -> Vec<u64> {
        self.stats.cached = 0;
        self.free.drain().flat_map(|(_, blocks)| blocks).collect()
    }
}

/// A block of device memory from a [`Gpu`]'s pool.
///
/// Dropping it returns the block to the pool without synchronising (see the module docs); the
/// device itself stays alive until its last buffer and kernel are gone. Its address may be passed
/// to kernels of the same `Gpu` only.
pub struct DeviceBuffer {
    address: u64,
    len: usize,
    class: usize,
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

    /// Fills `dst` from the buffer starting at byte `offset`, after all work issued so far on its
    /// device has finished (what a lazily downloaded array needs: it has no `Gpu` at hand).
    pub fn download_into(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        let len = dst.len();
        let address = self.range("DeviceBuffer::download_into", offset, len)?;
        let context = || format!("copying {len} bytes from the device");
        if len == 0 {
            return self.device.cx.synchronize().map_err(|e| backend_error(context(), e));
        }
        // SAFETY: `range` checked that the bytes lie inside the buffer, which stays alive.
        unsafe { self.device.cx.download(dst, address) }.map_err(|e| backend_error(context(), e))
    }

    /// Whether the buffer was allocated on `gpu`'s device.
    pub fn belongs_to(&self, gpu: &Gpu) -> bool {
        Arc::ptr_eq(&self.device, &gpu.device)
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
        lock(&self.device.pool).give_back(self.address, self.class);
    }
}

impl fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBuffer({:#x}, {} bytes)", self.address, self.len)
    }
}

/// A buffer of `bytes` bytes from `device`'s pool, contents undefined.
pub(super) fn allocate(device: &Arc<Device>, bytes: usize) -> Result<DeviceBuffer> {
    let cx = &device.cx;
    let out_of_memory = || -> Result<DeviceBuffer> {
        let (free, total) = cx.mem_info().map_err(|e| backend_error("querying free device memory", e))?;
        Err(Error::OutOfDeviceMemory { requested: bytes, free, total })
    };
    let Some(class) = size_class(bytes) else { return out_of_memory() };
    let mut pool = lock(&device.pool);
    let address = match pool.take(class) {
        Some(address) => address,
        None => {
            let fresh = match cx.malloc(class) {
                Err(e) if driver::is_out_of_memory(e) && release_cached(cx, &mut pool)? => cx.malloc(class),
                first => first,
            };
            match fresh {
                Ok(address) => {
                    pool.add(class);
                    address
                }
                Err(e) if driver::is_out_of_memory(e) => return out_of_memory(),
                Err(e) => return Err(backend_error(format!("allocating {class} bytes of device memory"), e)),
            }
        }
    };
    Ok(DeviceBuffer { address, len: bytes, class, device: Arc::clone(device) })
}

/// Frees every cached block once the stream has finished with them; `false` when there was none.
pub(super) fn release_cached(cx: &Context, pool: &mut Pool) -> Result<bool> {
    let cached = pool.drain();
    if cached.is_empty() {
        return Ok(false);
    }
    cx.synchronize().map_err(|e| backend_error("waiting for the device to release cached memory", e))?;
    for address in cached {
        // SAFETY: cached blocks came from `malloc`, no buffer owns them, and the stream has
        // finished every use of them.
        unsafe { cx.free(address) }.map_err(|e| backend_error("releasing cached device memory", e))?;
    }
    Ok(true)
}

/// A buffer of `bytes` zero bytes (zeroed in stream order).
pub(super) fn allocate_zeroed(device: &Arc<Device>, bytes: usize) -> Result<DeviceBuffer> {
    let buffer = allocate(device, bytes)?;
    zero(&buffer)?;
    Ok(buffer)
}

/// Zeroes all of `buffer`, in stream order.
pub(super) fn zero(buffer: &DeviceBuffer) -> Result<()> {
    if buffer.len == 0 {
        return Ok(());
    }
    // SAFETY: the range is the buffer's own, and the buffer keeps its block alive.
    unsafe { buffer.device.cx.zero(buffer.address, buffer.len) }
        .map_err(|e| backend_error(format!("zeroing {} bytes of device memory", buffer.len), e))
}

impl Gpu {
    /// A buffer of `bytes` bytes (0 allowed), contents undefined, from the caching pool.
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer> {
        allocate(&self.device, bytes)
    }

    /// A buffer of `bytes` zero bytes; the zeroing is queued on the stream.
    pub fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer> {
        allocate_zeroed(&self.device, bytes)
    }

    /// A buffer holding a copy of `bytes`. The copy is queued on the stream; `bytes` may be reused
    /// as soon as this returns (the driver stages pageable memory before returning).
    pub fn upload(&self, bytes: &[u8]) -> Result<DeviceBuffer> {
        let buffer = self.alloc(bytes.len())?;
        if !bytes.is_empty() {
            // SAFETY: the buffer was just allocated with `bytes.len()` bytes.
            unsafe { self.device.cx.upload(buffer.address, bytes) }
                .map_err(|e| backend_error(format!("copying {} bytes to the device", bytes.len()), e))?;
        }
        Ok(buffer)
    }

    /// Bytes `offset .. offset + len` of `buffer`, after all work issued so far has finished.
    pub fn download(&self, buffer: &DeviceBuffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; len];
        self.download_into(buffer, offset, &mut bytes)?;
        Ok(bytes)
    }

    /// Fills `dst` from `buffer` starting at byte `offset`, after all work issued so far has
    /// finished (so that a typed host vector can be filled in place).
    pub fn download_into(&self, buffer: &DeviceBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.check_owner("Gpu::download", buffer)?;
        let len = dst.len();
        let address = buffer.range("Gpu::download", offset, len)?;
        let context = || format!("copying {len} bytes from the device");
        if len == 0 {
            return self.device.cx.synchronize().map_err(|e| backend_error(context(), e));
        }
        // SAFETY: `range` checked that the bytes lie inside the buffer, which stays alive.
        unsafe { self.device.cx.download(dst, address) }.map_err(|e| backend_error(context(), e))
    }

    /// Queues a copy of `bytes` bytes from `src[src_offset..]` to `dst[dst_offset..]`.
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
        // SAFETY: `range` checked both ranges against their live buffers.
        unsafe { self.device.cx.copy(to, from, bytes) }
            .map_err(|e| backend_error(format!("copying {bytes} bytes on the device"), e))
    }

    /// (free, total) bytes of device memory; blocks cached by the pool count as used.
    pub fn mem_info(&self) -> Result<(usize, usize)> {
        self.device.cx.mem_info().map_err(|e| backend_error("querying free device memory", e))
    }

    /// What the caching allocator holds now.
    pub fn pool_stats(&self) -> PoolStats {
        lock(&self.device.pool).stats
    }

    /// Buffers and kernels work only with the `Gpu` that made them.
    pub(super) fn check_owner(&self, op: &str, buffer: &DeviceBuffer) -> Result<()> {
        if Arc::ptr_eq(&buffer.device, &self.device) {
            Ok(())
        } else {
            Err(Error::invalid_argument(op, "the device buffer belongs to another `Gpu`"))
        }
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

    #[test]
    fn pool_bookkeeping() {
        let mut pool = Pool::default();
        assert_eq!(pool.take(512), None);
        pool.add(512);
        pool.add(512);
        pool.add(2 << 20);
        assert_eq!(pool.stats, PoolStats { in_use: 512 + 512 + (2 << 20), cached: 0 });
        pool.give_back(0x1000, 512);
        pool.give_back(0x2000, 2 << 20);
        assert_eq!(pool.stats, PoolStats { in_use: 512, cached: 512 + (2 << 20) });
        // Blocks are reused by exact class only, most recently freed first.
        assert_eq!(pool.take(1024), None);
        assert_eq!(pool.take(512), Some(0x1000));
        assert_eq!(pool.take(512), None);
        assert_eq!(pool.stats, PoolStats { in_use: 1024, cached: 2 << 20 });
        pool.give_back(0x1000, 512);
        pool.give_back(0x3000, 512);
        assert_eq!(pool.take(512), Some(0x3000));
        let mut drained = pool.drain();
        drained.sort();
        assert_eq!(drained, [0x1000, 0x2000]);
        assert_eq!(pool.stats, PoolStats { in_use: 512, cached: 0 });
        assert_eq!(pool.take(2 << 20), None);
    }
}
