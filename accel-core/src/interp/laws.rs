//! Checked mode: the laws that the combining functions of folds, scans and permutes must obey,
//! tested on samples of the data they combine.
//!
//! A backend combines the elements of a reduction or scan in any grouping (a tree across
//! threads, chunks met through partials) and a `permute`'s sources in any order, so a function
//! that is not associative (`|a, b| a - b`), or for `permute` not commutative, gives results
//! that depend on the backend, the size and the run. Rust cannot see this, nor can the front
//! end in general; checked mode (`interp::check`, `Runtime::checked`, `ACCEL_CHECK=1`) evaluates
//! the program with the interpreter and, at every such node, tests the function on
//! [`SAMPLES`] triples drawn from the values the node combines: `f(f(a, b), c)` against
//! `f(a, f(b, c))`, and for `permute` also `f(a, b)` against `f(b, a)`. The first pair that
//! differs is an [`Error::InvalidCombine`] that shows it.
//!
//! Integers and booleans must agree exactly. Floats are rounded at every step, so a float
//! component agrees when `|x - y| <= FLOAT_TOLERANCE * (|a| + |b| + |c| + |x| + |y|)` (that
//! component of each value; `c` absent for commutativity), or both are NaN: a sum in another
//! order passes, `a - b` fails on any data that is not almost all zeros.
//!
//! A sample whose evaluation fails (the function reads an array out of its bounds for a
//! combination the real run never makes) is skipped: errors of the run itself are reported by
//! the run.

use super::{Host, Interp, Val};
use crate::error::{Error, Result};
use crate::ir::Lambda;
use crate::value::{ElemValue, ScalarValue};

/// Triples tested at each evaluation of a combining node.
pub const SAMPLES: usize = 64;

/// The relative tolerance of float components (see the module docs).
pub const FLOAT_TOLERANCE: f64 = 1e-3;

/// What a node's combining function must be.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Law {
    /// Folds and scans: any grouping of the same sequence gives the same result.
    Associative,
    /// `permute`: also any order of the sources.
    AssociativeAndCommutative,
}

/// The sampler of checked mode: a xorshift generator, seeded the same way for every run so
/// that a counter-example found once is found again.
#[derive(Clone, Debug)]
pub(super) struct Sampler {
    state: u64,
}

impl Default for Sampler {
    fn default() -> Sampler {
        Sampler { state: 0x9e37_79b9_7f4a_7c15 }
    }
}

impl Sampler {
    fn below(&mut self, n: usize) -> usize {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state % n as u64) as usize
    }
}

impl Interp {
    /// In checked mode, tests `f` (the combining function of `op`) for `law` on samples of the
    /// values of `parts`; otherwise nothing.
    pub(super) fn check_law(&mut self, op: &str, f: &Lambda, law: Law, parts: &[&[ElemValue]]) -> Result<()> {
        let Some(mut sampler) = self.sampler.take() else { return Ok(()) };
        let found = self.counter_example(&mut sampler, f, law, parts);
        self.sampler = Some(sampler);
        match found {
            Some((law, example)) => Err(Error::invalid_combine(op, law, example)),
            None => Ok(()),
        }
    }

    /// The first law broken on the samples, and how.
    fn counter_example(
        &mut self,
        sampler: &mut Sampler,
        f: &Lambda,
        law: Law,
        parts: &[&[ElemValue]],
    ) -> Option<(&'static str, String)> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if total == 0 {
            return None;
        }
        let mut draw = || {
            let mut k = sampler.below(total);
            for part in parts {
                if k < part.len() {
                    return &part[k];
                }
                k -= part.len();
            }
            unreachable!("k < total")
        };
        for _ in 0..SAMPLES {
            let [a, b, c] = [(); 3].map(|()| draw());
            let mut f2 =
                |x: &ElemValue, y: &ElemValue| self.apply_elem(f, [Val::Elem(x.clone()), Val::Elem(y.clone())]);
            let grouped = (|| -> Result<(ElemValue, ElemValue)> {
                let ab = f2(a, b)?;
                let left = f2(&ab, c)?;
                let bc = f2(b, c)?;
                Ok((left, f2(a, &bc)?))
            })();
            if let Ok((left, right)) = grouped
                && !agree(&left, &right, &[a, b, c])
            {
                return Some((
                    "associative",
                    format!(
                        "f(f(a, b), c) = {} but f(a, f(b, c)) = {}, for a = {}, b = {}, c = {}",
                        show(&left),
                        show(&right),
                        show(a),
                        show(b),
                        show(c)
                    ),
                ));
            }
            if law == Law::AssociativeAndCommutative
                && let (Ok(ab), Ok(ba)) = (f2(a, b), f2(b, a))
                && !agree(&ab, &ba, &[a, b])
            {
                return Some((
                    "commutative",
                    format!(
                        "f(a, b) = {} but f(b, a) = {}, for a = {}, b = {}",
                        show(&ab),
                        show(&ba),
                        show(a),
                        show(b)
                    ),
                ));
            }
        }
        None
    }
}

/// Whether two results of the same combination agree: exactly, or for floats within
/// [`FLOAT_TOLERANCE`] of the magnitudes of the operands and results, component by component.
fn agree(x: &ElemValue, y: &ElemValue, operands: &[&ElemValue]) -> bool {
    match (x, y) {
        (ElemValue::Scalar(sx), ElemValue::Scalar(sy)) => {
            let (Some(fx), Some(fy)) = (float(*sx), float(*sy)) else { return sx == sy };
            if fx.is_nan() || fy.is_nan() {
                return fx.is_nan() && fy.is_nan();
            }
            let scale: f64 = operands
                .iter()
                .filter_map(|o| o.as_scalar().and_then(float))
                .map(f64::abs)
                .chain([fx.abs(), fy.abs()])
                .sum();
            fx == fy || (fx - fy).abs() <= FLOAT_TOLERANCE * scale
        }
        (ElemValue::Tuple(xs), ElemValue::Tuple(ys)) => xs.iter().zip(ys).enumerate().all(|(k, (x, y))| {
            let parts: Vec<&ElemValue> = operands
                .iter()
                .filter_map(|o| match o {
                    ElemValue::Tuple(ps) => ps.get(k),
                    ElemValue::Scalar(_) => None,
                })
                .collect();
            agree(x, y, &parts)
        }),
        _ => false,
    }
}

fn float(s: ScalarValue) -> Option<f64> {
    match s {
        ScalarValue::F32(x) => Some(f64::from(x)),
        ScalarValue::F64(x) => Some(x),
        ScalarValue::Bool(_)
        | ScalarValue::I8(_)
        | ScalarValue::I16(_)
        | ScalarValue::I32(_)
        | ScalarValue::I64(_)
        | ScalarValue::U8(_)
        | ScalarValue::U16(_)
        | ScalarValue::U32(_)
        | ScalarValue::U64(_)
        | ScalarValue::Usize(_) => None,
    }
}

/// An element as Rust would write it: `3`, `(1.5, true)`.
fn show(e: &ElemValue) -> String {
    match e {
        ElemValue::Scalar(s) => s.to_string(),
        ElemValue::Tuple(parts) => format!("({})", parts.iter().map(show).collect::<Vec<_>>().join(", ")),
    }
}
