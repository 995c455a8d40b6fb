//! Calls of other `#[accel]` functions, inlined: the callee's body lowered in place, in a scope
//! of its own parameters, bound to the caller's arguments.
//!
//! An argument that is a variable binds the parameter to that variable (no copy, and a read of an
//! array inside a closure stays a read of the caller's array); any other argument is computed
//! once, by a `let`, before the body. The callee's result is an expression of the caller like any
//! other, so fusion crosses the call. A callee inside a closure must be scalar code (its
//! collective operations would be nested parallelism, reported as such). A function that reaches
//! itself through calls is an error: inlining would not end.

use super::{Binding, Lowerer, Scope};
use crate::ir::{Expr, ExprKind, Var};
use crate::library::{Entry, Kind};
use crate::types::Type;
use proc_macro2::Span;
use syn::Error;

/// Where code lowered in place was written: the file and module its names resolve from, and the
/// name it is known by (for cycles and errors), when it is an item of the library.
pub(super) struct Item<'a> {
    entry: &'a Entry,
    name: String,
}

impl Lowerer<'_> {
    /// Runs `f` as the lowering of code written elsewhere: seeing only the names of `scope` and,
    /// for an `item` of the library, resolving names from its file and module, with the item on
    /// the stack of what is being inlined. The caller's scope, file and module come back after.
    pub(super) fn elsewhere<T>(&mut self, scope: Scope, item: Option<Item<'_>>, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer_scope = std::mem::replace(&mut self.scope, scope);
        let outer_place = item.map(|Item { entry, name }| {
            self.calls.push(name);
            let module = entry.path[..entry.path.len() - 1].to_vec();
            (std::mem::replace(&mut self.from, entry.file.clone()), std::mem::replace(&mut self.module, module))
        });
        let out = f(self);
        self.scope = outer_scope;
        if let Some((file, module)) = outer_place {
            self.calls.pop();
            self.from = file;
            self.module = module;
        }
        out
    }

    /// Records that the function being lowered names `entry` by `path` (see
    /// `Lowered::referenced`), when Rust reads the path so from the function's module.
    fn note_reference(&mut self, entry: &Entry, path: &[String]) {
        let top_level = self.calls.len() == 1;
        if top_level
            && entry.path == self.library.rust_reading(path, &self.from, &self.module)
            && !self.referenced.iter().any(|r| r == path)
        {
            self.referenced.push(path.to_vec());
        }
    }

    /// `callee(args..)` at `span`, the callee named by `path`.
    pub(super) fn inline_call(
        &mut self,
        callee: &Entry,
        path: &[String],
        call: &syn::ExprCall,
        span: Span,
    ) -> syn::Result<Expr> {
        self.note_reference(callee, path);
        let name = callee.path.join("::");
        if let Some(at) = self.calls.iter().position(|c| *c == name) {
            let mut cycle = self.calls[at..].to_vec();
            cycle.push(name.clone());
            return Err(Error::new(
                span,
                format!(
                    "`{name}` calls itself ({}): calls between #[accel] functions are inlined at build time, so recursion would never end; write the repetition with `iterate`, `while_loop` or `awhile`",
                    cycle.join(" -> ")
                ),
            ));
        }
        let in_callee = |e: Error| Error::new(span, format!("in `{name}`, called here: {e}"));
        let item = callee.item().map_err(in_callee)?;
        let signature = super::signature(&item).map_err(in_callee)?;
        if call.args.len() != signature.params.len() {
            return Err(Error::new(
                span,
                format!("`{name}` takes {} argument(s), found {}", signature.params.len(), call.args.len()),
            ));
        }
        // The arguments, in the caller's scope.
        let mut bindings = Vec::new();
        let mut lets = Vec::new();
        for (arg, (param, ty)) in call.args.iter().zip(&signature.params) {
            let value = self.expr(arg, Some(ty))?;
            let value = self.expect_type(value, ty, arg)?;
            let var = match &value.kind {
                ExprKind::Var(v) => v.clone(),
                _ => {
                    let var = self.fresh(param);
                    lets.push((var.clone(), value));
                    var
                }
            };
            bindings.push((param.clone(), Binding::Value(var, ty.clone())));
        }
        // The body, seeing only its parameters, its calls resolved from its own module, its
        // reads reported at the outermost call.
        let outermost = self.inlined_at.is_none();
        if outermost {
            self.inlined_at = Some(super::position(span));
        }
        let body = self.elsewhere(bindings, Some(Item { entry: callee, name: name.clone() }), |lw| {
            let body = lw.block(&item.block, Some(&signature.result))?;
            lw.expect_type(body, &signature.result, super::tail_expr(&item.block))
        });
        if outermost {
            self.inlined_at = None;
        }
        let mut body = body.map_err(in_callee)?;
        for (var, value) in lets.into_iter().rev() {
            let ty: Type = body.ty.clone();
            body = Expr::new(ExprKind::Let { var, value: Box::new(value), body: Box::new(body) }, ty);
        }
        Ok(body)
    }

    /// The value of the package's `const` item that `path` names, or `None` when there is none.
    /// Its expression is lowered where it is named, at its declared type, seeing only other
    /// constants (resolved from its own module).
    pub(super) fn library_const(&mut self, path: &[String], span: Span) -> syn::Result<Option<Expr>> {
        let library = self.library;
        let Some(entry) =
            library.resolve(Kind::Const, path, &self.from, &self.module).map_err(|e| Error::new(span, e))?
        else {
            return Ok(None);
        };
        self.note_reference(entry, path);
        let name = format!("const {}", entry.path.join("::"));
        if self.calls.contains(&name) {
            return Err(Error::new(span, format!("`{}` is defined by itself", entry.path.join("::"))));
        }
        let in_const = |e: Error| Error::new(span, format!("in `{}`, named here: {e}", entry.path.join("::")));
        let item = entry.const_item().map_err(in_const)?;
        let ty = super::types::value_type(&item.ty).map_err(in_const)?;
        if !ty.is_elem() {
            return Err(in_const(Error::new(
                span,
                format!("a constant of #[accel] code is a scalar or a tuple of scalars, not `{ty}`"),
            )));
        }
        let value = self.elsewhere(Scope::new(), Some(Item { entry, name }), |lw| {
            let value = lw.expr(&item.expr, Some(&ty))?;
            lw.expect_type(value, &ty, &item.expr)
        });
        value.map(Some).map_err(in_const)
    }

    /// A `const` item inside a body: a value of its declared type, computed from constants only.
    pub(super) fn local_const(&mut self, item: &syn::ItemConst, lets: &mut Vec<(Var, Expr)>) -> syn::Result<()> {
        let ty = super::types::value_type(&item.ty)?;
        if !ty.is_elem() {
            return Err(Error::new_spanned(
                &item.ty,
                format!("a constant of #[accel] code is a scalar or a tuple of scalars, not `{ty}`"),
            ));
        }
        // A constant sees the constants before it, not the function's values.
        let constants: Scope = self.scope.iter().filter(|(_, b)| matches!(b, Binding::Constant(..))).cloned().collect();
        let value = self.elsewhere(constants, None, |lw| {
            let value = lw.expr(&item.expr, Some(&ty))?;
            lw.expect_type(value, &ty, &item.expr)
        })?;
        let var = self.fresh(&item.ident.to_string());
        self.scope.push((item.ident.to_string(), Binding::Constant(var.clone(), ty)));
        lets.push((var, value));
        Ok(())
    }

    /// `f(args..)` of a closure `f` bound by `let`: its body lowered in the scope of its
    /// definition, its parameters bound to the arguments.
    pub(super) fn call_closure(
        &mut self,
        name: &str,
        closure: &syn::ExprClosure,
        scope: Scope,
        call: &syn::ExprCall,
    ) -> syn::Result<Expr> {
        if call.args.len() != closure.inputs.len() {
            return Err(Error::new_spanned(
                &call.args,
                format!("the closure `{name}` takes {} argument(s), found {}", closure.inputs.len(), call.args.len()),
            ));
        }
        let mut values = Vec::new();
        for (arg, pat) in call.args.iter().zip(&closure.inputs) {
            let declared = match pat {
                syn::Pat::Type(pt) => Some(super::types::value_type(&pt.ty)?),
                _ => None,
            };
            let value = self.expr(arg, declared.as_ref())?;
            let value = match &declared {
                Some(t) => self.expect_type(value, t, arg)?,
                None => value,
            };
            values.push(value);
        }
        let mut lets = Vec::new();
        let mut body = self.elsewhere(scope, None, |lw| {
            for (pat, value) in closure.inputs.iter().zip(values) {
                let pat = match pat {
                    syn::Pat::Type(pt) => &*pt.pat,
                    p => p,
                };
                match (pat, &value.kind) {
                    (syn::Pat::Ident(pi), ExprKind::Var(v)) if pi.mutability.is_none() => {
                        lw.scope.push((pi.ident.to_string(), Binding::Value(v.clone(), value.ty.clone())));
                    }
                    _ => lw.bind_pattern(pat, value, &mut lets)?,
                }
            }
            lw.expr(&closure.body, None)
        })?;
        for (var, value) in lets.into_iter().rev() {
            let ty: Type = body.ty.clone();
            body = Expr::new(ExprKind::Let { var, value: Box::new(value), body: Box::new(body) }, ty);
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use crate::interp;
    use crate::library::{Kind, Library};
    use crate::pipeline::{Options, compile_calling};
    use crate::plan::Plan;
    use crate::types::{ElemType, ScalarType};
    use crate::value::{ArrayValue, ElemValue, ScalarValue, Value};
    use std::path::Path;

    const SOURCE: &str = r#"
        mod stats {
            #[accel]
            pub fn squares(xs: Vector<f32>) -> Vector<f32> {
                xs.map(|x| x * x)
            }

            #[accel]
            pub fn sum_of_squares(xs: Vector<f32>) -> Scalar<f32> {
                squares(xs).sum()
            }
        }

        #[accel]
        fn mix(x: u32) -> u32 {
            let h = x ^ (x >> 3);
            h.wrapping_mul(7)
        }

        #[accel]
        fn hashed(xs: Vector<u32>) -> Vector<u32> {
            xs.map(|x| mix(mix(x)) + 1)
        }

        #[accel]
        fn norm(xs: Vector<f32>) -> Scalar<f32> {
            let s = crate::stats::sum_of_squares(xs.map(|x| x + 1.0));
            unit(s.get().sqrt())
        }

        #[accel]
        fn shadowed(xs: Vector<f32>, x: f32) -> Vector<f32> {
            let squares = 2.0;
            stats::squares(xs).map(|y| y * squares + x)
        }

        #[accel]
        fn ping(xs: Vector<f32>) -> Vector<f32> {
            pong(xs)
        }

        #[accel]
        fn pong(xs: Vector<f32>) -> Vector<f32> {
            ping(xs)
        }

        #[accel]
        fn collective_in_closure(xs: Vector<f32>) -> Vector<f32> {
            xs.map(|x| stats::sum_of_squares(xs).get() + x)
        }

        #[accel]
        fn wrong_argument(xs: Vector<i32>) -> Vector<f32> {
            stats::squares(xs)
        }

        mod other {
            #[accel]
            fn mix(x: u32) -> u32 {
                x
            }
        }

        const SCALE: f32 = 2.5;

        mod units {
            pub const OFFSET: f32 = super::SCALE * 2.0;
        }

        #[accel]
        fn closures_and_consts(xs: Vector<f32>, k: f32) -> Vector<f32> {
            const HALF: f32 = 0.5;
            const QUARTER: f32 = HALF * HALF;
            let scale = |x: f32| x * k * SCALE;
            let k = 100.0;
            let shifted = |x| scale(x) + units::OFFSET + QUARTER;
            xs.map(shifted).map(|y| y + k * 0.0)
        }

        #[accel]
        fn const_of_a_value(xs: Vector<f32>, k: f32) -> Vector<f32> {
            const TWICE: f32 = k * 2.0;
            xs.map(|x| x * TWICE)
        }

        #[accel]
        fn closure_as_a_value(xs: Vector<f32>) -> Vector<f32> {
            let f = |x: f32| x + 1.0;
            let g = f;
            xs.map(g)
        }
    "#;

    fn library() -> Library {
        let mut library = Library::default();
        library.add_source(&[], Path::new("lib.rs"), SOURCE);
        library
    }

    fn compile(name: &str) -> syn::Result<crate::pipeline::Compiled> {
        let library = library();
        let entry = library.functions().find(|e| e.name() == name).expect("the function is in the source");
        compile_calling(&entry.item().unwrap(), Options::default(), &library, Path::new("lib.rs"))
    }

    fn vector<T: Copy>(xs: &[T], s: ScalarType, f: fn(T) -> ScalarValue) -> Value {
        let data = xs.iter().map(|&x| ElemValue::Scalar(f(x))).collect();
        Value::Array(ArrayValue::new(ElemType::Scalar(s), vec![xs.len()], data).unwrap())
    }

    fn floats(v: Value) -> Vec<f32> {
        let a = v.into_array().expect("an array");
        a.data
            .iter()
            .map(|e| match e {
                ElemValue::Scalar(ScalarValue::F32(x)) => *x,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn calls_inline_across_modules_and_fuse() {
        let c = compile("norm").unwrap();
        let xs = vector(&[1.0f32, 2.0, -3.0], ScalarType::F32, ScalarValue::F32);
        let out = interp::eval(&c.program, vec![xs]).unwrap();
        // sqrt(2^2 + 3^2 + (-2)^2)
        assert_eq!(floats(out), [17.0f32.sqrt()]);
        // The caller's map, the callee's map and its sum are one reduction kernel.
        assert_eq!(Plan::build(&c.optimised).kernels().count(), 1, "{}", Plan::build(&c.optimised));
    }

    #[test]
    fn scalar_helpers_inline_into_closures() {
        let c = compile("hashed").unwrap();
        let xs = vector(&[0u32, 5, 1 << 31], ScalarType::U32, ScalarValue::U32);
        let mix = |x: u32| (x ^ (x >> 3)).wrapping_mul(7);
        let want: Vec<ElemValue> = [0u32, 5, 1 << 31]
            .iter()
            .map(|&x| ElemValue::Scalar(ScalarValue::U32(mix(mix(x)).wrapping_add(1))))
            .collect();
        let out = interp::eval(&c.program, vec![xs]).unwrap().into_array().unwrap();
        assert_eq!(out.data, want);
    }

    #[test]
    fn a_callee_sees_only_its_parameters() {
        // `squares` names a caller's `let` and the callee: the call still reaches the function,
        // and the callee's `x` is not the caller's.
        let c = compile("shadowed").unwrap();
        let xs = vector(&[3.0f32], ScalarType::F32, ScalarValue::F32);
        let out = interp::eval(&c.program, vec![xs, Value::Elem(ElemValue::Scalar(ScalarValue::F32(0.5)))]).unwrap();
        assert_eq!(floats(out), [18.5]);
    }

    #[test]
    fn let_bound_closures_and_consts() {
        let c = compile("closures_and_consts").unwrap();
        let xs = vector(&[1.0f32, -4.0], ScalarType::F32, ScalarValue::F32);
        let k = Value::Elem(ElemValue::Scalar(ScalarValue::F32(2.0)));
        // x * 2 * 2.5 + 5 + 0.25: the closure keeps the `k` it saw, the later `k` is 100.
        assert_eq!(floats(interp::eval(&c.program, vec![xs, k]).unwrap()), [10.25, -14.75]);
        let e = compile("const_of_a_value").err().expect("an error").to_string();
        assert!(e.contains("cannot find `k`"), "{e}");
        let e = compile("closure_as_a_value").err().expect("an error").to_string();
        assert!(e.contains("`f` is a closure: pass it to a combinator"), "{e}");
    }

    #[test]
    fn recursion_is_an_error_that_names_the_cycle() {
        let e = compile("ping").err().expect("an error").to_string();
        assert!(e.contains("(ping -> pong -> ping)") && e.contains("`iterate`"), "{e}");
    }

    #[test]
    fn collective_callees_inside_closures_are_nested_parallelism() {
        let e = compile("collective_in_closure").err().expect("an error").to_string();
        assert!(e.contains("in `stats::sum_of_squares`, called here") && e.contains("nested parallelism"), "{e}");
    }

    #[test]
    fn arguments_are_checked_against_the_callee_signature() {
        let e = compile("wrong_argument").err().expect("an error").to_string();
        assert!(e.contains("expected `Vector<f32>`, found `Vector<i32>`"), "{e}");
    }

    #[test]
    fn names_resolve_by_module_path_preferring_the_callers_file() {
        let library = library();
        let path = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
        let found = |p: &str, from: &str, module: &[&str]| {
            let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
            library.resolve(Kind::Function, &path(p), Path::new(from), &module).map(|e| e.map(|e| e.path.join("::")))
        };
        assert_eq!(found("stats::squares", "lib.rs", &[]), Ok(Some("stats::squares".into())));
        assert_eq!(found("crate::stats::squares", "lib.rs", &["other"]), Ok(Some("stats::squares".into())));
        assert_eq!(found("squares", "lib.rs", &["stats"]), Ok(Some("stats::squares".into())));
        assert_eq!(found("nothing", "lib.rs", &[]), Ok(None));
        // Two `mix`: Rust's reading of the path picks one, from either module.
        assert_eq!(found("mix", "lib.rs", &[]), Ok(Some("mix".into())));
        assert_eq!(found("mix", "lib.rs", &["other"]), Ok(Some("other::mix".into())));
        assert_eq!(found("super::mix", "lib.rs", &["other"]), Ok(Some("mix".into())));
        assert_eq!(found("other::mix", "lib.rs", &["stats"]), Ok(Some("other::mix".into())));
        // Seen from a module where neither is in scope, the name alone is ambiguous.
        assert!(found("mix", "lib.rs", &["stats"]).unwrap_err().contains("several"));
        assert!(found("mix", "elsewhere.rs", &["x"]).unwrap_err().contains("several"));
    }
}
