//! Build-script helper of accel: compiles a package's `#[accel]` functions for the GPU.
//!
//! A package that uses `#[accel]` has `build.rs` containing `fn main() { accel_build::build(); }`
//! and `accel-build` in its `[build-dependencies]`. When the package's `accel` dependency has its
//! `cuda` feature (accel's build script announces it to its dependents as `DEP_ACCEL_CUDA=1`),
//! the build script
//!
//! 1. finds the accel packages it depends on (`dependencies`, by `cargo metadata`), whose
//!    functions its own may call, and lists them for the macro in
//!    `OUT_DIR/accel/dependencies.json` (this step runs without `cuda` too);
//! 2. finds every `#[accel]` function in `src/`, `tests/`, `examples/` and `benches/` and lowers
//!    it with accel-core, as the macro does (`scan`), keeping each program once (by
//!    fingerprint);
//! 3. groups the programs by the file they are written in, each file a *unit*
//!    (`accel_core::ptx_dir`), and generates one device crate per unit, which the pinned nightly
//!    compiles into the unit's PTX module, `OUT_DIR/accel/units/<unit>/accel.ptx` (`device`,
//!    `toolchain`), unless nothing the unit depends on changed: editing one function rebuilds
//!    the module of its file only;
//! 4. assembles each module with ptxas for sm_80 and sm_90 when a ptxas is found (`ptxas`), into
//!    `accel.sm_80.cubin` and `accel.sm_90.cubin` beside it, on a thread of its own while the
//!    next unit's module compiles;
//! 5. writes one marker per program, `OUT_DIR/accel/programs/<fingerprint>`, naming its unit, and
//!    sets `ACCEL_PTX_DIR=OUT_DIR/accel` for the crate's compilation: the macro embeds the
//!    function's module (`include_str!`) and the cubins it finds (`include_bytes!`), and reports
//!    a function without a marker, which the build did not see.
//!
//! One module per file, not per package, is what keeps a release rebuild short: a function whose
//! module did not change expands to the same code, so rustc's incremental mode (on for the
//! release profile of this workspace, see README.md) reuses everything compiled for it.
//!
//! Without the `cuda` feature it only lists the dependencies and sets `ACCEL_PTX_DIR` to a
//! directory without `units/`, and needs no nightly. A failure stops the build with the message of the step that failed.

mod dependencies;
mod device;
mod dump;
mod ptxas;
mod scan;
mod toolchain;

use accel_core::library::Dependency;
use accel_core::{Error, Program, ptx_dir};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, Error>;

/// Runs the steps above; call it from `build.rs`. On failure it prints the error and exits with
/// status 1, which fails the build with that message.
pub fn build() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let var = |key: &str| {
        std::env::var_os(key).ok_or_else(|| {
            error(
                "reading the build script's environment",
                format!("{key} is not set: call accel_build::build() from build.rs"),
            )
        })
    };
    let out_dir = PathBuf::from(var("OUT_DIR")?);
    let root = PathBuf::from(var("CARGO_MANIFEST_DIR")?);
    let package = var("CARGO_PKG_NAME")?.to_string_lossy().into_owned();

    let dir = out_dir.join("accel");
    let programs_dir = dir.join(ptx_dir::PROGRAMS);
    println!("cargo:rustc-env=ACCEL_PTX_DIR={}", dir.display());
    for key in
        ["ACCEL_PTXAS", "ACCEL_NO_TOOLCHAIN_INSTALL", "CUDA_HOME", "ACCEL_FUSION", "ACCEL_FAST_MATH", "ACCEL_DUMP"]
    {
        println!("cargo:rerun-if-env-changed={key}");
    }
    // The macro reads the switches too: passing them on makes cargo recompile the crate when
    // they change, so that the macro and this script always agree.
    for key in ["ACCEL_FUSION", "ACCEL_FAST_MATH"] {
        println!("cargo:rustc-env={key}={}", std::env::var(key).unwrap_or_default());
    }
    // Markers of an earlier build must not outlive it: the macro trusts every marker it finds.
    reset_dir(&programs_dir)?;
    let dependencies = accel_dependencies(&root)?;
    write(&dir.join(accel_core::library::DEPENDENCIES_FILE), &Dependency::write_list(&dependencies))?;
    let cuda = std::env::var_os("DEP_ACCEL_CUDA").is_some();
    let stages = dump::stages()?;
    let units_dir = dir.join(ptx_dir::UNITS);
    if !cuda && stages.is_empty() {
        // No `cuda`: a directory without `units/` tells the macro so.
        return remove_dir(&units_dir);
    }

    let (found, watched) = scan::package(&root, &dependencies);
    for path in &watched {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    // The skeletons' device-only modules are not compiled for the host, so no host dependency
    // changes with them: watch their sources (cargo scans a directory recursively).
    println!("cargo:rerun-if-changed={}", Path::new(accel_kernels::MANIFEST_DIR).join("src").display());
    let profile_dir = out_dir.ancestors().nth(3).map(Path::to_path_buf).ok_or_else(|| {
        error(
            "finding the target directory",
            format!("OUT_DIR `{}` is not <target>/<profile>/build/<pkg>/out", out_dir.display()),
        )
    })?;
    if !cuda {
        remove_dir(&units_dir)?;
        return dump::all(&stages, &found, &[], &profile_dir.join("accel-dump").join(&package));
    }

    let units = units(&root, &found);
    // A unit whose file has no `#[accel]` function left goes, with its module.
    let current: std::collections::HashSet<_> = units.iter().map(|u| u.name.as_str()).collect();
    for entry in std::fs::read_dir(&units_dir).into_iter().flatten().flatten() {
        if !current.contains(entry.file_name().to_string_lossy().as_ref()) {
            remove_dir(&entry.path())?;
        }
    }
    std::fs::create_dir_all(&units_dir).map_err(|e| error(&format!("creating {}", units_dir.display()), e))?;
    let target_dir = profile_dir.join("accel-device");
    let mut built = Vec::new();
    if !units.is_empty() {
        let toolchain = toolchain::Toolchain::ensure(&target_dir)?;
        let ptxas = ptxas::find()?;
        let names: Vec<String> = units.iter().map(|u| device::unit_package_name(&package, &u.name)).collect();
        device::prune_units(&target_dir, &package, &names)?;
        // The units' modules are compiled one after another (the inner builds share a target
        // directory, which cargo locks), each on one core; ptxas assembles a module while the
        // next one compiles: the examples' 19 units took 49-51 s instead of 62-64 s (2 cores).
        std::thread::scope(|s| -> Result<()> {
            let mut assembling: Option<std::thread::ScopedJoinHandle<'_, Result<()>>> = None;
            for unit in &units {
                let unit_dir = ptx_dir::unit_dir(&dir, &unit.name);
                let build = device::DeviceBuild {
                    dir: &unit_dir,
                    package: &package,
                    unit: &unit.name,
                    file: &unit.file,
                    target_dir: &target_dir,
                };
                let source = module_source(&unit.programs)?;
                build.build(&source, &toolchain)?;
                if let Some(previous) = assembling.take() {
                    joined(previous)?;
                }
                match &ptxas {
                    Some(ptxas) => {
                        let (ptx, cache, name, cubins) =
                            (build.ptx(), build.cubin_cache(), build.name(), unit_dir.clone());
                        assembling = Some(s.spawn(move || ptxas::assemble_all(ptxas, &ptx, &cache, &name, &cubins)));
                    }
                    None => ptxas::remove_cubins(&unit_dir),
                }
                for f in &unit.programs {
                    let text = ptx_dir::marker_text(&unit.name, &f.program.name, &f.file);
                    write(&ptx_dir::marker(&dir, f.program.fingerprint()), &text)?;
                }
                built.push(dump::Device { unit: unit.name.clone(), source, ptx: build.ptx() });
            }
            assembling.map_or(Ok(()), joined)
        })?;
    }
    dump::all(&stages, &found, &built, &profile_dir.join("accel-dump").join(&package))
}

/// The result of a thread that assembles a module.
fn joined(assembly: std::thread::ScopedJoinHandle<'_, Result<()>>) -> Result<()> {
    assembly.join().unwrap_or_else(|_| Err(error("running ptxas", "the thread running it panicked")))
}

/// The GPU code of one source file: its programs, each once, compiled into a module of its own.
struct Unit<'a> {
    /// [`ptx_dir::unit_name`] of the file, made unique among the package's units.
    name: String,
    /// The file, relative to the package's root.
    file: PathBuf,
    programs: Vec<&'a scan::Found>,
}

/// The units of the `found` functions, in file order: each program goes to the first file it is
/// found in (a program written twice is compiled once).
fn units<'a>(root: &Path, found: &'a [scan::Found]) -> Vec<Unit<'a>> {
    let mut seen = std::collections::HashSet::new();
    let mut units: Vec<Unit<'a>> = Vec::new();
    for f in found {
        if !seen.insert(f.program.fingerprint()) {
            continue;
        }
        let file = f.file.strip_prefix(root).unwrap_or(&f.file).to_path_buf();
        match units.iter_mut().find(|u| u.file == file) {
            Some(unit) => unit.programs.push(f),
            None => units.push(Unit { name: String::new(), file, programs: vec![f] }),
        }
    }
    // Two paths may spell the same name (`a.b.rs`, `a-b.rs`): the later ones are numbered.
    let mut names = std::collections::HashSet::new();
    for unit in &mut units {
        let base = ptx_dir::unit_name(&unit.file);
        let mut name = base.clone();
        let mut n = 1;
        while !names.insert(name.clone()) {
            n += 1;
            name = format!("{base}-{n}");
        }
        unit.name = name;
    }
    units
}

/// The accel packages the package depends on. Their sources are watched (a path dependency
/// edited changes what its callers inline) even when no device code is built. When cargo cannot
/// say, the build goes on without them and says so: only calls into them fail.
fn accel_dependencies(root: &Path) -> Result<Vec<Dependency>> {
    let cargo = std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from);
    let target = std::env::var("TARGET").map_err(|_| {
        error("reading the build script's environment", "TARGET is not set: call accel_build::build() from build.rs")
    })?;
    let found = dependencies::find(&cargo, root, &target).unwrap_or_else(|e| {
        println!(
            "cargo:warning=accel: the #[accel] functions of dependencies cannot be called, since their sources were not found: {e}"
        );
        Vec::new()
    });
    for dependency in &found {
        println!("cargo:rerun-if-changed={}", dependency.root.join("src").display());
    }
    Ok(found)
}

/// accel-core's device module for the programs `found`; on failure, the program it failed on,
/// by trying them one by one.
fn module_source(found: &[&scan::Found]) -> Result<String> {
    let programs: Vec<Program> = found.iter().map(|f| f.program.clone()).collect();
    accel_core::codegen::device::module_source(&programs).map_err(|e| {
        let culprit = found
            .iter()
            .find(|f| accel_core::codegen::device::module_source(std::slice::from_ref(&f.program)).is_err());
        let what = match culprit {
            Some(f) => format!("generating the GPU code of `#[accel] fn {}` in {}", f.program.name, f.file.display()),
            None => "generating the GPU code of the package's `#[accel]` functions".to_string(),
        };
        error(&what, e)
    })
}

/// Empties `dir`, creating it if needed.
fn reset_dir(dir: &Path) -> Result<()> {
    remove_dir(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| error(&format!("creating {}", dir.display()), e))
}

/// Removes `dir` and everything in it, if it exists.
fn remove_dir(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(error(&format!("removing {}", dir.display()), e)),
    }
}

/// Writes `text` to `path`, creating its directory.
fn write(path: &Path, text: &str) -> Result<()> {
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, text))
        .map_err(|e| error(&format!("writing {}", path.display()), e))
}

/// A build failure, as the error type every accel failure has.
fn error(context: &str, message: impl ToString) -> Error {
    Error::backend("accel-build", context, message.to_string())
}

/// 64-bit FNV-1a over `parts`, each followed by a separator byte.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    parts
        .iter()
        .flat_map(|p| p.iter().chain(&[0xff]))
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The first `n` lines of `text`, and how many more there were.
fn head(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines[..lines.len().min(n)].join("\n");
    if lines.len() > n {
        out.push_str(&format!("\n... ({} lines cut)", lines.len() - n));
    }
    out
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail() {
        assert_eq!(head("a\nb\nc", 2), "a\nb\n... (1 lines cut)");
        assert_eq!(head("a\nb", 2), "a\nb");
        assert_eq!(tail("a\nb\nc", 2), "b\nc");
    }

    #[test]
    fn fnv1a_separates_parts() {
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
    }
}
