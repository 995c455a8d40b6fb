//! The GPU test binary: every combinator and every example, run by the CUDA backend and compared
//! with the reference interpreter on random inputs from 0 to 2^26 + 3 elements.
//!
//! One libtest-mimic trial per (combinator or example, element type), all sharing one
//! `Runtime::cuda()`. Without a usable CUDA device the binary prints one line saying why and
//! reports every trial as ignored (never as passed); `--include-ignored` then fails them.
//! `ACCEL_GPU_TEST_MAX_LOG2` (default 26) caps the sizes: `gpu/harness.rs` has the sizes, the
//! comparisons and the locks; each other module holds one group of combinators.
//!
//! The binary is built with the rest of accel-tests (whose build script compiles these
//! `#[accel]` functions to PTX) and runs on a GPU machine without a Rust toolchain. It needs the
//! package's `cuda` feature (on by default): without it (`--no-default-features`) it is not built.

#[macro_use]
#[path = "gpu/harness.rs"]
mod harness;

#[path = "gpu/build.rs"]
mod build;
#[path = "gpu/control.rs"]
mod control;
#[path = "gpu/device.rs"]
mod device;
#[path = "gpu/elementwise.rs"]
mod elementwise;
#[path = "gpu/errors.rs"]
mod errors;
#[path = "gpu/examples.rs"]
mod examples;
#[path = "gpu/fusion.rs"]
mod fusion;
#[path = "gpu/irregular.rs"]
mod irregular;
#[path = "gpu/movement.rs"]
mod movement;
#[path = "gpu/reduce.rs"]
mod reduce;
#[path = "gpu/scan.rs"]
mod scan;
#[path = "gpu/stencil.rs"]
mod stencil;

use harness::{Case, Kind};
use libtest_mimic::{Arguments, Trial};

fn main() {
    let args = Arguments::from_args();
    if let Err(e) = harness::init_max_log2() {
        eprintln!("gpu tests: {e}");
        std::process::exit(2);
    }
    let mut cases: Vec<Case> = [
        build::cases(),
        elementwise::cases(),
        reduce::cases(),
        scan::cases(),
        movement::cases(),
        stencil::cases(),
        irregular::cases(),
        control::cases(),
        device::cases(),
        examples::cases(),
        fusion::cases(),
        errors::cases(),
    ]
    .into_iter()
    .flatten()
    .collect();
    // The long trials start first; the ones that need the device alone run last.
    cases.sort_by_key(|c| c.kind);
    // Listing opens no device.
    let no_device = if args.list {
        false
    } else {
        match harness::runtime() {
            Ok(_) => false,
            Err(reason) => {
                println!("gpu tests: no CUDA device ({reason}); every test is reported as ignored");
                true
            }
        }
    };
    let trials = cases
        .into_iter()
        .map(|c| {
            let (run, kind) = (c.run, c.kind);
            Trial::test(c.name, move || {
                if kind == Kind::Exclusive {
                    let _alone = harness::own_device();
                    run()
                } else {
                    let _shared = harness::share_device();
                    run()
                }
            })
            .with_ignored_flag(no_device)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
