//! The CPU backend: one rayon skeleton per combinator that is not a producer (producers are
//! lowered to a `generate` by `accel_core::fusion::producers`), instantiated by generated code
//! with the fused element functions as closures (DESIGN.md §3, "Codegen").
//!
//! Every skeleton takes a [`Ctx`] first. Closures cannot return errors without slowing the inner
//! loops, so an out-of-range read or a division by zero inside a closure is recorded in the
//! context (the first one wins) and the closure goes on with a default value; the skeleton
//! returns the recorded error once its parallel loop is done. Skeletons check their own
//! arguments (shapes, segments, counts) before starting and return those errors directly.
//!
//! The fused forms of `accel_core::fusion` run here too: the skeletons that may read a delayed
//! operand take any [`Source`] (an [`Array`], or a [`Delayed`] array computed where it is read),
//! and the reductions and scans have `_imap` forms ([`fold_imap`], [`scan_imap`], ...) that
//! apply an epilogue to each result as they write it.
//!
//! ```
//! use accel_runtime::cpu::{self, Ctx};
//! use accel_runtime::Vector;
//!
//! let cx = Ctx::new();
//! let xs = Vector::from_vec(vec![1, 2, 3, 4]);
//! let ys = cpu::generate(&cx, xs.shape(), |[i]| xs.get_linear(i) * 10)?;
//! let sum = cpu::fold_all(&cx, &ys, Some(0), |a, b| a + b, "sum")?;
//! assert_eq!(sum.get(), 100);
//! let out = cpu::generate(&cx, xs.shape(), |[i]| cx.read(&xs, [xs.get_linear(i) as usize]))
//!     .unwrap_err();
//! assert!(out.to_string().contains("index [4] is out of bounds for shape [4]"));
//! # Ok::<(), accel_runtime::Error>(())
//! ```

mod expand;
mod fold;
#[cfg(test)]
mod fused_tests;
mod map;
mod movement;
pub(crate) mod par;
mod permute;
mod scan;
mod segmented;
mod source;
mod stencil;

pub use expand::{expand, filter};
pub use fold::{fold, fold_all, fold_all_imap, fold_imap};
pub use map::generate;
pub use movement::{concat, reshape, slice};
pub use permute::{permute, permute_with_identity};
pub use scan::{scan, scan_imap, scan_total};
pub use segmented::{fold_seg, fold_seg_imap, scan_seg, scan_seg_imap};
pub use source::{Delayed, DelayedIter, Source};
pub use stencil::{Boundary, stencil};

use crate::array::Array;
use crate::elem::{Columns, ColumnsRef, Elem};
use crate::shape;
use accel_core::ops::Arith;
use accel_core::{Error, Result};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the closures of generated code read an array through: its shape and its elements.
pub trait Elements<E: Elem, const R: usize> {
    fn shape(&self) -> [usize; R];

    /// Element at row-major position `i < size(shape)`; panics past the end.
    fn get_linear(&self, i: usize) -> E;

    /// Element at `ix`, with no bounds check.
    ///
    /// # Safety
    /// `ix` lies inside the shape.
    unsafe fn element(&self, ix: [usize; R]) -> E;
}

impl<E: Elem, const R: usize> Elements<E, R> for &Array<E, R> {
    #[inline]
    fn shape(&self) -> [usize; R] {
        Array::shape(self)
    }

    #[inline]
    fn get_linear(&self, i: usize) -> E {
        Array::get_linear(self, i)
    }

    #[inline]
    unsafe fn element(&self, ix: [usize; R]) -> E {
        // SAFETY: the caller's `ix` inside the shape.
        unsafe { Array::element(self, ix) }
    }
}

/// An array as the closures of generated code capture it: its shape and its host columns,
/// found once, before the skeleton's loop. Reading an [`Array`] finds its columns on every
/// read (an array a GPU program made is downloaded on the first), a path that may write memory
/// and so keeps every load the closure makes inside the loop; reading a view of it lets them
/// leave the loop, and a loop of reads that fusion proves in bounds ([`View::element`])
/// vectorise.
///
/// ```
/// use accel_runtime::cpu::{Ctx, View};
/// use accel_runtime::Vector;
///
/// let xs = Vector::from_vec(vec![1, 2, 3]);
/// let v = View::of(&xs);
/// assert_eq!((v.shape(), v.len(), v.get_linear(2)), ([3], 3, 3));
/// // SAFETY: [1] lies inside the shape [3].
/// assert_eq!(unsafe { v.element([1]) }, 2);
/// assert_eq!(Ctx::new().read(v, [0]), 1);
/// ```
pub struct View<'a, E: Elem, const R: usize> {
    shape: [usize; R],
    /// The columns' slices by value: a read finds an element's column in one load.
    columns: <E::Columns as Columns<E>>::Ref<'a>,
}

impl<E: Elem, const R: usize> Clone for View<'_, E, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Elem, const R: usize> Copy for View<'_, E, R> {}

impl<'a, E: Elem, const R: usize> View<'a, E, R> {
    /// The view of `a` (downloading it first if a GPU program made it).
    #[inline]
    pub fn of(a: &'a Array<E, R>) -> Self {
        View { shape: a.shape(), columns: a.columns().as_ref() }
    }

    #[inline]
    pub fn shape(&self) -> [usize; R] {
        self.shape
    }

    #[inline]
    pub fn len(&self) -> usize {
        shape::size(self.shape)
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element at row-major position `i`; panics past the end.
    #[inline]
    pub fn get_linear(&self, i: usize) -> E {
        self.columns.get(i)
    }

    /// Element at `ix`, with no bounds check: the reads that fusion and flattening prove in
    /// bounds (`accel_core::ir::ReadSite::Elementwise`, `Flattened`), which generated code
    /// makes as device code does, with no error path and no check.
    ///
    /// # Safety
    /// `ix` lies inside the shape.
    #[inline]
    pub unsafe fn element(&self, ix: [usize; R]) -> E {
        debug_assert!(shape::contains(self.shape, ix), "an unchecked read at {ix:?} outside {:?}", self.shape);
        // SAFETY: the caller's `ix` inside the shape, whose size is the columns' length.
        unsafe { self.columns.get_unchecked(shape::ravel(self.shape, ix)) }
    }
}

impl<E: Elem> View<'_, E, 0> {
    /// The one element of a rank-0 array (a `Scalar`'s).
    #[inline]
    pub fn get(&self) -> E {
        self.columns.get(0)
    }
}

impl<E: Elem, const R: usize> Elements<E, R> for View<'_, E, R> {
    #[inline]
    fn shape(&self) -> [usize; R] {
        View::shape(self)
    }

    #[inline]
    fn get_linear(&self, i: usize) -> E {
        View::get_linear(self, i)
    }

    #[inline]
    unsafe fn element(&self, ix: [usize; R]) -> E {
        // SAFETY: the caller's `ix` inside the shape.
        unsafe { View::element(self, ix) }
    }
}

/// Per-call context: the first error raised inside a closure, recorded without unwinding.
///
/// ```
/// use accel_runtime::cpu::Ctx;
/// use accel_runtime::Error;
///
/// let cx = Ctx::new();
/// assert_eq!(cx.div(7, 2), 3);
/// assert_eq!(cx.rem(7, 0), 0); // recorded, and a default value goes on
/// cx.fail(Error::empty_reduction("later errors are dropped"));
/// assert_eq!(cx.check(), Err(Error::division_by_zero("%")));
/// assert_eq!(cx.check(), Ok(())); // taken
/// ```
#[derive(Debug, Default)]
pub struct Ctx {
    failed: AtomicBool,
    error: Mutex<Option<Error>>,
}

impl Ctx {
    pub fn new() -> Ctx {
        Ctx::default()
    }

    /// Records `e` unless an error is already recorded.
    #[cold]
    pub fn fail(&self, e: Error) {
        let mut slot = self.error.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            *slot = Some(e);
            self.failed.store(true, Ordering::Release);
        }
    }

    /// Whether an error has been recorded (cheap: one atomic load).
    #[inline]
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    /// Takes the recorded error, if any.
    pub fn check(&self) -> Result<()> {
        if !self.failed() {
            return Ok(());
        }
        let mut slot = self.error.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.failed.store(false, Ordering::Release);
        slot.take().map_or(Ok(()), Err)
    }

    /// `a[ix]`, or `E::default()` after recording `IndexOutOfBounds` (op `index`).
    #[inline]
    pub fn read<E: Elem, const R: usize>(&self, a: impl Elements<E, R>, ix: [usize; R]) -> E {
        self.read_in("index", a, ix)
    }

    /// Whether `ix` is inside `shape`; if not, records `IndexOutOfBounds` of `op` (the read of a
    /// fused, delayed array).
    #[inline]
    pub fn check_index<const R: usize>(&self, op: &str, ix: [usize; R], shape: [usize; R]) -> bool {
        self.check_inside(ix, shape, move || Error::index_out_of_bounds(op, &ix, &shape))
    }

    /// `a[ix]` written in the source as read `number` (see `accel_core::ir::ReadSite::Source`),
    /// or `E::default()` after recording `IndexOutOfBounds` of that read.
    #[inline]
    pub fn read_source<E: Elem, const R: usize>(&self, number: u32, a: impl Elements<E, R>, ix: [usize; R]) -> E {
        let inside = self.check_source_index(number, ix, a.shape());
        // SAFETY: `inside` is the check of `ix` against `a`'s shape.
        unsafe { element_or_default(inside, a, ix) }
    }

    /// [`Ctx::read_source`] of a read whose components in the bit mask `proved` (bit `d` for
    /// component `d`) the compiler proved inside `a` (`accel_core::ir::ReadSite::SourcePartly`):
    /// only the others are checked, and the element is then read without a check. In a loop over
    /// the proved components (a matrix product's `j` in `b[(p, j)]`), the check does not change
    /// from one element to the next and neighbouring reads vectorise.
    ///
    /// # Safety
    /// Every component of `ix` in `proved` lies inside the matching dimension of `a`.
    #[inline]
    pub unsafe fn read_source_within<E: Elem, const R: usize>(
        &self,
        number: u32,
        proved: u32,
        a: impl Elements<E, R>,
        ix: [usize; R],
    ) -> E {
        if self.check_source_index_within(number, proved, ix, a.shape()) {
            // SAFETY: the components outside `proved` were just checked, the others are the
            // caller's.
            unsafe { a.element(ix) }
        } else {
            E::default()
        }
    }

    /// [`Ctx::check_source_index`] of the components of `ix` not in the bit mask `proved`:
    /// whether they lie inside `shape` (recording the read's `IndexOutOfBounds` of the whole
    /// index if not).
    #[inline]
    pub fn check_source_index_within<const R: usize>(
        &self,
        number: u32,
        proved: u32,
        ix: [usize; R],
        shape: [usize; R],
    ) -> bool {
        // Inside on the others is inside; outside, the whole index is checked as any read's,
        // which records the error.
        shape::contains_unproved(shape, ix, proved) || self.check_source_index(number, ix, shape)
    }

    /// [`Ctx::check_index`] for the read `number` written in the source (of a fused, delayed
    /// array).
    #[inline]
    pub fn check_source_index<const R: usize>(&self, number: u32, ix: [usize; R], shape: [usize; R]) -> bool {
        self.check_inside(ix, shape, move || Error::index_out_of_bounds("index", &ix, &shape).at_read(number))
    }

    /// A read of `a` at `ix` on behalf of `op`, which names it when `ix` is out of range.
    #[inline]
    pub fn read_in<E: Elem, const R: usize>(&self, op: &str, a: impl Elements<E, R>, ix: [usize; R]) -> E {
        let inside = self.check_index(op, ix, a.shape());
        // SAFETY: `inside` is the check of `ix` against `a`'s shape.
        unsafe { element_or_default(inside, a, ix) }
    }

    /// Whether `ix` is inside `shape`; if not, records the error `outside` makes (only then).
    /// `outside` owns copies of what it needs (a `move` closure): one that borrowed the index and
    /// the shape kept them in memory, three stores on the stack per read on the hot path (a
    /// sparse product's `x[col]`).
    #[inline]
    fn check_inside<const R: usize>(&self, ix: [usize; R], shape: [usize; R], outside: impl FnOnce() -> Error) -> bool {
        let inside = shape::contains(shape, ix);
        if !inside {
            self.fail_with(outside);
        }
        inside
    }

    /// Records the error `outside` makes: out of line, so that a closure with checked reads
    /// stays small enough for the skeleton that calls it per element to inline it (the error's
    /// construction inlined into a matrix product's delayed products made each a call).
    #[cold]
    #[inline(never)]
    fn fail_with(&self, outside: impl FnOnce() -> Error) {
        self.fail(outside());
    }

    /// `a / b`, or the default after recording `DivisionByZero` (integer division by zero).
    #[inline]
    pub fn div<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.div(b), "/")
    }

    /// `a % b`, or the default after recording `DivisionByZero` (integer remainder by zero).
    #[inline]
    pub fn rem<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.rem(b), "%")
    }

    /// `a.div_euclid(b)`, or the default after recording `DivisionByZero`.
    #[inline]
    pub fn div_euclid<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.div_euclid(b), "div_euclid")
    }

    /// `a.rem_euclid(b)`, or the default after recording `DivisionByZero`.
    #[inline]
    pub fn rem_euclid<T: Arith + Default>(&self, a: T, b: T) -> T {
        self.quotient(a.rem_euclid(b), "rem_euclid")
    }

    /// The result of a division, or the default after recording `DivisionByZero` of `op`.
    #[inline]
    fn quotient<T: Default>(&self, q: Option<T>, op: &str) -> T {
        q.unwrap_or_else(|| {
            self.fail(Error::division_by_zero(op));
            T::default()
        })
    }
}

/// `a[ix]` if `inside`, else the default element.
///
/// # Safety
/// `inside` only if `ix` lies inside `a`'s shape. (Read with no second check: a bounds check of
/// the columns against their length, which the optimiser cannot tell equals the shape's size,
/// made a sparse product's gathers of `x[col]` compare twice and reload the length per value.)
#[inline]
unsafe fn element_or_default<E: Elem, const R: usize>(inside: bool, a: impl Elements<E, R>, ix: [usize; R]) -> E {
    // SAFETY: the caller's `inside`.
    if inside { unsafe { a.element(ix) } } else { E::default() }
}

/// Checks the `R1 == R - 1` relation of a skeleton that removes the innermost dimension.
fn check_rank_drop<const R: usize, const R1: usize>(op: &str) -> Result<()> {
    match R.checked_sub(1) {
        Some(r) if r == R1 => Ok(()),
        Some(r) => Err(Error::invalid_argument(op, format!("a rank-{R} input gives a rank-{r} result, not rank {R1}"))),
        None => Err(Error::invalid_argument(op, "a scalar (rank 0) has no dimension to reduce")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::Vector;

    #[test]
    fn first_error_wins_across_threads() {
        use rayon::prelude::*;
        let cx = Ctx::new();
        (0..1000).into_par_iter().for_each(|i| {
            if i % 7 == 3 {
                cx.fail(Error::division_by_zero("/"));
            }
        });
        assert!(cx.failed());
        assert_eq!(cx.check(), Err(Error::division_by_zero("/")));
        assert!(!cx.failed());
    }

    #[test]
    fn reads_are_checked() {
        let cx = Ctx::new();
        let v = Vector::from_vec(vec![5u32, 6]);
        assert_eq!(cx.read(&v, [1]), 6);
        assert!(cx.check().is_ok());
        assert_eq!(cx.read(&v, [2]), 0);
        assert_eq!(cx.check(), Err(Error::index_out_of_bounds("index", &[2], &[2])));
        assert_eq!(cx.div(1.0f32, 0.0), f32::INFINITY);
        assert_eq!(cx.div(i32::MIN, -1), i32::MIN);
        assert!(cx.check().is_ok());
    }

    #[test]
    fn partly_proved_reads_check_the_other_components() {
        let cx = Ctx::new();
        let m = crate::array::Matrix::from_shape_vec([2, 3], vec![1i64, 2, 3, 4, 5, 6]).unwrap();
        // Component 1 proved: component 0 is checked, with the error of the whole index.
        // SAFETY: column 2 lies inside the 3 columns.
        assert_eq!(unsafe { cx.read_source_within(4, 0b10, View::of(&m), [1, 2]) }, 6);
        assert!(cx.check().is_ok());
        // SAFETY: as above.
        assert_eq!(unsafe { cx.read_source_within(4, 0b10, &m, [2, 2]) }, 0);
        assert_eq!(cx.check(), Err(Error::index_out_of_bounds("index", &[2, 2], &[2, 3]).at_read(4)));
        // The proved component is not checked again; the others are, each.
        assert!(cx.check_source_index_within(0, 0b01, [1, 2], [2, 3]));
        assert!(!cx.check_source_index_within(0, 0b01, [1, 3], [2, 3]));
        assert!(cx.check().is_err());
        assert!(!cx.check_source_index_within(0, 0, [2, 0], [2, 3]));
        assert!(cx.check().is_err());
    }

    #[test]
    fn rank_drop_is_checked() {
        assert!(check_rank_drop::<2, 1>("fold").is_ok());
        let e = check_rank_drop::<2, 2>("fold").unwrap_err();
        assert!(e.to_string().contains("rank-1 result, not rank 2"), "{e}");
        assert!(check_rank_drop::<0, 0>("fold").is_err());
    }
}
