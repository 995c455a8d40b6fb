//! Operations whose result size comes from per-element counts (`accel_kernels::expand`): the
//! counts kernel, the module's offsets scan, one wait for the total (the size of the result; the
//! device's errors are not checked there), then the write kernel. A small `filter` is one block
//! (`accel_kernels::expand::compact_in_block`), a mid-sized one writes first and waits after; the
//! host reads the total from a host mirror, with no copy.

use super::{Call, Exec};
use crate::cuda::value::{DSegments, DValue};
use accel_core::Result;
use accel_core::kernel::{self, Role};
use accel_core::types::Type;
use accel_kernels::abi::COMPACT_MAX;
use std::sync::Arc;

/// What the counts count.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Counted {
    /// `expand`: outputs per source element; the write runs over the outputs.
    Expand,
    /// `filter`: 1 for a kept element; the write runs over the sources.
    Filter,
    /// Segments from lengths: the lengths; the offsets are the result, with no write.
    Segments,
}

/// A `filter` of at most this many elements writes its result before the host learns its size,
/// into a buffer of one element per source (the result is never longer): the host then waits once,
/// after the last launch, rather than between the scan and the write with the device idle. Longer
/// ones allocate only their result: the wait is small beside their work.
const FILTER_BEFORE_TOTAL: usize = 1 << 20;

impl Exec<'_> {
    /// Runs an operation of kind `what`; its result has type `ty`.
    pub(super) fn counted(&mut self, call: &Call, what: Counted, ty: &Type) -> Result<DValue> {
        let n = call.len_of(0)?;
        let word = size_of::<usize>();
        let total = self.gpu.default_stream().alloc_mirrored(word)?;
        let read_total = || -> Result<usize> {
            let mut bytes = [0u8; size_of::<usize>()];
            total.download_into(0, &mut bytes)?;
            Ok(usize::from_ne_bytes(bytes))
        };
        if what == Counted::Filter && n <= COMPACT_MAX {
            // One block, which writes the total itself.
            let scratch = [n as u64, total.ptr(), total.mirror_address()];
            return self.filter_before_total(call, ty, Role::Compact, &scratch, read_total);
        }
        // The counts kernel writes all n + 1 counts, the last 0.
        let counts = self.gpu.alloc((n + 1) * word)?;
        let offsets = Arc::new(self.gpu.alloc((n + 1) * word)?);
        let scratch = [n as u64, counts.ptr(), offsets.ptr()];
        // The counts kernel runs before the result exists: null output words.
        let mut w = vec![call.slot];
        w.extend(std::iter::repeat_n(0, kernel::word_count(ty)));
        w.extend(scratch);
        w.extend(&call.tail);
        self.launch(call.id, Role::Counts, n + 1, &w)?;
        self.offsets_scan(&counts, &offsets, n + 1, Some(&total))?;
        // The one wait. Whatever the counts kernel met (a failed read counts as 0, a negative
        // count too), the offsets are a scan of the counts it wrote, so the kernels that follow
        // stay within the result; its error is reported at the end of the run, or here if the
        // total it left is too large to allocate.
        let (elem, items, total) = match what {
            Counted::Segments => {
                let total = read_total()?;
                return Ok(DValue::Segments(DSegments::new(n, total, offsets)));
            }
            Counted::Filter if n <= FILTER_BEFORE_TOTAL => {
                return self.filter_before_total(call, ty, Role::Write, &scratch, read_total);
            }
            Counted::Filter => (call.out_elem(ty)?, n, read_total()?),
            Counted::Expand => {
                let total = read_total()?;
                (call.out_elem(ty)?, total, total)
            }
        };
        let out = self.alloc_array(&elem, vec![total]).or_else(|e| self.check_device().and(Err(e)))?;
        self.launch(call.id, Role::Write, items, &call.words(&[&out], &scratch))?;
        Ok(DValue::Array(out))
    }

    /// A `filter`'s result (type `ty`) written by kernel `role` (with `scratch`) into a buffer of
    /// one element per source, then cut to the number kept, which `read_total` waits for (no
    /// wait without sources: nothing is kept).
    fn filter_before_total(
        &self,
        call: &Call,
        ty: &Type,
        role: Role,
        scratch: &[u64],
        read_total: impl FnOnce() -> Result<usize>,
    ) -> Result<DValue> {
        let n = call.len_of(0)?;
        let mut out = self.alloc_array(&call.out_elem(ty)?, vec![n])?;
        self.launch(call.id, role, n, &call.words(&[&out], scratch))?;
        out.shape = vec![if n == 0 { 0 } else { read_total()? }];
        Ok(DValue::Array(out))
    }
}
