//! Fusion: rewrites a program so that producers run inside their consumers (ICFP'13 §3-4).
//!
//! The passes only rewrite the IR; what they produce is an ordinary program that the interpreter
//! runs with the same results, plus three *fused forms* that the front end never writes and that
//! every backend implements:
//!
//! 1. **Delayed operands.** The array operand of a consumer may be a `Generate` node itself
//!    (not a variable): the consumer computes element `ix` as the generate's closure applied to
//!    `ix`, inside its own kernel, and no array is allocated. The consumer positions are the
//!    `a` of `Fold`, `FoldAll`, `FoldSeg`, `Scan`, `ScanSeg`, `Permute` (and its `defaults`),
//!    `Stencil`, `Expand` and `Filter`.
//! 2. **Delayed reads.** Inside a kernel's closures, `Index { array: Generate { .. }, .. }` reads
//!    one element of a delayed array: the index is checked against the generate's shape (an
//!    error names the read's `site`), then the element is computed in place.
//! 3. **Epilogues.** `IMap { f, a }` whose `a` is a `Fold`, `FoldAll`, `FoldSeg`, `Scan` (not
//!    `scanl_total`/`scanr_total`) or `ScanSeg` node itself: the reduction or scan writes
//!    `f(ix, v)` instead of each result `v`, in its last kernel.
//! 4. **Expand under permute.** [`ArrayOp::ExpandPermute`](crate::ir::ArrayOp::ExpandPermute):
//!    a `permute` of an `expand` as one node, each expanded element computed where it is
//!    scattered. The interpreter and the CPU backend run what it stands for
//!    (`expand_permute::unfused`); the GPU runs it as one kernel after the counts, by one of
//!    four strategies (`accel_kernels::expand`).
//!
//! A backend launches kernels only for the collective nodes that are not absorbed into another:
//! see [`crate::kernel::launched`].
//!
//! The passes, in order ([`PASSES`]; [`crate::pipeline`] runs them, and `#[accel(fusion =
//! false)]` or `ACCEL_FUSION=off` runs [`UNFUSED`] instead, which only lowers producers):
//! 1. `producers`: producers become delayed arrays and fuse into their consumers; `let`s are
//!    inlined or kept manifest by the sharing rule;
//! 2. `expand_permute`: a `permute` of an `expand` becomes fused form 4;
//! 3. `siblings`: reductions of the same extent become one reduction of tuples;
//! 4. `epilogues`: elementwise work on a reduction's or scan's results moves into its last
//!    step.

mod epilogues;
pub(crate) mod expand_permute;
mod producers;
pub(crate) mod rewrite;
mod siblings;
#[cfg(test)]
mod tests;

use crate::ir::Program;

/// A pass: a program in, the rewritten program out.
pub type Pass = fn(Program) -> Program;

/// The fusion passes, in the order they run ([`crate::pipeline::passes`] runs them when fusion is
/// on, [`UNFUSED`] when it is off).
pub const PASSES: &[(&str, Pass)] = &[
    ("producers", producers::run),
    (EXPAND_PERMUTE, expand_permute::run),
    ("siblings", siblings::run),
    ("epilogues", epilogues::run),
];

/// The name of the pass that fuses `permute` with `expand` (`#[accel(expand_permute = false)]`
/// leaves it out).
pub const EXPAND_PERMUTE: &str = "expand_permute";

/// The passes without fusion: producers lowered to `generate`s, each written out.
pub const UNFUSED: &[(&str, Pass)] = &[("producers (unfused)", producers::lower)];
