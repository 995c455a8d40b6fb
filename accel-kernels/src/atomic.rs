//! Atomic updates of array elements, for `permute` (several sources may land on one element).
//!
//! - `atomic_add` / `atomic_min` / `atomic_max`: native `red` instructions (fire and forget) for
//!   the combining functions that have one;
//! - `AtomicElem::atomic_update`: any function of a numeric scalar, as a compare-and-swap loop on
//!   the element's word (lock-free: some lane always succeeds); an 8- or 16-bit element has no
//!   atomic of its own width, so its loop swaps the aligned 32-bit word that contains it, leaving
//!   the word's other bytes as it found them (which needs the column to start on a 4-byte
//!   boundary and to be readable up to the end of that word: device buffers are whole blocks of
//!   the allocator, multiples of 512 bytes);
//! - `with_lock`: anything else (tuples, `bool`, several columns), under a per-element spin lock.
//!
//! All of them use generic addresses and `.gpu` scope; the order in which colliding updates
//! apply is unspecified, so only an associative and commutative function gives a deterministic
//! result (and float addition is deterministic only up to rounding).

use crate::device::{self, SharedWord};
use crate::elem::DeviceElem;
use core::arch::asm;

/// Scalars whose elements can be updated in place by a compare-and-swap loop.
pub trait AtomicElem: DeviceElem {
    /// Replaces element `i` by `f(element)`, atomically (`f` may run several times).
    ///
    /// # Safety
    /// Element `i` exists in global memory.
    unsafe fn atomic_update(p: Self::Ptr, i: usize, f: impl Fn(Self) -> Self);
}

macro_rules! atomic_elem {
    ($($t:ty, $w:ty, $load:ident, $cas:ident, $from:expr, $to:expr;)*) => {$(
        impl AtomicElem for $t {
            #[inline(always)]
            unsafe fn atomic_update(p: *mut $t, i: usize, f: impl Fn($t) -> $t) {
                let (from, to): (fn($w) -> $t, fn($t) -> $w) = ($from, $to);
                // SAFETY: the caller guarantees element `i`; the word has the element's size and
                // alignment.
                unsafe {
                    let w = p.add(i).cast::<$w>();
                    let mut old = device::$load(w);
                    loop {
                        let seen = device::$cas(w, old, to(f(from(old))));
                        if seen == old {
                            break;
                        }
                        old = seen;
                    }
                }
            }
        }
    )*};
}

atomic_elem! {
    u32, u32, load_relaxed32, cas32, |w| w, |x| x;
    i32, u32, load_relaxed32, cas32, |w| w as i32, |x| x as u32;
    f32, u32, load_relaxed32, cas32, f32::from_bits, f32::to_bits;
    u64, u64, load_relaxed64, cas64, |w| w, |x| x;
    i64, u64, load_relaxed64, cas64, |w| w as i64, |x| x as u64;
    usize, u64, load_relaxed64, cas64, |w| w as usize, |x| x as u64;
    f64, u64, load_relaxed64, cas64, f64::from_bits, f64::to_bits;
}

/// 8- and 16-bit integers: the update swaps the 32-bit word that holds the element, at bit
/// `8 * (address % 4)` (little-endian), keeping the word's other bits.
macro_rules! atomic_narrow {
    ($($t:ty, $mask:literal, $from:expr, $to:expr;)*) => {$(
        impl AtomicElem for $t {
            #[inline(always)]
            unsafe fn atomic_update(p: *mut $t, i: usize, f: impl Fn($t) -> $t) {
                let (from, to): (fn(u32) -> $t, fn($t) -> u32) = ($from, $to);
                // SAFETY: the caller guarantees element `i`; its aligned word lies in the same
                // device buffer (see the module doc), whose other elements only change through
                // this same compare-and-swap while the permute runs.
                unsafe {
                    let e = p.add(i);
                    let w = e.map_addr(|a| a & !3).cast::<u32>();
                    let shift = 8 * (e.addr() & 3) as u32;
                    let mut old = device::load_relaxed32(w);
                    loop {
                        let new = (old & !($mask << shift)) | ((to(f(from(old >> shift))) & $mask) << shift);
                        let seen = device::cas32(w, old, new);
                        if seen == old {
                            break;
                        }
                        old = seen;
                    }
                }
            }
        }
    )*};
}

atomic_narrow! {
    u8, 0xff, |w| w as u8, |x| x as u32;
    i8, 0xff, |w| w as u8 as i8, |x| x as u8 as u32;
    u16, 0xffff, |w| w as u16, |x| x as u32;
    i16, 0xffff, |w| w as u16 as i16, |x| x as u16 as u32;
}

/// 8- and 16-bit integers add through their word's compare-and-swap (there is no narrow `red`):
/// [`permute_add`] calls it once per destination and block when it privatises the output, so
/// the loop is contended only where the output is too large for shared memory, and then spread
/// over many destinations.
macro_rules! narrow_add {
    ($($t:ty),*) => {$(
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn red_add(p: *mut $t, v: $t) {
                // SAFETY: the caller guarantees `p`, as for `atomic_update`.
                unsafe { <$t as AtomicElem>::atomic_update(p, 0, |old| old.wrapping_add(v)) }
            }
        }
    )*};
}

narrow_add!(u8, i8, u16, i16);

/// Scalars with an atomic addition: a native `red` for the 32- and 64-bit numbers, a
/// compare-and-swap on the word for the 8- and 16-bit integers.
pub trait AtomicAdd: Copy {
    /// `*p += v`, atomically.
    ///
    /// # Safety
    /// `p` is a valid, aligned pointer to global memory.
    unsafe fn red_add(p: *mut Self, v: Self);
}

/// Integers with native atomic minimum and maximum.
pub trait AtomicMinMax: Copy {
    /// `*p = min(*p, v)`, atomically.
    ///
    /// # Safety
    /// `p` is a valid, aligned pointer to global memory.
    unsafe fn red_min(p: *mut Self, v: Self);
    /// `*p = max(*p, v)`, atomically.
    ///
    /// # Safety
    /// `p` is a valid, aligned pointer to global memory.
    unsafe fn red_max(p: *mut Self, v: Self);
}

macro_rules! red {
    ($op:literal, $ty:literal, $class:ident, $p:expr, $v:expr) => {
        // SAFETY: the caller guarantees `p`.
        unsafe {
            asm!(concat!("red.", $op, ".", $ty, " [{p}], {v};"), p = in(reg64) $p, v = in($class) $v,
                options(nostack, preserves_flags))
        }
    };
}

macro_rules! atomic_add {
    ($($t:ty, $ty:literal, $class:ident;)*) => {$(
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn red_add(p: *mut $t, v: $t) {
                red!("add", $ty, $class, p, v)
            }
        }
    )*};
}

atomic_add! {
    i32, "u32", reg32;
    u32, "u32", reg32;
    f32, "f32", reg32;
    i64, "u64", reg64;
    u64, "u64", reg64;
    usize, "u64", reg64;
    f64, "f64", reg64;
}

macro_rules! atomic_min_max {
    ($($t:ty, $ty:literal, $class:ident;)*) => {$(
        impl AtomicMinMax for $t {
            #[inline(always)]
            unsafe fn red_min(p: *mut $t, v: $t) {
                red!("min", $ty, $class, p, v)
            }
            #[inline(always)]
            unsafe fn red_max(p: *mut $t, v: $t) {
                red!("max", $ty, $class, p, v)
            }
        }
    )*};
}

atomic_min_max! {
    i32, "s32", reg32;
    u32, "u32", reg32;
    i64, "s64", reg64;
    u64, "u64", reg64;
    usize, "u64", reg64;
}

/// `p[i] += v`, atomically.
///
/// # Safety
/// Element `i` exists in global memory.
#[inline(always)]
pub unsafe fn atomic_add<T: AtomicAdd>(p: *mut T, i: usize, v: T) {
    // SAFETY: the caller guarantees element `i`.
    unsafe { T::red_add(p.add(i), v) }
}

/// `p[i] = min(p[i], v)`, atomically.
///
/// # Safety
/// Element `i` exists in global memory.
#[inline(always)]
pub unsafe fn atomic_min<T: AtomicMinMax>(p: *mut T, i: usize, v: T) {
    // SAFETY: the caller guarantees element `i`.
    unsafe { T::red_min(p.add(i), v) }
}

/// `p[i] = max(p[i], v)`, atomically.
///
/// # Safety
/// Element `i` exists in global memory.
#[inline(always)]
pub unsafe fn atomic_max<T: AtomicMinMax>(p: *mut T, i: usize, v: T) {
    // SAFETY: the caller guarantees element `i`.
    unsafe { T::red_max(p.add(i), v) }
}

/// Runs `f` while holding the spin lock `locks[i]` (u32, 0 = free; acquire with atom.cas,
/// release with a fence then atom.exch) — for elements of several columns or bool.
///
/// Lanes of one warp may contend for the same lock: that is safe because every target (sm_70
/// and later) schedules the lanes of a warp independently, so the lane that holds the lock makes
/// progress while the others spin (the critical section is written right after the successful
/// compare-and-swap, though LLVM may move it out of the loop). The fences make the previous
/// holder's writes visible to `f` and `f`'s writes visible to the next holder.
///
/// # Safety
/// `locks` holds at least `i + 1` words in global memory, zero when no thread holds them; `f`
/// must not take another lock.
#[inline(always)]
pub unsafe fn with_lock(locks: *mut u32, i: usize, f: impl FnOnce()) {
    // SAFETY: the caller guarantees `locks[i]`.
    let lock = unsafe { locks.add(i) };
    loop {
        // SAFETY: as above.
        if unsafe { device::cas32(lock, 0, 1) } == 0 {
            device::thread_fence();
            f();
            device::thread_fence();
            // SAFETY: as above.
            unsafe { device::exch32(lock, 0) };
            break;
        }
    }
}

/// Bytes of shared memory in which a block privatises the output of a permute with `+`
/// ([`permute_add`]): outputs up to 4096 elements of 4 bytes or fewer, or 2048 of 8 bytes.
pub const SHARED_BYTES: usize = 16 * 1024;

/// Scalars that [`permute_add`] accumulates in shared memory (shared-space addresses, 32-bit).
pub trait SharedAdd: AtomicAdd {
    /// Bytes of the shared slot of one element: its own size, or a 32-bit word for the 8- and
    /// 16-bit integers (shared memory has no narrow atomic add; their sums wrap the same way in
    /// the word's low bits).
    const SLOT: usize = size_of::<Self>();
    /// # Safety
    /// `addr` is an aligned shared-space address inside the block's buffer.
    unsafe fn store_shared(addr: u32, v: Self);
    /// # Safety
    /// As `store_shared`.
    unsafe fn load_shared(addr: u32) -> Self;
    /// `*addr += v`, atomically.
    ///
    /// # Safety
    /// As `store_shared`.
    unsafe fn red_add_shared(addr: u32, v: Self);
    /// The identity of `+`.
    fn zero() -> Self;
}

macro_rules! shared_add {
    ($($t:ty, $ty:literal, $class:ident, $zero:expr;)*) => {$(
        impl SharedAdd for $t {
            #[inline(always)]
            unsafe fn store_shared(addr: u32, v: $t) {
                // SAFETY: the caller guarantees `addr`.
                unsafe { <$t as DeviceElem>::store_shared(addr, v) }
            }
            #[inline(always)]
            unsafe fn load_shared(addr: u32) -> $t {
                // SAFETY: the caller guarantees `addr`.
                unsafe { <$t as DeviceElem>::load_shared(addr) }
            }
            #[inline(always)]
            unsafe fn red_add_shared(addr: u32, v: $t) {
                // SAFETY: the caller guarantees `addr`.
                unsafe {
                    asm!(concat!("red.shared.add.", $ty, " [{a}], {v};"), a = in(reg32) addr, v = in($class) v,
                        options(nostack, preserves_flags))
                }
            }
            #[inline(always)]
            fn zero() -> $t {
                $zero
            }
        }
    )*};
}

/// The 8- and 16-bit integers, each in the low bits of a 32-bit shared word.
macro_rules! narrow_shared_add {
    ($($t:ty, $word:ty;)*) => {$(
        impl SharedAdd for $t {
            const SLOT: usize = 4;
            #[inline(always)]
            unsafe fn store_shared(addr: u32, v: $t) {
                // SAFETY: the caller guarantees `addr`.
                unsafe { <u32 as SharedWord>::store_shared(addr, v as $word as u32) }
            }
            #[inline(always)]
            unsafe fn load_shared(addr: u32) -> $t {
                // SAFETY: the caller guarantees `addr`.
                unsafe { <u32 as SharedWord>::load_shared(addr) as $t }
            }
            #[inline(always)]
            unsafe fn red_add_shared(addr: u32, v: $t) {
                // Sign- or zero-extension alike: the low bits of the wrapping word sum are the
                // wrapping narrow sum.
                // SAFETY: the caller guarantees `addr`.
                unsafe { <u32 as SharedAdd>::red_add_shared(addr, v as $word as u32) }
            }
            #[inline(always)]
            fn zero() -> $t {
                0
            }
        }
    )*};
}

narrow_shared_add! {
    u8, u8;
    i8, u8;
    u16, u16;
    i16, u16;
}

shared_add! {
    i32, "u32", reg32, 0;
    u32, "u32", reg32, 0;
    f32, "f32", reg32, 0.0;
    i64, "u64", reg64, 0;
    u64, "u64", reg64, 0;
    usize, "u64", reg64, 0;
    f64, "f64", reg64, 0.0;
}

/// Where [`permute_add`]'s updates go: the block's copy in shared memory, or the output.
#[derive(Clone, Copy)]
pub enum AddTarget<T> {
    Shared(u32),
    Global(*mut T),
}

impl<T: SharedAdd> AddTarget<T> {
    /// Adds `v` to element `j` of the output (`j` below its length).
    ///
    /// # Safety
    /// `j` is below the length given to [`permute_add`].
    #[inline(always)]
    pub unsafe fn add(&self, j: usize, v: T) {
        // SAFETY: the caller guarantees `j`; a shared copy holds every element.
        unsafe {
            match *self {
                AddTarget::Shared(base) => T::red_add_shared(base + (j * T::SLOT) as u32, v),
                AddTarget::Global(p) => T::red_add(p.add(j), v),
            }
        }
    }
}

/// A permute with `+` into `out` (`len` elements): runs `scatter(target)`, where `scatter`
/// adds the block's share of the sources through `target`. When the output fits in
/// [`SHARED_BYTES`], each block accumulates into a zeroed copy in shared memory (shared-memory
/// atomics, contended only within the block) and then adds its non-zero elements to `out`: a
/// histogram of 2^28 keys into 256 bins does 2^28 shared and about 256 global atomics per block
/// instead of 2^28 global atomics on 256 addresses.
///
/// # Safety
/// Called from every thread of a 1-D launch (the block synchronises); `out` holds `len`
/// elements in global memory; `scatter` only adds to elements below `len`.
#[inline(always)]
pub unsafe fn permute_add<T: SharedAdd + PartialEq>(out: *mut T, len: usize, scatter: impl Fn(AddTarget<T>)) {
    let base = shared_buffer();
    if len * T::SLOT > SHARED_BYTES {
        return scatter(AddTarget::Global(out));
    }
    let (first, step) = (device::thread_idx(), device::block_dim());
    let at = |k: usize| base + (k * T::SLOT) as u32;
    // SAFETY: every `k < len` lies inside the buffer (checked above); the barriers order the
    // zeroing before the adds and the adds before the flush.
    unsafe {
        let mut k = first;
        while k < len {
            T::store_shared(at(k), T::zero());
            k += step;
        }
        device::sync_threads();
        scatter(AddTarget::Shared(base));
        device::sync_threads();
        let mut k = first;
        while k < len {
            let v = T::load_shared(at(k));
            if v != T::zero() {
                T::red_add(out.add(k), v);
            }
            k += step;
        }
    }
}

/// The shared-space address of a block-shared buffer of [`SHARED_BYTES`] bytes, 16-byte aligned.
/// Each call declares its own buffer (PTX allows a `.shared` variable in a kernel's nested
/// scope), so a kernel calls it once.
#[inline(always)]
fn shared_buffer() -> u32 {
    device::shared_buffer!("accel_shared_buffer", 16, SHARED_BYTES)
}
