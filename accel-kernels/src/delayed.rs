//! Delayed arrays: an operand that fusion left as a function of the index (a `generate` the host
//! never ran), computed in place wherever the kernel reads it. A `Delayed` has the methods of
//! `View` that kernels read operands with ([`Shaped`], `get_linear`, `at`, and `prefetch_l2`,
//! which does nothing here),
//! so that one generated kernel body serves both. Host-compilable, for the unit tests.

use crate::index::{Shaped, unravel};

/// A rank-`R` array whose element at `ix` is `f(ix)`.
#[derive(Clone, Copy)]
pub struct Delayed<F, const R: usize> {
    pub shape: [usize; R],
    pub f: F,
}

impl<F, const R: usize> Shaped<R> for Delayed<F, R> {
    #[inline(always)]
    fn shape(&self) -> [usize; R] {
        self.shape
    }
}

impl<F, const R: usize> Delayed<F, R> {
    /// Element `i` in row-major order. Unlike a view's, this read is safe at any `i`: `f` checks
    /// its own reads.
    #[inline(always)]
    pub fn get_linear<E>(&self, i: usize) -> E
    where
        F: Fn([usize; R]) -> E,
    {
        (self.f)(unravel(i, self.shape))
    }

    /// Nothing: a delayed array is computed where it is read, from reads of its own (which a
    /// kernel does not see from here). Kept so that one kernel body serves views and delayed
    /// operands ([`crate::view::View::prefetch_l2`]).
    #[inline(always)]
    pub fn prefetch_l2(&self, _lo: usize, _hi: usize) {}

    /// The element at `ix`: the closure called directly, without a round trip through the
    /// linear position.
    #[inline(always)]
    pub fn at<E>(&self, ix: [usize; R]) -> E
    where
        F: Fn([usize; R]) -> E,
    {
        (self.f)(ix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::ravel;

    #[test]
    fn reads_agree_with_the_manifest_array() {
        let shape = [3, 4];
        let f = |ix: [usize; 2]| (ix[0] * 10 + ix[1]) as i64;
        let d = Delayed { shape, f };
        let manifest: std::vec::Vec<i64> = (0..12).map(|i| f(unravel(i, shape))).collect();
        assert_eq!(d.len(), 12);
        for (i, &x) in manifest.iter().enumerate() {
            assert_eq!(d.get_linear::<i64>(i), x);
            assert_eq!(d.at::<i64>(unravel(i, shape)), manifest[ravel(shape, unravel(i, shape))]);
        }
        let unit = Delayed { shape: [], f: |_: [usize; 0]| (1.5f32, true) };
        assert_eq!((unit.len(), unit.get_linear::<(f32, bool)>(0)), (1, (1.5, true)));
        assert!(Delayed { shape: [0, 5], f }.is_empty());
    }
}
