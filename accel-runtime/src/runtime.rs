//! The runtime: which backend runs a program, and its resources.
//!
//! For now the only backend is the CPU one, which owns a rayon thread pool; generated code runs
//! inside it through [`Runtime::run_cpu`], so that accel's parallel loops never compete with the
//! application's own use of rayon's global pool.

use crate::cpu::Ctx;
use accel_core::{Error, Result};
use std::fmt;

/// The kind of backend a [`Runtime`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// Rayon skeletons on the host's cores.
    Cpu,
}

/// Holds the backend that `#[accel]` functions run on.
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
    backend: Backend,
}

enum Backend {
    Cpu(Pool),
}

enum Pool {
    Own(rayon::ThreadPool),
    /// Rayon's global pool, when a pool of our own could not be started.
    Global,
}

/// What `ACCEL_BACKEND` asks for.
fn backend_from_env(value: Option<&str>) -> Result<BackendKind> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "auto" | "cpu") => Ok(BackendKind::Cpu),
        Some("cuda") => Err(Error::NoDevice {
            reason: "this build of accel has no CUDA backend yet; unset ACCEL_BACKEND or set it to cpu".into(),
        }),
        Some(_) => Err(Error::invalid_argument(
            "Runtime::new",
            format!(
                "ACCEL_BACKEND is `{}`; the accepted values are `auto`, `cpu` and `cuda`",
                value.unwrap_or_default()
            ),
        )),
    }
}

fn start_pool(threads: usize) -> std::result::Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("accel-cpu-{i}")).build()
}

impl Runtime {
    /// The runtime that `ACCEL_BACKEND` selects: unset, `auto` or `cpu` give the CPU backend;
    /// `cuda` is `Error::NoDevice` in this build; anything else is `Error::InvalidArgument`.
    pub fn new() -> Result<Runtime> {
        let value = std::env::var_os("ACCEL_BACKEND");
        let text = match &value {
            None => None,
            Some(v) => Some(v.to_str().ok_or_else(|| {
                Error::invalid_argument("Runtime::new", format!("ACCEL_BACKEND is not valid UTF-8: {v:?}"))
            })?),
        };
        match backend_from_env(text)? {
            BackendKind::Cpu => Ok(Runtime::cpu()),
        }
    }

    /// The CPU backend with one thread per core (rayon's default, which honours
    /// `RAYON_NUM_THREADS`).
    pub fn cpu() -> Runtime {
        let pool = start_pool(0).map_or(Pool::Global, Pool::Own);
        Runtime { backend: Backend::Cpu(pool) }
    }

    /// The CPU backend with `n` threads (`n > 0`).
    pub fn cpu_with_threads(n: usize) -> Result<Runtime> {
        if n == 0 {
            return Err(Error::invalid_argument(
                "Runtime::cpu_with_threads",
                "a thread pool needs at least one thread",
            ));
        }
        let pool = start_pool(n).map_err(|e| Error::Backend {
            backend: "cpu".into(),
            context: format!("starting a pool of {n} threads"),
            message: e.to_string(),
        })?;
        Ok(Runtime { backend: Backend::Cpu(Pool::Own(pool)) })
    }

    pub fn backend(&self) -> BackendKind {
        match self.backend {
            Backend::Cpu(_) => BackendKind::Cpu,
        }
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        match &self.backend {
            Backend::Cpu(Pool::Own(pool)) => pool.current_num_threads(),
            Backend::Cpu(Pool::Global) => rayon::current_num_threads(),
        }
    }

    /// Runs generated CPU code inside this runtime's thread pool with a fresh [`Ctx`]; an error
    /// recorded in the context and not yet taken is returned too.
    pub fn run_cpu<T: Send>(&self, f: impl FnOnce(&Ctx) -> Result<T> + Send) -> Result<T> {
        let run = || {
            let cx = Ctx::new();
            let value = f(&cx)?;
            cx.check()?;
            Ok(value)
        };
        match &self.backend {
            Backend::Cpu(Pool::Own(pool)) => pool.install(run),
            Backend::Cpu(Pool::Global) => run(),
        }
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime").field("backend", &self.backend()).field("threads", &self.threads()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_selection() {
        assert_eq!(backend_from_env(None), Ok(BackendKind::Cpu));
        assert_eq!(backend_from_env(Some("auto")), Ok(BackendKind::Cpu));
        assert_eq!(backend_from_env(Some(" CPU ")), Ok(BackendKind::Cpu));
        let e = backend_from_env(Some("cuda")).unwrap_err();
        assert!(matches!(e, Error::NoDevice { .. }) && e.to_string().contains("no CUDA backend yet"));
        let e = backend_from_env(Some("tpu")).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("`auto`, `cpu` and `cuda`"));
    }

    #[test]
    fn runs_inside_its_own_pool() {
        let rt = Runtime::cpu_with_threads(3).unwrap();
        assert_eq!(rt.run_cpu(|_| Ok(rayon::current_num_threads())), Ok(3));
        let e = rt.run_cpu(|cx| Ok(cx.div(1, 0))).unwrap_err();
        assert_eq!(e, Error::division_by_zero("/"));
        assert!(Runtime::cpu_with_threads(0).is_err());
        assert!(Runtime::cpu().threads() >= 1);
        assert!(format!("{:?}", Runtime::cpu()).contains("Cpu"));
    }
}
