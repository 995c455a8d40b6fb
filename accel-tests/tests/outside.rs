//! A package outside accel's workspace, built and run as a user's would be: `accel-tests/outside`
//! holds a workspace of its own with the accel library `shapes` and the program `app`, whose
//! `#[accel]` functions in two modules call each other, a scalar helper and the functions of
//! `shapes` (a dependency). `app` checks its results against `reference` and plain Rust on the
//! CPU backend and on the GPU when there is one, and that the callees fused into their callers.
//!
//! With accel-tests' `cuda` feature the package is built with its own `cuda` feature too, so its
//! build script compiles the inlined calls for the GPU.

use std::path::Path;
use std::process::Command;

#[test]
fn a_package_outside_the_workspace_calls_into_its_accel_dependency() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("outside");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut command = Command::new(cargo);
    command
        .args(["run", "--quiet", "-p", "outside-app", "--manifest-path"])
        .arg(fixture.join("Cargo.toml"))
        // A target directory of its own: the outer build holds the workspace's.
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("outside"));
    if cfg!(feature = "cuda") {
        command.args(["--features", "cuda"]);
    }
    let output = command.output().expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the outside package failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("ok on the CPU"), "{stdout}");
}
