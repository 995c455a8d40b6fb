//! Dense, row-major arrays of rank 0 to 3: what `#[accel]` functions take and return.
//!
//! An [`Array`] is immutable once made: arrays are built on the host ([`Vector::from_vec`],
//! [`Array::from_shape_vec`], [`Array::from_shape_fn`], `collect`, the `ndarray` conversions)
//! or returned by a program, and read with [`Array::to_vec`], [`Array::at`], [`Array::iter`] and
//! [`Scalar::get`]. Because nothing mutates an array, a copy of its elements kept on a GPU can
//! never disagree with the host's, which is what lets results stay on the device between calls
//! (see [`Array`]'s "Device-resident arrays").

use crate::elem::{Columns, Elem};
use crate::shape;
use crate::storage::Storage;
use accel_core::{Error, Result};
use std::fmt;

/// A dense, row-major array of rank `R` (0 to 3) of elements `E`, whose shape is `[usize; R]`
/// (the last dimension innermost). [`Scalar`], [`Vector`] and [`Matrix`] are its ranks 0, 1
/// and 2. Elements are the [`Elem`] types (`bool i8 i16 i32 i64 u8 u16 u32 u64 usize f32 f64` and tuples of
/// them); a tuple array is stored column by column (structure of arrays), so that a kernel
/// reading one field of a tuple loads only that field.
///
/// ```
/// use accel_runtime::{Array, Matrix, Vector};
///
/// let m = Matrix::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
/// assert_eq!((m.rows(), m.cols()), (2, 3));
/// assert_eq!(m.at([1, 0]), Some(4));
/// assert_eq!(m.at([2, 0]), None);
/// let v: Vector<(f32, bool)> = [(1.0, true), (2.0, false)].into_iter().collect();
/// assert_eq!(v.to_vec()[1], (2.0, false));
/// let a = Array::from_shape_fn([2, 2, 2], |[i, j, k]| i * 4 + j * 2 + k);
/// assert_eq!(a.to_vec(), (0..8).collect::<Vec<_>>());
/// # Ok::<(), accel_runtime::Error>(())
/// ```
///
/// Cloning an array copies its host elements (and shares its device copy, if it has one);
/// `==` compares shapes and elements.
///
/// # Device-resident arrays
///
/// On a CUDA runtime the result of an `#[accel]` call stays in device memory until the host
/// first reads it ([`Array::to_vec`], [`Array::at`], [`Array::iter`], [`Scalar::get`], `==`,
/// printing); it is then downloaded once and kept on both sides. Passing such a result to the
/// next call on the same runtime hands the kernels the device copy: a chain of calls moves no
/// data through the host. A host array passed to a GPU call is uploaded on the first call and
/// its device copy kept, so passing it again costs no copy either. Reading a result before it
/// is needed therefore costs a download, and nothing else changes: results are the same arrays
/// on every backend, only where their elements are differs. On the CPU backend every array is
/// on the host.
///
/// A call whose kernels cannot fail returns as soon as they are queued; a host read waits for
/// them. [`Array::download`] brings a result to the host and reports a device failure as an
/// [`Error`] where a read would panic; [`Runtime::synchronize`] waits for
/// every queued call.
///
/// ```
/// use accel_runtime::backend::Function;
/// use accel_runtime::{Result, Runtime, Vector, cpu};
///
/// /// What `#[accel] fn double(xs: Vector<i32>) -> Vector<i32> { xs.map(|x| 2 * x) }` gives
/// /// the CPU backend (a doc test has no build script to compile an `#[accel]` function).
/// struct Double;
/// impl Function for Double {
///     type Args<'a> = (&'a Vector<i32>,);
///     type Output = Vector<i32>;
///     const NAME: &'static str = "double";
///     fn cpu(cx: &cpu::Ctx, (xs,): (&Vector<i32>,)) -> Result<Vector<i32>> {
///         cpu::generate(cx, xs.shape(), |[i]| 2 * xs.get_linear(i))
///     }
/// }
///
/// let rt = Runtime::new()?; // a GPU if there is one
/// let xs = Vector::from_vec(vec![1, 2, 3]);
/// let twice = rt.call::<Double>((&xs,))?; // on a GPU: `twice` stays on the device,
/// let four_times = rt.call::<Double>((&twice,))?; // is read there by the next call,
/// assert_eq!(four_times.to_vec(), [4, 8, 12]); // and only this result is downloaded.
/// # Ok::<(), accel_runtime::Error>(())
/// ```
///
/// [`Runtime::synchronize`]: crate::Runtime::synchronize
#[derive(Clone)]
pub struct Array<E: Elem, const R: usize> {
    shape: [usize; R],
    data: Storage<E>,
}

impl<E: Elem, const R: usize> PartialEq for Array<E, R> {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.data.columns() == other.data.columns()
    }
}

#[cfg(feature = "cuda")]
impl<E: Elem, const R: usize> Array<E, R> {
    /// An array whose elements are on a device (a GPU program's result).
    pub(crate) fn from_device(shape: [usize; R], array: crate::cuda::DArray) -> Self {
        Array { shape, data: Storage::device(array) }
    }

    /// The device copy, if the array has one.
    pub(crate) fn device_copy(&self) -> Option<&crate::cuda::DArray> {
        self.data.device_copy()
    }

    /// Keeps a device copy of the array, so that later GPU programs need not upload it again.
    pub(crate) fn keep_device_copy(&self, array: crate::cuda::DArray) {
        self.data.keep_device_copy(array)
    }
}

/// A rank-0 array: exactly one element, made with [`Scalar::new`] and read with [`Scalar::get`].
/// Reductions over a whole array (`fold_all`, a vector's `sum`) give one, so that the result
/// can stay on the device like any other array.
pub type Scalar<E> = Array<E, 0>;
/// A rank-1 array, made with [`Vector::from_vec`], [`Vector::from_slice`] or `collect`.
pub type Vector<E> = Array<E, 1>;
/// `unzip` of arrays of tuples: the columns become arrays of their own, without copying.
macro_rules! unzip {
    ($($T:ident $idx:tt),+) => {
        impl<$($T: Elem),+, const R: usize> Array<($($T,)+), R> {
            /// The arrays of the tuples' fields (the columns move, nothing is copied).
            ///
            /// ```
            /// use accel_runtime::Vector;
            /// let (xs, ys) = Vector::from_vec(vec![(1, 2.5f32), (3, 4.5)]).unzip();
            /// assert_eq!((xs.to_vec(), ys.to_vec()), (vec![1, 3], vec![2.5, 4.5]));
            /// ```
            pub fn unzip(self) -> ($(Array<$T, R>,)+) {
                let shape = self.shape;
                let columns = self.into_columns();
                ($(Array::from_parts_unchecked(shape, columns.$idx),)+)
            }
        }
    };
}

unzip!(A 0, B 1);
unzip!(A 0, B 1, C 2);
unzip!(A 0, B 1, C 2, D 3);
unzip!(A 0, B 1, C 2, D 3, F 4);
unzip!(A 0, B 1, C 2, D 3, F 4, G 5);

/// A rank-2 array of shape `[rows, cols]`, stored row after row; made with
/// [`Array::from_shape_vec`] or [`Array::from_shape_fn`], its dimensions read with
/// [`Matrix::rows`] and [`Matrix::cols`].
pub type Matrix<E> = Array<E, 2>;

impl<E: Elem, const R: usize> Array<E, R> {
    /// The array of `shape` holding `v` in row-major order (for a matrix: the first row, then
    /// the second, ...). `Matrix::from_shape_vec` and `Array::<E, 3>::from_shape_vec` are this
    /// function at ranks 2 and 3.
    ///
    /// ```
    /// use accel_runtime::{Array, Matrix};
    ///
    /// let m = Matrix::from_shape_vec([2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// assert_eq!(m.at([1, 2]), Some(6.0));
    /// let cube = Array::from_shape_vec([2, 1, 2], vec![1i64, 2, 3, 4])?;
    /// assert_eq!(cube.at([1, 0, 0]), Some(3));
    /// assert!(Matrix::from_shape_vec([2, 2], vec![1, 2, 3]).is_err());
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::ShapeMismatch` if `v.len()` is not the product of `shape` (a product beyond
    /// `usize` never matches).
    pub fn from_shape_vec(shape: [usize; R], v: Vec<E>) -> Result<Self> {
        Self::from_columns(shape, E::Columns::from_vec(v))
    }

    /// The array of `shape` whose element at `ix` is `f(ix)`, called once per element in
    /// row-major order, on the calling thread.
    ///
    /// ```
    /// use accel_runtime::Matrix;
    ///
    /// let identity = Matrix::from_shape_fn([3, 3], |[i, j]| u32::from(i == j));
    /// assert_eq!(identity.to_vec(), [1, 0, 0, 0, 1, 0, 0, 0, 1]);
    /// ```
    ///
    /// # Panics
    /// If the shape's size does not fit in memory; [`crate::cpu::generate`] reports that as an
    /// error instead (and runs in parallel).
    pub fn from_shape_fn(shape: [usize; R], mut f: impl FnMut([usize; R]) -> E) -> Self {
        let n = shape::size(shape);
        let mut ix = [0; R];
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(f(ix));
            shape::step(shape, &mut ix);
        }
        Array { shape, data: Storage::host(E::Columns::from_vec(v)) }
    }

    /// The array of `shape` over existing columns ([`Elem::Columns`]: a `Vec` for a scalar
    /// element, a tuple of column vectors for a tuple), moved in without copying.
    ///
    /// ```
    /// use accel_runtime::Vector;
    ///
    /// let pairs = Vector::<(u32, f32)>::from_columns([2], (vec![1, 2], vec![0.5, 1.5]))?;
    /// assert_eq!(pairs.to_vec(), [(1, 0.5), (2, 1.5)]);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::ShapeMismatch` if the columns do not hold the product of `shape` elements.
    pub fn from_columns(shape: [usize; R], cols: E::Columns) -> Result<Self> {
        let size = shape::size(shape);
        if size != cols.len() {
            return Err(Error::shape_mismatch(
                "from_shape_vec",
                format!("{} elements for shape {shape:?}", Size(size)),
                format!("{} elements", cols.len()),
            ));
        }
        Ok(Array { shape, data: Storage::host(cols) })
    }

    /// Callers guarantee `cols.len() == size(shape)`.
    pub(crate) fn from_parts_unchecked(shape: [usize; R], cols: E::Columns) -> Self {
        debug_assert_eq!(shape::size(shape), cols.len());
        Array { shape, data: Storage::host(cols) }
    }

    /// Brings the elements of a GPU result to the host now (once: later reads use the host
    /// copy), and returns the array. A host array, and every array of a build without the
    /// `cuda` feature, is returned as it is, so code that calls it runs on every backend.
    ///
    /// ```
    /// use accel_runtime::Vector;
    /// let xs = Vector::from_vec(vec![1, 2]);
    /// assert_eq!(xs.download()?.to_vec(), [1, 2]);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// The device's failure, if the download or the work that computes the array failed
    /// (reading an element downloads too, but panics on such a failure).
    pub fn download(&self) -> Result<&Self> {
        #[cfg(feature = "cuda")]
        self.data.download()?;
        Ok(self)
    }

    /// The extent of each dimension, outermost first (`[rows, cols]` for a matrix, `[]` for a
    /// scalar).
    ///
    /// ```
    /// use accel_runtime::{Matrix, Scalar};
    /// assert_eq!(Matrix::from_shape_vec([2, 3], vec![0; 6])?.shape(), [2, 3]);
    /// assert_eq!(Scalar::new(1i32).shape(), [0usize; 0]);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    pub fn shape(&self) -> [usize; R] {
        self.shape
    }

    /// Number of elements: the product of the shape (1 for a scalar).
    ///
    /// ```
    /// use accel_runtime::Matrix;
    /// assert_eq!(Matrix::from_shape_vec([2, 3], vec![0; 6])?.len(), 6);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        shape::size(self.shape)
    }

    /// Whether the array has no elements (some dimension is 0; never for a scalar).
    ///
    /// ```
    /// use accel_runtime::Matrix;
    /// assert!(Matrix::<f32>::from_shape_vec([0, 4], vec![])?.is_empty());
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of dimensions, `R`.
    pub fn rank(&self) -> usize {
        R
    }

    /// The elements in row-major order, copied into a `Vec` (for tuples: the columns zipped
    /// back into tuples). On a GPU result this downloads the elements first (see "Device-resident
    /// arrays" above).
    ///
    /// ```
    /// use accel_runtime::Matrix;
    /// let m = Matrix::from_shape_fn([2, 2], |[i, j]| 10 * i + j);
    /// assert_eq!(m.to_vec(), [0, 1, 10, 11]);
    /// ```
    pub fn to_vec(&self) -> Vec<E> {
        self.data.columns().to_vec()
    }

    /// The column storage (see [`Elem::Columns`]), borrowed without copying.
    pub fn columns(&self) -> &E::Columns {
        self.data.columns()
    }

    /// The column storage, by value: the array's elements without a copy (for tuples, one
    /// vector per field).
    pub fn into_columns(self) -> E::Columns {
        self.data.into_columns()
    }

    /// Element at row-major position `i`. Panics if `i >= len()`; use [`Array::at`] for a checked
    /// read.
    #[inline]
    pub fn get_linear(&self, i: usize) -> E {
        self.data.columns().get(i)
    }

    /// Element at `ix`, with no bounds check: a read that fusion or flattening proves in bounds
    /// (`accel_core::ir::ReadSite::Elementwise`, `Flattened`), which generated code makes as the
    /// device's does. Closures read the arrays they capture through a `cpu::View`, whose
    /// `element` this is; code that reads an array it did not capture (a delayed array's
    /// element computed in place) reads the array itself.
    ///
    /// ```
    /// use accel_runtime::Matrix;
    /// let m = Matrix::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
    /// // SAFETY: [1, 0] lies inside the shape [2, 3].
    /// assert_eq!(unsafe { m.element([1, 0]) }, 4);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    ///
    /// # Safety
    /// `ix` lies inside the array's shape.
    #[inline]
    pub unsafe fn element(&self, ix: [usize; R]) -> E {
        // SAFETY: the caller's `ix` inside the shape.
        unsafe { crate::cpu::View::of(self).element(ix) }
    }

    /// Element at `ix` (`[row, col]` for a matrix), or `None` outside the shape: the checked
    /// read.
    ///
    /// ```
    /// use accel_runtime::Matrix;
    /// let m = Matrix::from_shape_vec([2, 2], vec![1, 2, 3, 4])?;
    /// assert_eq!((m.at([1, 0]), m.at([0, 2])), (Some(3), None));
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    pub fn at(&self, ix: [usize; R]) -> Option<E> {
        shape::contains(self.shape, ix).then(|| self.data.columns().get(shape::ravel(self.shape, ix)))
    }

    /// The elements in row-major order, by value, without collecting them.
    ///
    /// ```
    /// use accel_runtime::Vector;
    /// let xs = Vector::from_vec(vec![1.5f32, 2.5]);
    /// assert_eq!(xs.iter().sum::<f32>(), 4.0);
    /// ```
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = E> + ExactSizeIterator + '_ {
        self.data.columns().iter_range(0..self.len())
    }
}

impl<E: Elem> Vector<E> {
    /// The vector of `v`'s elements, taking ownership of them (tuple elements are split into
    /// columns). It cannot fail: its shape is `[v.len()]`.
    ///
    /// ```
    /// use accel_runtime::Vector;
    /// let xs = Vector::from_vec(vec![1u32, 2]);
    /// assert_eq!((xs.shape(), xs.to_vec()), ([2], vec![1, 2]));
    /// ```
    pub fn from_vec(v: Vec<E>) -> Self {
        Array { shape: [v.len()], data: Storage::host(E::Columns::from_vec(v)) }
    }

    /// The vector of a copy of `v`'s elements.
    ///
    /// ```
    /// use accel_runtime::Vector;
    /// assert_eq!(Vector::from_slice(&[(1, true), (2, false)]).len(), 2);
    /// ```
    pub fn from_slice(v: &[E]) -> Self {
        Self::from_vec(v.to_vec())
    }
}

/// `iter.collect::<Vector<_>>()`: the vector of the items in order.
///
/// ```
/// use accel_runtime::Vector;
/// let squares: Vector<u64> = (1..=4).map(|i| i * i).collect();
/// assert_eq!(squares.to_vec(), [1, 4, 9, 16]);
/// ```
impl<E: Elem> FromIterator<E> for Vector<E> {
    fn from_iter<I: IntoIterator<Item = E>>(iter: I) -> Self {
        Self::from_vec(iter.into_iter().collect())
    }
}

impl<E: Elem> Scalar<E> {
    /// The scalar holding `e`: how a host value is passed where an `#[accel]` function takes a
    /// `Scalar` (element parameters are passed by value instead).
    ///
    /// ```
    /// use accel_runtime::Scalar;
    /// assert_eq!(Scalar::new(2.5f64).get(), 2.5);
    /// ```
    pub fn new(e: E) -> Self {
        Array { shape: [], data: Storage::host(E::Columns::from_vec(vec![e])) }
    }

    /// The one element (on a GPU result, downloaded first).
    ///
    /// ```
    /// use accel_runtime::Scalar;
    /// assert_eq!(Scalar::new((1u32, false)).get(), (1, false));
    /// ```
    pub fn get(&self) -> E {
        self.data.columns().get(0)
    }
}

impl<E: Elem> Matrix<E> {
    /// The number of rows, `shape()[0]` (also `m.rows()` inside `#[accel]`).
    ///
    /// ```
    /// use accel_runtime::Matrix;
    /// let m = Matrix::from_shape_vec([2, 3], vec![0; 6])?;
    /// assert_eq!((m.rows(), m.cols()), (2, 3));
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    pub fn rows(&self) -> usize {
        self.shape[0]
    }

    /// The number of columns (the length of each row), `shape()[1]` (also `m.cols()` inside
    /// `#[accel]`).
    pub fn cols(&self) -> usize {
        self.shape[1]
    }
}

/// Writes a size that may have saturated.
struct Size(usize);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == usize::MAX { f.write_str("more than usize::MAX") } else { write!(f, "{}", self.0) }
    }
}

impl<E: Elem, const R: usize> fmt::Debug for Array<E, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Array").field("shape", &self.shape).field("data", self.data.columns()).finish()
    }
}

/// Dimensions longer than this print only their first and last [`EDGE`] entries.
const ELIDE_ABOVE: usize = 10;
const EDGE: usize = 3;

impl<E: Elem, const R: usize> fmt::Display for Array<E, R> {
    /// Prints like a nested Rust array, one row per line, eliding the middle of long dimensions.
    ///
    /// ```
    /// use accel_runtime::{Matrix, Vector};
    /// let v = Vector::from_vec((0..20).collect::<Vec<i32>>());
    /// assert_eq!(v.to_string(), "[0, 1, 2, ..., 17, 18, 19]");
    /// let m = Matrix::from_shape_vec([2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?;
    /// assert_eq!(m.to_string(), "[[1.0, 2.0],\n [3.0, 4.0]]");
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if R == 0 {
            return write!(f, "{:?}", self.data.columns().get(0));
        }
        self.fmt_dim(f, 0, 0)
    }
}

impl<E: Elem, const R: usize> Array<E, R> {
    /// Prints dimension `d` of the sub-array starting at row-major position `start`.
    fn fmt_dim(&self, f: &mut fmt::Formatter<'_>, d: usize, start: usize) -> fmt::Result {
        let n = self.shape[d];
        let stride: usize = self.shape[d + 1..].iter().product();
        f.write_str("[")?;
        for i in 0..n {
            if n > ELIDE_ABOVE && i == EDGE {
                f.write_str(if d + 1 == R { "..., " } else { "...,\n" })?;
                if d + 1 < R {
                    f.write_str(&" ".repeat(d + 1))?;
                }
            }
            if n > ELIDE_ABOVE && (EDGE..n - EDGE).contains(&i) {
                continue;
            }
            if d + 1 == R {
                write!(f, "{:?}", self.data.columns().get(start + i))?;
            } else {
                self.fmt_dim(f, d + 1, start + i * stride)?;
            }
            if i + 1 < n {
                if d + 1 == R {
                    f.write_str(", ")?;
                } else {
                    // A blank line between the matrices of a rank-3 array.
                    f.write_str(if R - d > 2 { ",\n\n" } else { ",\n" })?;
                    f.write_str(&" ".repeat(d + 1))?;
                }
            }
        }
        f.write_str("]")
    }
}

#[cfg(feature = "ndarray")]
mod nd {
    //! Conversions to and from `ndarray` (the `ndarray` feature of `accel`), rank 0 to 3, in
    //! both directions with `From`: `ndarray::Array2::from(&m)` or `(&m).into()` gives an owned
    //! ndarray array, `Matrix::from(&nd)` or [`Array::from_ndarray`] an accel array. Arrays in
    //! any ndarray layout (transposed, sliced with steps) convert in logical (row-major) order,
    //! copying the elements once.

    use super::*;
    use ndarray::{ArrayBase, Data, Ix0, Ix1, Ix2, Ix3};

    macro_rules! ndarray_rank {
        ($($r:literal $ix:ident),*) => {$(
            impl<E: Elem> From<&Array<E, $r>> for ndarray::Array<E, $ix> {
                fn from(a: &Array<E, $r>) -> Self {
                    ndarray::Array::from_shape_vec(ndarray::Dim(a.shape()), a.to_vec())
                        .unwrap_or_else(|e| unreachable!("an array's size matches its shape: {e}"))
                }
            }

            impl<E: Elem, S: Data<Elem = E>> From<&ArrayBase<S, $ix>> for Array<E, $r> {
                fn from(a: &ArrayBase<S, $ix>) -> Self {
                    let mut shape = [0; $r];
                    shape.copy_from_slice(a.shape());
                    let v = match a.as_slice() {
                        Some(s) => s.to_vec(),
                        None => a.iter().copied().collect(),
                    };
                    Array::from_parts_unchecked(shape, E::Columns::from_vec(v))
                }
            }
        )*};
    }

    ndarray_rank!(0 Ix0, 1 Ix1, 2 Ix2, 3 Ix3);

    impl<E: Elem, const R: usize> Array<E, R> {
        /// Converts an `ndarray` array (or view) of the same rank (0 to 3), in logical order
        /// whatever its layout; it cannot fail, the shapes having the same rank. The other
        /// direction is `From<&Array>` for `ndarray::Array`.
        ///
        /// ```
        /// use accel_runtime::Matrix;
        /// let nd = ndarray::array![[1, 2, 3], [4, 5, 6]];
        /// let m = Matrix::from_ndarray(&nd.t());
        /// assert_eq!(m.shape(), [3, 2]);
        /// assert_eq!(m.to_vec(), vec![1, 4, 2, 5, 3, 6]);
        /// let back: ndarray::Array2<i32> = (&m).into();
        /// assert_eq!(back, nd.t());
        /// ```
        pub fn from_ndarray<S: Data<Elem = E>, D>(a: &ArrayBase<S, D>) -> Self
        where
            Self: for<'a> From<&'a ArrayBase<S, D>>,
        {
            Self::from(a)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn every_rank_round_trips() {
            let s = Scalar::new(2.5f64);
            let nd: ndarray::Array0<f64> = (&s).into();
            assert_eq!(Scalar::from_ndarray(&nd), s);
            let v = Vector::from_vec(vec![(1u32, true), (2, false)]);
            let nd: ndarray::Array1<(u32, bool)> = (&v).into();
            assert_eq!(Vector::from_ndarray(&nd), v);
            let a = Array::from_shape_fn([2, 3, 4], |[i, j, k]| (i * 12 + j * 4 + k) as i64);
            let nd: ndarray::Array3<i64> = (&a).into();
            assert_eq!(nd[[1, 2, 3]], 23);
            assert_eq!(Array::from_ndarray(&nd), a);
            let sliced = nd.slice(ndarray::s![.., ..;2, 1..]);
            let b = Array::<i64, 3>::from_ndarray(&sliced);
            assert_eq!(b.shape(), [2, 2, 3]);
            assert_eq!(b.at([1, 1, 0]), Some(12 + 8 + 1));
        }

        #[test]
        fn bytes_and_small_integers_round_trip() {
            let image = Matrix::from_shape_fn([3, 5], |[i, j]| (i * 90 + j * 40) as u8);
            let nd: ndarray::Array2<u8> = (&image).into();
            // 2 * 90 + 4 * 40 = 340, kept modulo 256 by `as u8`.
            assert_eq!((nd[[2, 4]], Matrix::from_ndarray(&nd.t()).shape()), (84, [5, 3]));
            assert_eq!(Matrix::from_ndarray(&nd), image);
            let v = Vector::from_vec(vec![(-3i8, 65535u16, (i16::MIN, 1.5f32))]);
            let nd: ndarray::Array1<(i8, u16, (i16, f32))> = (&v).into();
            assert_eq!(Vector::from_ndarray(&nd), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_mismatch_is_an_error() {
        let e = Matrix::from_shape_vec([2, 3], vec![1, 2, 3]).unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        assert!(e.to_string().contains("6 elements"));
        let e = Matrix::<u32>::from_shape_vec([usize::MAX, 2], vec![]).unwrap_err();
        assert!(e.to_string().contains("more than usize::MAX"), "{e}");
    }

    #[test]
    fn accessors() {
        let a = Array::from_shape_fn([2, 3, 4], |[i, j, k]| (i * 100 + j * 10 + k) as i64);
        assert_eq!((a.len(), a.rank(), a.is_empty()), (24, 3, false));
        assert_eq!(a.at([1, 2, 3]), Some(123));
        assert_eq!(a.at([1, 3, 0]), None);
        assert_eq!(a.get_linear(23), 123);
        assert_eq!(a.iter().next_back(), Some(123));
        assert_eq!(a.columns().len(), 24);
        let e: Vector<f32> = Vector::from_vec(vec![]);
        assert!(e.is_empty());
        assert_eq!(Scalar::new((1u64, false)).get(), (1, false));
        assert_eq!(Vector::from_slice(&[1usize, 2]).into_columns(), vec![1, 2]);
    }

    #[test]
    fn display_elides_long_dimensions() {
        let s = Scalar::new(3i32);
        assert_eq!(s.to_string(), "3");
        let m = Matrix::from_shape_fn([12, 2], |[i, j]| (i * 2 + j) as u32);
        let text = m.to_string();
        assert!(text.starts_with("[[0, 1],\n [2, 3],\n [4, 5],\n ...,\n [18, 19],"), "{text}");
        let a = Array::from_shape_fn([2, 1, 2], |[i, _, k]| i * 2 + k);
        assert_eq!(a.to_string(), "[[[0, 1]],\n\n [[2, 3]]]");
        let e: Matrix<i32> = Matrix::from_shape_vec([0, 3], vec![]).unwrap();
        assert_eq!(e.to_string(), "[]");
    }
}
