//! Device elements: the scalars and tuples of elements (arity 1 to 6, nested freely).
//!
//! Arrays of tuples are structures of arrays, as on the host: a tuple's `Ptr` is the tuple of its
//! parts' column pointers, so loading element `i` of an `(f32, i32)` array reads two columns.
//! Loads and stores are plain reads and writes: LLVM emits `ld.global`/`st.global` (with immediate
//! offsets) for pointers that come from kernel parameters, and generic ones otherwise. Shuffles
//! move 32-bit words: 64-bit scalars take two, `bool` and the 8- and 16-bit integers are widened
//! to one, a tuple shuffles its parts.

use crate::device::{self, SharedWord, StreamWord};

/// An element of a device array.
pub trait DeviceElem: Copy {
    /// Column pointers: `*mut T` for a scalar, a tuple of the parts' `Ptr`s for a tuple.
    type Ptr: Copy;
    /// Element `i` of the columns.
    ///
    /// # Safety
    /// Every column holds at least `i + 1` elements in global memory.
    unsafe fn load(p: Self::Ptr, i: usize) -> Self;
    /// Writes element `i` of the columns.
    ///
    /// # Safety
    /// Every column holds at least `i + 1` elements in global memory.
    unsafe fn store(p: Self::Ptr, i: usize, v: Self);
    /// Element `i` read with volatile loads: never from a stale cache line, for values another
    /// thread published (see `scan::Lookback`).
    ///
    /// # Safety
    /// As `load`.
    unsafe fn load_volatile(p: Self::Ptr, i: usize) -> Self;
    /// Element `i` read once: evicted first from L1 and L2 ([`device::StreamWord`]), for a
    /// stream whose every element a kernel reads once.
    ///
    /// # Safety
    /// As `load`.
    unsafe fn load_streaming(p: Self::Ptr, i: usize) -> Self;
    /// Elements `i..i + N`, read as [`DeviceElem::load_streaming`] reads one, with 16-byte loads
    /// where the columns' word size and `N` allow ([`device::StreamWord::load_streaming_run`]).
    ///
    /// # Safety
    /// Every column holds at least `i + N` elements in global memory, and `i` is a multiple of
    /// `N` (each column being aligned to [`crate::abi::COLUMN_ALIGN`], the run is then aligned
    /// to 16 bytes or to its own size).
    unsafe fn load_run_streaming<const N: usize>(p: Self::Ptr, i: usize) -> [Self; N];
    /// Asks L2 for elements `lo..hi` of every column ([`device::prefetch_l2`]), the block's
    /// threads sharing the lines: every thread of the block calls it with the same range.
    ///
    /// # Safety
    /// `lo < hi`, and every column holds at least `hi` elements in global memory.
    unsafe fn prefetch_l2(p: Self::Ptr, lo: usize, hi: usize);
    /// The element at shared-space address `addr` (laid out as in host memory: a tuple's parts at
    /// their `offset_of`), read with `ld.shared` ([`device::SharedWord`]).
    ///
    /// # Safety
    /// `addr` lies in a block-shared buffer, aligned to the element, written before a barrier (or
    /// by this thread).
    unsafe fn load_shared(addr: u32) -> Self;
    /// Writes the element at shared-space address `addr` (as [`DeviceElem::load_shared`]).
    ///
    /// # Safety
    /// `addr` lies in a block-shared buffer, aligned to the element.
    unsafe fn store_shared(addr: u32, v: Self);
    /// `p` where `keep`, else columns of zeros (element 0 of each is a zero of its type), chosen
    /// by selects: a checked read outside its array loads from these instead of branching.
    fn or_zeros(p: Self::Ptr, keep: bool) -> Self::Ptr;
    /// The all-zero value (`false` for `bool`).
    fn zero() -> Self;
    /// The value of lane `lane + delta` (own value past lane 31); all 32 lanes must call it.
    fn shfl_down(self, delta: u32) -> Self;
    /// The value of lane `lane - delta` (own value below lane 0); all 32 lanes must call it.
    fn shfl_up(self, delta: u32) -> Self;
    /// The value of lane `lane`; all 32 lanes must call it.
    fn shfl_idx(self, lane: u32) -> Self;
    /// Whether the element is one 32-bit word ([`DeviceElem::to_bits32`], [`DeviceElem::from_bits32`]):
    /// the scalars of 32 bits and fewer. A single-pass scan packs such a value with its status
    /// into one 64-bit word (`scan::Lookback`).
    const BITS32: bool = false;
    /// The element as its 32-bit word; meaningful only where [`DeviceElem::BITS32`].
    #[inline(always)]
    fn to_bits32(self) -> u32 {
        0
    }
    /// The element of a 32-bit word; meaningful only where [`DeviceElem::BITS32`].
    #[inline(always)]
    fn from_bits32(_word: u32) -> Self {
        Self::zero()
    }
}

/// Writes an optional element to a shared slot: the element at shared-space address `value`
/// (when present) and its presence, 1 or 0, in the `u32` at `flag`.
///
/// # Safety
/// `value` and `flag` lie in a block-shared buffer, `value` aligned to the element and `flag`
/// to 4 bytes.
#[inline(always)]
pub unsafe fn store_shared_option<T: DeviceElem>(value: u32, flag: u32, v: Option<T>) {
    // SAFETY: the caller's addresses.
    unsafe {
        if let Some(v) = v {
            T::store_shared(value, v);
        }
        <u32 as DeviceElem>::store_shared(flag, v.is_some() as u32);
    }
}

/// The optional element of a shared slot that [`store_shared_option`] wrote.
///
/// # Safety
/// As [`store_shared_option`], and the slot written before a barrier that precedes this read (or
/// by this thread).
#[inline(always)]
pub unsafe fn load_shared_option<T: DeviceElem>(value: u32, flag: u32) -> Option<T> {
    // SAFETY: the caller's addresses and order.
    unsafe { (<u32 as DeviceElem>::load_shared(flag) != 0).then(|| T::load_shared(value)) }
}

/// [`DeviceElem::prefetch_l2`] of one column of scalars.
///
/// # Safety
/// As [`DeviceElem::prefetch_l2`], for the column `p`.
#[inline(always)]
unsafe fn prefetch_column<T>(p: *mut T, lo: usize, hi: usize) {
    let size = core::mem::size_of::<T>();
    // SAFETY: `lo < hi` and `hi` elements of `size` bytes at `p` (the caller's contract).
    unsafe { device::prefetch_l2(p.cast::<u8>(), lo * size, hi * size) }
}

/// The zeros that a checked read outside its array loads ([`DeviceElem::or_zeros`]): one element
/// of any scalar type, all bits zero (`false`, `0`, `0.0`).
static ZEROS: [u64; 1] = [0];

/// 32-bit and narrower scalars: `$raw` is the stored word (a `bool` is read as its byte, so that a
/// byte other than 0 or 1 reads as `true` instead of being undefined behaviour).
macro_rules! scalar32 {
    ($($t:ty as $raw:ty, $from:expr, $to:expr;)*) => {$(
        impl DeviceElem for $t {
            type Ptr = *mut $t;
            #[inline(always)]
            unsafe fn load(p: *mut $t, i: usize) -> $t {
                let from: fn(u32) -> $t = $from;
                // SAFETY: the caller guarantees that element `i` exists; `$raw` has `$t`'s size.
                from(unsafe { p.cast::<$raw>().add(i).read() } as u32)
            }
            #[inline(always)]
            unsafe fn prefetch_l2(p: *mut $t, lo: usize, hi: usize) {
                // SAFETY: the caller's contract.
                unsafe { prefetch_column(p, lo, hi) }
            }
            #[inline(always)]
            unsafe fn load_volatile(p: *mut $t, i: usize) -> $t {
                let from: fn(u32) -> $t = $from;
                // SAFETY: as `load`.
                from(unsafe { p.cast::<$raw>().add(i).read_volatile() } as u32)
            }
            #[inline(always)]
            unsafe fn load_streaming(p: *mut $t, i: usize) -> $t {
                let from: fn(u32) -> $t = $from;
                // SAFETY: as `load`; the columns are device allocations.
                from(unsafe { <$raw as StreamWord>::load_streaming(p.cast::<$raw>().add(i)) } as u32)
            }
            #[inline(always)]
            unsafe fn load_run_streaming<const N: usize>(p: *mut $t, i: usize) -> [$t; N] {
                let from: fn(u32) -> $t = $from;
                // SAFETY: the caller's `N` elements from `i`, a multiple of `N`; `$raw` has
                // `$t`'s size.
                unsafe { <$raw as StreamWord>::load_streaming_run::<N>(p.cast::<$raw>().add(i)) }.map(|w| from(w as u32))
            }
            #[inline(always)]
            unsafe fn load_shared(addr: u32) -> $t {
                let from: fn(u32) -> $t = $from;
                // SAFETY: the caller guarantees `addr`; `$raw` has `$t`'s size.
                from(unsafe { <$raw as SharedWord>::load_shared(addr) } as u32)
            }
            #[inline(always)]
            unsafe fn store_shared(addr: u32, v: $t) {
                let to: fn($t) -> u32 = $to;
                // SAFETY: as `load_shared`; the word's high bits are zero or dropped.
                unsafe { <$raw as SharedWord>::store_shared(addr, to(v) as $raw) }
            }
            #[inline(always)]
            fn or_zeros(p: *mut $t, keep: bool) -> *mut $t {
                if keep { p } else { ZEROS.as_ptr().cast::<$t>().cast_mut() }
            }
            #[inline(always)]
            unsafe fn store(p: *mut $t, i: usize, v: $t) {
                // SAFETY: the caller guarantees that element `i` exists.
                unsafe { p.add(i).write(v) }
            }
            #[inline(always)]
            fn zero() -> $t {
                let from: fn(u32) -> $t = $from;
                from(0)
            }
            #[inline(always)]
            fn shfl_down(self, delta: u32) -> $t {
                let (from, to): (fn(u32) -> $t, fn($t) -> u32) = ($from, $to);
                from(device::shfl_down(to(self), delta))
            }
            #[inline(always)]
            fn shfl_up(self, delta: u32) -> $t {
                let (from, to): (fn(u32) -> $t, fn($t) -> u32) = ($from, $to);
                from(device::shfl_up(to(self), delta))
            }
            #[inline(always)]
            fn shfl_idx(self, lane: u32) -> $t {
                let (from, to): (fn(u32) -> $t, fn($t) -> u32) = ($from, $to);
                from(device::shfl_idx(to(self), lane))
            }
            const BITS32: bool = true;
            #[inline(always)]
            fn to_bits32(self) -> u32 {
                let to: fn($t) -> u32 = $to;
                to(self)
            }
            #[inline(always)]
            fn from_bits32(word: u32) -> $t {
                let from: fn(u32) -> $t = $from;
                from(word)
            }
        }
    )*};
}

// Narrow integers are stored at their own width (a `Vector<u8>` is one byte per element) and
// widened to a 32-bit word only in registers, for shuffles: the word's high bits are dropped again
// by `$from`, so zero-extending a signed value is as good as sign-extending it.
scalar32! {
    u32 as u32, |w| w, |x| x;
    i32 as u32, |w| w as i32, |x| x as u32;
    f32 as u32, f32::from_bits, f32::to_bits;
    bool as u8, |w| w != 0, |x| x as u32;
    u8 as u8, |w| w as u8, |x| x as u32;
    i8 as u8, |w| w as u8 as i8, |x| x as u8 as u32;
    u16 as u16, |w| w as u16, |x| x as u32;
    i16 as u16, |w| w as u16 as i16, |x| x as u16 as u32;
}

macro_rules! scalar64 {
    ($($t:ty, $from:expr, $to:expr;)*) => {$(
        impl DeviceElem for $t {
            type Ptr = *mut $t;
            #[inline(always)]
            unsafe fn load(p: *mut $t, i: usize) -> $t {
                // SAFETY: the caller guarantees that element `i` exists.
                unsafe { p.add(i).read() }
            }
            #[inline(always)]
            unsafe fn prefetch_l2(p: *mut $t, lo: usize, hi: usize) {
                // SAFETY: the caller's contract.
                unsafe { prefetch_column(p, lo, hi) }
            }
            #[inline(always)]
            unsafe fn load_volatile(p: *mut $t, i: usize) -> $t {
                // SAFETY: as `load`.
                unsafe { p.add(i).read_volatile() }
            }
            #[inline(always)]
            unsafe fn load_streaming(p: *mut $t, i: usize) -> $t {
                let from: fn(u64) -> $t = $from;
                // SAFETY: as `load`; the columns are device allocations.
                from(unsafe { <u64 as StreamWord>::load_streaming(p.cast::<u64>().add(i)) })
            }
            #[inline(always)]
            unsafe fn load_run_streaming<const N: usize>(p: *mut $t, i: usize) -> [$t; N] {
                let from: fn(u64) -> $t = $from;
                // SAFETY: the caller's `N` elements from `i`, a multiple of `N`.
                unsafe { <u64 as StreamWord>::load_streaming_run::<N>(p.cast::<u64>().add(i)) }.map(from)
            }
            #[inline(always)]
            unsafe fn load_shared(addr: u32) -> $t {
                let from: fn(u64) -> $t = $from;
                // SAFETY: the caller guarantees `addr`.
                from(unsafe { <u64 as SharedWord>::load_shared(addr) })
            }
            #[inline(always)]
            unsafe fn store_shared(addr: u32, v: $t) {
                let to: fn($t) -> u64 = $to;
                // SAFETY: the caller guarantees `addr`.
                unsafe { <u64 as SharedWord>::store_shared(addr, to(v)) }
            }
            #[inline(always)]
            fn or_zeros(p: *mut $t, keep: bool) -> *mut $t {
                if keep { p } else { ZEROS.as_ptr().cast::<$t>().cast_mut() }
            }
            #[inline(always)]
            unsafe fn store(p: *mut $t, i: usize, v: $t) {
                // SAFETY: the caller guarantees that element `i` exists.
                unsafe { p.add(i).write(v) }
            }
            #[inline(always)]
            fn zero() -> $t {
                let from: fn(u64) -> $t = $from;
                from(0)
            }
            #[inline(always)]
            fn shfl_down(self, delta: u32) -> $t {
                let (from, to): (fn(u64) -> $t, fn($t) -> u64) = ($from, $to);
                from(split(to(self), |w| device::shfl_down(w, delta)))
            }
            #[inline(always)]
            fn shfl_up(self, delta: u32) -> $t {
                let (from, to): (fn(u64) -> $t, fn($t) -> u64) = ($from, $to);
                from(split(to(self), |w| device::shfl_up(w, delta)))
            }
            #[inline(always)]
            fn shfl_idx(self, lane: u32) -> $t {
                let (from, to): (fn(u64) -> $t, fn($t) -> u64) = ($from, $to);
                from(split(to(self), |w| device::shfl_idx(w, lane)))
            }
        }
    )*};
}

scalar64! {
    u64, |w| w, |x| x;
    i64, |w| w as i64, |x| x as u64;
    usize, |w| w as usize, |x| x as u64;
    f64, f64::from_bits, f64::to_bits;
}

/// Shuffles a 64-bit word as its two halves.
#[inline(always)]
fn split(w: u64, shfl: impl Fn(u32) -> u32) -> u64 {
    let lo = shfl(w as u32);
    let hi = shfl((w >> 32) as u32);
    (hi as u64) << 32 | lo as u64
}

macro_rules! tuple {
    ($($T:ident $i:tt),+) => {
        impl<$($T: DeviceElem),+> DeviceElem for ($($T,)+) {
            type Ptr = ($($T::Ptr,)+);
            #[inline(always)]
            unsafe fn load(p: Self::Ptr, i: usize) -> Self {
                // SAFETY: the caller guarantees element `i` of every column.
                unsafe { ($($T::load(p.$i, i),)+) }
            }
            #[inline(always)]
            unsafe fn prefetch_l2(p: Self::Ptr, lo: usize, hi: usize) {
                // SAFETY: the caller guarantees `hi` elements of every column.
                unsafe { $($T::prefetch_l2(p.$i, lo, hi);)+ }
            }
            #[inline(always)]
            unsafe fn load_volatile(p: Self::Ptr, i: usize) -> Self {
                // SAFETY: as `load`.
                unsafe { ($($T::load_volatile(p.$i, i),)+) }
            }
            #[inline(always)]
            unsafe fn load_streaming(p: Self::Ptr, i: usize) -> Self {
                // SAFETY: as `load`.
                unsafe { ($($T::load_streaming(p.$i, i),)+) }
            }
            #[inline(always)]
            unsafe fn load_run_streaming<const N: usize>(p: Self::Ptr, i: usize) -> [Self; N] {
                // SAFETY: as `load_streaming`, a run of each column.
                let runs = unsafe { ($($T::load_run_streaming::<N>(p.$i, i),)+) };
                core::array::from_fn(|j| ($(runs.$i[j],)+))
            }
            #[inline(always)]
            unsafe fn load_shared(addr: u32) -> Self {
                // SAFETY: each part lies at its offset in the element, aligned as the part.
                unsafe { ($($T::load_shared(addr + core::mem::offset_of!(Self, $i) as u32),)+) }
            }
            #[inline(always)]
            unsafe fn store_shared(addr: u32, v: Self) {
                // SAFETY: as `load_shared`.
                unsafe { $($T::store_shared(addr + core::mem::offset_of!(Self, $i) as u32, v.$i);)+ }
            }
            #[inline(always)]
            fn or_zeros(p: Self::Ptr, keep: bool) -> Self::Ptr {
                ($($T::or_zeros(p.$i, keep),)+)
            }
            #[inline(always)]
            unsafe fn store(p: Self::Ptr, i: usize, v: Self) {
                // SAFETY: the caller guarantees element `i` of every column.
                unsafe { $($T::store(p.$i, i, v.$i);)+ }
            }
            #[inline(always)]
            fn zero() -> Self {
                ($($T::zero(),)+)
            }
            #[inline(always)]
            fn shfl_down(self, delta: u32) -> Self {
                ($(self.$i.shfl_down(delta),)+)
            }
            #[inline(always)]
            fn shfl_up(self, delta: u32) -> Self {
                ($(self.$i.shfl_up(delta),)+)
            }
            #[inline(always)]
            fn shfl_idx(self, lane: u32) -> Self {
                ($(self.$i.shfl_idx(lane),)+)
            }
        }
    };
}

tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
