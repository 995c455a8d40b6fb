//! The executor: runs a program's IR on a [`Gpu`], launching the kernels that `accel-build`
//! compiled for it (Accelerate's execute phase).
//!
//! The host walks the IR: scalar code, control flow and shapes are evaluated here (with the
//! interpreter's scalar semantics); every collective node allocates its outputs and launches the
//! kernels [`kernel::roles`] lists, passing the words [`accel_core::kernel`] lays out. Fused forms
//! (see `accel_core::fusion`): a delayed operand is never evaluated, only its shape; an epilogue
//! runs its reduction's or scan's launches with its own output; a delayed read in host code
//! computes the one element it reads here. Nodes fusion absorbed are never launched. Launches are
//! asynchronous on the device's one stream; the host waits only where it needs a value (a scalar
//! read, the size of a `filter` result, a loop condition) and, when some kernel of the program can
//! fail ([`kernel::program_may_fail`]), at the end, where it collects any error a kernel recorded
//! in the run's error slot. What the walk needs beyond the IR (node ids, interfaces, kernels) is
//! prepared once per program and device (`super::prepared`).

use super::prepared::Prepared;
use super::value::{DArray, DSegments, DValue, array_words, elem_words, ill_typed, scalar_bytes, words};
use super::{DeviceBuffer, DeviceModule, Gpu, Kernel};
use accel_core::interp::scalar;
use accel_core::ir::{ArrayOp, Axis, BinaryOp, Expr, ExprKind, Lambda, Program, ScanKind};
use accel_core::kernel::{self, PermuteCombine, role};
use accel_core::types::{ElemType, ScalarType, Type};
use accel_core::value::{ElemValue, ScalarValue};
use accel_core::{Error, Result, shape};
use accel_kernels::abi::{self, ERROR_SLOT_WORDS, GENERATE_UNROLL, SINGLE_PASS_CHUNK, TILE, WARP};
use std::sync::Arc;

/// The largest input (elements) whose reduction finishes in one launch. Measured on an H100
/// (docs/benchmarks.md): one launch saves some 5 µs up to 2^20 elements, breaks even at 2^24,
/// and above that (or with hundreds of thousands of two-part rows) the fences and the one warp's
/// serial fold of thousands of partials cost more than the second launch.
const ONE_LAUNCH_MAX: usize = 1 << 22;

impl Gpu {
    /// Runs `program` on `args`; its kernels are in `module`, named after `prefix`, the
    /// program's `kernel_prefix()`.
    ///
    /// A run whose kernels cannot fail ([`kernel::program_may_fail`]) returns as soon as its
    /// work is queued, its results on the device; one whose kernels can waits for them at the end
    /// and reports the first error they recorded.
    pub fn execute(
        &self,
        program: &'static Program,
        prefix: &'static str,
        module: &'static DeviceModule,
        args: Vec<DValue>,
    ) -> Result<DValue> {
        let prepared = self.prepared(program, prefix, module);
        // A slot per run: programs running at the same time on other threads keep their errors.
        // Kernels that cannot fail get the device's slot, which they never write.
        let slot = if prepared.may_fail { Some(self.clean_slot()?) } else { None };
        let mut ex = Exec { gpu: self, prepared: &prepared, env: Vec::new(), slot };
        for ((v, _), a) in program.params.iter().zip(args) {
            ex.env.push((v.id, a));
        }
        let result = ex.eval(&program.body);
        // A kernel's error explains any later failure, so it wins.
        let checked = ex.check_device();
        if checked.is_ok()
            && let Some(slot) = ex.slot
        {
            self.recycle_slot(slot);
        }
        checked?;
        result
    }
}

struct Exec<'a> {
    gpu: &'a Gpu,
    prepared: &'a Prepared,
    env: Vec<(u32, DValue)>,
    /// Where this run's kernels record the first failure (see `accel_kernels::abi`), if they can.
    slot: Option<DeviceBuffer>,
}

/// The flag buffers of a reduction's or scan's scratch: a reduction has only partials; a scan's
/// three phases overwrite every flag they read; a single-pass scan needs them zeroed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flags {
    None,
    Any,
    Zeroed,
}

/// The launch geometry of a reduction or scan: rows, and chunks per row.
struct Split {
    rows: usize,
    parts: usize,
}

impl<'a> Exec<'a> {
    /// The address of the error slot the kernels receive.
    fn slot_address(&self) -> u64 {
        self.slot.as_ref().unwrap_or(self.gpu.error_slot()).ptr()
    }

    /// If the run's kernels can fail: waits for the device and turns an error a kernel recorded
    /// into an `Error`.
    fn check_device(&self) -> Result<()> {
        let Some(slot) = &self.slot else { return Ok(()) };
        let mut bytes = [0u8; ERROR_SLOT_WORDS * size_of::<u64>()];
        slot.download_into(0, &mut bytes)?;
        let words: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        if words[0] == 0 { Ok(()) } else { Err(self.device_error(&words)) }
    }

    fn device_error(&self, slot: &[u64]) -> Error {
        let code = slot[0] as u32;
        let rank = (slot[2] as usize).min(3);
        let index: Vec<usize> = slot[3..3 + rank].iter().map(|&x| x as usize).collect();
        let shape: Vec<usize> = slot[6..6 + rank].iter().map(|&x| x as usize).collect();
        let node_name = || self.prepared.nodes.get(slot[1] as usize).map_or("fold", |op| op.name());
        match code {
            abi::code::INDEX_OUT_OF_BOUNDS => {
                let op = match slot[1] {
                    abi::site::BACKPERMUTE => "backpermute",
                    abi::site::PERMUTE => "permute",
                    _ => "index",
                };
                Error::index_out_of_bounds(op, &index, &shape)
            }
            abi::code::DIVISION_BY_ZERO => Error::division_by_zero("/"),
            abi::code::REMAINDER_BY_ZERO => Error::division_by_zero("%"),
            abi::code::EMPTY_REDUCTION => Error::empty_reduction(node_name()),
            abi::code::NEGATIVE_COUNT => Error::invalid_argument(
                "expand",
                format!("the count of element {} is {}, which is negative", slot[3], slot[9] as i64),
            ),
            abi::code::NEGATIVE_LENGTH => Error::invalid_segments(
                "segments",
                format!("segment {} has the negative length {}", slot[3], slot[9] as i64),
            ),
            other => ill_typed(format!("unknown device error code {other}")),
        }
    }

    fn lookup(&self, id: u32) -> Result<DValue> {
        match self.env.iter().rev().find(|(v, _)| *v == id) {
            Some((_, v)) => Ok(v.clone()),
            None => Err(ill_typed(format!("unbound variable #{id}"))),
        }
    }

    fn eval(&mut self, e: &'a Expr) -> Result<DValue> {
        Ok(match &e.kind {
            ExprKind::Var(v) => self.lookup(v.id)?,
            ExprKind::Const(c) => DValue::Elem(ElemValue::Scalar(scalar::constant(c)?)),
            ExprKind::Let { var, value, body } => {
                let v = self.eval(value)?;
                self.env.push((var.id, v));
                let r = self.eval(body);
                self.env.pop();
                r?
            }
            ExprKind::Tuple(parts) => DValue::tuple(parts.iter().map(|p| self.eval(p)).collect::<Result<_>>()?),
            ExprKind::Proj(x, i) => self.eval(x)?.proj(*i)?,
            ExprKind::If { cond, then, els } => {
                if self.eval_bool(cond)? {
                    self.eval(then)?
                } else {
                    self.eval(els)?
                }
            }
            ExprKind::Unary(op, x) => scalar_value(scalar::unary(*op, self.eval_scalar(x)?)?),
            ExprKind::Binary(BinaryOp::And, a, b) => {
                scalar_value(ScalarValue::Bool(self.eval_bool(a)? && self.eval_bool(b)?))
            }
            ExprKind::Binary(BinaryOp::Or, a, b) => {
                scalar_value(ScalarValue::Bool(self.eval_bool(a)? || self.eval_bool(b)?))
            }
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.eval_scalar(a)?, self.eval_scalar(b)?);
                scalar_value(scalar::binary(*op, x, y)?)
            }
            ExprKind::Cast(x, t) => scalar_value(self.eval_scalar(x)?.cast(*t)),
            ExprKind::Math(f, args) => {
                let xs = args.iter().map(|a| self.eval_scalar(a)).collect::<Result<Vec<_>>>()?;
                scalar_value(scalar::math(*f, &xs)?)
            }
            ExprKind::Index { array, index, site } => {
                // A delayed read: the one element, computed here (its generate has no kernel).
                if let Some(ArrayOp::Generate { shape, f, .. }) = kernel::as_generate(array) {
                    let shape = self.eval_index(shape)?;
                    let ix = self.eval_index(index)?;
                    if ix.len() != shape.len() || ix.iter().zip(&shape).any(|(i, n)| i >= n) {
                        return Err(Error::index_out_of_bounds(site.name(), &ix, &shape));
                    }
                    return self.apply(f, vec![DValue::Elem(ElemValue::from_index(&ix))]);
                }
                let a = self.eval(array)?.into_array()?;
                let ix = self.eval_index(index)?;
                if ix.len() != a.shape.len() || ix.iter().zip(&a.shape).any(|(i, n)| i >= n) {
                    return Err(Error::index_out_of_bounds(site.name(), &ix, &a.shape));
                }
                let linear = ix.iter().zip(&a.shape).fold(0, |k, (i, n)| k * n + i);
                self.check_device()?;
                DValue::Elem(a.read(linear)?)
            }
            ExprKind::Shape(a) => {
                let a = self.eval(a)?.into_array()?;
                DValue::Elem(ElemValue::from_index(&a.shape))
            }
            ExprKind::Len(a) => {
                let n = match self.eval(a)? {
                    DValue::Array(a) => a.len(),
                    DValue::Segments(s) | DValue::Nested { segments: s, .. } => s.count,
                    other => return Err(ill_typed(format!("the length of {other:?}"))),
                };
                scalar_value(ScalarValue::Usize(n))
            }
            ExprKind::Iterate { count, init, f } => {
                let n = self.eval_count(count, "iterate")?;
                let mut x = self.eval(init)?;
                for _ in 0..n {
                    x = self.apply(f, vec![x])?;
                }
                x
            }
            ExprKind::WhileLoop { init, cond, step } => {
                let mut x = self.eval(init)?;
                while self.apply(cond, vec![x.clone()])?.into_elem()?.as_scalar().and_then(|s| s.as_bool())
                    == Some(true)
                {
                    x = self.apply(step, vec![x])?;
                }
                x
            }
            ExprKind::Array(op) => self.array_op(op, &e.ty)?,
        })
    }

    fn apply(&mut self, f: &'a Lambda, args: Vec<DValue>) -> Result<DValue> {
        let mark = self.env.len();
        for ((v, _), a) in f.params.iter().zip(args) {
            self.env.push((v.id, a));
        }
        let r = self.eval(&f.body);
        self.env.truncate(mark);
        r
    }

    fn eval_elem(&mut self, e: &'a Expr) -> Result<ElemValue> {
        self.eval(e)?.into_elem()
    }

    fn eval_scalar(&mut self, e: &'a Expr) -> Result<ScalarValue> {
        let v = self.eval_elem(e)?;
        v.as_scalar().ok_or_else(|| ill_typed(format!("{v:?} where a scalar was expected")))
    }

    fn eval_bool(&mut self, e: &'a Expr) -> Result<bool> {
        let v = self.eval_scalar(e)?;
        v.as_bool().ok_or_else(|| ill_typed(format!("{v:?} where a bool was expected")))
    }

    fn eval_index(&mut self, e: &'a Expr) -> Result<Vec<usize>> {
        let v = self.eval_elem(e)?;
        v.to_index().ok_or_else(|| ill_typed(format!("{v:?} is not an index")))
    }

    /// A count given as any integer type; negative is `InvalidArgument` of `op`.
    fn eval_count(&mut self, e: &'a Expr, op: &str) -> Result<usize> {
        let x = self.eval_scalar(e)?;
        let n: i128 = match x {
            ScalarValue::I32(v) => v.into(),
            ScalarValue::I64(v) => v.into(),
            ScalarValue::U32(v) => v.into(),
            ScalarValue::U64(v) => v.into(),
            ScalarValue::Usize(v) => v as i128,
            other => return Err(ill_typed(format!("a count of type {}", other.scalar_type()))),
        };
        usize::try_from(n).map_err(|_| Error::invalid_argument(op, format!("{n} is not a valid count")))
    }

    /// Launches kernel `role` of `node` over `items` warps (`warps`) or elements, in one wave.
    fn launch(&self, node: usize, role: &str, warps: bool, items: usize, words: &[u64]) -> Result<()> {
        // Elementwise skeletons (`accel_kernels::generate`) give each thread GENERATE_UNROLL
        // elements a step (`generate_each` one: its threads loop more in the same one wave).
        let threads = match (warps, role) {
            (true, _) => items.saturating_mul(WARP),
            (false, role::GENERATE | role::DEFAULTS | role::SCATTER) => items.div_ceil(GENERATE_UNROLL),
            (false, _) => items,
        };
        if threads == 0 {
            return Ok(());
        }
        let k = self.kernel(node, role)?;
        self.gpu.launch(k, self.gpu.resident_grid(k, threads), words)
    }

    fn kernel(&self, node: usize, role: &str) -> Result<&'a Kernel> {
        self.prepared.kernel(self.gpu, node, role)
    }

    /// A fresh array of `shape` (contents undefined until a kernel writes them).
    fn alloc_array(&self, elem: &ElemType, shape: Vec<usize>) -> Result<DArray> {
        let n: usize = checked_size(&shape)?;
        let columns = elem
            .leaves()
            .iter()
            .map(|t| {
                let bytes = n.checked_mul(t.size_bytes()).ok_or_else(|| too_large(&shape))?;
                self.gpu.alloc(bytes).map(Arc::new)
            })
            .collect::<Result<_>>()?;
        Ok(DArray { elem: elem.clone(), shape, columns })
    }

    fn array_op(&mut self, op: &'a ArrayOp, ty: &Type) -> Result<DValue> {
        use ArrayOp::*;
        let name = op.name();
        Ok(match op {
            Unit(x) => {
                let v = self.eval_elem(x)?;
                let elem = ty.as_array().map(|(e, _)| e.clone()).ok_or_else(|| ill_typed(format!("unit of {ty}")))?;
                let mut leaves = Vec::new();
                leaf_scalars(&v, &mut leaves);
                let columns = leaves
                    .into_iter()
                    .map(|s| self.gpu.upload(&scalar_bytes(s)).map(Arc::new))
                    .collect::<Result<_>>()?;
                DValue::Array(DArray { elem, shape: vec![], columns })
            }
            The(a) => {
                let a = self.eval(a)?.into_array()?;
                self.check_device()?;
                DValue::Elem(a.read(0)?)
            }
            Reshape { shape, a } => {
                let shape = self.eval_index(shape)?;
                let mut a = self.eval(a)?.into_array()?;
                if shape.iter().try_fold(1usize, |k, &d| k.checked_mul(d)) != Some(a.len()) {
                    return Err(Error::shape_mismatch(
                        name,
                        format!("a shape of {} elements like {:?}", a.len(), a.shape),
                        format!("{shape:?}"),
                    ));
                }
                a.shape = shape;
                DValue::Array(a)
            }
            Unzip(a) => {
                let a = self.eval(a)?.into_array()?;
                let Type::Tuple(parts) = ty else { return Err(ill_typed(format!("unzip to {ty}"))) };
                let mut columns = a.columns.into_iter();
                let mut arrays = Vec::with_capacity(parts.len());
                for t in parts {
                    let elem =
                        t.as_array().map(|(e, _)| e.clone()).ok_or_else(|| ill_typed(format!("unzip to {t}")))?;
                    let columns = columns.by_ref().take(elem.leaves().len()).collect();
                    arrays.push(DValue::Array(DArray { elem, shape: a.shape.clone(), columns }));
                }
                DValue::Tuple(arrays)
            }
            SegmentOffsets(s) => {
                let s = self.eval(s)?.into_segments()?;
                DValue::Array(DArray {
                    elem: ElemType::Scalar(ScalarType::Usize),
                    shape: vec![s.count + 1],
                    columns: vec![s.offsets],
                })
            }
            NestedFromParts { segments, values } => {
                let segments = self.eval(segments)?.into_segments()?;
                let values = self.eval(values)?.into_array()?;
                if segments.total != values.len() {
                    return Err(Error::invalid_segments(
                        "nested",
                        format!("the segments cover {} values but there are {}", segments.total, values.len()),
                    ));
                }
                DValue::Nested { segments, values }
            }
            NestedValues(n) => match self.eval(n)? {
                DValue::Nested { values, .. } => DValue::Array(values),
                other => return Err(ill_typed(format!("values of {other:?}"))),
            },
            NestedSegments(n) => match self.eval(n)? {
                DValue::Nested { segments, .. } => DValue::Segments(segments),
                other => return Err(ill_typed(format!("segments of {other:?}"))),
            },
            Awhile { init, cond, step } => {
                let mut x = self.eval(init)?;
                loop {
                    let c = self.apply(cond, vec![x.clone()])?.into_array()?;
                    self.check_device()?;
                    if c.read(0)?.as_scalar().and_then(|s| s.as_bool()) != Some(true) {
                        break x;
                    }
                    x = self.apply(step, vec![x])?;
                }
            }
            NestedMap { .. } | Seq(_) => {
                return Err(Error::invalid_argument(name, "this operation has no GPU implementation yet"));
            }
            Generate { .. } | Fill { .. } | Iota { .. } | Map { .. } | IMap { .. } | ZipWith { .. } => {
                self.kernel_op(op, ty)?
            }
            Fold { .. } | FoldAll { .. } | FoldSeg { .. } | Scan { .. } | ScanSeg { .. } => self.kernel_op(op, ty)?,
            Backpermute { .. } | Permute { .. } | Reverse(_) | Transpose(_) | Take { .. } | Drop { .. } => {
                self.kernel_op(op, ty)?
            }
            Concat { .. } | Replicate { .. } | Slice { .. } | Stencil { .. } | Expand { .. } | Filter { .. } => {
                self.kernel_op(op, ty)?
            }
            SegmentsFromLengths(_) | SegmentLengths(_) => self.kernel_op(op, ty)?,
        })
    }

    /// An operand as its kernels receive it: a delayed one by its shape alone.
    fn operand(&mut self, e: &'a Expr) -> Result<Operand> {
        Ok(match kernel::as_generate(e) {
            Some(ArrayOp::Generate { shape, .. }) => Operand::Delayed(self.eval_index(shape)?),
            _ => Operand::Value(self.eval(e)?),
        })
    }

    /// A node that launches kernels: evaluate its inputs, allocate its outputs, launch. An
    /// epilogue (`op`) launches the kernels of its reduction or scan (`body`) under its own id.
    fn kernel_op(&mut self, op: &'a ArrayOp, ty: &Type) -> Result<DValue> {
        use ArrayOp::*;
        let id = self.prepared.id(op)?;
        let body = kernel::epilogue_source(op).unwrap_or(op);
        let name = body.name();
        let iface = self.prepared.interface(id);
        let operands = iface.operands.iter().map(|e| self.operand(e)).collect::<Result<Vec<_>>>()?;
        let scalars = iface.host_scalars.iter().map(|e| self.eval_elem(e)).collect::<Result<Vec<_>>>()?;
        let captures = iface.captures.iter().map(|(v, _)| self.lookup(v.id)).collect::<Result<Vec<_>>>()?;
        let mut tail = Vec::new();
        scalars.iter().for_each(|s| elem_words(s, &mut tail));
        for o in &operands {
            match o {
                Operand::Value(v) => words(v, &mut tail),
                Operand::Delayed(shape) => tail.extend(shape.iter().map(|&d| d as u64)),
            }
        }
        captures.iter().for_each(|v| words(v, &mut tail));
        // The shape of array operand `i`, manifest or delayed.
        let shape_of = |i: usize| match &operands[i] {
            Operand::Value(DValue::Array(a)) => Ok(&a.shape),
            Operand::Delayed(shape) => Ok(shape),
            Operand::Value(other) => Err(ill_typed(format!("operand {i} of {name} is {other:?}"))),
        };
        let len_of = |i: usize| shape_of(i).map(|s| s.iter().product::<usize>());
        let segs = |i: usize| match &operands[i] {
            Operand::Value(DValue::Segments(s)) => Ok(s),
            other => Err(ill_typed(format!("operand {i} of {name} is {other:?}"))),
        };
        let out_elem =
            |t: &Type| t.as_array().map(|(e, _)| e.clone()).ok_or_else(|| ill_typed(format!("{name} of {t}")));
        let slot = self.slot_address();

        // Elementwise nodes: one `generate` kernel over the output.
        let shape: Option<Vec<usize>> = match body {
            Generate { shape, .. } | Fill { shape, .. } | Backpermute { shape, .. } => Some(self.eval_index(shape)?),
            Iota { n } => Some(vec![self.eval_count(n, name)?]),
            Map { .. } | IMap { .. } | Reverse(_) | Stencil { .. } => Some(shape_of(0)?.clone()),
            ZipWith { .. } => {
                let mut s = shape_of(0)?.clone();
                shape::intersect(&mut s, shape_of(1)?);
                Some(s)
            }
            Transpose(_) => {
                let &[rows, cols] = shape_of(0)?.as_slice() else {
                    return Err(ill_typed(format!("{name} of an array that is not a matrix")));
                };
                Some(shape::transpose(&[rows, cols]).to_vec())
            }
            Take { n, .. } => {
                let mut s = shape_of(0)?.clone();
                shape::take(&mut s, &self.eval_count(n, name)?);
                Some(s)
            }
            Drop { n, .. } => {
                let mut s = shape_of(0)?.clone();
                shape::drop(&mut s, &self.eval_count(n, name)?);
                Some(s)
            }
            Concat { .. } => {
                let mut s = shape_of(0)?.clone();
                shape::concat(&mut s, shape_of(1)?)
                    .map_err(|_| Error::invalid_argument(name, "the result is too large"))?;
                Some(s)
            }
            Replicate { axis, n, .. } => {
                let n = self.eval_count(n, name)?;
                Some(shape::replicate(*axis, &n, &len_of(0)?).to_vec())
            }
            Slice { axis, .. } => {
                let i = scalars[0].as_scalar().and_then(|s| s.as_usize());
                let s = shape_of(0)?;
                let (extent, at) = match axis {
                    Axis::Rows => (s[0], [i.unwrap_or(usize::MAX), 0]),
                    Axis::Cols => (s[1], [0, i.unwrap_or(usize::MAX)]),
                };
                match i {
                    Some(i) if i < extent => {}
                    Some(_) => return Err(Error::index_out_of_bounds(name, &at, s)),
                    None => {
                        return Err(Error::invalid_argument(name, format!("{:?} is not a valid index", scalars[0])));
                    }
                }
                Some(vec![if *axis == Axis::Rows { s[1] } else { s[0] }])
            }
            SegmentLengths(_) => Some(vec![segs(0)?.count]),
            _ => None,
        };
        if let Some(shape) = shape {
            let out = self.alloc_array(&out_elem(ty)?, shape)?;
            let mut w = vec![slot];
            array_words(&out, &mut w);
            w.extend(&tail);
            self.launch(id, role::GENERATE, false, out.len(), &w)?;
            return Ok(DValue::Array(out));
        }

        match body {
            Fold { z, f, .. } | FoldAll { z, f, .. } | FoldSeg { z, f, .. } => {
                let a_shape = shape_of(0)?;
                let a_len = len_of(0)?;
                let rank = a_shape.len();
                if rank == 0 {
                    return Err(ill_typed(format!("{name} of a scalar")));
                }
                let last = a_shape[rank - 1];
                let outer: usize = a_shape[..rank - 1].iter().product();
                let (out_shape, rows, avg_len) = match body {
                    Fold { .. } => (a_shape[..rank - 1].to_vec(), outer, last),
                    FoldAll { .. } => (vec![], 1, a_len),
                    _ => {
                        let s = segs(1)?;
                        check_cover(name, s.total, last)?;
                        let mut shape = a_shape[..rank - 1].to_vec();
                        shape.push(s.count);
                        let rows = outer * s.count;
                        (shape, rows, a_len.checked_div(rows).unwrap_or(0))
                    }
                };
                let empty_rows = match body {
                    FoldSeg { .. } => false,
                    _ => avg_len == 0,
                };
                if z.is_none() && empty_rows && rows > 0 {
                    return Err(Error::empty_reduction(name));
                }
                // Under an epilogue the output's element type may differ from the partials'.
                let out = self.alloc_array(&out_elem(ty)?, out_shape)?;
                let split = self.split(self.kernel(id, role::REDUCE)?, rows, avg_len);
                let (scratch, _keep) = self.scratch(&combined_elem(f, name)?, &split, Flags::None)?;
                // Rows of several parts meet in the same launch for small inputs, where a second
                // launch costs more than the meeting (see `accel_kernels::reduce`).
                let one_launch = split.parts > 1 && a_len <= ONE_LAUNCH_MAX;
                let tickets = if one_launch { Some(self.gpu.tickets(split.rows)?) } else { None };
                let mut w = vec![slot];
                array_words(&out, &mut w);
                w.extend(&scratch);
                w.push(tickets.as_ref().map_or(0, |t| t.ptr()));
                w.extend(&tail);
                self.launch(id, role::REDUCE, true, split.rows * split.parts, &w)?;
                if split.parts > 1 && !one_launch {
                    self.launch(id, role::FINISH, true, split.rows, &w)?;
                }
                Ok(DValue::Array(out))
            }
            Scan { kind, f, .. } | ScanSeg { kind, f, .. } => {
                let a_shape = shape_of(0)?;
                let a_len = len_of(0)?;
                let rank = a_shape.len();
                let last = a_shape[rank - 1];
                let outer: usize = a_shape[..rank - 1].iter().product();
                let (rows, avg_len, extra) = match body {
                    Scan { .. } => (outer, last, 1),
                    _ => {
                        let s = segs(1)?;
                        check_cover(name, s.total, last)?;
                        let rows = outer * s.count;
                        (rows, a_len.checked_div(rows).unwrap_or(0), s.count)
                    }
                };
                let mut shape = a_shape.clone();
                if *kind == ScanKind::WithSeed {
                    shape[rank - 1] = last
                        .checked_add(extra)
                        .ok_or_else(|| Error::invalid_argument(name, "the result is too large"))?;
                }
                let elem = combined_elem(f, name)?;
                let (out, totals) = match kind {
                    ScanKind::ExclusiveAndTotal => {
                        (self.alloc_array(&elem, shape)?, Some(self.alloc_array(&elem, a_shape[..rank - 1].to_vec())?))
                    }
                    _ => (self.alloc_array(&out_elem(ty)?, shape)?, None),
                };
                let uniform = matches!(body, Scan { .. });
                let phase1 = self.kernel(id, if uniform { role::SCAN } else { role::CHUNKS })?;
                let mut split = self.split(phase1, rows, avg_len);
                // Rows of a regular array: the scan kernel alone, in one pass over chunks that a
                // warp holds in registers (`accel_kernels::scan::scan_single_pass`), when a row
                // has several; else one warp per row from its seed.
                let chunks = last.div_ceil(SINGLE_PASS_CHUNK);
                let single_pass = uniform
                    && split.parts > 1
                    && chunks > 1
                    && rows.checked_mul(chunks).is_some_and(|c| c <= u32::MAX as usize);
                if uniform {
                    split.parts = if single_pass { chunks } else { 1 };
                }
                let (scratch, _keep) =
                    self.scratch(&elem, &split, if single_pass { Flags::Zeroed } else { Flags::Any })?;
                let mut w = vec![slot];
                array_words(&out, &mut w);
                if let Some(t) = &totals {
                    array_words(t, &mut w);
                }
                w.extend(&scratch);
                w.extend(&tail);
                if !single_pass {
                    if split.parts > 1 {
                        self.launch(id, role::CHUNKS, true, split.rows * split.parts, &w)?;
                    }
                    self.launch(id, role::CARRIES, true, split.rows, &w)?;
                }
                self.launch(id, role::SCAN, true, split.rows * split.parts, &w)?;
                Ok(match totals {
                    Some(t) => DValue::Tuple(vec![DValue::Array(out), DValue::Array(t)]),
                    None => DValue::Array(out),
                })
            }
            Permute { defaults, combine, .. } => {
                // Delayed defaults are operand 1 and a kernel writes them; manifest ones are copied.
                let delayed = kernel::as_generate(defaults).is_some();
                let out = if delayed {
                    self.alloc_array(&out_elem(ty)?, shape_of(1)?.clone())?
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
                    _ => None,
                };
                let mut w = vec![slot];
                array_words(&out, &mut w);
                w.push(locks.as_ref().map_or(0, DeviceBuffer::ptr));
                w.extend(&tail);
                if delayed {
                    self.launch(id, role::DEFAULTS, false, out.len(), &w)?;
                }
                self.launch(id, role::SCATTER, false, len_of(0)?, &w)?;
                Ok(DValue::Array(out))
            }
            Expand { .. } | Filter { .. } | SegmentsFromLengths(_) => {
                let n = len_of(0)?;
                let counts = self.gpu.alloc_zeroed((n + 1) * size_of::<usize>())?;
                let offsets = Arc::new(self.gpu.alloc((n + 1) * size_of::<usize>())?);
                let scratch = [n as u64, counts.ptr(), offsets.ptr()];
                let out_elem = match body {
                    SegmentsFromLengths(_) => ElemType::Scalar(ScalarType::Usize),
                    _ => out_elem(ty)?,
                };
                // The counts kernel runs before the result exists: null output words.
                let mut w = vec![slot];
                w.extend(std::iter::repeat_n(0, kernel::word_count(ty)));
                w.extend(scratch);
                w.extend(&tail);
                self.launch(id, role::COUNTS, false, n, &w)?;
                self.offsets_scan(&counts, &offsets, n + 1)?;
                self.check_device()?;
                let mut total = [0u8; size_of::<usize>()];
                offsets.download_into(n * size_of::<usize>(), &mut total)?;
                let total = usize::from_ne_bytes(total);
                if let SegmentsFromLengths(_) = body {
                    return Ok(DValue::Segments(DSegments { count: n, total, offsets }));
                }
                let out = self.alloc_array(&out_elem, vec![total])?;
                let mut w = vec![slot];
                array_words(&out, &mut w);
                w.extend(scratch);
                w.extend(&tail);
                let items = if matches!(body, Filter { .. }) { n } else { total };
                self.launch(id, role::WRITE, false, items, &w)?;
                Ok(DValue::Array(out))
            }
            _ => Err(ill_typed(format!("{name} has no kernels"))),
        }
    }

    /// Chunks per row for `chunks`, the kernel of phase 1: enough to give each of its resident
    /// warps one, none shorter than a tile; and rows of `len` elements on average split into up
    /// to 16 parts of about LONG_PART elements even when there are enough rows, so that a few
    /// long segments among short ones do not leave one warp working through a long row while the
    /// others idle.
    fn split(&self, chunks: &Kernel, rows: usize, len: usize) -> Split {
        const LONG_PART: usize = 512;
        let target = self.gpu.resident_warps(chunks);
        let fill = if rows >= target || rows == 0 { 1 } else { target.div_ceil(rows).min(len.div_ceil(TILE)).max(1) };
        let spread = (len / LONG_PART).clamp(1, 16);
        Split { rows, parts: fill.max(spread) }
    }

    /// The scratch words of a reduction (`Flags::None`) or a scan (which adds the carries) and
    /// the buffers behind them.
    fn scratch(&self, elem: &ElemType, split: &Split, flags: Flags) -> Result<(Vec<u64>, Vec<DeviceBuffer>)> {
        let pairs = split.rows * split.parts;
        let mut w = vec![split.parts as u64];
        let mut keep = Vec::new();
        // Partials are only read when rows have several chunks.
        let partials = if split.parts > 1 { pairs } else { 0 };
        let mut vector = |count: usize, extra: usize, w: &mut Vec<u64>| -> Result<()> {
            let a = self.alloc_array(elem, vec![count])?;
            array_words(&a, w);
            let bytes = count.next_multiple_of(8) + extra;
            let flags = if flags == Flags::Zeroed { self.gpu.alloc_zeroed(bytes)? } else { self.gpu.alloc(bytes)? };
            w.push(flags.ptr());
            keep.extend(a.columns.into_iter().filter_map(|c| Arc::try_unwrap(c).ok()));
            keep.push(flags);
            Ok(())
        };
        vector(partials, 0, &mut w)?;
        if flags != Flags::None {
            // A single-pass scan's ticket follows the carry flags.
            vector(pairs, size_of::<u32>(), &mut w)?;
        }
        Ok((w, keep))
    }

    /// `offsets[i] = counts[0] + .. + counts[i - 1]` for `i < n`, with the module's scan kernels:
    /// one pass with decoupled look-back, or for at most one chunk the carries and the scan.
    fn offsets_scan(&self, counts: &DeviceBuffer, offsets: &DeviceBuffer, n: usize) -> Result<()> {
        let chunks = n.div_ceil(SINGLE_PASS_CHUNK);
        let single_pass = chunks > 1 && chunks <= u32::MAX as usize;
        let split = Split { rows: 1, parts: if single_pass { chunks } else { 1 } };
        let flags = if single_pass { Flags::Zeroed } else { Flags::Any };
        let (scratch, _keep) = self.scratch(&ElemType::Scalar(ScalarType::Usize), &split, flags)?;
        let mut w = vec![self.slot_address(), n as u64];
        w.extend(&scratch);
        w.extend([counts.ptr(), offsets.ptr()]);
        let run = |name: &'static str, items: usize| -> Result<()> {
            let k = self.prepared.offsets_scan(self.gpu, name)?;
            self.gpu.launch(k, self.gpu.resident_grid(k, items * WARP), &w)
        };
        if !single_pass {
            run(kernel::offsets_scan::CARRIES, 1)?;
        }
        run(kernel::offsets_scan::SCAN, split.parts)
    }
}

/// An operand of a kernel: a value, or a delayed array (a `Generate` its kernels compute in
/// place) by its shape.
#[derive(Debug)]
enum Operand {
    Value(DValue),
    Delayed(Vec<usize>),
}

/// The element type a reduction's or scan's function combines (that of its partials and carries).
fn combined_elem(f: &Lambda, name: &str) -> Result<ElemType> {
    f.params[0].1.as_elem().cloned().ok_or_else(|| ill_typed(format!("{name} combining {}", f.params[0].1)))
}

fn scalar_value(s: ScalarValue) -> DValue {
    DValue::Elem(ElemValue::Scalar(s))
}

fn leaf_scalars(v: &ElemValue, out: &mut Vec<ScalarValue>) {
    match v {
        ElemValue::Scalar(s) => out.push(*s),
        ElemValue::Tuple(parts) => parts.iter().for_each(|p| leaf_scalars(p, out)),
    }
}

fn checked_size(shape: &[usize]) -> Result<usize> {
    shape.iter().try_fold(1usize, |k, &d| k.checked_mul(d)).ok_or_else(|| too_large(shape))
}

fn too_large(shape: &[usize]) -> Error {
    Error::invalid_argument("allocate", format!("a result of shape {shape:?} is too large to allocate"))
}

fn check_cover(op: &str, total: usize, n: usize) -> Result<()> {
    if total == n {
        Ok(())
    } else {
        Err(Error::invalid_segments(
            op,
            format!("the segment lengths add up to {total} but the innermost dimension has {n} elements"),
        ))
    }
}
