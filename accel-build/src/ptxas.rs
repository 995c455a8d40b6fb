//! Assembling the PTX modules with ptxas, when one is available: machine code (SASS) to embed
//! beside the PTX, and a check.
//!
//! ptxas assembles each unit's module for sm_80 (A100, and the other 8.x GPUs) and sm_90 (H100,
//! H200), both at once, into `accel.sm_80.cubin` and `accel.sm_90.cubin` beside it
//! (`accel_core::ptx_dir`); the macro embeds the cubins that exist
//! and the runtime loads the one made for the device, so that loading a module does not wait for
//! the driver to compile the PTX (it does for other GPUs). It is also a check: a kernel that LLVM
//! emits but ptxas rejects would otherwise fail only when the driver loads the module on a GPU
//! machine. Cubins are cached by the unit's name and the module's and ptxas's hash in the target
//! directory (the newest of each unit), so the same module is assembled once, and a stamp beside
//! the cubins of an `OUT_DIR` names the module they were made from.
//!
//! ptxas is `ACCEL_PTXAS` when set, else `ptxas` on PATH, else `$CUDA_HOME/bin/ptxas`; without
//! one the build goes on unchecked (CI installs one: the PyPI wheel `nvidia-cuda-nvcc==13.0.88`
//! runs without a GPU).

use crate::{Result, error, fnv1a, write};
use accel_core::ptx_dir::{self, SASS_ARCHS};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Removes the cubins from `dir`: they must never outlive the module they were made from.
pub fn remove_cubins(dir: &Path) {
    for sm in SASS_ARCHS {
        let _ = std::fs::remove_file(ptx_dir::cubin(dir, sm));
    }
    let _ = std::fs::remove_file(dir.join("accel.cubin-stamp"));
}

/// Assembles `ptx`, the module of the unit whose device package is `name`, for every
/// architecture of `ptx_dir::SASS_ARCHS` into `dir`, unless the cubins there were made from this
/// module by this ptxas (`dir/accel.cubin-stamp`), or the cache in `cache_dir` (shared by the
/// package's `OUT_DIR`s, e.g. those of `cargo clippy` and `cargo test`) has them. A cubin is only
/// ever used beside the module it was made from.
pub fn assemble_all(ptxas: &Path, ptx: &Path, cache_dir: &Path, name: &str, dir: &Path) -> Result<()> {
    let module = std::fs::read(ptx).map_err(|e| error(&format!("reading {}", ptx.display()), e))?;
    let key = format!("{:016x}", fnv1a(&[&module, ptxas.as_os_str().as_encoded_bytes()]));
    let stamp = dir.join("accel.cubin-stamp");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == key)
        && SASS_ARCHS.iter().all(|&sm| ptx_dir::cubin(dir, sm).is_file())
    {
        return Ok(());
    }
    remove_cubins(dir);
    let cached = |sm: u32| cache_dir.join(format!("{name}-{key}.sm_{sm}.cubin"));
    let from_cache = SASS_ARCHS.iter().all(|&sm| cached(sm).is_file())
        && SASS_ARCHS.iter().try_for_each(|&sm| std::fs::copy(cached(sm), ptx_dir::cubin(dir, sm)).map(drop)).is_ok();
    if !from_cache {
        remove_cubins(dir);
        let results = std::thread::scope(|s| {
            let runs = SASS_ARCHS.map(|sm| s.spawn(move || assemble(ptxas, ptx, dir, sm)));
            runs.map(|run| run.join().unwrap_or_else(|_| Err(error("running ptxas", "the thread running it panicked"))))
        });
        if let Err(e) = results.into_iter().collect::<Result<Vec<()>>>() {
            remove_cubins(dir);
            return Err(e);
        }
        // Only the newest cubins of each unit are kept. A failed copy into the cache costs a
        // later build an assembly, nothing else.
        prune(cache_dir, name);
        let _ = std::fs::create_dir_all(cache_dir);
        for sm in SASS_ARCHS {
            let _ = std::fs::copy(ptx_dir::cubin(dir, sm), cached(sm));
        }
    }
    write(&stamp, &key)
}

/// Removes the cached cubins of the unit whose device package is `name`.
fn prune(cache_dir: &Path, name: &str) {
    for entry in std::fs::read_dir(cache_dir).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.strip_prefix(name).and_then(|rest| rest.strip_prefix('-')).is_some_and(is_cached_cubin) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `file` is `<16 hex digits>.sm_<digits>.cubin`, a cached cubin's name after its unit's.
pub fn is_cached_cubin(file: &str) -> bool {
    file.strip_suffix(".cubin").and_then(|s| s.split_once(".sm_")).is_some_and(|(key, sm)| {
        key.len() == 16
            && key.bytes().all(|b| b.is_ascii_hexdigit())
            && !sm.is_empty()
            && sm.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Assembles `ptx` for `sm_<sm>` into its cubin in `dir`.
fn assemble(ptxas: &Path, ptx: &Path, dir: &Path, sm: u32) -> Result<()> {
    let out = Command::new(ptxas)
        .arg(format!("-arch=sm_{sm}"))
        .arg(ptx)
        .arg("-o")
        .arg(ptx_dir::cubin(dir, sm))
        .output()
        .map_err(|e| error(&format!("running {}", ptxas.display()), e))?;
    if out.status.success() {
        return Ok(());
    }
    let mut message = String::from_utf8_lossy(&out.stderr).into_owned();
    message.push_str(&String::from_utf8_lossy(&out.stdout));
    Err(error(
        &format!("assembling {} for sm_{sm} with {}", ptx.display(), ptxas.display()),
        format!(
            "ptxas rejects the GPU kernels generated for this package's `#[accel]` functions \
             (a bug in accel's code generation or skeletons: please report it with this message)\n{}",
            crate::head(message.trim_end(), 40)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::is_cached_cubin;

    #[test]
    fn cached_cubins_are_told_apart_by_name() {
        assert!(is_cached_cubin("0123456789abcdef.sm_90.cubin"));
        assert!(!is_cached_cubin("2-0123456789abcdef.sm_90.cubin"));
        assert!(!is_cached_cubin("0123456789abcdef.sm_.cubin"));
        assert!(!is_cached_cubin("0123456789abcdef.sm_90.cubin.tmp"));
    }
}
