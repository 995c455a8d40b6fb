//! Compile-fail tests of the `#[accel]` front end: each program in `tests/compile_fail/` uses one
//! unsupported construct or ill-typed expression, and its `.stderr` snapshot shows the one error
//! the macro reports, at the offending token, saying what to write instead.
//!
//! The cases are compiled without a build script, so a valid function among them gets the error
//! that says so (`missing_build_script.rs` shows it alone); the cases in
//! `tests/compile_fail_built/` are compiled as if a build script had run that did not see them.
//!
//! Without the `cuda` feature (`--no-default-features`) the front end's errors are the same, and
//! the cases whose error is about the GPU build ([`GPU_BUILD_ONLY`]) compile and run instead: a
//! CPU-only build needs no build script.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test -p accel-tests --test compile_fail`
//! and read every changed `.stderr` before committing it.

use std::path::Path;

/// The cases that are valid functions, rejected only by the GPU build.
const GPU_BUILD_ONLY: [&str; 2] =
    ["tests/compile_fail/missing_build_script.rs", "tests/compile_fail_built/function_not_seen.rs"];

#[test]
fn compile_fail() {
    // cargo runs this test with the environment its build script gave the compilation, so the
    // cases would see this package's `ACCEL_PTX_DIR`.
    // SAFETY: this is the binary's only test, and no other thread of it reads the environment
    // while it changes; the cargo that trybuild starts inherits it.
    unsafe { std::env::remove_var("ACCEL_PTX_DIR") };
    if cfg!(feature = "cuda") {
        gpu_build();
    } else {
        cpu_only();
    }
}

/// With the `cuda` feature: every case fails, each with its snapshot.
fn gpu_build() {
    // A `TestCases` compiles its cases when it is dropped.
    trybuild::TestCases::new().compile_fail("tests/compile_fail/*.rs");

    // What accel-build leaves for a package in which it found no `#[accel]` function.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("accel-build-saw-nothing");
    std::fs::create_dir_all(dir.join("programs")).unwrap();
    std::fs::write(dir.join("accel.ptx"), "").unwrap();
    // SAFETY: as above.
    unsafe { std::env::set_var("ACCEL_PTX_DIR", &dir) };
    trybuild::TestCases::new().compile_fail("tests/compile_fail_built/*.rs");
}

/// Without it: the front end's cases fail as with it, the GPU build's cases compile and run.
fn cpu_only() {
    let cases = trybuild::TestCases::new();
    let mut paths: Vec<_> = std::fs::read_dir("tests/compile_fail")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    paths.sort();
    for path in paths {
        if !GPU_BUILD_ONLY.iter().any(|case| path == Path::new(case)) {
            cases.compile_fail(path);
        }
    }
    for case in GPU_BUILD_ONLY {
        cases.pass(case);
    }
}
