//! The property tests' side of the corpus: the proptest configuration and runner, input sizes
//! and shapes, and element strategies that never produce all-zero data.
//!
//! A property test is a trial like any other: [`props`] runs a `TestRunner` inside it, on the
//! trial's backend, and a failure reports the shrunk input. Its sizes are the CPU's (small
//! awkward sizes, and a few properties at [`LARGE_SIZES`]) on every backend; the sweeps
//! (`harness::Tier`) bring the GPU's large sizes.

use crate::harness::{Check, Rng};
use libtest_mimic::Failed;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::fmt::Debug;

/// Runs the property `test` on `cases` inputs drawn from `strategy` (proptest's random seed, as
/// the `proptest!` macro uses), shrinking a failing input before reporting it.
pub fn props<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Check) -> Check {
    let mut runner = TestRunner::new(config(cases));
    runner
        .run(&strategy, |value| {
            test(value).map_err(|e| TestCaseError::fail(e.message().unwrap_or("failed").to_string()))
        })
        .map_err(|e| Failed::from(e.to_string()))
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

num!(i8 => 1, i16 => 1, i32 => 1, i64 => 1, u8 => 1, u16 => 1, u32 => 1, u64 => 1, usize => 1, f32 => 1.0, f64 => 1.0);

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

/// A deterministic pseudo-random generator (the harness's SplitMix64 [`Rng`]) for the large
/// inputs of the property tests, seeded by proptest: generating 100_000 elements through
/// strategies is slow and they would shrink element by element. Its integers cover the whole
/// range of their type, unlike [`Rng::vec`]'s.
pub struct SplitMix(Rng);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        SplitMix(Rng::seeded(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `[lo, hi)`.
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        self.0.f64_in(lo, hi)
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
