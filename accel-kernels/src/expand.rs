//! `expand` (and `filter`'s scatter): which source element produced output `k`, by binary search
//! over the ascending offsets of the sources' outputs (exclusive scan of their counts). Each
//! lookup reads O(log n) offsets; neighbouring threads search for neighbouring `k`, so the first
//! probes are shared through the cache.

use crate::elem::DeviceElem;

/// The largest s < n with offsets[s] <= k (offsets ascending, offsets[0] = 0; for k < offsets[n]).
/// Sources with no output (equal consecutive offsets) are skipped; 0 when `n == 0`.
///
/// # Safety
/// `offsets` holds at least `n` values in global memory.
#[inline(always)]
pub unsafe fn source_of(offsets: *const usize, n: usize, k: usize) -> usize {
    let offsets = offsets.cast_mut();
    // Invariant: offsets[lo] <= k, and the answer lies in lo..hi.
    let (mut lo, mut hi) = (0, n);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        // SAFETY: lo < mid < hi <= n.
        if unsafe { usize::load(offsets, mid) } <= k {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}
