//! The IR as readable text (`ACCEL_DUMP=ir,fused` and the documentation show it): close to the
//! source language, one `let` per line, variables with their ids (`xs#0`) because the passes
//! may repeat names.
//!
//! ```text
//! fn dotp(xs#0: Vector<f32>, ys#1: Vector<f32>) -> Scalar<f32> =
//!   fold_all(0.0f32, |a#4, b#5| a#4 + b#5,
//!     generate[zip_with](min(shape(xs#0), shape(ys#1)), |ix#7| let x#2 = xs#0[ix#7]; ...))
//! ```

use super::{ArrayOp, Boundary, Const, Expr, ExprKind, Lambda, Program, ReadSite, UnaryOp, Var};
use std::fmt::{self, Write as _};

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = self.params.iter().map(|(v, t)| format!("{}: {t}", name(v))).collect();
        writeln!(f, "fn {}({}) -> {} =", self.name, params.join(", "), self.result_type())?;
        let mut out = String::new();
        Printer { out: &mut out, indent: 1 }.expr(&self.body);
        writeln!(f, "  {out}")
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        Printer { out: &mut out, indent: 0 }.expr(self);
        f.write_str(&out)
    }
}

fn name(v: &Var) -> String {
    format!("{}#{}", v.name.trim_start_matches("r#"), v.id)
}

struct Printer<'a> {
    out: &'a mut String,
    indent: usize,
}

impl Printer<'_> {
    fn text(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn list(&mut self, es: &[&Expr]) {
        for (i, e) in es.iter().enumerate() {
            if i > 0 {
                self.text(", ");
            }
            self.expr(e);
        }
    }

    fn lambda(&mut self, l: &Lambda) {
        let ps: Vec<String> = l.params.iter().map(|(v, _)| name(v)).collect();
        let _ = write!(self.out, "|{}| ", ps.join(", "));
        self.indent += 1;
        self.expr(&l.body);
        self.indent -= 1;
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) => self.text(&name(v)),
            ExprKind::Const(c) => self.text(&match c {
                Const::Bool(b) => b.to_string(),
                Const::Int(v, t) => format!("{v}{t}"),
                Const::Float(v, t) => format!("{v:?}{t}"),
            }),
            ExprKind::Let { var, value, body } => {
                let _ = write!(self.out, "let {} = ", name(var));
                self.expr(value);
                self.text(";");
                self.newline();
                self.expr(body);
            }
            ExprKind::Tuple(parts) => {
                self.text("(");
                self.list(&parts.iter().collect::<Vec<_>>());
                self.text(if parts.len() == 1 { ",)" } else { ")" });
            }
            ExprKind::Proj(x, i) => {
                self.expr(x);
                let _ = write!(self.out, ".{i}");
            }
            ExprKind::If { cond, then, els } => {
                self.text("if ");
                self.expr(cond);
                self.text(" { ");
                self.expr(then);
                self.text(" } else { ");
                self.expr(els);
                self.text(" }");
            }
            ExprKind::Unary(op, x) => {
                self.text(if *op == UnaryOp::Neg { "-" } else { "!" });
                self.expr(x);
            }
            ExprKind::Binary(op, a, b) if op.is_method() => {
                self.expr(a);
                let _ = write!(self.out, ".{}(", op.symbol());
                self.expr(b);
                self.text(")");
            }
            ExprKind::Binary(op, a, b) => {
                self.text("(");
                self.expr(a);
                let _ = write!(self.out, " {} ", op.symbol());
                self.expr(b);
                self.text(")");
            }
            ExprKind::Cast(x, t) => {
                self.text("(");
                self.expr(x);
                let _ = write!(self.out, " as {t})");
            }
            ExprKind::Math(m, args) => {
                let _ = write!(self.out, "{}(", m.method_name());
                self.list(&args.iter().collect::<Vec<_>>());
                self.text(")");
            }
            ExprKind::Index { array, index, site } => {
                self.expr(array);
                self.text("[");
                self.expr(index);
                self.text(if *site == ReadSite::Backpermute { "]@backpermute" } else { "]" });
            }
            ExprKind::Shape(a) => {
                self.text("shape(");
                self.expr(a);
                self.text(")");
            }
            ExprKind::Len(a) => {
                self.text("len(");
                self.expr(a);
                self.text(")");
            }
            ExprKind::SegmentOf { segments, index } => {
                self.text("segment_of(");
                self.expr(segments);
                self.text(", ");
                self.expr(index);
                self.text(")");
            }
            ExprKind::Iterate { count, init, f } => {
                self.text("iterate(");
                self.list(&[count, init]);
                self.text(", ");
                self.lambda(f);
                self.text(")");
            }
            ExprKind::WhileLoop { init, cond, step } => {
                self.text("while_loop(");
                self.expr(init);
                self.text(", ");
                self.lambda(cond);
                self.text(", ");
                self.lambda(step);
                self.text(")");
            }
            ExprKind::Array(op) => self.op(op),
        }
    }

    /// `name(operands, closures)`, the operands first, a delayed `generate` with the
    /// combinators it stands for (`generate[map, zip_with]`).
    fn op(&mut self, op: &ArrayOp) {
        match op {
            ArrayOp::Generate { from, .. } if !from.is_empty() => {
                let _ = write!(self.out, "generate[{}](", from.join(", "));
            }
            _ => {
                let _ = write!(self.out, "{}(", op.name());
            }
        }
        let mut first = true;
        self.indent += 1;
        super::visit::for_each_operand(op, &mut |child, bound, _| {
            let params = match bound {
                super::visit::Bound::Params(ps) => ps,
                super::visit::Bound::Nothing | super::visit::Bound::Let(..) => &[],
            };
            if !first {
                // Closures and nested operations on lines of their own, small operands inline.
                if params.is_empty() && !matches!(child.kind, ExprKind::Array(_) | ExprKind::Let { .. }) {
                    self.text(", ");
                } else {
                    self.text(",");
                    self.newline();
                }
            }
            first = false;
            if params.is_empty() {
                self.expr(child);
            } else {
                let ps: Vec<String> = params.iter().map(|(v, _)| name(v)).collect();
                let _ = write!(self.out, "|{}| ", ps.join(", "));
                self.indent += 1;
                self.expr(child);
                self.indent -= 1;
            }
        });
        if let ArrayOp::Stencil { boundary, .. } = op
            && !matches!(boundary, Boundary::Constant(_))
        {
            let _ = write!(self.out, ", {boundary:?}");
        }
        self.indent -= 1;
        self.text(")");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn programs_print_like_source() {
        let item: syn::ItemFn = syn::parse_str(
            "fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> { let p = xs.zip_with(ys, |x, y| x * y); p.fold_all(0.0, |a, b| a + b) }",
        )
        .unwrap();
        let text = crate::frontend::lower(&item).unwrap().to_string();
        assert!(text.starts_with("fn dotp(xs#1: Vector<f32>, ys#2: Vector<f32>) -> Scalar<f32> =\n  let p#"), "{text}");
        assert!(text.contains("zip_with(xs#1, ys#2,\n") && text.contains("|x#3, y#4| (x#3 * y#4)"), "{text}");
        assert!(text.contains("fold_all(0.0f32, p#5,"), "{text}");
    }
}
