//! Permute (`accel_kernels::atomic`): the output starts as the defaults (a device copy of
//! manifest ones, a kernel for delayed ones), then the scatter combines each source element into
//! its destination.

use super::{Call, Exec};
use crate::cuda::DeviceBuffer;
use crate::cuda::value::DValue;
use accel_core::Result;
use accel_core::interp::Host;
use accel_core::ir::{Expr, Lambda};
use accel_core::kernel::{self, PermuteCombine, Role};
use accel_core::types::Type;

impl Exec<'_> {
    /// Runs `permute` with `defaults` and combining function `combine`; its result has type `ty`.
    pub(super) fn permute(&mut self, call: &Call, defaults: &Expr, combine: &Lambda, ty: &Type) -> Result<DValue> {
        // Delayed defaults are operand 1 and a kernel writes them; manifest ones are copied.
        let delayed = kernel::as_generate(defaults).is_some();
        let out = if delayed {
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
        let w = call.words(&[&out], &[locks.as_ref().map_or(0, DeviceBuffer::ptr)]);
        if delayed {
            self.launch(call.id, Role::Defaults, out.len(), &w)?;
        }
        self.launch(call.id, Role::Scatter, call.len_of(0)?, &w)?;
        Ok(DValue::Array(out))
    }
}
