//! A faulting kernel is an error on the next call that waits, never a panic. Its own test binary:
//! CUDA keeps such a fault for the rest of the process (every later call fails, and opening the
//! device again is an error saying to restart the program).
//!
//! A libtest-mimic harness (`harness = false`, built with the `cuda` feature only; see
//! `harness/mod.rs`): without a device the test is reported as ignored, with the reason. The
//! fault is deliberate: under compute-sanitizer's memcheck this binary reports it.

mod harness;

use accel_runtime::Error;
use accel_runtime::cuda::Gpu;
use harness::Test;

const PTX: &str = include_str!("data/driver_kernels.ptx");

fn main() {
    harness::run(&[Test {
        name: "a_faulting_kernel_is_an_error",
        needs_device: true,
        run: a_faulting_kernel_is_an_error,
    }])
}

fn a_faulting_kernel_is_an_error() {
    let gpu = Gpu::open(0).unwrap();
    let poke = gpu.kernel(PTX, "poke").unwrap();
    let buffer = gpu.upload(&[1, 2, 3, 4]).unwrap();
    // Launching is asynchronous: the fault shows up when the stream is waited for.
    gpu.launch(&poke, 1, &[16]).unwrap();
    let e = gpu.synchronize().unwrap_err();
    assert!(matches!(&e, Error::Backend { backend, .. } if backend == "cuda"), "{e}");
    assert!(e.to_string().contains("CUDA_ERROR_") && e.to_string().contains("restart the program"), "{e}");
    // The error is sticky.
    assert!(gpu.download(&buffer, 0, 4).is_err());
    assert!(gpu.take_device_error().is_err());
    drop((buffer, poke, gpu));

    // CUDA keeps such a fault for the rest of the process: opening the device again is an error
    // that says so and what to do, not a panic.
    let e = Gpu::open(0).unwrap_err();
    assert!(matches!(&e, Error::Backend { backend, .. } if backend == "cuda"), "{e}");
    assert!(e.to_string().contains("restart the program") && e.to_string().contains("CUDA_ERROR_"), "{e}");
}
