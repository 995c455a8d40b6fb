//! The device interface of each collective operation: which kernels it launches ([`roles`], each
//! a [`Role`] that names it and sets its launch geometry) and what their parameters are
//! ([`layout`], a typed list of [`Param`]s). The device code generator
//! ([`crate::codegen::device`]) reads the words by walking the layout and the CUDA executor in
//! `accel-runtime` writes them by walking the same list, so that the words one side writes are
//! the words the other side reads.
//!
//! Every kernel parameter is one `u64` word (`accel_kernels::abi::Word`; an array column's is its
//! address, which the device code declares as a pointer). The words of a kernel
//! of node `n` are, in order:
//!
//! 1. the error slot pointer;
//! 2. the outputs: the node's result value, flattened (see [`word_count`]);
//! 3. the scratch buffers of the skeleton ([`Scratch`]);
//! 4. the host scalars: scalar expressions the host evaluates before the launch (a seed, a fill
//!    value, a row index, a boundary constant);
//! 5. the operands: the collective sub-expressions the kernel reads; a delayed operand (a
//!    `Generate` node, fused form 1 of [`crate::fusion`]) passes only its shape, one word per
//!    dimension, and the kernel computes its elements with the generate's closure. Permute's
//!    defaults are an operand (after the source) only when delayed: manifest ones are copied
//!    into the output by the host;
//! 6. the captures: free variables of the node's closures, of its delayed operands' closures and
//!    of its epilogue (fused form 3), by ascending variable id.
//!
//! A node under an epilogue (`IMap { f, a: Fold { .. } }`) has no kernels: the `IMap` node
//! launches the reduction's or scan's kernels, with the words of the reduction (its scratch,
//! seed, operands) but the `IMap`'s result as output, and captures of both. Nodes that fusion
//! absorbed ([`launched`] is false for them) have no kernels either.
//!
//! A value flattens to words as: a scalar, one word; a tuple of elements, its leaves; an array,
//! its shape (one word per dimension) then one column pointer per leaf of its element type;
//! segments, `[count, total, offsets pointer]`; a nested array, its segments then its values
//! array; a tuple of collective values, its parts in order.

use crate::ir::visit;
use crate::ir::{
    ArrayOp, BinaryOp, Boundary, Direction, Expr, ExprKind, Lambda, MathFn, Producer, Program, ReadSite, ScanKind, Var,
};
use crate::types::{ElemType, ScalarType, Type};
use accel_kernels::abi::{BLOCK_THREADS, GENERATE_UNROLL, SCAN_SLOT, SPREAD_TILE, WARP, scan_items};
use std::collections::BTreeMap;

/// The scratch buffers a skeleton needs besides its outputs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scratch {
    None,
    /// Reductions: `[parts, partials (an element vector of rows * parts), partial flags (bool
    /// pointer), tickets (one `u32` per row, zero before and after the kernel; null when
    /// `parts == 1` or when the [`Role::Finish`] kernel combines the partials), mirror (mapped
    /// host memory that the finishing warp writes each result into as well; null when the host
    /// gave none, and only written for results that [`mirrors_result`]), starts (the
    /// [`range_starts`] of the ranges walks, read by their kernels; null for the others), width
    /// (the values of a range under the ranges walks, `accel_kernels::abi::RANGE` for either
    /// build of [`Role::RangeReduce`]; 0 for the others)]`. Under the ranges walks the partials
    /// are two per range (head and tail). Partials and carries hold the combining function's
    /// element type, which the output of an epilogue need not have.
    Reduce,
    /// Scans: `[parts, partials, partial flags]` as for a reduction (no tickets), then
    /// `[carries (element vector), carry flags]`. For the single pass, all zeroed: the partial
    /// flags hold 8 bytes a tile (a 32-bit element's packed status word), and the ticket follows
    /// the carry flags (`accel_kernels::scan::Lookback::in_scratch`).
    Scan,
    /// Permute: `[locks pointer]` (one `u32` per destination, zeroed; null unless
    /// [`PermuteCombine::Lock`]).
    Permute,
    /// Expand, filter and segments from lengths: `[source count n, counts pointer, offsets
    /// pointer]`, two buffers of `n + 1` `usize` entries: the counts kernel writes each source's
    /// count into the first (zeroed, so its last entry stays 0), the module's offsets scan writes
    /// their exclusive prefix sums into the second (its last entry the total), and the write
    /// kernel reads the offsets.
    Offsets,
    /// `expand` fused with `permute`: `[source count n, counts pointer, offsets pointer, locks
    /// pointer, strategy, sizes pointer]`. The counts kernel finds the longest count and the
    /// total into the sizes (two zeroed `usize`s) and, unless the counts pointer is null, writes
    /// each source's count (`n + 1` entries, the last 0), which the module's offsets scan then
    /// turns into the offsets (`n + 1` entries; null when not scanned, [`Strategy::needs_offsets`]);
    /// locks as for [`Scratch::Permute`]; the strategy an `accel_kernels::abi::spread` word
    /// ([`Strategy::word`]).
    Spread,
}

/// A kernel of a node: what it computes in its skeleton, which names it (the suffix of its name)
/// and sets its launch geometry ([`Role::threads`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Role {
    /// Elementwise skeletons: one kernel, `GENERATE_UNROLL` elements of a thread in flight.
    Generate,
    /// Elementwise skeletons whose element is compute-heavy ([`is_compute_heavy`]): one element
    /// per thread, as many threads as elements ([`elementwise_role`]).
    GenerateEach,
    /// Reductions: per-chunk totals, and with ticket counters the last chunk of a row to finish
    /// combines the row's (one launch, `accel_kernels::reduce`).
    Reduce,
    /// Reductions without ticket counters, second launch: per-row totals of the chunks.
    Finish,
    /// Segmented reductions over a vector by fixed ranges of values, whatever the row lengths
    /// (`accel_kernels::ranges`), after the module's [`range_starts`]: the rows that begin and
    /// end in one range, and each range's two partials.
    RangeReduce,
    /// [`Role::RangeReduce`] built for more resident blocks
    /// (`accel_kernels::abi::RANGE_DENSE_BLOCKS_PER_SM`), which the host launches in its place
    /// when it needs no more local memory than that one (ptxas spilled nothing more to fit it).
    RangeReduceDense,
    /// Segmented reductions over a vector by wide ranges of values, a warp folding each row's
    /// piece of its range with all its lanes (`accel_kernels::ranges::reduce_wide`), after the
    /// module's [`range_starts`] for that width: the rows that begin and end in one range, and
    /// each range's two partials.
    WideReduce,
    /// The second launch of both ranges walks: the rows that span ranges.
    RangeFinish,
    /// Segmented scans, phase 1: per-chunk totals.
    Chunks,
    /// Scans, phase 2: the carry into each chunk.
    Carries,
    /// Scans, phase 3: the scan itself (of a regular array's long rows: the only kernel, one pass
    /// with decoupled look-back).
    Scan,
    /// Permute with delayed defaults: the output initialised from them (manifest defaults are a
    /// device copy instead).
    Defaults,
    /// Permute: the scatter.
    Scatter,
    /// Expand, filter, segments from lengths: the counts of each source element.
    Counts,
    /// Expand and filter: the writes, once the offsets are known.
    Write,
    /// Expand fused with permute: the scatter of every expanded element, spread over the grid
    /// by a [`Strategy`] (the host gives the threads the strategy wants).
    Spread,
    /// Filter of at most `accel_kernels::abi::COMPACT_MAX` elements: the whole filter in one
    /// block, in place of counts, offsets scan and write (`accel_kernels::expand::
    /// compact_in_block`); its offsets scratch words are `[n, total pointer, total mirror]`.
    Compact,
}

impl Role {
    /// Whether the kernel records a failure where it happens (`accel_kernels::ctx::Ctx<false>`)
    /// rather than keeping a thread's first one in registers to its end, when no closure loops
    /// ([`defers_failures`]): the kernels whose registers a carried failure was measured to
    /// crowd, the segmented walks by ranges (their reads prefetched in batches) and a permute's
    /// scatter. H200 (docs/benchmarks.md, Run 24): the CSR product's ranges walk 77 registers
    /// and no spill where it took 80 and spilled 8 bytes, its wide walk 6-13% faster, a radix
    /// sort's scatter 32 registers where it took 94 (the sort 5.4-5.9x faster). Elsewhere the
    /// branch at each check costs more: it split the rows walk's batch of a lane's loads (a
    /// product's rows walk 1.8x slower) and the loop of an expand's source per thread (2.5x).
    pub fn records_failures_at_once(self) -> bool {
        match self {
            Role::RangeReduce | Role::RangeReduceDense | Role::WideReduce | Role::Scatter => true,
            Role::Generate
            | Role::GenerateEach
            | Role::Reduce
            | Role::Finish
            | Role::RangeFinish
            | Role::Chunks
            | Role::Carries
            | Role::Scan
            | Role::Defaults
            | Role::Counts
            | Role::Write
            | Role::Spread
            | Role::Compact => false,
        }
    }

    /// The suffix of the kernel's name (see [`kernel_name`]).
    pub fn suffix(self) -> &'static str {
        match self {
            Role::Generate => "generate",
            Role::GenerateEach => "generate_each",
            Role::Reduce => "reduce",
            Role::Finish => "finish",
            Role::RangeReduce => "range_reduce",
            Role::RangeReduceDense => "range_reduce_dense",
            Role::WideReduce => "wide_reduce",
            Role::RangeFinish => "range_finish",
            Role::Chunks => "chunks",
            Role::Carries => "carries",
            Role::Scan => "scan",
            Role::Defaults => "defaults",
            Role::Scatter => "scatter",
            Role::Counts => "counts",
            Role::Write => "write",
            Role::Spread => "spread",
            Role::Compact => "compact",
        }
    }

    /// The resident blocks per multiprocessor that the kernel's PTX entry asks ptxas to allow
    /// for (`.minnctapersm`, with `.maxntid` of the block size), capping its registers; `None`
    /// for ptxas's own choice.
    pub fn blocks_per_sm(self) -> Option<u32> {
        match self {
            Role::RangeReduce => Some(accel_kernels::abi::RANGE_BLOCKS_PER_SM),
            Role::RangeReduceDense => Some(accel_kernels::abi::RANGE_DENSE_BLOCKS_PER_SM),
            Role::Scan => Some(accel_kernels::abi::SCAN_BLOCKS_PER_SM),
            Role::Generate
            | Role::GenerateEach
            | Role::Reduce
            | Role::Finish
            | Role::WideReduce
            | Role::RangeFinish
            | Role::Chunks
            | Role::Carries
            | Role::Defaults
            | Role::Scatter
            | Role::Counts
            | Role::Write
            | Role::Spread
            | Role::Compact => None,
        }
    }

    /// Every role.
    pub const ALL: [Role; 17] = [
        Role::Generate,
        Role::GenerateEach,
        Role::Reduce,
        Role::Finish,
        Role::RangeReduce,
        Role::RangeReduceDense,
        Role::WideReduce,
        Role::RangeFinish,
        Role::Chunks,
        Role::Carries,
        Role::Scan,
        Role::Defaults,
        Role::Scatter,
        Role::Counts,
        Role::Write,
        Role::Spread,
        Role::Compact,
    ];

    /// The role of the node kernel called `name` ([`kernel_name_in`]: by its suffix after the
    /// node's `_n<k>_`, the longest that matches); `None` for the module-wide kernels, whose names
    /// have no node (`accel_offsets_scan` is not a node's scan).
    pub fn of_kernel(name: &str) -> Option<Role> {
        let after_node = |rest: &str| {
            rest.strip_suffix('_')
                .and_then(|rest| rest.rsplit_once("_n"))
                .is_some_and(|(_, node)| !node.is_empty() && node.bytes().all(|b| b.is_ascii_digit()))
        };
        Role::ALL
            .into_iter()
            .filter(|r| name.strip_suffix(r.suffix()).is_some_and(after_node))
            .max_by_key(|r| r.suffix().len())
    }

    /// The threads the kernel needs for `items` items of its work: elements for the elementwise
    /// skeletons (`accel_kernels::generate`: each thread computes `GENERATE_UNROLL` of them a
    /// step, or one when each is compute-heavy) and for counts and writes (one each), chunks, rows or ranges for the reductions and
    /// scans (a warp each; the ranges' second launch takes a lane per range). The grid is then
    /// one wave of at most that many.
    pub fn threads(self, items: usize) -> usize {
        match self {
            Role::Generate | Role::Defaults | Role::Scatter => items.div_ceil(GENERATE_UNROLL),
            Role::GenerateEach | Role::Counts | Role::Write | Role::Spread | Role::RangeFinish => items,
            // One block, whatever the items.
            Role::Compact => items.min(1) * BLOCK_THREADS as usize,
            Role::Reduce
            | Role::Finish
            | Role::RangeReduce
            | Role::RangeReduceDense
            | Role::WideReduce
            | Role::Chunks
            | Role::Carries
            | Role::Scan => items.saturating_mul(WARP),
        }
    }
}

/// The elements each thread of a single-pass scan over elements of type `elem` holds
/// (`accel_kernels::scan::scan_single_pass`, tiles of `BLOCK_THREADS` times as many), or `None`
/// for elements too wide for its shared slots (more than `SCAN_SLOT / 8` scalars), whose rows
/// are scanned a warp each. The device code and the executor both size tiles by it.
pub fn single_pass_items(elem: &ElemType) -> Option<usize> {
    (elem.leaves().len() * 8 <= SCAN_SLOT).then(|| scan_items(elem.size_bytes()))
}

/// The resident blocks per multiprocessor that the PTX entry `name` asks ptxas to allow for
/// (`.minnctapersm`): a node kernel's role's ([`Role::blocks_per_sm`]), and the module-wide
/// offsets scan's, which runs the same single pass as a node's scan and is launched as a
/// [`Role::Scan`] is; `None` for ptxas's own choice.
pub fn entry_blocks_per_sm(name: &str) -> Option<u32> {
    if name == offsets_scan::SCAN {
        Role::Scan.blocks_per_sm()
    } else {
        Role::of_kernel(name).and_then(Role::blocks_per_sm)
    }
}

/// The module-wide kernel: the exclusive prefix sums of `n + 1` `usize` counts into a separate
/// offsets buffer (`[error slot, n + 1, parts, partials (length, column pointer), partial flags
/// pointer, carries (length, column pointer), carry flags pointer, counts pointer, offsets
/// pointer, total pointer, total mirror]`, a [`Scratch::Scan`] layout over a single `usize`
/// column), the last offset (the total) written also to the total's word and its host mirror
/// where they are not null, so that the host reads it without a copy: in one pass with decoupled
/// look-back when `parts > 1` (zeroed flags and ticket), else one warp from 0 (the scratch
/// unused), launched as [`Role::Scan`] is.
pub mod offsets_scan {
    pub const SCAN: &str = "accel_offsets_scan";
    /// Counts each thread holds in the single pass (the tile is `BLOCK_THREADS` times as many).
    pub const ITEMS: usize = accel_kernels::abi::scan_items(size_of::<usize>());
}

/// The module-wide kernel of the segmented reductions that walk fixed ranges of values
/// ([`Role::RangeReduce`] in either build, [`Role::WideReduce`]): the row holding the first
/// value of each range (`[segment count, total, offsets pointer, starts pointer, width]`;
/// `ranges(total, width) + 1` starts, `accel_kernels::ranges::range_starts`), a thread per range;
/// it cannot fail.
pub mod range_starts {
    pub const NAME: &str = "accel_range_starts";
}

/// How the kernel of an `expand` fused with `permute` spreads the outputs of its sources over the
/// grid (`accel_kernels::expand::spread`). The host chooses one for each run from the sizes the
/// counts kernel found ([`Strategy::select`]), unless the runtime forces one.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Strategy {
    /// One source per thread: small counts.
    Thread,
    /// One source per warp: counts up to a few hundred.
    Warp,
    /// One source per block: long counts of about the same length.
    Block,
    /// Output-balanced tiles of sources plus outputs (merge path): any distribution.
    Tiles,
}

/// What the host knows of an expansion before it spreads it: the number of sources, the total of
/// their counts and the longest count.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Sizes {
    pub sources: usize,
    pub total: usize,
    pub longest: usize,
}

impl Strategy {
    /// Every strategy, in the order of their `abi::spread` words.
    pub const ALL: [Strategy; 4] = [Strategy::Thread, Strategy::Warp, Strategy::Block, Strategy::Tiles];

    /// The strategy for an expansion of these sizes (the rule is `accel_kernels::abi::spread::
    /// select`, in one place for every side).
    pub fn select(sizes: &Sizes) -> Strategy {
        let word = accel_kernels::abi::spread::select(sizes.sources, sizes.total, sizes.longest);
        Strategy::ALL.into_iter().find(|s| s.word() == word).unwrap_or(Strategy::Tiles)
    }

    /// Whether the spread kernel of `op` (an `ExpandPermute`) under this strategy needs the
    /// offsets of the sources: the tiles strategy searches them, and closures that read the
    /// expanded index `k` need them under any strategy.
    pub fn needs_offsets(self, op: &ArrayOp) -> bool {
        self == Strategy::Tiles || reads_expanded_index(op)
    }

    /// The strategy's `accel_kernels::abi::spread` word.
    pub fn word(self) -> u64 {
        use accel_kernels::abi::spread;
        match self {
            Strategy::Thread => spread::THREAD,
            Strategy::Warp => spread::WARP,
            Strategy::Block => spread::BLOCK,
            Strategy::Tiles => spread::TILES,
        }
    }

    /// The threads the [`Role::Spread`] kernel wants under this strategy (the grid is then one
    /// wave of at most that many).
    pub fn threads(self, sizes: &Sizes) -> usize {
        let block = BLOCK_THREADS as usize;
        match self {
            Strategy::Thread => sizes.sources,
            Strategy::Warp => sizes.sources.saturating_mul(WARP),
            Strategy::Block => sizes.sources.saturating_mul(block),
            Strategy::Tiles => (sizes.sources + sizes.total).div_ceil(SPREAD_TILE).saturating_mul(block),
        }
    }

    /// The strategy a name gives (`thread`, `warp`, `block`, `tiles`), as `ACCEL_EXPAND`
    /// spells it.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The strategy's name, as [`Strategy::from_name`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Thread => "thread",
            Strategy::Warp => "warp",
            Strategy::Block => "block",
            Strategy::Tiles => "tiles",
        }
    }
}

/// Whether the closures of `op`, an `ExpandPermute`, read the index `k` of an output in the
/// expanded array (which only the offsets give).
pub fn reads_expanded_index(op: &ArrayOp) -> bool {
    let ArrayOp::ExpandPermute { target, elem, .. } = op else { return false };
    let reads = |f: &Lambda| visit::free_vars(&f.body).contains_key(&f.params[0].0.id);
    reads(target) || reads(elem)
}

/// How permute combines a source element into its destination.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PermuteCombine {
    /// `|new, old| new + old` on a number: a native atomic add (for an 8- or 16-bit integer, a
    /// compare-and-swap on its word), the output privatised per block in shared memory when it
    /// is small (`accel_kernels::atomic::permute_add`).
    Add,
    /// `min` / `max` of two 32- or 64-bit integers: a native atomic.
    Min,
    Max,
    /// Any other function of one numeric scalar, and `min` / `max` of an 8- or 16-bit integer
    /// (which has no native atomic for them): a compare-and-swap loop (on the element's aligned
    /// 32-bit word for the narrow ones). Every update of a destination retries while others
    /// change it, so a permute of many sources into a handful of destinations serialises on
    /// them.
    CompareAndSwap,
    /// Elements of several columns, or `bool`: a lock per destination.
    Lock,
}

impl Scratch {
    /// The number of words of the scratch of a skeleton that combines elements of type `elem`
    /// (partials and carries are vectors of it: a length and a column pointer per leaf).
    pub fn words(self, elem: Option<&ElemType>) -> usize {
        let vector = 1 + elem.map_or(0, |e| e.leaves().len());
        match self {
            Scratch::None => 0,
            Scratch::Reduce => 1 + vector + 5,
            Scratch::Scan => 1 + vector + 1 + vector + 1,
            Scratch::Permute => 1,
            Scratch::Offsets => 3,
            Scratch::Spread => 6,
        }
    }
}

/// What one collective node passes to its kernels, by kind; [`layout`] puts it in word order.
pub struct Interface<'a> {
    pub scratch: Scratch,
    pub host_scalars: Vec<&'a Expr>,
    /// The operands; those that are `Generate` nodes ([`as_generate`]) are delayed.
    pub operands: Vec<&'a Expr>,
    pub captures: Vec<(Var, Type)>,
}

/// One parameter of a node's kernels: what its words hold, and how many there are
/// ([`Param::words`]). [`layout`] lists them in word order; the device code generator reads the
/// words by walking that list, and the executor writes them by walking it.
#[derive(Clone, Debug)]
pub enum Param<'a> {
    /// The error slot pointer.
    ErrorSlot,
    /// A part of the node's result (the only one unless the result is a tuple), flattened.
    Output(Type),
    /// The skeleton's scratch; reductions and scans combine elements of the given type.
    Scratch(Scratch, Option<ElemType>),
    /// A scalar expression the host evaluates before the launch.
    HostScalar(&'a Expr),
    /// A collective operand that the host evaluates and the kernel reads from memory.
    Operand(&'a Expr),
    /// A delayed operand (a `Generate` node, fused form 1 of [`crate::fusion`]): only its shape,
    /// one word per dimension; the kernel computes its elements with the closure.
    Delayed(&'a Expr),
    /// A free variable of the kernel's closures.
    Capture(Var, Type),
}

impl Param<'_> {
    /// The number of words of the parameter.
    pub fn words(&self) -> usize {
        match self {
            Param::ErrorSlot => 1,
            Param::Output(t) | Param::Capture(_, t) => word_count(t),
            Param::Scratch(kind, elem) => kind.words(elem.as_ref()),
            Param::HostScalar(e) | Param::Operand(e) => word_count(&e.ty),
            Param::Delayed(e) => e.ty.as_array().map_or(0, |(_, rank)| rank),
        }
    }
}

impl std::fmt::Display for Param<'_> {
    /// What the parameter holds and its words, as plans print it: `out Vector<f32> (2 words)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Param::ErrorSlot => write!(f, "error slot")?,
            Param::Output(t) => write!(f, "out {t}")?,
            Param::Scratch(kind, None) => write!(f, "{kind:?} scratch")?,
            Param::Scratch(kind, Some(elem)) => write!(f, "{kind:?} scratch of {elem}")?,
            Param::HostScalar(e) => write!(f, "host scalar {}", e.ty)?,
            Param::Operand(e) => write!(f, "operand {}", e.ty)?,
            Param::Delayed(e) => write!(f, "delayed {}", e.ty)?,
            Param::Capture(v, t) => write!(f, "capture {} {t}", v.name)?,
        }
        match self.words() {
            1 => write!(f, " (1 word)"),
            n => write!(f, " ({n} words)"),
        }
    }
}

/// The parameters of the kernels of node `op`, whose result has type `ty`, in word order (see the
/// module documentation).
pub fn layout<'a>(op: &'a ArrayOp, ty: &Type) -> Vec<Param<'a>> {
    let iface = interface(op);
    let outputs = match ty {
        Type::Tuple(parts) => parts.clone(),
        t => vec![t.clone()],
    };
    let elem = reduced_elem(epilogue_source(op).unwrap_or(op));
    let operand = |e: &'a Expr| if as_generate(e).is_some() { Param::Delayed(e) } else { Param::Operand(e) };
    std::iter::once(Param::ErrorSlot)
        .chain(outputs.into_iter().map(Param::Output))
        .chain((iface.scratch != Scratch::None).then_some(Param::Scratch(iface.scratch, elem)))
        .chain(iface.host_scalars.into_iter().map(Param::HostScalar))
        .chain(iface.operands.into_iter().map(operand))
        .chain(iface.captures.into_iter().map(|(v, t)| Param::Capture(v, t)))
        .collect()
}

/// Whether reduction `op`, whose result has type `ty`, writes its result into a host mirror too
/// (`Scratch::Reduce`): a rank-0 result of one scalar, which the host most often reads at once;
/// reading it from the mirror after the wait saves a copy from the device.
pub fn mirrors_result(op: &ArrayOp, ty: &Type) -> bool {
    let reduction = matches!(op, ArrayOp::Fold { .. } | ArrayOp::FoldAll { .. } | ArrayOp::FoldSeg { .. });
    reduction && matches!(ty, Type::Array { elem: ElemType::Scalar(_), rank: 0 })
}

/// The element type that a reduction or scan combines (partials and carries hold it; the output
/// of an epilogue need not).
pub fn reduced_elem(op: &ArrayOp) -> Option<ElemType> {
    match op {
        ArrayOp::Fold { f, .. }
        | ArrayOp::FoldAll { f, .. }
        | ArrayOp::FoldSeg { f, .. }
        | ArrayOp::Scan { f, .. }
        | ArrayOp::ScanSeg { f, .. } => f.params[0].1.as_elem().cloned(),
        _ => None,
    }
}

/// Every collective node of a program in pre-order; a node's position is its id in kernel names.
pub fn array_nodes(program: &Program) -> Vec<&ArrayOp> {
    typed_array_nodes(program).into_iter().map(|(op, _)| op).collect()
}

/// [`array_nodes`] with the type of each node's result.
pub fn typed_array_nodes(program: &Program) -> Vec<(&ArrayOp, &Type)> {
    let mut out = Vec::new();
    visit::pre_order(&program.body, &mut |e| {
        if let ExprKind::Array(op) = &e.kind {
            out.push((&**op, &e.ty));
        }
    });
    out
}

/// For each node of [`array_nodes`], whether the host runs it: false for the nodes that fusion
/// absorbed into another node's kernels (delayed operands and reads, reductions under an
/// epilogue; see [`crate::fusion`]). Only run nodes have kernels. A `generate` among a node's
/// kernel operands ([`Interface::operands`]) is read delayed wherever it stands ([`layout`]), in
/// a delayable position or not (the operands of `concat`, say), so it is absorbed too.
pub fn launched(program: &Program) -> Vec<bool> {
    let mut absorbed: std::collections::HashSet<*const ArrayOp> = std::collections::HashSet::new();
    visit::pre_order(&program.body, &mut |e| match &e.kind {
        ExprKind::Array(op) => {
            for operand in parts(op).0.operands {
                if let Some(g) = as_generate(operand) {
                    absorbed.insert(g);
                }
            }
            if let Some(inner) = epilogue_source(op) {
                absorbed.insert(inner);
            }
        }
        ExprKind::Index { array, .. } => {
            if let Some(g) = as_generate(array) {
                absorbed.insert(g);
            }
        }
        _ => {}
    });
    array_nodes(program).into_iter().map(|op| !absorbed.contains(&(op as *const ArrayOp))).collect()
}

/// `e` as a `Generate` node, if it is one.
pub fn as_generate(e: &Expr) -> Option<&ArrayOp> {
    match &e.kind {
        ExprKind::Array(op) if matches!(**op, ArrayOp::Generate { .. }) => Some(op),
        _ => None,
    }
}

/// The reduction or scan whose results the epilogue `op` rewrites (fused form 3 of
/// [`crate::fusion`]), if `op` is one.
pub fn epilogue_source(op: &ArrayOp) -> Option<&ArrayOp> {
    let ArrayOp::Producer(Producer::IMap { a, .. }) = op else { return None };
    let ExprKind::Array(inner) = &a.kind else { return None };
    match &**inner {
        ArrayOp::Fold { .. } | ArrayOp::FoldAll { .. } | ArrayOp::FoldSeg { .. } | ArrayOp::ScanSeg { .. } => {
            Some(inner)
        }
        ArrayOp::Scan { kind, .. } if *kind != ScanKind::ExclusiveAndTotal => Some(inner),
        _ => None,
    }
}

/// The name of kernel `role` of node `node` of `program`.
pub fn kernel_name(program: &Program, node: usize, role: Role) -> String {
    kernel_name_in(&program.kernel_prefix(), node, role)
}

/// [`kernel_name`] from the program's [`Program::kernel_prefix`], which the `#[accel]` macro
/// computes at compile time (computing it hashes the whole program).
pub fn kernel_name_in(prefix: &str, node: usize, role: Role) -> String {
    format!("{}_n{node}_{}", prefix.trim_start_matches("r#"), role.suffix())
}

/// The rows a reduction folds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rows {
    /// `fold`: the innermost dimension, a result per element of the others.
    Innermost,
    /// `fold_all`: all elements, one result.
    All,
    /// `fold_seg`: the segments (operand 1) of the innermost dimension.
    Segments,
}

/// What a collective node's kernels compute: its skeleton, with what the skeleton needs of the
/// node (Futhark's SegMap / SegRed / SegScan). This is the GPU path's one decision per
/// operation: [`roles`], the device code generator and the executor all dispatch on it.
#[derive(Clone, Copy, Debug)]
pub enum Form<'a> {
    /// Each output element computed on its own (`accel_kernels::generate`).
    Elementwise,
    /// Rows of `a` folded with `f` (`accel_kernels::reduce`).
    Reduce {
        a: &'a Expr,
        rows: Rows,
        seeded: bool,
        f: &'a Lambda,
    },
    /// The innermost rows of `a`, or their segments (operand 1), scanned with `f`
    /// (`accel_kernels::scan`).
    Scan {
        a: &'a Expr,
        segmented: bool,
        dir: Direction,
        kind: ScanKind,
        seeded: bool,
        f: &'a Lambda,
    },
    /// `a`'s elements written to the places `f` gives, over `defaults` (`accel_kernels::atomic`).
    Permute {
        defaults: &'a Expr,
        f: &'a Lambda,
        combine: &'a Lambda,
        a: &'a Expr,
    },
    /// `permute` of an `expand` (fused form 4): the defaults, the counts and their offsets, then
    /// one scatter of every expanded element (`accel_kernels::expand::spread`).
    ExpandPermute {
        defaults: &'a Expr,
        combine: &'a Lambda,
    },
    /// Counts, their offsets, then the writes (`accel_kernels::expand`).
    Expand {
        count: &'a Lambda,
        value: &'a Lambda,
    },
    Filter {
        pred: &'a Lambda,
    },
    /// The offsets of segments given by their lengths: the counts alone.
    SegmentsFromLengths(&'a Expr),
    /// A producer ([`Producer`]) as the front end wrote it: no kernels of its own. The pipeline
    /// lowers every producer to a `generate` before a backend sees the program
    /// (`fusion::producers`), except an epilogue (fused form 3), whose kernels are those of the
    /// reduction or scan it rewrites ([`epilogue_source`]).
    Producer,
    /// No kernels: the host computes the node.
    Host,
}

/// The [`Form`] of `op` (for an epilogue, that of an `imap`: callers take the reduction or scan
/// it rewrites, [`epilogue_source`], where they mean its kernels).
pub fn form(op: &ArrayOp) -> Form<'_> {
    use ArrayOp::*;
    match op {
        Generate { .. } | Concat { .. } | Slice { .. } | Stencil { .. } | SegmentLengths(_) => Form::Elementwise,
        Producer(_) => Form::Producer,
        Fold { z, f, a } => Form::Reduce { a, rows: Rows::Innermost, seeded: z.is_some(), f },
        FoldAll { z, f, a } => Form::Reduce { a, rows: Rows::All, seeded: z.is_some(), f },
        FoldSeg { z, f, a, .. } => Form::Reduce { a, rows: Rows::Segments, seeded: z.is_some(), f },
        Scan { dir, kind, z, f, a } => {
            Form::Scan { a, segmented: false, dir: *dir, kind: *kind, seeded: z.is_some(), f }
        }
        ScanSeg { kind, z, f, a, .. } => {
            Form::Scan { a, segmented: true, dir: Direction::Left, kind: *kind, seeded: z.is_some(), f }
        }
        Permute { defaults, f, combine, a } => Form::Permute { defaults, f, combine, a },
        ExpandPermute { defaults, combine, .. } => Form::ExpandPermute { defaults, combine },
        Expand { count, value, .. } => Form::Expand { count, value },
        Filter { pred, .. } => Form::Filter { pred },
        SegmentsFromLengths(lengths) => Form::SegmentsFromLengths(lengths),
        Unit(_) | The(_) | Unzip(_) | Reshape { .. } | Awhile { .. } | SegmentOffsets(_) | NestedFromParts { .. } => {
            Form::Host
        }
        NestedValues(_) | NestedSegments(_) | NestedMap { .. } | Seq(_) => Form::Host,
    }
}

/// The kernels of a node, in launch order; empty for nodes the host handles alone. An epilogue
/// has the kernels of its reduction or scan. A node's run launches some of them: a reduction
/// either its own `Reduce` (and `Finish`) or one of the ranges walks (`RangeReduce` or its dense
/// build, or `WideReduce`) and `RangeFinish`.
pub fn roles(op: &ArrayOp) -> &'static [Role] {
    match form(epilogue_source(op).unwrap_or(op)) {
        Form::Elementwise if elementwise_role(op) == Role::GenerateEach => &[Role::GenerateEach],
        Form::Elementwise => &[Role::Generate],
        Form::Reduce { a, rows, .. } if walks_ranges(a, rows) => &[
            Role::Reduce,
            Role::Finish,
            Role::RangeReduce,
            Role::RangeReduceDense,
            Role::WideReduce,
            Role::RangeFinish,
        ],
        Form::Reduce { .. } => &[Role::Reduce, Role::Finish],
        // Long rows of a regular array are scanned in one pass (`SCAN` alone); segments in three.
        Form::Scan { segmented: false, .. } => &[Role::Carries, Role::Scan],
        Form::Scan { segmented: true, .. } => &[Role::Chunks, Role::Carries, Role::Scan],
        Form::Permute { defaults, .. } if as_generate(defaults).is_some() => &[Role::Defaults, Role::Scatter],
        Form::Permute { .. } => &[Role::Scatter],
        Form::ExpandPermute { defaults, .. } if as_generate(defaults).is_some() => {
            &[Role::Defaults, Role::Counts, Role::Spread]
        }
        Form::ExpandPermute { .. } => &[Role::Counts, Role::Spread],
        Form::Expand { .. } => &[Role::Counts, Role::Write],
        Form::Filter { .. } => &[Role::Counts, Role::Write, Role::Compact],
        Form::SegmentsFromLengths(_) => &[Role::Counts],
        Form::Producer | Form::Host => &[],
    }
}

/// Whether a reduction of rows `rows` of `a` may also walk ranges of values, narrow or wide (the
/// host chooses per run, `accel_kernels::abi::walk`): a segmented fold over a vector.
pub fn walks_ranges(a: &Expr, rows: Rows) -> bool {
    rows == Rows::Segments && matches!(a.ty, Type::Array { rank: 1, .. })
}

/// The parameters of a node's kernels (see the module documentation for their order).
pub fn interface(op: &ArrayOp) -> Interface<'_> {
    let (mut iface, _, lambdas) = with_closures(op);
    let mut captures = BTreeMap::new();
    for l in lambdas {
        captures.extend(visit::free_vars_of_lambda(l));
    }
    iface.captures = captures.into_values().collect();
    iface
}

/// The interface of `op` without its captures, the node whose skeleton its kernels run (the
/// reduction or scan under an epilogue, else `op`), and every closure its kernels compute: the
/// node's own, the epilogue's and those of its delayed operands.
fn with_closures(op: &ArrayOp) -> (Interface<'_>, &ArrayOp, Vec<&Lambda>) {
    let (body, epilogue) = match (epilogue_source(op), op) {
        (Some(inner), ArrayOp::Producer(Producer::IMap { f, .. })) => (inner, Some(f)),
        _ => (op, None),
    };
    let (iface, mut lambdas) = parts(body);
    lambdas.extend(epilogue);
    for a in &iface.operands {
        if let Some(ArrayOp::Generate { f, .. }) = as_generate(a) {
            lambdas.push(f);
        }
    }
    (iface, body, lambdas)
}

/// Whether the kernels of `op` can record an error in the error slot (`accel_kernels::ctx`): the
/// skeleton's own checks (a backpermute's source or a permute's destination out of range, an
/// unseeded reduction of an empty row, a negative count or length of a signed type), or a closure that indexes an
/// array or divides integers. A run none of whose kernels can fail needs no wait for the slot.
///
/// This may say yes where no error can happen (a division by a constant); it must never say no
/// where the device code has a failing path: `codegen::device` emits `__cx.fail` for the
/// skeletons listed here, and `__cx.read`/`check_index`/`div`/`rem` exactly for indexing and
/// integer division (tested against the generated code).
pub fn may_fail(op: &ArrayOp) -> bool {
    use ArrayOp::*;
    let (_, body, lambdas) = with_closures(op);
    let skeleton_checks = match body {
        // A destination out of range.
        Permute { .. } | ExpandPermute { .. } => true,
        // Counts and lengths of a signed type are checked for being negative.
        Expand { count, .. } => {
            count.result_type().as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_signed)
        }
        SegmentsFromLengths(l) => l.ty.as_array().and_then(|(e, _)| e.as_scalar()).is_some_and(ScalarType::is_signed),
        Fold { z, .. } | FoldAll { z, .. } | FoldSeg { z, .. } => z.is_none(),
        Generate { .. } | Producer(_) | Scan { .. } | ScanSeg { .. } | Filter { .. } | SegmentLengths(_) => false,
        Stencil { .. } | Concat { .. } | Slice { .. } => false,
        Unit(_) | The(_) | Unzip(_) | Reshape { .. } | Awhile { .. } | SegmentOffsets(_) | NestedFromParts { .. } => {
            false
        }
        NestedValues(_) | NestedSegments(_) | NestedMap { .. } | Seq(_) => false,
    };
    skeleton_checks || lambdas.iter().any(|l| closure_may_fail(&l.body))
}

/// Whether `op`'s kernel `role` keeps a thread's first failure in registers until its end
/// (`accel_kernels::ctx::Ctx<true>`) instead of recording each failure where it happens: unless
/// the role records at once ([`Role::records_failures_at_once`]) and no closure loops (`iterate`,
/// `while_loop`), where a branch at each checked operation of every round would split the loop.
pub fn defers_failures(op: &ArrayOp, role: Role) -> bool {
    let (_, _, lambdas) = with_closures(op);
    let loops = lambdas.iter().any(|l| {
        let mut loops = false;
        visit::pre_order(&l.body, &mut |e| loops |= is_scalar_loop(e));
        loops
    });
    !role.records_failures_at_once() || loops
}

/// Whether `e` is a scalar loop (`iterate`, `while_loop`).
fn is_scalar_loop(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Iterate { .. } | ExprKind::WhileLoop { .. })
}

/// Whether scalar code compiled into a kernel has a failing path: an index, or an integer
/// division or remainder.
fn closure_may_fail(e: &Expr) -> bool {
    let mut fails = false;
    visit::pre_order(e, &mut |e| {
        fails |= match &e.kind {
            // An elementwise read is unchecked, unless it reads a delayed array; a flattened one
            // is unchecked always.
            ExprKind::Index { array, site, .. } => match site {
                ReadSite::Index | ReadSite::Source(_) | ReadSite::SourcePartly { .. } | ReadSite::Backpermute => true,
                ReadSite::Elementwise => as_generate(array).is_some(),
                ReadSite::Flattened => false,
            },
            ExprKind::Binary(op, a, _) if op.is_division() => {
                a.ty.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_integer)
            }
            _ => false,
        }
    });
    fails
}

/// Whether any kernel of `program` can record an error ([`may_fail`] of each launched node).
pub fn program_may_fail(program: &Program) -> bool {
    array_nodes(program).into_iter().zip(launched(program)).any(|(op, launched)| launched && may_fail(op))
}

/// The interface of a node that is not an epilogue, without its captures, and its closures.
fn parts(op: &ArrayOp) -> (Interface<'_>, Vec<&Lambda>) {
    use ArrayOp::*;
    let mut lambdas: Vec<&Lambda> = Vec::new();
    let mut host_scalars: Vec<&Expr> = Vec::new();
    let (scratch, operands): (Scratch, Vec<&Expr>) = match op {
        Generate { f, .. } => {
            lambdas.push(f);
            (Scratch::None, vec![])
        }
        Fold { z, f, a } | FoldAll { z, f, a } => {
            lambdas.push(f);
            host_scalars.extend(z);
            (Scratch::Reduce, vec![a])
        }
        FoldSeg { z, f, a, segments } => {
            lambdas.push(f);
            host_scalars.extend(z);
            (Scratch::Reduce, vec![a, segments])
        }
        Scan { z, f, a, .. } => {
            lambdas.push(f);
            host_scalars.extend(z);
            (Scratch::Scan, vec![a])
        }
        ScanSeg { z, f, a, segments, .. } => {
            lambdas.push(f);
            host_scalars.extend(z);
            (Scratch::Scan, vec![a, segments])
        }
        Permute { defaults, f, combine, a } => {
            lambdas.push(f);
            lambdas.push(combine);
            // Manifest defaults are copied by the host, delayed ones computed by a kernel.
            let delayed = as_generate(defaults).is_some().then_some(defaults);
            (Scratch::Permute, [a].into_iter().chain(delayed).collect())
        }
        Slice { index, a, .. } => {
            host_scalars.push(index);
            (Scratch::None, vec![a])
        }
        Concat { a, b } => (Scratch::None, vec![a, b]),
        Stencil { boundary, f, a, .. } => {
            lambdas.push(f);
            if let Boundary::Constant(v) = boundary {
                host_scalars.push(v);
            }
            (Scratch::None, vec![a])
        }
        ExpandPermute { defaults, count, value, a, target, elem, combine } => {
            lambdas.extend([count, value, target, elem, combine]);
            // As for `permute`: delayed defaults are an operand, after the source.
            let delayed = as_generate(defaults).is_some().then_some(defaults);
            (Scratch::Spread, [a].into_iter().chain(delayed).collect())
        }
        Expand { count, value, a } => {
            lambdas.push(count);
            lambdas.push(value);
            (Scratch::Offsets, vec![a])
        }
        Filter { pred, a } => {
            lambdas.push(pred);
            (Scratch::Offsets, vec![a])
        }
        SegmentsFromLengths(l) => (Scratch::Offsets, vec![l]),
        SegmentLengths(s) => (Scratch::None, vec![s]),
        // Producers before their lowering and host operations: no kernels (see `roles`).
        Producer(_)
        | Unit(_)
        | The(_)
        | Unzip(_)
        | Reshape { .. }
        | Awhile { .. }
        | SegmentOffsets(_)
        | NestedFromParts { .. } => (Scratch::None, vec![]),
        NestedValues(_) | NestedSegments(_) | NestedMap { .. } | Seq(_) => (Scratch::None, vec![]),
    };
    (Interface { scratch, host_scalars, operands, captures: Vec::new() }, lambdas)
}

/// The output kind of a scan node.
pub fn scan_kind(op: &ArrayOp) -> Option<ScanKind> {
    match op {
        ArrayOp::Scan { kind, .. } | ArrayOp::ScanSeg { kind, .. } => Some(*kind),
        _ => None,
    }
}

/// How a permute node combines (see [`PermuteCombine`]).
pub fn permute_combine(combine: &Lambda) -> PermuteCombine {
    let Some(ElemType::Scalar(s)) = combine.params[0].1.as_elem() else { return PermuteCombine::Lock };
    if *s == ScalarType::Bool {
        return PermuteCombine::Lock;
    }
    let (new, old) = (&combine.params[0].0, &combine.params[1].0);
    let is = |e: &Expr, v: &Var| matches!(&e.kind, ExprKind::Var(x) if x.id == v.id);
    let both = |a: &Expr, b: &Expr| (is(a, new) && is(b, old)) || (is(a, old) && is(b, new));
    // The 8- and 16-bit integers have no native atomic min or max.
    let native_min_max = !s.is_float() && s.size_bytes() >= 4;
    match &combine.body.kind {
        ExprKind::Binary(BinaryOp::Add, a, b) if both(a, b) => PermuteCombine::Add,
        ExprKind::Math(MathFn::Min, args) if native_min_max && both(&args[0], &args[1]) => PermuteCombine::Min,
        ExprKind::Math(MathFn::Max, args) if native_min_max && both(&args[0], &args[1]) => PermuteCombine::Max,
        _ => PermuteCombine::CompareAndSwap,
    }
}

/// Whether `f(a, b) == f(b, a)` for all `a`, `b`, recognised syntactically: after inlining `let`s
/// and projections of the parameters, the body is built from `+`, `*`, `&`, `|`, `^` (any
/// scalar), integer `min`/`max`, tuples, constants and the parameters, and swapping the two
/// parameters gives the same expression up to the order of the operands of those operators.
/// Reductions with such an operator may fold in any order (`accel_kernels::reduce`'s striped
/// skeleton); every other operator keeps scan order.
pub fn is_commutative(f: &Lambda) -> bool {
    let [(a, _), (b, _)] = &f.params[..] else { return false };
    let canonical = |first: u32, second: u32| {
        let params = vec![(first, Canon::Param(0, Vec::new())), (second, Canon::Param(1, Vec::new()))];
        canon(&f.body, &mut params.clone())
    };
    match (canonical(a.id, b.id), canonical(b.id, a.id)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// An expression over the two parameters, in a form where commutative operands are sorted.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Canon {
    /// Parameter `k`, projected through the path.
    Param(u8, Vec<usize>),
    Const(String),
    Tuple(Vec<Canon>),
    /// A commutative operator and its sorted operands.
    Op(String, Vec<Canon>),
}

/// `e` in canonical form, where `env` maps variables to their values; `None` for anything else
/// than what [`is_commutative`] lists.
fn canon(e: &Expr, env: &mut Vec<(u32, Canon)>) -> Option<Canon> {
    let commutative = |name: String, x: &Expr, y: &Expr, env: &mut Vec<(u32, Canon)>| {
        let mut operands = vec![canon(x, env)?, canon(y, env)?];
        operands.sort();
        Some(Canon::Op(name, operands))
    };
    match &e.kind {
        ExprKind::Var(v) => env.iter().rev().find(|(id, _)| *id == v.id).map(|(_, c)| c.clone()),
        ExprKind::Const(c) => Some(Canon::Const(format!("{c:?}"))),
        ExprKind::Let { var, value, body } => {
            let value = canon(value, env)?;
            env.push((var.id, value));
            let body = canon(body, env);
            env.pop();
            body
        }
        ExprKind::Tuple(parts) => parts.iter().map(|p| canon(p, env)).collect::<Option<_>>().map(Canon::Tuple),
        ExprKind::Proj(x, k) => match canon(x, env)? {
            Canon::Param(p, mut path) => {
                path.push(*k);
                Some(Canon::Param(p, path))
            }
            Canon::Tuple(mut parts) if *k < parts.len() => Some(parts.swap_remove(*k)),
            _ => None,
        },
        ExprKind::Binary(
            op @ (BinaryOp::Add | BinaryOp::Mul | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor),
            x,
            y,
        ) => commutative(format!("{op:?}"), x, y, env),
        ExprKind::Math(f @ (MathFn::Min | MathFn::Max), args)
            if args.len() == 2 && e.ty.as_elem().is_some_and(|t| matches!(t, ElemType::Scalar(s) if !s.is_float())) =>
        {
            commutative(format!("{f:?}"), &args[0], &args[1], env)
        }
        _ => None,
    }
}

/// The number of words a value of type `t` flattens to.
pub fn word_count(t: &Type) -> usize {
    match t {
        Type::Elem(e) => e.leaves().len(),
        Type::Array { elem, rank } => rank + elem.leaves().len(),
        Type::Segments => 3,
        Type::Nested(e) => 3 + 1 + e.leaves().len(),
        Type::Tuple(ts) => ts.iter().map(word_count).sum(),
        Type::Seq(_) => 0,
    }
}

/// Whether an elementwise node's element costs more arithmetic than memory traffic: it calls a
/// transcendental function or runs a scalar loop (`iterate`, `while_loop`), itself or in a fused
/// operand.
pub fn is_compute_heavy(op: &ArrayOp) -> bool {
    let mut heavy = false;
    visit::for_each_operand(op, &mut |child, _, _| {
        visit::pre_order(child, &mut |e| {
            heavy |= matches!(&e.kind, ExprKind::Math(f, _) if f.is_transcendental()) || is_scalar_loop(e);
        })
    });
    heavy
}

/// The kernel of an elementwise node (`Form::Elementwise`): a compute-heavy element runs one per
/// thread (`accel_kernels::generate::generate_each`, [`Role::GenerateEach`]), so that four such
/// elements in flight take no registers from the threads that hide their latency, and a small
/// array of them (a thousand bodies of an N-body step) still spreads over the whole GPU; other
/// elements four per thread ([`Role::Generate`]). 2-D stencils have a skeleton of their own and
/// keep [`Role::Generate`].
pub fn elementwise_role(op: &ArrayOp) -> Role {
    let stencil_2d = matches!(op, ArrayOp::Stencil { shape, .. } if shape.rank() == 2);
    if !stencil_2d && is_compute_heavy(op) { Role::GenerateEach } else { Role::Generate }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn program(src: &str) -> Program {
        crate::frontend::lower(&syn::parse_str(src).expect("a function")).expect("a valid program")
    }

    #[test]
    fn compute_heavy_elements_run_one_per_thread() {
        let role = |src| {
            let p = crate::pipeline::optimise(&program(src), crate::pipeline::Options::default());
            let node = array_nodes(&p)[0];
            assert_eq!(roles(node), [elementwise_role(node)]);
            elementwise_role(node)
        };
        assert_eq!(role("fn f(xs: Vector<f32>) -> Vector<f32> { xs.map(|x| x * 2.0) }"), Role::Generate);
        assert_eq!(role("fn f(xs: Vector<f32>) -> Vector<f32> { xs.map(|x| x.exp()) }"), Role::GenerateEach);
        let loop_ = "fn f(xs: Vector<u32>) -> Vector<u32> { xs.map(|x| iterate(x as usize, 0u32, |s| s + 1)) }";
        assert_eq!(role(loop_), Role::GenerateEach);
        let read_loop = "fn f(xs: Vector<f32>) -> Vector<f32> { \
            generate(xs.len(), |i| while_loop((0usize, 0.0f32), |s| s.0 < xs.len(), |s| (s.0 + 1, s.1 + xs[s.0])).1) }";
        assert_eq!(role(read_loop), Role::GenerateEach);
        // A 2-D stencil keeps its skeleton, whatever its element.
        let stencil = "fn f(m: Matrix<f32>) -> Matrix<f32> { \
            m.stencil3x3(Boundary::Clamp, |n| (n[1][1] + n[0][1]).exp()) }";
        assert_eq!(role(stencil), Role::Generate);
        assert_eq!(Role::GenerateEach.threads(1000), 1000);
        assert_eq!(Role::of_kernel("f_0123_n0_generate_each"), Some(Role::GenerateEach));
        assert_eq!(Role::of_kernel("f_0123_n0_generate"), Some(Role::Generate));
    }

    #[test]
    fn single_pass_tiles_follow_the_element_and_stop_at_wide_ones() {
        let scalar = |s| ElemType::Scalar(s);
        assert_eq!(single_pass_items(&scalar(ScalarType::F32)), Some(32));
        assert_eq!(single_pass_items(&scalar(ScalarType::U8)), Some(32));
        assert_eq!(single_pass_items(&ElemType::Tuple(vec![scalar(ScalarType::F64); 2])), Some(8));
        assert_eq!(accel_kernels::abi::single_pass_tile(32), 8192);
        // 32 scalars fit the block's shared slots, 33 do not: their rows take a warp each.
        let tuple = |e: ElemType, n| ElemType::Tuple(vec![e; n]);
        let thirty_two = tuple(tuple(tuple(scalar(ScalarType::U8), 4), 4), 2);
        assert_eq!(single_pass_items(&thirty_two), Some(4));
        assert_eq!(single_pass_items(&ElemType::Tuple(vec![thirty_two, scalar(ScalarType::U8)])), None);
        let padded = tuple(ElemType::Tuple(vec![scalar(ScalarType::U8), scalar(ScalarType::F64)]), 6);
        assert_eq!(single_pass_items(&padded), Some(2));
        assert_eq!(offsets_scan::ITEMS, 16);
    }

    #[test]
    fn only_tiles_and_closures_that_read_the_expanded_index_need_offsets() {
        let fused = |src: &str| crate::pipeline::optimise(&program(src), crate::pipeline::Options::default());
        let node = |p: &Program| {
            array_nodes(p).into_iter().find(|op| matches!(op, ArrayOp::ExpandPermute { .. })).cloned().expect("fused")
        };
        // The target reads the expanded element only: its index is not needed.
        let by_element = fused(
            "fn f(xs: Vector<u32>, n: usize) -> Vector<u32> { let e = xs.expand(|x| x % 4, |x, j| x + j as u32); e.map(|_| 1u32).permute(fill(n, 0u32), |i| Some(e[i] as usize % n), |a, b| a + b) }",
        );
        let by_index = fused(
            "fn f(xs: Vector<u32>, n: usize) -> Vector<u32> { let e = xs.expand(|x| x % 4, |x, j| x + j as u32); e.permute(fill(n, 0u32), |i| Some(i % n), |a, b| a + b) }",
        );
        let (element, index) = (node(&by_element), node(&by_index));
        for s in Strategy::ALL {
            assert_eq!(s.needs_offsets(&element), s == Strategy::Tiles, "{s:?}");
            assert!(s.needs_offsets(&index), "{s:?}");
            assert_eq!(Strategy::from_name(s.name()), Some(s));
        }
        let sizes = Sizes { sources: 1 << 20, total: 5 << 20, longest: 10 };
        assert_eq!(Strategy::select(&sizes), Strategy::Thread);
        assert_eq!(Strategy::Tiles.threads(&Sizes { sources: 10, total: 4086, longest: 4000 }), 4 * 256);
    }

    /// `program` with every `let`-bound `generate` substituted into the uses of its variable:
    /// its reads become delayed reads and its operands delayed operands, as fusion leaves them.
    pub(crate) fn inline_generates(program: &Program) -> Program {
        use serde_json::Value;
        fn subst(e: &mut Value, id: &Value, by: &Value) {
            if e.pointer("/kind/Var/id") == Some(id) {
                *e = by.clone();
            } else if let Value::Object(m) = e {
                m.values_mut().for_each(|c| subst(c, id, by));
            } else if let Value::Array(a) = e {
                a.iter_mut().for_each(|c| subst(c, id, by));
            }
        }
        fn inline(e: &mut Value) {
            if let Value::Object(m) = e {
                m.values_mut().for_each(inline);
            } else if let Value::Array(a) = e {
                a.iter_mut().for_each(inline);
            }
            if let Some(l) = e.pointer("/kind/Let")
                && l.pointer("/value/kind/Array/Generate").is_some()
            {
                let (id, value, mut body) = (l["var"]["id"].clone(), l["value"].clone(), l["body"].clone());
                subst(&mut body, &id, &value);
                *e = body;
            }
        }
        let mut json = serde_json::to_value(program).expect("serialisable");
        inline(&mut json);
        serde_json::from_value(json).expect("still a program")
    }

    /// The combining function of the program's only reduction.
    fn reduction_operator(src: &str) -> Lambda {
        let p = program(src);
        array_nodes(&p)
            .into_iter()
            .find_map(|op| match op {
                ArrayOp::Fold { f, .. } | ArrayOp::FoldAll { f, .. } | ArrayOp::FoldSeg { f, .. } => Some(f.clone()),
                _ => None,
            })
            .expect("a reduction")
    }

    #[test]
    fn commutative_operators_are_recognised_and_others_are_not() {
        let of = |t: &str, f: &str| {
            let src = format!("fn r(xs: Vector<{t}>) -> Scalar<{t}> {{ xs.fold_all(xs[0], {f}) }}");
            is_commutative(&reduction_operator(&src))
        };
        for (t, f) in [
            ("f32", "|a, b| a + b"),
            ("f32", "|a, b| b + a"),
            ("f64", "|a, b| a * b + 1.0"),
            ("i32", "|a, b| a.max(b)"),
            ("u32", "|a, b| (a ^ b) | (b & a)"),
            ("(f32, i32)", "|a, b| (a.0 + b.0, a.1.min(b.1))"),
            ("(f32, f32)", "|(x, y), (u, v)| (x + u, v + y)"),
        ] {
            assert!(of(t, f), "{t}: {f} is commutative");
        }
        for (t, f) in [
            ("f32", "|a, b| a - b"),
            ("f32", "|a, b| a"),
            ("f32", "|a, b| a.max(b)"),
            ("i32", "|a, b| a * 2 + b"),
            ("(f32, f32)", "|a, b| (a.0 + b.0, a.1)"),
            ("(f32, f32)", "|a, b| (a.0 + b.1, a.1 + b.0)"),
            ("i32", "|a, b| if a < b { a } else { b }"),
        ] {
            assert!(!of(t, f), "{t}: {f} is not recognised as commutative");
        }
    }

    #[test]
    fn roles_set_the_launch_geometry() {
        assert_eq!(Role::Generate.threads(1000), 1000_usize.div_ceil(GENERATE_UNROLL));
        assert_eq!(Role::Scatter.threads(1), 1);
        assert_eq!(Role::Counts.threads(1000), 1000);
        assert_eq!(Role::Reduce.threads(8), 8 * WARP);
        assert_eq!((Role::RangeReduce.threads(8), Role::RangeFinish.threads(8)), (8 * WARP, 8));
        assert_eq!(Role::RangeReduceDense.threads(8), Role::RangeReduce.threads(8));
        assert_eq!(Role::Scan.threads(usize::MAX), usize::MAX);
        assert!([Role::Generate, Role::Write, Role::Finish].iter().all(|r| r.threads(0) == 0));
        let suffixes: std::collections::HashSet<_> = Role::ALL.iter().map(|r| r.suffix()).collect();
        assert_eq!(suffixes.len(), Role::ALL.len(), "every role names its kernel apart");
        for role in Role::ALL {
            assert_eq!(Role::of_kernel(&kernel_name_in("f_0123", 7, role)), Some(role), "{role:?}");
        }
        assert_eq!(Role::of_kernel(range_starts::NAME), None);
        assert_eq!(Role::of_kernel(offsets_scan::SCAN), None);
        assert_eq!(Role::of_kernel("f_0123_nx_scan"), None);
    }

    #[test]
    fn layouts_list_the_words_in_order() {
        let p = crate::pipeline::optimise(
            &program(
                "fn f(xs: Vector<f32>, m: Matrix<(f32, i32)>, k: f32) -> (Scalar<f64>, Matrix<f32>) {
                     let g = generate(xs.len(), |i| xs[i] * k);
                     (g.fold_all(1.0, |a, b| a + b).map(|s| s as f64), m.map(|(a, b)| a * (b as f32) + k))
                 }",
            ),
            crate::pipeline::Options::default(),
        );
        let kinds = |id: usize| {
            let (op, ty) = typed_array_nodes(&p)[id];
            layout(op, ty)
                .iter()
                .map(|param| {
                    let kind = match param {
                        Param::ErrorSlot => "slot".to_string(),
                        Param::Output(t) => format!("out {t}"),
                        Param::Scratch(kind, elem) => format!("{kind:?} of {elem:?}"),
                        Param::HostScalar(e) => format!("scalar {}", e.ty),
                        Param::Operand(e) => format!("operand {}", e.ty),
                        Param::Delayed(e) => format!("delayed {}", e.ty),
                        Param::Capture(v, t) => format!("{} {t}", v.name),
                    };
                    format!("{kind}: {}", param.words())
                })
                .collect::<Vec<_>>()
        };
        let nodes = array_nodes(&p);
        let epilogue = nodes.iter().position(|op| epilogue_source(op).is_some()).expect("an epilogue");
        // Fusion made the map over the matrix a launched generate, which reads it as a capture.
        let matrix_map = launched(&p).iter().rposition(|&l| l).expect("a launched node");
        assert!(matches!(nodes[matrix_map], ArrayOp::Generate { .. }));
        // The epilogue runs the reduction: its output, the reduction's scratch (partials of the
        // combined f32, not the f64 written) and seed, the delayed operand, every capture.
        assert_eq!(
            kinds(epilogue),
            [
                "slot: 1",
                "out Scalar<f64>: 1",
                "Reduce of Some(Scalar(F32)): 8",
                "scalar f32: 1",
                "delayed Vector<f32>: 1",
                "xs Vector<f32>: 2",
                "k f32: 1",
            ]
        );
        assert_eq!(kinds(matrix_map), ["slot: 1", "out Matrix<f32>: 3", "m Matrix<(f32, i32)>: 4", "k f32: 1"]);
    }

    fn capture_names(op: &ArrayOp) -> Vec<String> {
        interface(op).captures.iter().map(|(v, _)| v.name.clone()).collect()
    }

    #[test]
    fn a_delayed_operand_is_absorbed_and_its_closure_captured() {
        let p = program(
            "fn dot(xs: Vector<f32>, ys: Vector<f32>, a: f32) -> Scalar<f32> {
                 generate(xs.len(), |i| a * xs[i] * ys[i]).sum()
             }",
        );
        let nodes = array_nodes(&p);
        assert!(matches!(nodes[..], [ArrayOp::Fold { .. }, ArrayOp::Generate { .. }]));
        assert_eq!(launched(&p), [true, false]);
        let iface = interface(nodes[0]);
        assert_eq!(iface.scratch, Scratch::Reduce);
        assert_eq!(iface.host_scalars.len(), 1, "the seed");
        assert!(matches!(iface.operands[..], [a] if as_generate(a).is_some()));
        assert_eq!(capture_names(nodes[0]), ["xs", "ys", "a"]);
        assert_eq!(roles(nodes[0]), [Role::Reduce, Role::Finish]);
    }

    #[test]
    fn an_epilogue_has_its_reductions_kernels_and_words() {
        let p = program(
            "fn mean(xs: Vector<f32>, k: f64) -> Scalar<f64> {
                 let n = xs.len() as f64;
                 generate(xs.len(), |i| xs[i] * 2.0).sum().imap(|_, s| (s as f64) / n + k)
             }",
        );
        let nodes = array_nodes(&p);
        assert!(matches!(
            nodes[..],
            [ArrayOp::Producer(Producer::IMap { .. }), ArrayOp::Fold { .. }, ArrayOp::Generate { .. }]
        ));
        assert_eq!(launched(&p), [true, false, false]);
        assert!(std::ptr::eq(epilogue_source(nodes[0]).unwrap(), nodes[1]));
        assert_eq!(roles(nodes[0]), roles(nodes[1]));
        let (outer, inner) = (interface(nodes[0]), interface(nodes[1]));
        assert_eq!(outer.scratch, Scratch::Reduce);
        assert_eq!(outer.host_scalars, inner.host_scalars);
        assert_eq!(outer.operands, inner.operands);
        assert_eq!(capture_names(nodes[0]), ["xs", "k", "n"]);
        assert_eq!(capture_names(nodes[1]), ["xs"]);

        let scan = program(
            "fn s(xs: Vector<i32>) -> Vector<i64> { xs.scanl1(|a, b| a + b).imap(|i, s| (s as i64) * (i as i64)) }",
        );
        let nodes = array_nodes(&scan);
        assert_eq!(launched(&scan), [true, false]);
        assert_eq!(roles(nodes[0]), [Role::Carries, Role::Scan]);
        assert_eq!(interface(nodes[0]).scratch, Scratch::Scan);
        // scanl_total has two results: never an epilogue.
        let total = program(
            "fn t(xs: Vector<i32>) -> Vector<i32> { let (s, t) = xs.scanl_total(0, |a, b| a + b); s.imap(|i, x| x) }",
        );
        assert!(launched(&total).iter().all(|&l| l));
    }

    #[test]
    fn delayed_defaults_are_an_operand_with_their_own_kernel() {
        let p = program(
            "fn perm(xs: Vector<f32>, dst: Vector<usize>, n: usize, c: f32) -> Vector<f32> {
                 generate(xs.len(), |i| xs[i] * c).permute(generate(n, |i| i as f32 + c), |i| dst[i], |a, b| a + b)
             }",
        );
        let nodes = array_nodes(&p);
        assert_eq!(launched(&p), [true, false, false]);
        assert_eq!(roles(nodes[0]), [Role::Defaults, Role::Scatter]);
        let iface = interface(nodes[0]);
        assert_eq!(iface.operands.len(), 2, "the source, then the defaults");
        assert!(iface.operands.iter().all(|a| as_generate(a).is_some()));
        // `n` only sizes the defaults: the host evaluates it.
        assert_eq!(capture_names(nodes[0]), ["xs", "dst", "c"]);

        let manifest = program(
            "fn perm(xs: Vector<f32>, dst: Vector<usize>, n: usize) -> Vector<f32> {
                 xs.permute(fill(n, 0.0f32), |i| dst[i], |a, b| a + b)
             }",
        );
        let nodes = array_nodes(&manifest);
        assert_eq!(roles(nodes[0]), [Role::Scatter]);
        assert_eq!(interface(nodes[0]).operands.len(), 1);
        assert_eq!(launched(&manifest), [true, true], "fill is no delayed array");
    }

    #[test]
    fn a_delayed_read_is_absorbed_and_its_free_variables_captured() {
        let p = inline_generates(&program(
            "fn rd(xs: Vector<f32>, n: usize, c: f32) -> Vector<f32> {
                 let g = generate(n, |i| i as f32 * c);
                 generate(xs.len(), |i| xs[i] + g[3])
             }",
        ));
        let nodes = array_nodes(&p);
        assert!(matches!(nodes[..], [ArrayOp::Generate { .. }, ArrayOp::Generate { .. }]));
        assert_eq!(launched(&p), [true, false]);
        // The shape is checked on the device, so `n` is captured too.
        assert_eq!(capture_names(nodes[0]), ["xs", "n", "c"]);
    }

    #[test]
    fn a_generate_read_delayed_outside_a_delayable_position_is_not_launched() {
        let p = program("fn c(xs: Vector<f32>, n: usize) -> Vector<f32> { generate(n, |i| i as f32).concat(xs) }");
        assert!(matches!(array_nodes(&p)[..], [ArrayOp::Concat { .. }, ArrayOp::Generate { .. }]));
        assert_eq!(launched(&p), [true, false]);
        let (op, ty) = typed_array_nodes(&p)[0];
        assert!(matches!(
            layout(op, ty)[..],
            [Param::ErrorSlot, Param::Output(_), Param::Delayed(_), Param::Operand(_)]
        ));
    }

    #[test]
    fn unzip_has_no_kernels() {
        let p = program("fn uz(xs: Vector<(f32, i32)>) -> (Vector<f32>, Vector<i32>) { xs.unzip() }");
        let nodes = array_nodes(&p);
        assert!(matches!(nodes[..], [ArrayOp::Unzip(_)]));
        assert!(roles(nodes[0]).is_empty());
    }
}
