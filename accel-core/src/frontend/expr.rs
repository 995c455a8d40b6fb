//! Blocks, statements and expressions.

use super::{Binding, Lowerer};
use crate::ir::{BinaryOp, Const, Expr, ExprKind, UnaryOp, Var};
use crate::types::{ElemType, ScalarType, Type};
use syn::spanned::Spanned;
use syn::{Error, Pat, Stmt};

impl Lowerer<'_> {
    /// Lowers a block: `let` statements then a final expression.
    pub(super) fn block(&mut self, block: &syn::Block, expected: Option<&Type>) -> syn::Result<Expr> {
        self.scoped(|lw| {
            let mut lets: Vec<(Var, Expr)> = Vec::new();
            let mut tail = None;
            for (i, stmt) in block.stmts.iter().enumerate() {
                let last = i + 1 == block.stmts.len();
                match stmt {
                    Stmt::Local(local) => lw.local(local, &mut lets)?,
                    Stmt::Expr(e, None) if last => tail = Some(lw.expr(e, expected)?),
                    Stmt::Expr(e, _) => return Err(statement_error(e)),
                    Stmt::Item(syn::Item::Const(c)) => lw.local_const(c, &mut lets)?,
                    Stmt::Item(item) => {
                        return Err(Error::new_spanned(item,
                            "items (`fn`, `struct`, `use`, ...) other than `const` are not allowed inside #[accel]; define them outside the function",
                        ));
                    }
                    Stmt::Macro(m) => return Err(macro_error(&m.mac)),
                }
            }
            let Some(mut body) = tail else {
                return Err(Error::new(
                    block.brace_token.span.close(),
                    "this block has no value: end it with an expression (without `;`)",
                ));
            };
            for (var, value) in lets.into_iter().rev() {
                let ty = body.ty.clone();
                body = Expr::new(ExprKind::Let { var, value: Box::new(value), body: Box::new(body) }, ty);
            }
            Ok(body)
        })
    }

    /// A `let` statement: binds names (destructuring tuples) and records the IR lets.
    fn local(&mut self, local: &syn::Local, lets: &mut Vec<(Var, Expr)>) -> syn::Result<()> {
        let Some(init) = &local.init else {
            return Err(Error::new_spanned(local, "a `let` needs a value: `let x = ...;`"));
        };
        if let Some((else_token, _)) = &init.diverge {
            return Err(Error::new_spanned(
                else_token,
                "`let ... else` is not supported inside #[accel]: use `if`/`else`",
            ));
        }
        let (pat, annotation) = match &local.pat {
            Pat::Type(pt) => (&*pt.pat, Some(super::types::value_type(&pt.ty)?)),
            p => (p, None),
        };
        if let (Pat::Ident(pi), Some(closure)) = (pat, as_closure(&init.expr))
            && pi.mutability.is_none()
        {
            let binding = Binding::Closure { closure: Box::new(closure.clone()), scope: self.scope.clone() };
            self.scope.push((pi.ident.to_string(), binding));
            return Ok(());
        }
        if annotation.is_none()
            && matches!(pat, Pat::Ident(pi) if pi.mutability.is_none())
            && is_untyped_literal(self, &init.expr)
        {
            let Pat::Ident(pi) = pat else { unreachable!("matched above") };
            self.scope.push((pi.ident.to_string(), Binding::Literal(init.expr.clone())));
            return Ok(());
        }
        let value = self.expr(&init.expr, annotation.as_ref())?;
        let value = match &annotation {
            Some(t) => self.expect_type(value, t, &init.expr)?,
            None => value,
        };
        self.bind_pattern(pat, value, lets)
    }

    /// Binds a pattern (an identifier, `_` or a tuple of patterns) to a value.
    pub(super) fn bind_pattern(&mut self, pat: &Pat, value: Expr, lets: &mut Vec<(Var, Expr)>) -> syn::Result<()> {
        match pat {
            Pat::Ident(pi) => {
                if let Some(m) = &pi.mutability {
                    return Err(Error::new_spanned(
                        m,
                        "`mut` is not supported: values are immutable inside #[accel]; bind a new name with `let`",
                    ));
                }
                if pi.by_ref.is_some() || pi.subpat.is_some() {
                    return Err(Error::new_spanned(pi, "write a plain name here"));
                }
                let var = self.bind(&pi.ident.to_string(), value.ty.clone());
                lets.push((var, value));
                Ok(())
            }
            Pat::Wild(_) => Ok(()),
            Pat::Paren(p) => self.bind_pattern(&p.pat, value, lets),
            Pat::Tuple(pt) => {
                let Some(parts) = value.ty.tuple_parts() else {
                    return Err(Error::new_spanned(pt, format!("a tuple pattern needs a tuple, found `{}`", value.ty)));
                };
                if parts.len() != pt.elems.len() {
                    return Err(Error::new_spanned(
                        pt,
                        format!(
                            "the pattern has {} fields but the value `{}` has {}",
                            pt.elems.len(),
                            value.ty,
                            parts.len()
                        ),
                    ));
                }
                let tmp = self.fresh("tuple");
                let whole = Expr::var(tmp.clone(), value.ty.clone());
                lets.push((tmp, value));
                for (i, (p, t)) in pt.elems.iter().zip(parts).enumerate() {
                    let field = Expr::new(ExprKind::Proj(Box::new(whole.clone()), i), t);
                    self.bind_pattern(p, field, lets)?;
                }
                Ok(())
            }
            other => Err(Error::new_spanned(other, "only names, `_` and tuples of them can be bound here")),
        }
    }

    /// Lowers an expression, with the type the context expects if it knows one.
    pub(super) fn expr(&mut self, e: &syn::Expr, expected: Option<&Type>) -> syn::Result<Expr> {
        use syn::Expr as E;
        match e {
            E::Lit(l) => literal(&l.lit, expected, false),
            E::Paren(p) => self.expr(&p.expr, expected),
            E::Group(g) => self.expr(&g.expr, expected),
            E::Path(p) => self.path(p, expected),
            E::Binary(b) => self.binary(b, expected),
            E::Unary(u) => self.unary(u, expected),
            E::Cast(c) => self.cast(c),
            E::If(i) => self.if_expr(i, expected),
            E::Block(b) => {
                if let Some(label) = &b.label {
                    return Err(Error::new_spanned(label, "labels are not supported inside #[accel]"));
                }
                self.block(&b.block, expected)
            }
            E::Tuple(t) => {
                let want = expected.and_then(Type::tuple_parts).filter(|p| p.len() == t.elems.len());
                let parts = t
                    .elems
                    .iter()
                    .enumerate()
                    .map(|(i, x)| self.expr(x, want.as_ref().map(|w| &w[i])))
                    .collect::<syn::Result<Vec<_>>>()?;
                let ty = Type::tuple(parts.iter().map(|p| p.ty.clone()).collect());
                Ok(Expr::new(ExprKind::Tuple(parts), ty))
            }
            E::Field(f) => self.field(f),
            E::Index(ix) => self.index(ix),
            E::MethodCall(m) => self.method(m, expected),
            E::Call(c) => self.call(c, expected),
            E::Closure(c) => Err(Error::new_spanned(
                c,
                "a closure can only be an argument of a combinator such as `map` or `generate`",
            )),
            E::ForLoop(l) => Err(Error::new_spanned(
                l.for_token,
                "loops are not supported inside #[accel]: use a combinator (`map`, `fold`, `generate`, ...), `iterate`/`while_loop` in scalar code, or `awhile` for arrays",
            )),
            E::While(l) => Err(Error::new_spanned(
                l.while_token,
                "`while` is not supported inside #[accel]: use `while_loop(init, |x| cond, |x| step)` in scalar code or `awhile` for arrays",
            )),
            E::Loop(l) => Err(Error::new_spanned(
                l.loop_token,
                "`loop` is not supported inside #[accel]: use `while_loop` in scalar code or `awhile` for arrays",
            )),
            E::Assign(a) => Err(Error::new_spanned(
                a.eq_token,
                "mutation is not supported inside #[accel]: bind a new name with `let` instead",
            )),
            E::Reference(r) => Err(Error::new_spanned(
                r.and_token,
                "references are not needed inside #[accel]: use the value itself (arrays are shared, never copied)",
            )),
            E::Return(r) => Err(Error::new_spanned(
                r.return_token,
                "`return` is not supported: make the value the last expression of the block",
            )),
            E::Match(m) => self.match_expr(m, expected),
            E::Macro(m) => Err(macro_error(&m.mac)),
            E::Break(b) => Err(Error::new_spanned(
                b.break_token,
                "`break` is not supported inside #[accel]: use `while_loop(init, |x| condition, |x| step)` in scalar code or `awhile` for arrays",
            )),
            E::Continue(c) => Err(Error::new_spanned(
                c.continue_token,
                "`continue` is not supported inside #[accel]: use `if`/`else` inside `while_loop` or `iterate`",
            )),
            E::Try(t) => Err(Error::new_spanned(
                t.question_token,
                "`?` is not needed inside #[accel]: errors propagate out of the generated function by themselves",
            )),
            E::Array(a) => Err(Error::new_spanned(
                a,
                "array literals are only allowed as shapes and indices, like `[rows, cols]`; build arrays with `generate` or pass them as parameters",
            )),
            E::Range(r) => {
                Err(Error::new_spanned(r, "ranges are not supported inside #[accel]: use `iota(n)` or `generate`"))
            }
            E::Unsafe(u) => Err(Error::new_spanned(u.unsafe_token, "`unsafe` is not allowed inside #[accel]")),
            E::Async(a) => Err(Error::new_spanned(a.async_token, "`async` is not supported inside #[accel]")),
            E::Let(l) => Err(Error::new_spanned(
                l.let_token,
                "`if let` and `let` expressions are not supported: use `if`/`else`",
            )),
            E::Struct(s) => {
                Err(Error::new_spanned(s, "struct expressions are not supported inside #[accel]: use tuples"))
            }
            other => Err(Error::new_spanned(other, "this expression is not supported inside #[accel]")),
        }
    }

    fn path(&mut self, p: &syn::ExprPath, expected: Option<&Type>) -> syn::Result<Expr> {
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            return match self.lookup(&name).cloned() {
                Some(Binding::Value(var, ty) | Binding::Constant(var, ty)) => Ok(Expr::var(var, ty)),
                Some(Binding::Literal(e)) => self.expr(&e, expected),
                Some(Binding::Closure { .. }) => Err(Error::new_spanned(
                    ident,
                    format!(
                        "`{name}` is a closure: pass it to a combinator (`xs.map({name})`) or call it (`{name}(x)`)"
                    ),
                )),
                Some(Binding::Neighbourhood { rank, .. }) => Err(Error::new_spanned(
                    ident,
                    if rank == 1 {
                        format!("read a neighbour of `{name}` by index, like `{name}[0]`")
                    } else {
                        format!("read a neighbour of `{name}` by row and column, like `{name}[1][1]`")
                    },
                )),
                None if let Some(value) = self.library_const(std::slice::from_ref(&name), ident.span())? => Ok(value),
                None => Err(match name.as_str() {
                    "None" => Error::new_spanned(
                        ident,
                        "`None` is only meaningful as the result of a `permute` index closure",
                    ),
                    "Clamp" | "Mirror" | "Wrap" => Error::new_spanned(
                        ident,
                        format!(
                            "`{name}` is a stencil boundary: pass it as the first argument of `stencil3`, `stencil3x3`, ..."
                        ),
                    ),
                    _ => Error::new_spanned(
                        ident,
                        format!(
                            "cannot find `{name}` in this #[accel] function: only its parameters and `let` bindings are in scope; pass other values as parameters"
                        ),
                    ),
                }),
            };
        }
        named_constant(p).or_else(|e| {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.library_const(&segs, p.span())?.ok_or(e)
        })
    }

    fn binary(&mut self, b: &syn::ExprBinary, expected: Option<&Type>) -> syn::Result<Expr> {
        use syn::BinOp as B;
        let op = match b.op {
            B::Add(_) => BinaryOp::Add,
            B::Sub(_) => BinaryOp::Sub,
            B::Mul(_) => BinaryOp::Mul,
            B::Div(_) => BinaryOp::Div,
            B::Rem(_) => BinaryOp::Rem,
            B::And(_) => BinaryOp::And,
            B::Or(_) => BinaryOp::Or,
            B::BitXor(_) => BinaryOp::BitXor,
            B::BitAnd(_) => BinaryOp::BitAnd,
            B::BitOr(_) => BinaryOp::BitOr,
            B::Shl(_) => BinaryOp::Shl,
            B::Shr(_) => BinaryOp::Shr,
            B::Eq(_) => BinaryOp::Eq,
            B::Lt(_) => BinaryOp::Lt,
            B::Le(_) => BinaryOp::Le,
            B::Ne(_) => BinaryOp::Ne,
            B::Ge(_) => BinaryOp::Ge,
            B::Gt(_) => BinaryOp::Gt,
            other => {
                return Err(Error::new_spanned(
                    other,
                    "compound assignment is mutation, which is not supported inside #[accel]: bind a new name with `let`",
                ));
            }
        };
        let span = b.op.span();
        let bool_t = Type::Elem(ElemType::BOOL);
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            let l = self.scalar_operand(&b.left, Some(&bool_t))?;
            let r = self.scalar_operand(&b.right, Some(&bool_t))?;
            for x in [&l, &r] {
                if x.ty != bool_t {
                    return Err(Error::new(span, format!("`{}` takes `bool` operands, found `{}`", op.symbol(), x.ty)));
                }
            }
            return Ok(Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), bool_t));
        }
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let l = self.scalar_operand(&b.left, expected)?;
            let r = self.scalar_operand(&b.right, None)?;
            let (lt, rt) = (scalar_of(&l), scalar_of(&r));
            if !lt.is_some_and(ScalarType::is_integer) || !rt.is_some_and(ScalarType::is_integer) {
                return Err(Error::new(
                    span,
                    format!("`{}` shifts an integer by an integer, found `{}` and `{}`", op.symbol(), l.ty, r.ty),
                ));
            }
            let ty = l.ty.clone();
            return Ok(Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty));
        }
        // Operands of one type; the literal side takes the other side's type.
        let operand_expected = if op.is_comparison() { None } else { expected };
        let (l, r) = if is_untyped_literal(self, &b.left) && !is_untyped_literal(self, &b.right) {
            let r = self.scalar_operand(&b.right, operand_expected)?;
            let l = self.scalar_operand(&b.left, Some(&r.ty))?;
            (l, r)
        } else {
            let l = self.scalar_operand(&b.left, operand_expected)?;
            let r = self.scalar_operand(&b.right, Some(&l.ty))?;
            (l, r)
        };
        if l.ty != r.ty {
            return Err(Error::new(
                span,
                format!(
                    "mismatched types: `{}` {} `{}`; both operands need the same type (convert one with `as`)",
                    l.ty,
                    op.symbol(),
                    r.ty
                ),
            ));
        }
        let s = scalar_of(&l)
            .ok_or_else(|| Error::new(span, format!("`{}` applies to scalars, found `{}`", op.symbol(), l.ty)))?;
        let ok = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => s.is_numeric(),
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => !s.is_float(),
            _ => true,
        };
        if !ok {
            return Err(Error::new(span, format!("`{}` is not defined for `{s}`", op.symbol())));
        }
        let ty = if op.is_comparison() { bool_t } else { l.ty.clone() };
        Ok(Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty))
    }

    /// An operand of a scalar operator; arrays are rejected with a hint.
    fn scalar_operand(&mut self, e: &syn::Expr, expected: Option<&Type>) -> syn::Result<Expr> {
        let x = self.expr(e, expected)?;
        match &x.ty {
            Type::Elem(_) => Ok(x),
            Type::Array { rank: 0, elem } => {
                Err(Error::new_spanned(e, format!("this is a `Scalar<{elem}>` array; read its element with `.get()`")))
            }
            Type::Array { .. } => Err(Error::new_spanned(
                e,
                format!("operators apply to elements, not to `{}`: use `map` or `zip_with`", x.ty),
            )),
            other => Err(Error::new_spanned(e, format!("operators apply to elements, not to `{other}`"))),
        }
    }

    fn unary(&mut self, u: &syn::ExprUnary, expected: Option<&Type>) -> syn::Result<Expr> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let x = match &*u.expr {
                    // `-2147483648` is in range although `2147483648` is not.
                    syn::Expr::Lit(l) => literal(&l.lit, expected, true)?,
                    other => self.scalar_operand(other, expected)?,
                };
                if !scalar_of(&x).is_some_and(ScalarType::is_signed) {
                    return Err(Error::new_spanned(u.op, format!("cannot negate a value of type `{}`", x.ty)));
                }
                // Fold `-literal` so that `-2147483648i32` and friends stay in range.
                if let ExprKind::Const(Const::Int(v, t)) = x.kind {
                    return Ok(Expr::new(ExprKind::Const(Const::Int(-v, t)), x.ty));
                }
                if let ExprKind::Const(Const::Float(v, t)) = x.kind {
                    return Ok(Expr::new(ExprKind::Const(Const::Float(-v, t)), x.ty));
                }
                let ty = x.ty.clone();
                Ok(Expr::new(ExprKind::Unary(UnaryOp::Neg, Box::new(x)), ty))
            }
            syn::UnOp::Not(_) => {
                let x = self.scalar_operand(&u.expr, expected)?;
                if scalar_of(&x).is_none_or(|s| s.is_float()) {
                    return Err(Error::new_spanned(
                        u.op,
                        format!("`!` applies to `bool` and integers, found `{}`", x.ty),
                    ));
                }
                let ty = x.ty.clone();
                Ok(Expr::new(ExprKind::Unary(UnaryOp::Not, Box::new(x)), ty))
            }
            syn::UnOp::Deref(_) => Err(Error::new_spanned(
                u.op,
                "there are no references inside #[accel]: use the value itself without `*`",
            )),
            _ => Err(Error::new_spanned(u.op, "this operator is not supported inside #[accel]")),
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> syn::Result<Expr> {
        let target = match super::types::elem_type(&c.ty) {
            Ok(ElemType::Scalar(s)) => s,
            _ => {
                return Err(Error::new_spanned(
                    &c.ty,
                    "`as` converts one scalar to another scalar type; convert an array elementwise with `xs.map(|x| x as f32)`",
                ));
            }
        };
        let x = self.scalar_operand(&c.expr, None)?;
        let from = scalar_of(&x)
            .ok_or_else(|| Error::new_spanned(&c.expr, format!("`as` converts scalars, found `{}`", x.ty)))?;
        if target == ScalarType::Bool && from != ScalarType::Bool {
            return Err(Error::new_spanned(
                &c.ty,
                format!("`{from} as bool` is not allowed: compare instead, like `x != 0`"),
            ));
        }
        if from == ScalarType::Bool && target.is_float() {
            return Err(Error::new_spanned(
                &c.ty,
                format!("`bool as {target}` is not allowed: cast to an integer first, or use `if`"),
            ));
        }
        Ok(Expr::new(ExprKind::Cast(Box::new(x), target), Type::scalar(target)))
    }

    fn if_expr(&mut self, i: &syn::ExprIf, expected: Option<&Type>) -> syn::Result<Expr> {
        let bool_t = Type::Elem(ElemType::BOOL);
        let cond = self.expr(&i.cond, Some(&bool_t))?;
        if cond.ty != bool_t {
            let hint =
                if matches!(cond.ty, Type::Array { rank: 0, .. }) { " (read a `Scalar` with `.get()`)" } else { "" };
            return Err(Error::new_spanned(
                &i.cond,
                format!("the condition must be a `bool`, found `{}`{hint}", cond.ty),
            ));
        }
        let Some((_, else_syntax)) = &i.else_branch else {
            return Err(Error::new_spanned(i.if_token, "an `if` without `else` has no value: add an `else` branch"));
        };
        let then = self.block(&i.then_branch, expected)?;
        let els = self.expr(else_syntax, Some(expected.unwrap_or(&then.ty)))?;
        if then.ty != els.ty {
            let hint = if then.ty.is_elem() && els.ty.is_elem() { " (convert one with `as`)" } else { "" };
            return Err(Error::new_spanned(
                else_syntax,
                format!("this `else` branch is `{}` but the `if` branch is `{}`{hint}", els.ty, then.ty),
            ));
        }
        let ty = then.ty.clone();
        Ok(Expr::new(ExprKind::If { cond: Box::new(cond), then: Box::new(then), els: Box::new(els) }, ty))
    }

    fn field(&mut self, f: &syn::ExprField) -> syn::Result<Expr> {
        let syn::Member::Unnamed(index) = &f.member else {
            return Err(Error::new_spanned(
                &f.member,
                "named fields do not exist inside #[accel]: tuples have `.0`, `.1`, ...",
            ));
        };
        let base = self.expr(&f.base, None)?;
        let parts = base.ty.tuple_parts().ok_or_else(|| {
            Error::new_spanned(&f.member, format!("`.{}` needs a tuple, found `{}`", index.index, base.ty))
        })?;
        let i = index.index as usize;
        let ty = parts
            .get(i)
            .cloned()
            .ok_or_else(|| Error::new_spanned(&f.member, format!("`{}` has no field `.{i}`", base.ty)))?;
        Ok(Expr::new(ExprKind::Proj(Box::new(base), i), ty))
    }

    fn index(&mut self, ix: &syn::ExprIndex) -> syn::Result<Expr> {
        // `n[r][c]` on a stencil neighbourhood is resolved at compile time.
        let mut chain = vec![&*ix.index];
        let mut base = &*ix.expr;
        while let syn::Expr::Index(inner) = base {
            chain.push(&*inner.index);
            base = &inner.expr;
        }
        chain.reverse();
        if let syn::Expr::Path(p) = base
            && let Some(id) = p.path.get_ident()
            && let Some(Binding::Neighbourhood { width, rank, points }) = self.lookup(&id.to_string()).cloned()
        {
            if chain.len() != rank {
                return Err(Error::new_spanned(
                    ix,
                    format!("a neighbourhood of rank {rank} takes {rank} index(es), like `{id}{}`", "[1]".repeat(rank)),
                ));
            }
            let mut flat = 0;
            for i in chain {
                let k = const_index(i).filter(|&k| k < width).ok_or_else(|| {
                    Error::new_spanned(i, format!("neighbour indices are constants from 0 to {}", width - 1))
                })?;
                flat = flat * width + k;
            }
            return Ok(points[flat].clone());
        }
        if chain.len() > 1 {
            return Err(Error::new_spanned(ix, "index a matrix with one index tuple, like `m[(row, col)]`"));
        }
        let array = self.expr(base, None)?;
        let Type::Array { elem, rank } = array.ty.clone() else {
            return Err(Error::new_spanned(base, format!("only arrays can be indexed, found `{}`", array.ty)));
        };
        let index = self.index_value(&ix.index, rank)?;
        let site = self.source_read(base, syn::spanned::Spanned::span(ix));
        Ok(Expr::new(ExprKind::Index { array: Box::new(array), index: Box::new(index), site }, Type::Elem(elem)))
    }

    /// An index of the given rank: `i`, `(i, j)` or `[i, j]`.
    pub(super) fn index_value(&mut self, e: &syn::Expr, rank: usize) -> syn::Result<Expr> {
        let want = Type::Elem(ElemType::index(rank));
        let parts = components(e);
        let value = match parts {
            Some(parts) if parts.len() == rank && rank != 1 => {
                let usize_t = Type::Elem(ElemType::USIZE);
                let xs = parts.into_iter().map(|p| self.expr(p, Some(&usize_t))).collect::<syn::Result<Vec<_>>>()?;
                Expr::new(ExprKind::Tuple(xs), want.clone())
            }
            Some(parts) if rank == 1 && parts.len() == 1 => self.expr(parts[0], Some(&want))?,
            _ => self.expr(e, Some(&want))?,
        };
        if value.ty != want {
            let components = |t: &Type| match t {
                Type::Elem(ElemType::Tuple(ts)) => ts.len(),
                _ => 1,
            };
            let hint = if components(&value.ty) == components(&want) {
                " (convert with `as usize`)".to_string()
            } else {
                match rank {
                    0 => " (a `Scalar` has no index: read it with `.get()`)".to_string(),
                    1 => " (a vector takes one index)".to_string(),
                    r => format!(" (a rank-{r} array takes a tuple of {r} indices, like `m[(row, col)]`)"),
                }
            };
            return Err(Error::new_spanned(
                e,
                format!("an index of a rank-{rank} array is `{}`, found `{}`{hint}", ElemType::index(rank), value.ty),
            ));
        }
        Ok(value)
    }

    /// A shape: `n`, `(rows, cols)`, `[rows, cols]` or an array's `.shape()`. Returns the rank.
    pub(super) fn shape_value(&mut self, e: &syn::Expr) -> syn::Result<(Expr, usize)> {
        let usize_t = Type::Elem(ElemType::USIZE);
        let parts = components(e);
        if let Some(parts) = parts {
            if parts.len() > 3 {
                return Err(Error::new_spanned(e, "arrays have rank 0 to 3"));
            }
            if parts.len() == 1 {
                let x = self.expr(parts[0], Some(&usize_t))?;
                return self.check_shape(x, e);
            }
            let xs = parts.into_iter().map(|p| self.expr(p, Some(&usize_t))).collect::<syn::Result<Vec<_>>>()?;
            let ty = Type::tuple(xs.iter().map(|x| x.ty.clone()).collect());
            return self.check_shape(Expr::new(ExprKind::Tuple(xs), ty), e);
        }
        let x = self.expr(e, Some(&usize_t))?;
        self.check_shape(x, e)
    }

    fn check_shape(&self, x: Expr, e: &syn::Expr) -> syn::Result<(Expr, usize)> {
        let rank = match &x.ty {
            Type::Elem(ElemType::Scalar(ScalarType::Usize)) => Some(1),
            Type::Elem(ElemType::Tuple(ts))
                if ts.len() != 1 && ts.len() <= 3 && ts.iter().all(|t| *t == ElemType::USIZE) =>
            {
                Some(ts.len())
            }
            _ => None,
        };
        match rank {
            Some(r) => Ok((x, r)),
            None => Err(Error::new_spanned(
                e,
                format!(
                    "a shape is a `usize` (a vector), `(usize, usize)` (a matrix) or `(usize, usize, usize)`, found `{}`",
                    x.ty
                ),
            )),
        }
    }
}

/// The components of `[a, b]` or `(a, b)`, the literal forms of shapes and indices.
fn components(e: &syn::Expr) -> Option<Vec<&syn::Expr>> {
    match e {
        syn::Expr::Array(a) => Some(a.elems.iter().collect()),
        syn::Expr::Tuple(t) => Some(t.elems.iter().collect()),
        _ => None,
    }
}

fn macro_error(m: &syn::Macro) -> Error {
    Error::new_spanned(
        m,
        "macros are not supported inside #[accel]: remove `println!`/`dbg!` (inspect results on the host), and pass data such as `vec![..]` as a parameter",
    )
}

/// The closure an expression is, through parentheses.
pub(super) fn as_closure(e: &syn::Expr) -> Option<&syn::ExprClosure> {
    match e {
        syn::Expr::Closure(c) => Some(c),
        syn::Expr::Paren(p) => as_closure(&p.expr),
        _ => None,
    }
}

fn statement_error(e: &syn::Expr) -> Error {
    match e {
        syn::Expr::Assign(_)
        | syn::Expr::Binary(_)
        | syn::Expr::ForLoop(_)
        | syn::Expr::While(_)
        | syn::Expr::Loop(_)
        | syn::Expr::Return(_)
        | syn::Expr::Try(_)
        | syn::Expr::Break(_)
        | syn::Expr::Continue(_)
        | syn::Expr::Macro(_) => {
            // Lowering it gives the specific message (mutation, loops, ...).
            let mut lw = Lowerer::default();
            match lw.expr(e, None) {
                Err(err) => err,
                Ok(_) => Error::new_spanned(
                    e,
                    "a statement without `let` has no effect inside #[accel]: bind it with `let` or make it the last expression",
                ),
            }
        }
        _ => Error::new_spanned(
            e,
            "a statement without `let` has no effect inside #[accel]: bind it with `let` or make it the last expression (without `;`)",
        ),
    }
}

/// Whether an expression is built only from unsuffixed literals (and names bound to such), so
/// that its type comes from the context.
pub(super) fn is_untyped_literal(lw: &Lowerer, e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.suffix().is_empty(),
            syn::Lit::Float(f) => f.suffix().is_empty(),
            _ => false,
        },
        syn::Expr::Paren(p) => is_untyped_literal(lw, &p.expr),
        syn::Expr::Group(g) => is_untyped_literal(lw, &g.expr),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && is_untyped_literal(lw, &u.expr),
        syn::Expr::Binary(b) => {
            !matches!(
                b.op,
                syn::BinOp::Eq(_)
                    | syn::BinOp::Ne(_)
                    | syn::BinOp::Lt(_)
                    | syn::BinOp::Le(_)
                    | syn::BinOp::Gt(_)
                    | syn::BinOp::Ge(_)
                    | syn::BinOp::And(_)
                    | syn::BinOp::Or(_)
            ) && is_untyped_literal(lw, &b.left)
                && is_untyped_literal(lw, &b.right)
        }
        syn::Expr::Path(p) => {
            p.path.get_ident().is_some_and(|id| matches!(lw.lookup(&id.to_string()), Some(Binding::Literal(_))))
        }
        _ => false,
    }
}

fn scalar_of(e: &Expr) -> Option<ScalarType> {
    e.ty.as_elem().and_then(ElemType::as_scalar)
}

fn const_index(e: &syn::Expr) -> Option<usize> {
    match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse().ok(),
        syn::Expr::Paren(p) => const_index(&p.expr),
        _ => None,
    }
}

/// A literal, typed by its suffix, else by the expected type, else as Rust defaults (`i32`, `f64`).
pub(super) fn literal(lit: &syn::Lit, expected: Option<&Type>, negated: bool) -> syn::Result<Expr> {
    let want = expected.and_then(Type::as_elem).and_then(ElemType::as_scalar);
    let constant = match lit {
        syn::Lit::Bool(b) => Const::Bool(b.value),
        syn::Lit::Int(i) => {
            let t = match i.suffix() {
                "" => match want {
                    Some(t) if t.is_integer() => t,
                    Some(t) if t.is_float() => {
                        return Err(Error::new_spanned(
                            i,
                            format!("expected `{t}`, found an integer literal: write `{}.0`", i.base10_digits()),
                        ));
                    }
                    _ => ScalarType::I32,
                },
                s => ScalarType::from_rust_name(s)
                    .ok_or_else(|| Error::new_spanned(i, format!("unsupported literal suffix `{s}`")))?,
            };
            if t.is_float() {
                let v: f64 = i.base10_parse()?;
                Const::Float(v, t)
            } else {
                let v: i128 = i.base10_parse()?;
                if !int_fits(v, t, negated) {
                    return Err(Error::new_spanned(i, format!("literal out of range for `{t}`")));
                }
                Const::Int(v, t)
            }
        }
        syn::Lit::Float(f) => {
            let t = match f.suffix() {
                "" => match want {
                    Some(t) if t.is_float() => t,
                    Some(t) if t.is_numeric() => {
                        return Err(Error::new_spanned(
                            f,
                            format!(
                                "expected `{t}`, found a float literal: write an integer, or convert the other operand with `as f64`"
                            ),
                        ));
                    }
                    _ => ScalarType::F64,
                },
                "f32" => ScalarType::F32,
                "f64" => ScalarType::F64,
                s => return Err(Error::new_spanned(f, format!("unsupported literal suffix `{s}`"))),
            };
            let v: f64 = f.base10_parse()?;
            let finite = if t == ScalarType::F32 { (v as f32).is_finite() } else { v.is_finite() };
            if !finite {
                return Err(Error::new_spanned(
                    f,
                    format!("literal out of range for `{t}`; write `{t}::INFINITY` for infinity"),
                ));
            }
            Const::Float(v, t)
        }
        other => {
            return Err(Error::new_spanned(other, "only numeric and boolean literals are supported inside #[accel]"));
        }
    };
    Ok(Expr::new(ExprKind::Const(constant), Type::scalar(constant.scalar_type())))
}

fn int_fits(v: i128, t: ScalarType, negated: bool) -> bool {
    // Literals are non-negative here; a negated one may reach MIN = -(MAX + 1), and Rust has no
    // negative literal of an unsigned type.
    let Some((lo, hi)) = t.int_range() else { return false };
    if negated { t.is_signed() && v <= -lo } else { v <= hi }
}

/// `f32::MAX`, `i32::MIN`, `f64::INFINITY`, `std::f32::consts::PI`, ...
fn named_constant(p: &syn::ExprPath) -> syn::Result<Expr> {
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let err = || {
        Error::new_spanned(
            p,
            format!(
                "cannot find `{}` in this #[accel] function: only parameters, `let` bindings and constants like `f32::MAX` or `std::f32::consts::PI` are in scope",
                segs.join("::")
            ),
        )
    };
    let skip = usize::from(matches!(segs.first().map(String::as_str), Some("std" | "core")));
    let rest = &segs[skip..];
    let (ty, name) = match rest {
        [t, name] => (t, name),
        [t, consts, name] if consts == "consts" => (t, name),
        _ => return Err(err()),
    };
    let t = ScalarType::from_rust_name(ty).ok_or_else(err)?;
    let float = |v: f64| -> syn::Result<Expr> {
        if !t.is_float() {
            return Err(err());
        }
        let v = if t == ScalarType::F32 { v as f32 as f64 } else { v };
        Ok(Expr::new(ExprKind::Const(Const::Float(v, t)), Type::scalar(t)))
    };
    use std::f64::consts as c;
    match name.as_str() {
        "MAX" | "MIN" if t.is_integer() => {
            let (lo, hi) = t.int_range().expect("an integer type has a range");
            let v = if name == "MAX" { hi } else { lo };
            Ok(Expr::new(ExprKind::Const(Const::Int(v, t)), Type::scalar(t)))
        }
        "MAX" => float(if t == ScalarType::F32 { f32::MAX as f64 } else { f64::MAX }),
        "MIN" => float(if t == ScalarType::F32 { f32::MIN as f64 } else { f64::MIN }),
        "MIN_POSITIVE" => float(if t == ScalarType::F32 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE }),
        "EPSILON" => float(if t == ScalarType::F32 { f32::EPSILON as f64 } else { f64::EPSILON }),
        "INFINITY" => float(f64::INFINITY),
        "NEG_INFINITY" => float(f64::NEG_INFINITY),
        "NAN" => float(f64::NAN),
        "PI" => float(c::PI),
        "TAU" => float(c::TAU),
        "E" => float(c::E),
        "SQRT_2" => float(c::SQRT_2),
        "LN_2" => float(c::LN_2),
        "LN_10" => float(c::LN_10),
        "FRAC_1_SQRT_2" => float(c::FRAC_1_SQRT_2),
        "FRAC_PI_2" => float(c::FRAC_PI_2),
        _ => Err(err()),
    }
}

#[cfg(test)]
mod tests {
    use crate::interp;
    use crate::value::{ElemValue, ScalarValue, Value};

    /// The value of a program of no arguments, or the front end's error.
    fn eval(result: &str, body: &str) -> Result<ScalarValue, String> {
        let src = format!("fn f() -> Scalar<{result}> {{ unit({body}) }}");
        let program = crate::frontend::lower(&syn::parse_str(&src).unwrap()).map_err(|e| e.to_string())?;
        match interp::eval(&program, vec![]).map_err(|e| e.to_string())? {
            Value::Array(a) => match a.data[..] {
                [ElemValue::Scalar(s)] => Ok(s),
                _ => panic!("not a scalar: {a:?}"),
            },
            other => panic!("not an array: {other:?}"),
        }
    }

    #[test]
    fn small_integer_literals_constants_and_casts() {
        assert_eq!(eval("u8", "200u8 + 100"), Ok(ScalarValue::U8(44)));
        assert_eq!(eval("i8", "-128i8"), Ok(ScalarValue::I8(i8::MIN)));
        assert_eq!(eval("i16", "i16::MIN + 1"), Ok(ScalarValue::I16(i16::MIN + 1)));
        assert_eq!(eval("u16", "u16::MAX"), Ok(ScalarValue::U16(u16::MAX)));
        assert_eq!(eval("u16", "-1i8 as u16"), Ok(ScalarValue::U16(u16::MAX)));
        assert_eq!(eval("u8", "300.7f32 as u8"), Ok(ScalarValue::U8(u8::MAX)));
        assert_eq!(eval("i8", "(200u8 as i16 - 128) as i8"), Ok(ScalarValue::I8(72)));
        assert_eq!(eval("u32", "255u8.count_ones()"), Ok(ScalarValue::U32(8)));
        let out_of_range = |r: Result<ScalarValue, String>| r.is_err_and(|e| e.contains("out of range"));
        assert!(out_of_range(eval("u8", "256u8")));
        assert!(out_of_range(eval("i8", "-129i8")));
        assert!(out_of_range(eval("u8", "3u8 + 300")));
        assert!(eval("u16", "-1u16").is_err());
        assert!(eval("u16", "1u8 + 1u16").is_err_and(|e| e.contains("as")));
    }
}
