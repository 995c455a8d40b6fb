//! Scans (`accel_kernels::scan`): the long rows of a regular array in one pass with decoupled
//! look-back, segments in three phases (chunk totals, carries, the scan); and the module-wide
//! offsets scan of `expand`, `filter` and segments from lengths.

use super::{Call, Exec, Flags, Split, check_cover};
use crate::cuda::DeviceBuffer;
use crate::cuda::value::DValue;
use accel_core::ir::ScanKind;
use accel_core::kernel::{self, offsets_scan};
use accel_core::kernel::{Role, Scratch};
use accel_core::types::{ElemType, ScalarType, Type};
use accel_core::{Error, Result};
use accel_kernels::abi::{BLOCK_THREADS, TILE, WARP, single_pass_tile};

/// The warps of the single pass's launch: a block of them per tile (the kernel claims the tiles
/// in order, so a smaller grid of resident blocks takes them all), given to `Role::Scan`, whose
/// threads are a warp per item as for the other scans.
fn single_pass_warps(tiles: usize) -> usize {
    tiles.saturating_mul(BLOCK_THREADS as usize / WARP)
}

impl Exec<'_> {
    /// Runs a scan of `kind` over the innermost dimension, or over
    /// its segments (operand 1) if `segmented`; its result has type `ty`.
    pub(super) fn scan(&mut self, call: &Call, segmented: bool, kind: ScanKind, ty: &Type) -> Result<DValue> {
        let name = call.name;
        let a_shape = call.shape_of(0)?;
        let a_len = call.len_of(0)?;
        let rank = a_shape.len();
        let last = a_shape[rank - 1];
        let outer: usize = a_shape[..rank - 1].iter().product();
        let (rows, avg_len, extra) = if segmented {
            let s = call.segs(1)?;
            check_cover(name, s.total, last)?;
            let rows = outer * s.count;
            (rows, a_len.checked_div(rows).unwrap_or(0), s.count)
        } else {
            (outer, last, 1)
        };
        let mut shape = a_shape.clone();
        if kind == ScanKind::WithSeed {
            shape[rank - 1] =
                last.checked_add(extra).ok_or_else(|| Error::invalid_argument(name, "the result is too large"))?;
        }
        let elem = call.combined()?.clone();
        let items = kernel::single_pass_items(&elem);
        let (out, totals) = match kind {
            ScanKind::ExclusiveAndTotal => {
                (self.alloc_array(&elem, shape)?, Some(self.alloc_array(&elem, a_shape[..rank - 1].to_vec())?))
            }
            _ => (self.alloc_array(&call.out_elem(ty)?, shape)?, None),
        };
        let uniform = !segmented;
        let phase1 = self.kernel(call.id, if uniform { Role::Scan } else { Role::Chunks })?;
        // Parts down to a tile: a scan's parts meet through their carries, not a ticket.
        let mut split = self.split(phase1, rows, avg_len, TILE);
        // Rows of a regular array: the scan kernel alone, in one pass over tiles that a block
        // holds in registers (`accel_kernels::scan::scan_single_pass`), when a row has several
        // and its elements fit the pass; else one warp per row from its seed.
        let tiles_per_row = items.map_or(1, |items| last.div_ceil(single_pass_tile(items)));
        let single_pass = uniform
            && split.parts > 1
            && tiles_per_row > 1
            && rows.checked_mul(tiles_per_row).is_some_and(|c| c <= u32::MAX as usize);
        if uniform {
            split.parts = if single_pass { tiles_per_row } else { 1 };
        }
        let (scratch, _keep) = self.scratch(&elem, &split, if single_pass { Flags::Zeroed } else { Flags::Any })?;
        let outputs: Vec<_> = std::iter::once(&out).chain(&totals).collect();
        let w = call.words(&outputs, &scratch);
        if !single_pass {
            if split.parts > 1 {
                self.launch(call.id, Role::Chunks, split.rows * split.parts, &w)?;
            }
            self.launch(call.id, Role::Carries, split.rows, &w)?;
        }
        let tiles = split.rows * split.parts;
        self.launch(call.id, Role::Scan, if single_pass { single_pass_warps(tiles) } else { tiles }, &w)?;
        Ok(match totals {
            Some(t) => DValue::Tuple(vec![DValue::Array(out), DValue::Array(t)]),
            None => DValue::Array(out),
        })
    }

    /// `offsets[i] = counts[0] + .. + counts[i - 1]` for `i < n`, with the module's scan kernel:
    /// one pass with decoupled look-back over several chunks, else one warp. The last offset is
    /// written to `total` too, a one-word block and its host mirror if it has one
    /// ([`Stream::alloc_mirrored`](crate::cuda::Stream::alloc_mirrored)), where the host reads it
    /// after its wait without a copy.
    pub(super) fn offsets_scan(
        &self,
        counts: &DeviceBuffer,
        offsets: &DeviceBuffer,
        n: usize,
        total: Option<&DeviceBuffer>,
    ) -> Result<()> {
        let tile = single_pass_tile(offsets_scan::ITEMS);
        let chunks = n.div_ceil(tile);
        let parts = if n > tile && chunks <= u32::MAX as usize { chunks } else { 1 };
        let elem = ElemType::Scalar(ScalarType::Usize);
        let (scratch, _keep) = if parts > 1 {
            self.scratch(&elem, &Split { rows: 1, parts }, Flags::Zeroed)?
        } else {
            // One part, which the kernel scans from 0 without reading the rest of its scratch.
            let mut words = vec![0; Scratch::Scan.words(Some(&elem))];
            words[0] = 1;
            (words, Vec::new())
        };
        let mut w = vec![self.slot_address(), n as u64];
        w.extend(&scratch);
        w.extend([counts.ptr(), offsets.ptr()]);
        w.extend(total.map_or([0, 0], |t| [t.ptr(), t.mirror_address()]));
        let k = self.prepared.offsets_scan(self.gpu)?;
        let threads = Role::Scan.threads(if parts > 1 { single_pass_warps(parts) } else { 1 });
        self.gpu.launch(k, self.gpu.resident_grid(k, threads), &w)
    }
}
