//! Irregular arrays: segment descriptors and vectors of vectors.
//!
//! A [`Nested`] array is flat values plus [`Segments`], the offsets where each row starts
//! (Haskell'17 §3): the representation the segmented skeletons (`fold_seg`, `scan_seg`) work on
//! directly, with no per-row allocation.

use crate::array::Vector;
use crate::elem::{Columns, Elem, IndexLike};
use accel_core::{Error, Result};
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

#[cfg(feature = "cuda")]
use crate::cuda::DSegments;

/// A segment descriptor: how a flat vector of values is cut into consecutive segments (the rows
/// of a [`Nested`] array, the lengths given to `fold_seg`), as offsets: `offsets[0] == 0`, never
/// decreasing, one more entry than segments, segment `i` being `offsets[i]..offsets[i + 1]`.
/// Made once and immutable, so the statistics and the device copy worked out from it are kept.
///
/// ```
/// use accel_runtime::{Segments, Vector};
///
/// let s = Segments::from_lengths("fold_seg", &Vector::from_vec(vec![2i32, 0, 3]))?;
/// assert_eq!(s.offsets(), &[0, 2, 2, 5]);
/// assert_eq!((s.count(), s.total(), s.range(2)), (3, 5, 2..5));
/// assert!(Segments::from_lengths("fold_seg", &Vector::from_vec(vec![1i64, -1])).is_err());
/// # Ok::<(), accel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Segments {
    offsets: Vec<usize>,
    /// The lengths' statistics, worked out on first use.
    stats: OnceLock<SegmentStats>,
    /// The device copy: uploaded the first time a GPU program reads these segments, or kept
    /// from the device that computed them, so that passing them again costs no copy (the
    /// offsets of a 4M-row matrix take longer to upload than its product takes to compute).
    #[cfg(feature = "cuda")]
    device: OnceLock<DSegments>,
}

/// What the segmented skeletons' strategies need to know of a set of segments' lengths,
/// worked out once per [`Segments`] ([`Segments::stats`]).
///
/// ```
/// use accel_runtime::{SegmentStats, Segments};
///
/// let s = Segments::from_offsets(vec![0, 40, 40, 41, 641])?;
/// let want = SegmentStats { count: 4, total: 641, longest: 600, over_32: 2, over_512: 1 };
/// assert_eq!(s.stats(), want);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentStats {
    /// Number of segments.
    pub count: usize,
    /// Sum of the lengths.
    pub total: usize,
    /// The longest length (0 for no segments).
    pub longest: usize,
    /// Segments longer than 32 (a warp).
    pub over_32: usize,
    /// Segments longer than 512.
    pub over_512: usize,
}

impl SegmentStats {
    fn of(offsets: &[usize]) -> SegmentStats {
        let (mut longest, mut over_32, mut over_512) = (0, 0, 0);
        for w in offsets.windows(2) {
            let len = w[1] - w[0];
            longest = longest.max(len);
            over_32 += usize::from(len > 32);
            over_512 += usize::from(len > 512);
        }
        SegmentStats { count: offsets.len() - 1, total: offsets[offsets.len() - 1], longest, over_32, over_512 }
    }
}

impl PartialEq for Segments {
    fn eq(&self, other: &Segments) -> bool {
        self.offsets == other.offsets
    }
}

impl Eq for Segments {}

impl fmt::Debug for Segments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segments").field("offsets", &self.offsets).finish()
    }
}

impl Segments {
    /// Segments of the given lengths, in order. `op` names the operation the lengths are for, in
    /// the error.
    ///
    /// # Errors
    /// `Error::InvalidSegments` of `op` for a negative length or lengths whose total is beyond
    /// `usize`.
    pub fn from_lengths<L: IndexLike>(op: &str, lengths: &Vector<L>) -> Result<Segments> {
        let mut offsets = Vec::with_capacity(lengths.len() + 1);
        let mut total = 0usize;
        offsets.push(total);
        for (i, l) in lengths.iter().enumerate() {
            let len = l
                .to_index()
                .ok_or_else(|| Error::invalid_segments(op, format!("segment {i} has the negative length {l:?}")))?;
            total = total
                .checked_add(len)
                .ok_or_else(|| Error::invalid_segments(op, "the segment lengths overflow usize"))?;
            offsets.push(total);
        }
        Ok(Segments::checked(offsets))
    }

    /// Segments from their offsets: where each segment starts, then the total.
    ///
    /// ```
    /// use accel_runtime::Segments;
    /// assert_eq!(Segments::from_offsets(vec![0, 3, 3])?.count(), 2);
    /// assert!(Segments::from_offsets(vec![0, 3, 2]).is_err());
    /// assert!(Segments::from_offsets(vec![]).is_err());
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::InvalidSegments` if the offsets are empty (zero segments are `vec![0]`), do not
    /// start at 0, or decrease somewhere.
    pub fn from_offsets(offsets: Vec<usize>) -> Result<Segments> {
        match offsets.first() {
            Some(0) => {}
            Some(first) => {
                return Err(Error::invalid_segments("segments", format!("the offsets start at {first}, not 0")));
            }
            None => {
                return Err(Error::invalid_segments(
                    "segments",
                    "the offsets are empty; even zero segments have the offset 0",
                ));
            }
        }
        if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
            return Err(Error::invalid_segments(
                "segments",
                format!("offset {} ({}) is below offset {i} ({})", i + 1, offsets[i + 1], offsets[i]),
            ));
        }
        Ok(Segments::checked(offsets))
    }

    /// Segments of offsets known to start at 0 and never decrease.
    fn checked(offsets: Vec<usize>) -> Segments {
        Segments {
            offsets,
            stats: OnceLock::new(),
            #[cfg(feature = "cuda")]
            device: OnceLock::new(),
        }
    }

    /// The statistics of the lengths (count, total, longest, how many are long), worked out on
    /// the first call and kept.
    pub fn stats(&self) -> SegmentStats {
        *self.stats.get_or_init(|| SegmentStats::of(&self.offsets))
    }

    /// Number of segments.
    pub fn count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The segment that holds value `index`: the last one starting at or before it (0 when
    /// there are none), as every backend finds it (`accel_kernels::search::last_at_most`).
    pub fn segment_of(&self, index: usize) -> usize {
        accel_kernels::search::last_at_most(self.count(), |s| self.offsets[s], index)
    }

    /// Sum of the lengths.
    pub fn total(&self) -> usize {
        self.offsets[self.offsets.len() - 1]
    }

    /// The positions of segment `i` among the values.
    ///
    /// # Panics
    /// If `i >= count()`.
    pub fn range(&self, i: usize) -> Range<usize> {
        self.offsets[i]..self.offsets[i + 1]
    }

    /// The `count() + 1` offsets.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The length of each segment, as a vector (what `fold_seg` takes).
    ///
    /// ```
    /// use accel_runtime::Segments;
    /// assert_eq!(Segments::from_offsets(vec![0, 2, 2, 5])?.lengths().to_vec(), [2, 0, 3]);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    pub fn lengths(&self) -> Vector<usize> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// The `count() + 1` offsets as a vector, copied (to pass them to an `#[accel]` function).
    pub fn offsets_vector(&self) -> Vector<usize> {
        Vector::from_slice(&self.offsets)
    }
}

#[cfg(feature = "cuda")]
impl Segments {
    /// Segments downloaded from `device`, which is kept as their device copy.
    pub(crate) fn from_device(device: DSegments, offsets: Vec<usize>) -> Result<Segments> {
        let s = Segments::from_offsets(offsets)?;
        let _ = s.device.set(device);
        Ok(s)
    }

    pub(crate) fn device_copy(&self) -> Option<&DSegments> {
        self.device.get()
    }

    /// Keeps `device` as the device copy (if none is kept yet).
    pub(crate) fn keep_device_copy(&self, device: DSegments) {
        let _ = self.device.set(device);
    }
}

/// An irregular vector of vectors (rows of any lengths, empty ones included), stored as the
/// flat values of all rows in order plus the [`Segments`] that cut them into rows: no
/// allocation per row, and the form `Nested::map` and the segmented operations run on. Build
/// one with [`Nested::from_rows`] or, from the flat form, [`Nested::from_parts`]; a
/// [`Matrix`](crate::Matrix) is the regular case.
///
/// ```
/// use accel_runtime::Nested;
///
/// let n = Nested::from_rows(vec![vec![1, 2], vec![], vec![3]]);
/// assert_eq!(n.len(), 3);
/// assert_eq!(n.row(0), Some(vec![1, 2]));
/// assert_eq!(n.values().to_vec(), vec![1, 2, 3]);
/// assert_eq!(n.offsets().to_vec(), vec![0, 2, 2, 3]);
/// assert_eq!(Nested::from_parts(vec![0, 2, 2, 3], vec![1, 2, 3])?, n);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Nested<E: Elem> {
    segments: Segments,
    values: Vector<E>,
}

impl<E: Elem> Nested<E> {
    /// The nested array of `rows`, in order: their values are moved into one flat vector. It
    /// cannot fail.
    ///
    /// ```
    /// use accel_runtime::Nested;
    /// let n = Nested::from_rows(vec![vec![1.5f32], vec![], vec![2.5, 3.5]]);
    /// assert_eq!(n.lengths().to_vec(), [1, 0, 2]);
    /// assert_eq!(n.to_rows(), [vec![1.5], vec![], vec![2.5, 3.5]]);
    /// ```
    pub fn from_rows(rows: Vec<Vec<E>>) -> Self {
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0);
        let mut values = Vec::with_capacity(rows.iter().map(Vec::len).sum());
        for row in rows {
            values.extend(row);
            offsets.push(values.len());
        }
        Nested { segments: Segments::checked(offsets), values: Vector::from_vec(values) }
    }

    /// The nested array of flat `values` cut at `offsets` (starting at 0, never decreasing,
    /// ending at `values.len()`): row `i` is `values[offsets[i]..offsets[i + 1]]`. This is
    /// the compressed-sparse-row layout, taken without copying.
    ///
    /// ```
    /// use accel_runtime::Nested;
    /// let n = Nested::from_parts(vec![0, 3, 3, 4], vec![7u32, 8, 9, 10])?;
    /// assert_eq!((n.len(), n.row(0), n.row(1)), (3, Some(vec![7, 8, 9]), Some(vec![])));
    /// assert!(Nested::from_parts(vec![0, 2], vec![7u32]).is_err());
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::InvalidSegments` if the offsets are not valid ([`Segments::from_offsets`]) or
    /// their last is not the number of values.
    pub fn from_parts(offsets: Vec<usize>, values: Vec<E>) -> Result<Self> {
        Self::from_segments(Segments::from_offsets(offsets)?, Vector::from_vec(values))
    }

    /// The nested array of `values` cut by `segments` (shared segments, such as another nested
    /// array's, keep their statistics and device copy).
    ///
    /// # Errors
    /// `Error::InvalidSegments` if the segments' total is not the number of values.
    pub fn from_segments(segments: Segments, values: Vector<E>) -> Result<Self> {
        if segments.total() != values.len() {
            return Err(Error::invalid_segments(
                "nested",
                format!("the segments cover {} values but there are {}", segments.total(), values.len()),
            ));
        }
        Ok(Nested { segments, values })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.segments.count()
    }

    /// Whether there are no rows (rows that are all empty still count).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`, copied, or `None` past the last row.
    pub fn row(&self, i: usize) -> Option<Vec<E>> {
        (i < self.len()).then(|| self.values.columns().iter_range(self.segments.range(i)).collect())
    }

    /// Every row, copied: the inverse of [`Nested::from_rows`].
    pub fn to_rows(&self) -> Vec<Vec<E>> {
        (0..self.len()).map(|i| self.values.columns().iter_range(self.segments.range(i)).collect()).collect()
    }

    /// The flat values, row after row.
    pub fn values(&self) -> &Vector<E> {
        &self.values
    }

    /// The segment descriptor that cuts the values into rows.
    pub fn segments(&self) -> &Segments {
        &self.segments
    }

    /// Length of each row.
    pub fn lengths(&self) -> Vector<usize> {
        self.segments.lengths()
    }

    /// Where each row starts in [`Nested::values`], plus the total: one more entry than rows.
    pub fn offsets(&self) -> Vector<usize> {
        self.segments.offsets_vector()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_build_offsets() {
        let s = Segments::from_lengths("op", &Vector::from_vec(vec![3u64, 0, 1])).unwrap();
        assert_eq!(s.lengths().to_vec(), vec![3, 0, 1]);
        assert_eq!(s.offsets_vector().to_vec(), vec![0, 3, 3, 4]);
        let none = Segments::from_lengths("op", &Vector::<i32>::from_vec(vec![])).unwrap();
        assert_eq!((none.count(), none.total()), (0, 0));
    }

    #[test]
    fn statistics_count_the_lengths_and_equality_ignores_what_is_cached() {
        let none = Segments::from_offsets(vec![0]).unwrap();
        assert_eq!(none.stats(), SegmentStats { count: 0, total: 0, longest: 0, over_32: 0, over_512: 0 });
        // Lengths around both thresholds, empty ones among them, from a small generator.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let lengths: Vec<usize> = (0..2000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                [0, 1, 31, 32, 33, 511, 512, 513, 4000][(x % 9) as usize]
            })
            .collect();
        let s = Segments::from_lengths("op", &Vector::from_slice(&lengths)).unwrap();
        let want = SegmentStats {
            count: lengths.len(),
            total: lengths.iter().sum(),
            longest: *lengths.iter().max().unwrap(),
            over_32: lengths.iter().filter(|&&l| l > 32).count(),
            over_512: lengths.iter().filter(|&&l| l > 512).count(),
        };
        let fresh = s.clone();
        assert_eq!(s.stats(), want);
        assert_eq!(s.stats(), want, "kept");
        assert_eq!(s, fresh, "one has its statistics worked out, the other not");
        assert_eq!(format!("{s:?}"), format!("{fresh:?}"));
    }

    #[test]
    fn invalid_lengths_name_the_operation() {
        let e = Segments::from_lengths("scanl_seg", &Vector::from_vec(vec![1i32, -4])).unwrap_err();
        assert!(matches!(&e, Error::InvalidSegments { op, .. } if op == "scanl_seg"), "{e}");
        assert!(e.to_string().contains("segment 1 has the negative length -4"), "{e}");
        let e = Segments::from_lengths("f", &Vector::from_vec(vec![usize::MAX, 1])).unwrap_err();
        assert!(e.to_string().contains("overflow"), "{e}");
        assert!(Segments::from_offsets(vec![1, 2]).is_err());
    }

    #[test]
    fn nested_parts_are_checked() {
        assert!(Nested::from_parts(vec![0, 2], vec![1.0f32]).is_err());
        assert!(Nested::from_parts(vec![0, 2, 1], vec![1.0f32, 2.0]).is_err());
        let n = Nested::from_parts(vec![0], Vec::<i32>::new()).unwrap();
        assert!(n.is_empty());
        let n = Nested::from_rows(vec![vec![(1u32, true)], vec![(2, false), (3, true)]]);
        assert_eq!(n.lengths().to_vec(), vec![1, 2]);
        assert_eq!(n.row(1), Some(vec![(2, false), (3, true)]));
        assert_eq!(n.row(2), None);
        assert_eq!(n.to_rows().len(), 2);
        assert_eq!(n.segments().total(), n.values().len());
    }
}
