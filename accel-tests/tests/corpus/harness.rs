//! The test harness: the backends a test runs on, the trials made from the tests, the input
//! sizes, a seeded generator, and the locks that keep trials from hurting each other.
//!
//! Backends: every test is a function of the [`Target`] it runs on, registered once; `main`
//! makes one trial of it per backend (`cpu::<name>`, `cuda::<name>`). The CPU trials always
//! run. The CUDA trials need the package's `cuda` feature and a device: without either they are
//! reported as ignored, never as passed, and `--include-ignored` fails them with the reason.
//!
//! Sizes: every size-swept test runs the small sizes of [`SMALL`] (0, 1, warp and block
//! neighbours, a few thousand) and, on the GPU, [`CPU_LARGE`] (65537). A [`Tier::Medium`] or
//! [`Tier::Large`] test adds 65537 on the CPU (several of the rayon skeletons' chunks) and
//! 2^20 ± 1 on the GPU; a `Large` test adds 2^26 + 3 on the GPU. The CPU's sizes stay small
//! because its trials run on every `cargo test`; the property tests add 32767 to 131073 there. GPU sizes above `2^ACCEL_GPU_TEST_MAX_LOG2 + 3` are
//! skipped (default 26; the sanitizer runs use 20 and 12).
//!
//! Locks: a GPU trial at 2^26 elements peaks at about 6 GiB (the interpreter holds every element
//! as a dynamic value) and takes tens of seconds, so at most [`LARGE_PERMITS`] trials run such a
//! size at once. Tests that are expected to fail have their backend to themselves
//! (`Kind::Exclusive`): a `Gpu` has one error slot, read when a program ends, so a failure that
//! one program records could otherwise be reported by another program running at the same time.

use accel::{BackendKind, Error, Runtime};
use libtest_mimic::Failed;
use std::sync::{Condvar, LazyLock, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The result of a trial or of one of its checks.
pub type Check = Result<(), Failed>;

/// A backend that runs `#[accel]` functions; the interpreter is the oracle of both.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Backend {
    Cpu,
    Cuda,
}

impl Backend {
    /// The prefix of its trials' names, which `--exact`-less filters select (`cuda::`).
    pub fn prefix(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }
}

/// The backend a trial runs on: its runtime, its sizes and its lock.
pub struct Target {
    pub backend: Backend,
    /// Taken for reading by every trial, for writing by the `Exclusive` ones.
    lock: RwLock<()>,
}

pub static CPU: Target = Target { backend: Backend::Cpu, lock: RwLock::new(()) };
pub static CUDA: Target = Target { backend: Backend::Cuda, lock: RwLock::new(()) };

static CPU_RUNTIME: LazyLock<Runtime> = LazyLock::new(Runtime::cpu);
static CUDA_RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The CUDA runtime of the whole binary, or why there is none (the `cuda` feature off, no
/// driver, no device). Never the CPU backend.
pub fn cuda_runtime() -> Result<&'static Runtime, &'static str> {
    CUDA_RUNTIME
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

impl Target {
    /// The runtime of this backend; a CUDA trial run without a device (`--include-ignored`)
    /// fails here with the reason.
    pub fn rt(&self) -> Result<&'static Runtime, Failed> {
        match self.backend {
            Backend::Cpu => Ok(&CPU_RUNTIME),
            Backend::Cuda => cuda_runtime().map_err(|reason| Failed::from(format!("no CUDA device: {reason}"))),
        }
    }

    /// How failure messages name this backend's side of a comparison.
    pub fn side(&self) -> &'static str {
        match self.backend {
            Backend::Cpu => "CPU backend",
            Backend::Cuda => "GPU",
        }
    }

    pub fn is_gpu(&self) -> bool {
        self.backend == Backend::Cuda
    }

    /// The vector sizes of `tier` on this backend.
    pub fn sizes(&self, tier: Tier) -> Vec<usize> {
        let mut out = SMALL.to_vec();
        match (self.backend, tier) {
            (Backend::Cpu, Tier::Small) => {}
            (Backend::Cpu, _) => out.extend_from_slice(CPU_LARGE),
            (Backend::Cuda, Tier::Small) => out.extend_from_slice(CPU_LARGE),
            (Backend::Cuda, _) => out.extend(CPU_LARGE.iter().chain(MEDIUM)),
        }
        if self.backend == Backend::Cuda && tier == Tier::Large {
            out.push(LARGE);
        }
        out.retain(|&n| self.fits(n));
        out
    }

    /// Matrix shapes: empty either way, single rows and columns, odd sizes around warps and
    /// blocks, long thin ones; then 65537-element rows and columns (on the CPU from
    /// `Tier::Medium` on); then about 2^20 elements and about 2^26 on the GPU.
    pub fn shapes(&self, tier: Tier) -> Vec<(usize, usize)> {
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
        ];
        if self.backend == Backend::Cuda || tier != Tier::Small {
            out.extend([(1, 65_537), (65_537, 1)]);
        }
        if self.backend == Backend::Cuda && tier != Tier::Small {
            out.extend([(1023, 1025), (2, (1 << 19) + 1), ((1 << 19) + 1, 2), (1, (1 << 20) + 1)]);
        }
        if self.backend == Backend::Cuda && tier == Tier::Large {
            out.extend([(8191, 8193), (1, LARGE), (22_369_621, 3)]);
        }
        out.retain(|&(r, c)| self.fits(r * c));
        out
    }

    /// Whether `n` elements are within the GPU's cap: up to `2^max + 3`, so that 2^20 + 1 runs
    /// when the cap is 20 and 2^26 + 3 when it is 26. The CPU's sizes are never capped.
    pub fn fits(&self, n: usize) -> bool {
        let max = *MAX_LOG2.get().unwrap_or(&26);
        self.backend == Backend::Cpu || n <= (1usize << max) + 3
    }

    /// Runs `f` for every size of `tier`, each with its own seed (from `name` and the size); a
    /// failure names the size.
    pub fn each_size(&self, name: &str, tier: Tier, mut f: impl FnMut(usize, &mut Rng) -> Check) -> Check {
        for n in self.sizes(tier) {
            let _permit = (n >= LARGE_FROM).then(Permit::take);
            f(n, &mut Rng::new(name, n)).map_err(|e| at(&format!("n = {n}"), e))?;
        }
        Ok(())
    }

    /// Runs `f` for every matrix shape of `tier`.
    pub fn each_shape(&self, name: &str, tier: Tier, mut f: impl FnMut(usize, usize, &mut Rng) -> Check) -> Check {
        for (r, c) in self.shapes(tier) {
            let _permit = (r * c >= LARGE_FROM).then(Permit::take);
            f(r, c, &mut Rng::new(name, r.wrapping_mul(0x1_0000_0001) ^ c))
                .map_err(|e| at(&format!("shape {r}x{c}"), e))?;
        }
        Ok(())
    }

    /// Held by every trial that expects no backend error.
    pub fn share(&self) -> RwLockReadGuard<'_, ()> {
        self.lock.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Held by the trials that provoke backend errors.
    pub fn own(&self) -> RwLockWriteGuard<'_, ()> {
        self.lock.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How a trial shares its backend with the others.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Kind {
    /// Runs a 2^26-element case on the GPU: started first, so that the long runs overlap the
    /// short ones.
    Heavy,
    Normal,
    /// Expects backend errors: runs alone, after the others.
    Exclusive,
}

/// Which backends a test concerns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum On {
    Every,
    /// Only the CUDA backend: device-resident results, the examples at GPU sizes.
    CudaOnly,
    /// Only the CPU backend: what the GPU does not promise (the source order of colliding
    /// `permute` writes; DESIGN.md §1: permute's combining function must be commutative) and
    /// the CPU's own chunk boundaries.
    CpuOnly,
}

/// One test, written once; `main` makes a trial of it for every backend it is [`On`].
pub struct Test {
    pub name: &'static str,
    pub run: fn(&Target) -> Check,
    pub kind: Kind,
    pub on: On,
}

impl Test {
    /// The same test, run on the CUDA backend only.
    pub const fn cuda_only(self) -> Test {
        Test { on: On::CudaOnly, ..self }
    }

    /// The same test, run on the CPU backend only.
    pub const fn cpu_only(self) -> Test {
        Test { on: On::CpuOnly, ..self }
    }
}

pub const fn case(name: &'static str, run: fn(&Target) -> Check) -> Test {
    Test { name, run, kind: Kind::Normal, on: On::Every }
}

pub const fn heavy(name: &'static str, run: fn(&Target) -> Check) -> Test {
    Test { name, run, kind: Kind::Heavy, on: On::Every }
}

pub const fn exclusive(name: &'static str, run: fn(&Target) -> Check) -> Test {
    Test { name, run, kind: Kind::Exclusive, on: On::Every }
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

/// Which sizes a trial runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tier {
    /// Up to a few thousand (and 65537 on the GPU).
    Small,
    /// Also 65537 on the CPU, 2^20 ± 1 on the GPU.
    Medium,
    /// Also 2^26 + 3 on the GPU.
    Large,
}

/// Empty, one, two, warp and block neighbours, an odd thousand, and past a 4096-element tile.
pub const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33, 127, 128, 129, 255, 257, 1000, 4095, 4097];
/// Several of the CPU backend's chunks (its smallest task is 2^14 elements and it only splits
/// runs of 2^15 or more), not dividing evenly; small on the GPU.
pub const CPU_LARGE: &[usize] = &[65_537];
pub const MEDIUM: &[usize] = &[(1 << 20) - 1, (1 << 20) + 1];
pub const LARGE: usize = (1 << 26) + 3;

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

    /// A generator from a plain seed (the property tests draw it from proptest).
    pub fn seeded(seed: u64) -> Rng {
        Rng(seed)
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

random_int!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

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

/// A failure with `context` in front of its message.
pub fn at(context: &str, e: Failed) -> Failed {
    Failed::from(format!("{context}: {}", e.message().unwrap_or("failed")))
}

/// The value of a run, or a failure that says which side failed and how.
pub fn ok<T>(side: &str, r: accel::Result<T>) -> Result<T, Failed> {
    r.map_err(|e| Failed::from(format!("{side} failed: {e} ({e:?})")))
}

/// `f(rt, args..)` on the target's backend, failing the trial with its error.
macro_rules! backend {
    ($t:expr, $($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        $crate::harness::ok(
            &format!(concat!(stringify!($($f)::+), " on the {}"), $t.side()),
            $($f)::+($t.rt()?, $($arg),*),
        )?
    };
}

/// `f::reference(args..)`, failing the trial with its error.
macro_rules! reference {
    ($($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        $crate::harness::ok(concat!(stringify!($($f)::+), "::reference"), $($f)::+::reference($($arg),*))?
    };
}

/// `(backend result, interpreter result)`. Each argument is evaluated once (bound in turn to a
/// hygienic `arg`), so both sides see the same inputs.
macro_rules! both {
    (@bind $t:tt [$($f:ident)::+] [$($bound:ident)*] []) => {
        (backend!($t, $($f)::+($($bound),*)), reference!($($f)::+($($bound),*)))
    };
    (@bind $t:tt [$($f:ident)::+] [$($bound:ident)*] [$head:expr $(, $rest:expr)*]) => {{
        let arg = $head;
        both!(@bind $t [$($f)::+] [$($bound)* arg] [$($rest),*])
    }};
    ($t:ident, $($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        both!(@bind $t [$($f)::+] [] [$($arg),*])
    };
}

/// `(backend result, interpreter result)` as they are, errors included: for the error tests.
macro_rules! both_raw {
    (@bind $t:tt [$($f:ident)::+] [$($bound:ident)*] []) => {
        ($($f)::+($t.rt()?, $($bound),*), $($f)::+::reference($($bound),*))
    };
    (@bind $t:tt [$($f:ident)::+] [$($bound:ident)*] [$head:expr $(, $rest:expr)*]) => {{
        let arg = $head;
        both_raw!(@bind $t [$($f)::+] [$($bound)* arg] [$($rest),*])
    }};
    ($t:ident, $($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        both_raw!(@bind $t [$($f)::+] [] [$($arg),*])
    };
}

/// `assert!` for trials: fails the trial with the condition (or the message) instead of
/// panicking.
macro_rules! check {
    ($cond:expr $(,)?) => {
        if !$cond {
            return Err(libtest_mimic::Failed::from(concat!("check failed: ", stringify!($cond))));
        }
    };
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(libtest_mimic::Failed::from(format!(
                "check failed: {}: {}", stringify!($cond), format!($($fmt)+)
            )));
        }
    };
}

/// `assert_eq!` for trials.
macro_rules! check_eq {
    ($left:expr, $right:expr $(,)?) => {{
        let (left, right) = (&$left, &$right);
        if left != right {
            return Err(libtest_mimic::Failed::from(format!(
                "{} == {} failed\n  left:  {left:?}\n  right: {right:?}",
                stringify!($left),
                stringify!($right)
            )));
        }
    }};
    ($left:expr, $right:expr, $($fmt:tt)+) => {{
        let (left, right) = (&$left, &$right);
        if left != right {
            return Err(libtest_mimic::Failed::from(format!(
                "{} == {} failed: {}\n  left:  {left:?}\n  right: {right:?}",
                stringify!($left),
                stringify!($right),
                format!($($fmt)+)
            )));
        }
    }};
}
