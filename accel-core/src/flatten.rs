//! Flattening (Haskell'17 §3–4): the parallel code inside `Nested::map(|row| ..)` becomes flat
//! operations over the nested array's segments and values, before fusion, so that every backend
//! runs it as it runs any other program and fusion fuses it like any other.
//!
//! Each value the row function computes is classified once, by the first rule that applies and
//! without backtracking (the uniformity analysis of the paper's §4, on the classes it needs):
//! - *avoided* (`Lifted::Avoid`): it reads nothing that depends on the row (outer arrays and
//!   scalars, constants) and is computed as written;
//! - *per row* (`Lifted::PerRow`): one element per row (a row's length, a fold of the row, scalar
//!   code over those), held as a vector over the rows. Scalar code is not vectorised: it stays one
//!   closure, applied to each row by one `generate` over the rows (vectorisation avoidance);
//! - *segmented* (`Lifted::Segmented`): an array per row, held as a segment descriptor and the
//!   values of every row one after the other. A `map` or `zip_with` of it runs over the values, a
//!   fold of it becomes a `fold_seg`, an inclusive left scan a `scanl1_seg`.
//!
//! A per-row value read inside an element closure (a row's mean used to centre it) is read at the
//! element's row, from a vector of the row of every value (`expand` of the row lengths), built
//! once per row function and only when some closure needs it. Outer arrays are read where they
//! are, never replicated.
//!
//! What these rules do not cover (a fold whose seed or operator depends on the row, a read of the
//! row by index, a `filter` or a `generate` of a per-row size, a result that is not a scalar or a
//! vector per row) is reported by [`check`], which the front end calls on every row function, as
//! a compile error at the `map`: the programs that reach this pass are flattened whole.

use crate::fusion::rewrite::{Fresh, bind, index_type, let_in, var, wrap};
use crate::ir::visit::{self, map_children};
use crate::ir::{ArrayOp, BinaryOp, Direction, Expr, ExprKind, Lambda, Producer, Program, ReadSite, ScanKind, Var};
use crate::types::{ElemType, ScalarType, Type};
use std::collections::HashMap;

/// Runs the pass: every `Nested::map` of the program flattened.
pub fn run(program: Program) -> Program {
    let mut fresh = Fresh::for_program(&program);
    let body = rewrite(&program.body, &mut fresh);
    Program { body, ..program }
}

/// Whether the row function `f` of a `Nested::map` can be flattened: `Err` says what cannot, in
/// words for a compile error.
pub fn check(f: &Lambda) -> Result<(), String> {
    let mut fresh = Fresh::starting_at(visit::max_var_id_of_lambda(f) + 1);
    let nested = Expr::var(fresh.var("nested"), Type::Nested(row_elem(f)?));
    Flatten::new(&mut fresh).nested_map(f, nested, &result_type(f)?).map(drop)
}

/// The type of `Nested::map(f)`: a vector of the row function's scalar results (a scalar or a
/// rank-0 array), or a nested array of its vector results.
pub fn result_type(f: &Lambda) -> Result<Type, String> {
    match f.result_type() {
        Type::Elem(e) | Type::Array { elem: e, rank: 0 } => Ok(Type::array(e.clone(), 1)),
        Type::Array { elem, rank: 1 } => Ok(Type::Nested(elem.clone())),
        other => {
            Err(format!("a row function of `Nested::map` returns a scalar or a vector for each row, found `{other}`"))
        }
    }
}

fn row_elem(f: &Lambda) -> Result<ElemType, String> {
    match f.params.as_slice() {
        [(_, Type::Array { elem, rank: 1 })] => Ok(elem.clone()),
        _ => Err("the row function of `Nested::map` takes one row, a vector".into()),
    }
}

/// `e` with every `Nested::map` in it flattened, innermost first; one that cannot be (which the
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

/// How a value of the row function is held after flattening.
#[derive(Clone, Debug)]
enum Lifted {
    /// The same for every row: the expression as written.
    Avoid(Expr),
    /// One element per row (a scalar, or a rank-0 array): a vector over the rows, bound to a
    /// variable.
    PerRow(Expr),
    /// A vector per row: the rows' values one after the other (a variable), cut by the mapped
    /// array's segments (every array per row has the row's length).
    Segmented(Expr),
    /// A tuple of values classified part by part.
    Tuple(Vec<Lifted>),
}

/// One `Nested::map` being flattened.
struct Flatten<'f> {
    fresh: &'f mut Fresh,
    /// The `let`s of the flattened code, in order, outermost first.
    lets: Vec<(Var, Expr)>,
    /// The classification of the row function's variables (its row, and its `let`s).
    env: HashMap<u32, Lifted>,
    /// The number of rows.
    count: Expr,
    /// The row's segment descriptor.
    segments: Expr,
    /// The row lengths, once something needs them.
    lengths: Option<Expr>,
    /// The row of every value, once a closure needs it.
    rows_of_values: Option<Expr>,
}

fn usize_t() -> Type {
    index_type(1)
}

fn vector_usize() -> Type {
    Type::array(ElemType::USIZE, 1)
}

fn not_supported(what: impl std::fmt::Display) -> String {
    format!(
        "{what} inside the row function of `Nested::map` cannot be flattened yet: write it with \
         the segmented combinators (`values()`, `lengths()`, `fold_seg`, `scanl_seg`)"
    )
}

impl<'f> Flatten<'f> {
    fn new(fresh: &'f mut Fresh) -> Flatten<'f> {
        Flatten {
            fresh,
            lets: Vec::new(),
            env: HashMap::new(),
            count: Expr::usize(0),
            segments: Expr::usize(0),
            lengths: None,
            rows_of_values: None,
        }
    }

    /// `Nested::map(f)` over `nested`, whose result has type `ty`, flattened.
    fn nested_map(mut self, f: &Lambda, nested: Expr, ty: &Type) -> Result<Expr, String> {
        let elem = row_elem(f)?;
        let nested = self.bind("nested", nested);
        self.segments = self.bind("segments", Expr::array(ArrayOp::NestedSegments(nested.clone()), Type::Segments));
        self.count = Expr::new(ExprKind::Len(Box::new(self.segments.clone())), usize_t());
        let values = self.bind("values", Expr::array(ArrayOp::NestedValues(nested), Type::array(elem, 1)));
        let row = &f.params[0].0;
        self.env.insert(row.id, Lifted::Segmented(values));
        let body = self.lift(&f.body)?;
        let result = self.finish(body, ty)?;
        Ok(wrap(self.lets, result))
    }

    /// `value` bound to a fresh variable named after `name`, and that variable.
    fn bind(&mut self, name: &str, value: Expr) -> Expr {
        bind(self.fresh, &mut self.lets, name, value)
    }

    /// The result of the map from the row function's result.
    fn finish(&mut self, body: Lifted, ty: &Type) -> Result<Expr, String> {
        match (body, ty) {
            (Lifted::PerRow(v), Type::Array { rank: 1, .. }) => Ok(v),
            (Lifted::Segmented(values), Type::Nested(_)) => {
                Ok(Expr::array(ArrayOp::NestedFromParts { segments: self.segments.clone(), values }, ty.clone()))
            }
            (Lifted::Avoid(x), Type::Array { elem, rank: 1 })
                if x.ty.is_elem() || x.ty.as_array().is_some_and(|(_, r)| r == 0) =>
            {
                // The same scalar for every row, computed per row (none for no rows).
                let x = if x.ty.is_elem() { x } else { Expr::array(ArrayOp::The(x), Type::Elem(elem.clone())) };
                self.over_rows(|_, _| Ok(x))
            }
            (Lifted::Avoid(_), _) => Err(not_supported("a vector result that does not depend on the row")),
            (Lifted::Tuple(_), _) => Err(not_supported("a tuple result")),
            (Lifted::PerRow(_) | Lifted::Segmented(_), _) => Err(not_supported(format!("a result of type `{ty}`"))),
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
                _ => Err(not_supported("this projection")),
            },
            ExprKind::Array(op) if !e.ty.is_elem() => self.collective(op, &e.ty),
            _ if e.ty.is_elem() => {
                // Scalar code: one closure applied to every row (vectorisation avoidance).
                let per_row = self.over_rows(|this, r| this.scalar_at(e, r, &mut Vec::new(), false))?;
                Ok(Lifted::PerRow(self.bind("per_row", per_row)))
            }
            ExprKind::If { .. } => Err(not_supported("an array `if` that depends on the row")),
            _ => Err(not_supported("this expression")),
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
                Some(l) => read_scalar(&l, r, &e.ty),
                None => Ok(e.clone()),
            },
            ExprKind::Len(x) | ExprKind::Shape(x) if self.is_row_shaped(x) => Ok(element(&self.lengths(), r.clone())),
            ExprKind::Array(op) => {
                if visit::free_vars(e).keys().any(|id| local.contains(id)) {
                    return Err(not_supported(
                        "a collective operation on the row that reads a variable of the scalar code around it",
                    ));
                }
                if conditional && may_fail(e) {
                    return Err(not_supported("a collective operation on the row under a condition, which may fail"));
                }
                let operand = match &**op {
                    ArrayOp::The(x) => x,
                    _ => e,
                };
                match self.lift(operand)? {
                    Lifted::PerRow(v) => Ok(element(&v, r.clone())),
                    _ => Err(not_supported("an array per row read as a scalar")),
                }
            }
            ExprKind::Index { array, .. } if self.depends_on_row(array) => {
                Err(not_supported("a read of the row (or of an array computed from it) by index"))
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
                Err(not_supported("a scalar loop over values of the row"))
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

    /// Whether `x` is a variable holding an array per row.
    fn is_row_shaped(&self, x: &Expr) -> bool {
        matches!(&x.kind, ExprKind::Var(v) if matches!(self.env.get(&v.id), Some(Lifted::Segmented(_))))
    }

    /// `generate(rows, |r| body(r))`: scalar code applied to every row.
    fn over_rows(&mut self, body: impl FnOnce(&mut Self, &Expr) -> Result<Expr, String>) -> Result<Expr, String> {
        let r = self.fresh.var("row");
        let body = body(self, &var(&r, &usize_t()))?;
        let ty = Type::array(body.ty.as_elem().expect("scalar code").clone(), 1);
        let f = Lambda { params: vec![(r, usize_t())], body: Box::new(body) };
        Ok(Expr::array(ArrayOp::Generate { shape: self.count.clone(), f, from: vec!["nested_map".into()] }, ty))
    }

    /// The row lengths, a vector over the rows.
    fn lengths(&mut self) -> Expr {
        if let Some(l) = &self.lengths {
            return l.clone();
        }
        let l = self.bind("lengths", Expr::array(ArrayOp::SegmentLengths(self.segments.clone()), vector_usize()));
        self.lengths = Some(l.clone());
        l
    }

    /// The row of every value: `iota(rows).expand(|r| lengths[r], |r, _| r)`.
    fn rows_of_values(&mut self) -> Expr {
        if let Some(ids) = &self.rows_of_values {
            return ids.clone();
        }
        let lengths = self.lengths();
        let rows = Expr::array(Producer::Iota { n: self.count.clone() }.into(), vector_usize());
        let (r, r2, j) = (self.fresh.var("row"), self.fresh.var("row"), self.fresh.var("j"));
        let count =
            Lambda { params: vec![(r.clone(), usize_t())], body: Box::new(element(&lengths, var(&r, &usize_t()))) };
        let value =
            Lambda { params: vec![(r2.clone(), usize_t()), (j, usize_t())], body: Box::new(var(&r2, &usize_t())) };
        let ids = self.bind("row_of", Expr::array(ArrayOp::Expand { count, value, a: rows }, vector_usize()));
        self.rows_of_values = Some(ids.clone());
        ids
    }

    /// A collective operation of the row function that depends on the row.
    fn collective(&mut self, op: &ArrayOp, ty: &Type) -> Result<Lifted, String> {
        let name = op.name();
        match op {
            ArrayOp::The(x) | ArrayOp::Unit(x) => match self.lift(x)? {
                Lifted::PerRow(v) => Ok(Lifted::PerRow(v)),
                _ => Err(not_supported(format!("`{name}` here"))),
            },
            ArrayOp::Fold { z, f, a } | ArrayOp::FoldAll { z, f, a } => {
                if z.as_ref().is_some_and(|z| self.depends_on_row(z)) || self.lambda_depends_on_row(f) {
                    return Err(not_supported(format!("a `{name}` whose seed or operator depends on the row")));
                }
                let Lifted::Segmented(values) = self.lift(a)? else {
                    return Err(not_supported(format!("`{name}` of this array")));
                };
                let elem = ty.as_array().expect("a fold makes an array").0.clone();
                let segments = self.segments.clone();
                let folded = ArrayOp::FoldSeg { z: z.clone(), f: f.clone(), a: values, segments };
                Ok(Lifted::PerRow(self.bind("folded", Expr::array(folded, Type::array(elem, 1)))))
            }
            ArrayOp::Scan { dir: Direction::Left, kind: ScanKind::Inclusive, z: None, f, a } => {
                if self.lambda_depends_on_row(f) {
                    return Err(not_supported(format!("a `{name}` whose operator depends on the row")));
                }
                let Lifted::Segmented(values) = self.lift(a)? else {
                    return Err(not_supported(format!("`{name}` of this array")));
                };
                let segments = self.segments.clone();
                let scan = ArrayOp::ScanSeg { kind: ScanKind::Inclusive, z: None, f: f.clone(), a: values, segments };
                Ok(Lifted::Segmented(self.bind("scanned", Expr::array(scan, ty.clone()))))
            }
            ArrayOp::Producer(Producer::Map { f, a }) => self.elementwise(f, &[a], ty),
            ArrayOp::Producer(Producer::ZipWith { f, a, b }) => self.elementwise(f, &[a, b], ty),
            _ => Err(not_supported(format!("`{name}` of the row (or of an array computed from it)"))),
        }
    }

    fn lambda_depends_on_row(&self, f: &Lambda) -> bool {
        visit::free_vars_of_lambda(f).keys().any(|id| self.env.contains_key(id))
    }

    /// `map`/`zip_with` of row-shaped arrays `operands` with closure `f`: a `generate` over their
    /// values, the closure's per-row reads made at each value's row.
    fn elementwise(&mut self, f: &Lambda, operands: &[&Expr], ty: &Type) -> Result<Lifted, String> {
        let mut values = Vec::new();
        for a in operands {
            match self.lift(a)? {
                Lifted::Segmented(v) => values.push(v),
                _ => return Err(not_supported("a `map` or `zip_with` of arrays that are not rows")),
            }
        }
        let i = self.fresh.var("i");
        let iv = var(&i, &usize_t());
        let mut body = (*f.body).clone();
        if self.depends_on_row(&body) {
            // Per-row values read at each value's row.
            let rows = self.rows_of_values();
            let r = self.fresh.var("row");
            let rv = var(&r, &usize_t());
            let mut local: Vec<u32> = f.params.iter().map(|(p, _)| p.id).collect();
            body = let_in(&r, element(&rows, iv.clone()), self.scalar_at(&body, &rv, &mut local, false)?);
        }
        for ((p, _), v) in f.params.iter().zip(&values).rev() {
            body = let_in(p, element(v, iv.clone()), body);
        }
        let shape = Expr::new(ExprKind::Len(Box::new(values[0].clone())), usize_t());
        let f = Lambda { params: vec![(i, usize_t())], body: Box::new(body) };
        let g = ArrayOp::Generate { shape, f, from: vec!["nested_map".into()] };
        Ok(Lifted::Segmented(self.bind("mapped", Expr::array(g, ty.clone()))))
    }
}

/// The value of the row function's variable held as `l` (of element type `ty`) at row `r`.
fn read_scalar(l: &Lifted, r: &Expr, ty: &Type) -> Result<Expr, String> {
    match (l, ty) {
        (Lifted::PerRow(v), _) => Ok(element(v, r.clone())),
        (Lifted::Avoid(x), _) => Ok(x.clone()),
        (Lifted::Tuple(parts), Type::Elem(ElemType::Tuple(ts))) => {
            let parts = parts
                .iter()
                .zip(ts)
                .map(|(p, t)| read_scalar(p, r, &Type::Elem(t.clone())))
                .collect::<Result<_, _>>()?;
            Ok(Expr::new(ExprKind::Tuple(parts), ty.clone()))
        }
        _ => Err(not_supported("a row used as a scalar")),
    }
}

/// Whether evaluating `e` may raise an error: a read by index, an integer division, or a
/// combinator that checks its operands or its closures' results.
fn may_fail(e: &Expr) -> bool {
    let mut fails = false;
    visit::pre_order(e, &mut |x| {
        fails |= match &x.kind {
            ExprKind::Index { .. } => true,
            ExprKind::Binary(BinaryOp::Div | BinaryOp::Rem, a, _) => {
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

/// Element `i` of vector `v` (a variable of the flattened code), a checked read.
fn element(v: &Expr, i: Expr) -> Expr {
    crate::fusion::rewrite::element(v, i, ReadSite::Index)
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
            let flat = optimise(&program, Options { fusion, expand_permute: fusion });
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
    fn what_cannot_be_flattened_is_an_error_at_the_map() {
        for (src, says) in [
            ("fn f(n: Nested<i64>) -> Nested<i64> { n.map(|row| row.filter(|x| x > 0)) }", "`filter`"),
            ("fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row.fold(row.len() as i64, |a, b| a + b)) }", "seed"),
            ("fn f(n: Nested<i64>) -> Vector<i64> { n.map(|row| row[0]) }", "by index"),
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
