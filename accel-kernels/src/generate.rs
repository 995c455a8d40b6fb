//! The elementwise skeleton: a grid-stride loop over a flat index space, so that any grid covers
//! any `n` and consecutive threads touch consecutive quads of elements (coalesced). Maps, zips, generates,
//! backpermutes and 1-D stencils are this loop with a fused body (2-D stencils have a skeleton of
//! their own, `stencil`); permutes use [`for_each_index`].
//!
//! Memory traffic: every output element is written once; what its value reads is up to the body.
//! `generate` walks the index space in block tiles of `BLOCK_THREADS * GENERATE_UNROLL`
//! consecutive elements, a block taking tiles `b, b + grid, ...` (the host launches one wave of
//! resident blocks), so that the grid sweeps memory in order. Within a tile, thread `t` computes
//! the values of the four consecutive elements from `4t` before it stores any: outputs never alias
//! inputs, so the loads of all of them can be in flight together, and where the body reads a
//! column at the element's own index (a map or zip of manifest arrays) LLVM merges the four loads
//! into one 16-byte vector load (the columns' bases are aligned, `view::column`), as it merges the
//! four stores. The last, partial tile goes element by element, thread `t` taking `t, t +
//! BLOCK_THREADS, ...`.

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
    // Whole tiles, counted in quads of UNROLL elements so that a thread's first index is a
    // visible multiple of UNROLL: with its arrays' 16-byte-aligned bases (`view::column`),
    // LLVM then merges the four loads of each 4-byte input and the four stores into vector
    // accesses. Written out for UNROLL = 4: LLVM does not unroll a loop over a large body, and
    // an array of values indexed in a loop lives in local memory.
    const { assert!(UNROLL == 4) };
    let whole_quads = n / UNROLL;
    let mut quad = device::block_idx() * block;
    let quad_step = device::grid_dim() * block;
    while quad + block <= whole_quads {
        let i0 = (quad + t) * UNROLL;
        let (i1, i2, i3) = (i0 + 1, i0 + 2, i0 + 3);
        let (v0, v1, v2, v3) = (value(i0), value(i1), value(i2), value(i3));
        store(i0, v0);
        store(i1, v1);
        store(i2, v2);
        store(i3, v3);
        quad += quad_step;
    }
    let start = quad * UNROLL;
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
