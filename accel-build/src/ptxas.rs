//! Checking the PTX module with ptxas, when one is available.
//!
//! A kernel that LLVM emits but ptxas rejects would otherwise fail only when the driver loads
//! the module on a GPU machine. ptxas assembles the module for sm_80 (A100 and every later GPU
//! through the driver's JIT) and sm_90 (H100, H200), both at once; the result is thrown away.
//! The check is skipped when the same ptxas already accepted the same module (a large module
//! takes ptxas tens of seconds).
//!
//! ptxas is `ACCEL_PTXAS` when set, else `ptxas` on PATH, else `$CUDA_HOME/bin/ptxas`; without
//! one the build goes on unchecked (CI installs one: the PyPI wheel `nvidia-cuda-nvcc==13.0.88`
//! runs without a GPU).

use crate::{Result, error, fnv1a, write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The architectures every module must assemble for.
const ARCHS: [&str; 2] = ["sm_80", "sm_90"];

/// The ptxas to check with, if any.
pub fn find() -> Result<Option<PathBuf>> {
    let exe = format!("ptxas{}", std::env::consts::EXE_SUFFIX);
    if let Some(path) = std::env::var_os("ACCEL_PTXAS").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(Some(path))
        } else {
            Err(error("looking for ptxas", format!("ACCEL_PTXAS is `{}`, which is not a file", path.display())))
        };
    }
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    let cuda_home = std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin"));
    Ok(on_path.chain(cuda_home).map(|dir| dir.join(&exe)).find(|p| p.is_file()))
}

/// Assembles `ptx` for every architecture of [`ARCHS`], unless `record` says that this ptxas
/// accepted this module already; scratch output goes into `dir`.
pub fn check(ptxas: &Path, ptx: &Path, record: &Path, dir: &Path) -> Result<()> {
    let module = std::fs::read(ptx).map_err(|e| error(&format!("reading {}", ptx.display()), e))?;
    let accepted = format!("{}\n{:016x}\n", ptxas.display(), fnv1a(&[&module]));
    if std::fs::read_to_string(record).is_ok_and(|r| r == accepted) {
        return Ok(());
    }
    let results = std::thread::scope(|s| {
        let runs = ARCHS.map(|arch| s.spawn(move || assemble(ptxas, ptx, dir, arch)));
        runs.map(|run| run.join().unwrap_or_else(|_| Err(error("running ptxas", "the thread running it panicked"))))
    });
    results.into_iter().collect::<Result<Vec<()>>>()?;
    write(record, &accepted)
}

/// Assembles `ptx` for `arch` into a scratch file, which it removes.
fn assemble(ptxas: &Path, ptx: &Path, dir: &Path, arch: &str) -> Result<()> {
    let scratch = dir.join(format!("ptxas-check-{arch}.cubin"));
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg(&scratch)
        .output()
        .map_err(|e| error(&format!("running {}", ptxas.display()), e))?;
    let _ = std::fs::remove_file(&scratch);
    if out.status.success() {
        return Ok(());
    }
    let mut message = String::from_utf8_lossy(&out.stderr).into_owned();
    message.push_str(&String::from_utf8_lossy(&out.stdout));
    Err(error(
        &format!("assembling {} for {arch} with {}", ptx.display(), ptxas.display()),
        format!(
            "ptxas rejects the GPU kernels generated for this package's `#[accel]` functions \
             (a bug in accel's code generation or skeletons: please report it with this message)\n{}",
            crate::head(message.trim_end(), 40)
        ),
    ))
}
