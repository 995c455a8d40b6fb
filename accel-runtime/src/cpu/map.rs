//! `generate`: one result element per output index. Every producer (`map`, `zip_with`,
//! `reverse`, ...) runs here: `accel_core::fusion::producers` lowers each one to a `generate`
//! whose closure reads its operands' elements.
//!
//! Algorithm: the output is cut into equal chunks (at least `MIN_CHUNK` elements, a few per
//! thread); each task fills its chunk in order, stepping the multi-dimensional index instead of
//! dividing it out of the linear position.
//!
//! Memory traffic: one write of each output element, in order, and the closure's reads.
//!
//! Limits: none beyond memory; the closure runs exactly once per element.

use super::Ctx;
use super::par::{alloc_len, par_build_indexed};
use crate::array::Array;
use crate::elem::Elem;
use accel_core::Result;

/// The array of `shape` whose element at `ix` is `f(ix)`.
///
/// ```
/// use accel_runtime::cpu::{self, Ctx};
/// let m = cpu::generate(&Ctx::new(), [2, 3], |[i, j]| (i * 3 + j) as f32)?;
/// assert_eq!(m.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn generate<E: Elem, const R: usize>(
    cx: &Ctx,
    shape: [usize; R],
    f: impl Fn([usize; R]) -> E + Sync + Send,
) -> Result<Array<E, R>> {
    alloc_len::<E, R>("generate", shape)?;
    let cols = par_build_indexed(shape, |_, ix| f(ix))?;
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, cols))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::Vector;

    #[test]
    fn closure_errors_surface_after_the_loop() {
        let cx = Ctx::new();
        let v = Vector::from_vec((0..100_000).collect::<Vec<i32>>());
        let e = generate(&cx, v.shape(), |[i]| cx.div(1, v.get_linear(i) - 50_000)).unwrap_err();
        assert_eq!(e, accel_core::Error::division_by_zero("/"));
        assert!(generate(&cx, v.shape(), |[i]| v.get_linear(i) + 1).is_ok(), "the error was taken");
    }

    #[test]
    fn generate_rejects_impossible_shapes() {
        let e = generate(&Ctx::new(), [usize::MAX, 3], |_| 0u8 as i32).unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
        let e = generate(&Ctx::new(), [usize::MAX / 2], |_| 1u64).unwrap_err();
        assert!(matches!(e, accel_core::Error::OutOfHostMemory { .. }), "{e}");
        let e = generate(&Ctx::new(), [1 << 50], |_| 0u32).unwrap_err();
        assert!(matches!(e, accel_core::Error::OutOfHostMemory { .. }), "{e}");
        let s = generate(&Ctx::new(), [], |[]| 7u64).unwrap();
        assert_eq!(s.get(), 7);
        let e = generate(&Ctx::new(), [0, 4], |_| 1.0f32).unwrap();
        assert!(e.is_empty());
    }
}
