//! A faulting kernel is an error on the next call that waits, never a panic. Its own test binary:
//! a fault leaves the device's primary context unusable for every `Gpu` of the process until the
//! last one is dropped.
#![cfg(feature = "cuda")]

use accel_runtime::Error;
use accel_runtime::cuda::Gpu;

const PTX: &str = include_str!("data/driver_kernels.ptx");

#[test]
fn a_faulting_kernel_is_an_error() {
    if Gpu::device_count() == 0 {
        eprintln!("no CUDA device: skipped");
        return;
    }
    let gpu = Gpu::open(0).unwrap();
    let poke = gpu.kernel(PTX, "poke").unwrap();
    let buffer = gpu.upload(&[1, 2, 3, 4]).unwrap();
    // Launching is asynchronous: the fault shows up when the stream is waited for.
    gpu.launch(&poke, 1, &[16]).unwrap();
    let e = gpu.synchronize().unwrap_err();
    assert!(matches!(&e, Error::Backend { backend, .. } if backend == "cuda"), "{e}");
    assert!(e.to_string().contains("CUDA_ERROR_"), "{e}");
    // The error is sticky.
    assert!(gpu.download(&buffer, 0, 4).is_err());
    assert!(gpu.take_device_error().is_err());
    drop((buffer, poke, gpu));

    // With every handle gone the primary context is released, and the device opens afresh.
    let gpu = Gpu::open(0).unwrap();
    assert_eq!(gpu.upload(&[9, 8]).and_then(|b| gpu.download(&b, 0, 2)).unwrap(), [9, 8]);
}
