//! The `in_bounds` pass: reads that cannot leave their array become unchecked.
//!
//! A closure that runs over an index space gets each of its indices exactly once, and only
//! indices inside that space: a `generate`'s closure is called for the indices of its shape (a
//! delayed one, read at another index, only after that index is checked against its shape), a
//! `permute`'s target function for the indices of its source. Where that space is the shape of
//! an array variable `xs` (`generate(xs.shape(), |ix| ..)`, `xs.map(..).permute(.., |i| ..)`,
//! which fusion turns into `generate(shape(xs), ..)`), a read `xs[ix]` at the closure's own index
//! is inside `xs`, whatever the program computes. This pass marks such reads
//! [`ReadSite::Elementwise`], which every backend reads without a check: on the GPU the check
//! is a branch with an error path before every load, which keeps the loads of a thread's
//! elements from being in flight together (a histogram's binning waited on each sample's load
//! before the next one was issued); on the CPU it keeps loops from vectorising.
//!
//! What counts as "the closure's own index": its parameter, a `let` that renames it, or a tuple
//! of its components in order (`|(i, j)| m[(i, j)]`, which the front end lowers to projections
//! of the parameter). What counts as the shape of `xs`: `shape(xs)`, `len(xs)` for a vector,
//! or a `let` bound to one of them. A variable bound again inside the closure (an index or an
//! array of the same id) ends the proof for what it shadows.
//!
//! ```
//! use accel_core::ir::{ExprKind, ReadSite, visit};
//! let program = accel_core::frontend::lower(&syn::parse_quote! {
//!     fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
//!         generate(xs.len(), |i| xs[i] * ys[i])
//!     }
//! }).unwrap();
//! let sites = |p: &accel_core::Program| {
//!     let mut out = Vec::new();
//!     visit::pre_order(&p.body, &mut |e| if let ExprKind::Index { site, .. } = &e.kind { out.push(*site) });
//!     out
//! };
//! let proved = accel_core::in_bounds::run(program);
//! // `xs[i]` is inside `xs`; `ys` may be shorter, so its read keeps its check.
//! assert_eq!(sites(&proved)[0], ReadSite::Elementwise);
//! assert!(sites(&proved)[1].is_checked());
//! ```

use crate::fusion::rewrite::{rank, shape_of};
use crate::ir::visit::{self, Bound};
use crate::ir::{ArrayOp, Expr, ExprKind, Program, ReadSite, Var};
use std::collections::HashMap;

/// The pass: every provably in-bounds read of `program` marked [`ReadSite::Elementwise`].
pub fn run(program: Program) -> Program {
    let mut body = program.body;
    prove(&mut body, &Scope::default());
    Program { body, ..program }
}

/// What a variable in scope is known to be.
#[derive(Clone, Debug)]
enum Known {
    /// An index that ranges over the shape of the array variable with this id, of this rank.
    Index { array: u32, rank: usize },
    /// Component `k` of such an index (of this rank).
    Component { array: u32, k: usize, rank: usize },
    /// The shape of the array variable with this id, of this rank.
    ShapeOf { array: u32, rank: usize },
    /// An array of the same shape as the array variable with this id (a `let` of a
    /// `generate` over its shape, which is how a `map` of it is written without fusion).
    SameShapeAs { array: u32 },
}

/// The variables known at a point of the program, by id.
#[derive(Clone, Default)]
struct Scope {
    known: HashMap<u32, Known>,
}

impl Scope {
    /// The scope of a child that `bound` binds variables for: a variable bound again forgets
    /// what was known of it, and of every index that ranges over it when it is an array.
    fn enter(&self, bound: Bound<'_>) -> Scope {
        let mut inner = self.clone();
        for (v, _) in bound.vars() {
            inner.forget(v);
        }
        inner
    }

    fn forget(&mut self, v: &Var) {
        self.known.remove(&v.id);
        self.known.retain(|_, k| match k {
            Known::Index { array, .. }
            | Known::Component { array, .. }
            | Known::ShapeOf { array, .. }
            | Known::SameShapeAs { array } => *array != v.id,
        });
    }

    /// The array variable `a` is, standing for every array of its shape: the one it has the
    /// shape of when that is known.
    fn array(&self, a: &Expr) -> Option<u32> {
        match &a.kind {
            ExprKind::Var(v) if a.ty.as_array().is_some() => match self.known.get(&v.id) {
                Some(Known::SameShapeAs { array }) => Some(*array),
                _ => Some(v.id),
            },
            _ => None,
        }
    }

    /// The array variable whose shape `shape` is ([`Scope::array`]), and its rank.
    fn shape_of(&self, shape: &Expr) -> Option<(u32, usize)> {
        match &shape.kind {
            ExprKind::Shape(a) => self.array(a).map(|v| (v, rank(a))),
            ExprKind::Len(a) if rank(a) == 1 => self.array(a).map(|v| (v, 1)),
            ExprKind::Var(v) => match self.known.get(&v.id) {
                Some(Known::ShapeOf { array, rank }) => Some((*array, *rank)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The array variable over whose whole shape `index` ranges, if it is one.
    fn index_of(&self, index: &Expr) -> Option<u32> {
        match &index.kind {
            ExprKind::Var(v) => match self.known.get(&v.id) {
                Some(Known::Index { array, .. }) => Some(*array),
                _ => None,
            },
            // Components of indices over the same shape, in order, each below its extent (they
            // may come from different closures over that shape).
            ExprKind::Tuple(parts) => {
                let (array, _, rank) = self.component(parts.first()?)?;
                let in_order = parts.iter().enumerate().all(|(k, p)| self.component(p) == Some((array, k, rank)));
                (in_order && parts.len() == rank).then_some(array)
            }
            _ => None,
        }
    }

    /// `(array, k, rank)` when `e` is component `k` of an index of rank `rank` ranging over
    /// `array`.
    fn component(&self, e: &Expr) -> Option<(u32, usize, usize)> {
        match &e.kind {
            ExprKind::Var(v) => match self.known.get(&v.id) {
                Some(Known::Component { array, k, rank }) => Some((*array, *k, *rank)),
                _ => None,
            },
            ExprKind::Proj(x, k) => match &x.kind {
                ExprKind::Var(v) => match self.known.get(&v.id) {
                    Some(Known::Index { array, rank }) => Some((*array, *k, *rank)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// What a `let` of `value` makes its variable: a renamed index, shape or array, a
    /// component, an array of a known shape.
    fn of_value(&self, value: &Expr) -> Option<Known> {
        if let Some(array) = self.array(value) {
            return Some(Known::SameShapeAs { array });
        }
        if let ExprKind::Var(v) = &value.kind {
            return self.known.get(&v.id).cloned();
        }
        if let ExprKind::Array(op) = &value.kind
            && let ArrayOp::Generate { shape, .. } = &**op
        {
            return self.shape_of(shape).map(|(array, _)| Known::SameShapeAs { array });
        }
        if let Some((array, k, rank)) = self.component(value) {
            return Some(Known::Component { array, k, rank });
        }
        self.shape_of(value).map(|(array, rank)| Known::ShapeOf { array, rank })
    }
}

/// The closure of `op` that runs over an index space, with the array variable whose shape that
/// space is: the parameter's id, the array's id and its rank.
fn index_space(op: &ArrayOp, scope: &Scope) -> Option<(u32, u32, usize)> {
    use ArrayOp::*;
    let (f, shape) = match op {
        Generate { shape, f, .. } => (f, shape.clone()),
        Permute { f, a, .. } => (f, shape_of(a)),
        // Producers are `generate`s by now (`fusion::producers`); the other closures take
        // elements, row values or loop states, not an index of a known shape (an expanded
        // element's index `k` ranges over the expansion, which no array variable has).
        Producer(_)
        | Unit(_)
        | The(_)
        | Fold { .. }
        | FoldAll { .. }
        | FoldSeg { .. }
        | Scan { .. }
        | ScanSeg { .. }
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
        | Seq(_) => return None,
    };
    let (array, rank) = scope.shape_of(&shape)?;
    Some((f.params.first()?.0.id, array, rank))
}

fn prove(e: &mut Expr, scope: &Scope) {
    // What this node tells the children that see its variable: what a `let`'s variable is, or
    // the index space of a closure's parameter.
    let told = match &mut e.kind {
        ExprKind::Index { array, index, site } => {
            if site.is_checked()
                && let Some(v) = scope.array(array)
                && scope.index_of(index) == Some(v)
            {
                *site = ReadSite::Elementwise;
            }
            None
        }
        ExprKind::Let { var, value, .. } => scope.of_value(value).map(|known| (var.id, known)),
        ExprKind::Array(op) => index_space(op, scope).map(|(param, array, rank)| (param, Known::Index { array, rank })),
        _ => None,
    };
    visit::for_each_child_mut(e, &mut |child, bound, _| {
        let mut inner = scope.enter(bound);
        if let Some((id, known)) = &told
            && bound.vars().any(|(v, _)| v.id == *id)
        {
            inner.known.insert(*id, known.clone());
        }
        prove(child, &inner);
    });
}

#[cfg(test)]
mod tests {
    use crate::ir::{ExprKind, ReadSite, visit};
    use crate::pipeline::{Options, optimise};

    /// The sites of the reads of `src`'s optimised program, in pre-order, as `true` where checked.
    fn checked_reads(src: &str) -> Vec<bool> {
        let item: syn::ItemFn = syn::parse_str(src).expect("a function");
        let program = crate::frontend::lower(&item).unwrap_or_else(|e| panic!("{src}: {e}"));
        let mut out = Vec::new();
        for options in [Options::default(), Options::UNFUSED] {
            let mut sites = Vec::new();
            visit::pre_order(&optimise(&program, options).body, &mut |e| {
                if let ExprKind::Index { site, .. } = &e.kind {
                    sites.push(*site);
                }
            });
            out.push(sites);
        }
        // Fused or not, the same reads are proved (the unfused program reads the map's result
        // besides, at its own index).
        let fused: Vec<bool> = out[0].iter().map(|s: &ReadSite| s.is_checked()).collect();
        let unfused: Vec<bool> = out[1].iter().filter(|s| s.is_checked()).map(|s| s.is_checked()).collect();
        assert_eq!(fused.iter().filter(|c| **c).count(), unfused.len(), "{src}");
        fused
    }

    #[test]
    fn a_permutes_read_of_its_source_at_the_source_index_is_unchecked() {
        let reads = checked_reads(
            "fn h(xs: Vector<f32>, lo: f32, bins: usize) -> Vector<u32> {
                 xs.map(|_| 1u32).permute(fill(bins, 0u32), |i| {
                     let x = xs[i];
                     if x >= lo { Some((x - lo) as usize % bins) } else { None }
                 }, |a, b| a + b)
             }",
        );
        assert_eq!(reads, [false, false]);
    }

    #[test]
    fn reads_at_the_closures_own_index_of_the_array_it_spans_are_unchecked() {
        assert_eq!(
            checked_reads(
                "fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { generate(xs.len(), |i| xs[i] * ys[i]) }"
            ),
            [false, true]
        );
        assert_eq!(
            checked_reads("fn f(m: Matrix<f32>) -> Matrix<f32> { generate(m.shape(), |ix| m[ix] * 2.0) }"),
            [false]
        );
        assert_eq!(
            checked_reads(
                "fn f(m: Matrix<f32>, n: Matrix<f32>) -> Matrix<f32> {
                     let s = m.shape();
                     generate(s, |(i, j)| m[(i, j)] + n[(i, j)] + m[(j, i)])
                 }"
            ),
            [false, true, true]
        );
    }

    #[test]
    fn other_indices_and_other_shapes_keep_their_checks() {
        for src in [
            "fn f(xs: Vector<f32>) -> Vector<f32> { generate(xs.len(), |i| xs[i + 1]) }",
            "fn f(xs: Vector<f32>) -> Vector<f32> { generate(xs.len(), |i| { let i = i / 2 + 3; xs[i] }) }",
            "fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { generate(ys.len(), |i| xs[i]) }",
            "fn f(xs: Vector<f32>, n: usize) -> Vector<f32> { generate(n, |i| xs[i]) }",
            "fn f(m: Matrix<f32>) -> Vector<f32> { generate(m.len(), |i| m[(0, i)]) }",
            "fn f(m: Matrix<f32>) -> Matrix<f32> { generate(m.shape(), |(i, j)| m[(i, i)] + m[(j, j)]) }",
        ] {
            assert!(checked_reads(src).iter().all(|c| *c), "{src}");
        }
    }
}
