//! The irregular combinators (`expand`, `filter`), the array-level loop, segment descriptors,
//! nested arrays and streams.

use super::{Host, Interp, Val, ill_typed, int_value, new_array};
use crate::error::{Error, Result};
use crate::ir::{ArrayOp, Lambda, SeqOp};
use crate::types::{ScalarType, Type};
use crate::value::{ArrayValue, ElemValue, ScalarValue, SegmentsValue};
use std::rc::Rc;

impl Interp {
    /// `expand`, `filter` and `awhile`.
    pub(super) fn irregular(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        use ArrayOp::*;
        let name = op.name();
        match op {
            Expand { count, value, a } => {
                let a = self.eval_array(a)?;
                let i_type = scalar_param(value, 1)?;
                let mut data = Vec::new();
                for x in &a.data {
                    let c = self.apply(count, [Val::Elem(x.clone())])?.into_scalar()?;
                    let c = int_value(c).ok_or_else(|| ill_typed(format!("a count of {c:?}")))?;
                    if c < 0 {
                        return Err(Error::invalid_argument(name, format!("count {c} is negative")));
                    }
                    let more = usize::try_from(c).unwrap_or(usize::MAX);
                    data.try_reserve(more)
                        .map_err(|_| Error::out_of_host_memory(more.saturating_mul(size_of::<ElemValue>())))?;
                    for i in 0..c {
                        let i = Val::scalar(ScalarValue::from_i128(i, i_type));
                        data.push(self.apply_elem(value, [Val::Elem(x.clone()), i])?);
                    }
                }
                let n = data.len();
                new_array(ty, vec![n], data)
            }
            Filter { pred, a } => {
                let a = self.eval_array(a)?;
                let mut data = Vec::new();
                for x in &a.data {
                    if self.apply(pred, [Val::Elem(x.clone())])?.into_bool()? {
                        data.push(x.clone());
                    }
                }
                let n = data.len();
                new_array(ty, vec![n], data)
            }
            Awhile { init, cond, step } => {
                let mut x = self.eval(init)?;
                loop {
                    let go = self.apply(cond, [x.clone()])?.into_array()?;
                    if !scalar_bool(&go)? {
                        return Ok(x);
                    }
                    x = self.apply(step, [x])?;
                }
            }
            _ => unreachable!("array_op sends {name} elsewhere"),
        }
    }

    /// Segment descriptors and nested arrays.
    pub(super) fn nested(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        use ArrayOp::*;
        let name = op.name();
        match op {
            SegmentsFromLengths(e) => {
                let a = self.eval_array(e)?;
                if a.rank() != 1 {
                    return Err(ill_typed("segment lengths that are not a vector"));
                }
                let mut lengths = Vec::with_capacity(a.len());
                for (i, x) in a.data.iter().enumerate() {
                    let Some(n) = x.as_scalar().and_then(int_value) else {
                        return Err(ill_typed(format!("a segment length {x:?}")));
                    };
                    let n = usize::try_from(n)
                        .map_err(|_| Error::invalid_segments(name, format!("length {n} of segment {i} is negative")))?;
                    lengths.push(n);
                }
                Ok(Val::Segments(Rc::new(SegmentsValue::from_lengths(name, lengths)?)))
            }
            SegmentLengths(e) => {
                let s = self.eval(e)?.into_segments()?;
                let data = s.offsets.windows(2).map(|w| usize_elem(w[1] - w[0])).collect();
                new_array(ty, vec![s.count()], data)
            }
            SegmentOffsets(e) => {
                let s = self.eval(e)?.into_segments()?;
                let data = s.offsets.iter().map(|&o| usize_elem(o)).collect();
                new_array(ty, vec![s.offsets.len()], data)
            }
            NestedFromParts { segments, values } => {
                let segments = self.eval(segments)?.into_segments()?;
                let values = self.eval_array(values)?;
                if values.rank() != 1 {
                    return Err(ill_typed("nested values that are not a vector"));
                }
                if segments.total() != values.len() {
                    return Err(Error::invalid_segments(
                        name,
                        format!("the segments cover {} values, but there are {}", segments.total(), values.len()),
                    ));
                }
                Ok(Val::Nested { segments, values })
            }
            NestedValues(e) => match self.eval(e)? {
                Val::Nested { values, .. } => Ok(Val::Array(values)),
                other => Err(ill_typed(format!("values of {}", other.kind()))),
            },
            NestedSegments(e) => match self.eval(e)? {
                Val::Nested { segments, .. } => Ok(Val::Segments(segments)),
                other => Err(ill_typed(format!("segments of {}", other.kind()))),
            },
            NestedMap { f, a } => {
                // The rows, as ranges of the values.
                let (ranges, values, columns) = match self.eval(a)? {
                    Val::Nested { segments, values } => {
                        ((0..segments.count()).map(|i| segments.range(i)).collect::<Vec<_>>(), values, None)
                    }
                    Val::Array(m) if m.rank() == 2 => {
                        let (rows, cols) = (m.shape[0], m.shape[1]);
                        ((0..rows).map(|i| i * cols..(i + 1) * cols).collect(), m, Some(cols))
                    }
                    other => return Err(ill_typed(format!("nested_map over {}", other.kind()))),
                };
                let row = |range: std::ops::Range<usize>| {
                    let xs = values.data[range].to_vec();
                    Val::array(ArrayValue { elem: values.elem.clone(), shape: vec![xs.len()], data: xs })
                };
                let results = ranges.iter().map(|r| self.apply(f, [row(r.clone())])).collect::<Result<Vec<_>>>()?;
                // A matrix with no rows gives rows of the length its rows would have, which the
                // flattening rules make the same for every row: that of a row of the matrix's
                // length (of default elements), or none if such a row fails.
                let phantom = match columns {
                    Some(cols) if results.is_empty() => {
                        let data = vec![ElemValue::zero(&values.elem); cols];
                        let zeros = ArrayValue { elem: values.elem.clone(), shape: vec![cols], data };
                        self.apply(f, [Val::array(zeros)]).ok()
                    }
                    _ => None,
                };
                nested_map_result(ty, results, phantom.as_ref())
            }
            _ => unreachable!("array_op sends {name} elsewhere"),
        }
    }

    /// Streams, as plain lists of values.
    pub(super) fn seq_op(&mut self, op: &SeqOp, ty: &Type) -> Result<Val> {
        match op {
            SeqOp::StreamIn(e) => Ok(Val::Seq(self.eval(e)?.into_seq()?)),
            SeqOp::Produce { n, f } => {
                let n = self.eval_count(n, "produce")?;
                let i_type = scalar_param(f, 0)?;
                let items = (0..n)
                    .map(|i| self.apply(f, [Val::scalar(ScalarValue::from_i128(i as i128, i_type))]))
                    .collect::<Result<_>>()?;
                Ok(Val::Seq(items))
            }
            SeqOp::Map { f, s } => {
                let items = self.eval(s)?.into_seq()?;
                let items = items.into_iter().map(|x| self.apply(f, [x])).collect::<Result<_>>()?;
                Ok(Val::Seq(items))
            }
            SeqOp::ZipWith { f, a, b } => {
                let a = self.eval(a)?.into_seq()?;
                let b = self.eval(b)?.into_seq()?;
                let items = a.into_iter().zip(b).map(|(x, y)| self.apply(f, [x, y])).collect::<Result<_>>()?;
                Ok(Val::Seq(items))
            }
            SeqOp::Fold { z, f, s } => {
                let mut acc = self.eval(z)?;
                for x in self.eval(s)?.into_seq()? {
                    acc = self.apply(f, [acc, x])?;
                }
                Ok(acc)
            }
            SeqOp::Elements(s) => {
                let mut elems = Vec::new();
                for x in self.eval(s)?.into_seq()? {
                    elems.extend(x.into_array()?.data.iter().cloned().map(Val::Elem));
                }
                Ok(Val::Seq(elems))
            }
            SeqOp::Tabulate(s) => {
                let data = self
                    .eval(s)?
                    .into_seq()?
                    .into_iter()
                    .map(|x| match x {
                        Val::Elem(e) => Ok(e),
                        Val::Array(a) => scalar_element(&a).ok_or_else(|| ill_typed("tabulate of non-scalar arrays")),
                        other => Err(ill_typed(format!("tabulate of {}", other.kind()))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                let n = data.len();
                new_array(ty, vec![n], data)
            }
            SeqOp::Collect(s) => {
                let items = self.eval(s)?.into_seq()?;
                collect(ty, items)
            }
        }
    }
}

/// The scalar type of parameter `i` of a closure (the type of a generated counter).
fn scalar_param(f: &Lambda, i: usize) -> Result<ScalarType> {
    f.params
        .get(i)
        .and_then(|(_, t)| t.as_elem()?.as_scalar())
        .ok_or_else(|| ill_typed(format!("parameter {i} of a closure is not a scalar")))
}

fn usize_elem(n: usize) -> ElemValue {
    ElemValue::Scalar(ScalarValue::Usize(n))
}

/// The element of a rank-0 array.
fn scalar_element(a: &ArrayValue) -> Option<ElemValue> {
    if a.rank() == 0 { a.data.first().cloned() } else { None }
}

/// The value of a `Scalar<bool>` (an `awhile` condition).
fn scalar_bool(a: &ArrayValue) -> Result<bool> {
    match scalar_element(a) {
        Some(ElemValue::Scalar(ScalarValue::Bool(b))) => Ok(b),
        _ => Err(ill_typed("an awhile condition that is not a Scalar<bool>")),
    }
}

/// The result of `nested_map`: a vector when every row gave an element (or a `Scalar`, as a row
/// reduction does), a nested array when every row gave a vector.
fn nested_map_result(ty: &Type, rows: Vec<Val>, phantom: Option<&Val>) -> Result<Val> {
    match ty {
        Type::Array { rank: 1, .. } => {
            let data = rows
                .into_iter()
                .map(|r| match r {
                    Val::Elem(e) => Ok(e),
                    Val::Array(a) => {
                        scalar_element(&a).ok_or_else(|| ill_typed("nested_map rows giving non-scalar arrays"))
                    }
                    other => Err(ill_typed(format!("nested_map rows giving {}", other.kind()))),
                })
                .collect::<Result<Vec<_>>>()?;
            let n = data.len();
            new_array(ty, vec![n], data)
        }
        Type::Array { rank: 2, .. } => {
            let mut cols = match phantom {
                Some(Val::Array(a)) => a.len(),
                _ => 0,
            };
            let mut data = Vec::new();
            for (i, r) in rows.iter().enumerate() {
                let a = r.clone().into_array()?;
                if i == 0 {
                    cols = a.len();
                } else if a.len() != cols {
                    return Err(ill_typed("map_rows rows giving vectors of different lengths"));
                }
                data.extend(a.data.iter().cloned());
            }
            new_array(ty, vec![rows.len(), cols], data)
        }
        Type::Nested(elem) => {
            let mut lengths = Vec::with_capacity(rows.len());
            let mut data = Vec::new();
            for r in rows {
                let a = r.into_array()?;
                if a.rank() != 1 {
                    return Err(ill_typed("nested_map rows giving arrays that are not vectors"));
                }
                lengths.push(a.len());
                data.extend(a.data.iter().cloned());
            }
            let segments = SegmentsValue::from_lengths("nested_map", lengths)?;
            let values = new_array(&Type::array(elem.clone(), 1), vec![data.len()], data)?;
            Ok(Val::Nested { segments: Rc::new(segments), values: values.into_array()? })
        }
        Type::Tuple(types) => {
            // A tuple per row: each part gathered on its own.
            let mut parts: Vec<Vec<Val>> = vec![Vec::with_capacity(rows.len()); types.len()];
            for r in rows {
                let Val::Tuple(vs) = r else { return Err(ill_typed("nested_map rows giving no tuple")) };
                for (k, v) in vs.into_iter().enumerate() {
                    parts.get_mut(k).ok_or_else(|| ill_typed("nested_map rows giving a longer tuple"))?.push(v);
                }
            }
            let phantoms: Vec<Option<&Val>> = match phantom {
                Some(Val::Tuple(vs)) => vs.iter().map(Some).collect(),
                _ => vec![None; types.len()],
            };
            let vals = types
                .iter()
                .zip(parts)
                .zip(phantoms)
                .map(|((t, p), ph)| nested_map_result(t, p, ph))
                .collect::<Result<Vec<_>>>()?;
            Ok(Val::Tuple(vals))
        }
        _ => Err(ill_typed(format!("nested_map of type {ty}"))),
    }
}

/// Gathers a stream into one array: elements (or `Scalar`s) and vectors into a vector, arrays of
/// higher rank along their outermost dimension.
fn collect(ty: &Type, items: Vec<Val>) -> Result<Val> {
    let Some((_, rank)) = ty.as_array().filter(|&(_, rank)| rank > 0) else {
        return Err(ill_typed(format!("collect of type {ty}")));
    };
    let mut data = Vec::new();
    if rank == 1 {
        for x in items {
            match x {
                Val::Elem(e) => data.push(e),
                Val::Array(a) if a.rank() <= 1 => data.extend(a.data.iter().cloned()),
                other => {
                    return Err(ill_typed(format!("collect of {} into a vector", other.kind())));
                }
            }
        }
        let n = data.len();
        return new_array(ty, vec![n], data);
    }
    let mut shape = vec![0; rank];
    for (k, x) in items.into_iter().enumerate() {
        let a = x.into_array()?;
        if a.rank() != rank {
            return Err(ill_typed(format!("collect of arrays of rank {} into rank {rank}", a.rank())));
        }
        if k == 0 {
            shape[1..].copy_from_slice(&a.shape[1..]);
        } else if a.shape[1..] != shape[1..] {
            return Err(Error::shape_mismatch(
                "collect",
                format!("inner dimensions {:?}", &shape[1..]),
                format!("{:?} in stream item {k}", &a.shape[1..]),
            ));
        }
        shape[0] += a.shape[0];
        data.extend(a.data.iter().cloned());
    }
    new_array(ty, shape, data)
}
