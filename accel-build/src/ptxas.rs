//! Assembling the PTX module with ptxas, when one is available: machine code (SASS) to embed
//! beside the PTX, and a check.
//!
//! ptxas assembles the module for sm_80 (A100, and the other 8.x GPUs) and sm_90 (H100, H200),
//! both at once, into `OUT_DIR/accel/accel.<arch>.cubin`; the macro embeds the cubins that exist
//! and the runtime loads the one made for the device, so that loading a module does not wait for
//! the driver to compile the PTX (it does for other GPUs). It is also a check: a kernel that LLVM
//! emits but ptxas rejects would otherwise fail only when the driver loads the module on a GPU
//! machine. Cubins are cached by the module's and ptxas's hash in the target directory, so the
//! same module is assembled once (a large module takes ptxas tens of seconds), and a stamp beside
//! the cubins of an `OUT_DIR` names the module they were made from.
//!
//! ptxas is `ACCEL_PTXAS` when set, else `ptxas` on PATH, else `$CUDA_HOME/bin/ptxas`; without
//! one the build goes on unchecked (CI installs one: the PyPI wheel `nvidia-cuda-nvcc==13.0.88`
//! runs without a GPU).

use crate::{Result, error, fnv1a, write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The architectures every module is assembled for.
pub const ARCHS: [&str; 2] = ["sm_80", "sm_90"];

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

/// The cubin of `arch` in `dir`.
pub fn cubin(dir: &Path, arch: &str) -> PathBuf {
    dir.join(format!("accel.{arch}.cubin"))
}

/// Removes the cubins from `dir`: they must never outlive the module they were made from.
pub fn remove_cubins(dir: &Path) {
    for arch in ARCHS {
        let _ = std::fs::remove_file(cubin(dir, arch));
    }
    let _ = std::fs::remove_file(dir.join("accel.cubin-stamp"));
}

/// Assembles `ptx` for every architecture of [`ARCHS`] into `dir`, unless the cubins there were
/// made from this module by this ptxas (`dir/accel.cubin-stamp`), or the cache in `cache_dir`
/// (shared by the package's `OUT_DIR`s, e.g. those of `cargo clippy` and `cargo test`) has them.
/// A cubin is only ever used beside the module it was made from.
pub fn assemble_all(ptxas: &Path, ptx: &Path, cache_dir: &Path, dir: &Path) -> Result<()> {
    let module = std::fs::read(ptx).map_err(|e| error(&format!("reading {}", ptx.display()), e))?;
    let key = format!("{:016x}", fnv1a(&[&module, ptxas.as_os_str().as_encoded_bytes()]));
    let stamp = dir.join("accel.cubin-stamp");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == key) && ARCHS.iter().all(|a| cubin(dir, a).is_file()) {
        return Ok(());
    }
    remove_cubins(dir);
    let _ = std::fs::remove_file(&stamp);
    let cached = |arch: &str| cache_dir.join(format!("{key}.{arch}.cubin"));
    let from_cache = ARCHS.iter().all(|a| cached(a).is_file())
        && ARCHS.iter().try_for_each(|a| std::fs::copy(cached(a), cubin(dir, a)).map(drop)).is_ok();
    if !from_cache {
        remove_cubins(dir);
        let results = std::thread::scope(|s| {
            let runs = ARCHS.map(|arch| s.spawn(move || assemble(ptxas, ptx, dir, arch)));
            runs.map(|run| run.join().unwrap_or_else(|_| Err(error("running ptxas", "the thread running it panicked"))))
        });
        if let Err(e) = results.into_iter().collect::<Result<Vec<()>>>() {
            remove_cubins(dir);
            return Err(e);
        }
        // A failed copy into the cache costs a later build an assembly, nothing else.
        let _ = std::fs::create_dir_all(cache_dir);
        for arch in ARCHS {
            let _ = std::fs::copy(cubin(dir, arch), cached(arch));
        }
        prune(cache_dir);
    }
    write(&stamp, &key)
}

/// Keeps the newest cubins of the cache (those of the last few modules of all packages).
fn prune(cache_dir: &Path) {
    const KEEP: usize = 16;
    let mut files: Vec<_> = std::fs::read_dir(cache_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort();
    for (_, path) in files.iter().rev().skip(KEEP) {
        let _ = std::fs::remove_file(path);
    }
}

/// Assembles `ptx` for `arch` into its cubin in `dir`.
fn assemble(ptxas: &Path, ptx: &Path, dir: &Path, arch: &str) -> Result<()> {
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg(cubin(dir, arch))
        .output()
        .map_err(|e| error(&format!("running {}", ptxas.display()), e))?;
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
