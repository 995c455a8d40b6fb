//! The pinned nightly that compiles device code (DESIGN.md §4), installed through rustup on
//! first use.
//!
//! The host build stays on whatever toolchain the user has; only the inner cargo that builds the
//! device crate runs `rustup run nightly-2026-05-20 cargo ...`. Several build scripts of one
//! build may look for the toolchain at once, so the check and the install run under a file lock:
//! one installs, the others wait and find it there.

use crate::{Result, error};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The toolchain every device crate is built with.
pub const NIGHTLY: &str = "nightly-2026-05-20";

/// The command that installs it (and that the error names when installing is forbidden).
pub const INSTALL: &str = "rustup toolchain install nightly-2026-05-20 --profile minimal --component rust-src";

/// The pinned nightly, known to be installed with `rust-src`.
pub struct Toolchain {
    rustup: PathBuf,
    /// `rustc -vV` of the nightly: part of the device build's stamp.
    pub version: String,
}

impl Toolchain {
    /// Finds the pinned nightly, installing it first when it or its `rust-src` is missing
    /// (unless `ACCEL_NO_TOOLCHAIN_INSTALL` forbids it). `lock_dir` holds the install lock.
    pub fn ensure(lock_dir: &Path) -> Result<Toolchain> {
        let rustup = find_rustup().ok_or_else(|| {
            error(
                "looking for rustup",
                format!(
                    "rustup was not found (on PATH, in $CARGO_HOME/bin or in ~/.cargo/bin); the GPU kernels of \
                     `#[accel]` functions are compiled with the nightly toolchain {NIGHTLY} and its rust-src \
                     component, which accel-build installs through rustup: install rustup from https://rustup.rs \
                     (then `{INSTALL}`, or let the next build do it), or turn off the `cuda` feature of accel \
                     (`default-features = false`) for a CPU-only build"
                ),
            )
        })?;
        std::fs::create_dir_all(lock_dir).map_err(|e| error("creating the device build directory", e))?;
        let lock_path = lock_dir.join("toolchain.lock");
        let lock = File::create(&lock_path).map_err(|e| error("creating the toolchain lock", e))?;
        lock.lock().map_err(|e| error(&format!("locking {}", lock_path.display()), e))?;

        if !installed(&rustup)? {
            if install_forbidden() {
                return Err(error(
                    "looking for the pinned toolchain",
                    format!(
                        "the nightly toolchain {NIGHTLY} with its rust-src component compiles the GPU kernels of \
                         `#[accel]` functions, and it is not installed; ACCEL_NO_TOOLCHAIN_INSTALL is set, so \
                         install it yourself: `{INSTALL}`"
                    ),
                ));
            }
            println!("cargo:warning=accel-build: installing the pinned toolchain {NIGHTLY} with rust-src (once)");
            let out = rustup_command(&rustup).args(INSTALL.split(' ').skip(1)).output();
            let out = out.map_err(|e| error("running rustup", e))?;
            if !out.status.success() || !installed(&rustup)? {
                return Err(error(
                    &format!("installing the pinned toolchain with `{INSTALL}`"),
                    format!("{}\n{}", out.status, crate::tail(&String::from_utf8_lossy(&out.stderr), 30)),
                ));
            }
        }
        let version = run_ok(rustup_command(&rustup).args(["run", NIGHTLY, "rustc", "-vV"]), "running rustc -vV")?;
        Ok(Toolchain { rustup, version: String::from_utf8_lossy(&version.stdout).into_owned() })
    }

    /// `cargo` of the pinned nightly, in an environment cleaned of everything the outer cargo set
    /// for this build script (see [`inherited`]).
    pub fn cargo(&self) -> Command {
        let mut cmd = rustup_command(&self.rustup);
        cmd.args(["run", NIGHTLY, "cargo"]);
        cmd.env("CARGO_TERM_COLOR", "never").env("CARGO_TERM_PROGRESS_WHEN", "never");
        cmd
    }
}

/// rustup in a clean environment: no variables of the outer build, no automatic installs.
fn rustup_command(rustup: &Path) -> Command {
    let mut cmd = Command::new(rustup);
    cmd.env_clear().envs(std::env::vars_os().filter(|(k, _)| k.to_str().is_some_and(inherited)));
    cmd.env("RUSTUP_AUTO_INSTALL", "0");
    cmd
}

/// Whether the inner cargo keeps an environment variable of the build script. It keeps the
/// user's environment (PATH, HOME, RUSTUP_HOME, proxies), where cargo keeps its downloads
/// (`CARGO_HOME`), how it reaches registries, and the jobserver of the outer build (so that both
/// together use the cores they were given); it drops what configures the outer build (compiler,
/// wrappers, flags, target directory, profile, features) and the variables cargo sets for build
/// scripts, which would confuse it.
fn inherited(key: &str) -> bool {
    const DROPPED: [&str; 15] = [
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_LINKER",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTUP_TOOLCHAIN",
        "TARGET",
        "HOST",
        "OUT_DIR",
        "OPT_LEVEL",
        "PROFILE",
        "DEBUG",
        "NUM_JOBS",
    ];
    const KEPT_CARGO: [&str; 6] =
        ["CARGO_HOME", "CARGO_MAKEFLAGS", "CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTRIES_", "CARGO_REGISTRY_"];
    if DROPPED.contains(&key) || key.starts_with("DEP_") || key.starts_with("__CARGO") || key == "CARGO" {
        return false;
    }
    !key.starts_with("CARGO_") || KEPT_CARGO.iter().any(|k| key == *k || (k.ends_with('_') && key.starts_with(k)))
}

fn install_forbidden() -> bool {
    std::env::var_os("ACCEL_NO_TOOLCHAIN_INSTALL").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether the pinned nightly and its `rust-src` are installed.
fn installed(rustup: &Path) -> Result<bool> {
    let list = run_ok(rustup_command(rustup).args(["toolchain", "list"]), "running `rustup toolchain list`")?;
    let listed = String::from_utf8_lossy(&list.stdout).lines().any(|line| {
        let name = line.split_whitespace().next().unwrap_or("");
        name == NIGHTLY || name.strip_prefix(NIGHTLY).is_some_and(|host| host.starts_with('-'))
    });
    if !listed {
        return Ok(false);
    }
    let Ok(out) = rustup_command(rustup).args(["run", NIGHTLY, "rustc", "--print", "sysroot"]).output() else {
        return Ok(false);
    };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok(out.status.success() && sysroot.join("lib/rustlib/src/rust/library/core/src/lib.rs").is_file())
}

fn run_ok(cmd: &mut Command, what: &str) -> Result<Output> {
    let out = cmd.output().map_err(|e| error(what, e))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(error(what, format!("{}\n{}", out.status, crate::tail(&String::from_utf8_lossy(&out.stderr), 30))))
    }
}

/// rustup on PATH, else in `$CARGO_HOME/bin`, else in `~/.cargo/bin`.
fn find_rustup() -> Option<PathBuf> {
    let exe = format!("rustup{}", std::env::consts::EXE_SUFFIX);
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    let cargo_home = std::env::var_os("CARGO_HOME").map(|h| PathBuf::from(h).join("bin"));
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin"));
    on_path.chain(cargo_home).chain(home).map(|dir| dir.join(&exe)).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outer_build_configuration_is_dropped() {
        for key in [
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "RUSTC",
            "RUSTUP_TOOLCHAIN",
            "CARGO",
            "RUSTC_WRAPPER",
            "CARGO_TARGET_DIR",
            "CARGO_MANIFEST_DIR",
            "CARGO_PKG_NAME",
            "CARGO_FEATURE_CUDA",
            "CARGO_CFG_TARGET_OS",
            "CARGO_BUILD_TARGET",
            "CARGO_PROFILE_RELEASE_LTO",
            "CARGO_INCREMENTAL",
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER",
            "DEP_ACCEL_CUDA",
            "OUT_DIR",
            "TARGET",
            "__CARGO_DEFAULT_LIB_METADATA",
        ] {
            assert!(!inherited(key), "{key}");
        }
    }

    #[test]
    fn the_user_environment_and_cargo_home_are_kept() {
        for key in [
            "PATH",
            "HOME",
            "RUSTUP_HOME",
            "CARGO_HOME",
            "CARGO_MAKEFLAGS",
            "CARGO_NET_OFFLINE",
            "CARGO_HTTP_PROXY",
            "CARGO_REGISTRIES_CRATES_IO_PROTOCOL",
            "HTTPS_PROXY",
        ] {
            assert!(inherited(key), "{key}");
        }
    }

    #[test]
    fn the_install_command_is_the_documented_one() {
        let args: Vec<&str> = INSTALL.split(' ').skip(1).collect();
        assert_eq!(args, ["toolchain", "install", NIGHTLY, "--profile", "minimal", "--component", "rust-src"]);
    }
}
