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
    /// A source name (`xs`), `c.1` for part 1 of a tuple bound to `c` (the results of a call,
    /// the state of a loop), or `%k` for the output of kernel `k` that no `let` names.
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
    /// The kernels it may launch on the GPU, in launch order ([`crate::kernel::roles`]; a run
    /// launches some of them).
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
            b.names.push((v.id, Named::Array(Operand { name: v.name.clone(), ty: t.clone() })));
        }
        let out = b.expr(&program.body);
        if let Some(Step::Kernel(k)) = b.steps.iter_mut().rev().find(|s| matches!(s, Step::Kernel(_)))
            && let Some(Named::Array(o)) = &out
            && k.outputs.first().is_some_and(|ko| ko.name == o.name)
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

/// A collective value as the plan names it: an array (a parameter, a kernel's output, the state
/// of a loop) or a tuple of values, such as the several results of an inlined call bound by one
/// `let`, whose projections are the arrays of its parts. Without the tuples, a kernel that reads
/// a part of one (`let c = update(..); assign(c.0, c.1)`) lost that input.
#[derive(Clone, Debug)]
enum Named {
    Array(Operand),
    /// The parts, `None` where a part is no array of the plan (a scalar, a branch's result).
    Tuple(Vec<Option<Named>>),
}

impl Named {
    /// The arrays it names, parts of tuples in order.
    fn operands(&self, out: &mut Vec<Operand>) {
        match self {
            Named::Array(o) => push_unique(out, o.clone()),
            Named::Tuple(parts) => parts.iter().flatten().for_each(|p| p.operands(out)),
        }
    }

    /// The value at `path` (projections, outermost first) inside it, whose type is `ty`.
    fn part(&self, path: &[usize], ty: &Type) -> Option<Named> {
        match (self, path.split_first()) {
            (_, None) => Some(self.clone()),
            (Named::Tuple(parts), Some((i, rest))) => parts.get(*i)?.as_ref()?.part(rest, ty),
            // A tuple-typed array value (a loop's state): its part by name.
            (Named::Array(o), Some(_)) => {
                let path: Vec<String> = path.iter().map(ToString::to_string).collect();
                Some(Named::Array(Operand { name: format!("{}.{}", o.name, path.join(".")), ty: ty.clone() }))
            }
        }
    }

    /// The array it names, if it is one.
    fn array(self) -> Option<Operand> {
        match self {
            Named::Array(o) => Some(o),
            Named::Tuple(_) => None,
        }
    }
}

struct Builder {
    steps: Vec<Step>,
    kernels: usize,
    /// Variable id -> the value it names.
    names: Vec<(u32, Named)>,
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
    /// Walks an expression in evaluation order, emitting steps; returns what names its value
    /// when it is a collective value or a tuple of them.
    fn expr(&mut self, e: &Expr) -> Option<Named> {
        match &e.kind {
            ExprKind::Var(v) => self.names.iter().rev().find(|(id, _)| *id == v.id).map(|(_, n)| n.clone()),
            ExprKind::Let { var, value, body } => {
                if let Some(mut named) = self.expr(value) {
                    // A kernel's output takes the name of the `let` that binds it (`c.0`, `c.1`
                    // for the parts of a tuple), not of a later `let` of a variable or a part.
                    if !matches!(value.kind, ExprKind::Var(_) | ExprKind::Proj(..)) {
                        self.name_outputs(&mut named, var.name.clone());
                    }
                    self.names.push((var.id, named));
                }
                self.expr(body)
            }
            ExprKind::Tuple(parts) => {
                let parts: Vec<Option<Named>> = parts.iter().map(|p| self.expr(p)).collect();
                parts.iter().any(Option::is_some).then_some(Named::Tuple(parts))
            }
            ExprKind::Proj(x, i) => self.expr(x)?.part(&[*i], &e.ty),
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

    /// Gives the kernel outputs that `named` holds unnamed (`%k`) the name `name`, or
    /// `name.i` for part `i` of a tuple.
    fn name_outputs(&mut self, named: &mut Named, name: String) {
        match named {
            Named::Array(o) if o.name.starts_with('%') => {
                let outputs = self.steps.iter_mut().rev().find_map(|s| match s {
                    Step::Kernel(k) => k.outputs.iter_mut().find(|x| x.name == o.name),
                    Step::Host(_) => None,
                });
                if let Some(out) = outputs {
                    out.name.clone_from(&name);
                    o.name = name;
                }
            }
            Named::Array(_) => {}
            Named::Tuple(parts) => {
                for (i, part) in parts.iter_mut().enumerate() {
                    if let Some(part) = part {
                        self.name_outputs(part, format!("{name}.{i}"));
                    }
                }
            }
        }
    }

    fn array(&mut self, op: &ArrayOp, ty: &Type) -> Option<Named> {
        use ArrayOp::*;
        let renamed =
            |n: Option<Named>| n.and_then(Named::array).map(|o| Named::Array(Operand { name: o.name, ty: ty.clone() }));
        match op {
            The(a) => {
                self.expr(a);
                None
            }
            Unzip(a) => {
                let a = self.expr(a);
                self.steps.push(Step::Host("unzip: split the columns (no copy)".into()));
                renamed(a)
            }
            Reshape { shape, a } => {
                self.expr(shape);
                let a = self.expr(a);
                renamed(a)
            }
            Awhile { init, cond, step } => {
                self.expr(init);
                self.steps.push(Step::Host("awhile: repeat the kernels below while the condition holds".into()));
                for l in [cond, step] {
                    let (v, t) = &l.params[0];
                    self.names.push((v.id, Named::Array(Operand { name: v.name.clone(), ty: t.clone() })));
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
            NestedValues(n) | NestedSegments(n) => self
                .expr(n)
                .and_then(Named::array)
                .map(|o| Named::Array(Operand { name: format!("{}.{}", o.name, op.name()), ty: ty.clone() })),
            SegmentOffsets(s) => self
                .expr(s)
                .and_then(Named::array)
                .map(|o| Named::Array(Operand { name: format!("{}.offsets", o.name), ty: ty.clone() })),
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
                Some(Named::Array(self.kernel(op, ty)))
            }
            ScanSeg { .. } | Permute { .. } | Concat { .. } | Slice { .. } | Stencil { .. } | Expand { .. } => {
                Some(Named::Array(self.kernel(op, ty)))
            }
            Filter { .. } | ExpandPermute { .. } => Some(Named::Array(self.kernel(op, ty))),
            SegmentsFromLengths(_) | SegmentLengths(_) => Some(Named::Array(self.kernel(op, ty))),
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
                    if let Some(named) = self.expr(c) {
                        named.operands(&mut inputs);
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
            for c in captured_arrays(node) {
                let named = self.names.iter().rev().find(|(v, _)| *v == c.id);
                if let Some(read) = named.and_then(|(_, n)| n.part(&c.path, &c.ty)) {
                    read.operands(&mut inputs);
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

/// An array a closure reads from outside it: a variable (`xs`) or a part of a tuple variable
/// (`c.0`, `s.1.0`), by the variable's id and the projections, outermost first.
struct Capture {
    id: u32,
    path: Vec<usize>,
    /// The type of what is read.
    ty: Type,
}

/// The arrays a node's closures read from outside them, each once, in order of first read.
fn captured_arrays(op: &ArrayOp) -> Vec<Capture> {
    let mut out: Vec<Capture> = Vec::new();
    visit::for_each_operand(op, &mut |body, bound, _| {
        let visit::Bound::Params(params) = bound else { return };
        // The inner expressions of projection chains, read with their chain.
        let mut inside: Vec<*const Expr> = Vec::new();
        visit::pre_order(body, &mut |e| {
            if inside.contains(&(e as *const Expr)) {
                return;
            }
            let (mut root, mut path) = (e, Vec::new());
            while let ExprKind::Proj(x, i) = &root.kind {
                path.push(*i);
                root = x;
                inside.push(root as *const Expr);
            }
            path.reverse();
            if let ExprKind::Var(v) = &root.kind
                && !e.ty.is_elem()
                && !params.iter().any(|(p, _)| p.id == v.id)
                && !out.iter().any(|c| c.id == v.id && c.path == path)
            {
                out.push(Capture { id: v.id, path, ty: e.ty.clone() });
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
        let words = "words: error slot (1 word), out Scalar<f32> (1 word), Reduce scratch of f32 (8 words), host \
                     scalar f32 (1 word), delayed Vector<f32> (1 word), capture xs Vector<f32> (2 words), capture ys \
                     Vector<f32> (2 words)";
        assert!(text.contains(&format!("\n      launches: reduce, finish  {words}\n")), "{text}");
        let kernel = plan.kernels().next().expect("one kernel");
        assert_eq!(kernel.launches, [crate::kernel::Role::Reduce, crate::kernel::Role::Finish]);
    }

    /// The plan of a function, and each kernel's inputs and output by name, in plan order.
    fn kernels(src: &str) -> (Plan, Vec<(Vec<String>, String)>) {
        let plan = Plan::build(&optimise(&crate::kernel::tests::program(src), Options::default()));
        let names = plan
            .kernels()
            .map(|k| (k.inputs.iter().map(|o| o.name.clone()).collect(), k.outputs[0].name.clone()))
            .collect();
        (plan, names)
    }

    #[test]
    fn kernels_list_the_arrays_they_read_through_tuples() {
        // A k-means step in `awhile` as inlining writes it: the update's two centroid arrays
        // bound by one `let`, read by the next assignment through `let`s of the parts.
        let kmeans = "fn f(xs: Vector<f32>, cx: Vector<f32>, cy: Vector<f32>) -> Vector<u32> {
            let k = cx.len();
            let state = awhile((cx, cy, xs.map(|_| 0u32), unit(true)), |s| s.3, |s| {
                let centroids = {
                    let assignment = s.2;
                    let sums = xs.permute(fill(k, 0.0f32), |i| assignment[i] as usize, |a, b| a + b);
                    let old = s.1;
                    (generate(k, |j| sums[j] + s.0[j]), generate(k, |j| old[j] * 0.5))
                };
                let next = {
                    let cx = centroids.0;
                    let cy = centroids.1;
                    xs.map(|x| if x < cx[0] + cy[0] { 0u32 } else { 1 })
                };
                let changed = next.zip_with(s.2, |a, b| if a != b { 1u32 } else { 0 }).sum();
                (centroids.0, centroids.1, next, unit(changed.get() > 0))
            });
            state.2
        }";
        let (plan, names) = kernels(kmeans);
        let of = |output: &str| names.iter().find(|(_, o)| o == output).map(|(i, _)| i.clone());
        assert_eq!(of("sums"), Some(vec!["xs".to_string(), "s.2".into()]), "{plan}");
        assert_eq!(of("centroids.0"), Some(vec!["sums".to_string(), "s.0".into()]), "{plan}");
        assert_eq!(of("centroids.1"), Some(vec!["s.1".to_string()]), "{plan}");
        assert_eq!(of("next"), Some(vec!["xs".to_string(), "centroids.0".into(), "centroids.1".into()]), "{plan}");

        // A two-pass row variance whose means are one part of a tuple: the second pass reads
        // the means and not the other part, and counts the bytes of what it reads.
        let variance = "fn f(m: Matrix<f32>) -> (Vector<f32>, Vector<f32>) {
            let n = m.cols() as f32;
            let stats = (m.fold(0.0, |a, b| a + b).map(|s| s / n), m.map(|x| x * x).fold(0.0, |a, b| a + b));
            let centred = m.imap(|(i, j), x| (x - stats.0[i]) * (x - stats.0[i]));
            (centred.fold(0.0, |a, b| a + b).map(|s| s / n), stats.1)
        }";
        let (plan, names) = kernels(variance);
        let outputs: Vec<&str> = names.iter().map(|(_, o)| o.as_str()).collect();
        assert_eq!(outputs, ["stats.0", "stats.1", "%2"], "{plan}");
        assert_eq!(names[2].0, ["m", "stats.0"], "{plan}");
        assert_eq!(plan.kernels().nth(2).map(|k| k.bytes_read_per_element), Some(8), "{plan}");
    }
}
