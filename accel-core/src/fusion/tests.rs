//! Each fusion rule on a small program: the kernel count of the fused program's plan, and the
//! interpreter's result on the fused program equal to its result on the source program (the
//! passes only regroup work, so the interpreter gives the same bits, errors included), on random
//! inputs of awkward sizes.

use crate::interp::eval;
use crate::ir::visit::pre_order as visit;
use crate::ir::{ArrayOp, ExprKind, MathFn, Program};
use crate::pipeline::{Options, optimise as run};
use crate::plan::Plan;
use crate::types::{ElemType, ScalarType, Type};
use crate::value::{ArrayValue, ElemValue, ScalarValue, Value};

fn lower(src: &str) -> Program {
    let item: syn::ItemFn = syn::parse_str(src).expect("a function");
    crate::frontend::lower(&item).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn scalar(&mut self, t: ScalarType) -> ScalarValue {
        let r = self.next();
        match t {
            ScalarType::Bool => ScalarValue::Bool(r & 1 == 1),
            ScalarType::I8 => ScalarValue::I8(((r % 201) as i16 - 100) as i8),
            ScalarType::I16 => ScalarValue::I16((r % 2001) as i16 - 1000),
            ScalarType::I32 => ScalarValue::I32((r % 201) as i32 - 100),
            ScalarType::I64 => ScalarValue::I64((r % 2001) as i64 - 1000),
            ScalarType::U8 => ScalarValue::U8((r % 256) as u8),
            ScalarType::U16 => ScalarValue::U16((r % 1000) as u16),
            ScalarType::U32 => ScalarValue::U32((r % 1000) as u32),
            ScalarType::U64 => ScalarValue::U64(r % 1000),
            ScalarType::Usize => ScalarValue::Usize((r % 7) as usize),
            ScalarType::F32 => ScalarValue::F32((r % 20_000) as f32 / 1000.0 - 10.0),
            ScalarType::F64 => ScalarValue::F64((r % 20_000) as f64 / 1000.0 - 10.0),
        }
    }

    fn elem(&mut self, t: &ElemType) -> ElemValue {
        match t {
            ElemType::Scalar(s) => ElemValue::Scalar(self.scalar(*s)),
            ElemType::Tuple(ts) => ElemValue::Tuple(ts.iter().map(|t| self.elem(t)).collect()),
        }
    }

    /// A value of `t`; arrays have `n` elements along their last dimension.
    fn value(&mut self, t: &Type, n: usize) -> Value {
        match t {
            Type::Elem(e) => Value::Elem(self.elem(e)),
            Type::Array { elem, rank } => {
                let shape: Vec<usize> = (0..*rank).map(|d| if d + 1 == *rank { n } else { 3 }).collect();
                let data = (0..shape.iter().product()).map(|_| self.elem(elem)).collect();
                Value::Array(ArrayValue::new(elem.clone(), shape, data).expect("a valid array"))
            }
            other => panic!("no random {other}"),
        }
    }
}

/// Fuses `src`, checks its kernel count, and checks that the interpreter gives the source's
/// results on random inputs of several sizes. Returns the fused program.
fn check(src: &str, kernels: usize) -> Program {
    let program = lower(src);
    let fused = run(&program, Options::default());
    let plan = Plan::build(&fused);
    assert_eq!(plan.kernel_count(), kernels, "{src}\n{plan}\n{fused:#?}");
    let mut rng = Rng(7);
    for n in [0, 1, 5, 33, 130] {
        let args: Vec<Value> = program.params.iter().map(|(_, t)| rng.value(t, n)).collect();
        // Debug text compares floats bit for bit where it matters here (NaN equals NaN).
        let want = format!("{:?}", eval(&program, args.clone()));
        let got = format!("{:?}", eval(&fused, args));
        assert_eq!(got, want, "{src} at n = {n}");
    }
    fused
}

/// How many times `f` appears in the program.
fn calls(p: &Program, f: MathFn) -> usize {
    let mut n = 0;
    visit(&p.body, &mut |e| n += usize::from(matches!(&e.kind, ExprKind::Math(g, _) if *g == f)));
    n
}

#[test]
fn dot_product_is_one_kernel() {
    check(
        "fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> { xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b) }",
        1,
    );
}

#[test]
fn a_chain_of_maps_is_one_kernel() {
    check("fn f(xs: Vector<f32>) -> Vector<f32> { xs.map(|x| x + 1.0).map(|x| x * 2.0).imap(|i, x| x - i as f32) }", 1);
    check(
        "fn f(xs: Vector<i32>) -> Vector<i32> { let a = xs.map(|x| x + 1); let b = a.map(|x| x * 3); b.reverse() }",
        1,
    );
}

#[test]
fn matrix_producers_fuse() {
    check("fn f(m: Matrix<i32>) -> Matrix<i32> { m.transpose().map(|x| x * 2).transpose() }", 1);
    check("fn f(m: Matrix<i32>) -> Vector<i32> { m.map(|x| x + 1).fold(0, |a, b| a + b) }", 1);
    check("fn f(xs: Vector<i32>, k: usize) -> Matrix<i32> { xs.drop(k).take(4).replicate_rows(3).map(|x| x - 1) }", 1);
    check("fn f(xs: Vector<i32>) -> Vector<i32> { iota::<i32>(xs.len()).zip_with(xs, |i, x| i * x) }", 1);
}

#[test]
fn sum_and_sum_of_squares_are_one_kernel() {
    check("fn f(xs: Vector<f32>) -> (Scalar<f32>, Scalar<f32>) { (xs.sum(), xs.map(|x| x * x).sum()) }", 1);
    check(
        "fn f(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>, Scalar<i64>) { let a = xs.sum(); let b = xs.maximum(); let c = xs.minimum(); (a, b, c) }",
        2,
    );
    check(
        "fn f(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>) { let a = xs.maximum(); let b = xs.minimum(); (a, b) }",
        1,
    );
}

#[test]
fn a_mean_is_one_kernel() {
    check("fn mean(xs: Vector<f32>) -> Scalar<f32> { let s = xs.sum(); unit(s.get() / xs.len() as f32) }", 1);
    check("fn mean(xs: Vector<f32>) -> Scalar<f32> { unit(xs.sum().get() / xs.len() as f32) }", 1);
    check("fn mean(xs: Vector<f64>) -> Scalar<f64> { xs.map(|x| x * 2.0).sum().map(|s| s / 4.0) }", 1);
}

#[test]
fn normalising_is_two_kernels() {
    check("fn f(xs: Vector<f32>) -> Vector<f32> { let s = xs.sum(); xs.map(|x| x / s.get()) }", 2);
}

#[test]
fn a_map_after_a_scan_is_written_by_the_scan() {
    check("fn f(xs: Vector<i32>) -> Vector<i32> { xs.map(|x| x - 3).scanl1(|a, b| a + b).map(|x| x * 2) }", 1);
    check("fn f(m: Matrix<i32>) -> Matrix<i32> { m.scanl(0, |a, b| a + b).imap(|(i, j), x| x + (i * j) as i32) }", 1);
}

#[test]
fn histogram_is_at_most_two_kernels() {
    check(
        "fn histogram(xs: Vector<f32>, bins: usize) -> Vector<u32> { xs.map(|_| 1u32).permute(fill(bins, 0u32), |i| if xs[i] >= 0.0 { Some(((xs[i] * 3.0) as usize).min(bins - 1)) } else { None }, |a, b| a + b) }",
        1,
    );
}

#[test]
fn stencils_filters_and_segmented_reductions_read_delayed_arrays() {
    check(
        "fn f(m: Matrix<f32>) -> Matrix<f32> { m.map(|x| x * 2.0).stencil3x3(Clamp, |n| n[0][0] + n[1][1] - n[2][2]) }",
        1,
    );
    check("fn f(xs: Vector<i32>) -> Vector<i32> { xs.map(|x| x * 7).filter(|x| x % 2 == 0) }", 1);
    check(
        "fn f(xs: Vector<i32>, ls: Vector<usize>) -> Vector<i32> { xs.map(|x| x + 1).fold_seg(0, |a, b| a + b, ls.map(|l| l % 2)) }",
        // The lengths' map runs inside the kernel that counts the segments.
        2,
    );
    check("fn f(xs: Vector<i32>) -> Vector<i32> { xs.map(|x| x % 4).expand(|x| x, |x, j| x * j as i32) }", 1);
}

#[test]
fn black_scholes_keeps_its_sharing() {
    let src = r#"
        fn black_scholes(price: Vector<f32>, strike: Vector<f32>, years: Vector<f32>) -> (Vector<f32>, Vector<f32>) {
            let r = 0.02f32;
            let v = 0.30f32;
            price.zip(strike).zip_with(years, |(s, k), t| {
                let v_sqrt_t = v * t.sqrt();
                let d1 = ((s / k).ln() + (r + 0.5 * v * v) * t) / v_sqrt_t;
                let d2 = d1 - v_sqrt_t;
                let k1 = 1.0 / (1.0 + 0.2316419 * d1.abs());
                let w1 = 0.3989423 * (-0.5 * d1 * d1).exp() * k1 * (0.3193815 + k1 * (-0.3565638 + k1 * 1.781478));
                let c1 = if d1 > 0.0 { 1.0 - w1 } else { w1 };
                let k2 = 1.0 / (1.0 + 0.2316419 * d2.abs());
                let w2 = 0.3989423 * (-0.5 * d2 * d2).exp() * k2 * (0.3193815 + k2 * (-0.3565638 + k2 * 1.781478));
                let c2 = if d2 > 0.0 { 1.0 - w2 } else { w2 };
                let e = k * (-r * t).exp();
                (s * c1 - e * c2, e * (1.0 - c2) - s * (1.0 - c1))
            }).unzip()
        }"#;
    let fused = check(src, 1);
    assert_eq!((calls(&fused, MathFn::Exp), calls(&fused, MathFn::Ln), calls(&fused, MathFn::Sqrt)), (3, 1, 1));
}

#[test]
fn sharing_keeps_costly_arrays_used_twice() {
    let fused = check(
        "fn f(xs: Vector<f32>) -> Vector<f32> { let ys = xs.map(|x| x.exp()); ys.zip_with(ys.reverse(), |a, b| a + b) }",
        2,
    );
    assert_eq!(calls(&fused, MathFn::Exp), 1);
    // Cheap index transformations are recomputed instead.
    check(
        "fn f(xs: Vector<f32>) -> Vector<f32> { let r = xs.reverse(); r.zip_with(r.map(|x| x * 2.0), |a, b| a + b) }",
        1,
    );
    // Random reads of a costly array in a closure keep it manifest.
    check(
        "fn f(xs: Vector<f32>, is: Vector<usize>) -> Vector<f32> { let ys = xs.map(|x| x.sin()); is.map(|i| ys[i % ys.len().max(1)]) }",
        2,
    );
}

#[test]
fn uses_of_the_shape_alone_compute_nothing() {
    let fused = check(
        "fn f(xs: Vector<f32>) -> Vector<f32> { let ys = xs.map(|x| x.exp()); generate(ys.len() + 1, |i| i as f32) }",
        1,
    );
    assert_eq!(calls(&fused, MathFn::Exp), 0);
}

#[test]
fn arrays_used_in_a_loop_body_are_not_recomputed_per_iteration() {
    check(
        "fn f(xs: Vector<f32>) -> Vector<f32> { let ys = xs.map(|x| x.sin() + 1.5); awhile(xs, |s| unit(s.len() > 0 && s.sum().get() < 1000.0), |s| s.zip_with(ys, |a, b| a + b)) }",
        1 + 2,
    );
}

#[test]
fn fused_backpermutes_keep_their_errors() {
    check("fn f(xs: Vector<i32>) -> Vector<i32> { xs.map(|x| x + 1).backpermute(xs.len() + 1, |i| i) }", 1);
    check("fn f(xs: Vector<i32>, k: usize) -> Vector<i32> { xs.backpermute(xs.len(), |i| i + k).map(|x| x * 2) }", 1);
}

#[test]
fn the_switch_turns_fusion_off() {
    let p = lower("fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> { xs.zip_with(ys, |x, y| x * y).sum() }");
    let unfused = run(&p, Options::UNFUSED);
    // The producer is still lowered to a `generate`, but written out: the sum reads a variable.
    let ExprKind::Let { value, body, .. } = &unfused.body.kind else { panic!("a let: {unfused}") };
    assert!(matches!(crate::kernel::as_generate(value), Some(ArrayOp::Generate { from, .. }) if from == &["zip_with"]));
    let ExprKind::Array(sum) = &body.kind else { panic!("the sum: {unfused}") };
    assert!(matches!(&**sum, ArrayOp::Fold { a, .. } if matches!(a.kind, ExprKind::Var(_))), "{unfused}");
    assert!(crate::kernel::launched(&unfused).iter().all(|&l| l));
    assert_eq!(Plan::build(&unfused).kernel_count(), 2);
}

#[test]
fn fused_programs_have_no_kernels_for_absorbed_nodes() {
    let fused = check("fn f(xs: Vector<f32>) -> Scalar<f32> { xs.map(|x| x + 1.0).sum() }", 1);
    let launched = crate::kernel::launched(&fused);
    let nodes = crate::kernel::array_nodes(&fused);
    let run: Vec<&str> = nodes.iter().zip(&launched).filter(|(_, l)| **l).map(|(n, _)| n.name()).collect();
    assert_eq!(run, ["fold"]);
    assert!(nodes.iter().any(|n| matches!(n, ArrayOp::Generate { from, .. } if from == &["map"])));
}

/// The number of fused expand-permute nodes (fused form 4) in `p`.
fn expand_permutes(p: &Program) -> usize {
    let mut n = 0;
    visit(&p.body, &mut |e| {
        n += usize::from(matches!(&e.kind, ExprKind::Array(op) if matches!(**op, ArrayOp::ExpandPermute { .. })))
    });
    n
}

#[test]
fn a_permute_of_an_expand_is_one_kernel() {
    // The Sieve's marking: the expanded multiples are the permute's targets, read at its index.
    let sieve = check(
        "fn f(ps: Vector<usize>, n: usize) -> Vector<u32> {
             let ms = ps.expand(|p| if p > 1 { n / p } else { 0 }, |p, j| (j + 2) * p);
             ms.map(|_| 1u32).permute(fill(n + 1, 0u32), |i| if ms[i] <= n { Some(ms[i]) } else { None }, |a, b| a + b)
         }",
        1,
    );
    assert_eq!(expand_permutes(&sieve), 1);
    // The expansion as the permute's source itself, with a map between that reads the element.
    for src in [
        "fn f(xs: Vector<i32>, n: usize) -> Vector<i32> { xs.expand(|x| (x % 5).abs(), |x, j| x * j as i32).permute(fill(n + 1, 0i32), |i| Some(i % (n + 1)), |a, b| a.min(b)) }",
        "fn f(xs: Vector<i32>, n: usize) -> Vector<i64> { let e = xs.expand(|x| (x % 5).abs(), |x, j| x + j as i32); e.map(|y| y as i64 * 3).permute(fill(n + 2, 1i64), |i| Some((e[i].abs() as usize) % (n + 2)), |a, b| a + b) }",
        // Negative counts fail as the unfused expand does.
        "fn f(xs: Vector<i32>, n: usize) -> Vector<i32> { xs.expand(|x| x % 3, |x, j| x).permute(fill(n + 1, 0i32), |i| Some(i % (n + 1)), |a, b| a + b) }",
        // A destination out of range fails as the unfused permute does.
        "fn f(xs: Vector<u32>, n: usize) -> Vector<u32> { let e = xs.expand(|x| x % 4, |x, j| x + j as u32); e.permute(fill(n, 0u32), |i| Some(e[i] as usize), |a, b| a.max(b)) }",
    ] {
        assert_eq!(expand_permutes(&check(src, 1)), 1, "{src}");
    }
}

#[test]
fn an_expansion_read_elsewhere_or_again_in_a_loop_is_not_fused() {
    for (src, kernels) in [
        // The expanded array is also a result.
        (
            "fn f(xs: Vector<u32>, n: usize) -> (Vector<u32>, Vector<u32>) { let e = xs.expand(|x| x % 4, |x, j| x + j as u32); (e, e.permute(fill(n + 1, 0u32), |i| Some(i % (n + 1)), |a, b| a + b)) }",
            2,
        ),
        // The permute reads the expansion at another index than its own.
        (
            "fn f(xs: Vector<u32>, n: usize) -> Vector<u32> { let e = xs.expand(|x| x % 4, |x, j| x + j as u32); e.permute(fill(n + 1, 0u32), |i| Some(e[e.len() - 1 - i] as usize % (n + 1)), |a, b| a + b) }",
            2,
        ),
        // The permute runs once per iteration of a loop: the expansion runs once, before it.
        (
            "fn f(xs: Vector<u32>, n: usize) -> Vector<u32> { let e = xs.expand(|x| x % 4, |x, j| x + j as u32); awhile(fill(n + 1, 0u32), |s| unit(s.sum().get() < 50), |s| e.permute(s.map(|x| x + 1), |i| Some(i % (n + 1)), |a, b| a + b)) }",
            4,
        ),
    ] {
        assert_eq!(expand_permutes(&check(src, kernels)), 0, "{src}");
    }
}
