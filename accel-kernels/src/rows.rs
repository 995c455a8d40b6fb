//! How reductions and scans see their input: rows of a flat index space, each split into `parts`
//! contiguous chunks so that long rows spread over many warps and short rows take one each.
//!
//! A row is a half-open range of flat element indices. `Uniform` rows are the innermost
//! dimension of a regular array; `Segmented` rows are the segments of a nested array, repeated
//! for every `outer` index of a batch of `row_len` values (segmented operations over the
//! innermost dimension of a rank-2 array of nested rows).

use crate::abi::TILE;
use crate::elem::DeviceElem;

/// Rows of a flat index space.
pub trait Rows: Copy {
    /// Number of rows.
    fn count(&self) -> usize;
    /// Row `row` as `(start, end)` flat indices, for `row < count()`.
    fn bounds(&self, row: usize) -> (usize, usize);
    /// The number of elements in all rows.
    fn elements(&self) -> usize;
}

/// `rows` rows of `len` elements each: row `r` is `[r * len, (r + 1) * len)`.
#[derive(Clone, Copy)]
pub struct Uniform {
    pub rows: usize,
    pub len: usize,
}

impl Rows for Uniform {
    #[inline(always)]
    fn count(&self) -> usize {
        self.rows
    }

    #[inline(always)]
    fn bounds(&self, row: usize) -> (usize, usize) {
        (row * self.len, (row + 1) * self.len)
    }

    #[inline(always)]
    fn elements(&self) -> usize {
        self.rows * self.len
    }
}

/// Segments repeated over an outer index: row `r = o * segments + s` is
/// `o * row_len + [offsets[s], offsets[s + 1])`. `offsets` holds `segments + 1` ascending values
/// in global memory, the last at most `row_len`.
#[derive(Clone, Copy)]
pub struct Segmented {
    pub offsets: *const usize,
    pub segments: usize,
    pub outer: usize,
    pub row_len: usize,
}

impl Rows for Segmented {
    #[inline(always)]
    fn count(&self) -> usize {
        self.outer * self.segments
    }

    #[inline(always)]
    fn bounds(&self, row: usize) -> (usize, usize) {
        let (o, s) = (row / self.segments, row % self.segments);
        let base = o * self.row_len;
        let offsets = self.offsets.cast_mut();
        // SAFETY: `row < count()` gives `s < segments`, and the host passed `segments + 1` offsets.
        let (start, end) = unsafe { (usize::load(offsets, s), usize::load(offsets, s + 1)) };
        (base + start, base + end)
    }

    #[inline(always)]
    fn elements(&self) -> usize {
        if self.segments == 0 {
            return 0;
        }
        let offsets = self.offsets.cast_mut();
        // SAFETY: the host passed `segments + 1` offsets.
        let (first, last) = unsafe { (usize::load(offsets, 0), usize::load(offsets, self.segments)) };
        self.outer * (last - first)
    }
}

/// The `part`-th of `parts` contiguous chunks of [start, end): every chunk but the last has a
/// length that is a multiple of TILE (chunk = round_up(ceil(len / parts), TILE)); chunks past
/// the end are empty.
#[inline(always)]
pub fn chunk(start: usize, end: usize, part: usize, parts: usize) -> (usize, usize) {
    let len = end - start;
    let size = len.div_ceil(parts.max(1)).next_multiple_of(TILE);
    let lo = start + part.saturating_mul(size).min(len);
    let hi = lo + size.min(end - lo);
    (lo, hi)
}
