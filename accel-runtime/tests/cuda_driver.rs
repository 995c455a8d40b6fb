//! The CUDA device layer (`accel_runtime::cuda`): without a device, opening one fails cleanly;
//! with one, memory, the pool, kernels, launches and the error slot work as documented.
//!
//! A libtest-mimic harness (`harness = false`, built with the `cuda` feature only; see
//! `harness/mod.rs`): without a device the tests that need one are reported as ignored, with the
//! reason.

mod harness;

use accel_runtime::cuda::{DValue, DeviceBuffer, Gpu, IntoDevice, Kernel, PoolStats, Stream};
use accel_runtime::{Error, Runtime, Segments};
use harness::Test;

/// `fill_u32`, `report`, `poke`, `spin`, `narrow`: see the file.
const PTX: &str = include_str!("data/driver_kernels.ptx");

fn main() {
    harness::run(&[
        Test { name: "handles_are_send_and_sync", needs_device: false, run: handles_are_send_and_sync },
        Test { name: "a_missing_device_is_a_clean_error", needs_device: false, run: a_missing_device_is_a_clean_error },
        Test { name: "properties", needs_device: true, run: properties },
        Test { name: "memory_round_trips", needs_device: true, run: memory_round_trips },
        Test { name: "the_pool_reuses_blocks", needs_device: true, run: the_pool_reuses_blocks },
        Test { name: "out_of_memory_is_an_error", needs_device: true, run: out_of_memory_is_an_error },
        Test { name: "kernels_load_once_and_launch", needs_device: true, run: kernels_load_once_and_launch },
        Test { name: "the_error_slot", needs_device: true, run: the_error_slot },
        Test { name: "a_runtime_holds_every_device", needs_device: true, run: a_runtime_holds_every_device },
        Test { name: "streams_run_in_order_and_wait", needs_device: true, run: streams_run_in_order_and_wait },
        Test {
            name: "memory_freed_on_one_stream_is_reused_on_another_after_it",
            needs_device: true,
            run: memory_freed_on_one_stream_is_reused_on_another_after_it,
        },
        Test {
            name: "memory_used_on_two_streams_is_reused_after_both",
            needs_device: true,
            run: memory_used_on_two_streams_is_reused_after_both,
        },
        Test {
            name: "a_mirrored_buffer_is_read_from_its_mirror_until_written_behind_it",
            needs_device: true,
            run: a_mirrored_buffer_is_read_from_its_mirror_until_written_behind_it,
        },
        Test {
            name: "a_recorded_kernel_use_delays_reuse_and_download",
            needs_device: true,
            run: a_recorded_kernel_use_delays_reuse_and_download,
        },
        Test {
            name: "segments_are_uploaded_once_and_keep_the_copy_they_came_from",
            needs_device: true,
            run: segments_are_uploaded_once_and_keep_the_copy_they_came_from,
        },
    ])
}

/// Device 0 (the harness runs the tests that call this only where the driver sees a device).
fn gpu() -> Gpu {
    Gpu::open(0).expect("device 0 opens")
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn handles_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Gpu>();
    check::<DeviceBuffer>();
    check::<Kernel>();
    check::<Stream>();
    check::<Runtime>();
}

fn a_missing_device_is_a_clean_error() {
    let count = Gpu::device_count();
    let ordinals = if count == 0 { vec![0, 3] } else { vec![count] };
    for ordinal in ordinals {
        match Gpu::open(ordinal) {
            Err(Error::NoDevice { reason }) => {
                eprintln!("Gpu::open({ordinal}): {reason}");
                let hint = if count == 0 { "ACCEL_BACKEND=cpu" } else { "CUDA_VISIBLE_DEVICES" };
                assert!(reason.contains(hint), "{reason}");
            }
            other => panic!("Gpu::open({ordinal}) with {count} devices: {other:?}"),
        }
    }
}

fn properties() {
    let gpu = gpu();
    assert!(!gpu.name().is_empty() && gpu.ordinal() == 0 && gpu.sm_count() > 0, "{gpu:?}");
    assert!(gpu.compute_capability() >= (8, 0));
    let fill = gpu.kernel(PTX, "fill_u32").unwrap();
    let blocks = fill.resident_blocks();
    assert!((1..=32).contains(&blocks), "{blocks} blocks of 256 threads per multiprocessor");
    let grid = |n| gpu.resident_grid(&fill, n);
    assert_eq!((grid(0), grid(1), grid(256), grid(257)), (0, 1, 1, 2));
    assert_eq!(grid(usize::MAX) as usize, gpu.sm_count() * blocks);
    assert_eq!(gpu.resident_warps(&fill), gpu.sm_count() * blocks * 8);
    // What the host compares to choose between two builds of a kernel (a ranges walk's).
    assert_eq!(fill.local_bytes(), 0);
    let local = gpu.kernel(PTX, "local_array").unwrap().local_bytes();
    assert!(local >= 64, "{local} bytes of local memory a thread, for an array of 64");
    let (free, total) = gpu.mem_info().unwrap();
    assert!(0 < free && free <= total);
    assert_eq!(gpu.error_slot().len(), 16 * 8);
}

fn memory_round_trips() {
    let gpu = gpu();
    let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
    let a = gpu.upload(&bytes).unwrap();
    assert_eq!(a.len(), bytes.len());
    assert_eq!(gpu.download(&a, 0, bytes.len()).unwrap(), bytes);
    assert_eq!(gpu.download(&a, 100, 50).unwrap(), &bytes[100..150]);

    let b = gpu.alloc_zeroed(3000).unwrap();
    assert_eq!(gpu.download(&b, 0, 3000).unwrap(), vec![0; 3000]);
    gpu.copy(&b, 10, &a, 1000, 2000).unwrap();
    let got = gpu.download(&b, 0, 3000).unwrap();
    assert_eq!(&got[..10], &[0; 10]);
    assert_eq!(&got[10..2010], &bytes[1000..3000]);
    assert_eq!(&got[2010..], &[0; 990][..]);

    // Past the pinned staging buffer of small downloads (64 KiB): straight into pageable memory.
    let large: Vec<u8> = (0..100_003u32).map(|i| (i * 13 % 253) as u8).collect();
    let c = gpu.upload(&large).unwrap();
    assert_eq!(gpu.download(&c, 0, large.len()).unwrap(), large);
    assert_eq!(gpu.download(&c, 65_000, 1_000).unwrap(), &large[65_000..66_000]);

    let mut into = vec![0u8; 16];
    gpu.download_into(&a, 4984, &mut into).unwrap();
    assert_eq!(into, &bytes[4984..]);

    let empty = gpu.upload(&[]).unwrap();
    assert!(empty.is_empty() && empty.ptr() != 0 && empty.ptr() != a.ptr());
    assert_eq!(gpu.download(&empty, 0, 0).unwrap(), Vec::<u8>::new());
    gpu.copy(&b, 3000, &empty, 0, 0).unwrap();

    for e in [
        gpu.download(&a, 4990, 11).unwrap_err(),
        gpu.download(&a, usize::MAX, 2).unwrap_err(),
        gpu.copy(&b, 2001, &a, 0, 1000).unwrap_err(),
        gpu.copy(&b, 0, &a, 4001, 1000).unwrap_err(),
    ] {
        assert!(matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("outside"), "{e}");
    }
    let other = Gpu::open(0).unwrap();
    let e = other.download(&a, 0, 1).unwrap_err();
    assert!(e.to_string().contains("another `Gpu`"), "{e}");
}

fn the_pool_reuses_blocks() {
    let gpu = gpu();
    let start = gpu.pool_stats();
    let a = gpu.alloc(1000).unwrap();
    let address = a.ptr();
    assert_eq!(gpu.pool_stats(), PoolStats { in_use: start.in_use + 1024, cached: start.cached });
    drop(a);
    assert_eq!(gpu.pool_stats(), PoolStats { in_use: start.in_use, cached: start.cached + 1024 });
    let b = gpu.alloc(600).unwrap();
    assert_eq!((b.ptr(), b.len()), (address, 600));
    let big = gpu.alloc(3 << 20).unwrap();
    assert_eq!(gpu.pool_stats().in_use, start.in_use + 1024 + (4 << 20));
    drop((b, big));
    assert_eq!(gpu.pool_stats().in_use, start.in_use);
}

fn out_of_memory_is_an_error() {
    let gpu = gpu();
    let (_, total) = gpu.mem_info().unwrap();
    match gpu.alloc(total + 1) {
        Err(Error::OutOfDeviceMemory { requested, free, total: t, .. }) => {
            assert_eq!((requested, t), (total + 1, total));
            assert!(free <= total);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(gpu.upload(&[1, 2, 3]).and_then(|b| gpu.download(&b, 0, 3)).unwrap(), [1, 2, 3]);
}

fn kernels_load_once_and_launch() {
    let gpu = gpu();
    let fill = gpu.kernel(PTX, "fill_u32").unwrap();
    assert_eq!((fill.name(), fill.parameters()), ("fill_u32", 3));
    assert_eq!(gpu.kernel(PTX, "fill_u32").unwrap().parameters(), 3);

    for n in [1usize, 255, 256, 257, 100_000, 3_000_000] {
        let out = gpu.alloc(n * 4).unwrap();
        gpu.launch(&fill, gpu.resident_grid(&fill, n), &[out.ptr(), n as u64, 10]).unwrap();
        let got = words(&gpu.download(&out, 0, n * 4).unwrap());
        assert!(got.iter().enumerate().all(|(i, &w)| w == 10 + i as u32), "n = {n}");
    }
    // Grid 0 launches nothing.
    let out = gpu.alloc_zeroed(16).unwrap();
    gpu.launch(&fill, 0, &[out.ptr(), 4, 1]).unwrap();
    assert_eq!(gpu.download(&out, 0, 16).unwrap(), vec![0; 16]);

    let e = gpu.launch(&fill, 1, &[out.ptr(), 4]).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("takes 3 words, 2 given"), "{e}");
    let e = gpu.kernel(PTX, "no_such_kernel").unwrap_err();
    assert!(matches!(e, Error::Backend { .. }) && e.to_string().contains("`no_such_kernel`"), "{e}");
    let e = gpu.kernel(PTX, "narrow").unwrap_err();
    assert!(e.to_string().contains("4 bytes"), "{e}");
    let e = gpu.kernel("this is not PTX", "fill_u32").unwrap_err();
    assert!(matches!(e, Error::Backend { .. }) && e.to_string().contains("loading a PTX module"), "{e}");
    let other = Gpu::open(0).unwrap();
    let e = other.launch(&fill, 1, &[out.ptr(), 4, 1]).unwrap_err();
    assert!(e.to_string().contains("another `Gpu`"), "{e}");
    gpu.synchronize().unwrap();
}

fn the_error_slot() {
    let gpu = gpu();
    assert_eq!(gpu.take_device_error().unwrap(), None);
    let report = gpu.kernel(PTX, "report").unwrap();
    gpu.launch(&report, 4, &[gpu.error_slot().ptr(), 5]).unwrap();
    let slot = gpu.take_device_error().unwrap().expect("the kernel's report");
    assert_eq!((slot[0], slot[1], slot[2]), (5, 7, 0));
    assert_eq!(gpu.take_device_error().unwrap(), None);
}

fn a_runtime_holds_every_device() {
    let count = Gpu::device_count();
    let rt = Runtime::cuda_all().unwrap();
    let ordinals: Vec<usize> = rt.gpus().iter().map(Gpu::ordinal).collect();
    assert_eq!(ordinals, (0..count).collect::<Vec<_>>());
    assert_eq!(rt.gpu().map(Gpu::ordinal), Some(0));
    rt.synchronize().unwrap();
    let e = Runtime::cuda_devices(&[0, count]).unwrap_err();
    assert!(matches!(e, Error::NoDevice { .. }) && e.to_string().contains("CUDA_VISIBLE_DEVICES"), "{e}");
}

/// Elements of the buffers of the stream tests: 4 MiB, so that a write takes a while.
const N: usize = 1 << 20;

/// How long `spin` holds up a stream where a test needs a race to show: far longer than any of
/// the tests' copies or fills take.
const HOLD_NS: u64 = 50_000_000;

/// Kernels of the stream tests: `fill(stream, buffer, value)` queues `buffer[i] = value + i` for
/// `i < N`, `hold(stream)` holds the stream up for `HOLD_NS`.
struct StreamKernels {
    fill: Kernel,
    spin: Kernel,
    grid: u32,
}

impl StreamKernels {
    fn new(gpu: &Gpu) -> StreamKernels {
        let fill = gpu.kernel(PTX, "fill_u32").unwrap();
        let grid = gpu.resident_grid(&fill, N);
        StreamKernels { fill, spin: gpu.kernel(PTX, "spin").unwrap(), grid }
    }

    fn fill(&self, stream: &Stream, buffer: &DeviceBuffer, value: u32) {
        stream.launch(&self.fill, self.grid, &[buffer.ptr(), N as u64, u64::from(value)]).unwrap();
    }

    fn hold(&self, stream: &Stream, factor: u64) {
        stream.launch(&self.spin, 1, &[HOLD_NS * factor]).unwrap();
    }
}

/// Whether `bytes` are the `N` words `value + i`.
fn filled_with(bytes: &[u8], value: u32) -> bool {
    let got = words(bytes);
    got.len() == N && got.iter().enumerate().all(|(i, &w)| w == value + i as u32)
}

fn streams_run_in_order_and_wait() {
    let gpu = gpu();
    let k = StreamKernels::new(&gpu);
    let (a, b) = (gpu.stream().unwrap(), gpu.stream().unwrap());
    assert_ne!(format!("{a:?}"), format!("{b:?}"));
    // `b` copies what `a` writes after a hold: only right if `b` waits for `a`.
    let x = a.alloc(N * 4).unwrap();
    k.hold(&a, 1);
    k.fill(&a, &x, 3);
    b.wait_for(&a).unwrap();
    let y = b.alloc(N * 4).unwrap();
    b.copy(&y, 0, &x, 0, N * 4).unwrap();
    assert!(filled_with(&b.download(&y, 0, N * 4).unwrap(), 3));
    // Ids are recycled: a dropped stream's goes to the next one.
    let name = format!("{b:?}");
    drop(b);
    assert_eq!(format!("{:?}", gpu.stream().unwrap()), name);
    // A stream, and the buffers, of another `Gpu` are refused.
    let other = Gpu::open(0).unwrap();
    let foreign = other.stream().unwrap();
    for e in [
        a.wait_for(&foreign).unwrap_err(),
        foreign.copy(&y, 0, &x, 0, 4).unwrap_err(),
        x.record_use(&foreign).unwrap_err(),
        foreign.launch(&k.spin, 1, &[0]).unwrap_err(),
    ] {
        assert!(matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("another `Gpu`"), "{e}");
    }
    gpu.synchronize().unwrap();
}

fn memory_freed_on_one_stream_is_reused_on_another_after_it() {
    let gpu = gpu();
    let k = StreamKernels::new(&gpu);
    let (a, b) = (gpu.stream().unwrap(), gpu.stream().unwrap());
    // `a` writes `x` late and copies it out; `x` is dropped while that is still queued.
    let x = a.alloc(N * 4).unwrap();
    let out = a.alloc(N * 4).unwrap();
    let address = x.ptr();
    k.hold(&a, 1);
    k.fill(&a, &x, 1);
    a.copy(&out, 0, &x, 0, N * 4).unwrap();
    drop(x);
    // `b` gets the block at once, and its own work on it runs after `a`'s: had `b`'s fill run
    // first, `a`'s would overwrite it before `b`'s download, which `b` holds back further.
    let y = b.alloc(N * 4).unwrap();
    assert_eq!(y.ptr(), address, "the block freed on `a` is reused");
    k.fill(&b, &y, 1000);
    k.hold(&b, 2);
    assert!(filled_with(&b.download(&y, 0, N * 4).unwrap(), 1000), "`a` wrote into `b`'s buffer");
    assert!(filled_with(&a.download(&out, 0, N * 4).unwrap(), 1), "`b` wrote into `a`'s buffer");
}

fn memory_used_on_two_streams_is_reused_after_both() {
    let gpu = gpu();
    let k = StreamKernels::new(&gpu);
    let (a, b) = (gpu.stream().unwrap(), gpu.stream().unwrap());
    // `x` lives on `a`; `b` copies it out late (the copy records `b` as a user of `x`).
    let x = a.alloc(N * 4).unwrap();
    let address = x.ptr();
    k.fill(&a, &x, 7);
    b.wait_for(&a).unwrap();
    let out = b.alloc(N * 4).unwrap();
    k.hold(&b, 1);
    b.copy(&out, 0, &x, 0, N * 4).unwrap();
    drop(x);
    // Reused on `a`, its own stream: `a` must still wait for `b`'s copy.
    let y = a.alloc(N * 4).unwrap();
    assert_eq!(y.ptr(), address, "the block is reused");
    k.fill(&a, &y, 9);
    assert!(filled_with(&b.download(&out, 0, N * 4).unwrap(), 7), "`a` overwrote the block before `b` read it");
    assert!(filled_with(&a.download(&y, 0, N * 4).unwrap(), 9));
}

fn a_recorded_kernel_use_delays_reuse_and_download() {
    let gpu = gpu();
    let k = StreamKernels::new(&gpu);
    let (a, b) = (gpu.stream().unwrap(), gpu.stream().unwrap());
    // `b`'s kernel writes `x` (of `a`) late; a launch cannot see its buffers, so it is recorded.
    let x = a.alloc(N * 4).unwrap();
    b.wait_for(&a).unwrap();
    k.hold(&b, 1);
    k.fill(&b, &x, 5);
    x.record_use(&b).unwrap();
    // A download without a stream at hand (a lazily read array's) waits for `b`.
    let mut host = vec![0u8; N * 4];
    x.download_into(0, &mut host).unwrap();
    assert!(filled_with(&host, 5), "the download ran before `b`'s kernel");
    // And so does the reuse of the block on `a`.
    k.hold(&b, 1);
    k.fill(&b, &x, 6);
    let address = x.ptr();
    drop(x);
    let y = a.alloc(N * 4).unwrap();
    assert_eq!(y.ptr(), address, "the block is reused");
    k.fill(&a, &y, 8);
    k.hold(&a, 2);
    assert!(filled_with(&a.download(&y, 0, N * 4).unwrap(), 8), "`b`'s kernel wrote into the reused block");
}

fn a_mirrored_buffer_is_read_from_its_mirror_until_written_behind_it() {
    let gpu = gpu();
    let fill = gpu.kernel(PTX, "fill_u32").unwrap();
    let stream = gpu.default_stream();
    let m = stream.alloc_mirrored(16).unwrap();
    let mirror = m.mirror_address();
    assert_ne!(mirror, 0);
    // Different values into the block and into its mirror, to tell which one a read returns.
    gpu.launch(&fill, 1, &[m.ptr(), 4, 7]).unwrap();
    gpu.launch(&fill, 1, &[mirror, 4, 100]).unwrap();
    assert_eq!(words(&gpu.download(&m, 0, 16).unwrap()), [100, 101, 102, 103], "read from the mirror");
    let mut host = [0u8; 8];
    m.download_into(8, &mut host).unwrap();
    assert_eq!(words(&host), [102, 103], "a read without a stream at hand, from the mirror too");
    // A copy into the block is a write the mirror does not see: it retires the mirror.
    let x = gpu.upload(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]).unwrap();
    gpu.copy(&m, 0, &x, 0, 16).unwrap();
    assert_eq!(m.mirror_address(), 0);
    assert_eq!(words(&gpu.download(&m, 0, 16).unwrap()), [1, 2, 3, 4], "read from the block");
    // Its block keeps the mirror in the pool: the next mirrored buffer of the class reuses both.
    let address = m.ptr();
    drop(m);
    let again = stream.alloc_mirrored(100).unwrap();
    assert_eq!((again.ptr(), again.mirror_address()), (address, mirror));
    let plain = stream.alloc(16).unwrap();
    assert_eq!(plain.mirror_address(), 0);
    assert_ne!(plain.ptr(), address);
    gpu.launch(&fill, 1, &[again.ptr(), 25, 1]).unwrap();
    stream.zero(&again).unwrap();
    assert_eq!(gpu.download(&again, 0, 100).unwrap(), vec![0; 100], "zeroing retires the mirror");
}

fn segments_are_uploaded_once_and_keep_the_copy_they_came_from() {
    let gpu = gpu();
    let on = |s: &Segments, gpu: &Gpu| match s.to_device(gpu).unwrap() {
        DValue::Segments(d) => d,
        other => panic!("segments became {other:?}"),
    };
    let s = Segments::from_offsets(vec![0, 3, 3, 700]).unwrap();
    let first = on(&s, &gpu);
    let again = on(&s, &gpu);
    assert_eq!(first.offsets.ptr(), again.offsets.ptr(), "the second call reuses the copy");
    assert_eq!((first.count, first.total), (3, 700));
    let back = first.download().unwrap();
    assert_eq!(back, s);
    assert_eq!(on(&back, &gpu).offsets.ptr(), first.offsets.ptr(), "downloaded segments keep their device copy");
    let other = Gpu::open(0).unwrap();
    assert_ne!(on(&s, &other).offsets.ptr(), first.offsets.ptr(), "another `Gpu` gets its own copy");
}
