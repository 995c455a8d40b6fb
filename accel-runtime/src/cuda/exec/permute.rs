//! Permute (`accel_kernels::atomic`): the output starts as the defaults (a device copy of
//! manifest ones, a kernel for delayed ones), then the scatter combines each source element into
//! its destination. A permute of an expand (fused form 4) runs the expand's counts kernel between
//! the two and spreads the scatter over the grid by the strategy the sizes it found select
//! (`accel_core::kernel::Strategy`), or the one the runtime forces. Of few sources, the counts
//! are scanned and the spread kernel selects on the device, with no wait; else the host reads the
//! total and the longest count (one wait) and selects, and the offsets scan runs only when that
//! strategy or the fused closures need the offsets.

use super::{Call, Exec};
use crate::cuda::DeviceBuffer;
use crate::cuda::value::{DArray, DValue};
use accel_core::interp::Host;
use accel_core::ir::{ArrayOp, Expr, Lambda};
use accel_core::kernel::{self, PermuteCombine, Role, Sizes, Strategy};
use accel_core::types::Type;
use accel_core::{Error, Result};
use accel_kernels::abi::spread;

/// An `expand` fused with `permute` of at most this many sources leaves the choice of its strategy
/// to the spread kernel (`abi::spread::ON_DEVICE`), so that the host does not wait for the sizes
/// between the launches: the counts and their scan, always written then, cost less than the round
/// trip (a level of a breadth-first search is mostly such fixed costs). At 2^16 sources both ways
/// cost about the same on an H200 (docs/benchmarks.md, run 12), and the host's needs no scan.
const CHOICE_ON_DEVICE: usize = 1 << 15;

/// The error of an expansion of `sources` sources whose counts, up to `longest`, may add up to
/// more results than a run can address (`abi::spread::too_many`), found on the host or the device.
pub(super) fn too_many_outputs(sources: usize, longest: usize) -> Error {
    Error::invalid_argument(
        "expand",
        format!("{sources} sources with counts up to {longest} may add up to more results than a run can address"),
    )
}

impl Exec<'_> {
    /// Runs `permute` with `defaults` and combining function `combine`; its result has type `ty`.
    pub(super) fn permute(&mut self, call: &Call, defaults: &Expr, combine: &Lambda, ty: &Type) -> Result<DValue> {
        let (out, locks) = self.permute_output(call, defaults, combine, ty)?;
        let w = call.words(&[&out], &[locks.as_ref().map_or(0, DeviceBuffer::ptr)]);
        if kernel::as_generate(defaults).is_some() {
            self.launch(call.id, Role::Defaults, out.len(), &w)?;
        }
        self.launch(call.id, Role::Scatter, call.len_of(0)?, &w)?;
        Ok(DValue::Array(out))
    }

    /// Runs a `permute` of an `expand` (fused form 4) `op` with `defaults` and `combine`; its
    /// result has type `ty`. Operand 0 is the expand's source.
    ///
    /// The counts kernel finds the sizes (writing the counts too when the offsets will surely be
    /// needed), the host waits for them and selects the strategy, and the counts are written and
    /// scanned only if that strategy needs them.
    pub(super) fn expand_permute(
        &mut self,
        call: &Call,
        op: &ArrayOp,
        defaults: &Expr,
        combine: &Lambda,
        ty: &Type,
    ) -> Result<DValue> {
        let (out, locks) = self.permute_output(call, defaults, combine, ty)?;
        let n = call.len_of(0)?;
        let word = size_of::<usize>();
        let sizes = self.gpu.alloc_zeroed(2 * word)?;
        let scratch = |counts: u64, offsets: u64, strategy: u64, sizes: &DeviceBuffer| {
            [n as u64, counts, offsets, locks.as_ref().map_or(0, DeviceBuffer::ptr), strategy, sizes.ptr()]
        };
        if kernel::as_generate(defaults).is_some() {
            self.launch(call.id, Role::Defaults, out.len(), &call.words(&[&out], &scratch(0, 0, 0, &sizes)))?;
        }
        let forced = self.gpu.expand_strategy();
        if forced.is_none() && n <= CHOICE_ON_DEVICE {
            let (counts, offsets) = self.counts_and_offsets(call, &out, n, &sizes, &scratch)?;
            let w = call.words(&[&out], &scratch(counts.ptr(), offsets.ptr(), spread::ON_DEVICE, &sizes));
            // One wave, whatever the kernel chooses.
            self.launch(call.id, Role::Spread, usize::MAX, &w)?;
            return Ok(DValue::Array(out));
        }
        let surely = kernel::reads_expanded_index(op) || forced == Some(Strategy::Tiles);
        let mut scanned = None;
        if surely {
            scanned = Some(self.counts_and_offsets(call, &out, n, &sizes, &scratch)?);
        } else {
            self.launch(call.id, Role::Counts, n, &call.words(&[&out], &scratch(0, 0, 0, &sizes)))?;
        }
        let mut found = [0u8; 2 * size_of::<usize>()];
        sizes.download_into(0, &mut found)?;
        let [longest, total] =
            [0, 1].map(|i| usize::from_ne_bytes(found[i * word..(i + 1) * word].try_into().unwrap()));
        if spread::too_many(n, longest) {
            self.check_device()?;
            return Err(too_many_outputs(n, longest));
        }
        let found = Sizes { sources: n, total, longest };
        let strategy = forced.unwrap_or_else(|| Strategy::select(&found));
        if scanned.is_none() && strategy.needs_offsets(op) {
            // The sizes of this pass go to a buffer of their own: they are known already.
            let again = self.gpu.alloc_zeroed(2 * word)?;
            scanned = Some(self.counts_and_offsets(call, &out, n, &again, &scratch)?);
        }
        let (counts, offsets) = scanned.as_ref().map_or((0, 0), |(c, o)| (c.ptr(), o.ptr()));
        let w = call.words(&[&out], &scratch(counts, offsets, strategy.word(), &sizes));
        self.launch(call.id, Role::Spread, strategy.threads(&found), &w)?;
        Ok(DValue::Array(out))
    }

    /// The counts kernel writing the counts (and the sizes into `sizes`), then the offsets scan:
    /// the counts and the offsets.
    fn counts_and_offsets(
        &mut self,
        call: &Call,
        out: &DArray,
        n: usize,
        sizes: &DeviceBuffer,
        scratch: &impl Fn(u64, u64, u64, &DeviceBuffer) -> [u64; 6],
    ) -> Result<(DeviceBuffer, DeviceBuffer)> {
        let word = size_of::<usize>();
        let (counts, offsets) = (self.gpu.alloc((n + 1) * word)?, self.gpu.alloc((n + 1) * word)?);
        // One thread at least: the counts' last entry, 0, is written even when there are none.
        let w = call.words(&[out], &scratch(counts.ptr(), 0, 0, sizes));
        self.launch(call.id, Role::Counts, n.max(1), &w)?;
        self.offsets_scan(&counts, &offsets, n + 1, None)?;
        Ok((counts, offsets))
    }

    /// The output of a permute, holding a copy of manifest defaults (delayed ones, operand 1,
    /// are written by the `Defaults` kernel), and the zeroed locks its combine needs, if any.
    fn permute_output(
        &mut self,
        call: &Call,
        defaults: &Expr,
        combine: &Lambda,
        ty: &Type,
    ) -> Result<(DArray, Option<DeviceBuffer>)> {
        let out = if kernel::as_generate(defaults).is_some() {
            self.alloc_array(&call.out_elem(ty)?, call.shape_of(1)?.clone())?
        } else {
            let d = self.eval(defaults)?.into_array()?;
            let out = self.alloc_array(&d.elem, d.shape.clone())?;
            for ((dst, src), t) in out.columns.iter().zip(&d.columns).zip(d.elem.leaves()) {
                self.gpu.copy(dst, 0, src, 0, d.len() * t.size_bytes())?;
            }
            out
        };
        let locks = match kernel::permute_combine(combine) {
            PermuteCombine::Lock => Some(self.gpu.alloc_zeroed(out.len() * 4)?),
            PermuteCombine::Add | PermuteCombine::Min | PermuteCombine::Max | PermuteCombine::CompareAndSwap => None,
        };
        Ok((out, locks))
    }
}
