//! Reductions (`accel_kernels::reduce`): rows (the innermost dimension, the whole array, or
//! segments of it) split into chunks; for inputs of up to [`ONE_LAUNCH_MAX`] elements the last
//! chunk of a row to finish folds the row in the same launch, above that a second launch does.

use super::{Call, Exec, Flags, Split, check_cover};
use crate::cuda::value::{DSegments, DValue, RangeStarts, ill_typed};
use crate::cuda::{DeviceBuffer, lock};
use accel_core::kernel::{Role, Rows, Strategy};
use accel_core::types::Type;
use accel_core::{Error, Result};
use accel_kernels::abi::walk::{self, Walk};
use accel_kernels::abi::{self, RANGE, TILE};
use std::sync::Arc;

/// The largest input (elements) whose reduction finishes in one launch. Measured on an H100
/// (docs/benchmarks.md): one launch saves some 5 µs up to 2^20 elements, breaks even at 2^24,
/// and above that (or with hundreds of thousands of two-part rows) the fences and the one warp's
/// serial fold of thousands of partials cost more than the second launch.
const ONE_LAUNCH_MAX: usize = 1 << 22;

/// The fewest elements of a part of a row split to fill the resident warps: every part of a
/// row of several meets the others through a fence and an atomic on the row's one ticket
/// counter (or a partial that a second launch reads), which cost more than the loads of a
/// tile's part. H200, `fold_all` of 2^20 `f32`: 25.1 to 29.2 µs with parts of a tile (128
/// elements, 8192 parts), 18.1 to 20.4 µs with 1024, 19.9 to 20.7 µs with 4096; at 2^16, 4096
/// is slower than a tile (each warp's loads in 16 rounds). docs/benchmarks.md.
const MIN_PART: usize = 8 * TILE;

impl Exec<'_> {
    /// Runs a reduction of `rows` (with a seed if `seeded`), whose result has type `ty` (an
    /// epilogue's may differ from the combined elements'), with a host mirror if `mirrored`
    /// (`accel_core::kernel::mirrors_result`).
    pub(super) fn reduce(
        &mut self,
        call: &Call,
        rows: Rows,
        seeded: bool,
        ty: &Type,
        mirrored: bool,
    ) -> Result<DValue> {
        let name = call.name;
        let a_shape = call.shape_of(0)?;
        let a_len = call.len_of(0)?;
        let rank = a_shape.len();
        if rank == 0 {
            return Err(ill_typed(format!("{name} of a scalar")));
        }
        let last = a_shape[rank - 1];
        let segments = if rows == Rows::Segments { Some(call.segs(1)?) } else { None };
        let outer: usize = a_shape[..rank - 1].iter().product();
        let (out_shape, row_count, avg_len) = match rows {
            Rows::Innermost => (a_shape[..rank - 1].to_vec(), outer, last),
            Rows::All => (vec![], 1, a_len),
            Rows::Segments => {
                let s = segments.ok_or_else(|| ill_typed(format!("{name} without segments")))?;
                check_cover(name, s.total, last)?;
                let mut shape = a_shape[..rank - 1].to_vec();
                shape.push(s.count);
                let count = outer * s.count;
                (shape, count, a_len.checked_div(count).unwrap_or(0))
            }
        };
        // An empty segment is folded to the seed or reported by the kernel; an empty row of a
        // regular array is known here.
        let empty_rows = rows != Rows::Segments && avg_len == 0;
        if !seeded && empty_rows && row_count > 0 {
            return Err(Error::empty_reduction(name));
        }
        // Under an epilogue the output's element type may differ from the partials'. A rank-0
        // result of one scalar is mirrored in host memory, where the host reads it after its
        // wait.
        let out = self.alloc_array_mirrored(&call.out_elem(ty)?, out_shape, mirrored)?;
        if let Some(segments) = segments
            && rank == 1
        {
            // Ranges of values, two partials per range, after the range starts
            // (`accel_kernels::ranges`).
            let walk = self.walk(row_count, a_len);
            let (role, width) = match walk {
                Walk::Rows => (None, 0),
                Walk::Ranges => (Some(self.range_reduce_role(call.id)?), RANGE),
                Walk::Wide => {
                    let warps = self.gpu.resident_warps(self.kernel(call.id, Role::WideReduce)?);
                    (Some(Role::WideReduce), walk::wide_width(a_len, warps))
                }
            };
            if let Some(role) = role {
                let ranges = walk::ranges(a_len, width);
                let starts = self.range_starts(segments, width)?;
                let split = Split { rows: ranges, parts: 2 };
                let (mut scratch, _keep) = self.scratch(call.combined()?, &split, Flags::None)?;
                let mirror = out.columns.first().map_or(0, |c| c.mirror_address());
                scratch.extend([0, mirror, starts.ptr(), width as u64]);
                let w = call.words(&[&out], &scratch);
                self.launch(call.id, role, ranges, &w)?;
                self.launch(call.id, Role::RangeFinish, ranges, &w)?;
                return Ok(DValue::Array(out));
            }
        }
        let split = self.split(self.kernel(call.id, Role::Reduce)?, row_count, avg_len, MIN_PART);
        let (mut scratch, _keep) = self.scratch(call.combined()?, &split, Flags::None)?;
        // Rows of several parts meet in the same launch for small inputs, where a second
        // launch costs more than the meeting (see `accel_kernels::reduce`).
        let one_launch = split.parts > 1 && a_len <= ONE_LAUNCH_MAX;
        let tickets = if one_launch { Some(self.gpu.tickets(split.rows)?) } else { None };
        scratch.push(tickets.as_ref().map_or(0, |t| t.ptr()));
        scratch.push(out.columns.first().map_or(0, |c| c.mirror_address()));
        scratch.extend([0, 0]);
        let w = call.words(&[&out], &scratch);
        self.launch(call.id, Role::Reduce, split.rows * split.parts, &w)?;
        if split.parts > 1 && !one_launch {
            // A warp per row, or a block per row of many parts (`abi::finish_warps`).
            self.launch(call.id, Role::Finish, split.rows * abi::finish_warps(split.parts), &w)?;
        }
        Ok(DValue::Array(out))
    }

    /// The range starts of `segments` for ranges of `width` values
    /// (`accel_kernels::ranges::range_starts`): those they keep from an earlier walk on this
    /// stream, else computed now (a thread per range, before the walk that reads them) and kept
    /// with them.
    fn range_starts(&mut self, segments: &DSegments, width: usize) -> Result<Arc<DeviceBuffer>> {
        let stream = self.gpu.default_stream().id();
        // Held until the new starts are kept, so that two walks do not both compute them.
        let mut all = lock(&segments.range_starts);
        if let Some(kept) = all.iter().find(|r| r.stream == stream && r.width == width) {
            return Ok(kept.starts.clone());
        }
        let entries = walk::ranges(segments.total, width) + 1;
        let starts = Arc::new(self.gpu.alloc(entries * size_of::<usize>())?);
        let k = self.prepared.range_starts(self.gpu)?;
        let words = [segments.count as u64, segments.total as u64, segments.offsets.ptr(), starts.ptr(), width as u64];
        self.gpu.launch(k, self.gpu.resident_grid(k, entries), &words)?;
        if all.len() == KEPT_STARTS {
            all.remove(0);
        }
        all.push(RangeStarts { stream, width, starts: starts.clone() });
        Ok(starts)
    }

    /// Which build of node `node`'s ranges walk to launch: the one for more resident blocks
    /// ([`Role::RangeReduceDense`]) unless the assembler spilled registers to fit it, that is,
    /// unless it uses more local memory than the other ([`Role::RangeReduce`]).
    fn range_reduce_role(&self, node: usize) -> Result<Role> {
        let dense = self.kernel(node, Role::RangeReduceDense)?.local_bytes();
        let fewer_blocks = self.kernel(node, Role::RangeReduce)?.local_bytes();
        Ok(if dense <= fewer_blocks { Role::RangeReduceDense } else { Role::RangeReduce })
    }

    /// How a segmented reduction over a vector of `total` values in `rows` rows walks them:
    /// forced by the device's expand strategy if set (`tiles` walks ranges, `block` wide ranges,
    /// the others rows; `Runtime::set_expand_strategy`, `ACCEL_EXPAND`), else selected from the
    /// sizes (`accel_kernels::abi::walk::select`).
    fn walk(&self, rows: usize, total: usize) -> Walk {
        match self.gpu.expand_strategy() {
            Some(Strategy::Tiles) => Walk::Ranges,
            Some(Strategy::Block) => Walk::Wide,
            Some(Strategy::Thread | Strategy::Warp) => Walk::Rows,
            None => walk::select(rows, total),
        }
    }
}

/// Range starts of different widths kept with one set of segments, at most: a segmented
/// reduction's width depends on its kernel (`walk::wide_width` of its resident warps).
const KEPT_STARTS: usize = 4;
