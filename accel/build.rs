//! Announces the `cuda` feature to the build scripts of packages that depend on accel: through
//! `links = "accel"` they see `DEP_ACCEL_CUDA=1`, and accel-build compiles GPU kernels only then.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        println!("cargo:cuda=1");
    }
}
