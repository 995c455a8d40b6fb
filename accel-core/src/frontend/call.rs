//! Method calls and function calls: the combinators of DESIGN.md §1, the scalar math methods, and
//! the free functions `generate fill iota unit iterate while_loop awhile`.

use super::Lowerer;
use super::lambda::Level;
use crate::ir::{
    ArrayOp, Axis, BinaryOp, Boundary, Const, Direction, Expr, ExprKind, Lambda, MathFn, Producer, ScanKind,
    StencilShape,
};
use crate::library::Kind;
use crate::types::{ElemType, ScalarType, Type};
use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Error, Token};

type Args = Punctuated<syn::Expr, Token![,]>;

const ARRAY_METHODS: &str = "map imap zip_with zip unzip fold fold1 fold_all fold1_all sum product maximum minimum fold_seg fold1_seg scanl scanl1 scanr scanr1 scanl_total scanr_total scanl_seg scanl1_seg map_rows backpermute permute reverse transpose reshape take drop concat replicate_rows replicate_cols slice_row slice_col stencil3 stencil5 stencil3x3 stencil5x5 expand filter len shape rows cols get";
const NESTED_METHODS: &str = "values lengths offsets len fold fold1 sum product maximum minimum map";
const FUNCTIONS: &str = "generate fill iota unit iterate while_loop awhile Nested::from_lengths";

/// What a `wrapping_*` method of an integer is: integer arithmetic wraps already.
#[derive(Clone, Copy)]
enum WrappingOp {
    Binary(BinaryOp),
    Neg,
    Math(MathFn),
}

const WRAPPING: [(&str, WrappingOp); 10] = [
    ("wrapping_add", WrappingOp::Binary(BinaryOp::Add)),
    ("wrapping_sub", WrappingOp::Binary(BinaryOp::Sub)),
    ("wrapping_mul", WrappingOp::Binary(BinaryOp::Mul)),
    ("wrapping_div", WrappingOp::Binary(BinaryOp::Div)),
    ("wrapping_rem", WrappingOp::Binary(BinaryOp::Rem)),
    ("wrapping_shl", WrappingOp::Binary(BinaryOp::Shl)),
    ("wrapping_shr", WrappingOp::Binary(BinaryOp::Shr)),
    ("wrapping_neg", WrappingOp::Neg),
    ("wrapping_abs", WrappingOp::Math(MathFn::Abs)),
    ("wrapping_pow", WrappingOp::Math(MathFn::Pow)),
];

/// The element type and rank of an array-typed expression.
fn array_parts(e: &Expr) -> Option<(ElemType, usize)> {
    e.ty.as_array().map(|(el, r)| (el.clone(), r))
}

fn arr_t(elem: &ElemType, rank: usize) -> Type {
    Type::array(elem.clone(), rank)
}

fn elem_t(e: &ElemType) -> Type {
    Type::Elem(e.clone())
}

fn numeric_scalar(e: &ElemType) -> Option<ScalarType> {
    e.as_scalar().filter(|s| s.is_numeric())
}

impl Lowerer<'_> {
    fn check_args(&self, args: &Args, n: usize, what: &str, span: Span, usage: &str) -> syn::Result<()> {
        if args.len() == n {
            Ok(())
        } else {
            Err(Error::new(span, format!("`{what}` takes {n} argument(s), found {}: `{usage}`", args.len())))
        }
    }

    /// Rejects a collective operation inside a scalar closure (nested parallelism).
    fn collective_allowed(&self, what: &str, span: Span) -> syn::Result<()> {
        match self.scalar_closures.last() {
            Some(outer) => Err(Error::new(
                span,
                format!(
                    "`{what}` inside the closure of `{outer}` would be nested parallelism, which is not supported here: compute it before, with `let`, and read the result inside (segmented operations such as `fold_seg` cover per-segment work)"
                ),
            )),
            None => Ok(()),
        }
    }

    pub(super) fn method(&mut self, m: &syn::ExprMethodCall, expected: Option<&Type>) -> syn::Result<Expr> {
        if let Some(t) = &m.turbofish {
            return Err(Error::new_spanned(t, "type arguments are not needed here"));
        }
        let name = m.method.to_string();
        let span = m.method.span();
        // `a.checked_add(b).unwrap_or(d)`: the scalar language has no `Option`, so the pair is
        // one function of three arguments.
        if name == "unwrap_or"
            && let syn::Expr::MethodCall(checked) = &*m.receiver
            && checked.method.to_string().starts_with("checked_")
        {
            return self.checked(checked, m, expected);
        }
        let recv = self.expr(&m.receiver, None)?;
        match recv.ty.clone() {
            Type::Elem(ElemType::Scalar(s)) => self.math_method(&name, span, recv, s, &m.args),
            Type::Elem(ElemType::Tuple(_)) => {
                Err(Error::new(span, format!("tuples have no method `{name}`: read a field with `.0`, `.1`, ...")))
            }
            Type::Array { elem, rank } => {
                if !matches!(name.as_str(), "len" | "shape" | "rows" | "cols" | "get") {
                    self.collective_allowed(&name, span)?;
                }
                self.array_method(&name, span, recv, elem, rank, &m.args, expected)
            }
            Type::Nested(elem) => {
                self.collective_allowed(&name, span)?;
                self.nested_method(&name, span, recv, elem, &m.args)
            }
            other => Err(Error::new(span, format!("no method `{name}` on `{other}`"))),
        }
    }

    fn math_method(&mut self, name: &str, span: Span, recv: Expr, s: ScalarType, args: &Args) -> syn::Result<Expr> {
        if let Some(e) = self.operator_method(name, span, &recv, s, args)? {
            return Ok(e);
        }
        if name.starts_with("checked_") && MathFn::from_method_name(name).is_some() {
            let op = &name["checked_".len()..];
            return Err(Error::new(
                span,
                format!(
                    "`{name}` returns an `Option`, which #[accel] code has no type for: write `a.{name}(b).unwrap_or(default)`, or use `wrapping_{op}` or `saturating_{op}`"
                ),
            ));
        }
        let f = MathFn::from_method_name(name).ok_or_else(|| {
            let mut list: Vec<_> =
                MathFn::ALL.iter().filter(|f| f.signature(s).is_some()).map(|f| f.method_name()).collect();
            if s.is_numeric() {
                list.extend(["div_euclid", "rem_euclid"]);
            }
            if s.is_integer() {
                list.extend(WRAPPING.iter().map(|(name, _)| *name));
            }
            let supported = if list.is_empty() { "none".to_string() } else { list.join(" ") };
            Error::new(
                span,
                format!("no method `{name}` on `{s}` inside #[accel]; the methods of `{s}` are: {supported}"),
            )
        })?;
        self.math(f, span, recv, s, args.iter().collect())
    }

    /// The methods that are operators under another name: `div_euclid`, `rem_euclid` and the
    /// `wrapping_*` ones of integers (whose arithmetic wraps anyway). `None` for other names.
    fn operator_method(
        &mut self,
        name: &str,
        span: Span,
        recv: &Expr,
        s: ScalarType,
        args: &Args,
    ) -> syn::Result<Option<Expr>> {
        let op = match name {
            "div_euclid" => WrappingOp::Binary(BinaryOp::DivEuclid),
            "rem_euclid" => WrappingOp::Binary(BinaryOp::RemEuclid),
            _ => match WRAPPING.iter().find(|(n, _)| *n == name) {
                Some((_, op)) => *op,
                None => return Ok(None),
            },
        };
        let fits = match op {
            WrappingOp::Binary(BinaryOp::DivEuclid | BinaryOp::RemEuclid) => s.is_numeric(),
            _ => s.is_integer(),
        };
        if !fits {
            return Err(Error::new(span, format!("`{name}` is not defined for `{s}`")));
        }
        let arity = if matches!(op, WrappingOp::Neg | WrappingOp::Math(MathFn::Abs)) { 0 } else { 1 };
        if args.len() != arity {
            return Err(Error::new(span, format!("`{name}` takes {arity} argument(s), found {}", args.len())));
        }
        let recv = recv.clone();
        Ok(Some(match op {
            WrappingOp::Neg => {
                let ty = recv.ty.clone();
                Expr::new(ExprKind::Unary(crate::ir::UnaryOp::Neg, Box::new(recv)), ty)
            }
            WrappingOp::Math(f) => self.math(f, span, recv, s, args.iter().collect())?,
            WrappingOp::Binary(op) => {
                let want = Type::scalar(if matches!(op, BinaryOp::Shl | BinaryOp::Shr) { ScalarType::U32 } else { s });
                let x = self.expr(&args[0], Some(&want))?;
                let x = self.expect_type(x, &want, &args[0])?;
                let ty = recv.ty.clone();
                Expr::new(ExprKind::Binary(op, Box::new(recv), Box::new(x)), ty)
            }
        }))
    }

    /// `a.checked_op(b).unwrap_or(default)` as the math function `checked_op(a, b, default)`.
    fn checked(
        &mut self,
        checked: &syn::ExprMethodCall,
        unwrap: &syn::ExprMethodCall,
        expected: Option<&Type>,
    ) -> syn::Result<Expr> {
        let name = checked.method.to_string();
        let span = checked.method.span();
        let recv = self.expr(&checked.receiver, expected.filter(|t| t.is_elem()))?;
        let Type::Elem(ElemType::Scalar(s)) = recv.ty else {
            return Err(Error::new(span, format!("`{name}` applies to integers, found `{}`", recv.ty)));
        };
        let f = MathFn::from_method_name(&name).ok_or_else(|| {
            let list: Vec<_> =
                MathFn::ALL.iter().map(|f| f.method_name()).filter(|n| n.starts_with("checked_")).collect();
            Error::new(span, format!("no method `{name}` inside #[accel]; the checked methods are: {}", list.join(" ")))
        })?;
        if unwrap.args.len() != 1 {
            return Err(Error::new_spanned(
                &unwrap.method,
                "`unwrap_or` takes 1 argument: the value when the operation overflows or divides by zero",
            ));
        }
        self.math(f, span, recv, s, checked.args.iter().chain(&unwrap.args).collect())
    }

    /// A math function applied to `recv` and further arguments.
    fn math(&mut self, f: MathFn, span: Span, recv: Expr, s: ScalarType, args: Vec<&syn::Expr>) -> syn::Result<Expr> {
        let name = f.method_name();
        if args.len() + 1 != f.arity() {
            return Err(Error::new(
                span,
                format!("`{name}` takes {} argument(s), found {}", f.arity() - 1, args.len()),
            ));
        }
        let Some((want, result)) = f.signature(s) else {
            return Err(Error::new(span, format!("`{name}` is not defined for `{s}`")));
        };
        let mut operands = vec![recv];
        for (a, want) in args.into_iter().zip(want.into_iter().skip(1)) {
            let want = Type::scalar(want);
            let x = self.expr(a, Some(&want)).map_err(|e| {
                if f == MathFn::Powi {
                    Error::new_spanned(a, "`powi` takes an `i32` exponent: write an integer such as `2`, or use `powf`")
                } else {
                    e
                }
            })?;
            operands.push(self.expect_type(x, &want, a)?);
        }
        Ok(Expr::new(ExprKind::Math(f, operands), Type::scalar(result)))
    }

    /// `f(a, b)` of a binary combining function of elements of type `e`.
    fn combiner(&mut self, e: &syn::Expr, what: &'static str, elem: &ElemType) -> syn::Result<Lambda> {
        let t = elem_t(elem);
        self.lambda(e, what, &[t.clone(), t.clone()], Some(&t), Level::Scalar)
    }

    /// A built-in combining function (`+`, `*`, `max`, `min`) on elements of type `s`.
    fn builtin_combiner(&mut self, s: ScalarType, op: Result<BinaryOp, MathFn>) -> Lambda {
        let t = Type::scalar(s);
        let a = self.fresh("a");
        let b = self.fresh("b");
        let (x, y) = (Box::new(Expr::var(a.clone(), t.clone())), Box::new(Expr::var(b.clone(), t.clone())));
        let kind = match op {
            Ok(op) => ExprKind::Binary(op, x, y),
            Err(f) => ExprKind::Math(f, vec![*x, *y]),
        };
        Lambda { params: vec![(a, t.clone()), (b, t.clone())], body: Box::new(Expr::new(kind, t)) }
    }

    /// The seed and combining function of `sum`, `product`, `maximum` or `minimum`.
    fn builtin_reduction(&mut self, name: &str, e: &ElemType, span: Span) -> syn::Result<(Option<Expr>, Lambda)> {
        let s = numeric_scalar(e)
            .ok_or_else(|| Error::new(span, format!("`{name}` needs numeric elements, found `{e}`; use `fold`")))?;
        Ok(match name {
            "sum" => (Some(const_of(s, 0)), self.builtin_combiner(s, Ok(BinaryOp::Add))),
            "product" => (Some(const_of(s, 1)), self.builtin_combiner(s, Ok(BinaryOp::Mul))),
            "maximum" => (None, self.builtin_combiner(s, Err(MathFn::Max))),
            _ => (None, self.builtin_combiner(s, Err(MathFn::Min))),
        })
    }

    fn seed(&mut self, e: &syn::Expr, elem: &ElemType) -> syn::Result<Expr> {
        let t = elem_t(elem);
        let z = self.expr(e, Some(&t))?;
        self.expect_type(z, &t, e)
    }

    /// A segment descriptor from a vector of lengths (any integer type).
    fn segments_from(&mut self, e: &syn::Expr, what: &str) -> syn::Result<Expr> {
        let lengths = self.expr(e, None)?;
        match array_parts(&lengths) {
            Some((el, 1)) if el.as_scalar().is_some_and(ScalarType::is_integer) => {
                Ok(Expr::array(ArrayOp::SegmentsFromLengths(lengths), Type::Segments))
            }
            _ => Err(Error::new_spanned(
                e,
                format!("the segment lengths of `{what}` are a vector of integers, found `{}`", lengths.ty),
            )),
        }
    }

    fn usize_arg(&mut self, e: &syn::Expr, what: &str) -> syn::Result<Expr> {
        let t = Type::Elem(ElemType::USIZE);
        let x = self.expr(e, Some(&t))?;
        if x.ty != t {
            return Err(Error::new_spanned(
                e,
                format!("`{what}` takes a `usize` here, found `{}` (convert with `as usize`)", x.ty),
            ));
        }
        Ok(x)
    }

    /// Wraps `e` in a `let` unless it is already a variable, so it can be used twice.
    fn shared(&mut self, e: Expr, use_it: impl FnOnce(&mut Self, Expr) -> syn::Result<Expr>) -> syn::Result<Expr> {
        if matches!(e.kind, ExprKind::Var(_)) {
            return use_it(self, e);
        }
        let var = self.fresh("shared");
        let body = use_it(self, Expr::var(var.clone(), e.ty.clone()))?;
        let ty = body.ty.clone();
        Ok(Expr::new(ExprKind::Let { var, value: Box::new(e), body: Box::new(body) }, ty))
    }

    #[allow(clippy::too_many_arguments)]
    fn array_method(
        &mut self,
        name: &str,
        span: Span,
        a: Expr,
        elem: ElemType,
        rank: usize,
        args: &Args,
        expected: Option<&Type>,
    ) -> syn::Result<Expr> {
        let e = &elem;
        let need_rank = |ok: bool, what: &str| -> syn::Result<()> {
            if ok {
                Ok(())
            } else {
                Err(Error::new(span, format!("`{name}` applies to {what}, not to `{}`", arr_t(e, rank))))
            }
        };
        let arg = |i: usize| &args[i];
        let usage = |u: &str| u.to_string();
        match name {
            "map" => {
                self.check_args(args, 1, name, span, &usage("xs.map(|x| ...)"))?;
                let ret = expected.and_then(Type::as_array).map(|(el, _)| elem_t(el));
                let defaulted_iota = matches!(&a.kind, ExprKind::Array(op) if matches!(&**op, ArrayOp::Producer(Producer::Iota { .. })))
                    && *e == ElemType::Scalar(ScalarType::I32);
                let f = self.lambda(arg(0), "map", &[elem_t(e)], ret.as_ref(), Level::Scalar).map_err(|err| {
                    match &ret {
                        Some(want) if defaulted_iota && *want != elem_t(e) => Error::new(
                            err.span(),
                            format!("{err}; `iota(n)` counts in `i32` unless the context says otherwise: write `iota::<{want}>(n)`"),
                        ),
                        _ => err,
                    }
                })?;
                let out = f.result_type().as_elem().cloned().expect("scalar closure");
                Ok(Expr::array(Producer::Map { f, a }.into(), arr_t(&out, rank)))
            }
            "imap" => {
                self.check_args(args, 1, name, span, &usage("xs.imap(|ix, x| ...)"))?;
                let f =
                    self.lambda(arg(0), "imap", &[Type::Elem(ElemType::index(rank)), elem_t(e)], None, Level::Scalar)?;
                let out = f.result_type().as_elem().cloned().expect("scalar closure");
                Ok(Expr::array(Producer::IMap { f, a }.into(), arr_t(&out, rank)))
            }
            "zip_with" | "zip" => {
                let n = if name == "zip" { 1 } else { 2 };
                self.check_args(
                    args,
                    n,
                    name,
                    span,
                    if n == 1 { "xs.zip(ys)" } else { "xs.zip_with(ys, |x, y| ...)" },
                )?;
                let b = self.expr(arg(0), None)?;
                let Some((e2, _)) = array_parts(&b).filter(|(_, r)| *r == rank) else {
                    return Err(Error::new_spanned(
                        arg(0),
                        format!("`{name}` needs an array of rank {rank}, found `{}`", b.ty),
                    ));
                };
                let f = if name == "zip" {
                    let x = self.fresh("x");
                    let y = self.fresh("y");
                    let pair = Type::Elem(ElemType::Tuple(vec![e.clone(), e2.clone()]));
                    let body = Expr::new(
                        ExprKind::Tuple(vec![Expr::var(x.clone(), elem_t(e)), Expr::var(y.clone(), elem_t(&e2))]),
                        pair,
                    );
                    Lambda { params: vec![(x, elem_t(e)), (y, elem_t(&e2))], body: Box::new(body) }
                } else {
                    self.lambda(arg(1), "zip_with", &[elem_t(e), elem_t(&e2)], None, Level::Scalar)?
                };
                let out = f.result_type().as_elem().cloned().expect("scalar closure");
                Ok(Expr::array(Producer::ZipWith { f, a, b }.into(), arr_t(&out, rank)))
            }
            "unzip" => {
                self.check_args(args, 0, name, span, "xs.unzip()")?;
                let ElemType::Tuple(parts) = e.clone() else {
                    return Err(Error::new(span, format!("`unzip` splits an array of tuples, found `{}`", a.ty)));
                };
                let ty = Type::tuple(parts.iter().map(|p| arr_t(p, rank)).collect());
                Ok(Expr::array(ArrayOp::Unzip(a), ty))
            }
            "fold" | "fold1" | "fold_all" | "fold1_all" | "sum" | "product" | "maximum" | "minimum" => {
                let all = name.ends_with("_all");
                if !all {
                    need_rank(rank >= 1, "arrays of rank 1 or more")?;
                }
                let (z, f) = match name {
                    "fold" | "fold_all" => {
                        self.check_args(args, 2, name, span, &format!("xs.{name}(z, |a, b| ...)"))?;
                        (Some(self.seed(arg(0), e)?), self.combiner(arg(1), if all { "fold_all" } else { "fold" }, e)?)
                    }
                    "fold1" | "fold1_all" => {
                        self.check_args(args, 1, name, span, &format!("xs.{name}(|a, b| ...)"))?;
                        (None, self.combiner(arg(0), if all { "fold1_all" } else { "fold1" }, e)?)
                    }
                    _ => {
                        self.check_args(args, 0, name, span, &format!("xs.{name}()"))?;
                        self.builtin_reduction(name, e, span)?
                    }
                };
                if all {
                    Ok(Expr::array(ArrayOp::FoldAll { z, f, a }, arr_t(e, 0)))
                } else {
                    Ok(Expr::array(ArrayOp::Fold { z, f, a }, arr_t(e, rank - 1)))
                }
            }
            "fold_seg" | "fold1_seg" => {
                need_rank(rank >= 1, "arrays of rank 1 or more")?;
                let (z, f, lengths) = if name == "fold_seg" {
                    self.check_args(args, 3, name, span, "xs.fold_seg(z, |a, b| ..., lengths)")?;
                    (Some(self.seed(arg(0), e)?), self.combiner(arg(1), "fold_seg", e)?, arg(2))
                } else {
                    self.check_args(args, 2, name, span, "xs.fold1_seg(|a, b| ..., lengths)")?;
                    (None, self.combiner(arg(0), "fold1_seg", e)?, arg(1))
                };
                let segments = self.segments_from(lengths, name)?;
                Ok(Expr::array(ArrayOp::FoldSeg { z, f, a, segments }, arr_t(e, rank)))
            }
            "scanl" | "scanr" | "scanl1" | "scanr1" | "scanl_total" | "scanr_total" => {
                need_rank(rank >= 1, "arrays of rank 1 or more")?;
                let dir = if name.starts_with("scanl") { Direction::Left } else { Direction::Right };
                let seeded = !name.ends_with('1');
                let (z, f) = if seeded {
                    self.check_args(args, 2, name, span, &format!("xs.{name}(z, |a, b| ...)"))?;
                    (Some(self.seed(arg(0), e)?), self.combiner(arg(1), static_name(name), e)?)
                } else {
                    self.check_args(args, 1, name, span, &format!("xs.{name}(|a, b| ...)"))?;
                    (None, self.combiner(arg(0), static_name(name), e)?)
                };
                let (kind, ty) = if name.ends_with("_total") {
                    (ScanKind::ExclusiveAndTotal, Type::Tuple(vec![arr_t(e, rank), arr_t(e, rank - 1)]))
                } else if seeded {
                    (ScanKind::WithSeed, arr_t(e, rank))
                } else {
                    (ScanKind::Inclusive, arr_t(e, rank))
                };
                Ok(Expr::array(ArrayOp::Scan { dir, kind, z, f, a }, ty))
            }
            "scanl_seg" | "scanl1_seg" => {
                need_rank(rank >= 1, "arrays of rank 1 or more")?;
                let (kind, z, f, lengths) = if name == "scanl_seg" {
                    self.check_args(args, 3, name, span, "xs.scanl_seg(z, |a, b| ..., lengths)")?;
                    (ScanKind::WithSeed, Some(self.seed(arg(0), e)?), self.combiner(arg(1), "scanl_seg", e)?, arg(2))
                } else {
                    self.check_args(args, 2, name, span, "xs.scanl1_seg(|a, b| ..., lengths)")?;
                    (ScanKind::Inclusive, None, self.combiner(arg(0), "scanl1_seg", e)?, arg(1))
                };
                let segments = self.segments_from(lengths, name)?;
                Ok(Expr::array(ArrayOp::ScanSeg { kind, z, f, a, segments }, arr_t(e, rank)))
            }
            "backpermute" => {
                self.check_args(args, 2, name, span, "xs.backpermute(shape, |ix| source_ix)")?;
                let (shape, r2) = self.shape_value(arg(0))?;
                let src = Type::Elem(ElemType::index(rank));
                let f =
                    self.lambda(arg(1), "backpermute", &[Type::Elem(ElemType::index(r2))], Some(&src), Level::Scalar)?;
                Ok(Expr::array(Producer::Backpermute { shape, f, a }.into(), arr_t(e, r2)))
            }
            "permute" => {
                self.check_args(args, 3, name, span, "xs.permute(defaults, |ix| Some(dst), |new, old| ...)")?;
                let defaults = self.expr(arg(0), None)?;
                let Some((de, r2)) = array_parts(&defaults) else {
                    return Err(Error::new_spanned(
                        arg(0),
                        format!("the defaults of `permute` are an array, found `{}`", defaults.ty),
                    ));
                };
                if &de != e {
                    return Err(Error::new_spanned(
                        arg(0),
                        format!("the defaults of `permute` must hold `{e}`, found `{de}`"),
                    ));
                }
                let dst = ElemType::index(r2);
                let f = self.lambda_with(
                    arg(1),
                    "permute",
                    &[Type::Elem(ElemType::index(rank))],
                    Level::Scalar,
                    |lw, body| lw.permute_target(body, &dst),
                )?;
                let combine = self.combiner(arg(2), "permute", e)?;
                Ok(Expr::array(ArrayOp::Permute { defaults, f, combine, a }, arr_t(e, r2)))
            }
            "reverse" => {
                self.check_args(args, 0, name, span, "xs.reverse()")?;
                need_rank(rank >= 1, "arrays of rank 1 or more")?;
                Ok(Expr::array(Producer::Reverse(a).into(), arr_t(e, rank)))
            }
            "transpose" => {
                self.check_args(args, 0, name, span, "m.transpose()")?;
                need_rank(rank == 2, "matrices")?;
                Ok(Expr::array(Producer::Transpose(a).into(), arr_t(e, 2)))
            }
            "reshape" => {
                self.check_args(args, 1, name, span, "xs.reshape((rows, cols))")?;
                let (shape, r2) = self.shape_value(arg(0))?;
                Ok(Expr::array(ArrayOp::Reshape { shape, a }, arr_t(e, r2)))
            }
            "take" | "drop" => {
                self.check_args(args, 1, name, span, &format!("xs.{name}(n)"))?;
                need_rank(rank >= 1, "arrays of rank 1 or more")?;
                let n = self.usize_arg(arg(0), name)?;
                let op = if name == "take" { Producer::Take { n, a } } else { Producer::Drop { n, a } };
                Ok(Expr::array(op.into(), arr_t(e, rank)))
            }
            "concat" => {
                self.check_args(args, 1, name, span, "xs.concat(ys)")?;
                need_rank(rank >= 1, "arrays of rank 1 or more")?;
                let b = self.expr(arg(0), None)?;
                if b.ty != a.ty {
                    return Err(Error::new_spanned(arg(0), format!("`concat` joins two `{}`, found `{}`", a.ty, b.ty)));
                }
                Ok(Expr::array(ArrayOp::Concat { a, b }, arr_t(e, rank)))
            }
            "replicate_rows" | "replicate_cols" => {
                self.check_args(args, 1, name, span, &format!("xs.{name}(n)"))?;
                need_rank(rank == 1, "vectors")?;
                let n = self.usize_arg(arg(0), name)?;
                let axis = if name == "replicate_rows" { Axis::Rows } else { Axis::Cols };
                Ok(Expr::array(Producer::Replicate { axis, n, a }.into(), arr_t(e, 2)))
            }
            "slice_row" | "slice_col" => {
                self.check_args(args, 1, name, span, &format!("m.{name}(i)"))?;
                need_rank(rank == 2, "matrices")?;
                let index = self.usize_arg(arg(0), name)?;
                let axis = if name == "slice_row" { Axis::Rows } else { Axis::Cols };
                Ok(Expr::array(ArrayOp::Slice { axis, index, a }, arr_t(e, 1)))
            }
            "stencil3" | "stencil5" | "stencil3x3" | "stencil5x5" => {
                let shape = match name {
                    "stencil3" => StencilShape::S3,
                    "stencil5" => StencilShape::S5,
                    "stencil3x3" => StencilShape::S3x3,
                    _ => StencilShape::S5x5,
                };
                self.check_args(args, 2, name, span, &format!("xs.{name}(Clamp, |n| ...)"))?;
                need_rank(rank == shape.rank(), if shape.rank() == 1 { "vectors" } else { "matrices" })?;
                let boundary = self.boundary(arg(0), e)?;
                let f = self.stencil_lambda(arg(1), shape, e)?;
                let out = f.result_type().as_elem().cloned().expect("scalar closure");
                Ok(Expr::array(ArrayOp::Stencil { shape, boundary, f, a }, arr_t(&out, rank)))
            }
            "expand" => {
                self.check_args(args, 2, name, span, "xs.expand(|x| count, |x, i| value)")?;
                need_rank(rank == 1, "vectors")?;
                let count = self.lambda(arg(0), "expand", &[elem_t(e)], None, Level::Scalar)?;
                if !count.result_type().as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_integer) {
                    return Err(Error::new_spanned(
                        arg(0),
                        format!("the count closure of `expand` returns an integer, found `{}`", count.result_type()),
                    ));
                }
                let value =
                    self.lambda(arg(1), "expand", &[elem_t(e), Type::Elem(ElemType::USIZE)], None, Level::Scalar)?;
                let out = value.result_type().as_elem().cloned().expect("scalar closure");
                Ok(Expr::array(ArrayOp::Expand { count, value, a }, arr_t(&out, 1)))
            }
            "filter" => {
                self.check_args(args, 1, name, span, "xs.filter(|x| predicate)")?;
                need_rank(rank == 1, "vectors")?;
                let bool_t = Type::Elem(ElemType::BOOL);
                let pred = self.lambda(arg(0), "filter", &[elem_t(e)], Some(&bool_t), Level::Scalar)?;
                Ok(Expr::array(ArrayOp::Filter { pred, a }, arr_t(e, 1)))
            }
            "len" => {
                self.check_args(args, 0, name, span, "xs.len()")?;
                Ok(Expr::new(ExprKind::Len(Box::new(a)), Type::Elem(ElemType::USIZE)))
            }
            "shape" => {
                self.check_args(args, 0, name, span, "xs.shape()")?;
                Ok(Expr::new(ExprKind::Shape(Box::new(a)), Type::Elem(ElemType::index(rank))))
            }
            "rows" | "cols" => {
                self.check_args(args, 0, name, span, &format!("m.{name}()"))?;
                need_rank(rank == 2, "matrices (`xs.len()` is a vector's length, `xs.shape()` any array's shape)")?;
                let shape = Expr::new(ExprKind::Shape(Box::new(a)), Type::Elem(ElemType::index(2)));
                let k = usize::from(name == "cols");
                Ok(Expr::new(ExprKind::Proj(Box::new(shape), k), Type::scalar(ScalarType::Usize)))
            }
            "get" => {
                self.check_args(args, 0, name, span, "s.get()")?;
                need_rank(rank == 0, "`Scalar` arrays (read other arrays with `xs[i]`)")?;
                Ok(Expr::array(ArrayOp::The(a), elem_t(e)))
            }
            "map_rows" => {
                self.check_args(args, 1, name, span, "m.map_rows(|row| ...)")?;
                need_rank(rank == 2, "matrices (over the rows of a `Nested`, write `xs.map(|row| ...)`)")?;
                let row = Type::array(e.clone(), 1);
                let f = self.lambda(arg(0), "map_rows", std::slice::from_ref(&row), None, Level::Collective)?;
                let ty = crate::flatten::result_type(&f, &a.ty).map_err(|m| Error::new(span, m))?;
                crate::flatten::check(&f, &a.ty).map_err(|m| Error::new(span, m))?;
                Ok(Expr::array(ArrayOp::NestedMap { f, a }, ty))
            }
            "iter" | "into_iter" | "to_vec" | "clone" => Err(Error::new(
                span,
                format!("`{name}` is not available inside #[accel]; the combinators are: {ARRAY_METHODS}"),
            )),
            _ => Err(Error::new(span, format!("no combinator `{name}` on `{}`; available: {ARRAY_METHODS}", a.ty))),
        }
    }

    fn nested_method(&mut self, name: &str, span: Span, n: Expr, elem: ElemType, args: &Args) -> syn::Result<Expr> {
        let e = &elem;
        let vec_usize = Type::array(ElemType::USIZE, 1);
        match name {
            "values" => {
                self.check_args(args, 0, name, span, "xs.values()")?;
                Ok(Expr::array(ArrayOp::NestedValues(n), arr_t(e, 1)))
            }
            "lengths" | "offsets" => {
                self.check_args(args, 0, name, span, &format!("xs.{name}()"))?;
                let segs = Expr::array(ArrayOp::NestedSegments(n), Type::Segments);
                let op = if name == "lengths" { ArrayOp::SegmentLengths(segs) } else { ArrayOp::SegmentOffsets(segs) };
                Ok(Expr::array(op, vec_usize))
            }
            "len" => {
                self.check_args(args, 0, name, span, "xs.len()")?;
                Ok(Expr::new(ExprKind::Len(Box::new(n)), Type::Elem(ElemType::USIZE)))
            }
            "fold" | "fold1" | "sum" | "product" | "maximum" | "minimum" => {
                let (z, f) = match name {
                    "fold" => {
                        self.check_args(args, 2, name, span, "xs.fold(z, |a, b| ...)")?;
                        (Some(self.seed(&args[0], e)?), self.combiner(&args[1], "fold", e)?)
                    }
                    "fold1" => {
                        self.check_args(args, 1, name, span, "xs.fold1(|a, b| ...)")?;
                        (None, self.combiner(&args[0], "fold1", e)?)
                    }
                    _ => {
                        self.check_args(args, 0, name, span, &format!("xs.{name}()"))?;
                        self.builtin_reduction(name, e, span)?
                    }
                };
                self.shared(n, |_, n| {
                    let a = Expr::array(ArrayOp::NestedValues(n.clone()), arr_t(e, 1));
                    let segments = Expr::array(ArrayOp::NestedSegments(n), Type::Segments);
                    Ok(Expr::array(ArrayOp::FoldSeg { z, f, a, segments }, arr_t(e, 1)))
                })
            }
            "map" => {
                self.check_args(args, 1, name, span, "xs.map(|row| ...)")?;
                let row = Type::array(e.clone(), 1);
                let f = self.lambda(&args[0], "map", std::slice::from_ref(&row), None, Level::Collective)?;
                let ty = crate::flatten::result_type(&f, &n.ty).map_err(|m| Error::new(span, m))?;
                crate::flatten::check(&f, &n.ty).map_err(|m| Error::new(span, m))?;
                Ok(Expr::array(ArrayOp::NestedMap { f, a: n }, ty))
            }
            _ => Err(Error::new(span, format!("no method `{name}` on `Nested<{e}>`; available: {NESTED_METHODS}"))),
        }
    }

    /// The result of a `permute` index closure: `Some(ix)`, `None`, or a plain index, through
    /// `if`/`else` and blocks. Lowered to the pair `(keep, ix)`.
    fn permute_target(&mut self, body: &syn::Expr, dst: &ElemType) -> syn::Result<Expr> {
        let pair_t = Type::Elem(ElemType::Tuple(vec![ElemType::BOOL, dst.clone()]));
        let keep = |b: bool| Expr::new(ExprKind::Const(Const::Bool(b)), Type::Elem(ElemType::BOOL));
        let rank = match dst {
            ElemType::Scalar(_) => 1,
            ElemType::Tuple(ts) => ts.len(),
        };
        match body {
            syn::Expr::Paren(p) => self.permute_target(&p.expr, dst),
            syn::Expr::Path(p) if p.path.is_ident("None") => {
                let zero = zero_index(dst);
                Ok(Expr::new(ExprKind::Tuple(vec![keep(false), zero]), pair_t))
            }
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Some")) => {
                if c.args.len() != 1 {
                    return Err(Error::new_spanned(c, "`Some` takes one destination index"));
                }
                let ix = self.index_value(&c.args[0], rank)?;
                Ok(Expr::new(ExprKind::Tuple(vec![keep(true), ix]), pair_t))
            }
            syn::Expr::If(i) => {
                let bool_t = Type::Elem(ElemType::BOOL);
                let cond = self.expr(&i.cond, Some(&bool_t))?;
                let cond = self.expect_type(cond, &bool_t, &i.cond)?;
                let Some((_, els)) = &i.else_branch else {
                    return Err(Error::new_spanned(
                        i.if_token,
                        "add an `else` branch (`else { None }` drops the element)",
                    ));
                };
                let then = self.scoped(|lw| lw.block_with_tail(&i.then_branch, |lw, t| lw.permute_target(t, dst)))?;
                let els = self.permute_target(els, dst)?;
                Ok(Expr::new(ExprKind::If { cond: Box::new(cond), then: Box::new(then), els: Box::new(els) }, pair_t))
            }
            syn::Expr::Block(b) => self.scoped(|lw| lw.block_with_tail(&b.block, |lw, t| lw.permute_target(t, dst))),
            other => {
                let ix = self.index_value(other, rank)?;
                Ok(Expr::new(ExprKind::Tuple(vec![keep(true), ix]), pair_t))
            }
        }
    }

    /// A block whose tail expression is lowered by `tail` (its `let`s as usual).
    fn block_with_tail(
        &mut self,
        block: &syn::Block,
        tail: impl FnOnce(&mut Self, &syn::Expr) -> syn::Result<Expr>,
    ) -> syn::Result<Expr> {
        let Some((syn::Stmt::Expr(last, None), init)) = block.stmts.split_last() else {
            return Err(Error::new_spanned(block, "end this block with the destination (`Some(ix)` or `None`)"));
        };
        let prefix = syn::Block { brace_token: block.brace_token, stmts: init.to_vec() };
        let mut lets = Vec::new();
        for stmt in &prefix.stmts {
            match stmt {
                syn::Stmt::Local(local) => {
                    let init = local.init.as_ref().ok_or_else(|| Error::new_spanned(local, "a `let` needs a value"))?;
                    let value = self.expr(&init.expr, None)?;
                    self.bind_pattern(&local.pat, value, &mut lets)?;
                }
                other => {
                    return Err(Error::new_spanned(other, "only `let` statements may come before the destination"));
                }
            }
        }
        let mut body = tail(self, last)?;
        for (var, value) in lets.into_iter().rev() {
            let ty = body.ty.clone();
            body = Expr::new(ExprKind::Let { var, value: Box::new(value), body: Box::new(body) }, ty);
        }
        Ok(body)
    }

    fn boundary(&mut self, e: &syn::Expr, elem: &ElemType) -> syn::Result<Boundary> {
        let last = |p: &syn::Path| p.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        match e {
            syn::Expr::Path(p) => match last(&p.path).as_str() {
                "Clamp" => Ok(Boundary::Clamp),
                "Mirror" => Ok(Boundary::Mirror),
                "Wrap" => Ok(Boundary::Wrap),
                _ => Err(boundary_error(e)),
            },
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) if last(&p.path) == "Constant" && c.args.len() == 1 => {
                    let v = self.seed(&c.args[0], elem)?;
                    Ok(Boundary::Constant(Box::new(v)))
                }
                _ => Err(boundary_error(e)),
            },
            _ => Err(boundary_error(e)),
        }
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall, expected: Option<&Type>) -> syn::Result<Expr> {
        let syn::Expr::Path(fp) = &*c.func else {
            return Err(Error::new_spanned(
                &c.func,
                "only the accel functions can be called here: ".to_string() + FUNCTIONS,
            ));
        };
        let segs: Vec<String> = fp.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let span = fp.span();
        let args = &c.args;
        if let Some((closure, scope)) = self.closure_binding(&c.func) {
            return self.call_closure(&segs[0], &closure, scope, c);
        }
        // `f32::sqrt(x)`, `f64::max(a, b)`: math functions in path form.
        if let [t, f] = segs.as_slice()
            && let (Some(s), Some(mf)) = (ScalarType::from_rust_name(t), MathFn::from_method_name(f))
        {
            let Some(first) = args.first() else {
                return Err(Error::new(span, format!("`{t}::{f}` takes {} argument(s)", mf.arity())));
            };
            let want = Type::scalar(s);
            let recv = self.expr(first, Some(&want))?;
            let recv = self.expect_type(recv, &want, first)?;
            return self.math(mf, span, recv, s, args.iter().skip(1).collect());
        }
        let generic_elem = fp.path.segments.last().and_then(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.first().cloned(),
            _ => None,
        });
        let expected_array = expected.and_then(Type::as_array).map(|(el, _)| el.clone());
        let name = segs.join("::");
        let collective = |lw: &Self| lw.collective_allowed(&name, span);
        match name.as_str() {
            "generate" => {
                collective(self)?;
                self.check_args(args, 2, &name, span, "generate(shape, |ix| ...)")?;
                let (shape, rank) = self.shape_value(&args[0])?;
                let ret = expected_array.as_ref().map(elem_t);
                let f = self.lambda(
                    &args[1],
                    "generate",
                    &[Type::Elem(ElemType::index(rank))],
                    ret.as_ref(),
                    Level::Scalar,
                )?;
                let out = f.result_type().as_elem().cloned().expect("scalar closure");
                Ok(Expr::array(ArrayOp::Generate { shape, f, from: Vec::new() }, arr_t(&out, rank)))
            }
            "fill" => {
                collective(self)?;
                self.check_args(args, 2, &name, span, "fill(shape, value)")?;
                let (shape, rank) = self.shape_value(&args[0])?;
                let value = self.expr(&args[1], expected_array.as_ref().map(elem_t).as_ref())?;
                let Type::Elem(el) = value.ty.clone() else {
                    return Err(Error::new_spanned(&args[1], format!("`fill` takes an element, found `{}`", value.ty)));
                };
                Ok(Expr::array(Producer::Fill { shape, value }.into(), arr_t(&el, rank)))
            }
            "iota" => {
                collective(self)?;
                self.check_args(args, 1, &name, span, "iota(n)")?;
                let n = self.usize_arg(&args[0], "iota")?;
                let el = match &generic_elem {
                    Some(syn::GenericArgument::Type(t)) => super::types::elem_type(t)?,
                    Some(other) => {
                        return Err(Error::new_spanned(other, "write the element type, like `iota::<f32>(n)`"));
                    }
                    None => expected_array
                        .filter(|e| numeric_scalar(e).is_some())
                        .unwrap_or(ElemType::Scalar(ScalarType::I32)),
                };
                if numeric_scalar(&el).is_none() {
                    return Err(Error::new(span, format!("`iota` counts in a numeric type, not `{el}`")));
                }
                Ok(Expr::array(Producer::Iota { n }.into(), arr_t(&el, 1)))
            }
            "unit" => {
                collective(self)?;
                self.check_args(args, 1, &name, span, "unit(e)")?;
                let v = self.expr(&args[0], expected_array.as_ref().map(elem_t).as_ref())?;
                let Type::Elem(el) = v.ty.clone() else {
                    return Err(Error::new_spanned(&args[0], format!("`unit` takes an element, found `{}`", v.ty)));
                };
                Ok(Expr::array(ArrayOp::Unit(v), arr_t(&el, 0)))
            }
            "iterate" => {
                self.check_args(args, 3, &name, span, "iterate(n, init, |x| ...)")?;
                let count = self.usize_arg(&args[0], "iterate")?;
                let init = self.expr(&args[1], expected)?;
                if !init.ty.is_elem() {
                    return Err(Error::new_spanned(
                        &args[1],
                        format!("`iterate` loops over elements, found `{}`; use `awhile` for arrays", init.ty),
                    ));
                }
                let t = init.ty.clone();
                let f = self.lambda(&args[2], "iterate", std::slice::from_ref(&t), Some(&t), Level::Scalar)?;
                Ok(Expr::new(ExprKind::Iterate { count: Box::new(count), init: Box::new(init), f }, t))
            }
            "while_loop" => {
                self.check_args(args, 3, &name, span, "while_loop(init, |x| condition, |x| step)")?;
                let init = self.expr(&args[0], expected)?;
                if !init.ty.is_elem() {
                    return Err(Error::new_spanned(
                        &args[0],
                        format!("`while_loop` loops over elements, found `{}`; use `awhile` for arrays", init.ty),
                    ));
                }
                let t = init.ty.clone();
                let bool_t = Type::Elem(ElemType::BOOL);
                let cond =
                    self.lambda(&args[1], "while_loop", std::slice::from_ref(&t), Some(&bool_t), Level::Scalar)?;
                let step = self.lambda(&args[2], "while_loop", std::slice::from_ref(&t), Some(&t), Level::Scalar)?;
                Ok(Expr::new(ExprKind::WhileLoop { init: Box::new(init), cond, step }, t))
            }
            "awhile" => {
                collective(self)?;
                self.check_args(args, 3, &name, span, "awhile(init, |xs| condition, |xs| step)")?;
                let init = self.expr(&args[0], expected)?;
                if init.ty.is_elem() {
                    return Err(Error::new_spanned(
                        &args[0],
                        format!("`awhile` loops over arrays, found `{}`; use `while_loop` for elements", init.ty),
                    ));
                }
                let t = init.ty.clone();
                let cond_t = Type::array(ElemType::BOOL, 0);
                let cond =
                    self.lambda_with(&args[1], "awhile", std::slice::from_ref(&t), Level::Collective, |lw, body| {
                        let c = lw.expr(body, Some(&cond_t))?;
                        if c.ty == cond_t {
                            Ok(c)
                        } else {
                            let hint = if c.ty.is_elem() { "; wrap the condition in `unit(..)`" } else { "" };
                            Err(Error::new_spanned(
                                body,
                                format!("the condition of `awhile` is a `Scalar<bool>`, found `{}`{hint}", c.ty),
                            ))
                        }
                    })?;
                let step = self.lambda(&args[2], "awhile", std::slice::from_ref(&t), Some(&t), Level::Collective)?;
                Ok(Expr::array(ArrayOp::Awhile { init, cond, step }, t))
            }
            "Nested::from_lengths" => {
                collective(self)?;
                self.check_args(args, 2, &name, span, "Nested::from_lengths(lengths, values)")?;
                let segments = self.segments_from(&args[0], "Nested::from_lengths")?;
                let values = self.expr(&args[1], None)?;
                let Some((el, 1)) = array_parts(&values) else {
                    return Err(Error::new_spanned(
                        &args[1],
                        format!("the values of a `Nested` are a vector, found `{}`", values.ty),
                    ));
                };
                Ok(Expr::array(ArrayOp::NestedFromParts { segments, values }, Type::Nested(el)))
            }
            "Some" => Err(Error::new(span, "`Some` is only meaningful as the result of a `permute` index closure")),
            "Constant" => {
                Err(Error::new(span, "`Constant(v)` is a stencil boundary: pass it as the first argument of a stencil"))
            }
            "produce" | "stream_in" | "tabulate" => {
                Err(Error::new(span, format!("`{name}` builds a stream (`Seq`), which is not supported yet")))
            }
            _ => {
                let library = self.library;
                match library
                    .resolve(Kind::Function, &segs, &self.from, &self.module)
                    .map_err(|e| Error::new(span, e))?
                {
                    Some(callee) => self.inline_call(callee, &segs, c, span),
                    None => Err(Error::new(
                        span,
                        format!(
                            "cannot call `{name}` inside #[accel]: the functions available are {FUNCTIONS}, the math functions like `f32::sqrt` and the #[accel] functions of the package and of the accel packages it depends on; other Rust functions cannot run on the device"
                        ),
                    )),
                }
            }
        }
    }
}

fn boundary_error(e: &syn::Expr) -> Error {
    Error::new_spanned(e, "a stencil boundary is `Clamp`, `Mirror`, `Wrap` or `Constant(value)`")
}

fn const_of(s: ScalarType, v: i128) -> Expr {
    let c = if s.is_float() { Const::Float(v as f64, s) } else { Const::Int(v, s) };
    Expr::new(ExprKind::Const(c), Type::scalar(s))
}

fn zero_index(dst: &ElemType) -> Expr {
    match dst {
        ElemType::Scalar(s) => const_of(*s, 0),
        ElemType::Tuple(ts) => Expr::new(ExprKind::Tuple(ts.iter().map(zero_index).collect()), Type::Elem(dst.clone())),
    }
}

/// Combinator names as `'static` strings for closure error messages.
fn static_name(name: &str) -> &'static str {
    const NAMES: [&str; 6] = ["scanl", "scanr", "scanl1", "scanr1", "scanl_total", "scanr_total"];
    NAMES.into_iter().find(|n| *n == name).unwrap_or("scan")
}
