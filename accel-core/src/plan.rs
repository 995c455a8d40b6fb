//! Kernel plans: the end of the compiler pipeline.
//!
//! A plan is the ordered list of steps a backend executes for one program (after fusion):
//! kernels (one skeleton instance each, with the source operations fused into it, the arrays it
//! reads and writes, the bytes it moves per element, and its GPU launches with the words of their
//! parameters) and host steps (control flow, column splits). A kernel here is one collective node that the host runs ([`crate::kernel::launched`]):
//! on the GPU it may be several launches (a segmented scan's chunk totals, carries, then the
//! scan), always with one pass over its input.
//!
//! Bytes per element let anyone compute a roofline figure for a size N: a kernel moves
//! `N * (read + written)` bytes, N counting the elements it iterates over (its input for
//! reductions and scans, its output otherwise), and its time at memory speed is that over the
//! bandwidth. Reads count every array of rank one or more that the kernel's per-element code
//! reads (once per element, as a streaming read); a rank-0 array (a scalar such as a sum) is
//! one read per kernel and counts nothing; a reduction's results, one per row, count nothing.

use crate::ir::visit;
use crate::ir::{ArrayOp, Expr, ExprKind, Program};
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
    /// The source operations computed inside it, producers first.
    pub fused: Vec<String>,
    pub inputs: Vec<Operand>,
    pub outputs: Vec<Operand>,
    /// Bytes read from arrays per output element (for reductions: per input element).
    pub bytes_read_per_element: usize,
    /// Bytes written per output element (for reductions: per input element, amortised).
    pub bytes_written_per_element: usize,
    /// Its launches on the GPU, in order ([`crate::kernel::roles`]).
    pub launches: Vec<crate::kernel::Role>,
    /// The parameters of those launches, in word order ([`crate::kernel::layout`]), as text.
    pub parameters: Vec<String>,
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
        let launched = crate::kernel::launched(program);
        let nodes = crate::kernel::array_nodes(program);
        let absorbed = nodes.iter().zip(&launched).filter(|(_, l)| !**l).map(|(n, _)| *n as *const ArrayOp).collect();
        let mut b = Builder { steps: Vec::new(), kernels: 0, names: Vec::new(), absorbed };
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
                Step::Kernel(k) => {
                    writeln!(
                        f,
                        "  k{} {:<11} [{}]  in: {}  out: {}  bytes/elem: {} read + {} written",
                        k.id,
                        k.skeleton,
                        k.fused.join(" + "),
                        list(&k.inputs),
                        list(&k.outputs),
                        k.bytes_read_per_element,
                        k.bytes_written_per_element
                    )?;
                    let launches: Vec<_> = k.launches.iter().map(|r| r.suffix()).collect();
                    writeln!(f, "      launches: {}  words: {}", launches.join(", "), k.parameters.join(", "))?;
                }
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
    /// The nodes fused into others (no kernel of their own).
    absorbed: std::collections::HashSet<*const ArrayOp>,
}

fn elem_bytes(t: &Type) -> usize {
    match t {
        Type::Elem(e) | Type::Array { elem: e, .. } | Type::Nested(e) => e.size_bytes(),
        Type::Tuple(ts) => ts.iter().map(elem_bytes).sum(),
        Type::Segments => 8,
        Type::Seq(inner) => elem_bytes(inner),
    }
}

/// Whether reading `t` costs bytes per element (arrays of rank one or more).
fn streamed(t: &Type) -> bool {
    match t {
        Type::Array { rank, .. } => *rank > 0,
        Type::Nested(_) | Type::Segments => true,
        Type::Tuple(ts) => ts.iter().any(streamed),
        _ => false,
    }
}

/// The skeleton a node instantiates.
fn skeleton(op: &ArrayOp) -> &'static str {
    use ArrayOp::*;
    match op {
        Generate { .. } => "generate",
        // A producer in a plan is an epilogue: it names its reduction's or scan's skeleton.
        Producer(_) | SegmentLengths(_) => "map",
        Fold { .. } => "fold",
        FoldAll { .. } => "fold_all",
        FoldSeg { .. } => "fold_seg",
        Scan { .. } | SegmentsFromLengths(_) => "scan",
        ScanSeg { .. } => "scan_seg",
        Permute { .. } => "permute",
        ExpandPermute { .. } => "expand_permute",
        Stencil { .. } => "stencil",
        Expand { .. } => "expand",
        Filter { .. } => "filter",
        Concat { .. } | Slice { .. } => "backpermute",
        // Host operations have no kernel, hence no plan step of this kind.
        Unit(_) | The(_) | Unzip(_) | Reshape { .. } | Awhile { .. } | SegmentOffsets(_) | NestedFromParts { .. } => {
            "host"
        }
        NestedValues(_) | NestedSegments(_) | NestedMap { .. } | Seq(_) => "host",
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
            ExprKind::Proj(x, i) => self.expr(x).map(|o| Operand { name: format!("{}.{i}", o.name), ty: e.ty.clone() }),
            ExprKind::If { cond, then, els } if !e.ty.is_elem() => {
                self.expr(cond);
                self.steps.push(Step::Host("if: the kernels of one branch below run".into()));
                self.expr(then);
                self.steps.push(Step::Host("else:".into()));
                self.expr(els);
                self.steps.push(Step::Host("end if".into()));
                None
            }
            ExprKind::Array(op) => self.array(op, &e.ty),
            // Host scalar code: only the collective operations inside it (a `get` of a sum)
            // are steps.
            _ => {
                visit::for_each_child(e, &mut |c, bound, _| {
                    if !bound.is_closure_body() {
                        self.expr(c);
                    }
                });
                None
            }
        }
    }

    fn array(&mut self, op: &ArrayOp, ty: &Type) -> Option<Operand> {
        use ArrayOp::*;
        match op {
            The(a) => {
                self.expr(a);
                None
            }
            Unzip(a) => {
                let a = self.expr(a);
                self.steps.push(Step::Host("unzip: split the columns (no copy)".into()));
                a.map(|o| Operand { name: o.name, ty: ty.clone() })
            }
            Reshape { shape, a } => {
                self.expr(shape);
                self.expr(a).map(|o| Operand { name: o.name, ty: ty.clone() })
            }
            Awhile { init, cond, step } => {
                self.expr(init);
                self.steps.push(Step::Host("awhile: repeat the kernels below while the condition holds".into()));
                for l in [cond, step] {
                    let (v, t) = &l.params[0];
                    self.names.push((v.id, Operand { name: v.name.clone(), ty: t.clone() }));
                    self.expr(&l.body);
                }
                self.steps.push(Step::Host("end awhile".into()));
                None
            }
            NestedFromParts { segments, values } => {
                self.expr(segments);
                self.expr(values);
                self.steps.push(Step::Host("pair segments and values into a nested array".into()));
                None
            }
            NestedValues(n) | NestedSegments(n) => {
                self.expr(n).map(|o| Operand { name: format!("{}.{}", o.name, op.name()), ty: ty.clone() })
            }
            SegmentOffsets(s) => self.expr(s).map(|o| Operand { name: format!("{}.offsets", o.name), ty: ty.clone() }),
            Unit(x) => {
                self.expr(x);
                self.steps.push(Step::Host("unit: upload one element".into()));
                None
            }
            NestedMap { .. } | Seq(_) => {
                // The front end does not write these yet (flattening and streams will lower them);
                // only the interpreter runs them.
                self.steps.push(Step::Host(format!("{}: interpreter only (not lowered yet)", op.name())));
                None
            }
            Generate { .. } | Producer(_) | Fold { .. } | FoldAll { .. } | FoldSeg { .. } | Scan { .. } => {
                Some(self.kernel(op, ty))
            }
            ScanSeg { .. } | Permute { .. } | Concat { .. } | Slice { .. } | Stencil { .. } | Expand { .. } => {
                Some(self.kernel(op, ty))
            }
            Filter { .. } | ExpandPermute { .. } => Some(self.kernel(op, ty)),
            SegmentsFromLengths(_) | SegmentLengths(_) => Some(self.kernel(op, ty)),
        }
    }

    /// A node that runs as a kernel, with the producers and epilogue fused into it.
    fn kernel(&mut self, op: &ArrayOp, ty: &Type) -> Operand {
        let (main, epilogue) = match crate::kernel::epilogue_source(op) {
            Some(inner) if self.absorbed.contains(&(inner as *const ArrayOp)) => (inner, Some(op)),
            _ => (op, None),
        };
        let mut fused = Vec::new();
        let mut inputs: Vec<Operand> = Vec::new();
        let mut lambdas_of = vec![main];
        if let Some(e) = epilogue {
            lambdas_of.push(e);
        }
        // Children in evaluation order: manifest operands are inputs; delayed ones contribute
        // their closures and their origin.
        let mut delayed: Vec<&ArrayOp> = Vec::new();
        for c in direct_operands(main) {
            match &c.kind {
                // A seed or a count: host code, whose collective operations run before.
                _ if c.ty.is_elem() => {
                    self.expr(c);
                }
                ExprKind::Array(inner) if self.absorbed.contains(&(&**inner as *const ArrayOp)) => {
                    if let ArrayOp::Generate { shape, from, .. } = &**inner {
                        self.expr(shape);
                        if from.is_empty() {
                            fused.push("generate".to_string());
                        } else {
                            fused.extend(from.iter().cloned());
                        }
                    }
                    delayed.push(inner);
                }
                _ => {
                    if let Some(o) = self.expr(c) {
                        push_unique(&mut inputs, o);
                    }
                }
            }
        }
        fused.push(main.name().to_string());
        if epilogue.is_some() {
            fused.push("epilogue".to_string());
        }
        // Arrays the closures read (delayed producers' inputs among them).
        for node in delayed.iter().chain(&lambdas_of) {
            for (id, t) in captured_arrays(node) {
                if let Some((_, o)) = self.names.iter().rev().find(|(v, _)| *v == id) {
                    push_unique(&mut inputs, Operand { name: o.name.clone(), ty: t });
                }
            }
        }
        let id = self.kernels;
        self.kernels += 1;
        let out = Operand { name: format!("%{id}"), ty: ty.clone() };
        let read = inputs.iter().filter(|i| streamed(&i.ty)).map(|i| elem_bytes(&i.ty)).sum();
        let reduces = matches!(main, ArrayOp::Fold { .. } | ArrayOp::FoldAll { .. } | ArrayOp::FoldSeg { .. });
        let k = Kernel {
            id,
            skeleton: skeleton(main),
            fused,
            inputs,
            outputs: vec![out.clone()],
            bytes_read_per_element: read,
            bytes_written_per_element: if reduces { 0 } else { elem_bytes(ty) },
            launches: crate::kernel::roles(op).to_vec(),
            parameters: crate::kernel::layout(op, ty).iter().map(ToString::to_string).collect(),
        };
        self.steps.push(Step::Kernel(k));
        out
    }
}

fn push_unique(list: &mut Vec<Operand>, o: Operand) {
    if !list.iter().any(|x| x.name == o.name) {
        list.push(o);
    }
}

/// The non-closure children of a node (its operands and host scalars), in order.
fn direct_operands(op: &ArrayOp) -> Vec<&Expr> {
    let mut out = Vec::new();
    visit::for_each_operand(op, &mut |c, bound, _| {
        if !bound.is_closure_body() {
            out.push(c);
        }
    });
    out
}

/// The free variables of collective type that a node's closures read, by id.
fn captured_arrays(op: &ArrayOp) -> Vec<(u32, Type)> {
    let mut out: Vec<(u32, Type)> = Vec::new();
    visit::for_each_operand(op, &mut |body, bound, _| {
        let visit::Bound::Params(params) = bound else { return };
        visit::pre_order(body, &mut |e| {
            if let ExprKind::Var(v) = &e.kind
                && !e.ty.is_elem()
                && !params.iter().any(|(p, _)| p.id == v.id)
                && !out.iter().any(|(id, _)| *id == v.id)
            {
                out.push((v.id, e.ty.clone()));
            }
        });
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Options, optimise};

    #[test]
    fn plans_print_the_launches_and_words_of_each_kernel() {
        let src = "fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
                       xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)
                   }";
        let plan = Plan::build(&optimise(&crate::kernel::tests::program(src), Options::default()));
        let text = plan.to_string();
        let words = "words: error slot (1 word), out Scalar<f32> (1 word), Reduce scratch of f32 (7 words), host \
                     scalar f32 (1 word), delayed Vector<f32> (1 word), capture xs Vector<f32> (2 words), capture ys \
                     Vector<f32> (2 words)";
        assert!(text.contains(&format!("\n      launches: reduce, finish  {words}\n")), "{text}");
        let kernel = plan.kernels().next().expect("one kernel");
        assert_eq!(kernel.launches, [crate::kernel::Role::Reduce, crate::kernel::Role::Finish]);
    }
}
