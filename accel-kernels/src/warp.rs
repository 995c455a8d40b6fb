//! Warp-level building blocks of `reduce` and `scan`: a tile's per-lane items, and the in-order
//! reduction and inclusive scan of one value per lane.
//!
//! A tile is TILE consecutive positions of a sequence; lane `l` owns positions
//! `l * ITEMS .. (l + 1) * ITEMS` (a blocked arrangement, so that a lane folds consecutive items
//! and operand order is kept without shared memory). Lanes that hold no value are left out by a
//! warp-uniform mask `has`: the operator is only ever applied to real values, since a user's
//! operator may record an error (a checked division, an indexed read) on garbage. Both warp
//! operations take 5 shuffle steps per 32-bit word of the element.

use crate::abi::{ITEMS, TILE, WARP};
use crate::device::{self, FULL_MASK};
use crate::elem::DeviceElem;

/// Lanes `lo..hi` as a bit mask (`lo <= hi <= 32`).
#[inline(always)]
pub fn lanes(lo: u32, hi: u32) -> u32 {
    ((1u64 << hi) - (1u64 << lo)) as u32
}

/// How many of this lane's ITEMS positions lie in a tile of `rem` valid positions.
#[inline(always)]
pub fn lane_items(lane: u32, rem: usize) -> usize {
    rem.saturating_sub(lane as usize * ITEMS).min(ITEMS)
}

/// The lanes that own at least one of a tile's `rem` valid positions (a prefix of the warp).
#[inline(always)]
pub fn lanes_with_items(rem: usize) -> u32 {
    if rem >= TILE { FULL_MASK } else { lanes(0, rem.div_ceil(ITEMS) as u32) }
}

/// The first `n` items of this lane from `get(j)`, all issued before any is combined; the rest
/// are zero.
#[inline(always)]
pub fn load_items<T: DeviceElem>(n: usize, get: impl Fn(usize) -> T) -> [T; ITEMS] {
    core::array::from_fn(|j| if j < n { get(j) } else { T::zero() })
}

/// `xs[0] ⊕ ... ⊕ xs[n - 1]` (meaningless when `n == 0`).
#[inline(always)]
pub fn fold_items<T: Copy>(xs: &[T; ITEMS], n: usize, combine: &impl Fn(T, T) -> T) -> T {
    let mut acc = xs[0];
    for (j, &x) in xs.iter().enumerate().skip(1) {
        if j < n {
            acc = combine(acc, x);
        }
    }
    acc
}

/// `a ⊕ b` where either side may be absent.
#[inline(always)]
pub fn cat<T: Copy>(a: Option<T>, b: Option<T>, combine: &impl Fn(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(combine(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// In-order reduction of one value per lane over the lanes in `has` (warp-uniform): lane 0
/// receives `v_i ⊕ v_j ⊕ ...` for `i < j < ...` in `has` (meaningless when `has == 0`).
/// All 32 lanes must call it.
///
/// Step `d` combines the value of lane `l` (a multiple of `2d`, covering lanes `l..l+d`) with
/// that of lane `l + d` (covering `l+d..l+2d`), left operand first.
#[inline(always)]
pub fn reduce<T: DeviceElem>(v: T, has: u32, combine: &impl Fn(T, T) -> T) -> T {
    reduce_groups(v, has, WARP, combine)
}

/// [`reduce`] within each aligned group of `width` lanes (a power of two up to 32): the first
/// lane of each group receives the in-order combination of the group's lanes in `has`. All 32
/// lanes must call it with the same `width`.
#[inline(always)]
pub fn reduce_groups<T: DeviceElem>(mut v: T, has: u32, width: usize, combine: &impl Fn(T, T) -> T) -> T {
    let lane = device::lane();
    let mut d = 1;
    while d < width as u32 {
        let other = v.shfl_down(d);
        if lane.is_multiple_of(2 * d) && has & lanes(lane + d, lane + 2 * d) != 0 {
            v = if has & lanes(lane, lane + d) != 0 { combine(v, other) } else { other };
        }
        d *= 2;
    }
    v
}

/// In-order inclusive scan of one value per lane over the lanes in `has` (warp-uniform): lane
/// `l` receives the combination of the values of the lanes `0..=l` in `has` (meaningless when
/// there are none). All 32 lanes must call it.
///
/// Kogge-Stone: before step `d`, lane `l` covers lanes `l+1-d..=l` (clipped at 0); it takes the
/// value of lane `l - d`, which covers `l+1-2d..=l-d`, as the left operand.
#[inline(always)]
pub fn scan_inclusive<T: DeviceElem>(mut v: T, has: u32, combine: &impl Fn(T, T) -> T) -> T {
    let lane = device::lane();
    let mut d = 1;
    while d < WARP as u32 {
        let other = v.shfl_up(d);
        if lane >= d && has & lanes((lane + 1).saturating_sub(2 * d), lane + 1 - d) != 0 {
            v = if has & lanes(lane + 1 - d, lane + 1) != 0 { combine(other, v) } else { other };
        }
        d *= 2;
    }
    v
}
