//! Permute (`accel_kernels::atomic`): the output starts as the defaults (a device copy of
//! manifest ones, a kernel for delayed ones), then the scatter combines each source element into
//! its destination. A permute of an expand (fused form 4) runs the expand's counts kernel between
//! the two, reads the total and the longest count it found (one wait), and spreads the scatter
//! over the grid by the strategy those sizes select (`accel_core::kernel::Strategy`), or the one
//! the runtime forces; the offsets scan runs only when that strategy or the fused closures need
//! the offsets.

use super::{Call, Exec};
use crate::cuda::DeviceBuffer;
use crate::cuda::value::{DArray, DValue};
use accel_core::interp::Host;
use accel_core::ir::{ArrayOp, Expr, Lambda};
use accel_core::kernel::{self, PermuteCombine, Role, Sizes, Strategy};
use accel_core::types::Type;
use accel_core::{Error, Result};

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
        // The counts, then 0 (the scan's last entry), the longest count and the total.
        let word = size_of::<usize>();
        let counts = self.gpu.alloc_zeroed((n + 3) * word)?;
        let mut scratch = [n as u64, counts.ptr(), 0, locks.as_ref().map_or(0, DeviceBuffer::ptr), 0];
        let w = call.words(&[&out], &scratch);
        if kernel::as_generate(defaults).is_some() {
            self.launch(call.id, Role::Defaults, out.len(), &w)?;
        }
        self.launch(call.id, Role::Counts, n, &w)?;
        let mut found = [0u8; 2 * size_of::<usize>()];
        counts.download_into((n + 1) * word, &mut found)?;
        let [longest, total] =
            [0, 1].map(|i| usize::from_ne_bytes(found[i * word..(i + 1) * word].try_into().unwrap()));
        // The total is exact when no sum can wrap: n * longest bounds it.
        if n.checked_mul(longest).is_none_or(|bound| bound > isize::MAX as usize) {
            self.check_device()?;
            return Err(Error::invalid_argument(
                "expand",
                format!("{n} sources with counts up to {longest} may add up to more results than a run can address"),
            ));
        }
        let sizes = Sizes { sources: n, total, longest };
        let strategy = self.gpu.expand_strategy().unwrap_or_else(|| Strategy::select(&sizes));
        let offsets = if strategy.needs_offsets(op) {
            let offsets = self.gpu.alloc((n + 1) * word)?;
            self.offsets_scan(&counts, &offsets, n + 1)?;
            Some(offsets)
        } else {
            None
        };
        scratch[2] = offsets.as_ref().map_or(0, DeviceBuffer::ptr);
        scratch[4] = strategy.word();
        self.launch(call.id, Role::Spread, strategy.threads(&sizes), &call.words(&[&out], &scratch))?;
        Ok(DValue::Array(out))
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
