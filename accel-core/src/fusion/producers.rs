//! Producer/consumer fusion (ICFP'13 §3-4): every producer becomes a delayed array, a
//! `generate` whose closure computes one element from its inputs' elements, and delayed arrays
//! compose: `map f (map g xs)` is one `generate` computing `f(g(xs[ix]))`.
//!
//! The producers are `generate` and the IR's [`Producer`]s: `map`, `imap`, `zip_with`,
//! `backpermute`, `reverse`, `transpose`, `take`, `drop`, `replicate_rows`/`replicate_cols`,
//! `iota` and `fill` (whose value is computed once, on the host). This pass holds each one's index
//! function, the one definition of what it computes that every backend runs: it is also the whole
//! pass without fusion ([`lower`]), where each producer becomes a `generate` written out where it
//! stands (no composition, no delayed operand or read, no inlined `let`), so that no backend ever
//! sees a producer as the front end wrote it. `reshape`, `slice_row`/`slice_col` and `concat` are not delayed:
//! their checks (sizes, row index) belong to the host before any element exists, and a reshape
//! of a manifest array is free on the GPU anyway.
//!
//! A delayed array ends in one of three places: in a consumer's operand position (fused form 1
//! of [`super`]), composed into another producer, or written out where it stands (a kernel of
//! its own: the program's result, a `let` kept manifest). A producer whose operand is neither
//! delayed nor a variable (a fold's result, say) reads it through a fresh `let`.
//!
//! Sharing (ICFP'13 §2.2). A `let`-bound delayed array is inlined into its uses, and so computed
//! where it is used, when
//! - nothing but its shape is used (`xs.len()`, `Shape`): the shape expression replaces those
//!   uses and no element is ever computed;
//! - it is *cheap*: an index transformation with at most one array read (besides the reads
//!   flattening makes at a row, [`ReadSite::Flattened`]) and no loops or transcendental functions (a `reverse`, `transpose`, `backpermute`, `take` or `iota`), so
//!   recomputing it at every use costs no more than reading a manifest copy; it is inlined into
//!   every use, random reads `ys[i]` in closures included;
//! - it is used exactly once, as an operand or a result, and not inside an array loop
//!   (`awhile`) whose body would recompute it at every iteration.
//!
//! Otherwise it stays manifest: computed once into memory, read by every use.

use super::rewrite::{
    Fresh, binary, bind, components, element, index_of, index_type, origin, peel, rank, shape_of, var, wrap,
};
use crate::ir::visit::{self, Bound, Role, map_children};
use crate::ir::{ArrayOp, Axis, BinaryOp, Expr, ExprKind, Lambda, MathFn, Producer as P, Program, ReadSite, Var};
use crate::types::Type;
use std::collections::HashMap;

/// Runs the pass with fusion: producers compose and fuse into their consumers.
pub fn run(program: Program) -> Program {
    rewrite(program, true)
}

/// Runs the pass without fusion: every producer is lowered to a `generate` of its own, written
/// out where it stands; the program has no fused form.
pub fn lower(program: Program) -> Program {
    rewrite(program, false)
}

fn rewrite(program: Program, fuse: bool) -> Program {
    let mut pass = Producers { fresh: Fresh::for_program(&program), inlined: HashMap::new(), fuse };
    let body = pass.expr(&program.body);
    Program { body, ..program }
}

struct Producers {
    fresh: Fresh,
    /// Whether delayed arrays compose and fuse into their consumers, or are each written out.
    fuse: bool,
    /// `let`-bound delayed arrays being inlined, by variable id.
    inlined: HashMap<u32, Expr>,
}

impl Producers {
    fn expr(&mut self, e: &Expr) -> Expr {
        match &e.kind {
            ExprKind::Var(v) => self.inlined.get(&v.id).cloned().unwrap_or_else(|| e.clone()),
            ExprKind::Let { var: v, value, body } => {
                let value = self.expr(value);
                let (lets, core) = peel(value);
                if self.fuse && is_generate(&core) && inline(v.id, &core, body) {
                    self.inlined.insert(v.id, core);
                    let body = self.expr(body);
                    self.inlined.remove(&v.id);
                    wrap(lets, body)
                } else {
                    let body = self.expr(body);
                    wrap(lets, super::rewrite::let_in(v, core, body))
                }
            }
            ExprKind::Shape(a) => {
                let a = self.expr(a);
                if is_generate(&a) { shape_of(&a) } else { rebuild(e, ExprKind::Shape(Box::new(a))) }
            }
            ExprKind::Len(a) if a.ty.as_array().is_some() => {
                let a = self.expr(a);
                if is_generate(&a) {
                    let r = rank(&a);
                    let parts = components(&shape_of(&a), r);
                    parts.into_iter().reduce(|x, y| binary(BinaryOp::Mul, x, y)).unwrap_or_else(|| Expr::usize(1))
                } else {
                    rebuild(e, ExprKind::Len(Box::new(a)))
                }
            }
            ExprKind::Array(_) => {
                let op = map_children(e, &mut |c| self.expr(c));
                let ExprKind::Array(new) = op.kind else { unreachable!("an array node stays one") };
                self.array(*new, &e.ty)
            }
            _ => map_children(e, &mut |c| self.expr(c)),
        }
    }

    /// A collective node whose children are already rewritten.
    fn array(&mut self, op: ArrayOp, ty: &Type) -> Expr {
        use ArrayOp::*;
        let mut lets = Vec::new();
        match op {
            Generate { shape, f, from } => {
                let shape = self.bind_shape(&mut lets, shape);
                wrap(lets, Expr::array(Generate { shape, f, from }, ty.clone()))
            }
            Producer(p) => self.producer(p, ty, lets),
            op @ (Unit(_)
            | The(_)
            | Fold { .. }
            | FoldAll { .. }
            | FoldSeg { .. }
            | Scan { .. }
            | ScanSeg { .. }
            | Permute { .. }
            | ExpandPermute { .. }
            | Reshape { .. }
            | Unzip(_)
            | Concat { .. }
            | Slice { .. }
            | Stencil { .. }
            | Expand { .. }
            | Filter { .. }
            | Awhile { .. }
            | SegmentsFromLengths(_)
            | SegmentLengths(_)
            | SegmentOffsets(_)
            | NestedFromParts { .. }
            | NestedValues(_)
            | NestedSegments(_)
            | NestedMap { .. }
            | Seq(_)) => {
                // A consumer (its delayed operands stay in place, their `let`s float above it;
                // without fusion they are written out first) or an operation that is not delayed.
                let mut op = op;
                let fresh = &mut self.fresh;
                visit::for_each_operand_mut(&mut op, &mut |operand, bound, role| {
                    if role == Role::Delayable {
                        let (l, core) = peel(std::mem::replace(operand, Expr::usize(0)));
                        lets.extend(l);
                        *operand =
                            if self.fuse || !is_generate(&core) { core } else { bind(fresh, &mut lets, "t", core) };
                    } else if !self.fuse && matches!(bound, Bound::Nothing) && is_generate(operand) {
                        // Any other operand that is a `generate` is read delayed by the kernels
                        // too (`kernel::layout`).
                        let core = std::mem::replace(operand, Expr::usize(0));
                        *operand = bind(fresh, &mut lets, "t", core);
                    }
                });
                wrap(lets, Expr::array(op, ty.clone()))
            }
        }
    }

    /// Producer `p` as a `generate` (its children already rewritten): its index function, the
    /// one definition of what each producer computes that the backends run.
    fn producer(&mut self, p: P, ty: &Type, mut lets: Vec<(Var, Expr)>) -> Expr {
        let name = p.name();
        let elem_ty = || Type::Elem(ty.as_array().expect("a producer makes an array").0.clone());
        let generate = |lets: Vec<(Var, Expr)>, shape: Expr, f: Lambda, from: Vec<String>| {
            wrap(lets, Expr::array(ArrayOp::Generate { shape, f, from }, ty.clone()))
        };
        match p {
            P::Iota { n } => {
                let n = self.bind_shape(&mut lets, n);
                let ix = self.fresh.var("i");
                let t = ty.as_array().and_then(|(e, _)| e.as_scalar()).expect("iota of numbers");
                let body = Expr::new(ExprKind::Cast(Box::new(var(&ix, &index_type(1))), t), elem_ty());
                generate(lets, n, Lambda { params: vec![(ix, index_type(1))], body: Box::new(body) }, vec![name.into()])
            }
            P::Fill { shape, value } => {
                let shape = self.bind_shape(&mut lets, shape);
                // The value is computed once, on the host.
                let value = if matches!(value.kind, ExprKind::Var(_) | ExprKind::Const(_)) {
                    value
                } else {
                    bind(&mut self.fresh, &mut lets, "t", value)
                };
                let (ix, ixt) = self.index_param(ty.as_array().expect("an array").1);
                generate(lets, shape, Lambda { params: vec![(ix, ixt)], body: Box::new(value) }, vec![name.into()])
            }
            P::Map { f, a } | P::IMap { f, a } => {
                let is_imap = matches!(f.params.len(), 2);
                let a = self.operand(&mut lets, a);
                let (ix, ixt) = self.index_param(rank(&a));
                let x = element(&a, var(&ix, &ixt), ReadSite::Elementwise);
                let body = if is_imap {
                    super::rewrite::let_in(
                        &f.params[0].0,
                        var(&ix, &ixt),
                        super::rewrite::let_in(&f.params[1].0, x, *f.body),
                    )
                } else {
                    super::rewrite::let_in(&f.params[0].0, x, *f.body)
                };
                let from = [origin(&a), vec![name.into()]].concat();
                generate(lets, shape_of(&a), Lambda { params: vec![(ix, ixt)], body: Box::new(body) }, from)
            }
            P::ZipWith { f, a, b } => {
                let a = self.operand(&mut lets, a);
                let b = self.operand(&mut lets, b);
                let r = rank(&a);
                let (ix, ixt) = self.index_param(r);
                let x = element(&a, var(&ix, &ixt), ReadSite::Elementwise);
                let y = element(&b, var(&ix, &ixt), ReadSite::Elementwise);
                let body =
                    super::rewrite::let_in(&f.params[0].0, x, super::rewrite::let_in(&f.params[1].0, y, *f.body));
                let mut shape = components(&shape_of(&a), r);
                crate::shape::intersect(&mut shape, &components(&shape_of(&b), r));
                let shape = index_of(shape);
                let shape = self.bind_shape(&mut lets, shape);
                let from = [origin(&a), origin(&b), vec![name.into()]].concat();
                generate(lets, shape, Lambda { params: vec![(ix, ixt)], body: Box::new(body) }, from)
            }
            P::Backpermute { shape, f, a } => {
                let shape = self.bind_shape(&mut lets, shape);
                let a = self.operand(&mut lets, a);
                // The closure maps the output index to the source index, which may be outside.
                let body = element(&a, *f.body, ReadSite::Backpermute);
                let from = [origin(&a), vec![name.into()]].concat();
                generate(lets, shape, Lambda { params: f.params, body: Box::new(body) }, from)
            }
            P::Reverse(a) => self.index_map(lets, a, ty, name, |s, ix| {
                let r = ix.len();
                let mut ix = ix;
                let n = s[r - 1].clone();
                ix[r - 1] = binary(BinaryOp::Sub, binary(BinaryOp::Sub, n, Expr::usize(1)), ix[r - 1].clone());
                (s, ix)
            }),
            P::Transpose(a) => self.index_map(lets, a, ty, name, |s, ix| {
                let [rows, cols] = [s[0].clone(), s[1].clone()];
                (crate::shape::transpose(&[rows, cols]).to_vec(), vec![ix[1].clone(), ix[0].clone()])
            }),
            P::Take { n, a } => {
                let n = self.bind_shape(&mut lets, n);
                self.index_map(lets, a, ty, name, move |mut s, ix| {
                    crate::shape::take(&mut s, &n);
                    (s, ix)
                })
            }
            P::Drop { n, a } => {
                let n = self.bind_shape(&mut lets, n);
                self.index_map(lets, a, ty, name, move |mut s, mut ix| {
                    let r = s.len();
                    let dropped = crate::shape::drop(&mut s, &n);
                    ix[r - 1] = binary(BinaryOp::Add, ix[r - 1].clone(), dropped);
                    (s, ix)
                })
            }
            P::Replicate { axis, n, a } => {
                let n = self.bind_shape(&mut lets, n);
                self.index_map(lets, a, ty, name, move |s, ix| {
                    let shape = crate::shape::replicate(axis, &n, &s[0]).to_vec();
                    let source = match axis {
                        Axis::Rows => ix[1].clone(),
                        Axis::Cols => ix[0].clone(),
                    };
                    (shape, vec![source])
                })
            }
        }
    }

    /// A producer that only moves elements: `index(shape of a, output index)` gives the output
    /// shape and the source index (as components).
    fn index_map(
        &mut self,
        mut lets: Vec<(Var, Expr)>,
        a: Expr,
        ty: &Type,
        name: &str,
        index: impl FnOnce(Vec<Expr>, Vec<Expr>) -> (Vec<Expr>, Vec<Expr>),
    ) -> Expr {
        let a = self.operand(&mut lets, a);
        let r_in = rank(&a);
        let r_out = ty.as_array().expect("an array").1;
        let src_shape = self.bind_shape(&mut lets, shape_of(&a));
        let (ix, ixt) = self.index_param(r_out);
        let (shape, src) = index(components(&src_shape, r_in), components(&var(&ix, &ixt), r_out));
        let body = element(&a, index_of(src), ReadSite::Index);
        let from = [origin(&a), vec![name.into()]].concat();
        let g = ArrayOp::Generate {
            shape: index_of(shape),
            f: Lambda { params: vec![(ix, ixt)], body: Box::new(body) },
            from,
        };
        wrap(lets, Expr::array(g, ty.clone()))
    }

    /// An operand of a producer as the producer reads it: a delayed array or a variable, with
    /// anything else bound to a fresh variable first.
    fn operand(&mut self, lets: &mut Vec<(Var, Expr)>, a: Expr) -> Expr {
        let (l, core) = peel(a);
        lets.extend(l);
        if (self.fuse && is_generate(&core)) || matches!(core.kind, ExprKind::Var(_)) {
            return core;
        }
        bind(&mut self.fresh, lets, "t", core)
    }

    /// A shape or count expression that delayed code may repeat: bound to a variable unless it
    /// is cheap to repeat, so that host work in it (a reduction read with `get`) runs once.
    fn bind_shape(&mut self, lets: &mut Vec<(Var, Expr)>, shape: Expr) -> Expr {
        if trivial(&shape) {
            return shape;
        }
        bind(&mut self.fresh, lets, "shape", shape)
    }

    fn index_param(&mut self, rank: usize) -> (Var, Type) {
        (self.fresh.var("ix"), index_type(rank))
    }
}

fn rebuild(e: &Expr, kind: ExprKind) -> Expr {
    Expr::new(kind, e.ty.clone())
}

fn is_generate(e: &Expr) -> bool {
    crate::kernel::as_generate(e).is_some()
}

/// Expressions cheap enough to repeat: variables, constants, shapes and lengths of variables,
/// and `min`, `+`, `-` and tuples of those.
fn trivial(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Const(_) => true,
        ExprKind::Shape(a) | ExprKind::Len(a) => matches!(a.kind, ExprKind::Var(_)),
        ExprKind::Proj(x, _) => trivial(x),
        ExprKind::Tuple(parts) => parts.iter().all(trivial),
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, a, b) => trivial(a) && trivial(b),
        ExprKind::Math(MathFn::Min, args) => args.iter().all(trivial),
        _ => false,
    }
}

/// Whether a delayed array is cheap to recompute at every use (see the module documentation).
fn cheap(g: &Expr) -> bool {
    let Some(ArrayOp::Generate { f, .. }) = crate::kernel::as_generate(g) else { return false };
    let (mut reads, mut nodes, mut costly) = (0, 0, false);
    visit::pre_order(&f.body, &mut |e| {
        nodes += 1;
        match &e.kind {
            // What flattening reads at a row (a row's offsets, a per-row value) is shared by
            // the row's neighbouring elements: a cache hit, not a stream of its own.
            ExprKind::Index { site, .. } => reads += usize::from(*site != ReadSite::Flattened),
            ExprKind::Iterate { .. } | ExprKind::WhileLoop { .. } => costly = true,
            ExprKind::Math(m, _) => costly |= !matches!(m, MathFn::Min | MathFn::Max | MathFn::Abs),
            _ => {}
        }
    });
    reads <= 1 && !costly && nodes <= 40
}

/// How a `let`-bound variable is used in its body.
#[derive(Default, Debug)]
struct Uses {
    /// As the operand of a collective operation (fusable).
    operands: usize,
    /// Read with `xs[i]` inside a closure.
    reads: usize,
    /// Read with `xs[i]` in host code, or used as a value anywhere else.
    others: usize,
    /// Some use is inside the body or condition of an `awhile`.
    in_loop: bool,
}

/// Whether to inline the delayed array `g` bound to `id` into `body` (the sharing rule).
fn inline(id: u32, g: &Expr, body: &Expr) -> bool {
    let mut uses = Uses::default();
    count(body, id, 0, false, &mut uses);
    let total = uses.operands + uses.reads + uses.others;
    total == 0 || (cheap(g) && uses.others == 0) || (total == 1 && uses.reads == 0 && !uses.in_loop)
}

/// Counts the uses of `id` in `e`; `lambdas` is how many closures `e` is inside of.
fn count(e: &Expr, id: u32, lambdas: usize, in_loop: bool, uses: &mut Uses) {
    let is_it = |x: &Expr| matches!(&x.kind, ExprKind::Var(v) if v.id == id);
    let note = |uses: &mut Uses, kind: fn(&mut Uses) -> &mut usize| {
        *kind(uses) += 1;
        uses.in_loop |= in_loop;
    };
    match &e.kind {
        ExprKind::Var(v) if v.id == id => note(uses, |u| &mut u.others),
        ExprKind::Shape(a) | ExprKind::Len(a) if is_it(a) => {}
        ExprKind::Index { array, index, .. } if is_it(array) => {
            if lambdas > 0 {
                note(uses, |u| &mut u.reads);
            } else {
                note(uses, |u| &mut u.others);
            }
            count(index, id, lambdas, in_loop, uses);
        }
        ExprKind::Array(op) => {
            let operands = fusable_operands(op);
            let awhile = matches!(**op, ArrayOp::Awhile { .. });
            visit::for_each_child(e, &mut |child, bound, _| {
                if is_it(child) && operands.iter().any(|o| std::ptr::eq(*o, child)) {
                    note(uses, |u| &mut u.operands);
                } else {
                    let inner = bound.is_closure_body();
                    count(child, id, lambdas + usize::from(inner), in_loop || (awhile && inner), uses);
                }
            });
        }
        _ => visit::for_each_child(e, &mut |child, bound, _| {
            let inner = bound.is_closure_body();
            count(child, id, lambdas + usize::from(inner), in_loop, uses);
        }),
    }
}

/// The operands of `op` that fusion can take delayed: a producer's inputs and a consumer's
/// delayed positions.
fn fusable_operands(op: &ArrayOp) -> Vec<&Expr> {
    use ArrayOp::*;
    match op {
        Producer(p) => match p {
            P::Map { a, .. } | P::IMap { a, .. } | P::Backpermute { a, .. } | P::Reverse(a) | P::Transpose(a) => {
                vec![a]
            }
            P::Take { a, .. } | P::Drop { a, .. } | P::Replicate { a, .. } => vec![a],
            P::ZipWith { a, b, .. } => vec![a, b],
            P::Fill { .. } | P::Iota { .. } => vec![],
        },
        Fold { .. } | FoldAll { .. } | FoldSeg { .. } | Scan { .. } | ScanSeg { .. } | Permute { .. } => {
            visit::delayable(op)
        }
        ExpandPermute { .. } => visit::delayable(op),
        Stencil { .. } | Expand { .. } | Filter { .. } => visit::delayable(op),
        Generate { .. } | Unit(_) | The(_) | Reshape { .. } | Unzip(_) => vec![],
        Concat { .. } | Slice { .. } | Awhile { .. } | SegmentsFromLengths(_) | SegmentLengths(_) => vec![],
        SegmentOffsets(_) | NestedFromParts { .. } | NestedValues(_) | NestedSegments(_) | NestedMap { .. } => vec![],
        Seq(_) => vec![],
    }
}
