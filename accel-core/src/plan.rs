//! Kernel plans: the end of the compiler pipeline.
//!
//! A plan is the ordered list of steps a backend executes for one program: kernels (one
//! skeleton instance each, with the operations fused into it, the arrays it reads and writes, and
//! the bytes it moves per element) and host steps (control flow, segment descriptors, reading a
//! `Scalar` back). Without fusion every collective operation is its own kernel; the fusion pass
//! rewrites the IR so that fewer, larger kernels come out of the same construction.
//!
//! Bytes per element let anyone compute a roofline figure for a size N: a kernel moves
//! `N * bytes_per_element` bytes, and its time at memory speed is that over the bandwidth.

use crate::ir::{ArrayOp, Expr, ExprKind, Lambda, Program, SeqOp};
use crate::types::Type;
use std::fmt::{self, Write as _};

/// An array a kernel reads or writes.
#[derive(Clone, PartialEq, Debug)]
pub struct Operand {
    /// A source name (`xs`), or `%k` for the output of kernel `k`.
    pub name: String,
    pub ty: Type,
}

/// One kernel launch.
#[derive(Clone, PartialEq, Debug)]
pub struct Kernel {
    pub id: usize,
    /// The skeleton it instantiates (`map`, `fold`, `scan`, `permute`, ...).
    pub skeleton: &'static str,
    /// The source operations computed inside it, in order.
    pub fused: Vec<&'static str>,
    pub inputs: Vec<Operand>,
    pub outputs: Vec<Operand>,
    /// Bytes read from arrays per output element (for reductions: per input element).
    pub bytes_read_per_element: usize,
    /// Bytes written per output element (for reductions: per input element, amortised).
    pub bytes_written_per_element: usize,
}

/// A step of a plan.
#[derive(Clone, PartialEq, Debug)]
pub enum Step {
    Kernel(Kernel),
    /// Work on the host: a branch, a loop around the following kernels, a scalar read-back.
    Host(String),
}

/// The kernels and host steps of one program.
#[derive(Clone, PartialEq, Debug)]
pub struct Plan {
    pub program: String,
    pub steps: Vec<Step>,
}

impl Plan {
    /// Builds the plan of a program: one kernel per collective operation, in evaluation order.
    pub fn build(program: &Program) -> Plan {
        let mut b = Builder { steps: Vec::new(), kernels: 0, names: Vec::new() };
        for (v, t) in &program.params {
            b.names.push((v.id, Operand { name: v.name.clone(), ty: t.clone() }));
        }
        let out = b.expr(&program.body);
        if let Some(Step::Kernel(k)) = b.steps.iter_mut().rev().find(|s| matches!(s, Step::Kernel(_)))
            && out.as_ref().is_some_and(|o| k.outputs.first().is_some_and(|ko| ko.name == o.name))
        {
            k.outputs[0].name = "result".into();
        }
        Plan { program: program.name.clone(), steps: b.steps }
    }

    pub fn kernels(&self) -> impl Iterator<Item = &Kernel> {
        self.steps.iter().filter_map(|s| match s {
            Step::Kernel(k) => Some(k),
            Step::Host(_) => None,
        })
    }

    pub fn kernel_count(&self) -> usize {
        self.kernels().count()
    }

    /// The plan as a Graphviz digraph: kernels as boxes, arrays as ellipses.
    pub fn to_dot(&self) -> String {
        let mut s = format!("digraph \"{}\" {{\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n", self.program);
        for k in self.kernels() {
            let _ = writeln!(
                s,
                "  k{} [shape=box, style=filled, fillcolor=\"#dde8f7\", label=\"k{}: {}\\n{}\\n{} B/elem\"];",
                k.id,
                k.id,
                k.skeleton,
                k.fused.join(" + "),
                k.bytes_read_per_element + k.bytes_written_per_element
            );
            for i in &k.inputs {
                let _ =
                    writeln!(s, "  \"{}\" [label=\"{}\\n{}\"];\n  \"{}\" -> k{};", i.name, i.name, i.ty, i.name, k.id);
            }
            for o in &k.outputs {
                let _ =
                    writeln!(s, "  \"{}\" [label=\"{}\\n{}\"];\n  k{} -> \"{}\";", o.name, o.name, o.ty, k.id, o.name);
            }
        }
        s.push_str("}\n");
        s
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.kernel_count();
        writeln!(f, "plan `{}`: {n} kernel{}", self.program, if n == 1 { "" } else { "s" })?;
        let list = |ops: &[Operand]| ops.iter().map(|o| format!("{}: {}", o.name, o.ty)).collect::<Vec<_>>().join(", ");
        for step in &self.steps {
            match step {
                Step::Kernel(k) => writeln!(
                    f,
                    "  k{} {:<11} [{}]  in: {}  out: {}  bytes/elem: {} read + {} written",
                    k.id,
                    k.skeleton,
                    k.fused.join(" + "),
                    list(&k.inputs),
                    list(&k.outputs),
                    k.bytes_read_per_element,
                    k.bytes_written_per_element
                )?,
                Step::Host(h) => writeln!(f, "  host: {h}")?,
            }
        }
        Ok(())
    }
}

struct Builder {
    steps: Vec<Step>,
    kernels: usize,
    /// Variable id -> the operand it names.
    names: Vec<(u32, Operand)>,
}

fn elem_bytes(t: &Type) -> usize {
    match t {
        Type::Elem(e) | Type::Array { elem: e, .. } | Type::Nested(e) => e.size_bytes(),
        Type::Tuple(ts) => ts.iter().map(elem_bytes).sum(),
        Type::Segments => 8,
        Type::Seq(inner) => elem_bytes(inner),
    }
}

impl Builder {
    /// Walks an expression in evaluation order, emitting steps; returns the operand naming its
    /// value when it is a collective value.
    fn expr(&mut self, e: &Expr) -> Option<Operand> {
        match &e.kind {
            ExprKind::Var(v) => self.names.iter().rev().find(|(id, _)| *id == v.id).map(|(_, o)| o.clone()),
            ExprKind::Let { var, value, body } => {
                if let Some(mut o) = self.expr(value) {
                    if o.name.starts_with('%')
                        && let Some(Step::Kernel(k)) = self.steps.last_mut()
                        && let Some(out) = k.outputs.iter_mut().find(|x| x.name == o.name)
                    {
                        out.name = var.name.clone();
                        o.name = var.name.clone();
                    }
                    self.names.push((var.id, o));
                }
                self.expr(body)
            }
            ExprKind::Tuple(parts) => {
                parts.iter().for_each(|p| {
                    self.expr(p);
                });
                None
            }
            ExprKind::Proj(x, _) => self.expr(x).map(|o| Operand { name: o.name, ty: e.ty.clone() }),
            // Scalar branches live inside kernels; only array `if`s are host control flow.
            ExprKind::If { .. } if e.ty.is_elem() => None,
            ExprKind::If { cond, then, els } => {
                self.expr(cond);
                self.steps.push(Step::Host("if: the kernels of one branch below run".into()));
                self.expr(then);
                self.steps.push(Step::Host("else:".into()));
                self.expr(els);
                self.steps.push(Step::Host("end if".into()));
                None
            }
            ExprKind::Array(op) => self.array(op, &e.ty),
            // Scalar code runs inside kernels (or on the host for top-level scalars).
            _ => None,
        }
    }

    fn lambda(&mut self, l: &Lambda) {
        self.expr(&l.body);
    }

    fn kernel(
        &mut self,
        skeleton: &'static str,
        fused: &'static str,
        inputs: Vec<Operand>,
        out_ty: &Type,
    ) -> Option<Operand> {
        let id = self.kernels;
        self.kernels += 1;
        let out = Operand { name: format!("%{id}"), ty: out_ty.clone() };
        let read = inputs.iter().map(|i| elem_bytes(&i.ty)).sum();
        let k = Kernel {
            id,
            skeleton,
            fused: vec![fused],
            inputs,
            outputs: vec![out.clone()],
            bytes_read_per_element: read,
            bytes_written_per_element: elem_bytes(out_ty),
        };
        self.steps.push(Step::Kernel(k));
        Some(out)
    }

    fn array(&mut self, op: &ArrayOp, ty: &Type) -> Option<Operand> {
        use ArrayOp::*;
        let name = op.name();
        let ins = |b: &mut Builder, es: &[&Expr]| es.iter().filter_map(|e| b.expr(e)).collect::<Vec<_>>();
        match op {
            Generate { shape, f, .. } => {
                self.expr(shape);
                self.lambda(f);
                self.kernel("generate", name, vec![], ty)
            }
            Fill { shape, value } => {
                let _ = ins(self, &[shape, value]);
                self.kernel("generate", name, vec![], ty)
            }
            Iota { n } => {
                self.expr(n);
                self.kernel("generate", name, vec![], ty)
            }
            Unit(x) => {
                self.expr(x);
                self.kernel("generate", name, vec![], ty)
            }
            The(a) => {
                self.expr(a);
                None
            }
            Map { f, a } | IMap { f, a } => {
                let i = ins(self, &[a]);
                self.lambda(f);
                self.kernel("map", name, i, ty)
            }
            ZipWith { f, a, b } => {
                let i = ins(self, &[a, b]);
                self.lambda(f);
                self.kernel("map", name, i, ty)
            }
            Fold { z, f, a } | FoldAll { z, f, a } => {
                let i = ins(self, &[a]);
                z.iter().for_each(|z| {
                    self.expr(z);
                });
                self.lambda(f);
                let sk = if matches!(op, FoldAll { .. }) { "fold_all" } else { "fold" };
                self.kernel(sk, name, i, ty)
            }
            FoldSeg { z, f, a, segments } => {
                let i = ins(self, &[a, segments]);
                z.iter().for_each(|z| {
                    self.expr(z);
                });
                self.lambda(f);
                self.kernel("fold_seg", name, i, ty)
            }
            Scan { z, f, a, .. } => {
                let i = ins(self, &[a]);
                z.iter().for_each(|z| {
                    self.expr(z);
                });
                self.lambda(f);
                self.kernel("scan", name, i, ty)
            }
            ScanSeg { z, f, a, segments, .. } => {
                let i = ins(self, &[a, segments]);
                z.iter().for_each(|z| {
                    self.expr(z);
                });
                self.lambda(f);
                self.kernel("scan_seg", name, i, ty)
            }
            Backpermute { shape, f, a } => {
                self.expr(shape);
                let i = ins(self, &[a]);
                self.lambda(f);
                self.kernel("backpermute", name, i, ty)
            }
            Permute { defaults, f, combine, a } => {
                let i = ins(self, &[defaults, a]);
                self.lambda(f);
                self.lambda(combine);
                self.kernel("permute", name, i, ty)
            }
            Reverse(a) | Transpose(a) => {
                let i = ins(self, &[a]);
                self.kernel("backpermute", name, i, ty)
            }
            Reshape { shape: x, a }
            | Take { n: x, a }
            | Drop { n: x, a }
            | Replicate { n: x, a, .. }
            | Slice { index: x, a, .. } => {
                self.expr(x);
                let i = ins(self, &[a]);
                self.kernel("backpermute", name, i, ty)
            }
            Concat { a, b } => {
                let i = ins(self, &[a, b]);
                self.kernel("backpermute", name, i, ty)
            }
            Stencil { f, a, .. } => {
                let i = ins(self, &[a]);
                self.lambda(f);
                self.kernel("stencil", name, i, ty)
            }
            Expand { count, value, a } => {
                let i = ins(self, &[a]);
                self.lambda(count);
                self.lambda(value);
                self.kernel("expand", name, i, ty)
            }
            Filter { pred, a } => {
                let i = ins(self, &[a]);
                self.lambda(pred);
                self.kernel("filter", name, i, ty)
            }
            Awhile { init, cond, step } => {
                self.expr(init);
                self.steps.push(Step::Host("awhile: repeat the kernels below while the condition holds".into()));
                self.lambda(cond);
                self.lambda(step);
                self.steps.push(Step::Host("end awhile".into()));
                None
            }
            SegmentsFromLengths(l) => {
                let i = ins(self, &[l]);
                self.kernel("scan", name, i, ty)
            }
            SegmentLengths(s) | SegmentOffsets(s) => {
                let i = ins(self, &[s]);
                self.kernel("map", name, i, ty)
            }
            NestedFromParts { segments, values } => {
                let _ = ins(self, &[segments, values]);
                self.steps.push(Step::Host("pair segments and values into a nested array".into()));
                None
            }
            Unzip(a) => {
                self.expr(a);
                self.steps.push(Step::Host("unzip: split the columns (no copy)".into()));
                None
            }
            NestedValues(n) | NestedSegments(n) => {
                self.expr(n).map(|o| Operand { name: format!("{}.{name}", o.name), ty: ty.clone() })
            }
            NestedMap { f, a } => {
                let i = ins(self, &[a]);
                self.lambda(f);
                self.kernel("nested_map", name, i, ty)
            }
            Seq(s) => {
                let inner: Vec<&Expr> = match s {
                    SeqOp::StreamIn(x) | SeqOp::Elements(x) | SeqOp::Tabulate(x) | SeqOp::Collect(x) => vec![x],
                    SeqOp::Produce { n, .. } => vec![n],
                    SeqOp::Map { s, .. } | SeqOp::Fold { s, .. } => vec![s],
                    SeqOp::ZipWith { a, b, .. } => vec![a, b],
                };
                let i = ins(self, &inner);
                self.steps.push(Step::Host(format!("stream: {name}")));
                self.kernel("stream", name, i, ty)
            }
        }
    }
}
