//! How kernels see their array arguments: column pointers plus a shape (row-major), segment
//! descriptors (offsets) and nested arrays (segments plus a flat vector of values).
//!
//! Views are plain copies of what the host passed; reading through one is unchecked (`Ctx::read`
//! is the checked path user indexing takes). A delayed operand is a
//! [`Delayed`](crate::delayed::Delayed) instead, with the same reading methods.

use crate::abi::COLUMN_ALIGN;
use crate::elem::DeviceElem;
use crate::index::{Shaped, ravel};

/// A column pointer the host passed (a kernel parameter of pointer type, so that NVPTX reads it
/// with `ld.global`), its alignment stated to LLVM, which then merges a thread's loads of
/// consecutive elements into vector loads.
///
/// # Safety
/// `p` is the address of an array column the host passed, or null: a multiple of
/// [`COLUMN_ALIGN`].
#[inline(always)]
pub unsafe fn column<T>(p: *mut T) -> *mut T {
    // SAFETY: the caller guarantees the alignment (the host's contract, `COLUMN_ALIGN`).
    unsafe { core::hint::assert_unchecked(p as usize % COLUMN_ALIGN == 0) };
    p
}

/// A rank-`R` array in global memory, row-major.
pub struct View<E: DeviceElem, const R: usize> {
    pub ptr: E::Ptr,
    pub shape: [usize; R],
}

impl<E: DeviceElem, const R: usize> Clone for View<E, R> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: DeviceElem, const R: usize> Copy for View<E, R> {}

impl<E: DeviceElem, const R: usize> Shaped<R> for View<E, R> {
    #[inline(always)]
    fn shape(&self) -> [usize; R] {
        self.shape
    }
}

impl<E: DeviceElem, const R: usize> View<E, R> {
    /// Element `i` in row-major order.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn get_linear(&self, i: usize) -> E {
        // SAFETY: the caller guarantees `i < len`, and the host allocated `len` elements.
        unsafe { E::load(self.ptr, i) }
    }

    /// Asks L2 for elements `lo..hi` in row-major order, ahead of their reads
    /// ([`DeviceElem::prefetch_l2`]); every thread of the block calls it with the same range.
    ///
    /// # Safety
    /// `lo < hi <= self.len()`.
    #[inline(always)]
    pub unsafe fn prefetch_l2(&self, lo: usize, hi: usize) {
        // SAFETY: the caller guarantees `lo < hi <= len`, and the host allocated `len` elements.
        unsafe { E::prefetch_l2(self.ptr, lo, hi) }
    }

    /// The element at `ix`.
    ///
    /// # Safety
    /// `ix` is inside `self.shape`.
    #[inline(always)]
    pub unsafe fn at(&self, ix: [usize; R]) -> E {
        // SAFETY: the caller guarantees `ix` inside the shape, so its position is below `len`.
        unsafe { self.get_linear(ravel(self.shape, ix)) }
    }

    /// The element at `ix`, read once ([`DeviceElem::load_streaming`]): for a walker that reads
    /// each element of a stream once, so that the stream leaves in L2 what other reads come back
    /// for.
    ///
    /// # Safety
    /// As [`View::at`].
    #[inline(always)]
    pub unsafe fn at_streaming(&self, ix: [usize; R]) -> E {
        // SAFETY: as `at`; the host allocated the columns on the device.
        unsafe { E::load_streaming(self.ptr, ravel(self.shape, ix)) }
    }

    /// Elements `i..i + N` in row-major order, read once as [`View::at_streaming`] reads one, 16
    /// bytes a load where the element's columns allow ([`DeviceElem::load_run_streaming`]): for a
    /// walker whose thread reads a run of consecutive elements.
    ///
    /// # Safety
    /// `i + N <= self.len()`, and `i` is a multiple of `N`.
    #[inline(always)]
    pub unsafe fn run_streaming<const N: usize>(&self, i: usize) -> [E; N] {
        // SAFETY: the caller's run, within the `len` elements the host allocated on the device.
        unsafe { E::load_run_streaming::<N>(self.ptr, i) }
    }

    /// Writes element `i` in row-major order.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn set_linear(&self, i: usize, v: E) {
        // SAFETY: the caller guarantees `i < len`, and the host allocated `len` elements.
        unsafe { E::store(self.ptr, i, v) }
    }

    /// Element 0: the value of a rank-0 array (`s.get()` in user code).
    #[inline(always)]
    pub fn get(&self) -> E {
        // SAFETY: the host never passes an empty rank-0 array; element 0 exists.
        unsafe { E::load(self.ptr, 0) }
    }
}

/// Segment descriptors: `count + 1` ascending offsets from 0 to `total`.
#[derive(Clone, Copy)]
pub struct SegView {
    pub offsets: *const usize,
    pub count: usize,
    pub total: usize,
}

impl SegView {
    /// Number of segments.
    #[inline(always)]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Offset `i`: where segment `i` starts (the total for `i == count`).
    ///
    /// # Safety
    /// `i <= self.count()`.
    #[inline(always)]
    pub unsafe fn offset(&self, i: usize) -> usize {
        // SAFETY: the caller guarantees `i <= count`, and the host passed `count + 1` offsets.
        unsafe { usize::load(self.offsets.cast_mut(), i) }
    }

    /// Segment `i` as `(start, end)` in the flat values.
    ///
    /// # Safety
    /// `i < self.count()`.
    #[inline(always)]
    pub unsafe fn range(&self, i: usize) -> (usize, usize) {
        // SAFETY: the caller guarantees `i < count`.
        unsafe { (self.offset(i), self.offset(i + 1)) }
    }

    /// The segment that holds value `index` ([`crate::search::last_at_most`] of the offsets: the
    /// last segment starting at or before it; 0 when there are none).
    #[inline(always)]
    pub fn segment_of(&self, index: usize) -> usize {
        // SAFETY: the search reads below `count`.
        crate::search::last_at_most(self.count, |s| unsafe { self.offset(s) }, index)
    }
}

/// A nested array: segments of a flat vector of values.
pub struct NestedView<E: DeviceElem> {
    pub segments: SegView,
    pub values: View<E, 1>,
}

impl<E: DeviceElem> Clone for NestedView<E> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: DeviceElem> Copy for NestedView<E> {}

impl<E: DeviceElem> NestedView<E> {
    #[inline(always)]
    pub fn values(&self) -> &View<E, 1> {
        &self.values
    }

    #[inline(always)]
    pub fn segments(&self) -> &SegView {
        &self.segments
    }

    /// Number of rows (segments).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.segments.count
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
