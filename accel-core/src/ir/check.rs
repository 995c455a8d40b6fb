//! The type checker of the IR: every node's type agrees with its children's, every variable is
//! bound with the type it is used at, every closure takes and returns what its operation needs.
//!
//! The front end builds well-typed IR by construction; the checker is how the passes after it
//! keep that promise. The pipeline ([`crate::pipeline`]) runs it on the front end's output and
//! after every pass, and turns a failure into an internal compiler error at the function, so
//! that every `#[accel]` function of every test is checked at each step of its compilation.
//!
//! ```
//! use accel_core::ir::{check, Expr, ExprKind};
//! # let mut program = accel_core::frontend::lower(&syn::parse_quote! {
//! #     fn f(xs: Vector<f32>) -> Vector<f32> { xs.map(|x| x + 1.0) }
//! # }).unwrap();
//! assert!(check::program(&program).is_ok());
//! // A body that claims a type its node does not have.
//! program.body = Expr::new(program.body.kind.clone(), accel_core::types::Type::Segments);
//! assert!(check::program(&program).is_err());
//! ```

use super::visit::{self, Bound};
use super::{ArrayOp, BinaryOp, Boundary, Expr, ExprKind, Lambda, MathFn, Producer as P, Program, ScanKind, UnaryOp};
use crate::types::{ElemType, ScalarType, Type};

/// Checks `program`; the error says which node is ill-typed and how.
pub fn program(program: &Program) -> Result<(), String> {
    let mut env: Vec<(u32, Type)> = program.params.iter().map(|(v, t)| (v.id, t.clone())).collect();
    expr(&program.body, &mut env).map_err(|e| format!("`{}` is ill-typed: {e}", program.name))
}

type Env = Vec<(u32, Type)>;

fn expr(e: &Expr, env: &mut Env) -> Result<(), String> {
    // Children first, each in the scope its binders give it.
    let mut result = Ok(());
    visit::for_each_child(e, &mut |child, bound: Bound<'_>, _| {
        if result.is_ok() {
            let depth = env.len();
            env.extend(bound.vars().map(|(v, t)| (v.id, t.clone())));
            result = expr(child, env);
            env.truncate(depth);
        }
    });
    result?;
    node(e, env).map_err(|msg| format!("{msg}\n  in: {}", short(e)))
}

/// The first line of a node's text, for messages.
fn short(e: &Expr) -> String {
    let text = e.to_string();
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > 120 {
        format!("{}..", line.chars().take(120).collect::<String>())
    } else {
        line.to_string()
    }
}

fn same(what: &str, want: &Type, found: &Type) -> Result<(), String> {
    if want == found { Ok(()) } else { Err(format!("{what}: expected `{want}`, found `{found}`")) }
}

fn elem(e: &ElemType) -> Type {
    Type::Elem(e.clone())
}

fn index(rank: usize) -> Type {
    Type::Elem(ElemType::index(rank))
}

fn usize_t() -> Type {
    Type::scalar(ScalarType::Usize)
}

fn bool_t() -> Type {
    Type::scalar(ScalarType::Bool)
}

fn array_of(what: &str, t: &Type) -> Result<(ElemType, usize), String> {
    t.as_array().map(|(e, r)| (e.clone(), r)).ok_or_else(|| format!("{what}: expected an array, found `{t}`"))
}

fn scalar_of(what: &str, t: &Type) -> Result<ScalarType, String> {
    t.as_elem().and_then(ElemType::as_scalar).ok_or_else(|| format!("{what}: expected a scalar, found `{t}`"))
}

/// A closure's parameters are `params` and its body returns `ret` (when given); its result type.
fn closure(what: &str, l: &Lambda, params: &[Type], ret: Option<&Type>) -> Result<Type, String> {
    let found: Vec<&Type> = l.params.iter().map(|(_, t)| t).collect();
    if found.len() != params.len() || found.iter().zip(params).any(|(a, b)| *a != b) {
        let list = |ts: &mut dyn Iterator<Item = &Type>| ts.map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
        return Err(format!(
            "{what}: the closure takes ({}), expected ({})",
            list(&mut found.iter().copied()),
            list(&mut params.iter())
        ));
    }
    if let Some(ret) = ret {
        same(&format!("{what}: the closure's result"), ret, l.result_type())?;
    }
    Ok(l.result_type().clone())
}

/// The rule of one node, its children already checked.
fn node(e: &Expr, env: &Env) -> Result<(), String> {
    let ty = &e.ty;
    match &e.kind {
        ExprKind::Var(v) => match env.iter().rev().find(|(id, _)| *id == v.id) {
            Some((_, t)) => same(&format!("the variable `{}#{}`", v.name, v.id), t, ty),
            None => Err(format!("the variable `{}#{}` is not bound here", v.name, v.id)),
        },
        ExprKind::Const(c) => same("a constant", &Type::scalar(c.scalar_type()), ty),
        ExprKind::Let { body, .. } => same("a `let`", &body.ty, ty),
        ExprKind::Tuple(parts) => {
            let want: Vec<Type> = parts.iter().map(|p| p.ty.clone()).collect();
            match ty.tuple_parts() {
                Some(found) if found == want => Ok(()),
                _ => Err(format!("a tuple of `{}` has type `{ty}`", Type::tuple(want))),
            }
        }
        ExprKind::Proj(x, i) => match x.ty.tuple_parts().and_then(|ps| ps.get(*i).cloned()) {
            Some(t) => same(&format!("field {i}"), &t, ty),
            None => Err(format!("field {i} of `{}`, which has no such field", x.ty)),
        },
        ExprKind::If { cond, then, els } => {
            same("the condition", &bool_t(), &cond.ty)?;
            same("the `else` branch", &then.ty, &els.ty)?;
            same("an `if`", &then.ty, ty)
        }
        ExprKind::Unary(op, x) => {
            let s = scalar_of("the operand", &x.ty)?;
            let fits = match op {
                UnaryOp::Neg => s.is_numeric(),
                UnaryOp::Not => !s.is_float(),
            };
            if !fits {
                return Err(format!("{op:?} of `{s}`"));
            }
            same("the result", &x.ty, ty)
        }
        ExprKind::Binary(op, a, b) => binary(*op, a, b, ty),
        ExprKind::Cast(x, t) => {
            scalar_of("the operand of `as`", &x.ty)?;
            same("`as`", &Type::scalar(*t), ty)
        }
        ExprKind::Math(f, args) => math(*f, args, ty),
        ExprKind::Index { array, index: ix, .. } => {
            let (el, r) = array_of("the array read", &array.ty)?;
            same("the index", &index(r), &ix.ty)?;
            same("the element read", &elem(&el), ty)
        }
        ExprKind::Shape(a) => {
            let (_, r) = array_of("`shape`", &a.ty)?;
            same("`shape`", &index(r), ty)
        }
        ExprKind::SegmentOf { segments, index } => {
            same("the segments of a segment lookup", &Type::Segments, &segments.ty)?;
            same("the index of a segment lookup", &usize_t(), &index.ty)?;
            same("a segment lookup", &usize_t(), ty)
        }
        ExprKind::Len(a) => match &a.ty {
            Type::Array { .. } | Type::Nested(_) | Type::Segments | Type::Seq(_) => same("`len`", &usize_t(), ty),
            other => Err(format!("the length of `{other}`")),
        },
        ExprKind::Iterate { count, init, f } => {
            scalar_of("the count of `iterate`", &count.ty)?;
            closure("iterate", f, std::slice::from_ref(&init.ty), Some(&init.ty))?;
            same("`iterate`", &init.ty, ty)
        }
        ExprKind::WhileLoop { init, cond, step } => {
            closure("the condition of `while_loop`", cond, std::slice::from_ref(&init.ty), Some(&bool_t()))?;
            closure("the step of `while_loop`", step, std::slice::from_ref(&init.ty), Some(&init.ty))?;
            same("`while_loop`", &init.ty, ty)
        }
        ExprKind::Array(op) => array(op, ty),
    }
}

fn binary(op: BinaryOp, a: &Expr, b: &Expr, ty: &Type) -> Result<(), String> {
    use BinaryOp::*;
    let what = format!("`{}`", op.symbol());
    match op {
        Shl | Shr => {
            let (x, n) = (scalar_of(&what, &a.ty)?, scalar_of(&what, &b.ty)?);
            if !x.is_integer() || !n.is_integer() {
                return Err(format!("{what} of `{x}` by `{n}`"));
            }
            same(&what, &a.ty, ty)
        }
        And | Or => {
            same(&what, &bool_t(), &a.ty)?;
            same(&what, &bool_t(), &b.ty)?;
            same(&what, &bool_t(), ty)
        }
        Eq | Ne | Lt | Le | Gt | Ge => {
            same(&format!("the right operand of {what}"), &a.ty, &b.ty)?;
            if !a.ty.is_elem() {
                return Err(format!("{what} of `{}`", a.ty));
            }
            same(&what, &bool_t(), ty)
        }
        Add | Sub | Mul | Div | Rem | DivEuclid | RemEuclid | BitAnd | BitOr | BitXor => {
            let s = scalar_of(&what, &a.ty)?;
            let fits = match op {
                BitAnd | BitOr | BitXor => !s.is_float(),
                _ => s.is_numeric(),
            };
            if !fits {
                return Err(format!("{what} of `{s}`"));
            }
            same(&format!("the right operand of {what}"), &a.ty, &b.ty)?;
            same(&what, &a.ty, ty)
        }
    }
}

fn math(f: MathFn, args: &[Expr], ty: &Type) -> Result<(), String> {
    let what = format!("`{}`", f.method_name());
    if args.len() != f.arity() {
        return Err(format!("{what} takes {} arguments, found {}", f.arity(), args.len()));
    }
    let s = scalar_of(&what, &args[0].ty)?;
    let Some((want, result)) = f.signature(s) else { return Err(format!("{what} of `{s}`")) };
    for (k, (arg, want)) in args.iter().zip(want).enumerate().skip(1) {
        same(&format!("argument {k} of {what}"), &Type::scalar(want), &arg.ty)?;
    }
    same(&what, &Type::scalar(result), ty)
}

fn array(op: &ArrayOp, ty: &Type) -> Result<(), String> {
    use ArrayOp::*;
    let name = op.name();
    let what = format!("`{name}`");
    let result = |t: Type| same(&format!("the result of {what}"), &t, ty);
    let seed = |z: &Option<Expr>, e: &ElemType| match z {
        Some(z) => same(&format!("the seed of {what}"), &elem(e), &z.ty),
        None => Ok(()),
    };
    let combiner = |f: &Lambda, e: &ElemType| closure(&what, f, &[elem(e), elem(e)], Some(&elem(e))).map(drop);
    match op {
        Generate { shape, f, .. } => {
            let (el, r) = array_of(&what, ty)?;
            same(&format!("the shape of {what}"), &index(r), &shape.ty)?;
            closure(&what, f, &[index(r)], Some(&elem(&el))).map(drop)
        }
        Producer(p) => match p {
            P::Fill { shape, value } => {
                let (el, r) = array_of(&what, ty)?;
                same(&format!("the shape of {what}"), &index(r), &shape.ty)?;
                same(&format!("the value of {what}"), &elem(&el), &value.ty)
            }
            P::Iota { n } => {
                same(&format!("the length of {what}"), &usize_t(), &n.ty)?;
                let (el, r) = array_of(&what, ty)?;
                match el.as_scalar() {
                    Some(s) if s.is_numeric() && r == 1 => Ok(()),
                    _ => Err(format!("{what} makes a vector of numbers, not `{ty}`")),
                }
            }
            P::Map { f, a } => {
                let (el, r) = array_of(&what, &a.ty)?;
                let out = closure(&what, f, &[elem(&el)], None)?;
                result(Type::array(out.as_elem().cloned().ok_or("a closure of `map` returning an array")?, r))
            }
            P::IMap { f, a } => {
                let (el, r) = array_of(&what, &a.ty)?;
                let out = closure(&what, f, &[index(r), elem(&el)], None)?;
                result(Type::array(out.as_elem().cloned().ok_or("a closure of `imap` returning an array")?, r))
            }
            P::ZipWith { f, a, b } => {
                let ((ea, ra), (eb, rb)) = (array_of(&what, &a.ty)?, array_of(&what, &b.ty)?);
                if ra != rb {
                    return Err(format!("{what} of `{}` and `{}`", a.ty, b.ty));
                }
                let out = closure(&what, f, &[elem(&ea), elem(&eb)], None)?;
                result(Type::array(out.as_elem().cloned().ok_or("a closure of `zip_with` returning an array")?, ra))
            }
            P::Backpermute { shape, f, a } => {
                let (el, r) = array_of(&what, &a.ty)?;
                let (_, r_out) = array_of(&what, ty)?;
                same(&format!("the shape of {what}"), &index(r_out), &shape.ty)?;
                closure(&what, f, &[index(r_out)], Some(&index(r)))?;
                result(Type::array(el, r_out))
            }
            P::Reverse(a) => {
                let (_, r) = array_of(&what, &a.ty)?;
                if r == 0 {
                    return Err(format!("{what} of `{}`", a.ty));
                }
                result(a.ty.clone())
            }
            P::Transpose(a) => {
                let (el, r) = array_of(&what, &a.ty)?;
                if r != 2 {
                    return Err(format!("{what} of `{}`", a.ty));
                }
                result(Type::array(el, 2))
            }
            P::Take { n, a } | P::Drop { n, a } => {
                same(&format!("the count of {what}"), &usize_t(), &n.ty)?;
                array_of(&what, &a.ty)?;
                result(a.ty.clone())
            }
            P::Replicate { n, a, .. } => {
                same(&format!("the count of {what}"), &usize_t(), &n.ty)?;
                let (el, r) = array_of(&what, &a.ty)?;
                if r != 1 {
                    return Err(format!("{what} of `{}`", a.ty));
                }
                result(Type::array(el, 2))
            }
        },
        Unit(x) => result(Type::array(x.ty.as_elem().cloned().ok_or("`unit` of a non-element")?, 0)),
        The(x) => {
            let (el, r) = array_of(&what, &x.ty)?;
            if r != 0 {
                return Err(format!("{what} of `{}`", x.ty));
            }
            result(elem(&el))
        }
        Fold { z, f, a } | FoldAll { z, f, a } => {
            let (el, r) = array_of(&what, &a.ty)?;
            seed(z, &el)?;
            combiner(f, &el)?;
            let r_out = match op {
                FoldAll { .. } => 0,
                _ if r >= 1 => r - 1,
                _ => return Err(format!("{what} of `{}`", a.ty)),
            };
            result(Type::array(el, r_out))
        }
        FoldSeg { z, f, a, segments } | ScanSeg { z, f, a, segments, .. } => {
            let (el, r) = array_of(&what, &a.ty)?;
            seed(z, &el)?;
            combiner(f, &el)?;
            same(&format!("the segments of {what}"), &Type::Segments, &segments.ty)?;
            result(Type::array(el, r))
        }
        Scan { kind, z, f, a, .. } => {
            let (el, r) = array_of(&what, &a.ty)?;
            if r == 0 {
                return Err(format!("{what} of `{}`", a.ty));
            }
            seed(z, &el)?;
            combiner(f, &el)?;
            if z.is_none() != (*kind == ScanKind::Inclusive) {
                return Err(format!("{what} with a seed of {z:?}"));
            }
            match kind {
                ScanKind::WithSeed | ScanKind::Inclusive => result(Type::array(el, r)),
                ScanKind::ExclusiveAndTotal => {
                    result(Type::Tuple(vec![Type::array(el.clone(), r), Type::array(el, r - 1)]))
                }
            }
        }
        Permute { defaults, f, combine, a } => {
            let (el, r) = array_of(&what, &a.ty)?;
            let (del, r_out) = array_of(&what, &defaults.ty)?;
            same(&format!("the defaults of {what}"), &elem(&el), &elem(&del))?;
            let target = Type::Elem(ElemType::Tuple(vec![ElemType::BOOL, ElemType::index(r_out)]));
            closure(&what, f, &[index(r)], Some(&target))?;
            combiner(combine, &el)?;
            result(defaults.ty.clone())
        }
        ExpandPermute { defaults, count, value, a, target, elem: source, combine } => {
            let (el, _) = array_of(&what, &a.ty)?;
            let n = closure(&what, count, &[elem(&el)], None)?;
            if !n.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_integer) {
                return Err(format!("the count closure of {what} returns `{n}`"));
            }
            let y = closure(&what, value, &[elem(&el), usize_t()], None)?;
            let (del, r_out) = array_of(&what, &defaults.ty)?;
            let dst = Type::Elem(ElemType::Tuple(vec![ElemType::BOOL, ElemType::index(r_out)]));
            closure(&what, target, &[usize_t(), y.clone()], Some(&dst))?;
            closure(&what, source, &[usize_t(), y], Some(&elem(&del)))?;
            combiner(combine, &del)?;
            result(defaults.ty.clone())
        }
        Reshape { shape, a } => {
            let (el, _) = array_of(&what, &a.ty)?;
            let (_, r_out) = array_of(&what, ty)?;
            same(&format!("the shape of {what}"), &index(r_out), &shape.ty)?;
            result(Type::array(el, r_out))
        }
        Unzip(a) => {
            let (el, r) = array_of(&what, &a.ty)?;
            let ElemType::Tuple(parts) = el else { return Err(format!("{what} of `{}`", a.ty)) };
            result(Type::tuple(parts.into_iter().map(|p| Type::array(p, r)).collect()))
        }
        Concat { a, b } => {
            same(&format!("the second operand of {what}"), &a.ty, &b.ty)?;
            result(a.ty.clone())
        }
        Slice { index: i, a, .. } => {
            same(&format!("the index of {what}"), &usize_t(), &i.ty)?;
            let (el, r) = array_of(&what, &a.ty)?;
            if r != 2 {
                return Err(format!("{what} of `{}`", a.ty));
            }
            result(Type::array(el, 1))
        }
        Stencil { shape, boundary, f, a } => {
            let (el, r) = array_of(&what, &a.ty)?;
            if r != shape.rank() {
                return Err(format!("{what} of `{}`", a.ty));
            }
            match boundary {
                Boundary::Constant(v) => same(&format!("the boundary of {what}"), &elem(&el), &v.ty)?,
                Boundary::Clamp | Boundary::Mirror | Boundary::Wrap => {}
            }
            let out = closure(&what, f, &vec![elem(&el); shape.points()], None)?;
            result(Type::array(out.as_elem().cloned().ok_or("a stencil returning an array")?, r))
        }
        Expand { count, value, a } => {
            let (el, _) = array_of(&what, &a.ty)?;
            let n = closure(&what, count, &[elem(&el)], None)?;
            if !n.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_integer) {
                return Err(format!("the count closure of {what} returns `{n}`"));
            }
            let out = closure(&what, value, &[elem(&el), usize_t()], None)?;
            result(Type::array(out.as_elem().cloned().ok_or("an expand value that is an array")?, 1))
        }
        Filter { pred, a } => {
            let (el, _) = array_of(&what, &a.ty)?;
            closure(&what, pred, &[elem(&el)], Some(&bool_t()))?;
            result(Type::array(el, 1))
        }
        Awhile { init, cond, step } => {
            closure(&what, cond, std::slice::from_ref(&init.ty), Some(&Type::array(ElemType::BOOL, 0)))?;
            closure(&what, step, std::slice::from_ref(&init.ty), Some(&init.ty))?;
            result(init.ty.clone())
        }
        SegmentsFromLengths(l) => {
            let (el, r) = array_of(&what, &l.ty)?;
            if r != 1 || !el.as_scalar().is_some_and(ScalarType::is_integer) {
                return Err(format!("{what} of `{}`", l.ty));
            }
            result(Type::Segments)
        }
        SegmentLengths(s) | SegmentOffsets(s) => {
            same(&format!("the operand of {what}"), &Type::Segments, &s.ty)?;
            result(Type::array(ElemType::USIZE, 1))
        }
        NestedFromParts { segments, values } => {
            same(&format!("the segments of {what}"), &Type::Segments, &segments.ty)?;
            let (el, r) = array_of(&what, &values.ty)?;
            if r != 1 {
                return Err(format!("{what} of values `{}`", values.ty));
            }
            result(Type::Nested(el))
        }
        NestedValues(n) | NestedSegments(n) => {
            let Type::Nested(el) = &n.ty else { return Err(format!("{what} of `{}`", n.ty)) };
            match op {
                NestedValues(_) => result(Type::array(el.clone(), 1)),
                _ => result(Type::Segments),
            }
        }
        NestedMap { f, a } => {
            let el = match &a.ty {
                Type::Nested(el) | Type::Array { elem: el, rank: 2 } => el,
                _ => return Err(format!("{what} of `{}`", a.ty)),
            };
            closure(&what, f, &[Type::array(el.clone(), 1)], None)?;
            result(crate::flatten::result_type(f, &a.ty)?)
        }
        // Streams are not lowered yet: their children are checked, their own rule is the
        // streams issue's.
        Seq(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Var;
    use crate::kernel::tests::program;

    #[test]
    fn the_front_ends_programs_check() {
        for src in [
            "fn f(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> { xs.zip_with(ys, |x, y| x * y).sum() }",
            "fn f(m: Matrix<i32>) -> (Vector<i32>, Matrix<i32>) { (m.fold(0, |a, b| a + b), m.transpose()) }",
            "fn f(xs: Vector<u32>) -> (Vector<u32>, Scalar<u32>) { xs.scanl_total(0, |a, b| a + b) }",
            "fn f(xs: Vector<i64>, d: Vector<usize>) -> Vector<i64> { xs.permute(fill(5, 0i64), |i| d[i] % 5, |a, b| a + b) }",
            "fn f(xs: Vector<f64>) -> Vector<f64> { awhile(xs, |v| unit(v[0] < 100.0), |v| v.map(|x| x * 2.0 + 1.0)) }",
            "fn f(xs: Vector<i32>) -> Vector<i32> { xs.expand(|x| (x % 3) as usize, |x, i| x + i as i32).filter(|x| x > 0) }",
            "fn f(m: Matrix<f32>) -> Matrix<f32> { m.stencil3x3(Mirror, |n| n[1][1] * 2.0 - n[0][0]) }",
            "fn f(xs: Vector<f32>, k: u32) -> Vector<f32> { xs.map(|x| iterate(k as usize, x, |y| y.sqrt() + 1.0)) }",
        ] {
            let p = program(src);
            program_checks(&p);
            program_checks(&crate::pipeline::optimise(&p, crate::pipeline::Options::default()));
        }
    }

    fn program_checks(p: &Program) {
        if let Err(e) = super::program(p) {
            panic!("{e}\n{p}");
        }
    }

    #[test]
    fn ill_typed_programs_are_caught() {
        let p = program("fn f(xs: Vector<f32>, c: f32) -> Vector<f32> { xs.map(|x| x * c) }");
        // A variable used at another type than its binder's.
        let mut wrong_var = p.clone();
        wrong_var.params[1].1 = Type::scalar(ScalarType::F64);
        assert!(super::program(&wrong_var).unwrap_err().contains("the variable `c#"));
        // An unbound variable.
        let mut unbound = p.clone();
        unbound.params.pop();
        assert!(super::program(&unbound).unwrap_err().contains("not bound"));
        // A node whose type disagrees with its children.
        let mut wrong_node = p.clone();
        wrong_node.body.ty = Type::array(ElemType::Scalar(ScalarType::F32), 2);
        assert!(super::program(&wrong_node).unwrap_err().contains("the result of `map`"));
        // A closure of the wrong arity.
        let mut wrong_closure = p;
        let ExprKind::Array(op) = &mut wrong_closure.body.kind else { panic!("a map") };
        let ArrayOp::Producer(P::Map { f, .. }) = &mut **op else { panic!("a map") };
        f.params.push((Var { id: 99, name: "extra".into() }, Type::scalar(ScalarType::F32)));
        assert!(super::program(&wrong_closure).unwrap_err().contains("the closure takes"));
    }
}
