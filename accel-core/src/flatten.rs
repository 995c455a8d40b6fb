//! Flattening (Haskell'17 §3–4): the parallel code inside a row map, `Nested::map(|row| ..)` or
//! `matrix.map_rows(|row| ..)`, becomes flat operations over all rows at once, before fusion, so
//! that every backend runs it as it runs any other program and fusion fuses it like any other.
//!
//! The rows decide the lifting (`Rows`): a `Nested`'s are *irregular* (segmented operations
//! over its segment descriptor and values), a matrix's *regular* (the matrix's own operations
//! along its rows, with no segment descriptor at all).
//!
//! Each value the row function computes is classified once, by the first rule that applies and
//! without backtracking (the uniformity analysis of the paper's §4, on the classes it needs):
//! - *avoided* (`Lifted::Avoid`): it reads nothing that depends on the row (outer arrays and
//!   scalars, constants) and is computed as written;
//! - *per row* (`Lifted::PerRow`): one element per row (a row's length, a fold of the row, scalar
//!   code over those), held as a vector over the rows. Scalar code is not vectorised: it stays one
//!   closure, applied to each row by one `generate` over the rows (vectorisation avoidance);
//! - *segmented* (`Lifted::Segmented`): an array per row. Irregular: held as the values of every
//!   row one after the other, cut by the segment descriptor; a `map` or `zip_with` of it runs over
//!   the values, a fold of it becomes a `fold_seg`, an inclusive left scan a `scanl1_seg`.
//!   Regular: held as a matrix with a row per row; a `map` or `zip_with` is a `generate` over the
//!   matrix, a fold or a scan the matrix's own, along its rows;
//! - a tuple of values, classified part by part (a row function may return one).
//!
//! A `filter` of an array per row (irregular only) makes an array per row of other lengths, cut
//! by a segment descriptor of its own: each value tagged with the predicate (its per-row reads
//! made at its row), the kept values of all rows by one `filter`, and the new descriptor from the
//! number each row keeps (a `fold_seg` of the tags, then `segments_from_lengths`). So does a
//! `generate` of a per-row size: the sizes computed per row and cut into a descriptor (a size
//! that is the length of an array per row reuses that array's), the values one `generate` over
//! them all, each at its row and its place in the row. So does an `expand` of an array per row:
//! one `expand` over the values of all rows, each source by its index so that the closures read
//! per-row values at its row, cut by the number of results of each row (a `fold_seg` of the
//! counts). Every array per row names its descriptor; what reads one (its folds, maps, length,
//! reads by index) uses that descriptor.
//!
//! A seeded left scan of an array per row (`scanl`, `scanl_total`) is one `scanl_seg`, its rows
//! one value longer (a descriptor of their own); a right scan is the left scan of the rows
//! reversed, with the operator's arguments swapped, reversed back (delayed reversals: no
//! kernel). A fold or scan whose seed depends on the row (of a `Nested` or a matrix) runs
//! without it, the values flagged as present so that an empty row is told apart, and each row's
//! seed is combined with what it gives (or kept, for an empty row): the same values, since the
//! operator of every fold and scan is associative.
//!
//! A per-row value read inside an element closure (a row's mean used to centre it) is read once
//! per element, at the element's row: a regular element's row is the first component of its
//! index; an irregular one's is found where it is needed by a binary search of the row offsets
//! (the per-element segment lookup: no kernel, no array of the rows of the values), and a row's
//! length is the difference of two offsets. These reads are in bounds by construction
//! ([`ReadSite::Flattened`]), and cheap for fusion's sharing rule, so per-row scalar code is
//! recomputed where it is read rather than written out: a row's mean and variance are two
//! segmented reductions. Outer arrays are read where they are, never replicated.
//!
//! A read of an array per row by index (`row[i]`) reads the row's values through a delayed
//! vector of the row's length, so that the read keeps the bounds check, and the error, of a read
//! of the row itself (a segmented gather with per-row bounds).
//!
//! A fold or scan whose operator reads values of the row (a per-row modulus, say) runs over the
//! values tagged with their row, `(row, x)`: the operator reads those values at the row of its
//! operands (`RowTags`; a seed is tagged with no row, and the row is taken from the other side),
//! and the tags are dropped from what it gives.
//!
//! What these rules do not cover (a `filter`, `generate` or `expand` in a matrix's row function,
//! a collective operation under a condition that may fail, a result that is not a scalar, a
//! vector or a tuple of those per row) is reported by [`check`], which the front end calls on
//! every row function, as a compile error at the `map`: the programs that reach this pass are
//! flattened whole.

use crate::fusion::rewrite::{Fresh, binary, bind, components, index_of, index_type, let_in, shape_of, var, wrap};
use crate::ir::visit::{self, map_children};
use crate::ir::{
    ArrayOp, BinaryOp, Const, Direction, Expr, ExprKind, Lambda, Producer, Program, ReadSite, ScanKind, UnaryOp, Var,
};
use crate::types::{ElemType, ScalarType, Type};
use std::collections::HashMap;

/// Runs the pass: every `Nested::map` of the program flattened.
pub fn run(program: Program) -> Program {
    let mut fresh = Fresh::for_program(&program);
    let body = rewrite(&program.body, &mut fresh);
    Program { body, ..program }
}

/// Whether the row function `f` of a `Nested::map` or `map_rows` over an array of type `over`
/// can be flattened: `Err` says what cannot, in words for a compile error.
pub fn check(f: &Lambda, over: &Type) -> Result<(), String> {
    let mut fresh = Fresh::starting_at(visit::max_var_id_of_lambda(f) + 1);
    let rows = Expr::var(fresh.var("rows"), over.clone());
    Flatten::new(&mut fresh).nested_map(f, rows, &result_type(f, over)?).map(drop)
}

/// The type of a row map `f` over an array of type `over` (a `Nested` for `Nested::map`, a
/// matrix for `map_rows`): a vector of the row function's scalar results (a scalar or a rank-0
/// array); for its vector results, a nested array over a `Nested` and a matrix over a matrix
/// (every row's result has one length: the flattening rules keep sizes the same for every row);
/// a tuple of those for a tuple of results.
pub fn result_type(f: &Lambda, over: &Type) -> Result<Type, String> {
    let name = combinator(over)?;
    fn of(t: &Type, over: &Type, name: &str) -> Result<Type, String> {
        match t {
            Type::Elem(e) | Type::Array { elem: e, rank: 0 } => Ok(Type::array(e.clone(), 1)),
            Type::Array { elem, rank: 1 } if matches!(over, Type::Nested(_)) => Ok(Type::Nested(elem.clone())),
            Type::Array { elem, rank: 1 } => Ok(Type::array(elem.clone(), 2)),
            Type::Tuple(parts) => Ok(Type::Tuple(parts.iter().map(|p| of(p, over, name)).collect::<Result<_, _>>()?)),
            other => Err(format!(
                "a row function of `{name}` returns a scalar, a vector or a tuple of those for each row, found `{other}`"
            )),
        }
    }
    of(f.result_type(), over, name)
}

/// The combinator that maps a row function over an array of type `over`.
fn combinator(over: &Type) -> Result<&'static str, String> {
    match over {
        Type::Nested(_) => Ok("Nested::map"),
        Type::Array { rank: 2, .. } => Ok("map_rows"),
        other => Err(format!("a row map over `{other}`: rows are those of a `Nested` or a matrix")),
    }
}

fn row_elem(f: &Lambda, name: &str) -> Result<ElemType, String> {
    match f.params.as_slice() {
        [(_, Type::Array { elem, rank: 1 })] => Ok(elem.clone()),
        _ => Err(format!("the row function of `{name}` takes one row, a vector")),
    }
}

/// `e` with every row map in it flattened, innermost first; one that cannot be (which the
/// front end rejects) is left as it is.
fn rewrite(e: &Expr, fresh: &mut Fresh) -> Expr {
    let e = map_children(e, &mut |c| rewrite(c, fresh));
    if let ExprKind::Array(op) = &e.kind
        && let ArrayOp::NestedMap { f, a } = &**op
    {
        return Flatten::new(fresh).nested_map(f, a.clone(), &e.ty).unwrap_or(e);
    }
    e
}

/// The rows a function is mapped over.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant, reason = "one per row map being flattened")]
enum Rows {
    /// A `Nested`'s (irregular nesting): rows of any length, cut from the values of all rows by
    /// a segment descriptor (the first of [`Flatten::descriptors`]); an array per row is held as
    /// its values.
    Irregular,
    /// A matrix's (regular nesting): rows of one length and no descriptor; an array per row is a
    /// matrix with one row per row, and the operations on it are the matrix's own.
    Regular,
}

/// How a value of the row function is held after flattening.
#[derive(Clone, Debug)]
enum Lifted {
    /// The same for every row: the expression as written.
    Avoid(Expr),
    /// One element per row (a scalar, or a rank-0 array): a vector over the rows, bound to a
    /// variable.
    PerRow(Expr),
    /// A vector per row (a variable): under [`Rows::Irregular`], the rows' values one after the
    /// other, cut by the segment descriptor it names (the mapped array's, or one a `filter` of the
    /// row made); under [`Rows::Regular`], a matrix with one row per row (descriptor 0, unused).
    Segmented(Expr, Desc),
    /// A tuple of values classified part by part.
    Tuple(Vec<Lifted>),
}

/// A segment descriptor of arrays per row, by its place in [`Flatten::descriptors`]: 0 is the
/// mapped array's.
type Desc = usize;

/// A segment descriptor of irregular arrays per row, with what reads of it need, each made once.
struct Descriptor {
    segments: Expr,
    /// The number of values it cuts.
    total: Expr,
    /// The row offsets, once something needs them.
    offsets: Option<Expr>,
    /// The row lengths, once something needs them.
    lengths: Option<Expr>,
    /// The row of every value, once a closure needs it.
    rows_of_values: Option<Expr>,
}

impl Descriptor {
    /// Descriptor `segments` of `total` values.
    fn new(segments: Expr, total: Expr) -> Descriptor {
        Descriptor { segments, total, offsets: None, lengths: None, rows_of_values: None }
    }
}

/// The length of `values` (a vector, or the number of segments of a descriptor).
fn len_of(values: &Expr) -> Expr {
    Expr::new(ExprKind::Len(Box::new(values.clone())), usize_t())
}

/// One `Nested::map` being flattened.
struct Flatten<'f> {
    fresh: &'f mut Fresh,
    /// The `let`s of the flattened code, in order, outermost first.
    lets: Vec<(Var, Expr)>,
    /// The classification of the row function's variables (its row, and its `let`s).
    env: HashMap<u32, Lifted>,
    /// The combinator being flattened, for errors.
    name: &'static str,
    /// The mapped array's rows.
    rows: Rows,
    /// The number of rows.
    count: Expr,
    /// The segment descriptors of irregular arrays per row: the mapped array's first.
    descriptors: Vec<Descriptor>,
    /// The row function's variables that the scalar code being lifted reads at its row: their
    /// ids, the variables of the closure bound to them, and their values at the row.
    row_reads: Vec<(u32, Var, Expr)>,
}

fn usize_t() -> Type {
    index_type(1)
}

fn vector_usize() -> Type {
    Type::array(ElemType::USIZE, 1)
}

impl<'f> Flatten<'f> {
    fn new(fresh: &'f mut Fresh) -> Flatten<'f> {
        Flatten {
            fresh,
            lets: Vec::new(),
            env: HashMap::new(),
            name: "Nested::map",
            rows: Rows::Regular,
            count: Expr::usize(0),
            descriptors: Vec::new(),
            row_reads: Vec::new(),
        }
    }

    /// The row map `f` over `over` (a `Nested` or a matrix), whose result has type `ty`,
    /// flattened.
    fn nested_map(mut self, f: &Lambda, over: Expr, ty: &Type) -> Result<Expr, String> {
        self.name = combinator(&over.ty)?;
        let elem = row_elem(f, self.name)?;
        let rows = if matches!(over.ty, Type::Nested(_)) {
            let nested = self.bind("nested", over);
            let segments = self.bind("segments", Expr::array(ArrayOp::NestedSegments(nested.clone()), Type::Segments));
            self.count = len_of(&segments);
            let values = self.bind("values", Expr::array(ArrayOp::NestedValues(nested), Type::array(elem, 1)));
            self.descriptors.push(Descriptor::new(segments, len_of(&values)));
            self.rows = Rows::Irregular;
            values
        } else {
            let matrix = self.bind("matrix", over);
            self.count = components(&shape_of(&matrix), 2).swap_remove(0);
            self.rows = Rows::Regular;
            matrix
        };
        self.env.insert(f.params[0].0.id, Lifted::Segmented(rows, 0));
        let body = self.lift(&f.body)?;
        let result = self.finish(body, ty)?;
        Ok(wrap(self.lets, result))
    }

    /// The error for what the rules do not flatten.
    fn not_supported(&self, what: impl std::fmt::Display) -> String {
        let instead = match self.rows {
            Rows::Irregular => "the segmented combinators (`values()`, `lengths()`, `fold_seg`, `scanl_seg`)",
            Rows::Regular => "the matrix's own combinators (`fold`, `scanl1`, `map`, `zip_with`, `generate`)",
        };
        format!("{what} inside the row function of `{}` cannot be flattened yet: write it with {instead}", self.name)
    }

    /// Segment descriptor `d` of irregular arrays per row.
    fn segments(&self, d: Desc) -> Expr {
        match &self.rows {
            Rows::Irregular => self.descriptors[d].segments.clone(),
            Rows::Regular => unreachable!("regular rows have no segment descriptor"),
        }
    }

    /// `value` bound to a fresh variable named after `name`, and that variable.
    fn bind(&mut self, name: &str, value: Expr) -> Expr {
        bind(self.fresh, &mut self.lets, name, value)
    }

    /// The result of the map from the row function's result.
    fn finish(&mut self, body: Lifted, ty: &Type) -> Result<Expr, String> {
        match (body, ty) {
            (Lifted::PerRow(v), Type::Array { rank: 1, .. }) => Ok(v),
            (Lifted::Segmented(values, d), Type::Nested(_)) => {
                Ok(Expr::array(ArrayOp::NestedFromParts { segments: self.segments(d), values }, ty.clone()))
            }
            (Lifted::Segmented(matrix, _), Type::Array { rank: 2, .. }) => Ok(matrix),
            (tuple @ Lifted::Tuple(_), Type::Array { elem: elem @ ElemType::Tuple(_), rank: 1 }) => {
                // A tuple of scalars per row: read at each row.
                let elem = Type::Elem(elem.clone());
                self.over_rows(|this, r| this.read_scalar(&tuple, r, &elem))
            }
            (Lifted::Tuple(parts), Type::Tuple(types)) if parts.len() == types.len() => {
                let parts = parts.into_iter().zip(types).map(|(p, t)| self.finish(p, t)).collect::<Result<_, _>>()?;
                Ok(Expr::new(ExprKind::Tuple(parts), ty.clone()))
            }
            (Lifted::Avoid(x), Type::Array { elem, rank: 1 })
                if x.ty.is_elem() || x.ty.as_array().is_some_and(|(_, r)| r == 0) =>
            {
                // The same scalar for every row, computed per row (none for no rows).
                let x = if x.ty.is_elem() { x } else { Expr::array(ArrayOp::The(x), Type::Elem(elem.clone())) };
                self.over_rows(|_, _| Ok(x))
            }
            (Lifted::Avoid(_), _) => Err(self.not_supported("a vector result that does not depend on the row")),
            (Lifted::Tuple(_), _) => Err(self.not_supported("a tuple result")),
            (Lifted::PerRow(_) | Lifted::Segmented(..), _) => {
                Err(self.not_supported(format!("a result of type `{ty}`")))
            }
        }
    }

    /// Whether `e` reads a variable of the row function.
    fn depends_on_row(&self, e: &Expr) -> bool {
        visit::free_vars(e).keys().any(|id| self.env.contains_key(id))
    }

    fn lift(&mut self, e: &Expr) -> Result<Lifted, String> {
        if !self.depends_on_row(e) {
            return Ok(Lifted::Avoid(e.clone()));
        }
        match &e.kind {
            ExprKind::Var(v) => Ok(self.env[&v.id].clone()),
            ExprKind::Let { var: v, value, body } => {
                match self.lift(value)? {
                    // Computed once, before the rows: only what cannot fail, so that no rows
                    // (where the row function never runs) raise no error.
                    Lifted::Avoid(x) if !may_fail(&x) => self.lets.push((v.clone(), x)),
                    Lifted::Avoid(x) if x.ty.is_elem() => {
                        let per_row = self.over_rows(|_, _| Ok(x.clone()))?;
                        let per_row = self.bind(&v.name, per_row);
                        self.env.insert(v.id, Lifted::PerRow(per_row));
                    }
                    Lifted::Avoid(_) => {
                        return Err(format!(
                            "`{}` does not depend on the row but may fail (a read by index, an integer \
                             division, a combinator's check): compute it before the `map`",
                            v.name
                        ));
                    }
                    held => {
                        self.env.insert(v.id, held);
                    }
                }
                self.lift(body)
            }
            ExprKind::Tuple(parts) => Ok(Lifted::Tuple(parts.iter().map(|p| self.lift(p)).collect::<Result<_, _>>()?)),
            ExprKind::Proj(x, k) if !e.ty.is_elem() => match self.lift(x)? {
                Lifted::Tuple(mut parts) if *k < parts.len() => Ok(parts.swap_remove(*k)),
                _ => Err(self.not_supported("this projection")),
            },
            ExprKind::Array(op) if !e.ty.is_elem() => self.collective(op, &e.ty),
            _ if e.ty.is_elem() => {
                // Scalar code: one closure applied to every row (vectorisation avoidance).
                let per_row = self.over_rows(|this, r| this.scalar_at(e, r, &mut Vec::new(), false))?;
                Ok(Lifted::PerRow(self.bind("per_row", per_row)))
            }
            ExprKind::If { .. } => Err(self.not_supported("an array `if` that depends on the row")),
            _ => Err(self.not_supported("this expression")),
        }
    }

    /// Scalar code `e` at row `r`: each of the row function's variables read at the row, each
    /// row length the row's, and each collective operation on the row (a fold, read with `get`)
    /// lifted on its own and read at the row. `local` are the variables bound inside the scalar
    /// code, which a lifted operation must not read; under a condition (`conditional`), what may
    /// fail is not lifted, since the row function might not evaluate it.
    fn scalar_at(&mut self, e: &Expr, r: &Expr, local: &mut Vec<u32>, conditional: bool) -> Result<Expr, String> {
        if !self.depends_on_row(e) {
            return Ok(e.clone());
        }
        match &e.kind {
            ExprKind::Var(v) => match self.env.get(&v.id).cloned() {
                // Read once at the top of the closure (see `at_row`), however often it is used.
                Some(l) => {
                    if let Some((_, w, _)) = self.row_reads.iter().find(|(id, _, _)| *id == v.id) {
                        return Ok(var(w, &e.ty));
                    }
                    let value = self.read_scalar(&l, r, &e.ty)?;
                    let w = self.fresh.var(&v.name);
                    self.row_reads.push((v.id, w.clone(), value));
                    Ok(var(&w, &e.ty))
                }
                None => Ok(e.clone()),
            },
            ExprKind::Len(x) | ExprKind::Shape(x) if let Some((held, d)) = self.row_shaped(x) => Ok(match &self.rows {
                Rows::Regular => components(&shape_of(&held), 2).swap_remove(1),
                Rows::Irregular => element(&self.lengths(d), r.clone()),
            }),
            ExprKind::Array(op) => {
                if visit::free_vars(e).keys().any(|id| local.contains(id)) {
                    return Err(self.not_supported(
                        "a collective operation on the row that reads a variable of the scalar code around it",
                    ));
                }
                if conditional && may_fail(e) {
                    return Err(
                        self.not_supported("a collective operation on the row under a condition, which may fail")
                    );
                }
                let operand = match &**op {
                    ArrayOp::The(x) => x,
                    _ => e,
                };
                match self.lift(operand)? {
                    Lifted::PerRow(v) => Ok(element(&v, r.clone())),
                    _ => Err(self.not_supported("an array per row read as a scalar")),
                }
            }
            ExprKind::Index { array, index, site } if self.depends_on_row(array) => {
                // A segmented gather: the row's array as a delayed vector of the row's length,
                // read with the bounds check (and the error) of a read of the row itself.
                if visit::free_vars(array).keys().any(|id| local.contains(id)) {
                    return Err(self.not_supported("a read by index of an array that reads the scalar code around it"));
                }
                if conditional && may_fail(array) {
                    return Err(self.not_supported("a read by index, under a condition, of an array that may fail"));
                }
                let Lifted::Segmented(held, d) = self.lift(array)? else {
                    return Err(self.not_supported("a read by index of this array"));
                };
                let (length, row_array) = self.row_array(&held, d, r);
                let index = self.scalar_at(index, r, local, conditional)?;
                let read = ExprKind::Index { array: Box::new(row_array), index: Box::new(index), site: *site };
                Ok(let_in(&length.0, length.1, Expr::new(read, e.ty.clone())))
            }
            ExprKind::Let { var: v, .. } => {
                local.push(v.id);
                self.scalar_children(e, r, local, |_| conditional)
            }
            // The first child is always evaluated, the others only sometimes.
            ExprKind::If { .. } | ExprKind::Binary(BinaryOp::And | BinaryOp::Or, ..) => {
                self.scalar_children(e, r, local, |k| conditional || k > 0)
            }
            ExprKind::Iterate { .. } | ExprKind::WhileLoop { .. } => {
                Err(self.not_supported("a scalar loop over values of the row"))
            }
            _ => self.scalar_children(e, r, local, |_| conditional),
        }
    }

    /// [`Flatten::scalar_at`] of every child of `e`; `conditional(k)` says whether child `k` is
    /// under a condition.
    fn scalar_children(
        &mut self,
        e: &Expr,
        r: &Expr,
        local: &mut Vec<u32>,
        conditional: impl Fn(usize) -> bool,
    ) -> Result<Expr, String> {
        let mut result = Ok(());
        let mut k = 0;
        let rebuilt = map_children(e, &mut |c| {
            let under = conditional(k);
            k += 1;
            match self.scalar_at(c, r, local, under) {
                Ok(x) => x,
                Err(m) => {
                    result = Err(m);
                    c.clone()
                }
            }
        });
        result.map(|()| rebuilt)
    }

    /// Scalar code at a row made by `body` (with [`Flatten::scalar_at`]), under one `let` per
    /// variable of the row function it reads, bound to the variable's value at the row.
    fn at_row(&mut self, body: impl FnOnce(&mut Self) -> Result<Expr, String>) -> Result<Expr, String> {
        let outer = std::mem::take(&mut self.row_reads);
        let body = body(self);
        let reads = std::mem::replace(&mut self.row_reads, outer);
        Ok(wrap(reads.into_iter().map(|(_, w, value)| (w, value)).collect(), body?))
    }

    /// Row `r` of an array per row held as `held`, as a delayed vector of the row's length:
    /// `offsets[r] + j` of the values (irregular), or `(r, j)` of the matrix (regular). The
    /// length comes apart, a variable and its value, for the caller to bind around the read (so
    /// that the delayed vector stays a `generate`, which kernels read in place).
    fn row_array(&mut self, held: &Expr, d: Desc, r: &Expr) -> ((Var, Expr), Expr) {
        let j = self.fresh.var("j");
        let jv = var(&j, &usize_t());
        let (length, at) = match &self.rows {
            Rows::Irregular => {
                let offsets = self.offsets(d);
                let start = element(&offsets, r.clone());
                let at = Expr::new(ExprKind::Binary(BinaryOp::Add, Box::new(start), Box::new(jv)), usize_t());
                (element(&self.lengths(d), r.clone()), at)
            }
            Rows::Regular => (components(&shape_of(held), 2).swap_remove(1), index_of(vec![r.clone(), jv])),
        };
        let elem = held.ty.as_array().expect("an array per row").0.clone();
        let f = Lambda { params: vec![(j, usize_t())], body: Box::new(element(held, at)) };
        let n = self.fresh.var("length");
        let generate = ArrayOp::Generate { shape: var(&n, &usize_t()), f, from: vec!["row".into()] };
        ((n, length), Expr::array(generate, Type::array(elem, 1)))
    }

    /// How `x` is held, and cut, if it is a variable holding an array per row.
    fn row_shaped(&self, x: &Expr) -> Option<(Expr, Desc)> {
        let ExprKind::Var(v) = &x.kind else { return None };
        match self.env.get(&v.id) {
            Some(Lifted::Segmented(held, d)) => Some((held.clone(), *d)),
            _ => None,
        }
    }

    /// `generate(rows, |r| body(r))`: scalar code applied to every row.
    fn over_rows(&mut self, body: impl FnOnce(&mut Self, &Expr) -> Result<Expr, String>) -> Result<Expr, String> {
        let r = self.fresh.var("row");
        let body = self.at_row(|this| body(this, &var(&r, &usize_t())))?;
        let ty = Type::array(body.ty.as_elem().expect("scalar code").clone(), 1);
        let f = Lambda { params: vec![(r, usize_t())], body: Box::new(body) };
        Ok(Expr::array(ArrayOp::Generate { shape: self.count.clone(), f, from: vec!["nested_map".into()] }, ty))
    }

    /// `generate(n, |i| body(i))` over the values of a vector of `n` elements, `from` naming its
    /// origin in plans: an element per value, not per row (for those, [`Flatten::over_rows`]).
    fn over_values(
        &mut self,
        n: Expr,
        from: &str,
        body: impl FnOnce(&mut Self, &Expr) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        let i = self.fresh.var("i");
        let body = body(self, &var(&i, &usize_t()))?;
        let ty = Type::array(body.ty.as_elem().expect("scalar code").clone(), 1);
        let f = Lambda { params: vec![(i, usize_t())], body: Box::new(body) };
        Ok(Expr::array(ArrayOp::Generate { shape: n, f, from: vec![from.into()] }, ty))
    }

    /// The row offsets of descriptor `d`, a view of the descriptor (no kernel).
    fn offsets(&mut self, d: Desc) -> Expr {
        if let Some(o) = &self.descriptors[d].offsets {
            return o.clone();
        }
        let o = self.bind("offsets", Expr::array(ArrayOp::SegmentOffsets(self.segments(d)), vector_usize()));
        self.descriptors[d].offsets = Some(o.clone());
        o
    }

    /// The row lengths of descriptor `d`, a vector over the rows: delayed and not bound
    /// (`offsets[r + 1] - offsets[r]`), so that each read computes a length where it is made,
    /// with no kernel.
    fn lengths(&mut self, d: Desc) -> Expr {
        if let Some(l) = &self.descriptors[d].lengths {
            return l.clone();
        }
        let offsets = self.offsets(d);
        let r = self.fresh.var("row");
        let rv = var(&r, &usize_t());
        let next =
            Expr::new(ExprKind::Binary(BinaryOp::Add, Box::new(rv.clone()), Box::new(Expr::usize(1))), usize_t());
        let length = sub(element(&offsets, next), element(&offsets, rv));
        let f = Lambda { params: vec![(r, usize_t())], body: Box::new(length) };
        let generate = ArrayOp::Generate { shape: self.count.clone(), f, from: vec!["lengths".into()] };
        let l = Expr::array(generate, vector_usize());
        self.descriptors[d].lengths = Some(l.clone());
        l
    }

    /// The row of every value cut by descriptor `d`, delayed and not bound: the per-element
    /// segment lookup ([`ExprKind::SegmentOf`]), which a segmented skeleton over the rows
    /// supplies for its own elements and anything else finds by a binary search of the row
    /// offsets. No kernel, no array of the rows of the values.
    fn rows_of_values(&mut self, d: Desc) -> Expr {
        if let Some(ids) = &self.descriptors[d].rows_of_values {
            return ids.clone();
        }
        let i = self.fresh.var("i");
        let segments = self.segments(d);
        let lookup = ExprKind::SegmentOf { segments: Box::new(segments), index: Box::new(var(&i, &usize_t())) };
        let f = Lambda { params: vec![(i, usize_t())], body: Box::new(Expr::new(lookup, usize_t())) };
        let generate = ArrayOp::Generate { shape: self.descriptors[d].total.clone(), f, from: vec!["row_of".into()] };
        let ids = Expr::array(generate, vector_usize());
        self.descriptors[d].rows_of_values = Some(ids.clone());
        ids
    }

    /// A collective operation of the row function that depends on the row.
    fn collective(&mut self, op: &ArrayOp, ty: &Type) -> Result<Lifted, String> {
        let name = op.name();
        match op {
            ArrayOp::The(x) | ArrayOp::Unit(x) => match self.lift(x)? {
                Lifted::PerRow(v) => Ok(Lifted::PerRow(v)),
                _ => Err(self.not_supported(format!("`{name}` here"))),
            },
            ArrayOp::Fold { z, f, a } | ArrayOp::FoldAll { z, f, a } => {
                let Lifted::Segmented(held, d) = self.lift(a)? else {
                    return Err(self.not_supported(format!("`{name}` of this array")));
                };
                let elem = ty.as_array().expect("a fold makes an array").0.clone();
                self.on_own_rows(z.as_ref(), f, held, d, &elem, |this, z, f, held, elem| {
                    this.fold_of_rows(z, f, held, d, elem)
                })
            }
            ArrayOp::Scan { dir, kind, z, f, a } => {
                let Lifted::Segmented(held, d) = self.lift(a)? else {
                    return Err(self.not_supported(format!("`{name}` of this array")));
                };
                let elem = held.ty.as_array().expect("an array per row").0.clone();
                self.on_own_rows(z.as_ref(), f, held, d, &elem, |this, z, f, held, elem| {
                    this.scan_of_rows(*dir, *kind, z, f, held, d, elem)
                })
            }
            ArrayOp::Filter { pred, a } => self.filter(pred, a),
            ArrayOp::Expand { count, value, a } => self.expand(count, value, a, ty),
            ArrayOp::Generate { shape, f, .. } if ty.as_array().is_some_and(|(_, rank)| rank == 1) => {
                self.generate(shape, f)
            }
            ArrayOp::Producer(Producer::Map { f, a }) => self.elementwise(f, &[a]),
            ArrayOp::Producer(Producer::ZipWith { f, a, b }) => self.elementwise(f, &[a, b]),
            _ => Err(self.not_supported(format!("`{name}` of the row (or of an array computed from it)"))),
        }
    }

    /// The value of the row function's variable held as `l` (of element type `ty`) at row `r`.
    fn read_scalar(&self, l: &Lifted, r: &Expr, ty: &Type) -> Result<Expr, String> {
        match (l, ty) {
            (Lifted::PerRow(v), _) => Ok(element(v, r.clone())),
            (Lifted::Avoid(x), _) => Ok(x.clone()),
            (Lifted::Tuple(parts), Type::Elem(ElemType::Tuple(ts))) => {
                let parts = parts
                    .iter()
                    .zip(ts)
                    .map(|(p, t)| self.read_scalar(p, r, &Type::Elem(t.clone())))
                    .collect::<Result<_, _>>()?;
                Ok(Expr::new(ExprKind::Tuple(parts), ty.clone()))
            }
            _ => Err(self.not_supported("a row used as a scalar")),
        }
    }

    fn lambda_depends_on_row(&self, f: &Lambda) -> bool {
        visit::free_vars_of_lambda(f).keys().any(|id| self.env.contains_key(id))
    }

    /// `map`/`zip_with` of row-shaped arrays `operands` with closure `f`: a `generate` over their
    /// values, the closure's per-row reads made at each value's row.
    fn elementwise(&mut self, f: &Lambda, operands: &[&Expr]) -> Result<Lifted, String> {
        let mut values = Vec::new();
        let mut cut = None;
        for a in operands {
            match self.lift(a)? {
                Lifted::Segmented(v, d) if cut.is_none_or(|c| c == d) => {
                    values.push(v);
                    cut = Some(d);
                }
                Lifted::Segmented(..) => {
                    return Err(self.not_supported("a `zip_with` of a filtered row and an array of another length"));
                }
                _ => return Err(self.not_supported("a `map` or `zip_with` of arrays that are not rows")),
            }
        }
        if matches!(self.rows, Rows::Regular) {
            return Ok(Lifted::Segmented(self.elementwise_regular(f, &values)?, 0));
        }
        let d = cut.expect("an operand");
        Ok(Lifted::Segmented(self.map_values(f, &values, d)?, d))
    }

    /// A `generate` over `values` (arrays per row cut by descriptor `d`) applying `f` to their
    /// elements, the closure's per-row reads made at each value's row; bound.
    fn map_values(&mut self, f: &Lambda, values: &[Expr], d: Desc) -> Result<Expr, String> {
        let mapped = self.over_values(len_of(&values[0]), "nested_map", |this, i| this.at_value(f, values, d, i))?;
        Ok(self.bind("mapped", mapped))
    }

    /// The body of closure `f` at value `iv` of `values` (arrays per row cut by descriptor `d`):
    /// its leading parameters bound to the value's elements (one per array; any others stay the
    /// closure's), its per-row reads made at the value's row.
    fn at_value(&mut self, f: &Lambda, values: &[Expr], d: Desc, iv: &Expr) -> Result<Expr, String> {
        let mut body = (*f.body).clone();
        if self.depends_on_row(&body) {
            let rows = self.rows_of_values(d);
            let r = self.fresh.var("row");
            let rv = var(&r, &usize_t());
            let mut local: Vec<u32> = f.params.iter().map(|(p, _)| p.id).collect();
            let at_row = self.at_row(|this| this.scalar_at(&body, &rv, &mut local, false))?;
            body = let_in(&r, element(&rows, iv.clone()), at_row);
        }
        for ((p, _), v) in f.params.iter().zip(values).rev() {
            body = let_in(p, element(v, iv.clone()), body);
        }
        Ok(body)
    }

    /// `generate(n, |j| e)` of a per-row size `n`: the values of every row's vector one after
    /// the other, value `i` computing `e` at its row with `j` its place in the row. A size that
    /// is the length of an array per row reuses that array's descriptor; any other is computed
    /// per row and cut into a descriptor of its own (`segments_from_lengths`). Regular rows would
    /// no longer be of one length.
    fn generate(&mut self, shape: &Expr, f: &Lambda) -> Result<Lifted, String> {
        if matches!(self.rows, Rows::Regular) {
            return Err(self.not_supported("`generate` of a per-row size"));
        }
        let d = match &shape.kind {
            ExprKind::Len(x) if let Some((_, d)) = self.row_shaped(x) => d,
            _ => {
                let sizes = self.over_rows(|this, r| this.scalar_at(shape, r, &mut Vec::new(), false))?;
                let sizes = self.bind("sizes", sizes);
                let segments = Expr::array(ArrayOp::SegmentsFromLengths(sizes), Type::Segments);
                let segments = self.bind("generated_segments", segments);
                let offsets = ArrayOp::SegmentOffsets(segments.clone());
                let offsets = self.bind("offsets", Expr::array(offsets, vector_usize()));
                // The number of values is the last offset.
                let mut d = Descriptor::new(segments, element(&offsets, self.count.clone()));
                d.offsets = Some(offsets);
                self.descriptors.push(d);
                self.descriptors.len() - 1
            }
        };
        let r = self.fresh.var("row");
        let rv = var(&r, &usize_t());
        let (rows, offsets) = (self.rows_of_values(d), self.offsets(d));
        let j = f.params[0].0.clone();
        let mut local = vec![j.id];
        let at_row = self.at_row(|this| this.scalar_at(&f.body, &rv, &mut local, false))?;
        let total = self.descriptors[d].total.clone();
        let values = self.over_values(total, "generate", |_, i| {
            let place = sub(i.clone(), element(&offsets, rv.clone()));
            Ok(let_in(&r, element(&rows, i.clone()), let_in(&j, place, at_row)))
        })?;
        Ok(Lifted::Segmented(self.bind("generated", values), d))
    }

    /// `filter` of an array per row (a segmented filter): each value tagged with the predicate,
    /// its per-row reads made at the value's row; the kept values of all rows by one `filter`;
    /// their new segments from the number kept in each row (a `fold_seg` of the tags). Regular
    /// rows would no longer be of one length.
    fn filter(&mut self, pred: &Lambda, a: &Expr) -> Result<Lifted, String> {
        let irregular = matches!(self.rows, Rows::Irregular);
        let (true, Lifted::Segmented(held, d)) = (irregular, self.lift(a)?) else {
            return Err(self.not_supported("`filter` of the row (or of an array computed from it)"));
        };
        let elem = held.ty.as_array().expect("an array per row").0.clone();
        let tagged_elem = ElemType::Tuple(vec![elem.clone(), ElemType::BOOL]);
        let tagged_t = Type::Elem(tagged_elem.clone());
        let (x, xt) = pred.params[0].clone();
        let tag = Expr::new(ExprKind::Tuple(vec![var(&x, &xt), (*pred.body).clone()]), tagged_t.clone());
        let tag = Lambda { params: pred.params.clone(), body: Box::new(tag) };
        let tagged = self.map_values(&tag, &[held], d)?;
        let kept_of = |e: Expr| Expr::new(ExprKind::Proj(Box::new(e), 1), Type::Elem(ElemType::BOOL));
        // The kept values of every row, in order.
        let t = self.fresh.var("t");
        let keep = Lambda { params: vec![(t.clone(), tagged_t.clone())], body: Box::new(kept_of(var(&t, &tagged_t))) };
        let kept = ArrayOp::Filter { pred: keep, a: tagged.clone() };
        let kept = self.bind("kept", Expr::array(kept, Type::array(tagged_elem, 1)));
        let values = self.over_values(len_of(&kept), "filter", |_, i| {
            Ok(Expr::new(ExprKind::Proj(Box::new(element(&kept, i.clone())), 0), Type::Elem(elem)))
        })?;
        let values = self.bind("filtered", values);
        // How many each row keeps.
        let kept = |t: Expr| {
            Expr::new(
                ExprKind::If {
                    cond: Box::new(kept_of(t)),
                    then: Box::new(Expr::usize(1)),
                    els: Box::new(Expr::usize(0)),
                },
                usize_t(),
            )
        };
        let segments = self.cut_by_counts(&tagged, d, kept, "filtered_segments")?;
        self.descriptors.push(Descriptor::new(segments, len_of(&values)));
        Ok(Lifted::Segmented(values, self.descriptors.len() - 1))
    }

    /// `expand(count, value)` of an array per row: one `expand` over the values of all rows, in
    /// order, each source by its index (so that the closures' per-row reads are made at its row),
    /// cut by new segments from the number of results in each row (a `fold_seg` of the counts,
    /// a negative count counted as 0 there: the `expand` reports it). The counts are computed
    /// once, for both. Regular rows would no longer be of one length.
    fn expand(&mut self, count: &Lambda, value: &Lambda, a: &Expr, ty: &Type) -> Result<Lifted, String> {
        let irregular = matches!(self.rows, Rows::Irregular);
        let (true, Lifted::Segmented(held, d)) = (irregular, self.lift(a)?) else {
            return Err(self.not_supported("`expand` of the row (or of an array computed from it)"));
        };
        let counts = self.map_values(count, std::slice::from_ref(&held), d)?;
        let (i, k) = (self.fresh.var("i"), self.fresh.var("i"));
        let counted =
            Lambda { params: vec![(i.clone(), usize_t())], body: Box::new(element(&counts, var(&i, &usize_t()))) };
        let j = value.params[1].0.clone();
        let body = self.at_value(value, std::slice::from_ref(&held), d, &var(&k, &usize_t()))?;
        let placed = Lambda { params: vec![(k, usize_t()), (j, usize_t())], body: Box::new(body) };
        let sources = self.over_values(len_of(&held), "expand", |_, i| Ok(i.clone()))?;
        let expanded = ArrayOp::Expand { count: counted, value: placed, a: sources };
        let expanded = self.bind("expanded", Expr::array(expanded, ty.clone()));
        let results = |c: Expr| {
            let negative = c.ty.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_signed);
            let as_usize = Expr::new(ExprKind::Cast(Box::new(c.clone()), ScalarType::Usize), usize_t());
            if !negative {
                return as_usize;
            }
            let zero = zero_of(c.ty.as_elem().expect("a count"));
            let below = binary(BinaryOp::Lt, c, zero);
            Expr::new(
                ExprKind::If { cond: Box::new(below), then: Box::new(Expr::usize(0)), els: Box::new(as_usize) },
                usize_t(),
            )
        };
        let segments = self.cut_by_counts(&counts, d, results, "expanded_segments")?;
        self.descriptors.push(Descriptor::new(segments, len_of(&expanded)));
        Ok(Lifted::Segmented(expanded, self.descriptors.len() - 1))
    }

    /// New segments, bound as `name`, of as many values in each row as the `count`s of its
    /// values add up to: `count(per_value[i])`, a `usize`, summed over each row of
    /// descriptor `d` (a `fold_seg`), then `segments_from_lengths`.
    fn cut_by_counts(
        &mut self,
        per_value: &Expr,
        d: Desc,
        count: impl FnOnce(Expr) -> Expr,
        name: &str,
    ) -> Result<Expr, String> {
        let counts =
            self.over_values(len_of(per_value), "nested_map", |_, i| Ok(count(element(per_value, i.clone()))))?;
        let (p, q) = (self.fresh.var("a"), self.fresh.var("b"));
        let add = binary(BinaryOp::Add, var(&p, &usize_t()), var(&q, &usize_t()));
        let lengths = ArrayOp::FoldSeg {
            z: Some(Expr::usize(0)),
            f: Lambda { params: vec![(p, usize_t()), (q, usize_t())], body: Box::new(add) },
            a: counts,
            segments: self.segments(d),
        };
        let lengths = self.bind("row_lengths", Expr::array(lengths, vector_usize()));
        Ok(self.bind(name, Expr::array(ArrayOp::SegmentsFromLengths(lengths), Type::Segments)))
    }

    /// A right scan (`scanr1`, `scanr`, `scanr_total`) of an array per row held as `held` (cut by
    /// `d`, irregular): the left scan of each row reversed, with the operator's arguments
    /// swapped, reversed back (`scanr` gives `len + 1` values per row, the seed last;
    /// `scanr_total` the last `len` of those, and the first per row).
    fn scanr_of_rows(
        &mut self,
        kind: ScanKind,
        z: Option<&Expr>,
        f: &Lambda,
        held: &Expr,
        d: Desc,
        elem: &ElemType,
    ) -> Result<Lifted, String> {
        let flipped = flipped(f);
        let reversed = self.reverse_rows(held, d)?;
        let (scanned, e) = match (kind, z) {
            (ScanKind::Inclusive, _) => {
                let segments = self.segments(d);
                let scan = ArrayOp::ScanSeg { kind, z: None, f: flipped, a: reversed, segments };
                (self.bind("scanned", Expr::array(scan, Type::array(elem.clone(), 1))), d)
            }
            (ScanKind::WithSeed | ScanKind::ExclusiveAndTotal, Some(z)) => {
                self.scan_with_seed(z, &flipped, reversed, d, elem)?
            }
            (ScanKind::WithSeed | ScanKind::ExclusiveAndTotal, None) => unreachable!("a seeded scan has a seed"),
        };
        let scanned = self.reverse_rows(&scanned, e)?;
        let scanned = self.bind("scanned", scanned);
        if kind != ScanKind::ExclusiveAndTotal {
            return Ok(Lifted::Segmented(scanned, e));
        }
        // Each row's total comes first, then its exclusive values.
        self.exclusive_and_totals(&scanned, d, e, true)
    }

    /// `scan_total`'s two results from `scanned`, a seeded scan of the arrays per row cut by `d`
    /// whose rows, one value longer, are cut by `e`: the exclusive values, cut by `d`, and the
    /// total of each row, the first value of its row of the scan if `total_first` (a right
    /// scan), else the last. Row `r` of the scan starts `r` places further on than row `r` of
    /// `d`.
    fn exclusive_and_totals(&mut self, scanned: &Expr, d: Desc, e: Desc, total_first: bool) -> Result<Lifted, String> {
        let rows = self.rows_of_values(d);
        let total = self.descriptors[d].total.clone();
        let scans = self.over_values(total, "scan_total", |this, i| {
            let row = this.fresh.var("row");
            let shift = binary(BinaryOp::Add, var(&row, &usize_t()), Expr::usize(usize::from(total_first)));
            Ok(let_in(&row, element(&rows, i.clone()), element(scanned, binary(BinaryOp::Add, i.clone(), shift))))
        })?;
        let scans = self.bind("scans", scans);
        let offsets = self.offsets(e);
        let totals = self.over_rows(|_, r| {
            let at = if total_first {
                element(&offsets, r.clone())
            } else {
                sub(element(&offsets, binary(BinaryOp::Add, r.clone(), Expr::usize(1))), Expr::usize(1))
            };
            Ok(element(scanned, at))
        })?;
        let totals = self.bind("totals", totals);
        Ok(Lifted::Tuple(vec![Lifted::Segmented(scans, d), Lifted::PerRow(totals)]))
    }

    /// The values of `v` (cut by descriptor `d`) with each row's in reverse order, delayed:
    /// value `i` of row `r` is `v[offsets[r] + offsets[r + 1] - 1 - i]`.
    fn reverse_rows(&mut self, v: &Expr, d: Desc) -> Result<Expr, String> {
        let row = self.fresh.var("row");
        let rv = var(&row, &usize_t());
        let (rows, offsets) = (self.rows_of_values(d), self.offsets(d));
        let next = binary(BinaryOp::Add, rv.clone(), Expr::usize(1));
        let bounds = binary(BinaryOp::Add, element(&offsets, rv), element(&offsets, next));
        self.over_values(len_of(v), "reverse", |_, i| {
            let at = sub(sub(bounds, Expr::usize(1)), i.clone());
            Ok(let_in(&row, element(&rows, i.clone()), element(v, at)))
        })
    }

    /// `fold(z, f)` of an array per row held as `held` (cut by `d`), whose seed `z` depends on
    /// the row: each row folded without it (its values flagged present, [`Present`], so that an
    /// empty row is told apart), then `f(z, total)` at each row, or `z` for an empty one. The
    /// same value as the row function's left fold, since `f` is associative (the contract of
    /// every fold).
    fn fold_with_row_seed(
        &mut self,
        z: &Expr,
        f: &Lambda,
        held: Expr,
        d: Desc,
        elem: &ElemType,
    ) -> Result<Lifted, String> {
        let present = Present::new(elem);
        let flag = present.flag(self.fresh);
        let flagged = match self.rows {
            Rows::Irregular => self.map_values(&flag, std::slice::from_ref(&held), d)?,
            Rows::Regular => self.elementwise_regular(&flag, std::slice::from_ref(&held))?,
        };
        let (absent, combine) = (present.absent(), present.combine(self.fresh, f));
        let folded = match self.rows {
            Rows::Irregular => ArrayOp::FoldSeg { z: Some(absent), f: combine, a: flagged, segments: self.segments(d) },
            Rows::Regular => ArrayOp::Fold { z: Some(absent), f: combine, a: flagged },
        };
        let folded = self.bind("folded", Expr::array(folded, present.vector()));
        let per_row = self.over_rows(|this, r| {
            let seed = this.scalar_at(z, r, &mut Vec::new(), false)?;
            Ok(present.after_seed(this.fresh, f, seed, element(&folded, r.clone())))
        })?;
        Ok(Lifted::PerRow(self.bind("folded", per_row)))
    }

    /// `scanl(z, f)` (`len + 1` values per row, `z` first) or, with `totals`, `scanl_total(z, f)`
    /// (the first `len` of those, and the last per row) of an array per row held as `held` (cut
    /// by `d`, irregular).
    fn scanl_of_rows(
        &mut self,
        z: &Expr,
        f: &Lambda,
        held: Expr,
        d: Desc,
        elem: &ElemType,
        totals: bool,
    ) -> Result<Lifted, String> {
        let (scanned, e) = self.scan_with_seed(z, f, held, d, elem)?;
        if !totals {
            return Ok(Lifted::Segmented(scanned, e));
        }
        // Each row's exclusive values come first, then its total.
        self.exclusive_and_totals(&scanned, d, e, false)
    }

    /// `scanl(z, f)` of the arrays per row held as `held` (cut by `d`, irregular): one
    /// `scanl_seg`, and its descriptor, whose rows are one longer than `d`'s. A seed that depends
    /// on the row is applied after a scan without it, as a fold's is
    /// ([`Flatten::fold_with_row_seed`]).
    fn scan_with_seed(
        &mut self,
        z: &Expr,
        f: &Lambda,
        held: Expr,
        d: Desc,
        elem: &ElemType,
    ) -> Result<(Expr, Desc), String> {
        // The rows of the scan: one value more than `d`'s.
        let lengths = self.lengths(d);
        let longer = self.over_rows(|_, r| Ok(binary(BinaryOp::Add, element(&lengths, r.clone()), Expr::usize(1))))?;
        let longer = self.bind("scan_lengths", longer);
        let scan_segments =
            self.bind("scanned_segments", Expr::array(ArrayOp::SegmentsFromLengths(longer), Type::Segments));
        // A seed that depends on the row: a scan of the values flagged present, from absent.
        let seeded = self.depends_on_row(z).then(|| Present::new(elem));
        let (a, z0, f0, scan_t) = match &seeded {
            Some(present) => {
                let flag = present.flag(self.fresh);
                let flagged = self.map_values(&flag, std::slice::from_ref(&held), d)?;
                (flagged, present.absent(), present.combine(self.fresh, f), present.vector())
            }
            None => (held, z.clone(), f.clone(), Type::array(elem.clone(), 1)),
        };
        let segments = self.segments(d);
        let scan = ArrayOp::ScanSeg { kind: ScanKind::WithSeed, z: Some(z0), f: f0, a, segments };
        let mut scanned = self.bind("scanned", Expr::array(scan, scan_t));
        self.descriptors.push(Descriptor::new(scan_segments, len_of(&scanned)));
        let e = self.descriptors.len() - 1;
        if let Some(present) = seeded {
            // Each value of the scan after its row's seed.
            let row = self.fresh.var("row");
            let rv = var(&row, &usize_t());
            let rows = self.rows_of_values(e);
            let flagged = scanned;
            let values = self.over_values(len_of(&flagged), "scanl", |this, i| {
                let at_row = this.at_row(|this| {
                    let seed = this.scalar_at(z, &rv, &mut Vec::new(), false)?;
                    Ok(present.after_seed(this.fresh, f, seed, element(&flagged, i.clone())))
                })?;
                Ok(let_in(&row, element(&rows, i.clone()), at_row))
            })?;
            scanned = self.bind("scanned", values);
        }
        Ok((scanned, e))
    }

    /// A fold (`fold`, `fold1` and the like) of an array per row held as `held` (cut by `d`),
    /// with seed `z` if any and operator `f`, whose elements are `elem`: one per row.
    fn fold_of_rows(
        &mut self,
        z: Option<&Expr>,
        f: &Lambda,
        held: Expr,
        d: Desc,
        elem: &ElemType,
    ) -> Result<Lifted, String> {
        if let Some(z) = z.filter(|z| self.depends_on_row(z)) {
            return self.fold_with_row_seed(z, f, held, d, elem);
        }
        let (z, f) = (z.cloned(), f.clone());
        let folded = match &self.rows {
            Rows::Irregular => ArrayOp::FoldSeg { z, f, a: held, segments: self.segments(d) },
            // The matrix's own fold, along its rows.
            Rows::Regular => ArrayOp::Fold { z, f, a: held },
        };
        Ok(Lifted::PerRow(self.bind("folded", Expr::array(folded, Type::array(elem.clone(), 1)))))
    }

    /// A scan of `dir` and `kind` of an array per row held as `held` (cut by `d`), with seed `z`
    /// if any and operator `f`, whose elements are `elem`.
    #[allow(clippy::too_many_arguments)]
    fn scan_of_rows(
        &mut self,
        dir: Direction,
        kind: ScanKind,
        z: Option<&Expr>,
        f: &Lambda,
        held: Expr,
        d: Desc,
        elem: &ElemType,
    ) -> Result<Lifted, String> {
        let z = z.cloned();
        match (&self.rows, dir, kind) {
            (Rows::Irregular, Direction::Left, ScanKind::Inclusive) => {
                let scan = ArrayOp::ScanSeg { kind, z, f: f.clone(), a: held, segments: self.segments(d) };
                Ok(Lifted::Segmented(self.bind("scanned", Expr::array(scan, Type::array(elem.clone(), 1))), d))
            }
            (Rows::Irregular, Direction::Left, ScanKind::WithSeed | ScanKind::ExclusiveAndTotal) => {
                let z = z.expect("a seeded scan");
                let totals = kind == ScanKind::ExclusiveAndTotal;
                self.scanl_of_rows(&z, f, held, d, elem, totals)
            }
            (Rows::Irregular, Direction::Right, _) => self.scanr_of_rows(kind, z.as_ref(), f, &held, d, elem),
            (Rows::Regular, _, ScanKind::WithSeed | ScanKind::ExclusiveAndTotal)
                if let Some(z) = z.as_ref().filter(|z| self.depends_on_row(z)) =>
            {
                self.scan_matrix_with_row_seed(dir, kind, z, f, held, elem)
            }
            // The matrix's own scan, along its rows.
            (Rows::Regular, _, ScanKind::Inclusive | ScanKind::WithSeed) => {
                let scan = ArrayOp::Scan { dir, kind, z, f: f.clone(), a: held };
                Ok(Lifted::Segmented(self.bind("scanned", Expr::array(scan, Type::array(elem.clone(), 2))), 0))
            }
            (Rows::Regular, _, ScanKind::ExclusiveAndTotal) => {
                let scan = ArrayOp::Scan { dir, kind, z, f: f.clone(), a: held };
                let (scans, totals) = self.scans_and_totals(scan, elem);
                Ok(Lifted::Tuple(vec![Lifted::Segmented(scans, 0), Lifted::PerRow(totals)]))
            }
        }
    }

    /// `run(z, f, held, elem)`, a fold or scan with seed `z` (if any) and operator `f` of an array
    /// per row held as `held` (cut by `d`) of elements `elem`, as is when `f` reads nothing of the
    /// row; else over the values tagged with their row, with the operator that reads the row at
    /// its operands' ([`Flatten::at_own_rows`]), the tags dropped from what it gives.
    fn on_own_rows(
        &mut self,
        z: Option<&Expr>,
        f: &Lambda,
        held: Expr,
        d: Desc,
        elem: &ElemType,
        run: impl FnOnce(&mut Self, Option<&Expr>, &Lambda, Expr, &ElemType) -> Result<Lifted, String>,
    ) -> Result<Lifted, String> {
        if !self.lambda_depends_on_row(f) {
            return run(self, z, f, held, elem);
        }
        let tags = RowTags::new(elem);
        let (g, tagged) = (self.at_own_rows(&tags, f)?, self.tagged(&tags, held, d)?);
        let z = z.map(|z| tags.seed(z));
        let result = run(self, z.as_ref(), &g, tagged, &tags.tagged)?;
        self.untagged(&tags, result)
    }

    /// `f`, an operator of a fold or scan that reads values of the row, over values tagged with
    /// their row ([`RowTags`]): `|p, q| (r, f(p.1, q.1))` with `f`'s reads made at row `r`, the
    /// row of `q` (that of `p` where `q` is a seed, tagged with no row). A seed is only ever
    /// combined with values of one row, on either side, so `r` is always the row of the values.
    fn at_own_rows(&mut self, tags: &RowTags, f: &Lambda) -> Result<Lambda, String> {
        let t = Type::Elem(tags.tagged.clone());
        let (p, q, r) = (self.fresh.var("p"), self.fresh.var("q"), self.fresh.var("row"));
        let (pv, qv, rv) = (var(&p, &t), var(&q, &t), var(&r, &usize_t()));
        // The row of `side`, or of `other` where `side` is a seed.
        let row_of = |side: &Expr, other: &Expr| -> Expr {
            let row = tags.part(side, 0);
            let is_seed = Expr::new(
                ExprKind::Binary(BinaryOp::Eq, Box::new(row.clone()), Box::new(Expr::usize(NO_ROW))),
                Type::Elem(ElemType::BOOL),
            );
            Expr::new(
                ExprKind::If { cond: Box::new(is_seed), then: Box::new(tags.part(other, 0)), els: Box::new(row) },
                usize_t(),
            )
        };
        let applied = apply2(f, tags.part(&pv, 1), tags.part(&qv, 1));
        let mut local: Vec<u32> = vec![p.id, q.id, r.id];
        let at_row = self.at_row(|this| this.scalar_at(&applied, &rv, &mut local, false))?;
        let body = let_in(&r, row_of(&qv, &pv), tags.pair(rv.clone(), at_row));
        Ok(Lambda { params: vec![(p, t.clone()), (q, t)], body: Box::new(body) })
    }

    /// The values of `held` (cut by `d`) each tagged with its row: `(row, x)`.
    fn tagged(&mut self, tags: &RowTags, held: Expr, d: Desc) -> Result<Expr, String> {
        match self.rows {
            Rows::Irregular => {
                let rows = self.rows_of_values(d);
                let tagged = self.over_values(len_of(&held), "row_tagged", |_, i| {
                    Ok(tags.pair(element(&rows, i.clone()), element(&held, i.clone())))
                })?;
                Ok(self.bind("tagged", tagged))
            }
            Rows::Regular => {
                let tagged = self.over_matrix(components(&shape_of(&held), 2), |_, ix| {
                    Ok(tags.pair(components(ix, 2).swap_remove(0), element(&held, ix.clone())))
                })?;
                Ok(self.bind("tagged", tagged))
            }
        }
    }

    /// What a fold or scan of tagged values gave (`l`), its tags dropped.
    fn untagged(&mut self, tags: &RowTags, l: Lifted) -> Result<Lifted, String> {
        Ok(match l {
            Lifted::PerRow(v) => {
                let values = self.over_rows(|_, r| Ok(tags.part(&element(&v, r.clone()), 1)))?;
                Lifted::PerRow(self.bind("untagged", values))
            }
            Lifted::Segmented(v, d) => {
                let values = match self.rows {
                    Rows::Irregular => {
                        self.over_values(len_of(&v), "untagged", |_, i| Ok(tags.part(&element(&v, i.clone()), 1)))?
                    }
                    Rows::Regular => self.over_matrix(components(&shape_of(&v), 2), |_, ix| {
                        Ok(tags.part(&element(&v, ix.clone()), 1))
                    })?,
                };
                Lifted::Segmented(self.bind("untagged", values), d)
            }
            Lifted::Tuple(parts) => {
                Lifted::Tuple(parts.into_iter().map(|p| self.untagged(tags, p)).collect::<Result<_, _>>()?)
            }
            Lifted::Avoid(x) => Lifted::Avoid(x),
        })
    }

    /// `generate(shape, |ix| body(ix))` over the rows and columns `shape` of a matrix (regular
    /// rows), whose row is the first component of `ix`: an element per value, as
    /// [`Flatten::over_values`] makes for irregular rows.
    fn over_matrix(
        &mut self,
        shape: Vec<Expr>,
        body: impl FnOnce(&mut Self, &Expr) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        let (ix, ixt) = (self.fresh.var("ix"), index_type(2));
        let body = body(self, &var(&ix, &ixt))?;
        let ty = Type::array(body.ty.as_elem().expect("scalar code").clone(), 2);
        let f = Lambda { params: vec![(ix, ixt)], body: Box::new(body) };
        Ok(Expr::array(ArrayOp::Generate { shape: index_of(shape), f, from: vec!["map_rows".into()] }, ty))
    }

    /// A scan along a matrix's rows (`scanl`, `scanr` and their `_total`s) whose seed `z`
    /// depends on the row: the matrix's own scan of its values flagged present ([`Present`]),
    /// from absent, then each value of it combined with its row's seed on the side the scan puts
    /// the seed (`f(z, x)` for a left scan, `f(x, z)` for a right one), or the seed alone where
    /// the scan combined nothing. The same values, since `f` is associative.
    fn scan_matrix_with_row_seed(
        &mut self,
        dir: Direction,
        kind: ScanKind,
        z: &Expr,
        f: &Lambda,
        held: Expr,
        elem: &ElemType,
    ) -> Result<Lifted, String> {
        let present = Present::new(elem);
        let flag = present.flag(self.fresh);
        let flagged = self.elementwise_regular(&flag, std::slice::from_ref(&held))?;
        let combine = present.combine(self.fresh, f);
        let scan = ArrayOp::Scan { dir, kind, z: Some(present.absent()), f: combine, a: flagged };
        let seeded = match dir {
            Direction::Left => f.clone(),
            Direction::Right => flipped(f),
        };
        // Each value of the scanned matrix after its row's seed.
        let after_seeds = |this: &mut Self, scanned: &Expr| -> Result<Expr, String> {
            let (t, tt) = (this.fresh.var("scanned"), Type::Elem(present.flagged.clone()));
            let body = present.after_seed(this.fresh, &seeded, z.clone(), var(&t, &tt));
            let g = Lambda { params: vec![(t, tt)], body: Box::new(body) };
            this.elementwise_regular(&g, std::slice::from_ref(scanned))
        };
        match kind {
            ScanKind::WithSeed => {
                let scanned = self.bind("scanned", Expr::array(scan, Type::array(present.flagged.clone(), 2)));
                Ok(Lifted::Segmented(after_seeds(self, &scanned)?, 0))
            }
            ScanKind::ExclusiveAndTotal => {
                let (scans, totals) = self.scans_and_totals(scan, &present.flagged);
                let scans = after_seeds(self, &scans)?;
                let totals = self.over_rows(|this, r| {
                    let seed = this.scalar_at(z, r, &mut Vec::new(), false)?;
                    Ok(present.after_seed(this.fresh, &seeded, seed, element(&totals, r.clone())))
                })?;
                Ok(Lifted::Tuple(vec![Lifted::Segmented(scans, 0), Lifted::PerRow(self.bind("totals", totals))]))
            }
            ScanKind::Inclusive => unreachable!("an inclusive scan has no seed"),
        }
    }

    /// The two parts of `scan`, a `_total` scan along a matrix's rows of elements `elem`: the
    /// matrix of exclusive scans and the vector of row totals, each bound.
    fn scans_and_totals(&mut self, scan: ArrayOp, elem: &ElemType) -> (Expr, Expr) {
        let (scans, totals) = (Type::array(elem.clone(), 2), Type::array(elem.clone(), 1));
        let both = Type::Tuple(vec![scans.clone(), totals.clone()]);
        let both = self.bind("scanned", Expr::array(scan, both));
        let part = |k, t| Expr::new(ExprKind::Proj(Box::new(both.clone()), k), t);
        (self.bind("scans", part(0, scans)), self.bind("totals", part(1, totals)))
    }

    /// [`Flatten::elementwise`] over matrices (regular rows): a `generate` over the rows and
    /// columns the operands share, the closure's per-row reads made at each value's row; bound.
    fn elementwise_regular(&mut self, f: &Lambda, matrices: &[Expr]) -> Result<Expr, String> {
        let mut shape = components(&shape_of(&matrices[0]), 2);
        for m in &matrices[1..] {
            crate::shape::intersect(&mut shape, &components(&shape_of(m), 2));
        }
        let mapped = self.over_matrix(shape, |this, ixv| {
            let mut body = (*f.body).clone();
            if this.depends_on_row(&body) {
                let r = this.fresh.var("row");
                let rv = var(&r, &usize_t());
                let mut local: Vec<u32> = f.params.iter().map(|(p, _)| p.id).collect();
                let at_row = this.at_row(|this| this.scalar_at(&body, &rv, &mut local, false))?;
                body = let_in(&r, components(ixv, 2).swap_remove(0), at_row);
            }
            for ((p, _), m) in f.params.iter().zip(matrices).rev() {
                body = let_in(p, element(m, ixv.clone()), body);
            }
            Ok(body)
        })?;
        Ok(self.bind("mapped", mapped))
    }
}

/// Whether evaluating `e` may raise an error: a read by index, an integer division, or a
/// combinator that checks its operands or its closures' results.
fn may_fail(e: &Expr) -> bool {
    let mut fails = false;
    visit::pre_order(e, &mut |x| {
        fails |= match &x.kind {
            ExprKind::Index { .. } => true,
            ExprKind::Binary(op, a, _) if op.is_division() => {
                a.ty.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_integer)
            }
            ExprKind::Array(op) => match &**op {
                ArrayOp::Fold { z, .. } | ArrayOp::FoldAll { z, .. } | ArrayOp::FoldSeg { z, .. } => z.is_none(),
                ArrayOp::Generate { .. } | ArrayOp::Unit(_) | ArrayOp::The(_) | ArrayOp::Scan { .. } => false,
                ArrayOp::Producer(p) => matches!(p, Producer::Backpermute { .. }),
                _ => true,
            },
            _ => false,
        }
    });
    fails
}

/// Element `i` of vector `v` (a variable of the flattened code), where `i` lies inside `v` by
/// construction: a row `r < rows` of a vector over the rows, a value `i < total` of a vector
/// over the values, a probe of the offsets below `rows`.
fn element(v: &Expr, i: Expr) -> Expr {
    crate::fusion::rewrite::element(v, i, ReadSite::Flattened)
}

/// The row tag of a seed: no row.
const NO_ROW: usize = usize::MAX;

/// Values tagged with their row, `(row, x)`, so that an operator that reads values of the row
/// reads them at its operands' row ([`Flatten::at_own_rows`]).
struct RowTags {
    elem: ElemType,
    tagged: ElemType,
}

impl RowTags {
    fn new(elem: &ElemType) -> RowTags {
        RowTags { elem: elem.clone(), tagged: ElemType::Tuple(vec![ElemType::Scalar(ScalarType::Usize), elem.clone()]) }
    }

    fn pair(&self, row: Expr, x: Expr) -> Expr {
        Expr::new(ExprKind::Tuple(vec![row, x]), Type::Elem(self.tagged.clone()))
    }

    /// Part `k` of tagged `e`: 0 the row, 1 the value.
    fn part(&self, e: &Expr, k: usize) -> Expr {
        let t = if k == 0 { ElemType::Scalar(ScalarType::Usize) } else { self.elem.clone() };
        Expr::new(ExprKind::Proj(Box::new(e.clone()), k), Type::Elem(t))
    }

    /// Seed `z`, tagged with no row.
    fn seed(&self, z: &Expr) -> Expr {
        self.pair(Expr::usize(NO_ROW), z.clone())
    }
}

/// Values flagged present, `(true, x)`, so that a fold or scan without a seed tells an empty row
/// (its seed `(false, _)`) from a row of values: what a seed that depends on the row is applied
/// after.
struct Present {
    elem: ElemType,
    flagged: ElemType,
}

impl Present {
    fn new(elem: &ElemType) -> Present {
        Present { elem: elem.clone(), flagged: ElemType::Tuple(vec![ElemType::BOOL, elem.clone()]) }
    }

    fn vector(&self) -> Type {
        Type::array(self.flagged.clone(), 1)
    }

    fn pair(&self, flag: bool, x: Expr) -> Expr {
        let flag = Expr::new(ExprKind::Const(Const::Bool(flag)), Type::Elem(ElemType::BOOL));
        Expr::new(ExprKind::Tuple(vec![flag, x]), Type::Elem(self.flagged.clone()))
    }

    /// Part `k` of flagged `e`: 0 the flag, 1 the value.
    fn part(&self, e: &Expr, k: usize) -> Expr {
        let t = if k == 0 { ElemType::BOOL } else { self.elem.clone() };
        Expr::new(ExprKind::Proj(Box::new(e.clone()), k), Type::Elem(t))
    }

    /// `|x| (true, x)`.
    fn flag(&self, fresh: &mut Fresh) -> Lambda {
        let (x, t) = (fresh.var("x"), Type::Elem(self.elem.clone()));
        Lambda { params: vec![(x.clone(), t.clone())], body: Box::new(self.pair(true, var(&x, &t))) }
    }

    /// The seed of a fold or scan of flagged values: absent.
    fn absent(&self) -> Expr {
        self.pair(false, zero_of(&self.elem))
    }

    /// `f` over flagged values, an absent side skipped (associative when `f` is).
    fn combine(&self, fresh: &mut Fresh, f: &Lambda) -> Lambda {
        let t = Type::Elem(self.flagged.clone());
        let (p, q) = (fresh.var("a"), fresh.var("b"));
        let (pv, qv) = (var(&p, &t), var(&q, &t));
        let both = apply2(f, self.part(&pv, 1), self.part(&qv, 1));
        let when = |c: Expr, then: Expr, els: Expr| {
            Expr::new(ExprKind::If { cond: Box::new(c), then: Box::new(then), els: Box::new(els) }, t.clone())
        };
        let not = |e: Expr| Expr::new(ExprKind::Unary(UnaryOp::Not, Box::new(e)), Type::Elem(ElemType::BOOL));
        let body =
            when(not(self.part(&pv, 0)), qv.clone(), when(not(self.part(&qv, 0)), pv.clone(), self.pair(true, both)));
        Lambda { params: vec![(p, t.clone()), (q, t)], body: Box::new(body) }
    }

    /// `f(seed, v)` for a present `(true, v)` held as `total`, else `seed`.
    fn after_seed(&self, fresh: &mut Fresh, f: &Lambda, seed: Expr, total: Expr) -> Expr {
        let (s, t) = (fresh.var("seed"), fresh.var("total"));
        let elem_t = Type::Elem(self.elem.clone());
        let (sv, tv) = (var(&s, &elem_t), var(&t, &Type::Elem(self.flagged.clone())));
        let applied = apply2(f, sv.clone(), self.part(&tv, 1));
        let pick = Expr::new(
            ExprKind::If { cond: Box::new(self.part(&tv, 0)), then: Box::new(applied), els: Box::new(sv) },
            elem_t,
        );
        let_in(&s, seed, let_in(&t, total, pick))
    }
}

/// The body of the two-parameter closure `f` applied to `a` and `b`.
fn apply2(f: &Lambda, a: Expr, b: Expr) -> Expr {
    let_in(&f.params[0].0, a, let_in(&f.params[1].0, b, (*f.body).clone()))
}

/// Binary operator `f` with its arguments swapped: `|b, a| f(a, b)`, what a right scan run as a
/// left one over reversed rows (or a seed combined on the right) applies.
fn flipped(f: &Lambda) -> Lambda {
    Lambda { params: vec![f.params[1].clone(), f.params[0].clone()], body: f.body.clone() }
}

/// A constant of type `elem`: zero, `false`, or a tuple of those.
fn zero_of(elem: &ElemType) -> Expr {
    let kind = match elem {
        ElemType::Scalar(ScalarType::Bool) => ExprKind::Const(Const::Bool(false)),
        ElemType::Scalar(t) if t.is_float() => ExprKind::Const(Const::Float(0.0, *t)),
        ElemType::Scalar(t) => ExprKind::Const(Const::Int(0, *t)),
        ElemType::Tuple(parts) => ExprKind::Tuple(parts.iter().map(zero_of).collect()),
    };
    Expr::new(kind, Type::Elem(elem.clone()))
}

/// `a - b` of two `usize`s.
fn sub(a: Expr, b: Expr) -> Expr {
    Expr::new(ExprKind::Binary(BinaryOp::Sub, Box::new(a), Box::new(b)), usize_t())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::eval;
    use crate::pipeline::{Options, optimise};
    use crate::types::ScalarType;
    use crate::value::{ArrayValue, ElemValue, ScalarValue, SegmentsValue, Value};

    fn lower(src: &str) -> Result<Program, String> {
        let item: syn::ItemFn = syn::parse_str(src).expect("a function");
        crate::frontend::lower(&item).map_err(|e| e.to_string())
    }

    fn nested_i64(rows: &[Vec<i64>]) -> Value {
        let segments = SegmentsValue::from_lengths("test", rows.iter().map(Vec::len)).expect("segments");
        let data: Vec<ElemValue> = rows.iter().flatten().map(|&x| ElemValue::Scalar(ScalarValue::I64(x))).collect();
        let n = data.len();
        let values = ArrayValue::new(ElemType::Scalar(ScalarType::I64), vec![n], data).expect("values");
        Value::Nested { segments, values }
    }

    /// Flattens `src`, checks that no `Nested::map` is left, and that the interpreter gives the
    /// same result on the flattened program as on the source, fused or not, and the same kind of
    /// error (which names the segmented operation, `fold_seg`, where the source's names `fold1`).
    fn same_results(src: &str, extra: Vec<Value>) {
        let program = lower(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let row_sets: [&[Vec<i64>]; 6] = [
            &[],
            &[vec![], vec![]],
            &[vec![], vec![4, -2, 7]],
            &[vec![1, 2, 3], vec![5], vec![]],
            &[vec![9; 33], vec![-3; 31], vec![], vec![2, 8]],
            &[(0..257).map(|x| x * 7 % 13 - 6).collect(), vec![0]],
        ];
        for fusion in [true, false] {
            let flat = optimise(&program, Options { fusion, expand_permute: fusion, ..Options::default() });
            let mut left = 0;
            visit::pre_order(&flat.body, &mut |e| {
                left +=
                    usize::from(matches!(&e.kind, ExprKind::Array(op) if matches!(**op, ArrayOp::NestedMap { .. })));
            });
            assert_eq!(left, 0, "{src}: {flat}");
            for rows in row_sets {
                let args: Vec<Value> = std::iter::once(nested_i64(rows)).chain(extra.iter().cloned()).collect();
                match (eval(&flat, args.clone()), eval(&program, args)) {
                    (Ok(got), Ok(want)) => assert_eq!(got, want, "{src} on {rows:?}\n{flat}"),
                    (Err(got), Err(want)) => {
                        assert_eq!(std::mem::discriminant(&got), std::mem::discriminant(&want), "{src} on {rows:?}")
                    }
                    (got, want) => panic!("{src} on {rows:?}: {got:?}, expected {want:?}\n{flat}"),
                }
            }
        }
    }

    fn matrix_i64(rows: usize, cols: usize) -> Value {
        let data = (0..rows * cols).map(|k| ElemValue::Scalar(ScalarValue::I64((k as i64 * 37) % 23 - 11))).collect();
        Value::Array(ArrayValue::new(ElemType::Scalar(ScalarType::I64), vec![rows, cols], data).expect("a matrix"))
    }

    /// [`same_results`] for a row map over a matrix: no `NestedMap` and no segment descriptor
    /// left, the interpreter's results on the flattened program equal to the source's.
    fn same_results_on_matrices(src: &str) {
        let program = lower(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        for fusion in [true, false] {
            let flat = optimise(&program, Options { fusion, expand_permute: fusion, ..Options::default() });
            let mut left = 0;
            visit::pre_order(&flat.body, &mut |e| {
                left += usize::from(matches!(&e.kind, ExprKind::Array(op)
                    if matches!(**op, ArrayOp::NestedMap { .. } | ArrayOp::FoldSeg { .. } | ArrayOp::ScanSeg { .. })));
                left += usize::from(e.ty == Type::Segments);
            });
            assert_eq!(left, 0, "{src}: {flat}");
            for (rows, cols) in [(0, 3), (3, 0), (0, 0), (1, 1), (4, 33), (2, 257), (5, 31)] {
                let args = vec![matrix_i64(rows, cols)];
                match (eval(&flat, args.clone()), eval(&program, args)) {
                    (Ok(got), Ok(want)) => assert_eq!(got, want, "{src} on {rows}x{cols}\n{flat}"),
                    (Err(got), Err(want)) => assert_eq!(
                        std::mem::discriminant(&got),
                        std::mem::discriminant(&want),
                        "{src} on {rows}x{cols}"
                    ),
                    (got, want) => panic!("{src} on {rows}x{cols}: {got:?}, expected {want:?}\n{flat}"),
                }
            }
        }
    }

    #[test]
    fn row_maps_over_a_matrix_are_the_matrixs_own_operations() {
        same_results_on_matrices("fn f(m: Matrix<i64>) -> Vector<i64> { m.map_rows(|row| row.sum()) }");
        same_results_on_matrices("fn f(m: Matrix<i64>) -> Vector<i64> { m.map_rows(|row| row.maximum()) }");
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> Matrix<i64> {
                 m.map_rows(|row| {
                     let mean = row.sum().get() / (row.len() as i64).max(1);
                     row.map(|x| (x - mean) * 3)
                 })
             }",
        );
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> Matrix<i64> { m.map_rows(|row| row.zip_with(row.scanl1(|a, b| a + b), |a, b| a * b)) }",
        );
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> Matrix<i64> { m.map_rows(|row| row.scanr(7, |a, b| a ^ b)) }",
        );
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> (Vector<i64>, Matrix<i64>) { m.map_rows(|row| (row.sum(), row.map(|x| x + 1))) }",
        );
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> (Matrix<i64>, Vector<i64>) { m.map_rows(|row| row.scanl_total(0, |a, b| a + b)) }",
        );
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> Vector<(i64, i64)> { m.map_rows(|row| (row.sum().get(), row.len() as i64)) }",
        );
    }

    #[test]
    fn a_row_map_over_a_matrix_has_no_segment_descriptor() {
        let program = optimise(
            &lower(
                "fn centre(m: Matrix<f32>) -> Matrix<f32> {
                     m.map_rows(|row| { let mean = row.sum().get() / row.len() as f32; row.map(|x| x - mean) })
                 }",
            )
            .expect("lowers"),
            Options::default(),
        );
        let plan = crate::plan::Plan::build(&program);
        // The row sums, then the centred matrix.
        assert_eq!(plan.kernel_count(), 2, "{plan}");
        assert!(!plan.to_string().contains("Segments"), "{plan}");
    }

    #[test]
    fn folds_of_the_row_become_segmented_folds() {
        same_results("fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.sum()) }", vec![]);
        same_results("fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.fold(5, |a, b| a ^ b)) }", vec![]);
        // An empty row has no maximum: the same error, from the same row.
        same_results("fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.maximum()) }", vec![]);
    }

    #[test]
    fn per_row_scalars_feed_later_row_code() {
        same_results(
            "fn f(n: Nested<i64>) -> Vector<i64> {
                 n.map(|row| {
                     let len = (row.len() as i64).max(1);
                     let mean = row.sum().get() / len;
                     row.map(|x| (x - mean) * (x - mean)).sum().get() / len
                 })
             }",
            vec![],
        );
        same_results(
            "fn f(n: Nested<i64>, k: i64) -> Nested<i64> { n.map(|row| { let s = row.sum().get(); row.map(|x| x * k - s) }) }",
            vec![Value::Elem(ElemValue::Scalar(ScalarValue::I64(3)))],
        );
        // A division by the row length fails on the empty rows only, as row by row.
        same_results(
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.sum().get() / (row.len() as i64)) }",
            vec![],
        );
    }

    #[test]
    fn maps_zips_and_scans_of_the_row_stay_segmented() {
        same_results("fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row) }", vec![]);
        same_results(
            "fn f(n: Nested<i64>) -> (Vector<i64>, Nested<i64>) { n.map(|row| (row.sum(), row.map(|x| x * 3))) }",
            vec![],
        );
        same_results(
            "fn f(n: Nested<i64>) -> Vector<(i64, usize)> { n.map(|row| (row.sum().get(), row.len())) }",
            vec![],
        );
        same_results(
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.zip_with(row.map(|x| x ^ 5), |a, b| a + b).scanl1(|a, b| a + b)) }",
            vec![],
        );
        same_results(
            "fn f(n: Nested<i64>, xs: Vector<i64>) -> Vector<i64> {
                 n.map(|row| row.map(|c| xs[(c & 3) as usize] * c).sum())
             }",
            vec![Value::Array(
                ArrayValue::new(
                    ElemType::Scalar(ScalarType::I64),
                    vec![4],
                    (1..=4).map(|x| ElemValue::Scalar(ScalarValue::I64(x))).collect(),
                )
                .expect("a vector"),
            )],
        );
    }

    #[test]
    fn reads_of_the_row_by_index_are_checked_against_the_row() {
        // The first value (an error on an empty row, as row by row), the last, a read under a
        // condition, and reads of the row and of an array computed from it in an element closure.
        same_results("fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row[0]) }", vec![]);
        same_results(
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| if row.len() > 1 { row[row.len() - 1] - row[1] } else { 7 }) }",
            vec![],
        );
        same_results(
            "fn f(n: Nested<i64>) -> Nested<i64> {
                 n.map(|row| { let d = row.map(|x| x * 2); row.map(|x| x + d[0] - row[(x & 3) as usize]) })
             }",
            vec![],
        );
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> Vector<i64> { m.map_rows(|row| row[0] * row[row.len() - 1]) }",
        );
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> Matrix<i64> { m.map_rows(|row| row.map(|x| x - row[(x & 1) as usize])) }",
        );
    }

    #[test]
    fn scalar_code_keeps_its_conditions() {
        same_results(
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| if row.len() > 2 { row.len() as i64 } else { row.fold(3, |a, b| a ^ b).get() }) }",
            vec![],
        );
        // What does not depend on the row is the same for every row.
        same_results(
            "fn f(n: Nested<i64>, k: i64) -> Vector<i64> { n.map(|row| k * 2) }",
            vec![Value::Elem(ElemValue::Scalar(ScalarValue::I64(-4)))],
        );
    }

    #[test]
    fn a_sparse_product_is_one_segmented_reduction() {
        let plan = |src: &str| crate::plan::Plan::build(&optimise(&lower(src).expect(src), Options::default()));
        let nested = plan(
            "fn spmv(rows: Nested<(u32, f32)>, x: Vector<f32>) -> Vector<f32> {
                 rows.map(|row| row.map(|(c, v)| v * x[c as usize]).sum())
             }",
        );
        let by_hand = plan(
            "fn spmv(rows: Nested<(u32, f32)>, x: Vector<f32>) -> Vector<f32> {
                 let products = rows.values().map(|(c, v)| v * x[c as usize]);
                 products.fold_seg(0.0, |a, b| a + b, rows.lengths())
             }",
        );
        assert_eq!(nested.kernel_count(), 1, "{nested}");
        assert!(nested.kernel_count() <= by_hand.kernel_count(), "{nested}\n{by_hand}");
    }

    #[test]
    fn per_row_scalars_cost_no_kernel_of_their_own() {
        let plan = crate::plan::Plan::build(&optimise(
            &lower(
                "fn row_variances(rows: Nested<f32>) -> Vector<f32> {
                     rows.map(|row| {
                         let n = (row.len() as f32).max(1.0);
                         let mean = row.sum().get() / n;
                         row.map(|x| (x - mean) * (x - mean)).sum().get() / n
                     })
                 }",
            )
            .expect("lowers"),
            Options::default(),
        ));
        // The sum, then the squares around the mean: the mean, the lengths and the row of each
        // value are computed where they are read, and nothing is replicated.
        assert_eq!(plan.kernel_count(), 2, "{plan}");
        let text = plan.to_string();
        assert!(
            text.contains("fold_seg + epilogue") && !text.contains("replicate") && !text.contains("expand"),
            "{plan}"
        );
    }

    #[test]
    fn filters_of_the_row_cut_new_segments() {
        for src in [
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.filter(|x| x > 0)) }",
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.filter(|x| x % 2 == 0).sum()) }",
            // A per-row value in the predicate, the filtered row's own length and fold, a map and
            // a scan of it, and a filter of a filtered row.
            "fn f(n: Nested<i64>) -> Nested<i64> {
                 n.map(|row| { let m = row.sum().get() / (row.len() as i64).max(1); row.filter(|x| x >= m) })
             }",
            "fn f(n: Nested<i64>) -> Vector<(usize, i64)> {
                 n.map(|row| { let k = row.filter(|x| x != 0); (k.len(), k.map(|x| x * k.len() as i64).sum().get()) })
             }",
            "fn f(n: Nested<i64>) -> (Nested<i64>, Nested<i64>) {
                 n.map(|row| { let k = row.map(|x| x + 1).filter(|x| x < 3); (k.scanl1(|a, b| a + b), k.filter(|x| x > -5)) })
             }",
            // The values of a filtered row read by index, checked against the filtered row.
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| { let k = row.filter(|x| x > 0); k[0] + k.len() as i64 }) }",
        ] {
            same_results(src, vec![]);
        }
        // A filtered row has its own length: zipped with the row, it is not flattened.
        let e = lower(
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.zip_with(row.filter(|x| x > 0), |a, b| a + b)) }",
        )
        .expect_err("rows of two lengths");
        assert!(e.contains("filtered row"), "{e}");
    }

    #[test]
    fn generates_of_a_per_row_size_cut_their_own_segments() {
        for src in [
            // The row's own length: the row's descriptor, a read of the row at each place.
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| generate(row.len(), |j| row[j] * j as i64)) }",
            // Another size per row, a per-row value in the body, folds and filters of the result.
            "fn f(n: Nested<i64>) -> Nested<i64> {
                 n.map(|row| { let s = row.sum().get(); generate(row.len() / 2 + 1, |j| s - j as i64) })
             }",
            "fn f(n: Nested<i64>) -> Vector<i64> {
                 n.map(|row| generate((row.len() * 3) % 7, |j| j as i64 + row.len() as i64).filter(|x| x % 2 == 0).sum())
             }",
            // Reads of the row past its end fail as the row function does.
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| generate(row.len() + 1, |j| row[j])) }",
        ] {
            same_results(src, vec![]);
        }
    }

    #[test]
    fn expands_of_the_row_cut_new_segments() {
        for src in [
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.expand(|x| (x & 3) as usize, |x, j| x + j as i64)) }",
            // Counts and values reading per-row values, the result folded, filtered and read.
            "fn f(n: Nested<i64>) -> (Nested<i64>, Vector<i64>) {
                 n.map(|row| {
                     let m = row.sum().get() / (row.len() as i64).max(1);
                     let e = row.expand(|x| (x + m) & 3, |x, j| x * j as i64 - m);
                     (e.filter(|y| y % 2 == 0), e.sum().get() + e.len() as i64)
                 })
             }",
            // A negative count fails as the row function does.
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.expand(|x| x % 3, |x, j| x + j as i64)) }",
            // An expand of an expand, and reads of the result by index past its end.
            "fn f(n: Nested<i64>) -> Vector<i64> {
                 n.map(|row| { let e = row.expand(|x| (x & 1) as u32, |x, j| x + j as i64); e.expand(|y| (y & 3) as i32, |y, _| y)[1] })
             }",
        ] {
            same_results(src, vec![]);
        }
    }

    #[test]
    fn folds_seeded_per_row_fold_the_row_then_the_seed() {
        for src in [
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.fold(row.len() as i64, |a, b| a + b)) }",
            // An operator that is associative but not commutative: the seed comes first.
            "fn f(n: Nested<i64>) -> Vector<(i64, i64)> {
                 n.map(|row| row.map(|x| (x, 1i64)).fold((row.len() as i64, 2i64), |a, b| (a.0 + a.1 * b.0, a.1 * b.1)))
             }",
            // The seed read from the row itself.
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.fold(if row.len() > 2 { row[2] } else { -1 }, |a, b| a.max(b))) }",
        ] {
            same_results(src, vec![]);
        }
        same_results_on_matrices(
            "fn f(m: Matrix<i64>) -> Vector<i64> { m.map_rows(|row| row.fold(row.len() as i64 * 3, |a, b| a.min(b))) }",
        );
    }

    #[test]
    fn operators_that_read_the_row_read_it_at_their_values_row() {
        // Associative operators that read a per-row value: arithmetic modulo the row's modulus
        // `m` on values made non-negative (so that every order gives the same remainders), affine
        // maps modulo `m` (associative, not commutative), a clamped maximum, a masked xor.
        let affine = "|a, b| ((a.0 + a.1 * b.0) % m, (a.1 * b.1) % m)";
        for src in [
            "fn f(n: Nested<i64>) -> Vector<i64> {
                 n.map(|row| { let m = row.len() as i64 + 2; row.map(|x| x & 1023).fold(0, |a, b| (a + b) % m) })
             }"
            .to_string(),
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.fold(row.len() as i64, |a, b| a.max(b).min(row.len() as i64 * 9))) }".into(),
            "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.fold1(|a, b| (a ^ b) & (row.len() as i64 * 5))) }".into(),
            format!(
                "fn f(n: Nested<i64>) -> Nested<(i64, i64)> {{
                     n.map(|row| {{ let m = row.len() as i64 + 2; row.map(|x| (x & 1023, 3i64)).scanl1({affine}) }})
                 }}"
            ),
            format!(
                "fn f(n: Nested<i64>) -> (Nested<(i64, i64)>, Nested<(i64, i64)>, Vector<(i64, i64)>) {{
                     n.map(|row| {{
                         let m = (row.sum().get() & 63) + 5;
                         let pairs = row.map(|x| (x & 1023, 2i64));
                         (pairs.scanl((m - 1, 3i64), {affine}), pairs.scanr((1i64, 4i64), {affine}), pairs.fold((row.len() as i64, 1i64), {affine}))
                     }})
                 }}"
            ),
            "fn f(n: Nested<i64>) -> (Nested<i64>, Vector<i64>) {
                 n.map(|row| row.map(|x| x & 1023).scanr_total(0, |a, b| (a + b) % (row.len() as i64 + 3)))
             }"
            .into(),
        ] {
            same_results(&src, vec![]);
        }
        for src in [
            "fn f(m: Matrix<i64>) -> Vector<i64> { m.map_rows(|row| row.map(|x| x & 1023).fold(5, |a, b| (a + b) % (row.len() as i64 + 7))) }",
            "fn f(m: Matrix<i64>) -> Matrix<i64> {
                 m.map_rows(|row| row.map(|x| x & 1023).scanl(row.len() as i64, |a, b| (a * b) % (row.len() as i64 + 2)))
             }",
            "fn f(m: Matrix<i64>) -> (Matrix<i64>, Vector<i64>) {
                 m.map_rows(|row| row.map(|x| x & 1023).scanr_total(1, |a, b| (a + b) % (row.len() as i64 + 2)))
             }",
        ] {
            same_results_on_matrices(src);
        }
    }

    #[test]
    fn scans_of_a_matrixs_rows_seeded_per_row_scan_then_seed() {
        for src in [
            "fn f(m: Matrix<i64>) -> Matrix<i64> { m.map_rows(|row| row.scanl(row.len() as i64, |a, b| a + b)) }",
            // Associative but not commutative: the seed comes first on the left, last on the right.
            "fn f(m: Matrix<i64>) -> Matrix<(i64, i64)> {
                 m.map_rows(|row| row.map(|x| (x, 3i64)).scanl((row.len() as i64 * 5, 2i64), |a, b| (a.0 + a.1 * b.0, a.1 * b.1)))
             }",
            "fn f(m: Matrix<i64>) -> Matrix<(i64, i64)> {
                 m.map_rows(|row| row.map(|x| (x, 3i64)).scanr((row.sum().get(), 2i64), |a, b| (a.0 + a.1 * b.0, a.1 * b.1)))
             }",
            "fn f(m: Matrix<i64>) -> (Matrix<(i64, i64)>, Vector<(i64, i64)>) {
                 m.map_rows(|row| row.map(|x| (x, -1i64)).scanl_total((row.len() as i64 - 7, 3i64), |a, b| (a.0 + a.1 * b.0, a.1 * b.1)))
             }",
            "fn f(m: Matrix<i64>) -> (Matrix<(i64, i64)>, Vector<(i64, i64)>) {
                 m.map_rows(|row| row.map(|x| (x, -1i64)).scanr_total((row.maximum().get(), 3i64), |a, b| (a.0 + a.1 * b.0, a.1 * b.1)))
             }",
            "fn f(m: Matrix<i64>) -> (Matrix<i64>, Vector<i64>) { m.map_rows(|row| row.scanr_total(row.len() as i64, |a, b| a + b)) }",
        ] {
            same_results_on_matrices(src);
        }
    }

    #[test]
    fn seeded_scans_of_the_row_have_rows_one_longer() {
        for src in [
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.scanl(3, |a, b| a + b)) }",
            // A seed that depends on the row, with a commutative operator and with one that is not.
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.scanl(row.len() as i64, |a, b| a.max(b))) }",
            "fn f(n: Nested<i64>) -> Nested<(i64, i64)> {
                 n.map(|row| row.map(|x| (x, 2i64)).scanl((row.len() as i64, 1i64), |a, b| (a.0 + a.1 * b.0, a.1 * b.1)))
             }",
            // Exclusive scans with the totals, from a fixed seed and from one per row.
            "fn f(n: Nested<i64>) -> (Nested<i64>, Vector<i64>) { n.map(|row| row.scanl_total(0, |a, b| a + b)) }",
            "fn f(n: Nested<i64>) -> (Nested<i64>, Vector<i64>) {
                 n.map(|row| row.scanl_total(row.sum().get(), |a, b| a ^ b))
             }",
            // The results folded, filtered, read by index and measured.
            "fn f(n: Nested<i64>) -> Vector<i64> {
                 n.map(|row| { let s = row.scanl(row.len() as i64, |a, b| a + b); s.filter(|x| x > 0).sum().get() + s[1] * s.len() as i64 })
             }",
        ] {
            same_results(src, vec![]);
        }
    }

    #[test]
    fn right_scans_of_the_row_scan_it_reversed() {
        for src in [
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.scanr1(|a, b| a - b)) }",
            "fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.scanr(5, |a, b| a * 3 + b)) }",
            // An operator that is associative but not commutative, a seed that depends on the row.
            "fn f(n: Nested<i64>) -> Nested<(i64, i64)> {
                 n.map(|row| row.map(|x| (x, 2i64)).scanr((row.len() as i64, 1i64), |a, b| (a.0 + a.1 * b.0, a.1 * b.1)))
             }",
            "fn f(n: Nested<i64>) -> (Nested<i64>, Vector<i64>) { n.map(|row| row.scanr_total(7, |a, b| a + b)) }",
            "fn f(n: Nested<i64>) -> (Nested<i64>, Vector<i64>) {
                 n.map(|row| row.scanr_total(row.maximum().get(), |a, b| a.min(b)))
             }",
            "fn f(n: Nested<i64>) -> Vector<i64> {
                 n.map(|row| { let s = row.scanr1(|a, b| a.max(b)); s.zip_with(row, |a, b| a - b).sum().get() + s[0] })
             }",
        ] {
            same_results(src, vec![]);
        }
    }

    #[test]
    fn what_cannot_be_flattened_is_an_error_at_the_map() {
        for (src, says) in [
            ("fn f(m: Matrix<i64>) -> Matrix<usize> { m.map_rows(|row| generate(row.len(), |i| i)) }", "`generate`"),
            (
                "fn f(m: Matrix<i64>) -> Matrix<i64> { m.map_rows(|row| row.expand(|x| (x & 3) as usize, |x, i| x + i as i64)) }",
                "`expand`",
            ),
            ("fn f(m: Matrix<i64>) -> Matrix<i64> { m.map_rows(|row| row.filter(|x| x > 0)) }", "`filter`"),
            (
                "fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| if row.len() > 0 { row.maximum().get() } else { 0 }) }",
                "condition",
            ),
            (
                "fn f(n: Nested<i64>, xs: Vector<i64>) -> Vector<i64> { n.map(|row| { let m = xs.maximum(); m.get() + row.sum().get() }) }",
                "before the `map`",
            ),
        ] {
            let e = lower(src).expect_err(src);
            assert!(e.contains(says), "{src}: {e}");
        }
    }
}
