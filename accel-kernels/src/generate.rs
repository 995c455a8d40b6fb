//! The elementwise skeleton: a grid-stride loop over a flat index space, so that any grid covers
//! any `n` and consecutive threads touch consecutive elements (coalesced). Maps, zips, generates,
//! backpermutes and 1-D stencils are this loop with a fused body (2-D stencils have a skeleton of
//! their own, `stencil`); permutes use [`for_each_index`].
//!
//! Memory traffic: every output element is written once; what its value reads is up to the body.
//! `generate` walks the index space in block tiles of `BLOCK_THREADS * GENERATE_UNROLL`
//! consecutive elements, a block taking tiles `b, b + grid, ...` (the host launches one wave of
//! resident blocks), so that the grid sweeps memory in order. Within a tile, thread `t` computes
//! the values of `t, t + BLOCK_THREADS, ...` (each step of a warp coalesced) before it stores any:
//! outputs never alias inputs, so the loads of all of them can be in flight together.

use crate::abi::GENERATE_UNROLL as UNROLL;
use crate::device;

/// Calls `f(i)` exactly once for every `i < n`, spread over all threads of the grid.
///
/// # Safety
/// Called from every thread of a 1-D launch; `f` must be safe to call for every `i < n`.
#[inline(always)]
pub unsafe fn for_each_index(n: usize, f: impl Fn(usize)) {
    let stride = device::grid_threads();
    let mut i = device::global_thread();
    while i < n {
        f(i);
        i += stride;
    }
}

/// Stores `value(i)` with `store(i, v)` exactly once for every `i < n`. The values of a thread's
/// indices in a tile are all computed before the first of them is stored.
///
/// # Safety
/// Called from every thread of a 1-D launch; `value` and `store` must be safe to call for every
/// `i < n`, and no `store` may change what a `value` reads.
#[inline(always)]
pub unsafe fn generate<T: Copy>(n: usize, value: impl Fn(usize) -> T, store: impl Fn(usize, T)) {
    let (block, t) = (device::block_dim(), device::thread_idx());
    let tile = block * UNROLL;
    let mut start = device::block_idx() * tile;
    let step = device::grid_dim() * tile;
    // Whole tiles: no bounds checks. Written out for UNROLL = 4: LLVM does not unroll a loop
    // over a large body, and an array of values indexed in a loop lives in local memory.
    const { assert!(UNROLL == 4) };
    while start + tile <= n {
        let (i0, i1, i2, i3) = (start + t, start + block + t, start + 2 * block + t, start + 3 * block + t);
        let (v0, v1, v2, v3) = (value(i0), value(i1), value(i2), value(i3));
        store(i0, v0);
        store(i1, v1);
        store(i2, v2);
        store(i3, v3);
        start += step;
    }
    // The last, partial tile (one block has one).
    if start < n {
        for k in 0..UNROLL {
            let i = start + k * block + t;
            if i < n {
                store(i, value(i));
            }
        }
    }
}

/// [`generate`] with one element per thread per step, for bodies whose arithmetic outweighs
/// their memory traffic (transcendental functions, scalar loops; the host launches a thread per
/// element, `accel_core::kernel::Role::GenerateEach`): four such bodies in flight would take the
/// registers that keep more threads resident, which hide the latency better.
///
/// # Safety
/// As [`generate`].
#[inline(always)]
pub unsafe fn generate_each<T>(n: usize, value: impl Fn(usize) -> T, store: impl Fn(usize, T)) {
    let block = device::block_dim();
    let mut i = device::block_idx() * block + device::thread_idx();
    let step = device::grid_dim() * block;
    while i < n {
        store(i, value(i));
        i += step;
    }
}
