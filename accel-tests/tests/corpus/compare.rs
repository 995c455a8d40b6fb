//! The comparisons of the corpus, and the rules that make them differ between backends.
//!
//! Every test compares the backend's result with the interpreter's, and the property tests
//! also with a plain-Rust oracle. The rules:
//! - integers, bools and moved elements: exact on every backend;
//! - floats computed elementwise: bit for bit on the CPU (the generated code and the interpreter
//!   share `accel_core::ops`, so the same operations run in the same order), within [`ELEM_TOL`]
//!   relative on the GPU (the device's `libm` may differ from `std` by an ulp or two, and the
//!   device compiler contracts `a * b + c` into a fused multiply-add);
//! - float reductions and scans: within a bound relative to the sum of the absolute values that
//!   went into each result, on every backend, because the CPU's chunks and the GPU's blocks sum
//!   in other orders than the interpreter. The sweeps use [`Float::SUM_TOL`] times that sum,
//!   computed here for plain sums and otherwise by the interpreter running the same program on
//!   the absolute values (so that it follows the program's structure); the property tests use
//!   the rounding-error bound of the operation ([`sum_bound`], [`product_bound`]) against an
//!   accurate oracle, and on the GPU also admit [`ELEM_TOL`] relative.
//!
//! The interpreter's agreement with an oracle does not depend on the backend, so the CPU trial
//! is where it is held to the strict rule; the GPU trial checks it with the same functions.

use crate::harness::{Check, Target};
use accel::{Array, Elem, Error};
use libtest_mimic::Failed;
use std::fmt::Debug;

fn window<T: Debug>(v: &[T], at: usize) -> String {
    let lo = at.saturating_sub(2);
    let hi = (at + 3).min(v.len());
    format!("[{lo}..{hi}] = {:?}", &v[lo..hi])
}

fn lengths<T: Debug>(what: &str, got: &[T], want: &[T]) -> Check {
    if got.len() == want.len() {
        return Ok(());
    }
    let g: Vec<_> = got.iter().take(12).collect();
    let w: Vec<_> = want.iter().take(12).collect();
    Err(Failed::from(format!(
        "{what}: {} elements, expected {}\n  got (first 12):  {g:?}\n  want (first 12): {w:?}",
        got.len(),
        want.len()
    )))
}

/// The first element where `agree` fails, as a failure that shows its neighbourhood.
fn first_disagreement<T: Debug>(what: &str, got: &[T], want: &[T], agree: impl Fn(&T, &T) -> bool) -> Check {
    lengths(what, got, want)?;
    match got.iter().zip(want).position(|(g, w)| !agree(g, w)) {
        None => Ok(()),
        Some(i) => Err(Failed::from(format!(
            "{what}: element {i} of {} is {:?}, expected {:?}\n  got  {}\n  want {}",
            got.len(),
            got[i],
            want[i],
            window(got, i),
            window(want, i)
        ))),
    }
}

/// Element for element equality (integers, bools, moved elements).
pub fn exact<T: PartialEq + Debug>(what: &str, got: &[T], want: &[T]) -> Check {
    first_disagreement(what, got, want, |g, w| g == w)
}

fn same_shape<E: Elem, const R: usize>(what: &str, got: &Array<E, R>, want: &Array<E, R>) -> Check {
    if got.shape() != want.shape() {
        return Err(Failed::from(format!("{what}: shape {:?}, expected {:?}", got.shape(), want.shape())));
    }
    Ok(())
}

/// Same shape and elements.
pub fn same<E: Elem + PartialEq + Debug, const R: usize>(what: &str, got: &Array<E, R>, want: &Array<E, R>) -> Check {
    same_shape(what, got, want)?;
    exact(what, &got.to_vec(), &want.to_vec())
}

/// `f32` and `f64`, compared through `f64`.
pub trait Float: Elem + Copy + Debug + PartialEq + 'static {
    /// Tolerance of a reduction or scan in the sweeps, relative to the sum of the absolute
    /// values.
    const SUM_TOL: f64;
    /// The unit roundoff of the type (half the machine epsilon).
    const UNIT: f64;
    fn to_f64(self) -> f64;
    fn bits(self) -> u64;
    fn abs_value(self) -> Self;
}

impl Float for f32 {
    const SUM_TOL: f64 = 1e-4;
    const UNIT: f64 = f32::EPSILON as f64 / 2.0;
    fn to_f64(self) -> f64 {
        self.into()
    }
    fn bits(self) -> u64 {
        self.to_bits().into()
    }
    fn abs_value(self) -> Self {
        self.abs()
    }
}

impl Float for f64 {
    const SUM_TOL: f64 = 1e-10;
    const UNIT: f64 = f64::EPSILON / 2.0;
    fn to_f64(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn abs_value(self) -> Self {
        self.abs()
    }
}

/// Tolerance of floats computed elementwise on the GPU.
pub const ELEM_TOL: f64 = 1e-5;

/// `|got - want| <= bound`, NaN only against NaN and infinities exactly.
fn near(g: f64, w: f64, b: f64) -> bool {
    if w.is_nan() || g.is_nan() {
        w.is_nan() && g.is_nan()
    } else if w.is_infinite() || g.is_infinite() {
        g == w
    } else {
        (g - w).abs() <= b
    }
}

/// `|got - want| <= bound(i)` for every `i`.
fn within<F: Float>(what: &str, got: &[F], want: &[F], bound: impl Fn(usize) -> f64) -> Check {
    lengths(what, got, want)?;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (g.to_f64(), w.to_f64());
        let b = bound(i);
        if !near(g, w, b) {
            return Err(Failed::from(format!(
                "{what}: element {i} of {} is {g:e}, expected {w:e} within {b:e} (off by {:e})\n  got  {}\n  want {}",
                got.len(),
                (g - w).abs(),
                window(got, i),
                window(want, i)
            )));
        }
    }
    Ok(())
}

/// Floats computed elementwise: bit for bit on the CPU; on the GPU within [`ELEM_TOL`] of
/// `want`, relative to `max(|want|, scale)` (`scale` is the magnitude of the inputs, for results
/// that cancel).
pub fn close<F: Float>(t: &Target, what: &str, got: &[F], want: &[F], scale: f64) -> Check {
    close_scaled(t, what, got, want, &vec![scale; want.len()])
}

/// The same with a scale per element.
pub fn close_scaled<F: Float>(t: &Target, what: &str, got: &[F], want: &[F], scale: &[f64]) -> Check {
    if t.is_gpu() {
        within(what, got, want, |i| ELEM_TOL * want[i].to_f64().abs().max(scale[i]))
    } else {
        identical(what, got, want)
    }
}

/// Same shape, elements [`close`].
pub fn close_arrays<F: Float, const R: usize>(
    t: &Target,
    what: &str,
    got: &Array<F, R>,
    want: &Array<F, R>,
    scale: f64,
) -> Check {
    same_shape(what, got, want)?;
    close(t, what, &got.to_vec(), &want.to_vec(), scale)
}

/// Reductions and scans: within `F::SUM_TOL * abs_sums[i]`, where `abs_sums` is the same
/// program's result on the absolute values.
pub fn summed<F: Float>(what: &str, got: &[F], want: &[F], abs_sums: &[F]) -> Check {
    lengths(&format!("{what} (bounds)"), want, abs_sums)?;
    within(what, got, want, |i| F::SUM_TOL * abs_sums[i].to_f64() + 1e-300)
}

/// Same shape, elements [`summed`].
pub fn summed_arrays<F: Float, const R: usize>(
    what: &str,
    got: &Array<F, R>,
    want: &Array<F, R>,
    abs_sums: &Array<F, R>,
) -> Check {
    same_shape(what, got, want)?;
    summed(what, &got.to_vec(), &want.to_vec(), &abs_sums.to_vec())
}

/// The absolute values.
pub fn abs_all<F: Float>(xs: &[F]) -> Vec<F> {
    xs.iter().map(|x| x.abs_value()).collect()
}

/// Column 0 of a vector of pairs.
pub fn firsts<A: Copy, B: Copy>(v: &[(A, B)]) -> Vec<A> {
    v.iter().map(|p| p.0).collect()
}

/// Column 1 of a vector of pairs.
pub fn seconds<A: Copy, B: Copy>(v: &[(A, B)]) -> Vec<B> {
    v.iter().map(|p| p.1).collect()
}

/// Both sides failed with the same error: the same variant and location (the function, and for
/// a read written in the source, the read), and for an index error the same index and shape,
/// for a division the same operator. (Explanatory texts may differ.)
pub fn same_error<T: Debug>(
    t: &Target,
    what: &str,
    backend: accel::Result<T>,
    reference: accel::Result<T>,
) -> Result<Error, Failed> {
    let short = |v: &T| format!("{v:?}").chars().take(200).collect::<String>();
    let side = t.side();
    let (g, r) = match (backend, reference) {
        (Err(g), Err(r)) => (g, r),
        (Ok(v), Err(r)) => {
            return Err(Failed::from(format!("{what}: the {side} returned Ok({}), the interpreter {r:?}", short(&v))));
        }
        (Err(g), Ok(v)) => {
            return Err(Failed::from(format!(
                "{what}: the {side} failed with {g:?}, the interpreter returned Ok({})",
                short(&v)
            )));
        }
        (Ok(v), Ok(_)) => {
            return Err(Failed::from(format!("{what}: expected an error, both returned Ok({})", short(&v))));
        }
    };
    let agree = g.location() == r.location()
        && match (&g, &r) {
            (
                Error::IndexOutOfBounds { index: i1, shape: s1, .. },
                Error::IndexOutOfBounds { index: i2, shape: s2, .. },
            ) => i1 == i2 && s1 == s2,
            (Error::DivisionByZero { op: o1, .. }, Error::DivisionByZero { op: o2, .. }) => o1 == o2,
            _ => std::mem::discriminant(&g) == std::mem::discriminant(&r),
        };
    if !agree {
        return Err(Failed::from(format!("{what}: different errors\n  {side}: {g:?}\n  interpreter: {r:?}")));
    }
    Ok(g)
}

/// The error is of the variant whose `Debug` starts with `name`.
pub fn is_variant(what: &str, e: &Error, name: &str) -> Check {
    if format!("{e:?}").starts_with(name) {
        Ok(())
    } else {
        Err(Failed::from(format!("{what}: expected {name}, got {e:?}")))
    }
}

/// The error of a result that must be one.
pub fn expect_err<T: Debug>(side: &str, r: accel::Result<T>) -> Result<Error, Failed> {
    match r {
        Ok(v) => {
            let short: String = format!("{v:?}").chars().take(300).collect();
            Err(Failed::from(format!("{side}: expected an error, got Ok({short})")))
        }
        Err(e) => Ok(e),
    }
}

/// Runs both sides expecting an error: `(backend error, interpreter error)`.
macro_rules! both_err {
    ($t:ident, $f:ident($($arg:expr),* $(,)?)) => {
        (
            $crate::compare::expect_err(
                &format!(concat!(stringify!($f), " on the {}"), $t.side()),
                $f($t.rt()?, $($arg),*),
            )?,
            $crate::compare::expect_err(concat!(stringify!($f), "::reference"), $f::reference($($arg),*))?,
        )
    };
}

/// Values the GPU may compute a little differently: floats within [`ELEM_TOL`] (relative to
/// `max(|want|, 1)`), everything else exactly, tuples and vectors component by component.
pub trait Approx {
    fn approx(&self, want: &Self) -> bool;
}

macro_rules! approx_exact {
    ($($t:ty),*) => {$(
        impl Approx for $t {
            fn approx(&self, want: &Self) -> bool {
                self == want
            }
        }
    )*};
}

approx_exact!(i8, i16, i32, i64, u8, u16, u32, u64, usize, bool);

impl Approx for f32 {
    fn approx(&self, want: &Self) -> bool {
        near(self.to_f64(), want.to_f64(), ELEM_TOL * want.to_f64().abs().max(1.0))
    }
}

impl Approx for f64 {
    fn approx(&self, want: &Self) -> bool {
        near(*self, *want, ELEM_TOL * want.abs().max(1.0))
    }
}

macro_rules! approx_tuple {
    ($(($($T:ident $i:tt),+))*) => {$(
        impl<$($T: Approx),+> Approx for ($($T,)+) {
            fn approx(&self, want: &Self) -> bool {
                $(self.$i.approx(&want.$i))&&+
            }
        }
    )*};
}

approx_tuple! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, G 5)
}

impl<T: Approx> Approx for Vec<T> {
    fn approx(&self, want: &Self) -> bool {
        self.len() == want.len() && self.iter().zip(want).all(|(g, w)| g.approx(w))
    }
}

/// The backend's result against the interpreter's: exact on the CPU, [`Approx`] on the GPU.
pub fn agrees<T: PartialEq + Approx + Debug>(t: &Target, what: &str, got: &[T], interp: &[T]) -> Check {
    if t.is_gpu() { first_disagreement(what, got, interp, |g, w| g.approx(w)) } else { exact(what, got, interp) }
}

/// The property tests' rule: the interpreter equals the oracle exactly, and so does the backend
/// on the CPU; on the GPU the backend agrees with the interpreter ([`Approx`]).
pub fn all_same<T: PartialEq + Approx + Debug>(
    t: &Target,
    what: &str,
    backend: &[T],
    interp: &[T],
    oracle: &[T],
) -> Check {
    exact(&format!("{what} (interpreter vs oracle)"), interp, oracle)?;
    if t.is_gpu() {
        agrees(t, &format!("{what} (GPU vs interpreter)"), backend, interp)
    } else {
        exact(&format!("{what} (CPU backend vs oracle)"), backend, oracle)
    }
}

/// Bit-identical floats, except that every NaN equals every NaN (the contract promises IEEE
/// results, not NaN payloads); `0.0` and `-0.0` differ. For elementwise code, which runs the same
/// `std` functions in the same order on the CPU and in the interpreter.
fn identical<T: Float>(what: &str, got: &[T], want: &[T]) -> Check {
    let key = |x: &T| if x.to_f64().is_nan() { u64::MAX } else { x.bits() };
    first_disagreement(what, got, want, |g, w| key(g) == key(w))
}

/// Elementwise floats, backend against `want`: [`identical`] on the CPU, [`Approx`] on the GPU.
pub fn same_bits<T: Float + Approx>(t: &Target, what: &str, got: &[T], want: &[T]) -> Check {
    if t.is_gpu() { agrees(t, what, got, want) } else { identical(what, got, want) }
}

/// The interpreter is bit-identical to the oracle, and so is the backend on the CPU; on the GPU
/// the backend agrees with the interpreter ([`Approx`]).
pub fn all_same_bits<T: Float + Approx>(t: &Target, what: &str, backend: &[T], interp: &[T], oracle: &[T]) -> Check {
    identical(&format!("{what} (interpreter vs oracle)"), interp, oracle)?;
    if t.is_gpu() {
        agrees(t, &format!("{what} (GPU vs interpreter)"), backend, interp)
    } else {
        identical(&format!("{what} (CPU backend vs oracle)"), backend, oracle)
    }
}

/// Equal as numbers: `0.0 == -0.0`, and any NaN equals any NaN.
fn same_value<T: Float>(what: &str, got: &[T], want: &[T]) -> Check {
    first_disagreement(what, got, want, |a, b| {
        let (a, b) = (a.to_f64(), b.to_f64());
        a == b || (a.is_nan() && b.is_nan())
    })
}

/// For `min`/`max` of floats, whose sign of a zero result Rust leaves open (`0.0.max(-0.0)` may
/// be either zero): on the CPU the backend and the interpreter must still agree bit for bit
/// (docs/semantics.md: everything not said to differ is bit-identical); every side equals the
/// oracle as numbers.
pub fn all_same_min_max<T: Float>(t: &Target, what: &str, backend: &[T], interp: &[T], oracle: &[T]) -> Check {
    if !t.is_gpu() {
        identical(&format!("{what} (CPU backend vs interpreter)"), backend, interp)?;
    }
    same_value(&format!("{what} ({} vs oracle)", t.side()), backend, oracle)?;
    same_value(&format!("{what} (interpreter vs oracle)"), interp, oracle)
}

/// `|got[i] - want[i]| <= bound[i]` for every `i` (NaN only where the oracle is NaN); on the
/// GPU the bound is at least [`ELEM_TOL`] relative.
pub fn bounded<T: Float>(t: &Target, what: &str, got: &[T], want: &[f64], bound: &[f64]) -> Check {
    if got.len() != want.len() {
        return Err(Failed::from(format!("{what}: length {} but expected {}", got.len(), want.len())));
    }
    for (i, ((&g, &w), &b)) in got.iter().zip(want).zip(bound).enumerate() {
        let g = g.to_f64();
        let b = if t.is_gpu() { b.max(ELEM_TOL * w.abs()) } else { b };
        let fine = if w.is_nan() { g.is_nan() } else { near(g, w, b) };
        if !fine {
            return Err(Failed::from(format!(
                "{what}: element {i} of {} is {g:e}, expected {w:e} within {b:e} (off by {:e})",
                got.len(),
                (g - w).abs()
            )));
        }
    }
    Ok(())
}

/// Both sides within the bounds of the oracle.
pub fn all_close<T: Float>(
    t: &Target,
    what: &str,
    backend: &[T],
    interp: &[T],
    oracle: &[f64],
    bound: &[f64],
) -> Check {
    bounded(t, &format!("{what} ({} vs oracle)", t.side()), backend, oracle, bound)?;
    bounded(&crate::harness::CPU, &format!("{what} (interpreter vs oracle)"), interp, oracle, bound)
}

/// An accurate sum (Neumaier's compensated summation in `f64`), the oracle of float reductions.
pub fn exact_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for x in xs {
        let t = s + x;
        c += if s.abs() >= x.abs() { (s - t) + x } else { (x - t) + s };
        s = t;
    }
    s + c
}

/// The error bound of summing `n` terms whose absolute values add up to `abs_sum` in type `T`, in
/// any order and grouping: every one of the at most `n - 1` additions (plus the seed's) rounds
/// with a relative error of at most `u`, and each partial sum is bounded by `abs_sum`, so the
/// total error is at most `n * u * abs_sum` (Higham, Accuracy and Stability, §4.2, to first order;
/// the factor 1.01 and the tiny absolute term cover the second-order terms and subnormals).
pub fn sum_bound<T: Float>(n: usize, abs_sum: f64) -> f64 {
    1.01 * (n as f64 + 1.0) * T::UNIT * abs_sum + 1e-300
}

/// The bound of a product of `n` factors: each multiplication rounds with relative error `u`, so
/// the relative error is at most `(1 + u)^n - 1`, about `n * u`.
pub fn product_bound<T: Float>(n: usize, product: f64) -> f64 {
    1.01 * (n as f64 + 1.0) * T::UNIT * product.abs() + 1e-300
}

/// Row `r` of a row-major matrix with `cols` columns.
pub fn row<T>(data: &[T], cols: usize, r: usize) -> &[T] {
    &data[r * cols..(r + 1) * cols]
}

/// The sequential left fold of each row (`cols` elements each) of a row-major matrix: the
/// semantics of `fold`, written as plainly as possible.
pub fn fold_rows<T: Copy>(data: &[T], cols: usize, rows: usize, z: T, f: impl Fn(T, T) -> T) -> Vec<T> {
    (0..rows).map(|r| row(data, cols, r).iter().fold(z, |a, &b| f(a, b))).collect()
}

/// `fold1` of each row; `None` for an empty row.
pub fn fold1_rows<T: Copy>(data: &[T], cols: usize, rows: usize, f: impl Fn(T, T) -> T) -> Option<Vec<T>> {
    (0..rows).map(|r| row(data, cols, r).iter().copied().reduce(&f)).collect()
}

/// The ranges of consecutive segments of the given lengths.
pub fn segment_ranges(lengths: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut at = 0;
    lengths
        .iter()
        .map(|&l| {
            at += l;
            at - l..at
        })
        .collect()
}
