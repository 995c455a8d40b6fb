//! Device intrinsics: thread, warp and grid indices (1-D launches), barriers, warp shuffles and
//! votes, fences and the atomic instructions the skeletons build on.
//!
//! Warp primitives use the full mask: every skeleton calls them from all 32 lanes of a warp, in
//! warp-uniform control flow. Shuffles move 32-bit words; wider values are split by `elem`.
//! Atomics use generic addresses (valid for any pointer the host passes) with PTX's default
//! `.relaxed.gpu` semantics; ordering comes from explicit fences.

use crate::abi::WARP;
use core::arch::asm;
use core::arch::nvptx;

/// Every lane of a warp.
pub const FULL_MASK: u32 = 0xffff_ffff;

unsafe extern "C" {
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    fn shfl_down_i32(mask: u32, v: u32, delta: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    fn shfl_up_i32(mask: u32, v: u32, delta: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_idx_i32(mask: u32, v: u32, lane: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
}

/// Thread index within the block.
#[inline(always)]
pub fn thread_idx() -> usize {
    // SAFETY: reads a special register.
    unsafe { nvptx::_thread_idx_x() as usize }
}

/// [`thread_idx`] read again where it is used (a volatile read of `%tid.x`): values that code
/// works out from it are not hoisted out of the loop around that code, where they would stay
/// live (or spill) across the whole loop.
#[inline(always)]
pub fn thread_idx_here() -> usize {
    let t: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {t}, %tid.x;", t = out(reg32) t, options(nomem, nostack, preserves_flags)) };
    t as usize
}

/// Block index within the grid.
#[inline(always)]
pub fn block_idx() -> usize {
    // SAFETY: reads a special register.
    unsafe { nvptx::_block_idx_x() as usize }
}

/// Threads per block.
#[inline(always)]
pub fn block_dim() -> usize {
    // SAFETY: reads a special register.
    unsafe { nvptx::_block_dim_x() as usize }
}

/// Blocks in the grid.
#[inline(always)]
pub fn grid_dim() -> usize {
    // SAFETY: reads a special register.
    unsafe { nvptx::_grid_dim_x() as usize }
}

/// This thread's index in the whole grid.
#[inline(always)]
pub fn global_thread() -> usize {
    block_idx() * block_dim() + thread_idx()
}

/// Threads in the whole grid.
#[inline(always)]
pub fn grid_threads() -> usize {
    grid_dim() * block_dim()
}

/// Lane within the warp (blocks are 1-D and a multiple of the warp size).
#[inline(always)]
pub fn lane() -> u32 {
    lane_of(thread_idx())
}

/// Warp index within the block.
#[inline(always)]
pub fn warp_in_block() -> usize {
    warp_of(thread_idx())
}

/// The lane of the thread of index `t` in its block.
#[inline(always)]
pub fn lane_of(t: usize) -> u32 {
    (t % WARP) as u32
}

/// The warp (within its block) of the thread of index `t` in its block.
#[inline(always)]
pub fn warp_of(t: usize) -> usize {
    t / WARP
}

/// This warp's index in the whole grid.
#[inline(always)]
pub fn global_warp() -> usize {
    global_thread() / WARP
}

/// Warps in the whole grid.
#[inline(always)]
pub fn grid_warps() -> usize {
    grid_threads() / WARP
}

/// The shared-space address (a `u32`) of a block-shared buffer of `$bytes` bytes aligned to
/// `$align`, named `$name` in the PTX. Each use declares its own buffer, in a nested scope of the
/// kernel (PTX allows a `.shared` variable there), so a kernel reaches each use once.
macro_rules! shared_buffer {
    ($name:literal, $align:literal, $bytes:expr) => {{
        let addr: u32;
        // SAFETY: declares and names a buffer; reads and writes nothing.
        unsafe {
            core::arch::asm!(
                "{{",
                concat!(".shared .align ", $align, " .b8 ", $name, "[{bytes}];"),
                concat!("mov.u32 {a}, ", $name, ";"),
                "}}",
                a = out(reg32) addr,
                bytes = const $bytes,
                options(nomem, nostack, preserves_flags),
            )
        }
        addr
    }};
}
pub(crate) use shared_buffer;

/// Words that are read and written in shared memory by their shared-space address (a `u32` of a
/// [`shared_buffer!`]), with `ld.shared`/`st.shared`: ptxas then knows that they touch neither
/// global memory nor each other's addresses in other buffers, and schedules them freely around
/// global loads and stores. (Through a generic pointer, `cvta.shared`, every access is a generic
/// `LD`/`ST` that ptxas must keep in order with the global stores around it.)
pub trait SharedWord: Copy {
    /// The word at `addr`.
    ///
    /// # Safety
    /// `addr` is an address of a block-shared buffer, aligned to the word's size, that the block
    /// wrote before a barrier (or this thread wrote).
    unsafe fn load_shared(addr: u32) -> Self;
    /// Writes the word at `addr`.
    ///
    /// # Safety
    /// `addr` is an address of a block-shared buffer, aligned to the word's size.
    unsafe fn store_shared(addr: u32, v: Self);
}

/// Words read once from global memory with `ld.global.cs` (cache streaming: evicted first from L1
/// and L2), so that a stream a kernel reads once does not push out of L2 the lines that other
/// reads come back for (a sparse product's gathers of `x`, while its columns and values stream
/// past).
pub trait StreamWord: Copy {
    /// The word at `p`.
    ///
    /// # Safety
    /// `p` points to a word of global memory (a device allocation), aligned to the word's size.
    unsafe fn load_streaming(p: *const Self) -> Self;
    /// The `N` words from `p` on, read as [`StreamWord::load_streaming`] reads one: a word a load,
    /// except for 4- and 8-byte words when `N` is a multiple of the words 16 bytes hold, which are
    /// read 16 bytes a load (`ld.global.cs.v4.u32`, `.v2.u64`). A thread that reads a run of
    /// consecutive words then asks for each of their sectors once, where a load a word, strided
    /// across the warp, asks for a sector as many times as it holds words (and may find it
    /// evicted from L1 between two of them, streaming lines being evicted first).
    ///
    /// # Safety
    /// `p` points to `N` words of global memory, aligned to 16 bytes where 16-byte loads read them
    /// (a 4- or 8-byte word, `N` a multiple of 4 or 2), else to the word's size.
    #[inline(always)]
    unsafe fn load_streaming_run<const N: usize>(p: *const Self) -> [Self; N] {
        // SAFETY: the caller's contract.
        unsafe { stream_word_by_word(p) }
    }
}

/// `N` words from `p`, a [`StreamWord::load_streaming`] each.
///
/// # Safety
/// `p` points to `N` words of global memory, aligned to the word's size.
#[inline(always)]
unsafe fn stream_word_by_word<W: StreamWord, const N: usize>(p: *const W) -> [W; N] {
    // SAFETY: the caller's `N` words.
    core::array::from_fn(|k| unsafe { W::load_streaming(p.add(k)) })
}

/// [`StreamWord::load_streaming_run`] of the words `$t` (in registers of class `$reg`), `16 /
/// size` of them a load (`ld.global.cs.v4.u32` or `.v2.u64`, given as `$load` with its outputs
/// `$word`s) when `N` is a multiple of that, else a word a load.
macro_rules! stream_run_by_16_bytes {
    ($t:ty, $reg:ident, ([$($word:ident),+], $load:literal)) => {
        #[inline(always)]
        unsafe fn load_streaming_run<const N: usize>(p: *const $t) -> [$t; N] {
            const WORDS: usize = [$(stringify!($word)),+].len();
            const _: () = assert!(WORDS * core::mem::size_of::<$t>() == 16, "one load is 16 bytes");
            if !N.is_multiple_of(WORDS) {
                // SAFETY: the caller's `N` words.
                return unsafe { stream_word_by_word(p) };
            }
            let mut run = [0; N];
            for k in (0..N).step_by(WORDS) {
                $(let $word: $t;)+
                // SAFETY: the caller's `N` words from `p`, aligned to 16 bytes, `N` a multiple
                // of `WORDS`: so the 16 bytes at word `k`.
                unsafe {
                    asm!($load, $($word = out($reg) $word,)+ p = in(reg64) p.add(k),
                        options(nostack, preserves_flags, readonly));
                }
                run[k..k + WORDS].copy_from_slice(&[$($word),+]);
            }
            run
        }
    };
}

macro_rules! shared_word {
    ($($t:ty, $reg:ty, $class:ident, $bits:literal $(, $run:tt)?;)*) => {$(
        impl StreamWord for $t {
            #[inline(always)]
            unsafe fn load_streaming(p: *const $t) -> $t {
                let v: $reg;
                // SAFETY: the caller guarantees a global word at `p`.
                unsafe {
                    asm!(concat!("ld.global.cs.u", $bits, " {v}, [{p}];"), v = out($class) v, p = in(reg64) p,
                        options(nostack, preserves_flags, readonly));
                }
                v as $t
            }
            $(stream_run_by_16_bytes!($t, $class, $run);)?
        }
        impl SharedWord for $t {
            #[inline(always)]
            unsafe fn load_shared(addr: u32) -> $t {
                let v: $reg;
                // SAFETY: the caller guarantees `addr`.
                unsafe {
                    asm!(concat!("ld.shared.u", $bits, " {v}, [{a}];"), v = out($class) v, a = in(reg32) addr,
                        options(nostack, preserves_flags, readonly));
                }
                v as $t
            }
            #[inline(always)]
            unsafe fn store_shared(addr: u32, v: $t) {
                // SAFETY: the caller guarantees `addr`.
                unsafe {
                    asm!(concat!("st.shared.u", $bits, " [{a}], {v};"), a = in(reg32) addr, v = in($class) v as $reg,
                        options(nostack, preserves_flags));
                }
            }
        }
    )*};
}

// PTX has no 8-bit registers: a byte is loaded into, and stored from, the low bits of a 16-bit one.
shared_word! {
    u8, u16, reg16, "8";
    u16, u16, reg16, "16";
    u32, u32, reg32, "32", ([a, b, c, d], "ld.global.cs.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];");
    u64, u64, reg64, "64", ([a, b], "ld.global.cs.v2.u64 {{{a}, {b}}}, [{p}];");
}

/// Block-wide barrier. Never call it under a condition that differs between the block's threads.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: a barrier; the caller keeps it out of divergent code.
    unsafe { nvptx::_syncthreads() }
}

/// Warp-wide barrier over all 32 lanes.
#[inline(always)]
pub fn sync_warp() {
    // SAFETY: a barrier over the full warp; every lane calls it.
    unsafe { bar_warp_sync(FULL_MASK) }
}

/// The value of lane `lane + delta` (own value where that is past lane 31).
#[inline(always)]
pub fn shfl_down(v: u32, delta: u32) -> u32 {
    // SAFETY: all 32 lanes take part (full mask); c = 0x1f clamps at lane 31.
    unsafe { shfl_down_i32(FULL_MASK, v, delta, 0x1f) }
}

/// The value of lane `lane - delta` (own value where that is below lane 0).
#[inline(always)]
pub fn shfl_up(v: u32, delta: u32) -> u32 {
    // SAFETY: all 32 lanes take part (full mask); c = 0 clamps at lane 0.
    unsafe { shfl_up_i32(FULL_MASK, v, delta, 0) }
}

/// The value of lane `src`.
#[inline(always)]
pub fn shfl_idx(v: u32, src: u32) -> u32 {
    // SAFETY: all 32 lanes take part (full mask).
    unsafe { shfl_idx_i32(FULL_MASK, v, src, 0x1f) }
}

/// Bit `l` set for every lane `l` whose `pred` holds; all 32 lanes must call it.
#[inline(always)]
pub fn ballot(pred: bool) -> u32 {
    let r: u32;
    // SAFETY: a warp vote over the full mask; no memory access.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {v}, 0; vote.sync.ballot.b32 {r}, p, 0xffffffff; }}",
            v = in(reg32) pred as u32,
            r = out(reg32) r,
            options(nomem, nostack, preserves_flags),
        );
    }
    r
}

/// Orders this thread's memory accesses before and after it for the whole GPU (acquire and
/// release at once).
#[inline(always)]
pub fn thread_fence() {
    // SAFETY: a fence has no operands.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags)) }
}

/// 32-bit compare-and-swap: stores `new` if `*p == old`; returns the previous value.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn cas32(p: *mut u32, old: u32, new: u32) -> u32 {
    let r: u32;
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("atom.cas.b32 {r}, [{p}], {o}, {n};", r = out(reg32) r, p = in(reg64) p, o = in(reg32) old,
            n = in(reg32) new, options(nostack, preserves_flags));
    }
    r
}

/// 64-bit compare-and-swap: stores `new` if `*p == old`; returns the previous value.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn cas64(p: *mut u64, old: u64, new: u64) -> u64 {
    let r: u64;
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("atom.cas.b64 {r}, [{p}], {o}, {n};", r = out(reg64) r, p = in(reg64) p, o = in(reg64) old,
            n = in(reg64) new, options(nostack, preserves_flags));
    }
    r
}

/// Atomically adds `v`; returns the previous value.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn fetch_add32(p: *mut u32, v: u32) -> u32 {
    let r: u32;
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("atom.add.u32 {r}, [{p}], {v};", r = out(reg32) r, p = in(reg64) p, v = in(reg32) v,
            options(nostack, preserves_flags));
    }
    r
}

/// Bytes of an L2 cache line.
const L2_LINE: usize = 128;

/// Asks L2 for the lines that hold bytes `from..to` of the global buffer at `base`
/// (`prefetch.global.L2`), the block's threads a line each in turn, so every thread of the block
/// calls it with the same bytes. Loads nothing into registers and waits for nothing: a later load
/// of those bytes hits L2 if the lines are still there. (The kernels' column pointers are global
/// addresses: the generic address of global memory is the same.)
///
/// # Safety
/// `from < to`, and bytes `from..to` lie in one global buffer at `base`.
#[inline(always)]
pub unsafe fn prefetch_l2(base: *const u8, from: usize, to: usize) {
    let end = base as usize + to;
    let mut line = ((base as usize + from) & !(L2_LINE - 1)) + thread_idx() * L2_LINE;
    while line < end {
        // SAFETY: the line overlaps the caller's buffer; a prefetch reads nothing back.
        unsafe { asm!("prefetch.global.L2 [{a}];", a = in(reg64) line, options(nostack, preserves_flags, readonly)) };
        line += block_dim() * L2_LINE;
    }
}

/// Atomically increments a counter that wraps: stores `old + 1`, or 0 when `old >= max`;
/// returns `old`. With `max = n - 1`, `n` calls starting from 0 see `0 ..= n - 1` and leave 0.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn fetch_inc_wrap32(p: *mut u32, max: u32) -> u32 {
    let r: u32;
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("atom.inc.u32 {r}, [{p}], {m};", r = out(reg32) r, p = in(reg64) p, m = in(reg32) max,
            options(nostack, preserves_flags));
    }
    r
}

/// Atomically swaps in `v`; returns the previous value.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn exch32(p: *mut u32, v: u32) -> u32 {
    let r: u32;
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("atom.exch.b32 {r}, [{p}], {v};", r = out(reg32) r, p = in(reg64) p, v = in(reg32) v,
            options(nostack, preserves_flags));
    }
    r
}

/// A strong (`.relaxed.gpu`) 32-bit load: sees other threads' atomic writes, never a stale cache.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn load_relaxed32(p: *const u32) -> u32 {
    let r: u32;
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("ld.relaxed.gpu.b32 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p,
            options(nostack, preserves_flags, readonly));
    }
    r
}

/// A strong (`.relaxed.gpu`) 64-bit store: other threads' strong loads see the whole word or
/// none of it.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn store_relaxed64(p: *mut u64, v: u64) {
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("st.relaxed.gpu.b64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v, options(nostack, preserves_flags));
    }
}

/// Suspends the thread for about `ns` nanoseconds (a back-off while polling).
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: a sleep; no memory access.
    unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack, preserves_flags)) }
}

/// A strong (`.relaxed.gpu`) 64-bit load: sees other threads' atomic writes, never a stale cache.
///
/// # Safety
/// `p` is a valid, aligned pointer to global memory.
#[inline(always)]
pub unsafe fn load_relaxed64(p: *const u64) -> u64 {
    let r: u64;
    // SAFETY: the caller guarantees `p`.
    unsafe {
        asm!("ld.relaxed.gpu.b64 {r}, [{p}];", r = out(reg64) r, p = in(reg64) p,
            options(nostack, preserves_flags, readonly));
    }
    r
}
