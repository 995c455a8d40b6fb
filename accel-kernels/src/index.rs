//! Row-major index arithmetic: the one definition that the device kernels, the CPU backend
//! (`accel_runtime::shape`) and the interpreter all use (host-compilable, so that it is
//! unit-tested here). A shape is `[usize; R]`, the last dimension the innermost (contiguous) one;
//! an index lists its components in the same order.

/// The index of row-major position `i` of `shape` (for `i` inside `shape`; beyond it, the
/// outermost component takes the excess). Dimensions of extent 0 (an empty shape has no
/// positions) leave their component 0 rather than dividing by zero.
#[inline(always)]
pub fn unravel<const R: usize>(mut i: usize, shape: [usize; R]) -> [usize; R] {
    let mut ix = [0; R];
    let mut d = R;
    while d > 1 {
        d -= 1;
        if shape[d] != 0 {
            ix[d] = i % shape[d];
            i /= shape[d];
        }
    }
    if R > 0 {
        ix[0] = i;
    }
    ix
}

/// The row-major position of `ix` in `shape`.
#[inline(always)]
pub fn ravel<const R: usize>(shape: [usize; R], ix: [usize; R]) -> usize {
    let mut k = 0;
    let mut d = 0;
    while d < R {
        k = k * shape[d] + ix[d];
        d += 1;
    }
    k
}

/// Whether `ix` lies inside `shape`.
#[inline(always)]
pub fn contains<const R: usize>(shape: [usize; R], ix: [usize; R]) -> bool {
    let mut d = 0;
    while d < R {
        if ix[d] >= shape[d] {
            return false;
        }
        d += 1;
    }
    true
}

/// Whether the components of `ix` outside the bit mask `proved` (bit `d` for component `d`, below
/// 32) lie inside `shape`: [`contains`] of an index whose components in `proved` are known to.
#[inline(always)]
pub fn contains_unproved<const R: usize>(shape: [usize; R], ix: [usize; R], proved: u32) -> bool {
    let mut d = 0;
    while d < R {
        let known = d < 32 && proved >> d & 1 == 1;
        if !known && ix[d] >= shape[d] {
            return false;
        }
        d += 1;
    }
    true
}

/// The product of all dimensions but the innermost: the number of rows.
#[inline(always)]
pub fn outer<const R: usize>(shape: [usize; R]) -> usize {
    let mut k = 1;
    let mut d = 0;
    while d + 1 < R {
        k *= shape[d];
        d += 1;
    }
    k
}

/// An array of rank `R` as a kernel reads it (a `View` or a
/// [`Delayed`](crate::delayed::Delayed)): its shape, and the sizes that follow from it.
pub trait Shaped<const R: usize> {
    fn shape(&self) -> [usize; R];

    /// Number of elements (the product of the extents; 1 for rank 0).
    #[inline(always)]
    fn len(&self) -> usize {
        self.shape().iter().product()
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unravel_inverts_ravel() {
        let shape = [3, 1, 5];
        for i in 0..15 {
            let ix = unravel(i, shape);
            assert!(contains(shape, ix), "{ix:?}");
            assert_eq!(ravel(shape, ix), i);
        }
        assert!(!contains(shape, [3, 0, 0]) && !contains(shape, [0, 1, 0]) && !contains(shape, [0, 0, 5]));
        assert_eq!(unravel(7, [10]), [7]);
        assert_eq!(unravel(0, [4, 0, 2]), [0, 0, 0]);
        assert_eq!(unravel::<0>(0, []), []);
        assert_eq!(ravel::<0>([], []), 0);
        assert_eq!(outer([4, 5, 6]), 20);
        assert_eq!(outer([6]), 1);
    }
}
