//! Shapes and multi-dimensional indices of row-major arrays.
//!
//! A shape is `[usize; R]`; the last dimension is the innermost (contiguous) one.
//!
//! ```
//! use accel_runtime::shape;
//!
//! let sh = [2, 3];
//! assert_eq!(shape::size(sh), 6);
//! assert_eq!(shape::to_linear(sh, [1, 2]), 5);
//! assert_eq!(shape::from_linear(sh, 5), [1, 2]);
//! assert_eq!(shape::intersect([2, 3], [4, 1]), [2, 1]);
//! assert!(!shape::contains(sh, [2, 0]));
//! ```

/// Number of elements (1 for rank 0). Saturates at `usize::MAX`: no array that large exists,
/// so a saturated size never equals the length of real data.
pub fn size<const R: usize>(shape: [usize; R]) -> usize {
    shape.iter().fold(1usize, |acc, &d| acc.saturating_mul(d))
}

/// The exact number of elements, `None` on overflow.
pub fn checked_size<const R: usize>(shape: [usize; R]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Row-major linear position of `ix` (which must be inside `shape`).
#[inline]
pub fn to_linear<const R: usize>(shape: [usize; R], ix: [usize; R]) -> usize {
    let mut i = 0;
    for d in 0..R {
        i = i * shape[d] + ix[d];
    }
    i
}

/// The index at row-major linear position `i` (which must be below `size(shape)`).
#[inline]
pub fn from_linear<const R: usize>(shape: [usize; R], mut i: usize) -> [usize; R] {
    let mut ix = [0; R];
    for d in (0..R).rev() {
        if shape[d] > 0 {
            ix[d] = i % shape[d];
            i /= shape[d];
        }
    }
    ix
}

/// Per-dimension minimum: the shape of `zip_with`.
pub fn intersect<const R: usize>(a: [usize; R], b: [usize; R]) -> [usize; R] {
    std::array::from_fn(|d| a[d].min(b[d]))
}

/// Whether `ix` lies inside `shape`.
#[inline]
pub fn contains<const R: usize>(shape: [usize; R], ix: [usize; R]) -> bool {
    ix.iter().zip(shape).all(|(&i, n)| i < n)
}

/// Advances `ix` to the next index of `shape` in row-major order (wrapping to zeros at the end).
#[inline]
pub(crate) fn step<const R: usize>(shape: [usize; R], ix: &mut [usize; R]) {
    for d in (0..R).rev() {
        ix[d] += 1;
        if ix[d] < shape[d] {
            return;
        }
        ix[d] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_positions_round_trip() {
        let sh = [3, 4, 5];
        for i in 0..size(sh) {
            let ix = from_linear(sh, i);
            assert!(contains(sh, ix));
            assert_eq!(to_linear(sh, ix), i);
        }
    }

    #[test]
    fn step_walks_row_major_order() {
        let sh = [2, 3];
        let mut ix = [0, 0];
        for i in 1..6 {
            step(sh, &mut ix);
            assert_eq!(ix, from_linear(sh, i));
        }
    }

    #[test]
    fn sizes_of_rank_zero_empty_and_huge_shapes() {
        assert_eq!(size([]), 1);
        assert_eq!(size([0, 7]), 0);
        assert_eq!(size([usize::MAX, 2]), usize::MAX);
        assert_eq!(checked_size([usize::MAX, 2]), None);
        assert_eq!(checked_size([usize::MAX, 0]), Some(0));
        assert_eq!(from_linear([0, 3], 0), [0, 0]);
    }
}
