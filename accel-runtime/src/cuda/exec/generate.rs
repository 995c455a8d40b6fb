//! Elementwise operations (`accel_kernels::generate`): the shape of the result, from the
//! operands' shapes through the rules of `accel_core::shape`, then one launch over it.

use super::{Call, Exec};
use crate::cuda::value::{DValue, ill_typed};
use accel_core::interp::Host;
use accel_core::ir::{ArrayOp, Axis};
use accel_core::types::Type;
use accel_core::{Error, Result, shape};

impl Exec<'_> {
    /// Runs elementwise operation `op`, whose result has type `ty`.
    pub(super) fn elementwise(&mut self, call: &Call, op: &ArrayOp, ty: &Type) -> Result<DValue> {
        use ArrayOp::*;
        let name = call.name;
        let not_elementwise = || Err(ill_typed(format!("{name} is not an elementwise operation")));
        let shape: Vec<usize> = match op {
            Generate { shape, .. } => self.eval_index(shape)?,
            Stencil { .. } => call.shape_of(0)?.clone(),
            Concat { .. } => {
                let mut s = call.shape_of(0)?.clone();
                shape::concat(&mut s, call.shape_of(1)?)
                    .map_err(|_| Error::invalid_argument(name, "the result is too large"))?;
                s
            }
            Slice { axis, .. } => {
                let i = call.scalars[0].as_scalar().and_then(|s| s.as_usize());
                let s = call.shape_of(0)?;
                let (extent, at) = match axis {
                    Axis::Rows => (s[0], [i.unwrap_or(usize::MAX), 0]),
                    Axis::Cols => (s[1], [0, i.unwrap_or(usize::MAX)]),
                };
                match i {
                    Some(i) if i < extent => {}
                    Some(_) => return Err(Error::index_out_of_bounds(name, &at, s)),
                    None => {
                        let v = &call.scalars[0];
                        return Err(Error::invalid_argument(name, format!("{v:?} is not a valid index")));
                    }
                }
                vec![if *axis == Axis::Rows { s[1] } else { s[0] }]
            }
            SegmentLengths(_) => vec![call.segs(0)?.count],
            Producer(_)
            | Fold { .. }
            | FoldAll { .. }
            | FoldSeg { .. }
            | Scan { .. }
            | ScanSeg { .. }
            | Permute { .. } => {
                return not_elementwise();
            }
            Expand { .. } | Filter { .. } | SegmentsFromLengths(_) | Unit(_) | The(_) | Unzip(_) | Reshape { .. } => {
                return not_elementwise();
            }
            Awhile { .. } | SegmentOffsets(_) | NestedFromParts { .. } | NestedValues(_) | NestedSegments(_) => {
                return not_elementwise();
            }
            NestedMap { .. } | Seq(_) | ExpandPermute { .. } => return not_elementwise(),
        };
        let out = self.alloc_array(&call.out_elem(ty)?, shape)?;
        // The one kernel of an elementwise node: `Generate` or `GenerateEach`.
        let role =
            self.prepared.roles(call.id).first().copied().ok_or_else(|| ill_typed(format!("{name} has no kernel")))?;
        self.launch(call.id, role, out.len(), &call.words(&[&out], &[]))?;
        Ok(DValue::Array(out))
    }
}
