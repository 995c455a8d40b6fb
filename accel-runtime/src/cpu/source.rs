//! Sources: what the reductions, scans, `permute`, `stencil`, `expand` and `filter` read their
//! array operands from, either an [`Array`] or a [`Delayed`] array (a fused `generate`: fused
//! form 1 of `accel_core::fusion`), whose elements are computed where they are read and never
//! stored.
//!
//! Skeletons read a source as runs in row-major order ([`Source::iter_range`]) or one element at
//! a time ([`Source::get_at`], which is given both the linear position and the index so that an
//! array reads by position and a delayed array calls its closure with the index, neither
//! converting one into the other). Each skeleton takes its operand's [`Source::view`] once, so
//! that an array's storage is looked up once per call, and over an array the runs are the
//! columns' own slice iterators: the manifest path compiles to what it did before sources
//! existed.
//!
//! ```
//! use accel_runtime::cpu::{self, Ctx, Delayed};
//! use accel_runtime::Vector;
//!
//! let cx = Ctx::new();
//! let xs = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
//! let ys = Vector::from_vec(vec![4.0f32, 5.0, 6.0]);
//! // A dot product with the products computed inside the fold: no array in between.
//! let products = Delayed::new([3], |[i]: [usize; 1]| xs.get_linear(i) * ys.get_linear(i))?;
//! assert_eq!(cpu::fold_all(&cx, &products, Some(0.0), |a, b| a + b, "fold_all")?.get(), 32.0);
//! # Ok::<(), accel_runtime::Error>(())
//! ```

use super::par::{alloc_len, par_build_indexed};
use crate::array::Array;
use crate::elem::{Columns, Elem};
use crate::shape;
use accel_core::Result;
use std::ops::Range;

/// An array operand of a skeleton: a shape and an element at each index of it.
pub trait Source<E: Elem, const R: usize>: Sync {
    /// The elements of a run, in either direction.
    type Iter<'a>: DoubleEndedIterator<Item = E> + ExactSizeIterator
    where
        Self: 'a;

    fn shape(&self) -> [usize; R];

    /// Number of elements.
    fn len(&self) -> usize {
        shape::size(self.shape())
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at row-major position `i`, whose index is `ix`. Panics if `i >= len()`.
    fn get_at(&self, i: usize, ix: [usize; R]) -> E;

    /// The element at row-major position `i`. Panics if `i >= len()`.
    fn get_linear(&self, i: usize) -> E {
        self.get_at(i, shape::unravel(i, self.shape()))
    }

    /// The elements of `range` of row-major positions. Panics if the range is outside
    /// `0..len()`.
    fn iter_range(&self, range: Range<usize>) -> Self::Iter<'_>;

    /// Every element, as owned columns: a copy of an array, the elements of a delayed array
    /// computed in parallel (`Error::OutOfHostMemory` where they do not fit).
    fn to_columns(&self) -> Result<E::Columns>;

    /// The source as a skeleton reads it, taken once per call: an array's storage is looked
    /// up here once rather than at every read.
    fn view(&self) -> impl Source<E, R> + Copy + '_;
}

impl<E: Elem, const R: usize> Source<E, R> for Array<E, R> {
    type Iter<'a> = <E::Columns as Columns<E>>::Iter<'a>;

    #[inline]
    fn shape(&self) -> [usize; R] {
        Array::shape(self)
    }

    #[inline]
    fn get_at(&self, i: usize, _: [usize; R]) -> E {
        self.columns().get(i)
    }

    #[inline]
    fn get_linear(&self, i: usize) -> E {
        self.columns().get(i)
    }

    #[inline]
    fn iter_range(&self, range: Range<usize>) -> Self::Iter<'_> {
        self.columns().iter_range(range)
    }

    fn to_columns(&self) -> Result<E::Columns> {
        Ok(self.columns().clone())
    }

    #[inline]
    fn view(&self) -> impl Source<E, R> + Copy + '_ {
        ArrayView { shape: self.shape(), cols: self.columns() }
    }
}

/// An array's shape and columns, as skeletons read them.
struct ArrayView<'a, E: Elem, const R: usize> {
    shape: [usize; R],
    cols: &'a E::Columns,
}

impl<E: Elem, const R: usize> Clone for ArrayView<'_, E, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Elem, const R: usize> Copy for ArrayView<'_, E, R> {}

impl<E: Elem, const R: usize> Source<E, R> for ArrayView<'_, E, R> {
    type Iter<'b>
        = <E::Columns as Columns<E>>::Iter<'b>
    where
        Self: 'b;

    #[inline]
    fn shape(&self) -> [usize; R] {
        self.shape
    }

    #[inline]
    fn get_at(&self, i: usize, _: [usize; R]) -> E {
        self.cols.get(i)
    }

    #[inline]
    fn get_linear(&self, i: usize) -> E {
        self.cols.get(i)
    }

    #[inline]
    fn iter_range(&self, range: Range<usize>) -> Self::Iter<'_> {
        self.cols.iter_range(range)
    }

    fn to_columns(&self) -> Result<E::Columns> {
        Ok(self.cols.clone())
    }

    #[inline]
    fn view(&self) -> impl Source<E, R> + Copy + '_ {
        *self
    }
}

/// The array of `shape` whose element at `ix` is `f(ix)`, computed each time it is read.
///
/// Runs step the index rather than dividing it out of each position, as `generate` does, and
/// internal iteration (`fold`, `for_each`) goes a row of the innermost dimension at a time, with
/// no stepping inside a row. A delayed element that a skeleton reads twice (long scans,
/// `expand`, `filter`, stencils: see each skeleton) is computed twice; `f` records failures in
/// the call's `Ctx` like any other closure.
#[derive(Clone, Copy)]
pub struct Delayed<F, const R: usize> {
    shape: [usize; R],
    f: F,
}

impl<F, const R: usize> Delayed<F, R> {
    /// The delayed array of `shape`; an error exactly where `generate(shape, f)` would fail to
    /// allocate the array it stands for, so that fusion changes no result.
    pub fn new<E: Elem>(shape: [usize; R], f: F) -> Result<Self>
    where
        F: Fn([usize; R]) -> E + Sync,
    {
        alloc_len::<E, R>("generate", shape)?;
        Ok(Delayed { shape, f })
    }
}

impl<E: Elem, F: Fn([usize; R]) -> E + Sync, const R: usize> Source<E, R> for Delayed<F, R> {
    type Iter<'a>
        = DelayedIter<'a, F, R>
    where
        F: 'a;

    #[inline]
    fn shape(&self) -> [usize; R] {
        self.shape
    }

    #[inline]
    fn get_at(&self, _: usize, ix: [usize; R]) -> E {
        (self.f)(ix)
    }

    fn iter_range(&self, range: Range<usize>) -> DelayedIter<'_, F, R> {
        assert!(range.start <= range.end && range.end <= self.len(), "run {range:?} outside 0..{}", self.len());
        DelayedIter {
            f: &self.f,
            shape: self.shape,
            front: shape::unravel(range.start, self.shape),
            // The index after the run (at the end of the array, one past the outermost
            // dimension): stepping back from it gives the run's last index.
            back: shape::unravel(range.end, self.shape),
            left: range.len(),
        }
    }

    fn to_columns(&self) -> Result<E::Columns> {
        par_build_indexed(self.shape, |_, ix| (self.f)(ix))
    }

    #[inline]
    fn view(&self) -> impl Source<E, R> + Copy + '_ {
        // A closure that calls `f` itself, not a reference to it: a call through `&F` is a
        // shim that LLVM may leave out of line, with the element's whole body inlined into it
        // (a 256³ matrix product's delayed products were a call each; with this and
        // `Ctx::fail_with`, 100 ms became 44 on 2 cores).
        let f = &self.f;
        let element = {
            #[inline(always)]
            move |ix: [usize; R]| (*f)(ix)
        };
        Delayed { shape: self.shape, f: element }
    }
}

/// The elements of a run of a [`Delayed`] array.
pub struct DelayedIter<'a, F, const R: usize> {
    f: &'a F,
    shape: [usize; R],
    /// The index of the next element from the front.
    front: [usize; R],
    /// The index after the next element from the back.
    back: [usize; R],
    left: usize,
}

impl<E, F: Fn([usize; R]) -> E, const R: usize> Iterator for DelayedIter<'_, F, R> {
    type Item = E;

    #[inline]
    fn next(&mut self) -> Option<E> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let e = (self.f)(self.front);
        shape::step(self.shape, &mut self.front);
        Some(e)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }

    /// A run of the innermost dimension at a time, the index stepped only between runs.
    #[inline]
    fn fold<B, G: FnMut(B, E) -> B>(mut self, mut acc: B, mut g: G) -> B {
        if R == 0 {
            return match self.next() {
                Some(e) => g(acc, e),
                None => acc,
            };
        }
        let d = R - 1;
        while self.left > 0 {
            let run = (self.shape[d] - self.front[d]).min(self.left);
            let mut ix = self.front;
            for j in self.front[d]..self.front[d] + run {
                ix[d] = j;
                acc = g(acc, (self.f)(ix));
            }
            self.left -= run;
            self.front[d] += run - 1;
            shape::step(self.shape, &mut self.front);
        }
        acc
    }
}

impl<E, F: Fn([usize; R]) -> E, const R: usize> DoubleEndedIterator for DelayedIter<'_, F, R> {
    #[inline]
    fn next_back(&mut self) -> Option<E> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        step_back(self.shape, &mut self.back);
        Some((self.f)(self.back))
    }

    /// [`Iterator::fold`] from the back.
    #[inline]
    fn rfold<B, G: FnMut(B, E) -> B>(mut self, mut acc: B, mut g: G) -> B {
        if R == 0 {
            return match self.next_back() {
                Some(e) => g(acc, e),
                None => acc,
            };
        }
        let d = R - 1;
        while self.left > 0 {
            step_back(self.shape, &mut self.back);
            let run = (self.back[d] + 1).min(self.left);
            let mut ix = self.back;
            for j in (self.back[d] + 1 - run..=self.back[d]).rev() {
                ix[d] = j;
                acc = g(acc, (self.f)(ix));
            }
            self.left -= run;
            self.back[d] -= run - 1;
        }
        acc
    }
}

impl<E, F: Fn([usize; R]) -> E, const R: usize> ExactSizeIterator for DelayedIter<'_, F, R> {}

/// Moves `ix` to the previous index of a non-empty `shape` in row-major order (wrapping from
/// zeros to the last index).
#[inline]
fn step_back<const R: usize>(shape: [usize; R], ix: &mut [usize; R]) {
    for d in (0..R).rev() {
        if ix[d] > 0 {
            ix[d] -= 1;
            return;
        }
        ix[d] = shape[d] - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random element of an index.
    fn hash<const R: usize>(ix: [usize; R]) -> (i64, bool) {
        let h = ix.iter().fold(0x9e37_79b9_u64, |h, &i| (h ^ i as u64).wrapping_mul(0x0100_0000_01b3));
        ((h >> 7) as i64 % 1000 - 500, h & 1 == 0)
    }

    fn check_against_array<const R: usize>(shape: [usize; R]) {
        let a = Array::from_shape_fn(shape, hash);
        let d = Delayed::new(shape, hash).unwrap();
        let n = a.len();
        assert_eq!(Source::len(&d), n);
        assert_eq!(d.to_columns().unwrap(), *a.columns());
        let bounds = [0, 1.min(n), n / 3, n / 2, n.saturating_sub(1), n];
        for &s in &bounds {
            for &e in bounds.iter().filter(|&&e| e >= s) {
                let want: Vec<_> = a.iter_range(s..e).collect();
                assert_eq!(d.iter_range(s..e).collect::<Vec<_>>(), want, "{shape:?} {s}..{e}");
                let back: Vec<_> = d.iter_range(s..e).rev().collect();
                assert_eq!(back, want.iter().rev().copied().collect::<Vec<_>>(), "{shape:?} {s}..{e} reversed");
                // Both ends at once meet in the middle.
                let mut it = d.iter_range(s..e);
                let mut mixed = Vec::new();
                while let (Some(x), y) = (it.next(), it.next_back()) {
                    mixed.push(x);
                    mixed.extend(y);
                }
                assert_eq!(mixed.len(), e - s);
                // Folds from either end after reads from both.
                let mut it = d.iter_range(s..e);
                let (first, last) = (it.next(), it.next_back());
                let rest: Vec<_> = it.fold(Vec::new(), |mut v, x| {
                    v.push(x);
                    v
                });
                let inner = want.get(1..want.len().saturating_sub(1)).unwrap_or_default();
                assert_eq!((first, rest.as_slice()), (want.first().copied(), inner), "{shape:?} {s}..{e}");
                assert_eq!(last, if want.len() > 1 { want.last().copied() } else { None });
                let mut it = d.iter_range(s..e);
                it.next();
                it.next_back();
                let back = it.rfold(Vec::new(), |mut v, x| {
                    v.push(x);
                    v
                });
                assert_eq!(back, inner.iter().rev().copied().collect::<Vec<_>>(), "{shape:?} {s}..{e}");
            }
        }
        for i in (0..n).step_by(n / 7 + 1) {
            assert_eq!(d.get_linear(i), a.get_linear(i));
            assert_eq!(d.get_at(i, shape::unravel(i, shape)), a.get_at(i, [0; R]));
        }
    }

    #[test]
    fn delayed_arrays_read_like_arrays() {
        check_against_array([]);
        check_against_array([0]);
        check_against_array([1]);
        check_against_array([37]);
        check_against_array([5, 0]);
        check_against_array([7, 13]);
        check_against_array([1, 9]);
        check_against_array([3, 1, 11]);
        check_against_array([2, 0, 4]);
    }

    #[test]
    fn oversized_delayed_arrays_fail_like_generate() {
        let Err(e) = Delayed::new([usize::MAX, 3], |_| 0f32) else { panic!("a shape too large to allocate") };
        assert!(e.to_string().contains("generate"), "{e}");
        assert!(e.to_string().contains("too large"), "{e}");
        assert!(Delayed::new([usize::MAX / 16], |[i]: [usize; 1]| i as u8 == 0).is_ok());
    }
}
