//! Compile-fail tests of the `#[accel]` front end: each program in `tests/compile_fail/` uses one
//! unsupported construct or ill-typed expression, and its `.stderr` snapshot shows the one error
//! the macro reports, at the offending token, saying what to write instead. The programs in
//! `tests/compile_pass/` are valid and must compile and run.
//!
//! trybuild compiles the cases in a package of its own, which keeps this package's dependencies
//! but not the features that turn on `accel/cuda`: the cases see the CPU-only build, which needs
//! no build script. The front end's errors do not depend on that feature; the GPU build's own
//! errors (no build script, a function it did not see) are tested in `accel-macros`.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test -p accel-tests --test compile_fail`
//! and read every changed `.stderr` before committing it.

#[test]
fn compile_fail() {
    // cargo runs this test with the environment its build script gave the compilation, so the
    // cases would see this package's `ACCEL_PTX_DIR`.
    // SAFETY: this is the binary's only test, and no other thread of it reads the environment
    // while it changes; the cargo that trybuild starts inherits it.
    unsafe { std::env::remove_var("ACCEL_PTX_DIR") };
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile_fail/*.rs");
    cases.pass("tests/compile_pass/*.rs");
}
