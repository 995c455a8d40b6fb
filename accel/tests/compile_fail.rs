//! Compile-fail tests of the `#[accel]` front end: each program in `tests/compile_fail/` uses one
//! unsupported construct or ill-typed expression, and its `.stderr` snapshot shows the one error
//! the macro reports, at the offending token, saying what to write instead.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test -p accel --test compile_fail`
//! and read every changed `.stderr` before committing it.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/*.rs");
}
