//! The per-launch error context: checked reads and checked integer division for generated scalar
//! code, recording the first failure in the host's error slot (layout in [`crate::abi`]).
//!
//! A failure does not stop the kernel: the failing operation yields a zero/default value and the
//! kernel runs to its end, after which the host turns the slot into an `accel::Error`. A checked
//! read is straight-line up to its load: a read outside its array loads a zero from a static word
//! instead of branching, so the loads of a thread's elements (a row's gathers `x[col]` in a
//! sparse product, say) are in flight together, where a branch to an error path before each load
//! would make each wait for the one before. The slot is claimed with one compare-and-swap, so only
//! the first failure to reach it is recorded.
//!
//! Where a failure is written depends on the kernel, which the code generator chooses
//! (`accel_core::kernel::defers_failures`) as the context's `DEFER`:
//! - recorded where it happens (`Ctx<false>`), behind a branch that only a failing thread takes,
//!   after the load: nothing is carried through the kernel. For the skeletons whose registers a
//!   first failure carried through was measured to crowd: those holding many values at once (the
//!   segmented walks by ranges, whose reads are prefetched in batches, and a permute's scatter;
//!   the CSR product's ranges walk took 80 registers and spilled 8 bytes with it, 77 and none
//!   without, a radix sort's scatter 94 and 32);
//! - kept in registers until the kernel's end (`Ctx<true>`), chosen by selects, and written once
//!   by [`Ctx::flush`]: everywhere else, and wherever a closure loops (`iterate`, `while_loop`),
//!   where a branch at each checked operation would split the code between a thread's loads or
//!   a loop's rounds (N-body's force loop ran 33% slower with the branches).

use crate::abi::{code, site};
use crate::device;
use crate::elem::DeviceElem;
use crate::ops::Arith;
use crate::view::View;
use core::cell::Cell;

/// The words of a failure after its code, as the slot holds them: the site, the rank, three
/// index components, three shape components and a value.
const FAILURE_WORDS: usize = 9;

/// Where a kernel records its first error, and, when `DEFER`, the first failure of this thread
/// until the kernel's end (see the module documentation).
pub struct Ctx<const DEFER: bool> {
    slot: *mut u64,
    /// The code of the first failure, 0 while there is none (used only when `DEFER`).
    code: Cell<u32>,
    /// Its words ([`FAILURE_WORDS`]; used only when `DEFER`).
    words: Cell<[u64; FAILURE_WORDS]>,
}

impl<const DEFER: bool> Ctx<DEFER> {
    /// # Safety
    /// `slot` points to the launch's zeroed error slot of `ERROR_SLOT_WORDS` words in global memory.
    #[inline(always)]
    pub unsafe fn new(slot: *mut u64) -> Ctx<DEFER> {
        Ctx { slot, code: Cell::new(0), words: Cell::new([0; FAILURE_WORDS]) }
    }

    /// `a[ix]`, or `E::zero()` after recording `INDEX_OUT_OF_BOUNDS` at site `INDEX`.
    #[inline(always)]
    pub fn read<E: DeviceElem, const R: usize>(&self, a: &View<E, R>, ix: [usize; R]) -> E {
        self.read_at(site::INDEX, a, ix)
    }

    /// `a[ix]`, or `E::zero()` after recording `INDEX_OUT_OF_BOUNDS` at `site`. No branch before
    /// the load: an index outside reads element 0 of zeros ([`DeviceElem::or_zeros`]).
    #[inline(always)]
    pub fn read_at<E: DeviceElem, const R: usize>(&self, site: u64, a: &View<E, R>, ix: [usize; R]) -> E {
        let mut inside = true;
        let mut linear = 0;
        for (&i, &n) in ix.iter().zip(&a.shape) {
            inside &= i < n;
            linear = linear * n + i;
        }
        let linear = if inside { linear } else { 0 };
        // SAFETY: inside the shape, `linear < a.len()`; outside, element 0 of the zeros.
        let v = unsafe { E::load(E::or_zeros(a.ptr, inside), linear) };
        self.fail_if(!inside, code::INDEX_OUT_OF_BOUNDS, site, &ix, &a.shape, 0);
        v
    }

    /// Whether `ix` is inside `shape`; if not, records `INDEX_OUT_OF_BOUNDS` at `site` (the read
    /// of a fused, delayed array).
    #[inline(always)]
    pub fn check_index<const R: usize>(&self, site: u64, ix: [usize; R], shape: [usize; R]) -> bool {
        let inside = ix.iter().zip(&shape).all(|(i, n)| i < n);
        self.fail_if(!inside, code::INDEX_OUT_OF_BOUNDS, site, &ix, &shape, 0);
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

    /// Records an error: at once, unless the slot is claimed already, or (when `DEFER`) unless
    /// this thread has one already, written by [`Ctx::flush`]. `index` and `shape` hold at most 3
    /// components (more are dropped); the rank recorded is `index.len()`.
    #[inline(always)]
    pub fn fail(&self, code: u32, site: u64, index: &[usize], shape: &[usize], value: u64) {
        self.fail_if(true, code, site, index, shape, value);
    }

    /// [`Ctx::fail`] where `failed`: recorded at once, behind a branch, or (when `DEFER`) chosen
    /// by selects and kept in registers until [`Ctx::flush`].
    #[inline(always)]
    fn fail_if(&self, failed: bool, code: u32, site: u64, index: &[usize], shape: &[usize], value: u64) {
        let at = |s: &[usize], k: usize| s.get(k).map_or(0, |&x| x as u64);
        let (i0, i1, i2) = (at(index, 0), at(index, 1), at(index, 2));
        let (s0, s1, s2) = (at(shape, 0), at(shape, 1), at(shape, 2));
        let new = [site, index.len() as u64, i0, i1, i2, s0, s1, s2, value];
        if !DEFER {
            if failed {
                write_failure(self.slot, code, new);
            }
            return;
        }
        let first = failed & (self.code.get() == 0);
        let old = self.words.get();
        self.code.set(if first { code } else { self.code.get() });
        self.words.set(core::array::from_fn(|k| if first { new[k] } else { old[k] }));
    }

    /// Writes this thread's first failure, if one is kept, to the slot unless another thread's is
    /// there already (a context that does not defer has written its failures already). Generated
    /// kernels call it once, at their end.
    #[inline(always)]
    pub fn flush(&self) {
        let code = self.code.get();
        if DEFER && code != 0 {
            let [site, rank, i0, i1, i2, s0, s1, s2, value] = self.words.get();
            write_failure_cold(self.slot, code, site, rank, i0, i1, i2, s0, s1, s2, value);
        }
    }
}

/// The cold path of [`Ctx::flush`]: [`write_failure`] out of line, given the words as scalars, so
/// that no `Ctx` and no array needs an address (the failure stays in registers until here; an
/// array argument would be passed through memory).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn write_failure_cold(
    slot: *mut u64,
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
    write_failure(slot, code, [site, rank, i0, i1, i2, s0, s1, s2, value]);
}

/// Claims the slot for `code` and writes the failure's words there, unless another failure has
/// claimed it. Inlined where a failure is recorded at once: a call there would make every value
/// live across it obey the call's register conventions, on the hot path too.
#[inline(always)]
fn write_failure(slot: *mut u64, code: u32, words: [u64; FAILURE_WORDS]) {
    // SAFETY: `Ctx::new`'s contract: the slot is valid for ERROR_SLOT_WORDS words. Word 0's low
    // half (little-endian) is claimed once; only the winner writes the other words, and the host
    // reads them after the kernel has finished.
    unsafe {
        // A slot claimed already is seen with a load, not an atomic: where every element fails,
        // a kernel recording failures where they happen would queue one atomic an element on
        // this word. The load is a strong one, as the word is written by other threads' atomics.
        let claim = slot.cast::<u32>();
        if device::load_relaxed32(claim) != 0 || device::cas32(claim, 0, code) != 0 {
            return;
        }
        for (k, word) in words.into_iter().enumerate() {
            slot.add(1 + k).write(word);
        }
    }
}
