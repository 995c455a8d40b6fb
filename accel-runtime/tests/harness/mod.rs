//! The harness of the CUDA driver tests (`cuda_driver.rs`, `cuda_fault.rs`; `harness = false`,
//! with the `cuda` feature): libtest-mimic trials, as in accel-tests' GPU test binary, so that on
//! a machine without a usable CUDA device every test that needs one is reported as ignored, with
//! the reason, never as passed. `--ignored` or `--include-ignored` runs them anyway (and they
//! fail there); the tests that need no device run everywhere. The binaries take libtest's
//! arguments (`--test-threads 1`, a filter, `--list`, ...), also under compute-sanitizer.

use accel_runtime::Error;
use accel_runtime::cuda::Gpu;
use libtest_mimic::{Arguments, Completion, Trial};

/// One test: its name, whether it needs a CUDA device, and its body (which panics on failure).
pub struct Test {
    pub name: &'static str,
    pub needs_device: bool,
    pub run: fn(),
}

/// Why the tests cannot have CUDA device 0, or `None` when the driver sees a device (a device
/// that then fails to open fails the tests rather than being skipped).
fn no_device() -> Option<String> {
    if Gpu::device_count() > 0 {
        return None;
    }
    Some(match Gpu::open(0) {
        Err(Error::NoDevice { reason }) => reason,
        Err(other) => other.to_string(),
        Ok(_) => "the CUDA driver counts no device".into(),
    })
}

/// Runs `tests` with the command line's arguments, as libtest would, and exits with its status.
pub fn run(tests: &[Test]) -> ! {
    let args = Arguments::from_args();
    // Listing opens no device.
    let no_device = if args.list { None } else { no_device() };
    if let Some(reason) = &no_device {
        println!("no CUDA device ({reason}); every test that needs one is reported as ignored");
    }
    let forced = args.ignored || args.include_ignored;
    let trials = tests
        .iter()
        .map(|test| {
            let run = test.run;
            let skip = if test.needs_device { no_device.as_deref() } else { None };
            match skip {
                // A runtime ignore, so that libtest-mimic prints the reason beside the test: its
                // first clause (the line above has the advice that follows).
                Some(reason) if !forced => {
                    let reason = format!("no CUDA device: {}", reason.split(';').next().unwrap_or(reason));
                    Trial::ignorable_test(test.name, move || Ok(Completion::ignored_with(reason)))
                }
                // Flagged as ignored, so that `--ignored` selects it (and runs it: it fails).
                skip => Trial::test(test.name, move || {
                    run();
                    Ok(())
                })
                .with_ignored_flag(skip.is_some()),
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit()
}
