//! The regular array combinators: build, elementwise, reduce, scan, move and neighbourhood,
//! one function per group. Each loops over its result (or its input) in row-major order and
//! applies closures one element at a time.

use super::laws::Law;
use super::{Host, HostValue, Interp, Val, buffer, flat, ill_typed, new_array, read, size, unravel};
use crate::error::{Error, Result};
use crate::fusion::expand_permute;
use crate::ir::{ArrayOp, Axis, Boundary, Direction, Lambda, Producer as P, ScanKind, StencilShape};
use crate::types::Type;
use crate::value::{ArrayValue, ElemValue, ScalarValue};

impl Interp {
    pub(super) fn collective(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        use ArrayOp::*;
        match op {
            Generate { .. } | Unit(_) | The(_) => self.build(op, ty),
            Producer(p) => self.producer(p, ty),
            Fold { .. } | FoldAll { .. } | FoldSeg { .. } => self.reduction(op, ty),
            Scan { .. } | ScanSeg { .. } => self.scan_op(op, ty),
            Permute { .. } | Reshape { .. } | Concat { .. } | Slice { .. } => self.movement(op, ty),
            Stencil { shape, boundary, f, a } => {
                let constant = match boundary {
                    Boundary::Constant(e) => Some(self.eval_elem(e)?),
                    _ => None,
                };
                let a = self.eval_array(a)?;
                self.stencil(ty, *shape, boundary, constant, f, &a)
            }
            Expand { .. } | Filter { .. } | Awhile { .. } => self.irregular(op, ty),
            // Fused form 4 (fusion's output, run by schedule tests) as the pair it fuses.
            ExpandPermute { .. } => self.eval(&expand_permute::unfused(op, ty)),
            SegmentsFromLengths(_)
            | SegmentLengths(_)
            | SegmentOffsets(_)
            | NestedFromParts { .. }
            | NestedValues(_)
            | NestedSegments(_)
            | NestedMap { .. } => self.nested(op, ty),
            Seq(op) => self.seq_op(op, ty),
            Unzip(a) => {
                let a = self.eval_array(a)?;
                let Type::Tuple(parts) = ty else { return Err(ill_typed(format!("unzip to {ty}"))) };
                let mut arrays = Vec::with_capacity(parts.len());
                for (i, t) in parts.iter().enumerate() {
                    let field = |e: &ElemValue| match e {
                        ElemValue::Tuple(fs) if i < fs.len() => Ok(fs[i].clone()),
                        other => Err(ill_typed(format!("unzip of {other:?}"))),
                    };
                    let data = a.data.iter().map(field).collect::<Result<Vec<_>>>()?;
                    arrays.push(new_array(t, a.shape.clone(), data)?);
                }
                Ok(Val::Tuple(arrays))
            }
        }
    }

    /// `generate`, `fill`, `iota`, `unit`, `get`.
    fn build(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        use ArrayOp::*;
        let name = op.name();
        match op {
            Generate { shape, f, .. } => {
                let shape = self.eval_index(shape)?;
                self.tabulate(ty, shape, |s, ix| s.apply_elem(f, [Val::index(ix)]))
            }
            Unit(e) => {
                let v = self.eval_elem(e)?;
                new_array(ty, vec![], vec![v])
            }
            The(e) => {
                let a = self.eval_array(e)?;
                if a.rank() != 0 {
                    return Err(ill_typed("`get` of an array that is not a scalar"));
                }
                Ok(Val::Elem(a.data[0].clone()))
            }
            _ => unreachable!("array_op sends {name} elsewhere"),
        }
    }

    /// The producers (`ir::Producer`): each element a function of its index and its operands'
    /// elements.
    fn producer(&mut self, p: &P, ty: &Type) -> Result<Val> {
        let name = p.name();
        match p {
            P::Fill { shape, value } => {
                let shape = self.eval_index(shape)?;
                let v = self.eval_elem(value)?;
                let n = size(name, &shape)?;
                let mut data = buffer(n)?;
                data.resize(n, v);
                new_array(ty, shape, data)
            }
            P::Iota { n } => {
                let n = self.eval_count(n, name)?;
                let Some(Some(t)) = ty.as_array().map(|(e, _)| e.as_scalar()) else {
                    return Err(ill_typed(format!("iota of type {ty}")));
                };
                let mut data = buffer(n)?;
                data.extend((0..n).map(|i| ScalarValue::from_i128(i as i128, t).into()));
                new_array(ty, vec![n], data)
            }
            P::Map { f, a } => {
                let a = self.eval_array(a)?;
                let data = a.data.iter().map(|x| self.apply_elem(f, [Val::Elem(x.clone())])).collect::<Result<_>>()?;
                new_array(ty, a.shape.clone(), data)
            }
            P::IMap { f, a } => {
                let a = self.eval_array(a)?;
                self.tabulate(ty, a.shape.clone(), |s, ix| {
                    let x = a.data[flat(ix, &a.shape)].clone();
                    s.apply_elem(f, [Val::index(ix), Val::Elem(x)])
                })
            }
            P::ZipWith { f, a, b } => {
                let a = self.eval_array(a)?;
                let b = self.eval_array(b)?;
                if a.rank() != b.rank() {
                    return Err(ill_typed("zip_with of arrays of different ranks"));
                }
                let mut shape = a.shape.clone();
                crate::shape::intersect(&mut shape, &b.shape);
                self.tabulate(ty, shape, |s, ix| {
                    let x = a.data[flat(ix, &a.shape)].clone();
                    let y = b.data[flat(ix, &b.shape)].clone();
                    s.apply_elem(f, [Val::Elem(x), Val::Elem(y)])
                })
            }
            P::Backpermute { shape, f, a } => {
                let shape = self.eval_index(shape)?;
                let a = self.eval_array(a)?;
                self.tabulate(ty, shape, |s, ix| {
                    let src = s.apply_elem(f, [Val::index(ix)])?;
                    let src = src.to_index().ok_or_else(|| ill_typed(format!("{src:?} is not an index")))?;
                    Ok(read(&a, &src, name)?.clone())
                })
            }
            P::Reverse(a) => {
                let a = self.eval_array(a)?;
                let (outer, n) = split_inner(&a)?;
                let mut data = Vec::with_capacity(a.len());
                for r in 0..size(name, &outer)? {
                    data.extend(row(&a, r, n).iter().rev().cloned());
                }
                new_array(ty, a.shape.clone(), data)
            }
            P::Transpose(a) => {
                let a = self.eval_array(a)?;
                let &[rows, cols] = a.shape.as_slice() else {
                    return Err(ill_typed("transpose of an array that is not a matrix"));
                };
                let data = (0..rows * cols).map(|k| a.data[(k % rows) * cols + k / rows].clone());
                new_array(ty, crate::shape::transpose(&[rows, cols]).to_vec(), data.collect())
            }
            P::Take { n, a } | P::Drop { n, a } => {
                let n = self.eval_count(n, name)?;
                let a = self.eval_array(a)?;
                let (outer, len) = split_inner(&a)?;
                let mut shape = a.shape.clone();
                let start = match p {
                    P::Take { .. } => {
                        crate::shape::take(&mut shape, &n);
                        0
                    }
                    _ => crate::shape::drop(&mut shape, &n),
                };
                let keep = start..start + shape[shape.len() - 1];
                let mut data = Vec::new();
                for r in 0..size(name, &outer)? {
                    data.extend_from_slice(&row(&a, r, len)[keep.clone()]);
                }
                new_array(ty, shape, data)
            }
            P::Replicate { axis, n, a } => {
                let n = self.eval_count(n, name)?;
                let a = self.eval_array(a)?;
                if a.rank() != 1 {
                    return Err(ill_typed(format!("{name} of an array that is not a vector")));
                }
                let len = a.len();
                let shape = crate::shape::replicate(*axis, &n, &len).to_vec();
                let total = size(name, &shape)?;
                let mut data = buffer(total)?;
                match axis {
                    Axis::Rows => data.extend(a.data.iter().cloned().cycle().take(total)),
                    Axis::Cols => data.extend(a.data.iter().flat_map(|x| std::iter::repeat_n(x.clone(), n))),
                }
                new_array(ty, shape, data)
            }
        }
    }

    /// `fold`, `fold1`, `fold_all`, `fold_seg`: innermost dimension, segments or everything.
    fn reduction(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        use ArrayOp::*;
        let name = op.name();
        match op {
            Fold { z, f, a } => {
                let z = self.eval_opt_elem(z.as_ref())?;
                let a = self.eval_array(a)?;
                self.check_law(name, f, Law::Associative, &[&a.data])?;
                let (outer, n) = split_inner(&a)?;
                let data = (0..size(name, &outer)?)
                    .map(|r| self.reduce(name, f, z.as_ref(), row(&a, r, n)))
                    .collect::<Result<_>>()?;
                new_array(ty, outer, data)
            }
            FoldAll { z, f, a } => {
                let z = self.eval_opt_elem(z.as_ref())?;
                let a = self.eval_array(a)?;
                self.check_law(name, f, Law::Associative, &[&a.data])?;
                let total = self.reduce(name, f, z.as_ref(), &a.data)?;
                new_array(ty, vec![], vec![total])
            }
            FoldSeg { z, f, a, segments } => {
                let z = self.eval_opt_elem(z.as_ref())?;
                let a = self.eval_array(a)?;
                let segs = self.eval(segments)?.into_segments()?;
                self.check_law(name, f, Law::Associative, &[&a.data])?;
                let (mut shape, n) = split_inner(&a)?;
                check_covers(name, segs.total(), n)?;
                let mut data = Vec::new();
                for r in 0..size(name, &shape)? {
                    let xs = row(&a, r, n);
                    for i in 0..segs.count() {
                        data.push(self.reduce(name, f, z.as_ref(), &xs[segs.range(i)])?);
                    }
                }
                shape.push(segs.count());
                new_array(ty, shape, data)
            }
            _ => unreachable!("array_op sends {name} elsewhere"),
        }
    }

    /// Scans of the innermost dimension, whole or per segment.
    fn scan_op(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        use ArrayOp::*;
        let name = op.name();
        match op {
            Scan { dir, kind, z, f, a } => {
                let z = self.eval_opt_elem(z.as_ref())?;
                if z.is_some() == (*kind == ScanKind::Inclusive) {
                    return Err(ill_typed(format!("{name} with a seed {z:?}")));
                }
                let a = self.eval_array(a)?;
                self.check_law(name, f, Law::Associative, &[&a.data])?;
                self.scan(ty, *dir, *kind, f, z.as_ref(), &a)
            }
            ScanSeg { kind, z, f, a, segments } => {
                let z = self.eval_opt_elem(z.as_ref())?;
                let expected_seed = match kind {
                    ScanKind::WithSeed => true,
                    ScanKind::Inclusive => false,
                    ScanKind::ExclusiveAndTotal => {
                        return Err(ill_typed("a segmented scan with totals"));
                    }
                };
                if z.is_some() != expected_seed {
                    return Err(ill_typed(format!("{name} with a seed {z:?}")));
                }
                let a = self.eval_array(a)?;
                let segs = self.eval(segments)?.into_segments()?;
                self.check_law(name, f, Law::Associative, &[&a.data])?;
                let (mut shape, n) = split_inner(&a)?;
                check_covers(name, segs.total(), n)?;
                let mut data = Vec::new();
                for r in 0..size(name, &shape)? {
                    let xs = row(&a, r, n);
                    for i in 0..segs.count() {
                        let seg = &xs[segs.range(i)];
                        data.extend(self.scan_row(Direction::Left, f, z.as_ref(), seg)?);
                    }
                }
                shape.push(if expected_seed { n + segs.count() } else { n });
                new_array(ty, shape, data)
            }
            _ => unreachable!("array_op sends {name} elsewhere"),
        }
    }

    /// The combinators that move elements without computing new ones (bar `permute`'s combine).
    fn movement(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        use ArrayOp::*;
        let name = op.name();
        match op {
            Permute { defaults, f, combine, a } => {
                let defaults = self.eval_array(defaults)?;
                let a = self.eval_array(a)?;
                // The combine meets the defaults and the sources: test it on both.
                self.check_law(name, combine, Law::AssociativeAndCommutative, &[&defaults.data, &a.data])?;
                self.permute(ty, &defaults, f, combine, &a)
            }
            Reshape { shape, a } => {
                let shape = self.eval_index(shape)?;
                let a = self.eval_array(a)?;
                let n = size(name, &shape)?;
                if n != a.len() {
                    return Err(Error::shape_mismatch(
                        name,
                        format!("a shape of {} elements like {:?}", a.len(), a.shape),
                        format!("{shape:?}"),
                    ));
                }
                new_array(ty, shape, a.data.clone())
            }
            Concat { a, b } => {
                let a = self.eval_array(a)?;
                let b = self.eval_array(b)?;
                let (a_outer, na) = split_inner(&a)?;
                let (b_outer, nb) = split_inner(&b)?;
                if a_outer.len() != b_outer.len() {
                    return Err(ill_typed("concat of arrays of different ranks"));
                }
                let mut shape = a.shape.clone();
                crate::shape::concat(&mut shape, &b.shape)
                    .map_err(|_| Error::invalid_argument(name, "the result is too large"))?;
                let outer = &shape[..shape.len() - 1];
                let mut data = Vec::new();
                for r in 0..size(name, outer)? {
                    let o = unravel(r, outer);
                    data.extend_from_slice(row(&a, flat(&o, &a_outer), na));
                    data.extend_from_slice(row(&b, flat(&o, &b_outer), nb));
                }
                new_array(ty, shape, data)
            }
            Slice { axis, index, a } => {
                let i = self.eval_count(index, name)?;
                let a = self.eval_array(a)?;
                let &[rows, cols] = a.shape.as_slice() else {
                    return Err(ill_typed(format!("{name} of an array that is not a matrix")));
                };
                // The error shows a whole matrix index, 0 in the dimension that is not sliced.
                let (extent, at) = match axis {
                    Axis::Rows => (rows, [i, 0]),
                    Axis::Cols => (cols, [0, i]),
                };
                if i >= extent {
                    return Err(Error::index_out_of_bounds(name, &at, &a.shape));
                }
                let data = match axis {
                    Axis::Rows => row(&a, i, cols).to_vec(),
                    Axis::Cols => (0..rows).map(|r| a.data[r * cols + i].clone()).collect(),
                };
                let len = data.len();
                new_array(ty, vec![len], data)
            }
            _ => unreachable!("array_op sends {name} elsewhere"),
        }
    }

    /// An array of the given shape whose element at each index (in row-major order) is
    /// `elem(ix)`.
    fn tabulate(
        &mut self,
        ty: &Type,
        shape: Vec<usize>,
        mut elem: impl FnMut(&mut Self, &[usize]) -> Result<ElemValue>,
    ) -> Result<Val> {
        let n = size("generate", &shape)?;
        let mut data = buffer(n)?;
        for k in 0..n {
            data.push(elem(self, &unravel(k, &shape))?);
        }
        new_array(ty, shape, data)
    }

    /// `f(..f(f(z, x0), x1).., xn)`, or without `z` starting from `x0`.
    pub(super) fn reduce(
        &mut self,
        op: &str,
        f: &Lambda,
        z: Option<&ElemValue>,
        xs: &[ElemValue],
    ) -> Result<ElemValue> {
        let mut xs = xs.iter().cloned();
        let mut acc = match z {
            Some(z) => z.clone(),
            None => xs.next().ok_or_else(|| Error::empty_reduction(op))?,
        };
        for x in xs {
            acc = self.apply_elem(f, [Val::Elem(acc), Val::Elem(x)])?;
        }
        Ok(acc)
    }

    /// Every running result of one row, in the row's order: `scanl` starts with the seed and
    /// computes `f(acc, x)`, `scanr` ends with it and computes `f(x, acc)`. Without a seed the
    /// first element met starts the accumulation.
    fn scan_row(
        &mut self,
        dir: Direction,
        f: &Lambda,
        z: Option<&ElemValue>,
        xs: &[ElemValue],
    ) -> Result<Vec<ElemValue>> {
        let mut out: Vec<ElemValue> = z.into_iter().cloned().collect();
        let mut acc = z.cloned();
        let ordered: Box<dyn Iterator<Item = &ElemValue>> = match dir {
            Direction::Left => Box::new(xs.iter()),
            Direction::Right => Box::new(xs.iter().rev()),
        };
        for x in ordered {
            let next = match (acc, dir) {
                (None, _) => x.clone(),
                (Some(acc), Direction::Left) => self.apply_elem(f, [Val::Elem(acc), Val::Elem(x.clone())])?,
                (Some(acc), Direction::Right) => self.apply_elem(f, [Val::Elem(x.clone()), Val::Elem(acc)])?,
            };
            out.push(next.clone());
            acc = Some(next);
        }
        if dir == Direction::Right {
            out.reverse();
        }
        Ok(out)
    }

    fn scan(
        &mut self,
        ty: &Type,
        dir: Direction,
        kind: ScanKind,
        f: &Lambda,
        z: Option<&ElemValue>,
        a: &ArrayValue,
    ) -> Result<Val> {
        let (outer, n) = split_inner(a)?;
        let rows = size("scan", &outer)?;
        let (mut data, mut totals) = (Vec::new(), Vec::new());
        for r in 0..rows {
            let mut results = self.scan_row(dir, f, z, row(a, r, n))?;
            if kind == ScanKind::ExclusiveAndTotal {
                // The seed-side end of a seeded scan is the total; the rest are the exclusive
                // prefixes (for `scanl`) or suffixes (for `scanr`).
                let total = match dir {
                    Direction::Left => results.pop(),
                    Direction::Right => Some(results.remove(0)),
                };
                totals.push(total.expect("a seeded scan has at least the seed"));
            }
            data.extend(results);
        }
        let mut shape = outer.clone();
        shape.push(if kind == ScanKind::WithSeed { n + 1 } else { n });
        if kind != ScanKind::ExclusiveAndTotal {
            return new_array(ty, shape, data);
        }
        match ty.tuple_parts().as_deref() {
            Some([prefix_ty, total_ty]) => {
                Ok(Val::tuple(vec![new_array(prefix_ty, shape, data)?, new_array(total_ty, outer, totals)?]))
            }
            _ => Err(ill_typed(format!("a scan with totals of type {ty}"))),
        }
    }

    fn permute(
        &mut self,
        ty: &Type,
        defaults: &ArrayValue,
        f: &Lambda,
        combine: &Lambda,
        a: &ArrayValue,
    ) -> Result<Val> {
        let mut data = defaults.data.clone();
        for (k, x) in a.data.iter().enumerate() {
            let target = self.apply_elem(f, [Val::index(&unravel(k, &a.shape))])?;
            let (keep, dst) = match &target {
                ElemValue::Tuple(parts) => match parts.as_slice() {
                    [ElemValue::Scalar(ScalarValue::Bool(keep)), dst] => (*keep, dst.to_index()),
                    _ => (false, None),
                },
                _ => (false, None),
            };
            let Some(dst) = dst else {
                return Err(ill_typed(format!("{target:?} is not a (bool, index) pair")));
            };
            if !keep {
                continue;
            }
            read(defaults, &dst, "permute")?;
            let j = flat(&dst, &defaults.shape);
            let old = data[j].clone();
            data[j] = self.apply_elem(combine, [Val::Elem(x.clone()), Val::Elem(old)])?;
        }
        new_array(ty, defaults.shape.clone(), data)
    }

    fn stencil(
        &mut self,
        ty: &Type,
        shape: StencilShape,
        boundary: &Boundary,
        constant: Option<ElemValue>,
        f: &Lambda,
        a: &ArrayValue,
    ) -> Result<Val> {
        let rank = shape.rank();
        if a.rank() != rank {
            return Err(ill_typed(format!("{} of an array of rank {}", shape.method_name(), a.rank())));
        }
        // The neighbourhood's offsets in row-major order, which is the order of `f`'s parameters.
        let radius = shape.radius() as isize;
        let width = vec![2 * shape.radius() + 1; rank];
        let offsets: Vec<Vec<isize>> = (0..shape.points())
            .map(|k| unravel(k, &width).into_iter().map(|o| o as isize - radius).collect())
            .collect();
        self.tabulate(ty, a.shape.clone(), |s, ix| {
            let mut neighbours = Vec::with_capacity(offsets.len());
            for off in &offsets {
                let at: Option<Vec<usize>> = ix
                    .iter()
                    .zip(off)
                    .zip(&a.shape)
                    .map(|((&i, &o), &n)| accel_kernels::boundary::resolve(boundary.rule(), i as isize + o, n))
                    .collect();
                let x = match at {
                    Some(at) => a.data[flat(&at, &a.shape)].clone(),
                    None => constant.clone().expect("only a Constant boundary reads outside"),
                };
                neighbours.push(Val::Elem(x));
            }
            s.apply_elem(f, neighbours)
        })
    }
}

/// The outer shape and the innermost extent of an array of rank at least 1.
fn split_inner(a: &ArrayValue) -> Result<(Vec<usize>, usize)> {
    match a.shape.split_last() {
        Some((&n, outer)) => Ok((outer.to_vec(), n)),
        None => Err(ill_typed("an innermost-dimension operation on a scalar array")),
    }
}

/// Row `r` of an array whose rows have `n` elements.
fn row(a: &ArrayValue, r: usize, n: usize) -> &[ElemValue] {
    &a.data[r * n..(r + 1) * n]
}

/// Segments must cover the segmented dimension exactly.
fn check_covers(op: &str, total: usize, n: usize) -> Result<()> {
    if total != n {
        return Err(Error::invalid_segments(
            op,
            format!("the segment lengths add up to {total} but the innermost dimension has {n} elements"),
        ));
    }
    Ok(())
}
