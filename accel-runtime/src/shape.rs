//! Shapes and multi-dimensional indices of row-major arrays.
//!
//! A shape is `[usize; R]`; the last dimension is the innermost (contiguous) one.
//!
//! ```
//! use accel_runtime::shape;
//!
//! let sh = [2, 3];
//! assert_eq!(shape::size(sh), 6);
//! assert_eq!(shape::ravel(sh, [1, 2]), 5);
//! assert_eq!(shape::unravel(5, sh), [1, 2]);
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

/// Row-major positions and indices, and whether an index is inside a shape: the one definition
/// every backend uses.
pub use accel_kernels::index::{contains, contains_unproved, ravel, unravel};

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
            let ix = unravel(i, sh);
            assert!(contains(sh, ix));
            assert_eq!(ravel(sh, ix), i);
        }
    }

    #[test]
    fn step_walks_row_major_order() {
        let sh = [2, 3];
        let mut ix = [0, 0];
        for i in 1..6 {
            step(sh, &mut ix);
            assert_eq!(ix, unravel(i, sh));
        }
    }

    #[test]
    fn sizes_of_rank_zero_empty_and_huge_shapes() {
        assert_eq!(size([]), 1);
        assert_eq!(size([0, 7]), 0);
        assert_eq!(size([usize::MAX, 2]), usize::MAX);
        assert_eq!(checked_size([usize::MAX, 2]), None);
        assert_eq!(checked_size([usize::MAX, 0]), Some(0));
        assert_eq!(unravel(0, [0, 3]), [0, 0]);
    }
}
