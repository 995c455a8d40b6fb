//! Irregular arrays: segment descriptors and vectors of vectors.
//!
//! A [`Nested`] array is flat values plus [`Segments`], the offsets where each row starts
//! (Haskell'17 §3): the representation the segmented skeletons (`fold_seg`, `scan_seg`) work on
//! directly, with no per-row allocation.

use crate::array::Vector;
use crate::elem::{Columns, Elem, IndexLike};
use accel_core::{Error, Result};
use std::ops::Range;

/// Offsets of consecutive segments: `offsets[0] == 0`, never decreasing, one more entry than
/// segments.
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segments {
    offsets: Vec<usize>,
}

impl Segments {
    /// Segments of the given lengths; a negative length or a total beyond `usize` is
    /// `Error::InvalidSegments` of `op`.
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
        Ok(Segments { offsets })
    }

    /// Segments from their offsets, which must start at 0 and never decrease.
    ///
    /// ```
    /// use accel_runtime::Segments;
    /// assert_eq!(Segments::from_offsets(vec![0, 3, 3])?.count(), 2);
    /// assert!(Segments::from_offsets(vec![0, 3, 2]).is_err());
    /// assert!(Segments::from_offsets(vec![]).is_err());
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
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
        Ok(Segments { offsets })
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

    /// The positions of segment `i`. Panics if `i >= count()`.
    pub fn range(&self, i: usize) -> Range<usize> {
        self.offsets[i]..self.offsets[i + 1]
    }

    /// The `count() + 1` offsets.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    pub fn lengths(&self) -> Vector<usize> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    pub fn offsets_vector(&self) -> Vector<usize> {
        Vector::from_slice(&self.offsets)
    }
}

/// A vector of vectors, stored as flat values plus [`Segments`].
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
    pub fn from_rows(rows: Vec<Vec<E>>) -> Self {
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0);
        let mut values = Vec::with_capacity(rows.iter().map(Vec::len).sum());
        for row in rows {
            values.extend(row);
            offsets.push(values.len());
        }
        Nested { segments: Segments { offsets }, values: Vector::from_vec(values) }
    }

    /// Offsets (starting at 0, never decreasing, ending at `values.len()`) and flat values.
    pub fn from_parts(offsets: Vec<usize>, values: Vec<E>) -> Result<Self> {
        Self::from_segments(Segments::from_offsets(offsets)?, Vector::from_vec(values))
    }

    /// Segments whose total is the number of values.
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

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`, or `None` past the last row.
    pub fn row(&self, i: usize) -> Option<Vec<E>> {
        (i < self.len()).then(|| self.values.columns().iter_range(self.segments.range(i)).collect())
    }

    pub fn to_rows(&self) -> Vec<Vec<E>> {
        (0..self.len()).map(|i| self.values.columns().iter_range(self.segments.range(i)).collect()).collect()
    }

    /// The flat values, row after row.
    pub fn values(&self) -> &Vector<E> {
        &self.values
    }

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
