//! Operations whose result size comes from per-element counts (`accel_kernels::expand`): the
//! counts kernel, the module's offsets scan, one wait for the total (the size of the result; the
//! device's errors are not checked there), then the write kernel.

use super::{Call, Exec};
use crate::cuda::value::{DSegments, DValue};
use accel_core::Result;
use accel_core::kernel::{self, Role};
use accel_core::types::Type;
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

impl Exec<'_> {
    /// Runs an operation of kind `what`; its result has type `ty`.
    pub(super) fn counted(&mut self, call: &Call, what: Counted, ty: &Type) -> Result<DValue> {
        let n = call.len_of(0)?;
        let counts = self.gpu.alloc_zeroed((n + 1) * size_of::<usize>())?;
        let offsets = Arc::new(self.gpu.alloc((n + 1) * size_of::<usize>())?);
        let scratch = [n as u64, counts.ptr(), offsets.ptr()];
        // The counts kernel runs before the result exists: null output words.
        let mut w = vec![call.slot];
        w.extend(std::iter::repeat_n(0, kernel::word_count(ty)));
        w.extend(scratch);
        w.extend(&call.tail);
        self.launch(call.id, Role::Counts, n, &w)?;
        self.offsets_scan(&counts, &offsets, n + 1)?;
        // The one wait. Whatever the counts kernel met (a failed read counts as 0, a negative
        // count too), the offsets are a scan of the counts it wrote, so the kernels that follow
        // stay within the result; its error is reported at the end of the run, or here if the
        // total it left is too large to allocate.
        let mut total = [0u8; size_of::<usize>()];
        offsets.download_into(n * size_of::<usize>(), &mut total)?;
        let total = usize::from_ne_bytes(total);
        let (elem, items) = match what {
            Counted::Segments => return Ok(DValue::Segments(DSegments { count: n, total, offsets, stats: None })),
            Counted::Expand => (call.out_elem(ty)?, total),
            Counted::Filter => (call.out_elem(ty)?, n),
        };
        let out = self.alloc_array(&elem, vec![total]).or_else(|e| self.check_device().and(Err(e)))?;
        self.launch(call.id, Role::Write, items, &call.words(&[&out], &scratch))?;
        Ok(DValue::Array(out))
    }
}
