//! The shared parts of the GPU test binary: the one CUDA runtime, the input sizes, a seeded
//! generator, the comparisons, and the two locks that keep trials from hurting each other.
//!
//! Sizes: every trial runs the small sizes (0, 1, warp and block neighbours, a few thousand,
//! 65537); most add 2^20 ± 1; the few most important programs add 2^26 + 3. Sizes above
//! `2^ACCEL_GPU_TEST_MAX_LOG2 + 3` are skipped (default 26; the sanitizer runs use 20).
//!
//! Comparisons: integers, bools and moved elements exactly; floats computed elementwise within
//! 1e-5 relative (the device's `libm` and the host's `std` may differ by an ulp or two); float
//! reductions and scans within a bound relative to the sum of the absolute values that went into
//! each result (1e-4 for f32, 1e-10 for f64), because the device sums in another order. That sum
//! is computed here for plain sums, and otherwise by the interpreter running the same program on
//! the absolute values, so that it follows the program's structure (seeds, segments, direction).
//!
//! Locks: a trial at 2^26 elements peaks at about 6 GiB (the interpreter holds every element as a
//! dynamic value) and takes tens of seconds, so at most [`LARGE_PERMITS`] trials run such a size
//! at once. Programs that are expected to fail have the device to themselves (`Kind::Exclusive`):
//! a `Gpu` has one error slot, read when a program ends, so a failure that one program records
//! could otherwise be reported by another program running at the same time.

use accel::{Array, BackendKind, Elem, Error, Runtime};
use libtest_mimic::Failed;
use std::fmt::Debug;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The result of a trial or of one of its checks.
pub type Check = Result<(), Failed>;

/// How a trial shares the device with the others.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Kind {
    /// Runs a 2^26-element case: started first, so that the long runs overlap the short ones.
    Heavy,
    Normal,
    /// Expects device errors: runs alone, after the others.
    Exclusive,
}

/// One trial: a (combinator or example, element type) pair.
pub struct Case {
    pub name: &'static str,
    pub run: fn() -> Check,
    pub kind: Kind,
}

pub const fn case(name: &'static str, run: fn() -> Check) -> Case {
    Case { name, run, kind: Kind::Normal }
}

pub const fn heavy(name: &'static str, run: fn() -> Check) -> Case {
    Case { name, run, kind: Kind::Heavy }
}

pub const fn exclusive(name: &'static str, run: fn() -> Check) -> Case {
    Case { name, run, kind: Kind::Exclusive }
}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The CUDA runtime of the whole binary, or why there is none. Never the CPU backend.
pub fn runtime() -> Result<&'static Runtime, &'static str> {
    RUNTIME
        .get_or_init(|| {
            let rt = Runtime::cuda().map_err(|e| match e {
                Error::NoDevice { reason } => reason,
                other => other.to_string(),
            })?;
            match rt.backend() {
                BackendKind::Cuda => Ok(rt),
                other => Err(format!("Runtime::cuda() gave the {other:?} backend")),
            }
        })
        .as_ref()
        .map_err(String::as_str)
}

/// The runtime for a trial; a trial run without a device (`--include-ignored`) fails here.
pub fn rt() -> Result<&'static Runtime, Failed> {
    runtime().map_err(|reason| Failed::from(format!("no CUDA device: {reason}")))
}

static DEVICE: RwLock<()> = RwLock::new(());

/// Held by every trial that expects no device error.
pub fn share_device() -> RwLockReadGuard<'static, ()> {
    DEVICE.read().unwrap_or_else(PoisonError::into_inner)
}

/// Held by the trials that provoke device errors.
pub fn own_device() -> RwLockWriteGuard<'static, ()> {
    DEVICE.write().unwrap_or_else(PoisonError::into_inner)
}

/// How many trials may run a size of [`LARGE_FROM`] or more at once.
pub const LARGE_PERMITS: usize = 4;
pub const LARGE_FROM: usize = 1 << 22;

struct Permits {
    used: Mutex<usize>,
    freed: Condvar,
}

static PERMITS: Permits = Permits { used: Mutex::new(0), freed: Condvar::new() };

/// A permit to run a large size; given back when dropped.
pub struct Permit(());

impl Permit {
    fn take() -> Permit {
        let mut used = PERMITS.used.lock().unwrap_or_else(PoisonError::into_inner);
        while *used >= LARGE_PERMITS {
            used = PERMITS.freed.wait(used).unwrap_or_else(PoisonError::into_inner);
        }
        *used += 1;
        Permit(())
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        *PERMITS.used.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
        PERMITS.freed.notify_one();
    }
}

static MAX_LOG2: OnceLock<u32> = OnceLock::new();

/// Reads `ACCEL_GPU_TEST_MAX_LOG2` (default 26) once; an invalid value is an error.
pub fn init_max_log2() -> Result<u32, String> {
    let value = match std::env::var("ACCEL_GPU_TEST_MAX_LOG2") {
        Err(std::env::VarError::NotPresent) => 26,
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(v) if v <= 40 => v,
            _ => return Err(format!("ACCEL_GPU_TEST_MAX_LOG2 is `{text}`; expected an integer from 0 to 40")),
        },
        Err(e) => return Err(format!("ACCEL_GPU_TEST_MAX_LOG2: {e}")),
    };
    Ok(*MAX_LOG2.get_or_init(|| value))
}

/// Whether `n` elements are within the cap: up to `2^max + 3`, so that 2^20 + 1 runs when the cap
/// is 20 and 2^26 + 3 when it is 26.
pub fn fits(n: usize) -> bool {
    let max = *MAX_LOG2.get().unwrap_or(&26);
    n <= (1usize << max) + 3
}

/// Which sizes a trial runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tier {
    /// Up to a few thousand, and 65537.
    Small,
    /// Also 2^20 ± 1.
    Medium,
    /// Also 2^26 + 3.
    Large,
}

/// Empty, one, two, warp and block neighbours, an odd thousand, and past a 4096-element tile.
pub const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33, 127, 128, 129, 255, 257, 1000, 4095, 4097, 65_537];
pub const MEDIUM: &[usize] = &[(1 << 20) - 1, (1 << 20) + 1];
pub const LARGE: usize = (1 << 26) + 3;

pub fn sizes(tier: Tier) -> Vec<usize> {
    let mut out = SMALL.to_vec();
    if tier != Tier::Small {
        out.extend_from_slice(MEDIUM);
    }
    if tier == Tier::Large {
        out.push(LARGE);
    }
    out.retain(|&n| fits(n));
    out
}

/// Matrix shapes: empty either way, single rows and columns, odd sizes around warps and blocks,
/// long thin ones; then 2^16 + 1 and 2^20 ± 1 elements; then about 2^26.
pub fn shapes(tier: Tier) -> Vec<(usize, usize)> {
    let mut out = vec![
        (0, 0),
        (0, 5),
        (5, 0),
        (1, 1),
        (1, 33),
        (33, 1),
        (2, 3),
        (7, 13),
        (31, 33),
        (32, 32),
        (33, 65),
        (129, 127),
        (3, 4097),
        (4097, 3),
        (257, 255),
        (1, 65_537),
        (65_537, 1),
    ];
    if tier != Tier::Small {
        out.extend([(1023, 1025), (2, (1 << 19) + 1), ((1 << 19) + 1, 2), (1, (1 << 20) + 1)]);
    }
    if tier == Tier::Large {
        out.extend([(8191, 8193), (1, LARGE), (22_369_621, 3)]);
    }
    out.retain(|&(r, c)| fits(r * c));
    out
}

/// A deterministic generator (SplitMix64), seeded from the trial and the size so that a
/// failure reproduces.
pub struct Rng(u64);

impl Rng {
    pub fn new(name: &str, n: usize) -> Rng {
        // FNV-1a of the name, then the size.
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in name.bytes().chain(n.to_le_bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound > 0`).
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }

    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// `n` random elements, never all zero.
    pub fn vec<T: Random>(&mut self, n: usize) -> Vec<T> {
        let mut v: Vec<T> = (0..n).map(|_| T::random(self)).collect();
        if !v.is_empty() && v.iter().all(|x| *x == T::default()) {
            v[0] = T::nonzero();
        }
        v
    }

    /// Floats in `[lo, hi)`, never all zero.
    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        let mut v: Vec<f32> = (0..n).map(|_| self.f64_in(lo.into(), hi.into()) as f32).collect();
        if !v.is_empty() && v.iter().all(|&x| x == 0.0) {
            v[0] = 0.5;
        }
        v
    }

    /// Integers in `0..bound` (indices, keys, small counts).
    pub fn indices(&mut self, n: usize, bound: usize) -> Vec<usize> {
        (0..n).map(|_| self.below(bound)).collect()
    }

    /// Segment lengths that add up to `n`: empty, tiny, short and long segments mixed (and,
    /// when `nonempty`, no empty one).
    pub fn lengths(&mut self, n: usize, nonempty: bool) -> Vec<usize> {
        let mut out = Vec::new();
        let mut left = n;
        if !nonempty && self.below(2) == 0 {
            out.push(0);
        }
        while left > 0 {
            let len = match self.below(5) {
                0 if !nonempty => 0,
                0 | 1 => 1 + self.below(3),
                2 => 1 + self.below(40),
                3 => 1 + self.below(1500),
                _ => 1 + self.below(n.min(70_000)),
            };
            let len = len.min(left);
            out.push(len);
            left -= len;
        }
        if !nonempty && self.below(2) == 0 {
            out.push(0);
        }
        out
    }

    /// 2x2 integer matrices `(a, b, c, d)` with odd determinant: invertible modulo 2^64, so
    /// that long products never collapse to zero, and they do not commute.
    pub fn mat2s(&mut self, n: usize) -> Vec<(i64, i64, i64, i64)> {
        (0..n)
            .map(|_| {
                let (a, b, c, d) = (self.next_u64() | 1, self.next_u64() & !1, self.next_u64(), self.next_u64() | 1);
                (a as i64, b as i64, c as i64, d as i64)
            })
            .collect()
    }

    /// Affine maps `(a, b)` with odd `a` (invertible modulo 2^k: compositions never vanish).
    pub fn affine_i64(&mut self, n: usize) -> Vec<(i64, i64)> {
        (0..n).map(|_| ((self.next_u64() | 1) as i64, self.next_u64() as i64)).collect()
    }

    pub fn affine_u32(&mut self, n: usize) -> Vec<(u32, u32)> {
        (0..n).map(|_| ((self.next_u64() | 1) as u32, self.next_u64() as u32)).collect()
    }

    pub fn affine_i32(&mut self, n: usize) -> Vec<(i32, i32)> {
        (0..n).map(|_| ((self.next_u64() | 1) as i32, self.next_u64() as i32)).collect()
    }
}

/// Element types the generator makes: integers over their whole range half of the time and
/// within 100 of zero (wrapping, for unsigned types) the other half; floats in `[-100, 100)`.
pub trait Random: Copy + PartialEq + Default {
    fn random(rng: &mut Rng) -> Self;
    fn nonzero() -> Self;
}

macro_rules! random_int {
    ($($t:ty),*) => {$(
        impl Random for $t {
            fn random(rng: &mut Rng) -> Self {
                let x = rng.next_u64();
                if rng.next_u64() & 1 == 0 { x as $t } else { ((x % 200) as i64 - 100) as $t }
            }
            fn nonzero() -> Self {
                1
            }
        }
    )*};
}

random_int!(i32, i64, u32, u64, usize);

impl Random for f32 {
    fn random(rng: &mut Rng) -> Self {
        rng.f64_in(-100.0, 100.0) as f32
    }
    fn nonzero() -> Self {
        1.0
    }
}

impl Random for f64 {
    fn random(rng: &mut Rng) -> Self {
        rng.f64_in(-100.0, 100.0)
    }
    fn nonzero() -> Self {
        1.0
    }
}

impl Random for bool {
    fn random(rng: &mut Rng) -> Self {
        rng.next_u64() & 1 == 1
    }
    fn nonzero() -> Self {
        true
    }
}

/// Runs `f` for every size of `tier`, each with its own seed; a failure names the size.
pub fn each_size(name: &str, tier: Tier, mut f: impl FnMut(usize, &mut Rng) -> Check) -> Check {
    for n in sizes(tier) {
        let _permit = (n >= LARGE_FROM).then(Permit::take);
        f(n, &mut Rng::new(name, n)).map_err(|e| at(&format!("n = {n}"), e))?;
    }
    Ok(())
}

/// Runs `f` for every matrix shape of `tier`.
pub fn each_shape(name: &str, tier: Tier, mut f: impl FnMut(usize, usize, &mut Rng) -> Check) -> Check {
    for (r, c) in shapes(tier) {
        let _permit = (r * c >= LARGE_FROM).then(Permit::take);
        f(r, c, &mut Rng::new(name, r.wrapping_mul(0x1_0000_0001) ^ c))
            .map_err(|e| at(&format!("shape {r}x{c}"), e))?;
    }
    Ok(())
}

/// A failure with `context` in front of its message.
pub fn at(context: &str, e: Failed) -> Failed {
    Failed::from(format!("{context}: {}", e.message().unwrap_or("failed")))
}

/// The value of a run, or a failure that says which side failed and how.
pub fn ok<T>(side: &str, r: accel::Result<T>) -> Result<T, Failed> {
    r.map_err(|e| Failed::from(format!("{side} failed: {e} ({e:?})")))
}

/// `f(rt, args..)` on the GPU, failing the trial with its error.
macro_rules! gpu {
    ($($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        $crate::harness::ok(
            concat!(stringify!($($f)::+), " on the GPU"),
            $($f)::+($crate::harness::rt()?, $($arg),*),
        )?
    };
}

/// `f::reference(args..)`, failing the trial with its error.
macro_rules! reference {
    ($($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        $crate::harness::ok(concat!(stringify!($($f)::+), "::reference"), $($f)::+::reference($($arg),*))?
    };
}

/// `(GPU result, interpreter result)`. Each argument is evaluated once (bound in turn to a
/// hygienic `arg`), so both sides see the same inputs.
macro_rules! both {
    (@bind [$($f:ident)::+] [$($bound:ident)*] []) => {
        (gpu!($($f)::+($($bound),*)), reference!($($f)::+($($bound),*)))
    };
    (@bind [$($f:ident)::+] [$($bound:ident)*] [$head:expr $(, $rest:expr)*]) => {{
        let arg = $head;
        both!(@bind [$($f)::+] [$($bound)* arg] [$($rest),*])
    }};
    ($($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        both!(@bind [$($f)::+] [] [$($arg),*])
    };
}

/// `(GPU result, interpreter result)` as they are, errors included: for the error trials.
macro_rules! both_raw {
    (@bind [$($f:ident)::+] [$($bound:ident)*] []) => {
        ($($f)::+($crate::harness::rt()?, $($bound),*), $($f)::+::reference($($bound),*))
    };
    (@bind [$($f:ident)::+] [$($bound:ident)*] [$head:expr $(, $rest:expr)*]) => {{
        let arg = $head;
        both_raw!(@bind [$($f)::+] [$($bound)* arg] [$($rest),*])
    }};
    ($($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        both_raw!(@bind [$($f)::+] [] [$($arg),*])
    };
}

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

/// Element for element equality (integers, bools, moved elements).
pub fn exact<T: PartialEq + Debug>(what: &str, got: &[T], want: &[T]) -> Check {
    lengths(what, got, want)?;
    match got.iter().zip(want).position(|(g, w)| g != w) {
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

/// Same shape and elements.
pub fn same<E: Elem + PartialEq + Debug, const R: usize>(what: &str, got: &Array<E, R>, want: &Array<E, R>) -> Check {
    if got.shape() != want.shape() {
        return Err(Failed::from(format!("{what}: shape {:?}, expected {:?}", got.shape(), want.shape())));
    }
    exact(what, &got.to_vec(), &want.to_vec())
}

/// `f32` and `f64`, compared through `f64`.
pub trait Float: Elem + Copy + Debug + PartialEq {
    /// Tolerance of a reduction or scan, relative to the sum of the absolute values.
    const SUM_TOL: f64;
    fn f(self) -> f64;
    fn abs_value(self) -> Self;
}

impl Float for f32 {
    const SUM_TOL: f64 = 1e-4;
    fn f(self) -> f64 {
        self.into()
    }
    fn abs_value(self) -> Self {
        self.abs()
    }
}

impl Float for f64 {
    const SUM_TOL: f64 = 1e-10;
    fn f(self) -> f64 {
        self
    }
    fn abs_value(self) -> Self {
        self.abs()
    }
}

/// Tolerance of floats computed elementwise.
pub const ELEM_TOL: f64 = 1e-5;

/// `|got - want| <= bound[i]`, NaN only against NaN and infinities exactly.
fn within<F: Float>(what: &str, got: &[F], want: &[F], bound: impl Fn(usize) -> f64) -> Check {
    lengths(what, got, want)?;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (g.f(), w.f());
        let b = bound(i);
        let fine = if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if w.is_infinite() || g.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= b
        };
        if !fine {
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

/// Floats computed elementwise: within [`ELEM_TOL`] of `want`, relative to `max(|want|, scale)`
/// (`scale` is the magnitude of the inputs, for results that cancel).
pub fn close<F: Float>(what: &str, got: &[F], want: &[F], scale: f64) -> Check {
    within(what, got, want, |i| ELEM_TOL * want[i].f().abs().max(scale))
}

/// The same with a scale per element.
pub fn close_scaled<F: Float>(what: &str, got: &[F], want: &[F], scale: &[f64]) -> Check {
    within(what, got, want, |i| ELEM_TOL * want[i].f().abs().max(scale[i]))
}

/// Same shape, elements [`close`].
pub fn close_arrays<F: Float, const R: usize>(what: &str, got: &Array<F, R>, want: &Array<F, R>, scale: f64) -> Check {
    if got.shape() != want.shape() {
        return Err(Failed::from(format!("{what}: shape {:?}, expected {:?}", got.shape(), want.shape())));
    }
    close(what, &got.to_vec(), &want.to_vec(), scale)
}

/// Reductions and scans: within `F::SUM_TOL * abs_sums[i]`, where `abs_sums` is the same
/// program's result on the absolute values.
pub fn summed<F: Float>(what: &str, got: &[F], want: &[F], abs_sums: &[F]) -> Check {
    lengths(&format!("{what} (bounds)"), want, abs_sums)?;
    within(what, got, want, |i| F::SUM_TOL * abs_sums[i].f() + 1e-300)
}

/// Same shape, elements [`summed`].
pub fn summed_arrays<F: Float, const R: usize>(
    what: &str,
    got: &Array<F, R>,
    want: &Array<F, R>,
    abs_sums: &Array<F, R>,
) -> Check {
    if got.shape() != want.shape() {
        return Err(Failed::from(format!("{what}: shape {:?}, expected {:?}", got.shape(), want.shape())));
    }
    summed(what, &got.to_vec(), &want.to_vec(), &abs_sums.to_vec())
}

/// The absolute values.
pub fn abs_all<F: Float>(xs: &[F]) -> Vec<F> {
    xs.iter().map(|x| x.abs_value()).collect()
}

/// Column `k` of a vector of pairs.
pub fn firsts<A: Copy, B: Copy>(v: &[(A, B)]) -> Vec<A> {
    v.iter().map(|p| p.0).collect()
}

pub fn seconds<A: Copy, B: Copy>(v: &[(A, B)]) -> Vec<B> {
    v.iter().map(|p| p.1).collect()
}

/// Both sides failed with the same error: the same variant, and for an index error the same
/// index and shape, for a division the same operator. (Explanatory texts may differ.)
pub fn same_error<T: Debug>(what: &str, gpu: accel::Result<T>, reference: accel::Result<T>) -> Result<Error, Failed> {
    let short = |v: &T| format!("{v:?}").chars().take(200).collect::<String>();
    let (g, r) = match (gpu, reference) {
        (Err(g), Err(r)) => (g, r),
        (Ok(v), Err(r)) => {
            return Err(Failed::from(format!("{what}: the GPU returned Ok({}), the interpreter {r:?}", short(&v))));
        }
        (Err(g), Ok(v)) => {
            return Err(Failed::from(format!(
                "{what}: the GPU failed with {g:?}, the interpreter returned Ok({})",
                short(&v)
            )));
        }
        (Ok(v), Ok(_)) => {
            return Err(Failed::from(format!("{what}: expected an error, both returned Ok({})", short(&v))));
        }
    };
    let agree = match (&g, &r) {
        (
            Error::IndexOutOfBounds { index: i1, shape: s1, .. },
            Error::IndexOutOfBounds { index: i2, shape: s2, .. },
        ) => i1 == i2 && s1 == s2,
        (Error::DivisionByZero { op: o1 }, Error::DivisionByZero { op: o2 }) => o1 == o2,
        _ => std::mem::discriminant(&g) == std::mem::discriminant(&r),
    };
    if !agree {
        return Err(Failed::from(format!("{what}: different errors\n  GPU:         {g:?}\n  interpreter: {r:?}")));
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
