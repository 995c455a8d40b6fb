//! The per-launch error context: checked reads and checked integer division for generated scalar
//! code, recording the first failure in the host's error slot (layout in [`crate::abi`]).
//!
//! A failure does not stop the kernel: the failing operation yields a zero/default value and the
//! kernel runs to its end, after which the host turns the slot into an `accel::Error`. The slot
//! is claimed with one compare-and-swap, so only the first failure is recorded; the path is cold
//! and out of line so that it costs the hot loops nothing but a predicted branch.

use crate::abi::{code, site};
use crate::device;
use crate::elem::DeviceElem;
use crate::ops::Arith;
use crate::view::View;

/// Where a kernel records its first error.
#[derive(Clone, Copy)]
pub struct Ctx {
    slot: *mut u64,
}

impl Ctx {
    /// # Safety
    /// `slot` points to the launch's zeroed error slot of `ERROR_SLOT_WORDS` words in global memory.
    #[inline(always)]
    pub unsafe fn new(slot: *mut u64) -> Ctx {
        Ctx { slot }
    }

    /// `a[ix]`, or `E::zero()` after recording `INDEX_OUT_OF_BOUNDS` at site `INDEX`.
    #[inline(always)]
    pub fn read<E: DeviceElem, const R: usize>(&self, a: &View<E, R>, ix: [usize; R]) -> E {
        self.read_at(site::INDEX, a, ix)
    }

    /// `a[ix]`, or `E::zero()` after recording `INDEX_OUT_OF_BOUNDS` at `site`.
    #[inline(always)]
    pub fn read_at<E: DeviceElem, const R: usize>(&self, site: u64, a: &View<E, R>, ix: [usize; R]) -> E {
        let mut inside = true;
        let mut linear = 0;
        for (&i, &n) in ix.iter().zip(&a.shape) {
            inside &= i < n;
            linear = linear * n + i;
        }
        if inside {
            // SAFETY: every component is within its extent, so `linear < a.len()`.
            unsafe { a.get_linear(linear) }
        } else {
            self.fail(code::INDEX_OUT_OF_BOUNDS, site, &ix, &a.shape, 0);
            E::zero()
        }
    }

    /// Whether `ix` is inside `shape`; if not, records `INDEX_OUT_OF_BOUNDS` at `site` (the read
    /// of a fused, delayed array).
    #[inline(always)]
    pub fn check_index<const R: usize>(&self, site: u64, ix: [usize; R], shape: [usize; R]) -> bool {
        let inside = ix.iter().zip(&shape).all(|(i, n)| i < n);
        if !inside {
            self.fail(code::INDEX_OUT_OF_BOUNDS, site, &ix, &shape, 0);
        }
        inside
    }

    /// `a / b`, or the default after recording `DIVISION_BY_ZERO` (integer division by zero).
    #[inline(always)]
    pub fn div<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.div(b), code::DIVISION_BY_ZERO)
    }

    /// `a % b`, or the default after recording `REMAINDER_BY_ZERO` (integer remainder by zero).
    #[inline(always)]
    pub fn rem<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.rem(b), code::REMAINDER_BY_ZERO)
    }

    /// `a.div_euclid(b)`, or the default after recording `DIV_EUCLID_BY_ZERO`.
    #[inline(always)]
    pub fn div_euclid<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.div_euclid(b), code::DIV_EUCLID_BY_ZERO)
    }

    /// `a.rem_euclid(b)`, or the default after recording `REM_EUCLID_BY_ZERO`.
    #[inline(always)]
    pub fn rem_euclid<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.rem_euclid(b), code::REM_EUCLID_BY_ZERO)
    }

    /// The result of a division, or the default after recording `code` (a zero divisor).
    #[inline(always)]
    fn quotient<T: Default>(&self, q: Option<T>, code: u32) -> T {
        match q {
            Some(q) => q,
            None => {
                self.fail(code, site::INDEX, &[], &[], 0);
                T::default()
            }
        }
    }

    /// Records an error unless one is recorded already. `index` and `shape` hold at most 3
    /// components (more are dropped); the rank recorded is `index.len()`.
    ///
    /// Inlined so that the components travel as scalars: a slice passed to an out-of-line
    /// function would make every caller keep its index array in local memory, on the hot path.
    #[inline(always)]
    pub fn fail(&self, code: u32, site: u64, index: &[usize], shape: &[usize], value: u64) {
        let at = |s: &[usize], k: usize| s.get(k).map_or(0, |&x| x as u64);
        let (i0, i1, i2) = (at(index, 0), at(index, 1), at(index, 2));
        let (s0, s1, s2) = (at(shape, 0), at(shape, 1), at(shape, 2));
        self.record(code, site, index.len() as u64, i0, i1, i2, s0, s1, s2, value);
    }

    /// The cold path of [`Ctx::fail`].
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        code: u32,
        site: u64,
        rank: u64,
        i0: u64,
        i1: u64,
        i2: u64,
        s0: u64,
        s1: u64,
        s2: u64,
        value: u64,
    ) {
        // SAFETY: `new`'s contract: the slot is valid for ERROR_SLOT_WORDS words. Word 0's low half
        // (little-endian) is claimed once; only the winner writes the other words, and the host
        // reads them after the kernel has finished.
        unsafe {
            if device::cas32(self.slot.cast::<u32>(), 0, code) != 0 {
                return;
            }
            for (k, word) in [site, rank, i0, i1, i2, s0, s1, s2, value].into_iter().enumerate() {
                self.slot.add(1 + k).write(word);
            }
        }
    }
}
