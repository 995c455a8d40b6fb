//! Array elements and their structure-of-arrays storage.
//!
//! An element is a scalar (`bool i8 i16 i32 i64 u8 u16 u32 u64 usize f32 f64`) or a tuple of elements. Arrays
//! store elements column by column, as Accelerate does: a `Vector<(f32, i32)>` is a `Vec<f32>`
//! beside a `Vec<i32>`. That keeps every column a plain slice, so a reduction over `f32` runs
//! over a `&[f32]`, and a column can be copied to a device as it is.
//!
//! Storage is reached through [`Columns`] (read) and [`ColumnsMut`] (write a disjoint part).
//! Parallel skeletons allocate the result once, split its [`ColumnsMut`] view into disjoint
//! regions with [`ColumnsMut::split_at`] and fill the regions on different threads: no
//! per-element allocation and no locking. A skeleton that writes every element once, in order
//! (a `generate`, a `map`), splits a [`ColumnsFresh`] view of storage not yet written instead,
//! and so skips filling the result with a value first: a whole pass over its memory. The
//! `unsafe` operations are [`Columns::get_unchecked`], for the reads that fusion proves in
//! bounds, and [`Columns::commit_fresh`], once every fresh slot is written.

use crate::cpu::par::{chunk_len, is_long};
use accel_core::types::{ElemType, ScalarType};
use accel_core::value::{ElemValue, ScalarValue};
use rayon::prelude::*;
use std::borrow::Cow;
use std::fmt::Debug;
use std::mem::MaybeUninit;
use std::ops::Range;

/// A type that can be an array element.
///
/// ```
/// use accel_runtime::Elem;
/// use accel_core::types::{ElemType, ScalarType};
///
/// assert_eq!(f32::elem_type(), ElemType::Scalar(ScalarType::F32));
/// let v = (1.5f32, 7i32).to_value();
/// assert_eq!(<(f32, i32)>::from_value(&v), Some((1.5, 7)));
/// ```
pub trait Elem: Copy + Default + PartialEq + Debug + Send + Sync + 'static {
    /// Structure-of-arrays storage: `Vec<T>` for a scalar, a tuple of the parts' columns for
    /// tuples.
    type Columns: Columns<Self>;

    /// The element type in accel's type language.
    fn elem_type() -> ElemType;

    /// The element as a dynamic value (for the reference interpreter).
    fn to_value(self) -> ElemValue;

    /// The element from a dynamic value; `None` if the value has another type.
    fn from_value(v: &ElemValue) -> Option<Self>;
}

/// Column storage of elements of type `E`.
///
/// ```
/// use accel_runtime::Columns;
///
/// let cols = <(Vec<f32>, Vec<i32>)>::from_vec(vec![(1.0, 1), (2.0, 2)]);
/// assert_eq!(cols.0, vec![1.0, 2.0]);
/// assert_eq!(cols.get(1), (2.0, 2));
/// assert_eq!(cols.iter_range(0..2).rev().collect::<Vec<_>>(), vec![(2.0, 2), (1.0, 1)]);
/// ```
pub trait Columns<E>: Clone + Default + PartialEq + Debug + Send + Sync + 'static {
    /// Iterator over a range of elements, in either direction.
    type Iter<'a>: DoubleEndedIterator<Item = E> + ExactSizeIterator
    where
        Self: 'a;

    /// A mutable view of a contiguous part of the columns.
    type Mut<'a>: ColumnsMut<E>
    where
        Self: 'a;

    /// A writable view of storage reserved after the last element and not yet written
    /// ([`Columns::fresh`]).
    type Fresh<'a>: ColumnsFresh<E>
    where
        Self: 'a;

    /// A shared view of the columns held by value: a slice for a scalar, a tuple of the parts'
    /// views for a tuple. A closure that captures it reaches an element's column in one load
    /// (its pointer), where one that captures `&Self` reads the `Vec`'s pointer through it too.
    type Ref<'a>: ColumnsRef<E>
    where
        Self: 'a;

    /// Number of elements.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`. Panics if `i >= len` (callers check indices first).
    #[inline]
    fn get(&self, i: usize) -> E {
        self.as_ref().get(i)
    }

    /// Element `i`, with no bounds check: a loop of such reads has no exit but its own, so the
    /// compiler can vectorise it.
    ///
    /// # Safety
    /// `i < len`.
    #[inline]
    unsafe fn get_unchecked(&self, i: usize) -> E {
        // SAFETY: the caller's `i < len`, the view's length.
        unsafe { self.as_ref().get_unchecked(i) }
    }

    /// The columns' shared view ([`Columns::Ref`]).
    fn as_ref(&self) -> Self::Ref<'_>;

    fn from_vec(v: Vec<E>) -> Self;

    fn to_vec(&self) -> Vec<E> {
        self.iter_range(0..self.len()).collect()
    }

    /// `n` copies of `e`, or `Error::OutOfHostMemory` where the allocation fails. Long columns
    /// are filled by the thread pool; short all-zero ones are allocated zeroed, so untouched pages
    /// cost nothing.
    fn filled(n: usize, e: E) -> accel_core::Result<Self>;

    /// Empty columns with room for `n` elements, or `Error::OutOfHostMemory` where the
    /// allocation fails. Fill them through [`Columns::fresh`] and [`Columns::commit_fresh`].
    ///
    /// ```
    /// use accel_runtime::{Columns, ColumnsFresh};
    ///
    /// let mut cols = <(Vec<f32>, Vec<i32>)>::with_room(3).unwrap();
    /// let (mut head, mut tail) = cols.fresh(3).split_at(1);
    /// head.write_mapped(0, &[1], |k| (k as f32, k));
    /// tail.write_mapped(0, &[2, 3], |k| (k as f32 / 2.0, -k));
    /// // SAFETY: the three fresh slots were written, by the two halves.
    /// unsafe { cols.commit_fresh(3) };
    /// assert_eq!(cols.to_vec(), [(1.0, 1), (1.0, -2), (1.5, -3)]);
    /// ```
    fn with_room(n: usize) -> accel_core::Result<Self>;

    /// A view of the `n` slots after the last element, to be split into disjoint regions and
    /// written. Panics if the columns have no room for `n` more elements.
    fn fresh(&mut self, n: usize) -> Self::Fresh<'_>;

    /// Makes the `n` slots after the last element part of the columns.
    ///
    /// # Safety
    /// Every one of those slots was written through a view from [`Columns::fresh`].
    unsafe fn commit_fresh(&mut self, n: usize);

    /// The elements of `range`. Panics if the range is outside `0..len`.
    fn iter_range(&self, range: Range<usize>) -> Self::Iter<'_>;

    /// A mutable view of all elements, to be split into disjoint regions.
    fn view_mut(&mut self) -> Self::Mut<'_>;

    /// The bytes of each scalar column, in the order of the element type's leaves (what a
    /// device copy holds).
    fn leaf_bytes(&self) -> Vec<Cow<'_, [u8]>>;

    /// Columns from the bytes of each leaf column, in leaf order, as [`Columns::leaf_bytes`]
    /// gives them; `None` if a column has the wrong length or holds an invalid value.
    fn from_leaf_bytes(leaves: &mut dyn Iterator<Item = Vec<u8>>) -> Option<Self>;
}

/// The byte form of one scalar column.
trait ColumnBytes: Sized {
    fn to_bytes(v: &[Self]) -> Cow<'_, [u8]>;
    fn from_bytes(b: &[u8]) -> Option<Vec<Self>>;
}

macro_rules! pod_column_bytes {
    ($($t:ty),*) => {$(
        impl ColumnBytes for $t {
            fn to_bytes(v: &[Self]) -> Cow<'_, [u8]> {
                Cow::Borrowed(bytemuck::cast_slice(v))
            }

            fn from_bytes(b: &[u8]) -> Option<Vec<Self>> {
                (b.len() % size_of::<$t>() == 0).then(|| bytemuck::pod_collect_to_vec(b))
            }
        }
    )*};
}

pod_column_bytes!(i8, i16, i32, i64, u8, u16, u32, u64, usize, f32, f64);

impl ColumnBytes for bool {
    fn to_bytes(v: &[Self]) -> Cow<'_, [u8]> {
        Cow::Owned(v.iter().map(|&b| u8::from(b)).collect())
    }

    fn from_bytes(b: &[u8]) -> Option<Vec<Self>> {
        b.iter()
            .map(|&x| match x {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            })
            .collect()
    }
}

/// A shared view of columns, copied by value ([`Columns::Ref`]).
pub trait ColumnsRef<E>: Copy + Send + Sync {
    /// Element `i`. Panics if `i >= len` (callers check indices first).
    fn get(self, i: usize) -> E;

    /// Element `i`, with no bounds check.
    ///
    /// # Safety
    /// `i` is below the columns' length.
    unsafe fn get_unchecked(self, i: usize) -> E;
}

/// A writable view of storage not yet written ([`Columns::fresh`]): a slot can be written but
/// never read. Views of disjoint runs can be written from different threads.
pub trait ColumnsFresh<E>: Send + Sized {
    /// Number of slots in the view.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes `f(src[k])` into slot `at + k` for every `k`, column by column (a tuple's `f` is
    /// called once per column and the other parts dropped, so keep it a projection). Panics if
    /// `at + src.len() > len`.
    fn write_mapped<S: Copy>(&mut self, at: usize, src: &[S], f: impl Fn(S) -> E);

    /// The views of `0..mid` and `mid..len`. Panics if `mid > len`.
    fn split_at(self, mid: usize) -> (Self, Self);
}

impl<T: Copy + Send> ColumnsFresh<T> for &mut [MaybeUninit<T>] {
    #[inline]
    fn len(&self) -> usize {
        <[MaybeUninit<T>]>::len(self)
    }

    #[inline]
    fn write_mapped<S: Copy>(&mut self, at: usize, src: &[S], f: impl Fn(S) -> T) {
        for (slot, &s) in self[at..at + src.len()].iter_mut().zip(src) {
            slot.write(f(s));
        }
    }

    #[inline]
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
}

/// A mutable view of a contiguous run of elements in [`Columns`]; views of disjoint runs can be
/// written from different threads.
pub trait ColumnsMut<E>: Send + Sized {
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` of the view. Panics if `i >= len`.
    fn get(&self, i: usize) -> E;

    /// Writes element `i` of the view. Panics if `i >= len`.
    fn set(&mut self, i: usize, e: E);

    /// The views of `0..mid` and `mid..len`. Panics if `mid > len`.
    fn split_at(self, mid: usize) -> (Self, Self);
}

/// Integer element types usable as counts and segment lengths.
///
/// ```
/// use accel_runtime::IndexLike;
///
/// assert_eq!(3i32.to_index(), Some(3));
/// assert_eq!((-1i64).to_index(), None);
/// ```
pub trait IndexLike: Elem {
    /// The value as a `usize`; `None` when negative (or too large for `usize`).
    fn to_index(self) -> Option<usize>;
}

/// `n` copies of `e`, failing with `Error::OutOfHostMemory` instead of aborting the process.
///
/// A long vector is filled by the thread pool, a chunk a task: `calloc` zeroes a block that
/// the allocator reuses on the calling thread alone, which made a saxpy of 2^22 elements wait
/// for 16 MB of serial zeroing on 16 cores (docs/benchmarks.md). A short one is allocated zeroed
/// (`calloc`: pages nobody writes are never touched), as `vec![0; n]` does, or filled in place.
fn filled_vec<T: Copy + PartialEq + Default + Send + Sync + bytemuck::Zeroable>(
    n: usize,
    e: T,
) -> accel_core::Result<Vec<T>> {
    if !is_long(n) && e == T::default() {
        return bytemuck::allocation::try_zeroed_slice_box(n).map(Vec::from).map_err(|()| out_of_room::<T>(n));
    }
    let mut v = vec_with_room(n)?;
    if !is_long(n) {
        v.resize(n, e);
        return Ok(v);
    }
    v.spare_capacity_mut()[..n].par_chunks_mut(chunk_len(n)).for_each(|part| part.fill(MaybeUninit::new(e)));
    // SAFETY: the capacity is at least `n`, and the first `n` elements were just written.
    unsafe { v.set_len(n) };
    Ok(v)
}

/// An empty vector with room for `n` elements, or `Error::OutOfHostMemory`.
fn vec_with_room<T>(n: usize) -> accel_core::Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| out_of_room::<T>(n))?;
    Ok(v)
}

/// The error of an allocation of `n` elements of `T` that failed.
fn out_of_room<T>(n: usize) -> accel_core::Error {
    accel_core::Error::out_of_host_memory(n.saturating_mul(size_of::<T>()))
}

macro_rules! scalar_elem {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl Elem for $t {
            type Columns = Vec<$t>;

            fn elem_type() -> ElemType {
                ElemType::Scalar(ScalarType::$variant)
            }

            fn to_value(self) -> ElemValue {
                ElemValue::Scalar(ScalarValue::$variant(self))
            }

            fn from_value(v: &ElemValue) -> Option<Self> {
                match v {
                    ElemValue::Scalar(ScalarValue::$variant(x)) => Some(*x),
                    _ => None,
                }
            }
        }

        impl Columns<$t> for Vec<$t> {
            type Iter<'a> = std::iter::Copied<std::slice::Iter<'a, $t>>;
            type Mut<'a> = &'a mut [$t];
            type Fresh<'a> = &'a mut [MaybeUninit<$t>];
            type Ref<'a> = &'a [$t];

            #[inline]
            fn len(&self) -> usize {
                Vec::len(self)
            }

            #[inline]
            fn as_ref(&self) -> &[$t] {
                self.as_slice()
            }

            fn from_vec(v: Vec<$t>) -> Self {
                v
            }

            fn to_vec(&self) -> Vec<$t> {
                self.clone()
            }

            fn filled(n: usize, e: $t) -> accel_core::Result<Self> {
                filled_vec(n, e)
            }

            fn with_room(n: usize) -> accel_core::Result<Self> {
                vec_with_room(n)
            }

            #[inline]
            fn fresh(&mut self, n: usize) -> Self::Fresh<'_> {
                &mut self.spare_capacity_mut()[..n]
            }

            unsafe fn commit_fresh(&mut self, n: usize) {
                // SAFETY: the caller wrote the `n` slots after the last element, which lie within
                // the capacity (`fresh` checked that).
                unsafe { self.set_len(self.len() + n) }
            }

            #[inline]
            fn iter_range(&self, range: Range<usize>) -> Self::Iter<'_> {
                self[range].iter().copied()
            }

            #[inline]
            fn view_mut(&mut self) -> Self::Mut<'_> {
                self.as_mut_slice()
            }

            fn leaf_bytes(&self) -> Vec<Cow<'_, [u8]>> {
                vec![<$t as ColumnBytes>::to_bytes(self)]
            }

            fn from_leaf_bytes(leaves: &mut dyn Iterator<Item = Vec<u8>>) -> Option<Self> {
                <$t as ColumnBytes>::from_bytes(&leaves.next()?)
            }
        }

        impl ColumnsRef<$t> for &[$t] {
            #[inline]
            fn get(self, i: usize) -> $t {
                self[i]
            }

            #[inline]
            unsafe fn get_unchecked(self, i: usize) -> $t {
                // SAFETY: the caller's `i < len`.
                unsafe { *<[$t]>::get_unchecked(self, i) }
            }
        }

        impl ColumnsMut<$t> for &mut [$t] {
            #[inline]
            fn len(&self) -> usize {
                <[$t]>::len(self)
            }

            #[inline]
            fn get(&self, i: usize) -> $t {
                self[i]
            }

            #[inline]
            fn set(&mut self, i: usize, e: $t) {
                self[i] = e;
            }

            #[inline]
            fn split_at(self, mid: usize) -> (Self, Self) {
                self.split_at_mut(mid)
            }
        }
    )*};
}

scalar_elem! {
    bool => Bool,
    i8 => I8,
    i16 => I16,
    i32 => I32,
    i64 => I64,
    u8 => U8,
    u16 => U16,
    u32 => U32,
    u64 => U64,
    usize => Usize,
    f32 => F32,
    f64 => F64,
}

macro_rules! index_like {
    ($($t:ty),*) => {$(
        impl IndexLike for $t {
            #[inline]
            fn to_index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
        }
    )*};
}

index_like!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

/// Iterator over the columns of a tuple, advancing all of them together.
#[derive(Clone, Debug)]
pub struct TupleIter<T>(T);

macro_rules! tuple_elem {
    ($n:literal; $($T:ident $C:ident $M:ident $I:ident $idx:tt),+) => {
        impl<$($T: Elem),+> Elem for ($($T,)+) {
            type Columns = ($($T::Columns,)+);

            fn elem_type() -> ElemType {
                ElemType::Tuple(vec![$($T::elem_type()),+])
            }

            fn to_value(self) -> ElemValue {
                ElemValue::Tuple(vec![$(self.$idx.to_value()),+])
            }

            fn from_value(v: &ElemValue) -> Option<Self> {
                match v {
                    ElemValue::Tuple(parts) if parts.len() == $n => {
                        Some(($($T::from_value(&parts[$idx])?,)+))
                    }
                    _ => None,
                }
            }
        }

        impl<$($T: Copy,)+ $($C: Columns<$T>),+> Columns<($($T,)+)> for ($($C,)+) {
            type Iter<'a> = TupleIter<($($C::Iter<'a>,)+)>;
            type Mut<'a> = ($($C::Mut<'a>,)+);
            type Fresh<'a> = ($($C::Fresh<'a>,)+);
            type Ref<'a> = ($($C::Ref<'a>,)+);

            #[inline]
            fn len(&self) -> usize {
                self.0.len()
            }

            #[inline]
            fn as_ref(&self) -> Self::Ref<'_> {
                ($(self.$idx.as_ref(),)+)
            }

            fn from_vec(v: Vec<($($T,)+)>) -> Self {
                ($($C::from_vec(v.iter().map(|t| t.$idx).collect()),)+)
            }

            fn filled(n: usize, e: ($($T,)+)) -> accel_core::Result<Self> {
                Ok(($($C::filled(n, e.$idx)?,)+))
            }

            fn with_room(n: usize) -> accel_core::Result<Self> {
                Ok(($($C::with_room(n)?,)+))
            }

            #[inline]
            fn fresh(&mut self, n: usize) -> Self::Fresh<'_> {
                ($(self.$idx.fresh(n),)+)
            }

            unsafe fn commit_fresh(&mut self, n: usize) {
                // SAFETY: the caller wrote the `n` slots of every column.
                unsafe { $(self.$idx.commit_fresh(n);)+ }
            }

            #[inline]
            fn iter_range(&self, range: Range<usize>) -> Self::Iter<'_> {
                TupleIter(($(self.$idx.iter_range(range.clone()),)+))
            }

            #[inline]
            fn view_mut(&mut self) -> Self::Mut<'_> {
                ($(self.$idx.view_mut(),)+)
            }

            fn leaf_bytes(&self) -> Vec<Cow<'_, [u8]>> {
                let mut out = Vec::new();
                $(out.extend(self.$idx.leaf_bytes());)+
                out
            }

            fn from_leaf_bytes(leaves: &mut dyn Iterator<Item = Vec<u8>>) -> Option<Self> {
                let cols = ($($C::from_leaf_bytes(leaves)?,)+);
                let n = cols.0.len();
                [$(cols.$idx.len()),+].iter().all(|&m| m == n).then_some(cols)
            }
        }

        impl<$($T,)+ $($M: ColumnsRef<$T>),+> ColumnsRef<($($T,)+)> for ($($M,)+) {
            #[inline]
            fn get(self, i: usize) -> ($($T,)+) {
                ($(self.$idx.get(i),)+)
            }

            #[inline]
            unsafe fn get_unchecked(self, i: usize) -> ($($T,)+) {
                // SAFETY: the caller's `i` is below the length, which every column has.
                unsafe { ($(self.$idx.get_unchecked(i),)+) }
            }
        }

        impl<$($T,)+ $($M: ColumnsFresh<$T>),+> ColumnsFresh<($($T,)+)> for ($($M,)+) {
            #[inline]
            fn len(&self) -> usize {
                self.0.len()
            }

            #[inline]
            fn write_mapped<S: Copy>(&mut self, at: usize, src: &[S], f: impl Fn(S) -> ($($T,)+)) {
                $(self.$idx.write_mapped(at, src, |s| f(s).$idx);)+
            }

            #[inline]
            fn split_at(self, mid: usize) -> (Self, Self) {
                let halves = ($(self.$idx.split_at(mid),)+);
                (($(halves.$idx.0,)+), ($(halves.$idx.1,)+))
            }
        }

        impl<$($T,)+ $($M: ColumnsMut<$T>),+> ColumnsMut<($($T,)+)> for ($($M,)+) {
            #[inline]
            fn len(&self) -> usize {
                self.0.len()
            }

            #[inline]
            fn get(&self, i: usize) -> ($($T,)+) {
                ($(self.$idx.get(i),)+)
            }

            #[inline]
            fn set(&mut self, i: usize, e: ($($T,)+)) {
                $(self.$idx.set(i, e.$idx);)+
            }

            #[inline]
            fn split_at(self, mid: usize) -> (Self, Self) {
                let halves = ($(self.$idx.split_at(mid),)+);
                (($(halves.$idx.0,)+), ($(halves.$idx.1,)+))
            }
        }

        impl<$($T,)+ $($I: Iterator<Item = $T>),+> Iterator for TupleIter<($($I,)+)> {
            type Item = ($($T,)+);

            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                Some(($(self.0.$idx.next()?,)+))
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                // All columns have the same length.
                self.0.0.size_hint()
            }
        }

        impl<$($T,)+ $($I: DoubleEndedIterator<Item = $T>),+> DoubleEndedIterator
            for TupleIter<($($I,)+)>
        {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                Some(($(self.0.$idx.next_back()?,)+))
            }
        }

        impl<$($T,)+ $($I: ExactSizeIterator<Item = $T>),+> ExactSizeIterator
            for TupleIter<($($I,)+)>
        {
        }
    };
}

tuple_elem!(2; A CA MA IA 0, B CB MB IB 1);
tuple_elem!(3; A CA MA IA 0, B CB MB IB 1, C CC MC IC 2);
tuple_elem!(4; A CA MA IA 0, B CB MB IB 1, C CC MC IC 2, D CD MD ID 3);
tuple_elem!(5; A CA MA IA 0, B CB MB IB 1, C CC MC IC 2, D CD MD ID 3, F CF MF IF 4);
tuple_elem!(6; A CA MA IA 0, B CB MB IB 1, C CC MC IC 2, D CD MD ID 3, F CF MF IF 4, G CG MG IG 5);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::par::MIN_CHUNK;

    #[test]
    fn long_fills_hold_their_value_everywhere() {
        // Either side of the length from which the pool fills (`par::is_long`).
        for n in [2 * MIN_CHUNK - 1, 2 * MIN_CHUNK, 6 * MIN_CHUNK + 5] {
            let zeros = <Vec<f32> as Columns<f32>>::filled(n, 0.0).unwrap();
            assert_eq!((zeros.len(), zeros.iter().all(|&x| x == 0.0)), (n, true));
            let v = <Vec<i16> as Columns<i16>>::filled(n, -7).unwrap();
            assert_eq!((v.len(), v.iter().all(|&x| x == -7)), (n, true));
            let (a, b) = <(f64, bool) as Elem>::Columns::filled(n, (2.5, true)).unwrap();
            assert!(a.len() == n && b.len() == n && a.iter().all(|&x| x == 2.5) && b.iter().all(|&x| x));
        }
    }

    #[test]
    fn scalars_round_trip_through_values() {
        assert_eq!(f64::from_value(&2.5f64.to_value()), Some(2.5));
        assert_eq!(bool::from_value(&true.to_value()), Some(true));
        assert_eq!(usize::from_value(&7usize.to_value()), Some(7));
        assert_eq!(i32::from_value(&7u32.to_value()), None);
        assert_eq!(u64::elem_type(), ElemType::Scalar(ScalarType::U64));
    }

    #[test]
    fn nested_tuples_are_columns_of_columns() {
        type T = ((f32, i32), u64, bool);
        let xs: Vec<T> = vec![((1.0, -1), 10, true), ((2.0, -2), 20, false), ((3.0, -3), 30, true)];
        let cols = <T as Elem>::Columns::from_vec(xs.clone());
        assert_eq!(cols.0.0, vec![1.0, 2.0, 3.0]);
        assert_eq!(cols.2, vec![true, false, true]);
        assert_eq!(cols.len(), 3);
        assert_eq!(cols.to_vec(), xs);
        assert_eq!(cols.iter_range(1..3).len(), 2);
        assert_eq!(T::from_value(&xs[1].to_value()), Some(xs[1]));
        assert_eq!(T::elem_type().to_string(), "((f32, i32), u64, bool)", "the type follows the tuple's structure");
    }

    #[test]
    fn split_views_write_disjoint_parts() {
        let mut cols = <(Vec<i32>, Vec<f64>)>::filled(5, (0, 0.0)).unwrap();
        let (mut a, mut b) = cols.view_mut().split_at(2);
        a.set(1, (1, 1.5));
        b.set(0, (2, 2.5));
        assert_eq!((a.len(), b.len(), b.get(0)), (2, 3, (2, 2.5)));
        assert_eq!(cols.to_vec()[1..3], [(1, 1.5), (2, 2.5)]);
    }

    #[test]
    fn fresh_slots_follow_the_last_element() {
        let mut cols = <(Vec<i32>, Vec<bool>)>::from_vec(vec![(1, true)]);
        cols.0.reserve(2);
        cols.1.reserve(2);
        let mut slots = cols.fresh(2);
        slots.write_mapped(0, &[20, 30], |x| (x, x > 25));
        // SAFETY: both fresh slots were written.
        unsafe { cols.commit_fresh(2) };
        assert_eq!(cols.to_vec(), [(1, true), (20, false), (30, true)]);
        let mut room = <Vec<u8> as Columns<u8>>::with_room(2).unwrap();
        let past_the_end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            room.fresh(2).write_mapped(1, &[1, 2], |x: u8| x)
        }));
        assert!(past_the_end.is_err() && room.is_empty());
    }

    #[test]
    fn small_integers_are_stored_at_their_own_width() {
        type T = (u8, i16, (i8, u16));
        let xs: Vec<T> = vec![(1, -2, (-128, 65535)), (255, 300, (127, 0)), (0, i16::MIN, (-1, 7))];
        let cols = <T as Elem>::Columns::from_vec(xs.clone());
        let bytes = cols.leaf_bytes();
        let widths: Vec<usize> = bytes.iter().map(|b| b.len()).collect();
        assert_eq!(widths, [3, 6, 3, 6], "one byte per u8 and i8, two per u16 and i16");
        let back = <T as Elem>::Columns::from_leaf_bytes(&mut bytes.iter().map(|b| b.to_vec())).unwrap();
        assert_eq!(back.to_vec(), xs);
        assert_eq!(T::from_value(&xs[0].to_value()), Some(xs[0]));
        assert_eq!(T::elem_type().to_string(), "(u8, i16, (i8, u16))");
        assert_eq!(u8::from_value(&7i8.to_value()), None);
        assert_eq!(((-1i8).to_index(), 200u8.to_index(), 40000u16.to_index()), (None, Some(200), Some(40000)));
    }

    #[test]
    fn index_like_rejects_negative_values() {
        assert_eq!((-3i32).to_index(), None);
        assert_eq!(u64::MAX.to_index(), usize::try_from(u64::MAX).ok());
        assert_eq!(0usize.to_index(), Some(0));
    }
}
