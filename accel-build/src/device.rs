//! The device crate of a unit (the programs of one source file, `accel_core::ptx_dir`) and its
//! build to PTX (the recipe of DESIGN.md §4).
//!
//! `OUT_DIR/accel/units/<unit>/device/` holds a `no_std` cdylib (its own `[workspace]`, `panic = "abort"`,
//! fat LTO, one codegen unit) whose `lib.rs` is accel-core's device module for the unit's
//! programs, depending on accel-kernels by path. The pinned nightly builds it with
//! `cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core -- -Ctarget-cpu=sm_80
//! -Clinker=true --emit=asm=...`: fat LTO makes the emitted PTX self-contained, the no-op linker
//! stands in for the missing bitcode linker.
//!
//! The target directory is shared by every package built into the same outer target directory
//! and profile, so `core`, `compiler_builtins`, `libm` and accel-kernels are compiled once (about
//! 20 s) and each unit then pays only for its own crate (half a second for a file of a few
//! functions). The inner cargo is skipped altogether
//! when a stamp (the generated source and manifest, accel-kernels' sources and version, the
//! toolchain's `rustc -vV`) matches the last successful build and its PTX exists, in this
//! `OUT_DIR` or in the target directory's `ptx/` (the newest module of each unit, which other
//! `OUT_DIR`s of the package, e.g. those of `cargo clippy` and `cargo test`, copy).

use crate::toolchain::Toolchain;
use crate::{Result, error, fnv1a, write};
use accel_core::kernel::{self, Role};
use accel_core::ptx_dir;
use std::path::{Path, PathBuf};

/// The target the kernels are compiled for.
const TARGET: &str = "nvptx64-nvidia-cuda";

/// Where the device build of a unit lives: `OUT_DIR/accel/units/<unit>`.
pub struct DeviceBuild<'a> {
    /// `OUT_DIR/accel/units/<unit>` (`ptx_dir::unit_dir`).
    pub dir: &'a Path,
    /// The user package's name, made into the device package's name with the unit's.
    pub package: &'a str,
    /// The unit's name.
    pub unit: &'a str,
    /// The unit's source file, relative to the package's root, for messages.
    pub file: &'a Path,
    /// The target directory shared by all device builds of the outer target directory.
    pub target_dir: &'a Path,
}

impl DeviceBuild<'_> {
    /// The PTX module.
    pub fn ptx(&self) -> PathBuf {
        ptx_dir::module(self.dir)
    }

    /// The device package's name, unique in the target directory: the package's and the unit's.
    pub fn name(&self) -> String {
        unit_package_name(self.package, self.unit)
    }

    /// Where cubins are cached by module, shared by all `OUT_DIR`s like the module itself.
    pub fn cubin_cache(&self) -> PathBuf {
        self.target_dir.join("cubins")
    }

    /// The stamp of a build of `source` in the crate of `manifest` with the nightly whose `rustc
    /// -vV` is `version`: a hash of everything the module depends on.
    fn stamp(&self, manifest: &str, source: &str, version: &str) -> String {
        // The occupancy requests are applied to the module after rustc (`with_occupancy`): a
        // change of them must rebuild it too.
        let occupancy = format!(
            "{:?} {:?}",
            Role::ALL.map(|r| (r.suffix(), r.blocks_per_sm())),
            kernel::entry_blocks_per_sm(kernel::offsets_scan::SCAN)
        );
        let inputs =
            [manifest.as_bytes(), source.as_bytes(), &kernels_digest(), version.as_bytes(), occupancy.as_bytes()];
        format!("{:016x}", fnv1a(&inputs))
    }

    /// Where the target directory keeps this unit's module of `stamp`, for all `OUT_DIR`s.
    fn cached(&self, stamp: &str) -> PathBuf {
        self.target_dir.join("ptx").join(format!("{}-{stamp}.ptx", self.name()))
    }

    /// Whether the module of `stamp` is in place: built here before, or copied here from the
    /// target directory's cache, where another `OUT_DIR` of the package left it.
    fn reuse(&self, stamp: &str) -> Result<bool> {
        let stamp_path = self.dir.join("device.stamp");
        if self.ptx().is_file() && std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) {
            return Ok(true);
        }
        let cached = self.cached(stamp);
        if !cached.is_file() {
            return Ok(false);
        }
        std::fs::create_dir_all(self.dir).map_err(|e| error(&format!("creating {}", self.dir.display()), e))?;
        // Another build may remove the cached module meanwhile: then this one builds it.
        if copy_atomically(&cached, &self.ptx()).is_err() {
            return Ok(false);
        }
        write(&stamp_path, stamp).map(|()| true)
    }

    /// Builds `source` (the device crate's `lib.rs`) into [`Self::ptx`], unless the last build
    /// of this unit, here or in another `OUT_DIR` of the same target directory (`cargo
    /// clippy` and `cargo test` use different ones), was of the same inputs.
    pub fn build(&self, source: &str, toolchain: &Toolchain) -> Result<()> {
        let name = self.name();
        let manifest = manifest(self.package, self.file, &name);
        let stamp = self.stamp(&manifest, source, &toolchain.version);
        if self.reuse(&stamp)? {
            return Ok(());
        }
        let crate_dir = self.dir.join("device");
        let stamp_path = self.dir.join("device.stamp");
        let cached = self.cached(&stamp);
        let cache_dir = cached.parent().unwrap_or(self.target_dir);
        write(&crate_dir.join("Cargo.toml"), &manifest)?;
        write(&crate_dir.join("src/lib.rs"), source)?;
        let manifest_path = crate_dir.join("Cargo.toml");
        if !crate_dir.join("Cargo.lock").is_file() {
            self.lock(&manifest_path, toolchain)?;
        }
        let tmp = self.dir.join("accel.ptx.tmp");
        let mut emit = std::ffi::OsString::from("--emit=asm=");
        emit.push(&tmp);
        let out = toolchain
            .cargo()
            .args(["rustc", "--release", "--lib", "--target", TARGET, "-Zbuild-std=core", "--manifest-path"])
            .arg(&manifest_path)
            .arg("--target-dir")
            .arg(self.target_dir)
            .args(["--", "-Ctarget-cpu=sm_80", "-Clinker=true"])
            .arg(emit)
            .output()
            .map_err(|e| error("running the pinned nightly's cargo", e))?;
        if !out.status.success() || !tmp.is_file() {
            return Err(error(
                &format!(
                    "compiling the GPU kernels of `{}` in package `{}` with {} (generated crate: {})",
                    self.file.display(),
                    self.package,
                    crate::toolchain::NIGHTLY,
                    crate_dir.display()
                ),
                format!("\n{}", cargo_errors(&String::from_utf8_lossy(&out.stderr))),
            ));
        }
        let ptx = std::fs::read_to_string(&tmp).map_err(|e| error("reading the PTX module", e))?;
        write(&tmp, &with_occupancy(&ptx))?;
        std::fs::rename(&tmp, self.ptx()).map_err(|e| error("moving the PTX module into place", e))?;

        // Only the newest module of each unit is kept.
        if let Ok(entries) = std::fs::read_dir(cache_dir) {
            for entry in entries.flatten() {
                let file = entry.file_name().to_string_lossy().into_owned();
                if file.strip_prefix(&name).and_then(|rest| rest.strip_prefix('-')).is_some_and(is_stamp_file) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        std::fs::create_dir_all(cache_dir).map_err(|e| error(&format!("creating {}", cache_dir.display()), e))?;
        copy_atomically(&self.ptx(), &cached)?;
        write(&stamp_path, &stamp)
    }

    /// Writes the device workspace's `Cargo.lock`: from what cargo already downloaded when it
    /// can (the outer build fetched `libm` too), else from the registry.
    fn lock(&self, manifest_path: &Path, toolchain: &Toolchain) -> Result<()> {
        let generate = |offline: bool| {
            let mut cmd = toolchain.cargo();
            cmd.arg("generate-lockfile").arg("--manifest-path").arg(manifest_path);
            if offline {
                cmd.arg("--offline");
            }
            cmd.output().map_err(|e| error("running the pinned nightly's cargo", e))
        };
        if generate(true)?.status.success() {
            return Ok(());
        }
        let out = generate(false)?;
        if out.status.success() {
            return Ok(());
        }
        Err(error(
            "resolving the dependencies of the device crate",
            format!("\n{}", cargo_errors(&String::from_utf8_lossy(&out.stderr))),
        ))
    }
}

/// Removes from the target directory's caches the modules and cubins of the units of `package`
/// that its last build had and `names` (the device packages' names of its units now) lacks: a
/// file renamed or left without `#[accel]` functions. The caches list each package's units in
/// `ptx/<accel-device-package>.units`.
pub fn prune_units(target_dir: &Path, package: &str, names: &[String]) -> Result<()> {
    let list = target_dir.join("ptx").join(format!("{}.units", package_name(package)));
    let before = std::fs::read_to_string(&list).unwrap_or_default();
    for gone in before.lines().filter(|name| !names.iter().any(|n| n == name)) {
        for (dir, cached) in [("ptx", is_stamp_file as fn(&str) -> bool), ("cubins", crate::ptxas::is_cached_cubin)] {
            for entry in std::fs::read_dir(target_dir.join(dir)).into_iter().flatten().flatten() {
                let file = entry.file_name().to_string_lossy().into_owned();
                if file.strip_prefix(gone).and_then(|rest| rest.strip_prefix('-')).is_some_and(cached) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }
    write(&list, &names.iter().map(|n| format!("{n}\n")).collect::<String>())
}

/// The name of the device package of `unit` of `package`.
pub fn unit_package_name(package: &str, unit: &str) -> String {
    package_name(&format!("{package}-{unit}"))
}

/// The device package's name: `accel-device-` and `unit`, the user package's name and the
/// unit's.
fn package_name(unit: &str) -> String {
    let name: String = unit
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    format!("accel-device-{name}")
}

/// Whether `file` is `<16 hex digits>.ptx`, a cached module's name after its unit's.
fn is_stamp_file(file: &str) -> bool {
    file.strip_suffix(".ptx").is_some_and(|s| s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The device crate's manifest.
fn manifest(package: &str, file: &Path, name: &str) -> String {
    format!(
        r#"# Generated by accel-build: the GPU kernels of the `#[accel]` functions in `{file}` of package `{package}`.
[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[lib]
path = "src/lib.rs"
crate-type = ["cdylib"]

[dependencies]
accel-kernels = {{ path = {kernels} }}

[workspace]

[profile.release]
panic = "abort"
lto = "fat"
codegen-units = 1
opt-level = 3
debug = false
incremental = false
"#,
        kernels = toml_string(accel_kernels::MANIFEST_DIR),
        file = file.display(),
    )
}

/// Copies `from` to `to` through a temporary file, so that no reader sees half a module.
fn copy_atomically(from: &Path, to: &Path) -> Result<()> {
    let mut tmp = to.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    std::fs::copy(from, &tmp)
        .and_then(|_| std::fs::rename(&tmp, to))
        .map_err(|e| error(&format!("copying {} to {}", from.display(), to.display()), e))
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A digest of accel-kernels' manifest and sources: its version alone does not change while it
/// is developed in the same workspace.
fn kernels_digest() -> Vec<u8> {
    let root = Path::new(accel_kernels::MANIFEST_DIR);
    let mut files = vec![root.join("Cargo.toml")];
    accel_core::library::files_under(&root.join("src"), &mut files);
    let mut parts = Vec::new();
    for file in files {
        parts.extend(file.strip_prefix(root).unwrap_or(&file).to_string_lossy().bytes());
        parts.push(0);
        parts.extend(std::fs::read(&file).unwrap_or_default());
        parts.push(0);
    }
    fnv1a(&[&parts]).to_le_bytes().to_vec()
}

/// What matters in a failed cargo's stderr: its errors, without the progress lines and the
/// warnings before them, at most 60 lines.
fn cargo_errors(stderr: &str) -> String {
    const PROGRESS: [&str; 9] = [
        "Compiling ",
        "Blocking ",
        "Updating ",
        "Locking ",
        "Adding ",
        "Downloading ",
        "Downloaded ",
        "Finished ",
        "Fresh ",
    ];
    let lines: Vec<&str> = stderr.lines().filter(|l| !PROGRESS.iter().any(|p| l.trim_start().starts_with(p))).collect();
    let first = lines.iter().position(|l| l.starts_with("error")).unwrap_or(0);
    crate::head(&lines[first..].join("\n"), 60)
}

/// `ptx` with the occupancy each kernel asks for (`kernel::entry_blocks_per_sm`) declared after its
/// parameters (`.maxntid` of the block size and `.minnctapersm`, which rustc has no attribute
/// for), so that ptxas, here or in the driver, keeps its registers within what that many
/// resident blocks leave.
fn with_occupancy(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut pending: Option<u32> = None;
    for line in ptx.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some(name) = line.trim_start().strip_prefix(".visible .entry ") {
            let name = name.split('(').next().unwrap_or_default();
            pending = kernel::entry_blocks_per_sm(name);
        } else if line.trim() == ")"
            && let Some(blocks) = pending.take()
        {
            out.push_str(&format!(".maxntid {}, 1, 1\n.minnctapersm {blocks}\n", accel_kernels::abi::BLOCK_THREADS));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_that_ask_for_an_occupancy_declare_it_after_their_parameters() {
        let entry = |name: &str| format!(".visible .entry {name}(\n\t.param .u64 {name}_param_0\n)\n{{\n\tret;\n}}\n");
        let ranged = accel_core::kernel::kernel_name_in("f_0123", 2, Role::RangeReduce);
        let plain = accel_core::kernel::kernel_name_in("f_0123", 2, Role::Reduce);
        let ptx = format!(".version 8.7\n{}{}", entry(&ranged), entry(&plain));
        let tuned = with_occupancy(&ptx);
        let blocks = Role::RangeReduce.blocks_per_sm().expect("the range walk asks for blocks");
        let directives = format!(".maxntid 256, 1, 1\n.minnctapersm {blocks}\n");
        assert_eq!(tuned.matches(&directives).count(), 1, "{tuned}");
        let at = tuned.find(&directives).unwrap();
        assert!(tuned[..at].ends_with(&format!("{ranged}_param_0\n)\n")), "{tuned}");
        assert_eq!(tuned.replace(&directives, ""), ptx);
        // The ranges walk's second build asks for more blocks.
        let dense = accel_core::kernel::kernel_name_in("f_0123", 2, Role::RangeReduceDense);
        let more = Role::RangeReduceDense.blocks_per_sm().expect("the dense build asks for blocks");
        assert!(more > blocks);
        let tuned = with_occupancy(&format!(".version 8.7\n{}", entry(&dense)));
        assert!(tuned.contains(&format!("{dense}_param_0\n)\n.maxntid 256, 1, 1\n.minnctapersm {more}\n")), "{tuned}");
        // The module-wide offsets scan asks for what a node's scan does.
        let offsets = kernel::offsets_scan::SCAN;
        let scan = Role::Scan.blocks_per_sm().expect("the scan asks for blocks");
        let tuned = with_occupancy(&format!(".version 8.7\n{}", entry(offsets)));
        assert!(
            tuned.contains(&format!("{offsets}_param_0\n)\n.maxntid 256, 1, 1\n.minnctapersm {scan}\n")),
            "{tuned}"
        );
    }

    #[test]
    fn the_manifest_follows_the_recipe() {
        let m = manifest("My Package", Path::new("src/a.rs"), &package_name("My Package-src-a-rs"));
        assert!(m.contains("name = \"accel-device-my-package-src-a-rs\""));
        for line in
            ["crate-type = [\"cdylib\"]", "[workspace]", "panic = \"abort\"", "lto = \"fat\"", "codegen-units = 1"]
        {
            assert!(m.contains(line), "{line}");
        }
        assert!(m.contains(&format!("accel-kernels = {{ path = {} }}", toml_string(accel_kernels::MANIFEST_DIR))));
        assert_eq!(toml_string(r#"C:\a "b""#), r#""C:\\a \"b\"""#);
    }

    #[test]
    fn a_module_cached_by_another_out_dir_is_copied_into_a_fresh_one() {
        let root = std::env::temp_dir().join(format!("accel-build-reuse-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (target_dir, unit_dir) = (root.join("target"), root.join("out/accel/units/src-a-rs"));
        let build = DeviceBuild {
            dir: &unit_dir,
            package: "p",
            unit: "src-a-rs",
            file: Path::new("src/a.rs"),
            target_dir: &target_dir,
        };
        let manifest = manifest("p", Path::new("src/a.rs"), &build.name());
        let stamp = build.stamp(&manifest, "// kernels", "rustc 1.0.0-nightly");
        assert!(!build.reuse(&stamp).unwrap(), "nothing built yet");
        write(&build.cached(&stamp), "// the module").unwrap();
        assert!(build.reuse(&stamp).unwrap(), "the cached module is reused");
        assert_eq!(std::fs::read_to_string(build.ptx()).unwrap(), "// the module");
        assert!(build.reuse(&stamp).unwrap(), "and then found in place");
        assert!(!build.reuse(&build.stamp(&manifest, "// other kernels", "rustc 1.0.0-nightly")).unwrap());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_caches_forget_the_units_a_package_no_longer_has() {
        let target_dir = std::env::temp_dir().join(format!("accel-build-prune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&target_dir);
        let (a, b) = (unit_package_name("p", "src-a-rs"), unit_package_name("p", "src-b-rs"));
        let other = unit_package_name("p-src-a", "rs");
        let files = [
            format!("ptx/{a}-0123456789abcdef.ptx"),
            format!("cubins/{a}-0123456789abcdef.sm_90.cubin"),
            format!("ptx/{b}-0123456789abcdef.ptx"),
            format!("cubins/{b}-0123456789abcdef.sm_80.cubin"),
        ];
        for file in &files {
            write(&target_dir.join(file), "").unwrap();
        }
        prune_units(&target_dir, "p", &[a.clone(), b.clone()]).unwrap();
        assert!(files.iter().all(|f| target_dir.join(f).is_file()), "the units of the last build stay");
        prune_units(&target_dir, "p", std::slice::from_ref(&b)).unwrap();
        assert!(!target_dir.join(&files[0]).exists() && !target_dir.join(&files[1]).exists());
        assert!(target_dir.join(&files[2]).is_file() && target_dir.join(&files[3]).is_file());
        // Another package's units are not in this package's list.
        write(&target_dir.join(format!("ptx/{other}-0123456789abcdef.ptx")), "").unwrap();
        prune_units(&target_dir, "p", &[]).unwrap();
        assert!(target_dir.join(format!("ptx/{other}-0123456789abcdef.ptx")).is_file());
        assert!(!target_dir.join(&files[2]).exists());
        let _ = std::fs::remove_dir_all(&target_dir);
    }

    #[test]
    fn cached_modules_are_told_apart_by_name() {
        assert!(is_stamp_file("0123456789abcdef.ptx"));
        assert!(!is_stamp_file("x-0123456789abcdef.ptx") && !is_stamp_file("0123456789abcdef.ptx.tmp"));
    }

    #[test]
    fn cargo_errors_keep_the_errors() {
        let stderr = "   Compiling core v0.0.0\nwarning: unused variable\n  |\nerror[E0308]: mismatched types\n --> src/lib.rs:1:5\n\nerror: could not compile `x`\n    Blocking waiting for file lock\n";
        assert_eq!(
            cargo_errors(stderr),
            "error[E0308]: mismatched types\n --> src/lib.rs:1:5\n\nerror: could not compile `x`"
        );
        assert_eq!(cargo_errors("   Compiling a\nno errors here"), "no errors here");
    }

    #[test]
    fn the_kernels_digest_is_stable() {
        assert_eq!(kernels_digest(), kernels_digest());
    }
}
