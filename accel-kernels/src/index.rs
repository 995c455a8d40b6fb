//! Row-major index arithmetic shared by the views and the generated kernels (host-compilable, so
//! that it is unit-tested here).

/// The index of row-major position `i` of `shape` (for `i` inside `shape`; beyond it, the
/// outermost component takes the excess).
#[inline(always)]
pub fn unravel<const R: usize>(mut i: usize, shape: [usize; R]) -> [usize; R] {
    let mut ix = [0; R];
    let mut d = R;
    while d > 1 {
        d -= 1;
        ix[d] = i % shape[d];
        i /= shape[d];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unravel_inverts_ravel() {
        let shape = [3, 1, 5];
        for i in 0..15 {
            let ix = unravel(i, shape);
            assert!(ix.iter().zip(&shape).all(|(x, n)| x < n), "{ix:?}");
            assert_eq!(ravel(shape, ix), i);
        }
        assert_eq!(unravel(7, [10]), [7]);
        assert_eq!(unravel::<0>(0, []), []);
        assert_eq!(ravel::<0>([], []), 0);
    }
}
