//! The executor: runs a program's IR on a [`Gpu`], launching the kernels that `accel-build`
//! compiled for it (Accelerate's execute phase).
//!
//! The host runs the program's [`Schedule`](accel_core::schedule::Schedule), built once per
//! program and device: launches, host steps and `let`s in evaluation order, each evaluated with
//! the interpreter's own evaluator ([`Host`], one implementation for both) from the values of earlier
//! steps; scalar code and control flow are that evaluator's, shapes and single-element reads are
//! here; every collective node allocates its outputs and launches the kernels [`kernel::roles`]
//! lists, passing the words of its [`kernel::layout`]. Fused forms
//! (see `accel_core::fusion`): a delayed operand is never evaluated, only its shape; an epilogue
//! runs its reduction's or scan's launches with its own output; a delayed read in host code
//! computes the one element it reads here. Nodes fusion absorbed are never launched. Launches are
//! asynchronous on the device's default stream; the host waits only where it needs a value (a scalar
//! read, the size of a `filter` result, a loop condition the device computed; a `unit` the host
//! made keeps its value, [`DArray::known`], and costs no wait) and, when some kernel of the
//! program can fail ([`kernel::program_may_fail`]), at the end, where it collects any error a
//! kernel recorded in the run's error slot, after each read of a device value, and on rounds 1,
//! 2, 4, 8, .. of a loop whose condition the host computed (there without draining the device:
//! each such check waits only for the work up to the previous one, `super::probe`). What the
//! walk needs beyond the IR (node ids, layouts, kernels) is prepared once per program and device
//! (`super::prepared`).
//!
//! One module per skeleton, mirroring `accel-kernels` and the device code generator: `generate`
//! (the elementwise operations: their result shapes and one launch), `reduce`, `scan` (with the
//! module-wide offsets scan), `permute` and `expand` (expand, filter, segments from lengths).
//! This module evaluates a node's parameters ([`Call`]) and hands them to its skeleton.

mod expand;
mod generate;
mod permute;
mod reduce;
mod scan;

use super::prepared::Prepared;
use super::probe::Probe;
use super::value::{DArray, DSegments, DValue, array_words, elem_words, ill_typed, scalar_bytes, words};
use super::{DeviceBuffer, DeviceModule, Gpu, Kernel};
use accel_core::interp::Host;
use accel_core::ir::{ArrayOp, Expr, Program, ReadSite};
use accel_core::kernel::{self, Form, Param, Role};
use accel_core::types::{ElemType, ScalarType, Type};
use accel_core::value::{ElemValue, ScalarValue};
use accel_core::{Error, Result};
use accel_kernels::abi::{self, ERROR_SLOT_WORDS};
use std::sync::Arc;

impl Gpu {
    /// Runs `program` on `args`; its kernels are in `module`, named after `prefix`, the
    /// program's `kernel_prefix()`.
    ///
    /// A run whose kernels cannot fail ([`kernel::program_may_fail`]) returns as soon as its
    /// work is queued, its results on the device; one whose kernels can waits for them at the end
    /// and reports the first error they recorded. Everything runs on the default stream: device
    /// arguments written on another stream must be ordered before the call
    /// ([`Stream::wait_for`](super::Stream::wait_for)), and their buffers recorded as used on the
    /// default stream ([`DeviceBuffer::record_use`]) before they are dropped.
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
        let mut ex = Exec { gpu: self, prepared: &prepared, env: Vec::new(), ahead: Vec::new(), slot, probe: None };
        for ((v, _), a) in program.params.iter().zip(args) {
            ex.env.push((v.id, a));
        }
        let result = prepared.schedule.run(&mut ex);
        // A kernel's error explains any later failure, so it wins.
        let checked = ex.check_device();
        if let Some(probe) = ex.probe.take() {
            self.recycle_slot_probe(probe);
        }
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
    /// Operands of the current step, computed by earlier steps ([`Host::ahead`]).
    ahead: Vec<(usize, DValue)>,
    /// Where this run's kernels record the first failure (see `accel_kernels::abi`), if they can.
    slot: Option<DeviceBuffer>,
    /// Delayed looks at the slot, for the checks inside loops ([`Exec::check_behind`]); taken
    /// at the first.
    probe: Option<Probe<ERROR_SLOT_WORDS>>,
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

/// Scalar code and control flow are the interpreter's ([`Host`]); what differs is here: values on
/// the device, reads of single elements (a delayed one computed on the host), and collective
/// operations as kernel launches.
impl Host for Exec<'_> {
    type Value = DValue;

    fn env(&mut self) -> &mut Vec<(u32, DValue)> {
        &mut self.env
    }

    fn index(&mut self, array: &Expr, index: &Expr, site: ReadSite) -> Result<DValue> {
        // A delayed read: the one element, computed here (its generate has no kernel).
        if let Some(ArrayOp::Generate { shape, f, .. }) = kernel::as_generate(array) {
            let shape = self.eval_index(shape)?;
            let ix = self.eval_index(index)?;
            if ix.len() != shape.len() || ix.iter().zip(&shape).any(|(i, n)| i >= n) {
                return Err(site.out_of_bounds(&ix, &shape));
            }
            return self.apply(f, [DValue::Elem(ElemValue::from_index(&ix))]);
        }
        let a = self.eval(array)?.into_array()?;
        let ix = self.eval_index(index)?;
        if ix.len() != a.shape.len() || ix.iter().zip(&a.shape).any(|(i, n)| i >= n) {
            return Err(site.out_of_bounds(&ix, &a.shape));
        }
        let linear = ix.iter().zip(&a.shape).fold(0, |k, (i, n)| k * n + i);
        Ok(DValue::Elem(self.read(&a, linear)?))
    }

    fn shape(&mut self, a: &Expr) -> Result<Vec<usize>> {
        Ok(self.eval(a)?.into_array()?.shape)
    }

    fn len(&mut self, v: DValue) -> Result<usize> {
        match v {
            DValue::Array(a) => Ok(a.len()),
            DValue::Segments(s) | DValue::Nested { segments: s, .. } => Ok(s.count),
            other => Err(ill_typed(format!("the length of {other:?}"))),
        }
    }

    fn segment_of(&mut self, _: DValue, _: usize) -> Result<usize> {
        // Flattening puts segment lookups in element closures only, which kernels run.
        Err(ill_typed("a segment lookup in host code".into()))
    }

    fn array_op(&mut self, op: &ArrayOp, ty: &Type) -> Result<DValue> {
        self.collective(op, ty)
    }

    fn ill_typed(&self, what: String) -> Error {
        ill_typed(what)
    }

    fn ahead(&mut self) -> &mut Vec<(usize, DValue)> {
        &mut self.ahead
    }
}

impl<'a> Exec<'a> {
    /// The address of the error slot the kernels receive.
    fn slot_address(&self) -> u64 {
        self.slot.as_ref().unwrap_or(self.gpu.error_slot()).ptr()
    }

    /// Element `i` of `a`: a unit's known element, or downloaded once the device has computed
    /// it, and then only if no kernel has failed (the wait for the element is the wait for the
    /// error slot: the check after it finds the device idle).
    fn read(&self, a: &DArray, i: usize) -> Result<ElemValue> {
        let v = a.read(i)?;
        if a.known.is_none() {
            self.check_device()?;
        }
        Ok(v)
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

    /// If the run's kernels can fail: turns an error a kernel recorded before the previous call
    /// of this function into an `Error`, waiting only for the work queued up to that call (and
    /// none the first time), then looks again, later. Loops whose condition the host computes
    /// check with it, so that the device never runs out of queued work.
    fn check_behind(&mut self) -> Result<()> {
        let Some(slot) = &self.slot else { return Ok(()) };
        let probe = match &mut self.probe {
            Some(probe) => probe,
            None => self.probe.insert(self.gpu.slot_probe()?),
        };
        if let Some(words) = probe.look()?
            && words[0] != 0
        {
            return Err(self.device_error(&words));
        }
        probe.snapshot(self.gpu.default_stream(), slot)
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
                let e = Error::index_out_of_bounds(op, &index, &shape);
                match abi::site::source_number(slot[1]) {
                    Some(n) => e.at_read(n),
                    None => e,
                }
            }
            abi::code::DIVISION_BY_ZERO => Error::division_by_zero("/"),
            abi::code::REMAINDER_BY_ZERO => Error::division_by_zero("%"),
            abi::code::DIV_EUCLID_BY_ZERO => Error::division_by_zero("div_euclid"),
            abi::code::REM_EUCLID_BY_ZERO => Error::division_by_zero("rem_euclid"),
            abi::code::EMPTY_REDUCTION => Error::empty_reduction(node_name()),
            abi::code::NEGATIVE_COUNT => Error::invalid_argument(
                "expand",
                format!("the count of element {} is {}, which is negative", slot[3], slot[9] as i64),
            ),
            abi::code::TOO_MANY_OUTPUTS => permute::too_many_outputs(slot[3] as usize, slot[9] as usize),
            abi::code::NEGATIVE_LENGTH => Error::invalid_segments(
                "segments",
                format!("segment {} has the negative length {}", slot[3], slot[9] as i64),
            ),
            other => ill_typed(format!("unknown device error code {other}")),
        }
    }

    /// Launches kernel `role` of `node` over `items` items of its work (see [`Role::threads`]),
    /// in one wave.
    fn launch(&self, node: usize, role: Role, items: usize, words: &[u64]) -> Result<()> {
        let threads = role.threads(items);
        if threads == 0 {
            return Ok(());
        }
        let k = self.kernel(node, role)?;
        self.gpu.launch(k, self.gpu.resident_grid(k, threads), words)
    }

    fn kernel(&self, node: usize, role: Role) -> Result<&'a Kernel> {
        self.prepared.kernel(self.gpu, node, role)
    }

    /// A fresh array of `shape` (contents undefined until a kernel writes them).
    fn alloc_array(&self, elem: &ElemType, shape: Vec<usize>) -> Result<DArray> {
        self.alloc_array_mirrored(elem, shape, false)
    }

    /// [`Exec::alloc_array`], with a host mirror of each column if `mirrored`
    /// ([`Stream::alloc_mirrored`](super::Stream::alloc_mirrored)).
    fn alloc_array_mirrored(&self, elem: &ElemType, shape: Vec<usize>, mirrored: bool) -> Result<DArray> {
        let n: usize = checked_size(&shape)?;
        let stream = self.gpu.default_stream();
        let columns = elem
            .leaves()
            .iter()
            .map(|t| {
                // More bytes than the address space: no device has them (`OutOfDeviceMemory`).
                let bytes = n.saturating_mul(t.size_bytes());
                let column = if mirrored { stream.alloc_mirrored(bytes) } else { stream.alloc(bytes) };
                column.map(Arc::new)
            })
            .collect::<Result<_>>()?;
        Ok(DArray { elem: elem.clone(), shape, columns, known: None })
    }

    fn collective(&mut self, op: &ArrayOp, ty: &Type) -> Result<DValue> {
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
                DValue::Array(DArray { elem, shape: vec![], columns, known: Some(v) })
            }
            The(a) => {
                let a = self.eval(a)?.into_array()?;
                DValue::Elem(self.read(&a, 0)?)
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
                    arrays.push(DValue::Array(DArray { elem, shape: a.shape.clone(), columns, known: None }));
                }
                DValue::Tuple(arrays)
            }
            SegmentOffsets(s) => {
                let s = self.eval(s)?.into_segments()?;
                DValue::Array(DArray {
                    elem: ElemType::Scalar(ScalarType::Usize),
                    shape: vec![s.count + 1],
                    columns: vec![s.offsets],
                    known: None,
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
                let mut round = 0usize;
                loop {
                    round = round.wrapping_add(1);
                    let c = self.apply(cond, vec![x.clone()])?.into_array()?;
                    // A condition the host computed (`unit` of host values) needs no wait; the
                    // device's errors are then checked on rounds 1, 2, 4, 8, .., each check
                    // looking at the slot as it was at the one before (so that the device keeps
                    // the rounds queued since): a failed kernel cannot keep a loop running for
                    // more than four times its rounds.
                    if c.known.is_some() && round.is_power_of_two() {
                        self.check_behind()?;
                    }
                    if self.read(&c, 0)?.as_scalar().and_then(|s| s.as_bool()) != Some(true) {
                        break x;
                    }
                    x = self.apply(step, vec![x])?;
                }
            }
            NestedMap { .. } | Seq(_) => {
                return Err(Error::invalid_argument(name, "this operation has no GPU implementation yet"));
            }
            // A producer here is an epilogue, which runs its reduction's or scan's kernels (the
            // pipeline lowers every other producer to a `generate`).
            Generate { .. } | Producer(_) | Fold { .. } | FoldAll { .. } | FoldSeg { .. } | Scan { .. } => {
                self.kernel_op(op, ty)?
            }
            ScanSeg { .. } | Permute { .. } | Concat { .. } | Slice { .. } | Stencil { .. } | Expand { .. } => {
                self.kernel_op(op, ty)?
            }
            Filter { .. } | SegmentsFromLengths(_) | SegmentLengths(_) | ExpandPermute { .. } => {
                self.kernel_op(op, ty)?
            }
        })
    }

    /// A node that launches kernels: evaluates its parameters in [`kernel::layout`] order and hands
    /// them to the module of its skeleton, which allocates the outputs and launches. An epilogue
    /// (`op`) launches the kernels of its reduction or scan (`body`) under its own id.
    fn kernel_op(&mut self, op: &ArrayOp, ty: &Type) -> Result<DValue> {
        let id = self.prepared.id(op)?;
        let body = kernel::epilogue_source(op).unwrap_or(op);
        let name = body.name();
        // The words after the skeleton's own (error slot, outputs, scratch), in layout order; the
        // host scalars and operands are kept for the skeleton's checks and shapes.
        let mut call = Call {
            id,
            name,
            slot: self.slot_address(),
            combined: None,
            tail: Vec::new(),
            scalars: Vec::new(),
            operands: Vec::new(),
        };
        for param in self.prepared.layout(id) {
            match param {
                Param::ErrorSlot | Param::Output(_) => {}
                Param::Scratch(_, elem) => call.combined.clone_from(elem),
                Param::HostScalar(e) => {
                    let v = self.eval_elem(e)?;
                    elem_words(&v, &mut call.tail);
                    call.scalars.push(v);
                }
                Param::Operand(e) => {
                    let v = self.eval(e)?;
                    words(&v, &mut call.tail);
                    call.operands.push(Operand::Value(v));
                }
                Param::Delayed(e) => {
                    let Some(ArrayOp::Generate { shape, .. }) = kernel::as_generate(e) else {
                        return Err(ill_typed(format!("a delayed operand of {name} that is not a `generate`")));
                    };
                    let shape = self.eval_index(shape)?;
                    call.tail.extend(shape.iter().map(|&d| d as u64));
                    call.operands.push(Operand::Delayed(shape));
                }
                Param::Capture(v, _) => words(&self.lookup(v.id, &v.name)?, &mut call.tail),
            }
        }
        let mirrored = kernel::mirrors_result(body, ty);
        match kernel::form(body) {
            Form::Elementwise => self.elementwise(&call, body, ty),
            Form::Reduce { rows, seeded, .. } => self.reduce(&call, rows, seeded, ty, mirrored),
            Form::Scan { segmented, kind, .. } => self.scan(&call, segmented, kind, ty),
            Form::Permute { defaults, combine, .. } => self.permute(&call, defaults, combine, ty),
            Form::ExpandPermute { defaults, combine, .. } => self.expand_permute(&call, body, defaults, combine, ty),
            Form::Expand { .. } => self.counted(&call, expand::Counted::Expand, ty),
            Form::Filter { .. } => self.counted(&call, expand::Counted::Filter, ty),
            Form::SegmentsFromLengths(_) => self.counted(&call, expand::Counted::Segments, ty),
            Form::Producer => Err(ill_typed(format!("{name} was not lowered to a `generate`"))),
            Form::Host => Err(ill_typed(format!("{name} has no kernels"))),
        }
    }

    /// Chunks per row for `chunks`, the kernel of phase 1: enough to give each of its resident
    /// warps one, but no more than make parts of `min_part` elements; and rows of `len` elements
    /// on average split into up to 16 parts of about LONG_PART elements even when there are
    /// enough rows, so that a few long segments among short ones do not leave one warp working
    /// through a long row while the others idle.
    fn split(&self, chunks: &Kernel, rows: usize, len: usize, min_part: usize) -> Split {
        const LONG_PART: usize = 512;
        let target = self.gpu.resident_warps(chunks);
        let fill =
            if rows >= target || rows == 0 { 1 } else { target.div_ceil(rows).min(len.div_ceil(min_part)).max(1) };
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
        let mut vector = |count: usize, flag_bytes: usize, w: &mut Vec<u64>| -> Result<()> {
            let a = self.alloc_array(elem, vec![count])?;
            array_words(&a, w);
            let flags =
                if flags == Flags::Zeroed { self.gpu.alloc_zeroed(flag_bytes)? } else { self.gpu.alloc(flag_bytes)? };
            w.push(flags.ptr());
            keep.extend(a.columns.into_iter().filter_map(|c| Arc::try_unwrap(c).ok()));
            keep.push(flags);
            Ok(())
        };
        // A single-pass scan keeps a packed status word per tile in the partial flags
        // (`accel_kernels::scan::Lookback`), and its ticket after the carry flags.
        let partial_flags = if flags == Flags::Zeroed { 8 * partials } else { partials.next_multiple_of(8) };
        vector(partials, partial_flags, &mut w)?;
        if flags != Flags::None {
            vector(pairs, pairs.next_multiple_of(8) + size_of::<u32>(), &mut w)?;
        }
        Ok((w, keep))
    }
}

/// What every skeleton of a node gets: its id, its name for errors, the error slot's address, and
/// its evaluated parameters (the words after its outputs and scratch, with the host scalars and
/// operands they came from).
struct Call {
    id: usize,
    name: &'static str,
    slot: u64,
    /// The element type the skeleton combines (a reduction's or scan's partials and carries),
    /// from its scratch parameter.
    combined: Option<ElemType>,
    tail: Vec<u64>,
    scalars: Vec<ElemValue>,
    operands: Vec<Operand>,
}

impl Call {
    /// The shape of array operand `i`, manifest or delayed.
    fn shape_of(&self, i: usize) -> Result<&Vec<usize>> {
        match &self.operands.get(i) {
            Some(Operand::Value(DValue::Array(a))) => Ok(&a.shape),
            Some(Operand::Delayed(shape)) => Ok(shape),
            other => Err(ill_typed(format!("operand {i} of {} is {other:?}", self.name))),
        }
    }

    fn len_of(&self, i: usize) -> Result<usize> {
        self.shape_of(i).map(|s| s.iter().product())
    }

    /// Segments operand `i`.
    fn segs(&self, i: usize) -> Result<&DSegments> {
        match &self.operands.get(i) {
            Some(Operand::Value(DValue::Segments(s))) => Ok(s),
            other => Err(ill_typed(format!("operand {i} of {} is {other:?}", self.name))),
        }
    }

    /// The element type a reduction or scan combines (that of its partials and carries).
    fn combined(&self) -> Result<&ElemType> {
        self.combined.as_ref().ok_or_else(|| ill_typed(format!("{} has no combined element type", self.name)))
    }

    /// The element type of an array result of type `t`.
    fn out_elem(&self, t: &Type) -> Result<ElemType> {
        t.as_array().map(|(e, _)| e.clone()).ok_or_else(|| ill_typed(format!("{} of {t}", self.name)))
    }

    /// The words of a launch: the error slot, `outputs`, `scratch`, then the parameters.
    fn words(&self, outputs: &[&DArray], scratch: &[u64]) -> Vec<u64> {
        let mut w = vec![self.slot];
        outputs.iter().for_each(|out| array_words(out, &mut w));
        w.extend(scratch);
        w.extend(&self.tail);
        w
    }
}

/// An operand of a kernel: a value, or a delayed array (a `Generate` its kernels compute in
/// place) by its shape.
#[derive(Debug)]
enum Operand {
    Value(DValue),
    Delayed(Vec<usize>),
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
