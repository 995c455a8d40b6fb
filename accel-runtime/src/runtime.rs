//! The runtime: which backend runs a program, and its resources.
//!
//! A runtime holds the CPU backend ([`Cpu`]: rayon's global pool, or a pool of its own) and,
//! with the `cuda` feature, may hold `Gpu`s; generated code calls [`Runtime::call`], which hands
//! the function to the backend in use through the [`Backend`] seam. A CUDA runtime may hold several devices
//! ([`Runtime::cuda_devices`]); programs run on the first, and the streams of chunks that spread
//! work over all of them build on this.

use crate::backend::{Backend, Cpu, Function};
use crate::cpu::Ctx;
#[cfg(feature = "cuda")]
use crate::cuda::Gpu;
use accel_core::{Error, Result};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// The kind of backend a [`Runtime`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// Rayon skeletons on the host's cores.
    Cpu,
    /// Kernels on a CUDA device (only in builds with the `cuda` feature).
    Cuda,
}

/// The backend that `#[accel]` functions run on, and its resources (the CPU thread pool; the GPU
/// context, streams, loaded modules and memory pool): every call of an `#[accel]` function takes
/// one, `f(&rt, args..)`. Make one per program and share it (`&Runtime` is `Sync`): opening a
/// GPU and loading its module happen once per runtime, not per call.
///
/// - [`Runtime::new`]: a GPU when one can be used, else the CPU; the `ACCEL_BACKEND`
///   environment variable (`auto`, `cpu`, `cuda`) overrides the choice;
/// - [`Runtime::cpu`], [`Runtime::cpu_with_threads`]: the CPU backend (rayon), always available;
/// - [`Runtime::cuda`], `cuda_device`, `cuda_devices`, `cuda_all`: CUDA devices, or the error
///   saying why not.
///
/// [`Runtime::backend`] says which one a runtime got, [`Runtime::synchronize`] waits for the
/// work queued on it.
///
/// ```
/// use accel_runtime::{BackendKind, Runtime};
///
/// // What tests use: the same results as a GPU, with no device needed.
/// let rt = Runtime::cpu();
/// assert_eq!(rt.backend(), BackendKind::Cpu);
/// // What programs use: ACCEL_BACKEND=cpu forces the CPU, =cuda a GPU or an error.
/// let rt = Runtime::new()?;
/// println!("running on {:?}", rt.backend());
/// # Ok::<(), accel_runtime::Error>(())
/// ```
///
/// ```
/// use accel_runtime::{BackendKind, Runtime, Vector, cpu};
///
/// let rt = Runtime::cpu_with_threads(2)?;
/// assert_eq!((rt.backend(), rt.threads()), (BackendKind::Cpu, 2));
/// let xs = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
/// let sum = rt.run_cpu(|cx| cpu::fold_all(cx, &xs, Some(0.0), |a, b| a + b, "sum"))?;
/// assert_eq!(sum.get(), 6.0);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub struct Runtime {
    /// The CPU backend, which a CUDA runtime uses for host steps.
    cpu: Cpu,
    /// The devices of a CUDA runtime, distinct, the first one running programs; empty for the
    /// CPU backend.
    #[cfg(feature = "cuda")]
    gpus: Vec<Gpu>,
    /// Checked mode ([`Runtime::set_checked`]).
    checked: AtomicBool,
}

/// Whether `ACCEL_CHECK` turns checked mode on: any value but unset, empty, `0`, `off` or
/// `false`.
fn checked_from_env() -> bool {
    std::env::var_os("ACCEL_CHECK")
        .is_some_and(|v| !matches!(v.to_str().map(str::trim), Some("" | "0" | "off" | "false")))
}

/// What `ACCEL_BACKEND` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Request {
    /// CUDA when a device can be opened, else the CPU.
    Auto,
    Cpu,
    /// CUDA or an error.
    Cuda,
}

fn request_from_env(value: Option<&str>) -> Result<Request> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "auto") => Ok(Request::Auto),
        Some("cpu") => Ok(Request::Cpu),
        Some("cuda") => Ok(Request::Cuda),
        Some(_) => Err(Error::invalid_argument(
            "Runtime::new",
            format!(
                "ACCEL_BACKEND is `{}`; the accepted values are `auto`, `cpu` and `cuda`",
                value.unwrap_or_default()
            ),
        )),
    }
}

/// Device ordinals for a CUDA runtime: at least one, none twice (a device holds one context
/// per process, so a repeated ordinal would be the same device twice).
fn check_ordinals(ordinals: &[usize]) -> Result<()> {
    let repeated = ordinals.iter().enumerate().find(|&(i, o)| ordinals[..i].contains(o));
    match (ordinals, repeated) {
        ([], _) => Err(Error::invalid_argument("Runtime::cuda_devices", "no device ordinal was given")),
        (_, Some((_, o))) => Err(Error::invalid_argument(
            "Runtime::cuda_devices",
            format!("device {o} is listed twice; list each device once"),
        )),
        _ => Ok(()),
    }
}

impl Runtime {
    /// The runtime that `ACCEL_BACKEND` selects:
    ///
    /// - unset or `auto`: CUDA device 0 when the build has the `cuda` feature and the device can be
    ///   opened; otherwise the CPU, after one line on stderr saying why there is no GPU (builds
    ///   without the feature use the CPU silently);
    /// - `cpu`: the CPU;
    /// - `cuda`: CUDA device 0, or the `Error::NoDevice` that says why not;
    /// - anything else: `Error::InvalidArgument`.
    ///
    /// ```
    /// use accel_runtime::{BackendKind, Runtime};
    /// let rt = Runtime::new()?;
    /// if std::env::var("ACCEL_BACKEND").as_deref() == Ok("cpu") {
    ///     assert_eq!(rt.backend(), BackendKind::Cpu);
    /// }
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::NoDevice` when `ACCEL_BACKEND=cuda` and no GPU can be used;
    /// `Error::InvalidArgument` for any other value than `auto`, `cpu` and `cuda` (or one that is
    /// not UTF-8).
    pub fn new() -> Result<Runtime> {
        let value = std::env::var_os("ACCEL_BACKEND");
        let text = match &value {
            None => None,
            Some(v) => Some(v.to_str().ok_or_else(|| {
                Error::invalid_argument("Runtime::new", format!("ACCEL_BACKEND is not valid UTF-8: {v:?}"))
            })?),
        };
        Runtime::for_request(request_from_env(text)?)
    }

    fn for_request(request: Request) -> Result<Runtime> {
        match request {
            Request::Cpu => Ok(Runtime::cpu()),
            Request::Cuda => Runtime::cuda(),
            #[cfg(not(feature = "cuda"))]
            Request::Auto => Ok(Runtime::cpu()),
            #[cfg(feature = "cuda")]
            Request::Auto => Ok(Runtime::cuda().unwrap_or_else(|e| {
                let reason = match e {
                    Error::NoDevice { reason } => reason,
                    other => other.to_string(),
                };
                eprintln!("accel: no usable CUDA device ({reason}); running on the CPU");
                Runtime::cpu()
            })),
        }
    }

    /// The CPU backend in rayon's global pool (one thread per core unless the application
    /// configured it; rayon's default honours `RAYON_NUM_THREADS`), shared with the
    /// application's own rayon code so that the cores are not oversubscribed. A call runs on the
    /// calling thread and hands only its parallel loops to the pool, so a small call costs well
    /// under a microsecond beyond its work. It cannot fail.
    ///
    /// ```
    /// use accel_runtime::Runtime;
    /// assert!(Runtime::cpu().threads() >= 1);
    /// ```
    pub fn cpu() -> Runtime {
        Runtime::with_cpu(Cpu::new())
    }

    /// The CPU backend with a pool of `n` threads of its own (`n > 0`), apart from the
    /// application's use of rayon; each call enters the pool, a hand-over of several
    /// microseconds.
    ///
    /// # Errors
    /// `Error::InvalidArgument` for `n == 0`; `Error::Backend` if the pool cannot be started.
    pub fn cpu_with_threads(n: usize) -> Result<Runtime> {
        Ok(Runtime::with_cpu(Cpu::with_threads(n)?))
    }

    fn with_cpu(cpu: Cpu) -> Runtime {
        Runtime {
            cpu,
            #[cfg(feature = "cuda")]
            gpus: Vec::new(),
            checked: AtomicBool::new(checked_from_env()),
        }
    }

    /// The CUDA backend on device 0.
    ///
    /// ```
    /// use accel_runtime::Runtime;
    /// // A GPU if there is one, else the CPU; `Runtime::new()` does this too, after a notice.
    /// let rt = Runtime::cuda().unwrap_or_else(|_| Runtime::cpu());
    /// # let _ = rt;
    /// ```
    ///
    /// # Errors
    /// `Error::NoDevice`, saying why the device cannot be used (no driver, no device, ... in
    /// builds without the `cuda` feature: that the feature is missing).
    pub fn cuda() -> Result<Runtime> {
        Runtime::cuda_device(0)
    }

    /// The CUDA backend on device `ordinal`.
    #[cfg(feature = "cuda")]
    pub fn cuda_device(ordinal: usize) -> Result<Runtime> {
        Runtime::cuda_devices(&[ordinal])
    }

    /// The CUDA backend on the devices `ordinals` (distinct, at least one), opened in that order;
    /// programs run on the first. `Error::NoDevice` names the first that cannot be opened.
    ///
    /// ```no_run
    /// # fn main() -> accel_core::Result<()> {
    /// let rt = accel_runtime::Runtime::cuda_devices(&[0, 1])?;
    /// assert_eq!(rt.gpus().len(), 2);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "cuda")]
    pub fn cuda_devices(ordinals: &[usize]) -> Result<Runtime> {
        check_ordinals(ordinals)?;
        let gpus = ordinals.iter().map(|&ordinal| Gpu::open(ordinal)).collect::<Result<Vec<_>>>()?;
        Ok(Runtime { cpu: Cpu::new(), gpus, checked: AtomicBool::new(checked_from_env()) })
    }

    /// The CUDA backend on every device the driver sees, in ordinal order.
    #[cfg(feature = "cuda")]
    pub fn cuda_all() -> Result<Runtime> {
        match Gpu::device_count() {
            // Opening device 0 says why there is none.
            0 => Runtime::cuda_device(0),
            count => Runtime::cuda_devices(&(0..count).collect::<Vec<_>>()),
        }
    }

    /// The CUDA backend on device `ordinal`: in this build, always `Error::NoDevice`.
    #[cfg(not(feature = "cuda"))]
    pub fn cuda_device(ordinal: usize) -> Result<Runtime> {
        Runtime::cuda_devices(&[ordinal])
    }

    /// The CUDA backend on devices `ordinals`: in this build, an `Error::InvalidArgument` for
    /// ordinals that are empty or repeated, else `Error::NoDevice`.
    #[cfg(not(feature = "cuda"))]
    pub fn cuda_devices(ordinals: &[usize]) -> Result<Runtime> {
        check_ordinals(ordinals)?;
        Err(Error::NoDevice {
            reason: format!(
                "CUDA device {} was requested but this build of accel has no CUDA backend; enable the `cuda` \
                 feature, or unset ACCEL_BACKEND",
                ordinals[0]
            ),
        })
    }

    /// The CUDA backend on every device: in this build, always `Error::NoDevice`.
    #[cfg(not(feature = "cuda"))]
    pub fn cuda_all() -> Result<Runtime> {
        Runtime::cuda_device(0)
    }

    /// Forces the strategy by which every `permute` of an `expand` spreads its work on this
    /// runtime's GPUs (`Strategy::Thread`, `Warp`, `Block` or `Tiles`), or `None` to let each run
    /// select one from the sizes of its expansion (the default; `ACCEL_EXPAND` sets it at
    /// start). It also forces how a `fold_seg` over a vector walks its values: `Tiles` ranges
    /// of 256 values a warp whatever the segment lengths, `Block` wide ranges of thousands of
    /// values a warp (each row's piece folded by the whole warp), the others rows split into
    /// parts. The CPU backend has one way of running them and ignores it.
    ///
    /// ```
    /// use accel_runtime::{Runtime, Strategy};
    /// let rt = Runtime::cpu();
    /// rt.set_expand_strategy(Some(Strategy::Tiles));
    /// rt.set_expand_strategy(None);
    /// ```
    pub fn set_expand_strategy(&self, strategy: Option<crate::Strategy>) {
        #[cfg(feature = "cuda")]
        self.gpus.iter().for_each(|g| g.set_expand_strategy(strategy));
        #[cfg(not(feature = "cuda"))]
        let _ = strategy;
    }

    /// Turns checked mode on or off (off by default; `ACCEL_CHECK=1` turns it on for every
    /// runtime made after it is set). In checked mode every call first runs its function on
    /// the reference interpreter and tests the combining function of each fold, scan and
    /// permute on samples of the values it combines: for associativity, and for `permute`
    /// commutativity too, since a backend combines in any grouping and order. A function that
    /// breaks one is [`Error::InvalidCombine`] with the counter-example, instead of a result
    /// that depends on the backend. Floats are compared within a tolerance (see
    /// `docs/semantics.md`, "Checked mode"). It makes every call as slow as the interpreter:
    /// use it while developing and on small inputs.
    ///
    /// ```
    /// use accel_runtime::Runtime;
    /// let rt = Runtime::cpu();
    /// rt.set_checked(true);
    /// assert!(rt.is_checked());
    /// ```
    pub fn set_checked(&self, on: bool) {
        self.checked.store(on, Ordering::Relaxed);
    }

    /// Whether checked mode is on ([`Runtime::set_checked`]).
    pub fn is_checked(&self) -> bool {
        self.checked.load(Ordering::Relaxed)
    }

    /// Which backend runs this runtime's programs.
    ///
    /// ```
    /// use accel_runtime::{BackendKind, Runtime};
    /// assert_eq!(Runtime::cpu().backend(), BackendKind::Cpu);
    /// ```
    pub fn backend(&self) -> BackendKind {
        #[cfg(feature = "cuda")]
        if !self.gpus.is_empty() {
            return BackendKind::Cuda;
        }
        BackendKind::Cpu
    }

    /// Waits until the work of every call made so far has finished, and reports any failure of
    /// it. A call on a GPU returns once its kernels are queued when none of them can fail (its
    /// results stay on the device, and reading one waits for it); time such calls up to this.
    /// On the CPU every call has finished when it returns.
    ///
    /// ```
    /// # fn main() -> accel_core::Result<()> {
    /// let rt = accel_runtime::Runtime::new()?;
    /// let start = std::time::Instant::now();
    /// // ... calls of #[accel] functions on `rt` ...
    /// rt.synchronize()?;
    /// println!("took {:?}", start.elapsed());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The first failure of the queued work (an index out of bounds found by a kernel, a device
    /// fault), which the call that queued it could not report.
    pub fn synchronize(&self) -> Result<()> {
        #[cfg(feature = "cuda")]
        for gpu in &self.gpus {
            Backend::synchronize(gpu)?;
        }
        self.cpu.synchronize()
    }

    /// The device that runs the programs of a CUDA runtime (its first).
    #[cfg(feature = "cuda")]
    pub fn gpu(&self) -> Option<&Gpu> {
        self.gpus.first()
    }

    /// Every device of a CUDA runtime, in the order it was opened with; empty on the CPU.
    #[cfg(feature = "cuda")]
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// Number of worker threads of the CPU pool.
    pub fn threads(&self) -> usize {
        self.cpu.threads()
    }

    /// Runs generated CPU code inside this runtime's thread pool with a fresh [`Ctx`]; an error
    /// recorded in the context and not yet taken is returned too. Works on any backend.
    ///
    /// # Errors
    /// What `f` returns, or the error it recorded in the context.
    pub fn run_cpu<T: Send>(&self, f: impl FnOnce(&Ctx) -> Result<T> + Send) -> Result<T> {
        self.cpu.run(f)
    }

    /// Runs the `#[accel]` function `F` on `args` on this runtime's backend (what the function
    /// itself does: `f(&rt, a, b)` is `rt.call::<f::Function>((a, b))`).
    ///
    /// # Errors
    /// The function's run-time errors (`Error::IndexOutOfBounds`, `DivisionByZero`, ...) and the
    /// backend's (`OutOfDeviceMemory`, ...).
    ///
    /// ```
    /// use accel_runtime::{Result, Runtime, Vector, backend::Function, cpu};
    ///
    /// struct Double;
    /// impl Function for Double {
    ///     type Args<'a> = (&'a Vector<i32>,);
    ///     type Output = Vector<i32>;
    ///     const NAME: &'static str = "double";
    ///     fn cpu(cx: &cpu::Ctx, (xs,): (&Vector<i32>,)) -> Result<Vector<i32>> {
    ///         cpu::generate(cx, xs.shape(), |[i]| xs.get_linear(i) * 2)
    ///     }
    /// }
    ///
    /// let rt = Runtime::cpu();
    /// assert_eq!(rt.call::<Double>((&Vector::from_vec(vec![1, 2]),))?.to_vec(), vec![2, 4]);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    pub fn call<F: Function>(&self, args: F::Args<'_>) -> Result<F::Output> {
        if self.is_checked() {
            F::check_laws(&args)?;
        }
        #[cfg(feature = "cuda")]
        if let Some(gpu) = self.gpu() {
            return gpu.call::<F>(args);
        }
        self.cpu.call::<F>(args)
    }

    /// Runs a program on this runtime's backend: `gpu` on a CUDA runtime (on the calling thread),
    /// `cpu` through [`Runtime::run_cpu`] otherwise: both versions of a computation written by
    /// hand (generated code calls [`Runtime::call`]).
    ///
    /// ```
    /// use accel_runtime::{Runtime, Vector, cpu};
    ///
    /// let rt = Runtime::cuda().unwrap_or_else(|_| Runtime::cpu());
    /// let xs = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
    /// let sum = rt.run(
    ///     |cx| Ok(cpu::fold_all(cx, &xs, Some(0.0), |a, b| a + b, "sum")?.get()),
    ///     |gpu| {
    ///         // A round trip through device memory, summed on the host.
    ///         let bytes: Vec<u8> = xs.to_vec().iter().flat_map(|x| x.to_le_bytes()).collect();
    ///         let back = gpu.download(&gpu.upload(&bytes)?, 0, bytes.len())?;
    ///         Ok(back.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).sum())
    ///     },
    /// )?;
    /// assert_eq!(sum, 6.0);
    /// # Ok::<(), accel_runtime::Error>(())
    /// ```
    #[cfg(feature = "cuda")]
    pub fn run<T: Send>(
        &self,
        cpu: impl FnOnce(&Ctx) -> Result<T> + Send,
        gpu: impl FnOnce(&Gpu) -> Result<T>,
    ) -> Result<T> {
        match self.gpu() {
            Some(device) => gpu(device),
            None => self.run_cpu(cpu),
        }
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Runtime");
        s.field("backend", &self.backend());
        #[cfg(feature = "cuda")]
        if !self.gpus.is_empty() {
            return s.field("gpus", &self.gpus).finish();
        }
        s.field("cpu", &self.cpu).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_requests() {
        assert_eq!(request_from_env(None), Ok(Request::Auto));
        assert_eq!(request_from_env(Some("auto")), Ok(Request::Auto));
        assert_eq!(request_from_env(Some("")), Ok(Request::Auto));
        assert_eq!(request_from_env(Some(" CPU ")), Ok(Request::Cpu));
        assert_eq!(request_from_env(Some("Cuda")), Ok(Request::Cuda));
        let e = request_from_env(Some("tpu")).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("`auto`, `cpu` and `cuda`"));
        assert_eq!(Runtime::for_request(Request::Cpu).unwrap().backend(), BackendKind::Cpu);
    }

    #[test]
    fn device_ordinals_are_checked_before_any_device_is_opened() {
        for (ordinals, says) in [(&[][..], "no device ordinal"), (&[1, 0, 1][..], "device 1 is listed twice")] {
            let e = Runtime::cuda_devices(ordinals).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains(says), "{e}");
        }
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn without_the_cuda_feature() {
        assert_eq!(Runtime::for_request(Request::Auto).unwrap().backend(), BackendKind::Cpu);
        let errors = [Runtime::for_request(Request::Cuda), Runtime::cuda_device(1), Runtime::cuda_all()];
        for e in errors.into_iter().map(Result::unwrap_err) {
            assert!(matches!(e, Error::NoDevice { .. }) && e.to_string().contains("enable the `cuda` feature"), "{e}");
        }
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn with_the_cuda_feature() {
        let auto = Runtime::for_request(Request::Auto).unwrap();
        if Gpu::device_count() == 0 {
            assert_eq!(auto.backend(), BackendKind::Cpu);
            assert!(auto.gpu().is_none());
            let e = Runtime::for_request(Request::Cuda).unwrap_err();
            assert!(matches!(e, Error::NoDevice { .. }), "{e}");
            if std::env::var_os("ACCEL_BACKEND").is_none() {
                assert_eq!(Runtime::new().unwrap().backend(), BackendKind::Cpu);
            }
            assert_eq!(auto.run(|_| Ok("cpu"), |_| Ok("gpu")), Ok("cpu"));
        } else {
            assert_eq!(auto.backend(), BackendKind::Cuda);
            assert_eq!(
                auto.run(|_| Ok("cpu".to_string()), |gpu| Ok(gpu.name().to_string())).unwrap(),
                auto.gpu().unwrap().name()
            );
            // The CPU pool still serves host steps.
            assert_eq!(auto.run_cpu(|cx| Ok(cx.div(7, 2))), Ok(3));
            assert!(format!("{auto:?}").contains("Cuda"));
        }
        assert_eq!(Runtime::cpu().run(|_| Ok(1), |_| Ok(2)), Ok(1));
    }

    #[test]
    fn runs_inside_its_own_pool_or_on_the_calling_thread() {
        let rt = Runtime::cpu_with_threads(3).unwrap();
        assert_eq!(rt.run_cpu(|_| Ok(rayon::current_num_threads())), Ok(3));
        assert!(rt.run_cpu(|_| Ok(rayon::current_thread_index().is_some())).unwrap());
        let caller = std::thread::current().id();
        assert_eq!(Runtime::cpu().run_cpu(|_| Ok(std::thread::current().id())), Ok(caller));
        let e = rt.run_cpu(|cx| Ok(cx.div(1, 0))).unwrap_err();
        assert_eq!(e, Error::division_by_zero("/"));
        assert!(Runtime::cpu_with_threads(0).is_err());
        assert!(Runtime::cpu().threads() >= 1);
        assert!(format!("{:?}", Runtime::cpu()).contains("rayon's global"));
        assert!(format!("{:?}", Runtime::cpu_with_threads(2).unwrap()).contains("threads: 2"));
    }
}
