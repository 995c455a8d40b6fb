//! The elementwise skeleton: a grid-stride loop over a flat index space, one index per thread
//! per step, so that any grid covers any `n` and consecutive threads touch consecutive elements
//! (coalesced). Maps, zips, generates, backpermutes and permutes are this loop with a fused body.

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
