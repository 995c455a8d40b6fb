//! The accel device skeletons: the library that generated GPU kernels are written against.
//!
//! The crate is `no_std` and compiled twice:
//!
//! - for the host, with stable Rust, as a dependency of accel-core and accel-runtime: only
//!   [`abi`] (what host and device agree on: block size, tile shape, error slot, parameter words),
//!   [`ops`] (the scalar semantics shared by the interpreter, the CPU backend and the GPU), and
//!   the target-independent [`index`] (row-major index arithmetic) and [`boundary`] (where a
//!   stencil reads outside its array), the one definition of those rules for every backend,
//!   [`search`] (the source of an output of `expand`, the merge-path split of the
//!   output-balanced tiles), [`delayed`] (`Delayed`, the fused operand computed in place), and
//!   [`fmath`] (the GPU's branch-free `exp` and `ln` of `f32`, tested on the host, and, on the
//!   device only, the operations of fast math);
//! - for `nvptx64-nvidia-cuda`, with the pinned nightly and `-Zbuild-std=core`, as a path
//!   dependency ([`MANIFEST_DIR`]) of the cdylib that accel-build generates for a program's
//!   kernels (DESIGN.md §4). Fat LTO inlines every skeleton into the generated `ptx-kernel`
//!   entry points, so the PTX is self-contained.
//!
//! Device-only modules, one concern each:
//!
//! - `device`: thread, warp and grid indices, barriers, warp shuffles and votes, fences;
//! - `elem`: `DeviceElem`, scalars and tuples (tuples as structure of arrays);
//! - `view`: `View`, `SegView`, `NestedView`, the kernels' view of their arguments;
//! - `ctx`: `Ctx`, bounds-checked reads and checked division that record the first error in the
//!   host's error slot;
//! - `rows`: `Rows` (`Uniform`, `Segmented`) and `chunk`, how reductions and scans split work;
//! - `generate`: the elementwise loop over a flat index space, in block tiles of 256 x 4
//!   consecutive elements, each thread computing its values before storing them (`generate_each`,
//!   one element per thread per step, for bodies dominated by arithmetic);
//! - `stencil`: 2-D stencils, a block per tile of the output, each thread walking down one column
//!   with the neighbourhood in registers (`K` new loads per output), the boundary test once per
//!   tile;
//! - `reduce`: rows split into chunks; a commutative operator accumulates striped positions in
//!   registers in lane groups sized to the rows, any other associative operator keeps scan order
//!   (tiles of 32 lanes x 4 consecutive items); in one launch: the part of a row that finishes
//!   last (a ticket per row) combines the row's partials;
//! - `ranges`: segmented reductions over ranges of values a warp, whatever the segment lengths:
//!   ranges of 256 values, 8 consecutive ones a lane, for short rows; wide ranges sized to the
//!   grid, each row's piece folded by the whole warp, for long ones; rows spanning ranges met by
//!   a second launch;
//! - `scan`: long rows in one pass with decoupled look-back, segments in three phases (chunk
//!   totals, carries, the scan), on the private `warp` module (in-order warp reduction and scan
//!   with shuffles);
//! - `atomic`: atomic add/min/max, CAS-loop updates and per-element spin locks for `permute`;
//! - `expand`: the counts of `expand` and the spread of its outputs over the grid when it is
//!   fused with `permute` (a source per thread, warp or block, or output-balanced tiles);
//! - `prelude`: what generated kernels import.
//!
//! The crate also provides the device `#[panic_handler]` (it traps): generated crates must not
//! define another.

#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch, core_float_math, float_algebraic, link_llvm_intrinsics, stdarch_nvptx),
    // `link_llvm_intrinsics` is how `device` reaches the NVVM warp shuffles.
    allow(internal_features)
)]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod abi;
pub mod boundary;
pub mod delayed;
pub mod fmath;
pub mod index;
pub mod ops;
pub mod search;

#[cfg(target_arch = "nvptx64")]
pub mod atomic;
#[cfg(target_arch = "nvptx64")]
pub mod ctx;
#[cfg(target_arch = "nvptx64")]
pub mod device;
#[cfg(target_arch = "nvptx64")]
pub mod elem;
#[cfg(target_arch = "nvptx64")]
pub mod expand;
#[cfg(target_arch = "nvptx64")]
pub mod generate;
#[cfg(target_arch = "nvptx64")]
pub mod ranges;
#[cfg(target_arch = "nvptx64")]
pub mod reduce;
#[cfg(target_arch = "nvptx64")]
pub mod rows;
#[cfg(target_arch = "nvptx64")]
pub mod scan;
#[cfg(target_arch = "nvptx64")]
pub mod stencil;
#[cfg(target_arch = "nvptx64")]
pub mod view;
#[cfg(target_arch = "nvptx64")]
mod warp;

/// This crate's directory: generated device crates depend on it by path.
pub const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// What generated kernels use.
#[cfg(target_arch = "nvptx64")]
pub mod prelude {
    pub use crate::abi::Word;
    pub use crate::ctx::Ctx;
    pub use crate::delayed::Delayed;
    pub use crate::elem::DeviceElem;
    pub use crate::index::Shaped;
    pub use crate::ops::{Arith, Bits, Float};
    pub use crate::rows::{Rows, Segmented, Uniform, chunk};
    pub use crate::view::{NestedView, SegView, View};
}

/// A panic on the GPU (an arithmetic overflow check, a bug) aborts the kernel; the launch then
/// fails with an illegal-instruction error on the host.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` only aborts the kernel.
    unsafe { core::arch::nvptx::trap() }
}
