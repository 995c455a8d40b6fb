//! Searches over ascending offsets, the one definition of "which source produced output `k`"
//! for `expand` and its fusion with `permute` (and of "which row holds value `k`" for the
//! segmented walks), compiled for the host too so that tests check them against linear searches.
//!
//! Sources `0..n` produce outputs `offsets[s]..offsets[s + 1]` (`offsets` ascending, `offsets[0]
//! = 0`, `n + 1` entries; a source with no output has equal consecutive offsets).

use crate::abi::WARP;

/// The last `i < len` with `at(i) <= k`, for `at` ascending and `at(0) <= k` (0 when `len <= 1`).
/// Over offsets this is the source of output `k`: sources with no output are skipped, since the
/// last of a run of equal offsets is the one whose outputs follow.
///
/// A plain loop, not an unrolled one: an unrolled search of `ceil(log2 len)` fixed steps is
/// right only when every step halves a power-of-two range, and missed the top entries otherwise
/// in the thesis's listings.
#[inline(always)]
pub fn last_at_most(len: usize, at: impl Fn(usize) -> usize, k: usize) -> usize {
    // Invariant: at(lo) <= k, and the answer lies in lo..hi.
    let (mut lo, mut hi) = (0, len.max(1));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if at(mid) <= k {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// [`last_at_most`] for `len <= WARP` (32), in five fixed steps of binary lifting (16, 8, 4, 2,
/// 1, each kept while `at` stays at most `k`), for the lanes of a warp searching together: `at` is
/// called exactly five times, each time with an index below `WARP` (past `len - 1` when the step
/// overshoots, its value then unused), so it may be a shuffle from the lane holding that entry.
#[inline(always)]
pub fn last_at_most_in_warp(len: usize, at: impl Fn(usize) -> usize, k: usize) -> usize {
    let mut i = 0;
    let mut step = WARP / 2;
    while step > 0 {
        let probe = i + step;
        let value = at(probe.min(WARP - 1));
        if probe < len && value <= k {
            i = probe;
        }
        step /= 2;
    }
    i
}

/// The merge-path split of diagonal `d`: in the sequence that merges the outputs `0..total`
/// with the ends of the sources `0..n` (output `k` before the end of source `s` exactly when
/// `k < offsets[s + 1]`), the number of source ends among the first `d` items. The other `d - a`
/// are outputs `0..d - a`. It is the largest `a <= min(d, n)` with `offsets[a] + a <= d`.
///
/// Cutting the merged sequence into equal tiles gives every tile the same number of sources plus
/// outputs, however the counts are distributed: a source with a huge count spreads over many
/// tiles, a run of sources with none over few.
#[inline(always)]
pub fn merge_path(d: usize, n: usize, offsets: impl Fn(usize) -> usize) -> usize {
    // Invariant: offsets(lo) + lo <= d (true for 0), and the answer lies in lo..=hi.
    let (mut lo, mut hi) = (0, d.min(n));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if offsets(mid) + mid <= d {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// Offsets of `n` sources with counts from a small generator: runs of empty sources, short and
    /// long counts.
    fn offsets(n: usize, seed: u64) -> Vec<usize> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut out = Vec::with_capacity(n + 1);
        out.push(0);
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let count = match x % 8 {
                0..=2 => 0,
                3..=5 => (x >> 8) as usize % 4,
                6 => (x >> 8) as usize % 40,
                _ => (x >> 8) as usize % 700,
            };
            out.push(out.last().unwrap() + count);
        }
        out
    }

    #[test]
    fn last_at_most_equals_a_linear_search_for_every_length_up_to_1100() {
        for len in 1..=1100 {
            let o = offsets(len, len as u64);
            let at = |i: usize| o[i];
            for k in 0..=o[len - 1] + 1 {
                let linear = (0..len).rev().find(|&i| o[i] <= k).unwrap();
                assert_eq!(last_at_most(len, at, k), linear, "len {len}, k {k}");
            }
        }
    }

    #[test]
    fn the_warp_search_equals_last_at_most_for_every_length_up_to_a_warp() {
        for len in 1..=WARP {
            for seed in 0..20 {
                let o = offsets(len, seed * 33 + len as u64);
                let calls = core::cell::Cell::new(0);
                let at = |i: usize| {
                    assert!(i < WARP, "len {len}: index {i}");
                    calls.set(calls.get() + 1);
                    o.get(i).copied().unwrap_or(usize::MAX)
                };
                for k in o[0]..=o[len - 1] + 1 {
                    calls.set(0);
                    assert_eq!(last_at_most_in_warp(len, at, k), last_at_most(len, |i| o[i], k), "len {len}, k {k}");
                    assert_eq!(calls.get(), 5);
                }
            }
        }
    }

    #[test]
    fn the_source_of_every_output_is_the_one_whose_range_holds_it() {
        for n in 1..=300 {
            let o = offsets(n, 7 * n as u64);
            for k in 0..o[n] {
                let s = last_at_most(n, |i| o[i], k);
                assert!(o[s] <= k && k < o[s + 1], "n {n}, k {k}: source {s}");
            }
        }
    }

    #[test]
    fn merge_path_equals_a_walk_of_the_merged_sequence_for_every_n_up_to_1100() {
        for n in 0..=1100 {
            let o = offsets(n, 3 * n as u64 + 1);
            let total = o[n];
            // Walk the merge: at (a, b), output b comes next while b < offsets[a + 1].
            let (mut a, mut b) = (0, 0);
            for d in 0..n + total {
                assert_eq!(merge_path(d, n, |i| o[i]), a, "n {n}, d {d}");
                if a < n && b < o[a + 1] {
                    b += 1;
                } else {
                    a += 1;
                }
            }
            assert_eq!((a, b), (n, total), "n {n}: the walk covers every item");
            assert_eq!(merge_path(n + total, n, |i| o[i]), n, "n {n}: the last diagonal");
        }
    }
}
