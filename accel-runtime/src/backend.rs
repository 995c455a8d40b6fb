//! The seam between a compiled program and what runs it.
//!
//! Every `#[accel]` function is a [`Function`]: the macro implements the trait for a type in the
//! function's module (`f::Function`) with what each backend needs (the generated CPU code; the
//! IR after the passes, its kernels and the conversion of the arguments to device values), and
//! the function itself is one call of [`Runtime::call`](crate::Runtime::call). A [`Backend`]
//! runs a `Function` on its arguments: the CPU backend ([`Cpu`], a thread pool) and the CUDA
//! backend (a `cuda::Gpu`, with the `cuda` feature) both implement it, so that what is built on top of
//! calls (streams of chunks, work spread over several devices) is written once, generic over the
//! backend.
//!
//! ```
//! use accel_runtime::backend::{Backend, Cpu, Function};
//! use accel_runtime::{Result, Scalar, Vector, cpu};
//!
//! /// What `#[accel] fn total(xs: Vector<f32>) -> Scalar<f32> { xs.sum() }` gives the CPU.
//! struct Total;
//! impl Function for Total {
//!     type Args<'a> = (&'a Vector<f32>,);
//!     type Output = Scalar<f32>;
//!     const NAME: &'static str = "total";
//!     fn cpu(cx: &cpu::Ctx, (xs,): (&Vector<f32>,)) -> Result<Scalar<f32>> {
//!         cpu::fold_all(cx, xs, Some(0.0), |a, b| a + b, "sum")
//!     }
//! }
//!
//! /// Written once, for every backend.
//! fn sum_of_parts<B: Backend>(backend: &B, parts: &[Vector<f32>]) -> Result<f32> {
//!     parts.iter().map(|p| backend.call::<Total>((p,)).map(|s| s.get())).sum()
//! }
//!
//! let parts = [Vector::from_vec(vec![1.0, 2.0]), Vector::from_vec(vec![3.5])];
//! assert_eq!(sum_of_parts(&Cpu::with_threads(2)?, &parts)?, 6.5);
//! # Ok::<(), accel_runtime::Error>(())
//! ```

use crate::cpu::Ctx;
use crate::runtime::BackendKind;
use accel_core::ir::SourceRead;
use accel_core::{Error, Result};

/// A compiled `#[accel]` function, as every backend sees it. The `#[accel]` macro implements it
/// for `f::Function`; the provided methods are those of a function without GPU code.
pub trait Function {
    /// The arguments, a tuple in the order of the function's parameters (arrays by reference,
    /// elements by value).
    type Args<'a>: Send;
    type Output: Send;
    /// The function's name, for errors.
    const NAME: &'static str;

    /// Runs the function's generated CPU code.
    fn cpu(cx: &Ctx, args: Self::Args<'_>) -> Result<Self::Output>;

    /// The reads by index written in the function's source, which its index errors name
    /// (`Program::read_sites`; none for a function written by hand).
    fn read_sites() -> &'static [SourceRead] {
        &[]
    }

    /// Checked mode ([`Runtime::set_checked`](crate::Runtime::set_checked)): runs the function
    /// on the interpreter, testing the laws of its combining functions (`interp::check`); a
    /// function written by hand has nothing to check.
    fn check_laws(args: &Self::Args<'_>) -> Result<()> {
        let _ = args;
        Ok(())
    }

    /// The function's GPU program: the IR the executor runs, the prefix of its kernels' names and
    /// the module that holds them; `None` for a function built without GPU code.
    #[cfg(feature = "cuda")]
    fn device() -> Option<DeviceProgram> {
        None
    }

    /// The arguments as device values, in parameter order (arrays keep their device copy).
    #[cfg(feature = "cuda")]
    fn to_device(args: &Self::Args<'_>, gpu: &crate::cuda::Gpu) -> Result<Vec<crate::cuda::DValue>> {
        let _ = (args, gpu);
        Err(no_gpu_code(Self::NAME))
    }

    /// The function's result from the device value the executor returns.
    #[cfg(feature = "cuda")]
    fn from_device(value: crate::cuda::DValue) -> Result<Self::Output> {
        let _ = value;
        Err(no_gpu_code(Self::NAME))
    }
}

/// What the CUDA backend runs for a [`Function`]: `#[accel]`'s `optimised()`, the program's
/// `kernel_prefix()` and the device module of its source file.
#[cfg(feature = "cuda")]
#[derive(Clone, Copy, Debug)]
pub struct DeviceProgram {
    pub program: &'static accel_core::Program,
    pub prefix: &'static str,
    pub module: &'static crate::cuda::DeviceModule,
}

#[cfg(feature = "cuda")]
fn no_gpu_code(name: &str) -> Error {
    Error::invalid_argument(
        name,
        "this function was built without GPU code; run it on a CPU runtime (`Runtime::cpu()`), or build it with \
         the `cuda` feature of accel and its build script",
    )
}

/// The result of a call of `F`, its error naming the function and the read that failed (see
/// [`Error::located`]): every backend reports the place of an error the same way.
fn located<F: Function, T>(result: Result<T>) -> Result<T> {
    result.map_err(|e| e.located(F::NAME, F::read_sites()))
}

/// What runs programs: the CPU backend ([`Cpu`]) and the CUDA backend (a `cuda::Gpu`, with the
/// `cuda` feature).
pub trait Backend {
    fn kind(&self) -> BackendKind;

    /// Runs `F` on `args`. On a GPU the call may return before its kernels finish (when none of
    /// them can fail), its results on the device; [`Backend::synchronize`] waits for them.
    fn call<F: Function>(&self, args: F::Args<'_>) -> Result<F::Output>;

    /// Waits for the work of every call made so far and reports any failure of it.
    fn synchronize(&self) -> Result<()>;
}

/// The CPU backend: rayon skeletons, in rayon's global pool or in a pool of their own.
///
/// By default ([`Cpu::new`]) a call runs on the calling thread and its parallel loops in rayon's
/// global pool, which the application's own rayon code shares: the cores are not oversubscribed,
/// and a call that splits no work (a small one) never waits for another thread, so it costs well
/// under a microsecond beyond its work. A backend with a pool of its own ([`Cpu::with_threads`])
/// enters the pool once per call, a hand-over to a worker of several microseconds.
pub struct Cpu {
    pool: Pool,
}

enum Pool {
    Own(rayon::ThreadPool),
    /// Rayon's global pool (started by rayon on its first parallel loop).
    Global,
}

impl Cpu {
    /// Rayon's global pool: one thread per core unless the application configured it (rayon's
    /// default honours `RAYON_NUM_THREADS`).
    pub fn new() -> Cpu {
        Cpu { pool: Pool::Global }
    }

    /// A pool of `n` threads of its own (`n > 0`).
    pub fn with_threads(n: usize) -> Result<Cpu> {
        if n == 0 {
            return Err(Error::invalid_argument("Cpu::with_threads", "a thread pool needs at least one thread"));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("accel-cpu-{i}"))
            .build()
            .map_err(|e| Error::backend("cpu", format!("starting a pool of {n} threads"), e.to_string()))?;
        Ok(Cpu { pool: Pool::Own(pool) })
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        match &self.pool {
            Pool::Own(pool) => pool.current_num_threads(),
            Pool::Global => rayon::current_num_threads(),
        }
    }

    /// Runs generated CPU code with a fresh [`Ctx`] (in the pool of its own, if it has one); an
    /// error recorded in the context and not yet taken is returned too.
    pub fn run<T: Send>(&self, f: impl FnOnce(&Ctx) -> Result<T> + Send) -> Result<T> {
        let mut f = Some(f);
        let mut result = None;
        self.enter(&mut || {
            if let Some(f) = f.take() {
                let cx = Ctx::new();
                result = Some(f(&cx).and_then(|value| cx.check().map(|()| value)));
            }
        });
        result.expect("the pool runs the call before `enter` returns")
    }

    /// Runs `work` in the pool of its own, if it has one, else on the calling thread. A trait
    /// object: rayon's hand-over into a pool, compiled for every generated function, was a few
    /// dozen functions each.
    fn enter(&self, work: &mut (dyn FnMut() + Send)) {
        match &self.pool {
            Pool::Own(pool) => pool.install(work),
            Pool::Global => work(),
        }
    }
}

impl std::fmt::Debug for Cpu {
    /// Its pool and number of threads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pool = match self.pool {
            Pool::Own(_) => "own",
            Pool::Global => "rayon's global",
        };
        f.debug_struct("Cpu").field("pool", &pool).field("threads", &self.threads()).finish()
    }
}

impl Default for Cpu {
    fn default() -> Cpu {
        Cpu::new()
    }
}

impl Backend for Cpu {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn call<F: Function>(&self, args: F::Args<'_>) -> Result<F::Output> {
        located::<F, _>(self.run(|cx| F::cpu(cx, args)))
    }

    /// Every CPU call has finished when it returns.
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
}

#[cfg(feature = "cuda")]
impl Backend for crate::cuda::Gpu {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn call<F: Function>(&self, args: F::Args<'_>) -> Result<F::Output> {
        located::<F, _>((|| {
            let device = F::device().ok_or_else(|| no_gpu_code(F::NAME))?;
            let args = F::to_device(&args, self)?;
            let out = self.execute(device.program, device.prefix, device.module, args)?;
            F::from_device(out)
        })())
    }

    fn synchronize(&self) -> Result<()> {
        crate::cuda::Gpu::synchronize(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vector;

    struct Len;
    impl Function for Len {
        type Args<'a> = (&'a Vector<u32>, u32);
        type Output = usize;
        const NAME: &'static str = "len";
        fn cpu(_: &Ctx, (xs, extra): (&Vector<u32>, u32)) -> Result<usize> {
            Ok(xs.len() + extra as usize)
        }
    }

    #[test]
    fn the_cpu_backend_runs_the_cpu_code_in_its_pool() {
        let cpu = Cpu::with_threads(3).unwrap();
        assert_eq!((cpu.kind(), cpu.threads()), (BackendKind::Cpu, 3));
        assert_eq!(cpu.call::<Len>((&Vector::from_vec(vec![1, 2]), 5)), Ok(7));
        assert_eq!(cpu.run(|_| Ok(rayon::current_num_threads())), Ok(3));
        assert_eq!(cpu.synchronize(), Ok(()));
        assert!(Cpu::with_threads(0).unwrap_err().to_string().contains("at least one thread"));
        assert_eq!(format!("{cpu:?}"), r#"Cpu { pool: "own", threads: 3 }"#);
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn a_function_without_gpu_code_says_so() {
        assert!(Len::device().is_none());
        let e = Len::from_device(crate::cuda::DValue::Tuple(vec![])).unwrap_err();
        assert!(e.to_string().contains("`len`") && e.to_string().contains("built without GPU code"), "{e}");
    }
}
