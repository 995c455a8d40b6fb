//! The test corpus: every test program of accel, written once and run by the reference
//! interpreter (the oracle) and by each backend, the CPU and the GPU.
//!
//! Each test is a function of the backend under test (`harness::Target`), registered once by
//! its module's `tests()`; `main` makes one libtest-mimic trial of it per backend, named
//! `cpu::<module>::<test>` and `cuda::<module>::<test>`, so that a filter picks a backend
//! (`corpus cuda::`) or a test on every backend (`corpus elementwise::map`). The CPU trials
//! always run. The CUDA trials need the package's `cuda` feature and a usable device: without
//! either the binary prints one line saying why and reports every CUDA trial as ignored (never
//! as passed); `--include-ignored` then fails them with that reason. A few tests concern the GPU
//! alone (results kept on the device, the examples at GPU sizes) and have no CPU trial; a few the
//! CPU alone (the source order of colliding `permute` writes, which only the CPU promises).
//!
//! Two kinds of tests share the programs. The sweeps run a program at fixed sizes, from empty to
//! 2^26 + 3 elements on the GPU (`harness::Tier`), on seeded random inputs, and compare the
//! backend with the interpreter. The property tests (`strategies::props`) draw inputs with
//! proptest at the small awkward sizes and a few large ones, and compare the backend and the
//! interpreter with a plain-Rust oracle as well. `compare` has the comparison rules of each
//! backend, `harness` the sizes, the generator and the locks; each other module holds one group
//! of combinators.
//!
//! `ACCEL_GPU_TEST_MAX_LOG2` (default 26) caps the GPU sizes. The binary is built with the rest
//! of accel-tests (whose build script compiles these `#[accel]` functions to PTX); in release, by
//! `scripts/gpu-pack.sh`, it runs on a GPU machine without a Rust toolchain.

#[macro_use]
#[path = "corpus/harness.rs"]
mod harness;
#[macro_use]
#[path = "corpus/compare.rs"]
mod compare;
#[path = "corpus/strategies.rs"]
mod strategies;

#[path = "corpus/control.rs"]
mod control;
#[path = "corpus/device.rs"]
mod device;
#[path = "corpus/elementwise.rs"]
mod elementwise;
#[path = "corpus/errors.rs"]
mod errors;
#[path = "corpus/examples.rs"]
mod examples;
#[path = "corpus/expand_permute.rs"]
mod expand_permute;
#[path = "corpus/fusion.rs"]
mod fusion;
#[path = "corpus/irregular.rs"]
mod irregular;
#[path = "corpus/library.rs"]
mod library;
#[path = "corpus/movement.rs"]
mod movement;
#[path = "corpus/nested.rs"]
mod nested;
#[path = "corpus/reduce.rs"]
mod reduce;
#[path = "corpus/scalar.rs"]
mod scalar;
#[path = "corpus/scan.rs"]
mod scan;
#[path = "corpus/small_types.rs"]
mod small_types;
#[path = "corpus/stencil.rs"]
mod stencil;

use harness::{Backend, CPU, CUDA, Kind, On, Target, Test};
use libtest_mimic::{Arguments, Trial};

fn main() {
    let args = Arguments::from_args();
    if let Err(e) = harness::init_max_log2() {
        eprintln!("corpus: {e}");
        std::process::exit(2);
    }
    let mut tests: Vec<Test> = [
        elementwise::tests(),
        reduce::tests(),
        scan::tests(),
        movement::tests(),
        stencil::tests(),
        irregular::tests(),
        expand_permute::tests(),
        nested::tests(),
        control::tests(),
        scalar::tests(),
        small_types::tests(),
        library::tests(),
        device::tests(),
        examples::tests(),
        fusion::tests(),
        errors::tests(),
    ]
    .into_iter()
    .flatten()
    .collect();
    // The long trials start first; the ones that need their backend alone run last.
    tests.sort_by_key(|t| t.kind);
    // Listing opens no device.
    let no_device = !args.list
        && match harness::cuda_runtime() {
            Ok(_) => false,
            Err(reason) => {
                println!("corpus: no CUDA device ({reason}); every cuda:: trial is reported as ignored");
                true
            }
        };
    let mut trials = Vec::new();
    for test in &tests {
        for target in [&CPU, &CUDA] {
            let concerned = match test.on {
                On::Every => true,
                On::CudaOnly => target.backend == Backend::Cuda,
                On::CpuOnly => target.backend == Backend::Cpu,
            };
            if !concerned {
                continue;
            }
            trials.push(trial(test, target).with_ignored_flag(target.backend == Backend::Cuda && no_device));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The trial of `test` on `target`, holding the target's lock as the test's kind says.
fn trial(test: &Test, target: &'static Target) -> Trial {
    let (run, kind) = (test.run, test.kind);
    Trial::test(format!("{}::{}", target.backend.prefix(), test.name), move || {
        if kind == Kind::Exclusive {
            let _alone = target.own();
            run(target)
        } else {
            let _shared = target.share();
            run(target)
        }
    })
}
