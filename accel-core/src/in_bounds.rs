//! The `in_bounds` pass: reads that cannot leave their array become unchecked.
//!
//! A closure that runs over an index space gets each of its indices exactly once, and only
//! indices inside that space: a `generate`'s closure is called for the indices of its shape (a
//! delayed one, read at another index, only after that index is checked against its shape), a
//! `permute`'s target function for the indices of its source. So component `k` of its index
//! lies below the space's extent `k`. Where that extent is dimension `d` of an array variable
//! `xs`, the component lies inside that dimension, whatever the program computes; a read
//! `xs[ix]` whose every component lies inside the matching dimension of `xs` is inside `xs`.
//! That covers a read at the closure's own index over `xs`'s shape (`generate(xs.shape(), |ix|
//! ..)`, `xs.map(..).permute(.., |i| ..)`, which fusion turns into `generate(shape(xs), ..)`)
//! and reads of components each in its place: in a matrix product
//! `generate([a.rows(), b.cols(), a.cols()], |(i, j, p)| a[(i, p)] * b[(p, j)])`, `a[(i, p)]` is
//! inside `a`, while `b[(p, j)]` keeps its check (`p` ranges over `a`'s columns, which need not
//! be `b`'s rows). This pass marks such reads [`ReadSite::Elementwise`], which every backend
//! reads without a check: on the GPU the check is a branch with an error path before every
//! load, which keeps the loads of a thread's elements from being in flight together (a
//! histogram's binning waited on each sample's load before the next one was issued); on the CPU
//! it keeps loops from vectorising.
//!
//! A read some of whose components are proved this way, but not all, keeps its check on the
//! others: a read written in the source becomes [`ReadSite::SourcePartly`] with the proved
//! components, which the CPU backend checks no more (in the matrix product, `b[(p, j)]` is
//! checked on `p` alone, the same for the neighbouring `j`s that a lockstep fold reads
//! together, so their loads vectorise); device code still checks the whole index.
//!
//! What counts as a component of the closure's index: a projection of its parameter, a `let`
//! bound to one, or the parameter itself for a space of rank 1; an index is its parameter, a
//! `let` that renames it, or a tuple of components (the front end lowers `|(i, j)|` to
//! projections of the parameter). What counts as a dimension of `xs`: a component of
//! `shape(xs)`, `xs.len()` of a vector, `m.rows()` and `m.cols()` (projections of the shape),
//! or a `let` bound to one of them or to the shape. A variable bound again inside the closure
//! (an index, a dimension or an array of the same id) ends the proof for what it shadows.
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

/// The pass: every provably in-bounds read of `program` marked [`ReadSite::Elementwise`], and
/// every read written in the source with only some components proved marked
/// [`ReadSite::SourcePartly`] with them.
pub fn run(program: Program) -> Program {
    let mut body = program.body;
    prove(&mut body, &Scope::default());
    Program { body, ..program }
}

/// Dimension `dim` of the array variable with id `array`, of rank `rank`: the extent of one
/// component of an index space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Extent {
    array: u32,
    dim: usize,
    rank: usize,
}

/// What a variable in scope is known to be.
#[derive(Clone, Debug)]
enum Known {
    /// An index whose component `k` ranges below `extents[k]` (`None`: an extent that is not
    /// an array's dimension).
    Index { extents: Vec<Option<Extent>> },
    /// A component of such an index, ranging below this extent.
    Component(Extent),
    /// A shape whose component `k` is `extents[k]`.
    Shape { extents: Vec<Option<Extent>> },
    /// A dimension of an array (`let n = xs.len()`, `let k = m.cols()`).
    Dim(Extent),
    /// An array of the same shape as the array variable with this id (a `let` of a
    /// `generate` over its shape, which is how a `map` of it is written without fusion).
    SameShapeAs { array: u32 },
}

impl Known {
    /// Whether what is known involves the array variable with this id.
    fn mentions(&self, id: u32) -> bool {
        let extent = |e: &Option<Extent>| e.is_some_and(|e| e.array == id);
        match self {
            Known::Index { extents } | Known::Shape { extents } => extents.iter().any(extent),
            Known::Component(e) | Known::Dim(e) => e.array == id,
            Known::SameShapeAs { array } => *array == id,
        }
    }
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
        self.known.retain(|_, k| !k.mentions(v.id));
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

    /// The extents of the shape `shape`, component by component: `shape(xs)` is every
    /// dimension of `xs`; `xs.len()` of a vector, `m.rows()`, `m.cols()` or a variable bound to
    /// one of them is that dimension, as a rank-1 shape or as a component of a tuple of them.
    fn extents(&self, shape: &Expr) -> Option<Vec<Option<Extent>>> {
        match &shape.kind {
            ExprKind::Shape(a) => {
                let (array, rank) = (self.array(a)?, rank(a));
                Some((0..rank).map(|dim| Some(Extent { array, dim, rank })).collect())
            }
            ExprKind::Var(v) => match self.known.get(&v.id) {
                Some(Known::Shape { extents }) => Some(extents.clone()),
                Some(Known::Dim(e)) => Some(vec![Some(*e)]),
                _ => None,
            },
            ExprKind::Tuple(parts) => Some(parts.iter().map(|p| self.dim(p)).collect()),
            _ => self.dim(shape).map(|e| vec![Some(e)]),
        }
    }

    /// The array dimension the scalar `e` is, if it is one.
    fn dim(&self, e: &Expr) -> Option<Extent> {
        match &e.kind {
            ExprKind::Len(a) if rank(a) == 1 => Some(Extent { array: self.array(a)?, dim: 0, rank: 1 }),
            ExprKind::Proj(shape, k) if matches!(shape.kind, ExprKind::Shape(_) | ExprKind::Var(_)) => {
                *self.extents(shape)?.get(*k)?
            }
            ExprKind::Var(v) => match self.known.get(&v.id) {
                Some(Known::Dim(e)) => Some(*e),
                _ => None,
            },
            _ => None,
        }
    }

    /// The array variable whose whole shape `shape` is, and its rank.
    fn shape_of(&self, shape: &Expr) -> Option<(u32, usize)> {
        let extents = self.extents(shape)?;
        let first = (*extents.first()?)?;
        let whole = extents.len() == first.rank
            && extents.iter().enumerate().all(|(dim, e)| *e == Some(Extent { dim, ..first }));
        whole.then_some((first.array, first.rank))
    }

    /// The components of `index` that lie inside the array variable `array` of rank `rank`, as
    /// a bit mask (bit `d` for component `d`, below 32): those that range below the matching
    /// dimension of `array` (of an index over the same dimensions, or of several indices, each
    /// component in its place).
    fn proved(&self, index: &Expr, array: u32, rank: usize) -> u32 {
        let fits = |dim: usize, e: Option<Extent>| dim < 32 && e == Some(Extent { array, dim, rank });
        let mask = |extents: &mut dyn Iterator<Item = Option<Extent>>| {
            extents.enumerate().filter(|&(dim, e)| fits(dim, e)).fold(0, |m, (dim, _)| m | 1 << dim)
        };
        match &index.kind {
            ExprKind::Var(v) => match self.known.get(&v.id) {
                Some(Known::Index { extents }) if extents.len() == rank => mask(&mut extents.iter().copied()),
                Some(Known::Component(e)) if rank == 1 => mask(&mut std::iter::once(Some(*e))),
                _ => 0,
            },
            ExprKind::Tuple(parts) if parts.len() == rank => mask(&mut parts.iter().map(|p| self.component(p))),
            ExprKind::Proj(..) if rank == 1 => mask(&mut std::iter::once(self.component(index))),
            _ => 0,
        }
    }

    /// The extent that `e` ranges below when it is a component of an index space.
    fn component(&self, e: &Expr) -> Option<Extent> {
        match &e.kind {
            ExprKind::Var(v) => match self.known.get(&v.id) {
                Some(Known::Component(e)) => Some(*e),
                Some(Known::Index { extents }) if extents.len() == 1 => extents[0],
                _ => None,
            },
            ExprKind::Proj(x, k) => match &x.kind {
                ExprKind::Var(v) => match self.known.get(&v.id) {
                    Some(Known::Index { extents }) => *extents.get(*k)?,
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// What a `let` of `value` makes its variable: a renamed index, shape or array, a
    /// component, a dimension, an array of a known shape.
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
        if let Some(e) = self.component(value) {
            return Some(Known::Component(e));
        }
        if value.ty.as_array().is_none()
            && let Some(e) = self.dim(value)
        {
            return Some(Known::Dim(e));
        }
        let extents = self.extents(value)?;
        extents.iter().any(Option::is_some).then_some(Known::Shape { extents })
    }
}

/// The closure of `op` that runs over an index space, with that space's extents: the
/// parameter's id and the extent of each component.
fn index_space(op: &ArrayOp, scope: &Scope) -> Option<(u32, Vec<Option<Extent>>)> {
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
    let extents = scope.extents(&shape)?;
    extents.iter().any(Option::is_some).then_some((f.params.first()?.0.id, extents))
}

fn prove(e: &mut Expr, scope: &Scope) {
    // What this node tells the children that see its variable: what a `let`'s variable is, or
    // the index space of a closure's parameter.
    let told = match &mut e.kind {
        ExprKind::Index { array, index, site } => {
            if site.is_checked()
                && let Some(v) = scope.array(array)
            {
                let rank = rank(array);
                let proved = scope.proved(index, v, rank);
                // Every component proved (none past the mask's 32).
                let every = match rank {
                    0..32 => Some((1 << rank) - 1),
                    32 => Some(u32::MAX),
                    _ => None,
                };
                *site = match *site {
                    _ if Some(proved) == every => ReadSite::Elementwise,
                    ReadSite::Source(read) | ReadSite::SourcePartly { read, .. } if proved != 0 => {
                        ReadSite::SourcePartly { read, proved }
                    }
                    other => other,
                };
            }
            None
        }
        ExprKind::Let { var, value, .. } => scope.of_value(value).map(|known| (var.id, known)),
        ExprKind::Array(op) => index_space(op, scope).map(|(param, extents)| (param, Known::Index { extents })),
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
        let out: Vec<Vec<ReadSite>> = [Options::default(), Options::UNFUSED].map(|o| sites_with(src, o)).to_vec();
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

    /// The matrix product, whose `a[(i, p)]` is proved whole and `b[(p, j)]` on `j` only.
    const MATRIX_PRODUCT: &str = "fn f(a: Matrix<f32>, b: Matrix<f32>) -> Matrix<f32> {
        generate([a.rows(), b.cols(), a.cols()], |(i, j, p)| a[(i, p)] * b[(p, j)]).fold(0.0, |x, y| x + y)
    }";

    #[test]
    fn reads_whose_every_component_ranges_over_the_arrays_dimension_are_unchecked() {
        // The matrix product: `a[(i, p)]` is inside `a`; `b[(p, j)]` only if `b` has as many
        // rows as `a` has columns, which the program does not say.
        assert_eq!(checked_reads(MATRIX_PRODUCT), [false, true]);
        // An outer product over two lengths, one of them bound by a `let`.
        assert_eq!(
            checked_reads(
                "fn f(xs: Vector<f32>, ys: Vector<f32>) -> Matrix<f32> {
                     let n = xs.len();
                     generate([n, ys.len()], |(i, j)| xs[i] * ys[j])
                 }"
            ),
            [false, false]
        );
        // A row broadcast: the vector's length is the matrix's column count only by name.
        assert_eq!(
            checked_reads(
                "fn f(m: Matrix<f32>, xs: Vector<f32>) -> Matrix<f32> {
                     let s = m.shape();
                     generate([s.0, s.1], |(i, j)| m[(i, j)] * xs[j])
                 }"
            ),
            [false, true]
        );
    }

    /// The sites of the reads of `src`'s program optimised with `options`, in pre-order.
    fn sites_with(src: &str, options: Options) -> Vec<ReadSite> {
        let item: syn::ItemFn = syn::parse_str(src).expect("a function");
        let program = crate::frontend::lower(&item).unwrap_or_else(|e| panic!("{src}: {e}"));
        let mut sites = Vec::new();
        visit::pre_order(&optimise(&program, options).body, &mut |e| {
            if let ExprKind::Index { site, .. } = &e.kind {
                sites.push(*site);
            }
        });
        sites
    }

    /// [`sites_with`] of the fused program.
    fn sites(src: &str) -> Vec<ReadSite> {
        sites_with(src, Options::default())
    }

    #[test]
    fn reads_with_some_components_proved_are_checked_on_the_others() {
        // The matrix product's `b[(p, j)]`: `j` ranges over `b`'s columns, `p` over `a`'s.
        assert_eq!(sites(MATRIX_PRODUCT), [ReadSite::Elementwise, ReadSite::SourcePartly { read: 1, proved: 0b10 }]);
        // A diagonal read proves the component in its place only.
        assert_eq!(
            sites("fn f(m: Matrix<f32>) -> Matrix<f32> { generate(m.shape(), |(i, j)| m[(i, i)] + m[(j, j)]) }"),
            [ReadSite::SourcePartly { read: 0, proved: 0b01 }, ReadSite::SourcePartly { read: 1, proved: 0b10 }]
        );
        assert_eq!(
            sites("fn f(m: Matrix<f32>) -> Matrix<f32> { generate([m.rows(), m.rows()], |(i, j)| m[(i, j)]) }"),
            [ReadSite::SourcePartly { read: 0, proved: 0b01 }]
        );
        // Nothing proved: the read as written.
        for src in [
            "fn f(m: Matrix<f32>) -> Matrix<f32> { generate([m.cols(), m.rows()], |(i, j)| m[(i, j)]) }",
            "fn f(m: Matrix<f32>) -> Vector<f32> { generate(m.len(), |i| m[(0, i)]) }",
        ] {
            assert_eq!(sites(src), [ReadSite::Source(0)], "{src}");
        }
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
            "fn f(m: Matrix<f32>) -> Matrix<f32> { generate([m.cols(), m.rows()], |(i, j)| m[(i, j)]) }",
            "fn f(m: Matrix<f32>) -> Matrix<f32> { generate([m.rows(), m.rows()], |(i, j)| m[(i, j)]) }",
            "fn f(xs: Vector<f32>, ys: Vector<f32>) -> Matrix<f32> { generate([xs.len(), ys.len()], |(i, j)| xs[j]) }",
            "fn f(m: Matrix<f32>, xs: Vector<f32>) -> Vector<f32> { generate(m.rows(), |i| xs[i]) }",
        ] {
            assert!(checked_reads(src).iter().all(|c| *c), "{src}");
        }
    }
}
