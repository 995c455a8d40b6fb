//! The executable schedule of a program: the steps a device backend's host takes to run it, in
//! order, worked out once per program instead of by walking the IR on every call (newer
//! Accelerate's `UniformSchedule`, DESIGN §5).
//!
//! A program's straight-line part (its `let`s and the operand trees of its collective nodes)
//! becomes a list of steps, each computing one expression from the values of earlier steps:
//!
//! - [`Action::Launch`]: a collective node with kernels ([`kernel::roles`]): allocate its
//!   outputs and launch them (all the launches of its skeleton, with what fusion put into them);
//! - [`Action::Host`]: a node the host computes alone (a unit, a reshape, a read of one
//!   element), scalar code, or control flow (`if`, loops, `awhile`, `&&`), which stays one step
//!   with everything inside it: the shared evaluator ([`crate::interp::Host`]) runs it and
//!   launches the kernels of the nodes it meets;
//! - [`Action::Bind`] and [`Action::Unbind`]: a `let` binds its variable to an earlier step's
//!   value, and its scope ends after the steps of its body (the value is freed there, as in the
//!   walk).
//!
//! A step reads values of earlier steps in two ways: through its [`Step::operands`], expressions
//! inside its own (an operand of its node, or of the reduction its epilogue rewrites) computed by
//! the step named beside them, each read exactly once, so that an evaluator can free it as soon
//! as its consumer has run; and through the variables of earlier `Bind` steps. What fusion
//! absorbed into a node (a delayed operand) stays inside its step.
//!
//! The steps run in the evaluators' order, and an expression's operands become steps of their
//! own only when everything else the host evaluates for it cannot fail (variables, constants,
//! shapes, arithmetic without an integer division): so a schedule reports the same first error
//! as the walk of the IR. Otherwise the expression is one step, walked with everything inside.
//!
//! The schedule names each launch by its node id ([`kernel::array_nodes`]), so that a stream of
//! chunks, several CUDA streams or several devices can later place steps without another walk,
//! by the steps' operands and variables.
//!
//! ```
//! use accel_core::pipeline::{Options, optimise};
//! use accel_core::schedule::{Action, Schedule};
//! # let program = accel_core::frontend::lower(&syn::parse_quote! {
//! #     fn f(xs: Vector<f32>) -> Scalar<f32> { let ys = xs.map(|x| x * 2.0); ys.sum() }
//! # }).unwrap();
//! let unfused = optimise(&program, Options::UNFUSED);
//! let schedule = Schedule::build(&unfused);
//! let launches = schedule.steps.iter().filter(|s| matches!(s.action, Action::Launch { .. })).count();
//! assert_eq!(launches, 2); // the map and the sum, without fusion
//! println!("{schedule}");
//! ```

use crate::error::Result;
use crate::interp::Host;
use crate::ir::visit::{self, Bound};
use crate::ir::{ArrayOp, BinaryOp, Expr, ExprKind, Program};
use crate::kernel::{self, Param};
use crate::types::{ElemType, ScalarType};
use std::collections::HashMap;
use std::fmt;

/// The position of a step in [`Schedule::steps`]; its value is that step's result.
pub type Slot = usize;

/// What a step does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// Launches the kernels of collective node `node` (its id in kernel names).
    Launch { node: usize },
    /// The host evaluates the step's expression (a node without kernels, scalar code, control
    /// flow), launching the kernels of any node it meets inside.
    Host,
    /// Binds the variable of the step's `let` to the value of step `value`.
    Bind { var: u32, value: Slot },
    /// Ends the scope of the variable of the step's `let` (after the steps of its body).
    Unbind { var: u32 },
}

/// One step: an expression of the program, what to do with it, and the earlier steps whose
/// values stand for some of its children.
#[derive(Clone, Debug)]
pub struct Step<'p> {
    pub expr: &'p Expr,
    pub action: Action,
    /// Expressions inside `expr` (operands of its node, or of the reduction its epilogue
    /// rewrites) already computed, each by the step beside it.
    pub operands: Vec<(&'p Expr, Slot)>,
}

/// The steps of one program, in evaluation order; the last step's value is the program's
/// result.
#[derive(Clone, Debug)]
pub struct Schedule<'p> {
    pub steps: Vec<Step<'p>>,
    /// The step whose value is the program's result.
    pub result: Slot,
}

impl<'p> Schedule<'p> {
    /// The schedule of `program` (normally after the passes: the program the backends run).
    pub fn build(program: &'p Program) -> Schedule<'p> {
        let ids = kernel::array_nodes(program).into_iter().enumerate().map(|(id, op)| (address(op), id)).collect();
        let launched = kernel::launched(program);
        let mut b = Builder { steps: Vec::new(), ids, launched };
        let result = b.expr(&program.body);
        Schedule { steps: b.steps, result }
    }

    /// Runs the steps on `host`, whose environment binds the program's parameters: each step's
    /// operands are handed to the evaluator ahead ([`Host::ahead`]), then the step's expression
    /// is evaluated, or its `let` bound. The program's value, or the first error in evaluation
    /// order. The environment is as it was when this returns.
    pub fn run<H: Host>(&self, host: &mut H) -> Result<H::Value> {
        let mark = host.env().len();
        let result = self.run_steps(host);
        host.env().truncate(mark);
        host.ahead().clear();
        result
    }

    fn run_steps<H: Host>(&self, host: &mut H) -> Result<H::Value> {
        let mut slots: Vec<Option<H::Value>> = (0..self.steps.len()).map(|_| None).collect();
        let take = |slots: &mut Vec<Option<H::Value>>, slot: Slot, host: &H| {
            slots[slot].take().ok_or_else(|| host.ill_typed(format!("step s{slot} of a schedule read twice")))
        };
        for (i, step) in self.steps.iter().enumerate() {
            match step.action {
                Action::Bind { var, value } => {
                    let v = take(&mut slots, value, host)?;
                    host.env().push((var, v));
                }
                Action::Unbind { var } => match host.env().pop() {
                    Some((bound, _)) if bound == var => {}
                    _ => return Err(host.ill_typed(format!("step s{i} of a schedule ends a scope it is not in"))),
                },
                Action::Launch { .. } | Action::Host => {
                    for &(e, slot) in &step.operands {
                        let v = take(&mut slots, slot, host)?;
                        host.ahead().push((e as *const Expr as usize, v));
                    }
                    slots[i] = Some(host.eval(step.expr)?);
                }
            }
        }
        take(&mut slots, self.result, host)
    }
}

struct Builder<'p> {
    steps: Vec<Step<'p>>,
    /// Node ids by the node's address.
    ids: HashMap<usize, usize>,
    /// Per node id, whether it runs ([`kernel::launched`]).
    launched: Vec<bool>,
}

impl<'p> Builder<'p> {
    /// Appends the steps that compute `e`; returns the slot of its value.
    fn expr(&mut self, e: &'p Expr) -> Slot {
        if let ExprKind::Let { var, value, body } = &e.kind {
            let value = self.expr(value);
            self.push(e, Action::Bind { var: var.id, value }, Vec::new());
            let result = self.expr(body);
            // The variable's scope ends with the body, as in the walk: its value is freed here.
            self.push(e, Action::Unbind { var: var.id }, Vec::new());
            return result;
        }
        let mut operands = Vec::new();
        for child in self.operands(e) {
            operands.push((child, self.expr(child)));
        }
        let action = match &e.kind {
            ExprKind::Array(op) if self.has_kernels(op) => Action::Launch { node: self.ids[&address(op)] },
            _ => Action::Host,
        };
        self.push(e, action, operands)
    }

    fn push(&mut self, expr: &'p Expr, action: Action, operands: Vec<(&'p Expr, Slot)>) -> Slot {
        self.steps.push(Step { expr, action, operands });
        self.steps.len() - 1
    }

    /// Whether `op` is a node that runs ([`kernel::launched`]) with kernels of its own.
    fn has_kernels(&self, op: &ArrayOp) -> bool {
        self.runs(op) && !kernel::roles(op).is_empty()
    }

    /// Whether `op` runs: it is not absorbed into another node's kernels.
    fn runs(&self, op: &ArrayOp) -> bool {
        self.ids.get(&address(op)).is_some_and(|&id| self.launched[id])
    }

    /// The children of `e` (or, under an epilogue, of the reduction it rewrites) that are steps
    /// of their own, in the order the evaluators compute them: what the host evaluates for `e`
    /// that runs a collective node.
    ///
    /// - For a node with kernels: the operands its kernels read from memory
    ///   ([`Param::Operand`] of [`kernel::layout`], in the layout's order, which is the
    ///   executor's). A delayed operand is not one: its kernels compute it.
    /// - For a node the host computes alone: its operands outside closure bodies.
    /// - For scalar code that evaluates all its children (a tuple, an operator other than `&&`
    ///   and `||`, a read of one element, ...): its children.
    /// - A conditional or a loop is never split: it stays one step.
    ///
    /// Computing a step's operands first must not change which error is reported first, so they
    /// become steps only when everything else the host evaluates for `e` cannot fail (variables,
    /// constants, shapes, arithmetic without integer division); otherwise `e` is one step.
    fn operands(&self, e: &'p Expr) -> Vec<&'p Expr> {
        let mut candidates = Vec::new();
        let mut others: Vec<&'p Expr> = Vec::new();
        match &e.kind {
            ExprKind::Array(op) if self.has_kernels(op) => {
                let body = kernel::epilogue_source(op).filter(|inner| !self.runs(inner));
                for p in kernel::layout(op, &e.ty) {
                    match p {
                        Param::Operand(x) => candidates.push(x),
                        Param::Delayed(x) => match kernel::as_generate(x) {
                            Some(ArrayOp::Generate { shape, .. }) => others.push(shape),
                            _ => others.push(x),
                        },
                        Param::HostScalar(x) => others.push(x),
                        Param::ErrorSlot | Param::Output(_) | Param::Scratch(..) | Param::Capture(..) => {}
                    }
                }
                // What a skeleton evaluates beside its parameters (a result's shape, a count).
                for node in std::iter::once(&**op).chain(body) {
                    visit::for_each_operand(node, &mut |child, bound, _| {
                        let is_body =
                            body.is_some_and(|b| matches!(&child.kind, ExprKind::Array(c) if std::ptr::eq(&**c, b)));
                        if matches!(bound, Bound::Nothing) && !is_body && kernel::as_generate(child).is_none() {
                            others.push(child);
                        }
                    });
                }
            }
            ExprKind::Array(op) => visit::for_each_operand(op, &mut |child, bound, _| {
                if matches!(bound, Bound::Nothing) {
                    candidates.push(child);
                }
            }),
            _ if evaluates_every_child(e) => visit::for_each_child(e, &mut |child, _, _| candidates.push(child)),
            _ => {}
        }
        let (steps, rest): (Vec<&'p Expr>, Vec<&'p Expr>) =
            candidates.into_iter().partition(|child| match &child.kind {
                ExprKind::Array(inner) => self.runs(inner),
                _ => evaluates_every_child(child) && !self.operands(child).is_empty(),
            });
        others.extend(rest);
        others.retain(|x| !steps.iter().any(|s| std::ptr::eq(*s, *x)));
        if others.iter().all(|x| cannot_fail(x)) { steps } else { Vec::new() }
    }
}

/// Whether evaluating `e` on the host cannot fail: variables, constants, shapes and lengths of
/// variables, and scalar code over them without an integer division or remainder.
fn cannot_fail(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Const(_) => true,
        ExprKind::Unary(_, x) | ExprKind::Cast(x, _) | ExprKind::Proj(x, _) => cannot_fail(x),
        ExprKind::Shape(x) | ExprKind::Len(x) => matches!(x.kind, ExprKind::Var(_)),
        ExprKind::SegmentOf { segments, index } => matches!(segments.kind, ExprKind::Var(_)) && cannot_fail(index),
        ExprKind::Tuple(parts) | ExprKind::Math(_, parts) => parts.iter().all(cannot_fail),
        ExprKind::Binary(op, a, b) => {
            let integer_division =
                op.is_division() && a.ty.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_integer);
            !integer_division && cannot_fail(a) && cannot_fail(b)
        }
        ExprKind::If { cond, then, els } => cannot_fail(cond) && cannot_fail(then) && cannot_fail(els),
        ExprKind::Let { .. }
        | ExprKind::Index { .. }
        | ExprKind::Iterate { .. }
        | ExprKind::WhileLoop { .. }
        | ExprKind::Array(_) => false,
    }
}

/// Whether evaluating `e` evaluates each of its children once, in its own scope (scalar code
/// without control flow or binders).
fn evaluates_every_child(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Tuple(_)
        | ExprKind::Proj(..)
        | ExprKind::Unary(..)
        | ExprKind::Cast(..)
        | ExprKind::Math(..)
        | ExprKind::Index { .. }
        | ExprKind::Shape(_)
        | ExprKind::Len(_)
        | ExprKind::SegmentOf { .. } => true,
        ExprKind::Binary(op, ..) => !matches!(op, BinaryOp::And | BinaryOp::Or),
        ExprKind::Var(_)
        | ExprKind::Const(_)
        | ExprKind::Let { .. }
        | ExprKind::If { .. }
        | ExprKind::Iterate { .. }
        | ExprKind::WhileLoop { .. }
        | ExprKind::Array(_) => false,
    }
}

fn address(op: &ArrayOp) -> usize {
    op as *const ArrayOp as usize
}

impl fmt::Display for Schedule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (slot, step) in self.steps.iter().enumerate() {
            let what = match &step.expr.kind {
                ExprKind::Array(op) => op.name().to_string(),
                ExprKind::Let { var, .. } => format!("let {}", var.name),
                _ => "scalar code".to_string(),
            };
            match step.action {
                Action::Launch { node } => write!(f, "s{slot} = launch n{node} {what}")?,
                Action::Host => write!(f, "s{slot} = host {what}")?,
                Action::Bind { value, .. } => write!(f, "s{slot} = {what} = s{value}")?,
                Action::Unbind { .. } => write!(f, "s{slot} = end {what}")?,
            }
            if !step.operands.is_empty() {
                let reads: Vec<String> = step.operands.iter().map(|(_, s)| format!("s{s}")).collect();
                write!(f, " ({})", reads.join(", "))?;
            }
            let ty = match &step.expr.kind {
                ExprKind::Let { value, .. } => &value.ty,
                _ => &step.expr.ty,
            };
            writeln!(f, ": {ty}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::lower;
    use crate::pipeline::{Options, optimise};

    fn schedule_text(source: syn::ItemFn, options: Options) -> String {
        let program = optimise(&lower(&source).unwrap(), options);
        Schedule::build(&program).to_string()
    }

    #[test]
    fn schedules_of_fused_programs_compute_what_the_programs_do() {
        use crate::types::{ElemType, ScalarType};
        use crate::value::{ArrayValue, ElemValue, ScalarValue, Value};
        let programs: [syn::ItemFn; 8] = [
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> (Vector<f32>, Scalar<f32>) {
                    let s = xs.zip_with(ys, |a, b| a * b);
                    let t = s.scanl1(|a, b| a + b);
                    (t.reverse(), unit(s.sum().get() * 2.0 + t.len() as f32))
                }
            },
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
                    let m = xs.map(|x| x - 1.0).maximum();
                    if m.get() > 0.0 && xs.len() > 2 { xs.map(|x| x / m.get()) } else { ys.reverse() }
                }
            },
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
                    let k = xs.filter(|x| x > 0.0);
                    k.zip_with(ys.take(k.len()), |a, b| a + b).backpermute(k.len() / 2, |i| i * 2)
                }
            },
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
                    xs.map(|x| x + ys[0]).backpermute(3, |i| i + 2)
                }
            },
            // Errors on the host and in a collective: the first in evaluation order wins.
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
                    unit(xs[10] + xs.map(|x| x + ys[9]).sum().get())
                }
            },
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
                    xs.map(|x| x + ys[9]).backpermute(xs[10] as usize, |i| i)
                }
            },
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> (Vector<f32>, Vector<f32>) {
                    (if xs.len() > 1 { xs.reverse() } else { xs.map(|x| x + ys[9]) }, xs.map(|x| xs[x as usize + 10]))
                }
            },
            syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
                    let a = { let t = xs.map(|x| x * 3.0); t.concat(ys) };
                    a.map(|x| x + 1.0)
                }
            },
        ];
        let vector = |v: &[f32]| {
            let data = v.iter().map(|&x| ElemValue::Scalar(ScalarValue::F32(x))).collect();
            Value::Array(ArrayValue::new(ElemType::Scalar(ScalarType::F32), vec![v.len()], data).unwrap())
        };
        let xs = vector(&[1.5, -2.0, 3.25, 0.5, 8.0]);
        let ys = vector(&[0.5, 1.0, -1.0, 2.0, 4.0, 6.0]);
        for (i, source) in programs.iter().enumerate() {
            for fusion in [false, true] {
                let program =
                    optimise(&lower(source).unwrap(), Options { fusion, expand_permute: fusion, ..Options::default() });
                // Agreement is asserted inside; programs 4 to 6 read out of bounds on purpose.
                let result = crate::interp::eval_both(&program, vec![xs.clone(), ys.clone()]);
                assert_eq!(result.is_err(), (4..7).contains(&i), "program {i}: {result:?}");
            }
        }
        // Failing reads: the same error both ways.
        let short = vector(&[1.0]);
        for (i, source) in programs.iter().enumerate().skip(3).take(4) {
            for fusion in [false, true] {
                let program =
                    optimise(&lower(source).unwrap(), Options { fusion, expand_permute: fusion, ..Options::default() });
                let e = crate::interp::eval_both(&program, vec![short.clone(), short.clone()]);
                assert!(e.is_err(), "program {i}: {e:?}");
            }
        }
    }

    #[test]
    fn delayed_operands_are_not_steps_and_reductions_under_epilogues_are() {
        // Fused: the map is computed inside the concat's kernel.
        let text = schedule_text(
            syn::parse_quote! { fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { xs.map(|x| x * 2.0).concat(ys) } },
            Options::default(),
        );
        assert_eq!(text.lines().filter(|l| l.contains("launch")).count(), 1, "{text}");
        // The scan is an operand of the sum that the epilogue rewrites: a step of its own.
        let text = schedule_text(
            syn::parse_quote! { fn f(xs: Vector<f32>) -> Scalar<f32> { unit(xs.scanl1(|a, b| a + b).sum().get() * 2.0) } },
            Options::default(),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].contains("launch") && lines[0].contains("scanl1"), "{text}");
        assert!(lines[1].contains("launch") && lines[1].contains("imap (s0)"), "{text}");
    }

    #[test]
    fn a_let_chain_is_one_step_per_node() {
        let unfused = Options::UNFUSED;
        let text = schedule_text(
            syn::parse_quote! {
                fn f(xs: Vector<f32>) -> Vector<f32> { let ys = xs.map(|x| x + 1.0); ys.map(|y| y * 2.0) }
            },
            unfused,
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("s0 = launch n0 generate: "), "{text}");
        assert!(lines[1].starts_with("s1 = let ys = s0"), "{text}");
        assert!(lines[2].starts_with("s2 = launch n1 generate: "), "{text}");
        assert!(lines[3].starts_with("s3 = end let ys"), "{text}");
    }

    #[test]
    fn fused_work_stays_inside_its_kernel() {
        // The map is delayed into the sum, and the scalar code after it is the sum's epilogue:
        // one launch, reading `xs` itself.
        let text = schedule_text(
            syn::parse_quote! { fn f(xs: Vector<f32>) -> Scalar<f32> { unit(xs.map(|x| x * 2.0).sum().get() + 1.0) } },
            Options::default(),
        );
        assert_eq!(text, "s0 = launch n0 imap: Scalar<f32>\n");
    }

    #[test]
    fn every_launched_node_outside_control_flow_is_launched_once_in_evaluation_order() {
        let program = optimise(
            &lower(&syn::parse_quote! {
                fn f(xs: Vector<f32>, ys: Vector<f32>) -> (Vector<f32>, Scalar<f32>) {
                    let s = xs.zip_with(ys, |a, b| a * b);
                    let t = s.scanl1(|a, b| a + b);
                    (t.reverse(), unit(s.sum().get() * 2.0))
                }
            })
            .unwrap(),
            Options::UNFUSED,
        );
        let schedule = Schedule::build(&program);
        let nodes: Vec<usize> = schedule
            .steps
            .iter()
            .filter_map(|s| match s.action {
                Action::Launch { node } => Some(node),
                Action::Host | Action::Bind { .. } | Action::Unbind { .. } => None,
            })
            .collect();
        let launched: Vec<usize> = kernel::launched(&program)
            .iter()
            .enumerate()
            .filter(|&(id, &l)| l && !kernel::roles(kernel::array_nodes(&program)[id]).is_empty())
            .map(|(id, _)| id)
            .collect();
        let mut sorted = nodes.clone();
        sorted.sort();
        assert_eq!(sorted, launched, "{schedule}");
        // Every operand is an earlier step, read once.
        let mut reads: Vec<Slot> = Vec::new();
        for (slot, step) in schedule.steps.iter().enumerate() {
            for &(_, from) in &step.operands {
                assert!(from < slot && !reads.contains(&from), "{schedule}");
                reads.push(from);
            }
            if let Action::Bind { value, .. } = step.action {
                assert!(value < slot && !reads.contains(&value), "{schedule}");
                reads.push(value);
            }
        }
    }
}
