//! Shared helpers of the property tests: the runtime, input sizes and shapes, element generators
//! that never produce all-zero data, seeded generators for the large inputs, and the comparisons
//! (exact for integers and for elementwise float code, within a stated bound for regrouped float
//! reductions).
//!
//! Every property checks three results against each other: the CPU backend (`f(rt(), ..)`), the
//! reference interpreter (`f::reference(..)`) and a sequential plain-Rust oracle in the test.

// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

use accel::{Error, Runtime};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};
use std::fmt::Debug;
use std::sync::LazyLock;

/// The result type of a property body.
pub type Check = Result<(), TestCaseError>;

static RUNTIME: LazyLock<Runtime> = LazyLock::new(Runtime::cpu);

/// One CPU runtime shared by all the tests of a binary (its thread pool is started once).
pub fn rt() -> &'static Runtime {
    &RUNTIME
}

/// The proptest configuration of the suite: few cases (each case runs the interpreter, which is
/// slow), no regression files in the source tree, and bounded shrinking so that a failure on a
/// large input still reports within a reasonable time.
pub fn config(cases: u32) -> Config {
    Config { cases, failure_persistence: None, max_shrink_iters: 2048, max_shrink_time: 30_000, ..Config::default() }
}

/// Sizes that catch edge cases: empty, one, primes, powers of two and their neighbours (block and
/// chunk boundaries), and a few thousands.
pub const SIZES: &[usize] = &[
    0, 1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 251, 255, 256, 257, 509, 1021, 1023, 1024,
    1025, 2047, 2049, 4093, 4095, 4097,
];

/// Around 100_000 elements: several of the CPU backend's chunks (its smallest task is 2^14
/// elements and it only splits runs of 2^15 or more), with sizes that do not divide evenly.
pub const LARGE_SIZES: &[usize] = &[32_767, 32_769, 65_537, 99_991, 100_003, 131_073];

/// A vector length from [`SIZES`], or any length up to a few thousand.
pub fn size() -> impl Strategy<Value = usize> {
    prop_oneof![3 => prop::sample::select(SIZES), 1 => 0usize..3000]
}

/// A small vector length (for programs whose output grows quadratically, or slow oracles).
pub fn small_size() -> impl Strategy<Value = usize> {
    prop::sample::select(&SIZES[..20])
}

pub fn large_size() -> impl Strategy<Value = usize> {
    prop::sample::select(LARGE_SIZES)
}

/// Matrix shapes: empty in either dimension, single rows and columns, odd primes, one past powers
/// of two, and long thin ones.
pub const SHAPES: &[(usize, usize)] = &[
    (0, 0),
    (0, 5),
    (5, 0),
    (1, 1),
    (1, 17),
    (1, 257),
    (17, 1),
    (257, 1),
    (2, 3),
    (7, 13),
    (13, 7),
    (16, 16),
    (31, 33),
    (33, 65),
    (65, 33),
    (3, 1025),
    (1025, 3),
    (64, 64),
];

pub fn shape() -> impl Strategy<Value = (usize, usize)> {
    prop_oneof![4 => prop::sample::select(SHAPES), 1 => (0usize..40, 0usize..40)]
}

/// A matrix shape and what `f` builds from it (its data, segment lengths, ...).
pub fn with_shape<V: Debug, S: Strategy<Value = V>>(
    f: impl Fn(usize, usize) -> S,
) -> impl Strategy<Value = ((usize, usize), V)> {
    shape().prop_flat_map(move |(r, c)| (Just((r, c)), f(r, c)))
}

/// The same with at least one row and one column.
pub fn with_nonempty_shape<V: Debug, S: Strategy<Value = V>>(
    f: impl Fn(usize, usize) -> S,
) -> impl Strategy<Value = ((usize, usize), V)> {
    nonempty_shape().prop_flat_map(move |(r, c)| (Just((r, c)), f(r, c)))
}

/// A matrix shape with at least one row and one column (for `slice_row` and friends).
pub fn nonempty_shape() -> impl Strategy<Value = (usize, usize)> {
    shape().prop_filter("needs a row and a column", |&(r, c)| r > 0 && c > 0)
}

/// Element types of the generators.
pub trait Num: Copy + PartialEq + Debug + 'static {
    /// A value that is not zero, used when a generated input came out all zero.
    const ONE: Self;
    fn is_zero(self) -> bool;
}

macro_rules! num {
    ($($t:ty => $one:expr),*) => {$(
        impl Num for $t {
            const ONE: Self = $one;
            fn is_zero(self) -> bool {
                self == (0 as $t)
            }
        }
    )*};
}

num!(i32 => 1, i64 => 1, u32 => 1, u64 => 1, usize => 1, f32 => 1.0, f64 => 1.0);

/// Makes sure an input is not all zeros (which would hide wrong indexing and lost elements).
pub fn not_all_zero<T: Num>(mut v: Vec<T>) -> Vec<T> {
    if !v.is_empty() && v.iter().all(|x| x.is_zero()) {
        v[0] = T::ONE;
    }
    v
}

/// A vector of `n` elements of `elem`, never all zero.
pub fn vec_of<T: Num, S: Strategy<Value = T>>(elem: S, n: usize) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(elem, n).prop_map(not_all_zero)
}

/// A vector whose length comes from `len`.
pub fn vec_sized<T: Num, S, L>(elem: S, len: L) -> impl Strategy<Value = Vec<T>>
where
    S: Strategy<Value = T> + Clone,
    L: Strategy<Value = usize>,
{
    len.prop_flat_map(move |n| vec_of(elem.clone(), n))
}

/// A matrix (shape and row-major data).
pub fn matrix_of<T: Num, S>(elem: S) -> impl Strategy<Value = ((usize, usize), Vec<T>)>
where
    S: Strategy<Value = T> + Clone,
{
    shape().prop_flat_map(move |(r, c)| (Just((r, c)), vec_of(elem.clone(), r * c)))
}

/// Floats in `[-100, 100]`, mostly away from zero: a mix of magnitudes and both signs, so that
/// cancellation in sums is realistic but results stay far from overflow.
pub fn f32s() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        4 => -100.0f32..100.0,
        1 => -1.0f32..1.0,
        1 => prop::sample::select(vec![0.0f32, -0.0, 1.0, -1.0, 0.5, 3.0]),
    ]
}

pub fn f64s() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        4 => -100.0f64..100.0,
        1 => -1.0f64..1.0,
        1 => prop::sample::select(vec![0.0f64, -0.0, 1.0, -1.0, 0.5, 3.0]),
    ]
}

/// Positive floats near 1, whose products over thousands of elements neither overflow nor
/// underflow.
pub fn f64_near_one() -> impl Strategy<Value = f64> + Clone {
    0.9f64..1.1
}

pub fn f32_near_one() -> impl Strategy<Value = f32> + Clone {
    0.98f32..1.02
}

/// Integers over their whole range (so that sums and products wrap), with a share of small
/// values and of the extremes.
pub fn i32s() -> impl Strategy<Value = i32> + Clone {
    prop_oneof![
        2 => any::<i32>(),
        2 => -100i32..100,
        1 => prop::sample::select(vec![i32::MIN, i32::MAX, -1, 1, 0]),
    ]
}

pub fn i64s() -> impl Strategy<Value = i64> + Clone {
    prop_oneof![
        2 => any::<i64>(),
        2 => -100i64..100,
        1 => prop::sample::select(vec![i64::MIN, i64::MAX, -1, 1, 0]),
    ]
}

pub fn u32s() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![2 => any::<u32>(), 2 => 0u32..100, 1 => prop::sample::select(vec![u32::MAX, 1, 0])]
}

pub fn u64s() -> impl Strategy<Value = u64> + Clone {
    prop_oneof![2 => any::<u64>(), 2 => 0u64..100, 1 => prop::sample::select(vec![u64::MAX, 1, 0])]
}

/// Small integers, for results that must not wrap (counts, indices, lengths).
pub fn small_i32s() -> impl Strategy<Value = i32> + Clone {
    -1000i32..1000
}

/// Segment lengths (some empty) whose sum is `n`.
pub fn lengths_summing_to(n: usize) -> impl Strategy<Value = Vec<usize>> {
    // Cut points in 0..=n, sorted; empty segments come from repeated cut points and from the
    // extra zeros at the ends.
    (prop::collection::vec(0..=n, 0..12), 0usize..3, 0usize..3).prop_map(move |(mut cuts, lead, trail)| {
        cuts.sort_unstable();
        let mut lengths = vec![0; lead];
        let mut at = 0;
        for c in cuts {
            lengths.push(c - at);
            at = c;
        }
        lengths.push(n - at);
        lengths.extend(std::iter::repeat_n(0, trail));
        lengths
    })
}

/// Segment lengths, none empty, whose sum is `n` (for `fold1_seg`, where an empty segment has
/// no value).
pub fn positive_lengths_summing_to(n: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1..n.max(2), 0..12).prop_map(move |mut cuts| {
        cuts.retain(|&c| c < n);
        cuts.sort_unstable();
        cuts.dedup();
        let mut lengths = Vec::new();
        let mut at = 0;
        for c in cuts {
            lengths.push(c - at);
            at = c;
        }
        if n > 0 {
            lengths.push(n - at);
        }
        lengths
    })
}

/// Integer-valued floats in `[-64, 64]`. Sums of up to 2^18 of them are exact in `f32` (every
/// partial sum is an integer below 2^24), whatever the order and grouping, so reductions over
/// them can be compared exactly: a dropped or duplicated element shows even where the rounding
/// bound of arbitrary floats would hide it.
pub fn int_f32s() -> impl Strategy<Value = f32> + Clone {
    (-64i32..=64).prop_map(|x| x as f32)
}

pub fn int_f64s() -> impl Strategy<Value = f64> + Clone {
    (-64i32..=64).prop_map(|x| x as f64)
}

/// A deterministic pseudo-random generator (SplitMix64) for the large inputs: generating 100_000
/// elements through proptest strategies is slow and they would shrink element by element.
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        not_all_zero((0..n).map(|_| self.f64_in(lo as f64, hi as f64) as f32).collect())
    }

    pub fn f64s(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        not_all_zero((0..n).map(|_| self.f64_in(lo, hi)).collect())
    }

    pub fn i64s(&mut self, n: usize) -> Vec<i64> {
        not_all_zero((0..n).map(|_| self.next_u64() as i64).collect())
    }

    pub fn i32s(&mut self, n: usize) -> Vec<i32> {
        not_all_zero((0..n).map(|_| self.next_u64() as i32).collect())
    }

    pub fn u32s(&mut self, n: usize) -> Vec<u32> {
        not_all_zero((0..n).map(|_| self.next_u64() as u32).collect())
    }

    /// Integer-valued floats in `[-64, 64]` (see [`int_f32s`]).
    pub fn int_f32s(&mut self, n: usize) -> Vec<f32> {
        not_all_zero((0..n).map(|_| (self.below(129) as i32 - 64) as f32).collect())
    }

    /// Integers in `[0, bound)`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }
}

/// Unwraps an `accel::Result` of one side of a comparison, failing the case with its error.
pub fn ok<T>(side: &str, r: accel::Result<T>) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(format!("{side} failed: {e} ({e:?})")))
}

/// Runs both backends: `(cpu, interpreter)`, failing the case if either returns an error.
#[allow(unused_macros)]
macro_rules! both {
    ($f:ident($($arg:expr),* $(,)?)) => {
        (
            $crate::common::ok(concat!(stringify!($f), " on the CPU backend"), $f($crate::common::rt(), $($arg),*))?,
            $crate::common::ok(concat!(stringify!($f), "::reference"), $f::reference($($arg),*))?,
        )
    };
}

/// Runs both backends expecting an error: `(cpu error, interpreter error)`.
#[allow(unused_macros)]
macro_rules! both_err {
    ($f:ident($($arg:expr),* $(,)?)) => {
        (
            $crate::common::expect_err(
                concat!(stringify!($f), " on the CPU backend"),
                $f($crate::common::rt(), $($arg),*),
            ),
            $crate::common::expect_err(concat!(stringify!($f), "::reference"), $f::reference($($arg),*)),
        )
    };
}

/// The error of a result that must be one.
pub fn expect_err<T: Debug>(side: &str, r: accel::Result<T>) -> Error {
    match r {
        Ok(v) => {
            let text = format!("{v:?}");
            let short: String = text.chars().take(300).collect();
            panic!("{side}: expected an error, got Ok({short})")
        }
        Err(e) => e,
    }
}

/// The first position where two sequences differ, for short failure messages on large inputs.
fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

fn window<T: Debug>(v: &[T], at: usize) -> String {
    let lo = at.saturating_sub(2);
    let hi = (at + 3).min(v.len());
    format!("[{lo}..{hi}] = {:?}", &v[lo..hi])
}

/// `got == want` element for element (integers, bools, moved elements, and float code whose
/// operations happen in the same order everywhere).
pub fn same<T: PartialEq + Debug>(what: &str, got: &[T], want: &[T]) -> Check {
    if got.len() != want.len() {
        let g: Vec<_> = got.iter().take(20).collect();
        let w: Vec<_> = want.iter().take(20).collect();
        return Err(TestCaseError::fail(format!(
            "{what}: length {} but expected {}\n  got (first 20):  {g:?}\n  want (first 20): {w:?}",
            got.len(),
            want.len()
        )));
    }
    if let Some(i) = first_difference(got, want) {
        return Err(TestCaseError::fail(format!(
            "{what}: element {i} of {} differs: got {:?}, expected {:?}\n  got  {}\n  want {}",
            got.len(),
            got[i],
            want[i],
            window(got, i),
            window(want, i)
        )));
    }
    Ok(())
}

/// Both backends equal the oracle exactly.
pub fn all_same<T: PartialEq + Debug>(what: &str, cpu: &[T], interp: &[T], oracle: &[T]) -> Check {
    same(&format!("{what} (CPU backend vs oracle)"), cpu, oracle)?;
    same(&format!("{what} (interpreter vs oracle)"), interp, oracle)
}

/// Floats of either width, compared through `f64`.
pub trait Float: Copy + Debug + PartialEq + 'static {
    /// The unit roundoff of the type (half the machine epsilon).
    const UNIT: f64;
    fn to_f64(self) -> f64;
    fn bits(self) -> u64;
}

impl Float for f32 {
    const UNIT: f64 = f32::EPSILON as f64 / 2.0;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Float for f64 {
    const UNIT: f64 = f64::EPSILON / 2.0;
    fn to_f64(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// Bit-identical floats, except that every NaN equals every NaN (the contract promises IEEE
/// results, not NaN payloads); `0.0` and `-0.0` differ. For elementwise code, which runs the same
/// `std` functions in the same order on every backend.
pub fn same_bits<T: Float>(what: &str, got: &[T], want: &[T]) -> Check {
    let key = |x: &T| if x.to_f64().is_nan() { u64::MAX } else { x.bits() };
    let g: Vec<u64> = got.iter().map(key).collect();
    let w: Vec<u64> = want.iter().map(key).collect();
    if g.len() == w.len()
        && let Some(i) = first_difference(&g, &w)
    {
        return Err(TestCaseError::fail(format!(
            "{what}: element {i} of {} differs: got {:?}, expected {:?} (bits {:#x} vs {:#x})",
            got.len(),
            got[i],
            want[i],
            got[i].bits(),
            want[i].bits()
        )));
    }
    same(what, &g, &w)
}

/// Both backends are bit-identical to the oracle.
pub fn all_same_bits<T: Float>(what: &str, cpu: &[T], interp: &[T], oracle: &[T]) -> Check {
    same_bits(&format!("{what} (CPU backend vs oracle)"), cpu, oracle)?;
    same_bits(&format!("{what} (interpreter vs oracle)"), interp, oracle)
}

/// Equal as numbers: `0.0 == -0.0`, and any NaN equals any NaN.
pub fn same_value<T: Float>(what: &str, got: &[T], want: &[T]) -> Check {
    let eq = |a: &T, b: &T| {
        let (a, b) = (a.to_f64(), b.to_f64());
        a == b || (a.is_nan() && b.is_nan())
    };
    if got.len() != want.len() {
        return Err(TestCaseError::fail(format!("{what}: length {} but expected {}", got.len(), want.len())));
    }
    match got.iter().zip(want).position(|(a, b)| !eq(a, b)) {
        Some(i) => Err(TestCaseError::fail(format!(
            "{what}: element {i} of {} differs: got {:?}, expected {:?}",
            got.len(),
            got[i],
            want[i]
        ))),
        None => Ok(()),
    }
}

/// For `min`/`max` of floats, whose sign of a zero result Rust leaves open (`0.0.max(-0.0)` may
/// be either zero): the backends must still agree bit for bit (docs/semantics.md: everything not
/// said to differ is bit-identical), and equal the oracle as numbers.
pub fn all_same_min_max<T: Float>(what: &str, cpu: &[T], interp: &[T], oracle: &[T]) -> Check {
    same_bits(&format!("{what} (CPU backend vs interpreter)"), cpu, interp)?;
    same_value(&format!("{what} (CPU backend vs oracle)"), cpu, oracle)?;
    same_value(&format!("{what} (interpreter vs oracle)"), interp, oracle)
}

/// `|got[i] - want[i]| <= bound[i]` for every `i` (NaN only where the oracle is NaN).
pub fn close<T: Float>(what: &str, got: &[T], want: &[f64], bound: &[f64]) -> Check {
    if got.len() != want.len() {
        return Err(TestCaseError::fail(format!("{what}: length {} but expected {}", got.len(), want.len())));
    }
    for (i, ((&g, &w), &b)) in got.iter().zip(want).zip(bound).enumerate() {
        let g = g.to_f64();
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= b
        };
        if !ok {
            return Err(TestCaseError::fail(format!(
                "{what}: element {i} of {} is {g:e}, expected {w:e} within {b:e} (off by {:e})",
                got.len(),
                (g - w).abs()
            )));
        }
    }
    Ok(())
}

/// Both backends within the bounds of the oracle.
pub fn all_close<T: Float>(what: &str, cpu: &[T], interp: &[T], oracle: &[f64], bound: &[f64]) -> Check {
    close(&format!("{what} (CPU backend vs oracle)"), cpu, oracle, bound)?;
    close(&format!("{what} (interpreter vs oracle)"), interp, oracle, bound)
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
