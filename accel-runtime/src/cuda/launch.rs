//! Kernel launches and their geometry.
//!
//! Every accel kernel runs 1-D blocks of `BLOCK_THREADS` threads without dynamic shared memory,
//! takes its parameters as `u64` words, and covers inputs larger than its grid with a grid-stride
//! loop. A kernel's grid is therefore one wave: at most as many blocks as the device runs at once
//! ([`Gpu::resident_grid`], from the kernel's occupancy), so that every block is running from the
//! start (work split among warps is balanced, blocks sweep memory together) and per-block
//! partials stay small.

use super::driver::backend_error;
use super::module::Kernel;
use super::{Gpu, Stream};
use accel_core::{Error, Result};
use accel_kernels::abi::{BLOCK_THREADS, WARP};
use std::sync::Arc;

/// Blocks for `threads` threads, one each, capped at `sm_count * resident_blocks` (one wave);
/// 0 only when there is nothing to do.
fn one_wave(threads: usize, sm_count: usize, resident_blocks: usize) -> u32 {
    let blocks = threads.div_ceil(BLOCK_THREADS as usize).min(sm_count.max(1) * resident_blocks.max(1));
    u32::try_from(blocks).unwrap_or(u32::MAX)
}

impl Gpu {
    /// Blocks for `kernel` over `threads` threads: one each, capped at one wave of the blocks the
    /// device runs at once (and at `ACCEL_GRID_CAP`); 0 only when there is nothing to do.
    pub fn resident_grid(&self, kernel: &Kernel, threads: usize) -> u32 {
        one_wave(threads, self.sm_count, kernel.resident_blocks()).min(self.grid_cap)
    }

    /// Warps of `kernel` that the device runs at once.
    pub fn resident_warps(&self, kernel: &Kernel) -> usize {
        self.sm_count.max(1) * kernel.resident_blocks() * (BLOCK_THREADS as usize / WARP)
    }

    /// [`Stream::launch`] on the default stream.
    pub fn launch(&self, kernel: &Kernel, grid: u32, words: &[u64]) -> Result<()> {
        self.stream.launch(kernel, grid, words)
    }
}

impl Stream {
    /// Queues `kernel` on this stream, on `grid` blocks of `BLOCK_THREADS` threads, passing
    /// `words` as its parameters; a grid of 0 launches nothing. A buffer allocated on another
    /// stream whose address is among the words needs [`DeviceBuffer::record_use`] with this one.
    ///
    /// A wrong launch is an error here; a kernel that faults (an illegal address) is reported by
    /// the next call that waits for the device, and every call after it. The words are not
    /// checked: a kernel given a bad address can corrupt device memory, never host memory.
    ///
    /// [`DeviceBuffer::record_use`]: super::DeviceBuffer::record_use
    pub fn launch(&self, kernel: &Kernel, grid: u32, words: &[u64]) -> Result<()> {
        if !Arc::ptr_eq(&kernel.device, self.device()) {
            return Err(Error::invalid_argument(
                "Gpu::launch",
                format!("kernel `{}` belongs to another `Gpu`", kernel.name()),
            ));
        }
        if words.len() != kernel.parameters() {
            return Err(Error::invalid_argument(
                "Gpu::launch",
                format!("kernel `{}` takes {} words, {} given", kernel.name(), kernel.parameters(), words.len()),
            ));
        }
        if grid == 0 {
            return Ok(());
        }
        // SAFETY: the kernel belongs to a module of this device that it keeps loaded, and it takes
        // exactly `words.len()` parameters of 8 bytes (checked when it was looked up).
        unsafe { self.device().cx.launch(self.handle(), kernel.function(), grid, BLOCK_THREADS, words) }
            .map_err(|e| backend_error(format!("launching kernel `{}` with grid {grid}", kernel.name()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry() {
        assert_eq!(one_wave(0, 132, 8), 0);
        assert_eq!(one_wave(1, 132, 8), 1);
        assert_eq!(one_wave(256, 132, 8), 1);
        assert_eq!(one_wave(257, 132, 8), 2);
        assert_eq!(one_wave(132 * 8 * 256, 132, 8), 132 * 8);
        assert_eq!(one_wave(usize::MAX, 132, 3), 132 * 3);
        assert_eq!(one_wave(1000, 0, 0), 1);
    }
}
