//! Kernel launches and their geometry.
//!
//! Every accel kernel runs 1-D blocks of `BLOCK_THREADS` threads without dynamic shared memory,
//! takes its parameters as `u64` words, and covers inputs larger than its grid with a grid-stride
//! loop. The grid is therefore capped at 32 blocks (8192 threads, 256 warps) per multiprocessor:
//! enough to fill every SM several times over, few enough that per-block partials (reductions,
//! scans) stay small.

use super::Gpu;
use super::driver::backend_error;
use super::module::Kernel;
use accel_core::{Error, Result};
use accel_kernels::abi::BLOCK_THREADS;
use std::sync::Arc;

/// Blocks per multiprocessor at most in a grid from [`grid_for`].
const BLOCKS_PER_SM: usize = 32;
/// Warps a multiprocessor keeps resident at most (Ampere and Hopper: 2048 threads).
const WARPS_PER_SM: usize = 64;

/// Blocks for `threads` threads on `sm_count` multiprocessors: one thread each, capped at
/// [`BLOCKS_PER_SM`] blocks per multiprocessor; 0 only when there is nothing to do.
pub(super) fn grid_for(threads: usize, sm_count: usize) -> u32 {
    let blocks = threads.div_ceil(BLOCK_THREADS as usize).min(sm_count.max(1) * BLOCKS_PER_SM);
    u32::try_from(blocks).unwrap_or(u32::MAX)
}

impl Gpu {
    /// Blocks for a grid-stride kernel over `threads` threads: `ceil(threads / BLOCK_THREADS)`,
    /// capped at 32 blocks per multiprocessor; at least 1 when `threads > 0`, 0 when 0.
    pub fn grid_for(&self, threads: usize) -> u32 {
        grid_for(threads, self.sm_count)
    }

    /// Warps the device keeps in flight when full (64 per multiprocessor).
    pub fn warps_in_flight(&self) -> usize {
        self.sm_count * WARPS_PER_SM
    }

    /// Queues `kernel` on `grid` blocks of `BLOCK_THREADS` threads, passing `words` as its
    /// parameters; a grid of 0 launches nothing.
    ///
    /// A wrong launch is an error here; a kernel that faults (an illegal address) is reported by
    /// the next call that waits for the device, and every call after it. The words are not
    /// checked: a kernel given a bad address can corrupt device memory, never host memory.
    pub fn launch(&self, kernel: &Kernel, grid: u32, words: &[u64]) -> Result<()> {
        if !Arc::ptr_eq(&kernel.device, &self.device) {
            return Err(Error::invalid_argument(
                "Gpu::launch",
                format!("kernel `{}` was loaded by another `Gpu`", kernel.name()),
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
        unsafe { self.device.cx.launch(kernel.function(), grid, BLOCK_THREADS, words) }
            .map_err(|e| backend_error(format!("launching kernel `{}` with grid {grid}", kernel.name()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry() {
        assert_eq!(grid_for(0, 132), 0);
        assert_eq!(grid_for(1, 132), 1);
        assert_eq!(grid_for(256, 132), 1);
        assert_eq!(grid_for(257, 132), 2);
        assert_eq!(grid_for(132 * 32 * 256, 132), 132 * 32);
        assert_eq!(grid_for(usize::MAX, 132), 132 * 32);
        assert_eq!(grid_for(1000, 0), 4);
    }
}
