//! Build (`generate fill iota unit`) and elementwise (`map imap zip_with zip unzip`) combinators.
//!
//! Elementwise code runs the same scalar operations in the same order on every backend (the
//! generated CPU code and the interpreter share `accel_core::ops`), so float results are compared
//! bit for bit, against an oracle that writes the same expression in plain Rust.

#[macro_use]
mod common;

use accel::prelude::*;
use common::*;
use proptest::prelude::*;

#[accel]
fn gen_vec(n: usize, a: f32) -> Vector<f32> {
    generate(n, |i| (i as f32) * 0.5 - a)
}

#[accel]
fn gen_mat(r: usize, c: usize) -> Matrix<i64> {
    generate((r, c), |(i, j)| (i as i64) * 1000 - (j as i64) * 7)
}

#[accel]
fn gen_cube(a: usize, b: usize, c: usize) -> Array<u32, 3> {
    generate([a, b, c], |(i, j, k)| (i * 100 + j * 10 + k) as u32)
}

#[accel]
fn gen_tuple(n: usize) -> Vector<(f64, i32)> {
    generate(n, |i| ((i as f64) * 0.25, (i as i32) * -3))
}

#[accel]
fn fill_vec(n: usize, v: f64) -> Vector<f64> {
    fill(n, v)
}

#[accel]
fn fill_mat(r: usize, c: usize, v: i32) -> Matrix<(i32, bool)> {
    fill((r, c), (v, v > 0))
}

#[accel]
fn iota_default(n: usize) -> Vector<i32> {
    iota(n)
}

#[accel]
fn iota_f32(n: usize) -> Vector<f32> {
    iota::<f32>(n)
}

#[accel]
fn iota_u64_from_context(n: usize) -> Vector<u64> {
    let v: Vector<u64> = iota(n);
    v.map(|x| x * 3)
}

#[accel]
fn unit_and_get(x: f64) -> (Scalar<f64>, Vector<f64>) {
    let s = unit(x * 2.0);
    let v = fill(3, s.get() + 1.0);
    (s, v)
}

#[accel]
fn map_f32(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * 1.5 - 2.0)
}

#[accel]
fn map_f64(xs: Vector<f64>) -> Vector<f64> {
    xs.map(|x| x / 3.0 + x * x)
}

#[accel]
fn map_i32(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x * 3 + 7)
}

#[accel]
fn map_i64(xs: Vector<i64>) -> Vector<i64> {
    xs.map(|x| x * x - 5)
}

#[accel]
fn map_u32(xs: Vector<u32>) -> Vector<u32> {
    xs.map(|x| x * 2654435761 + 1)
}

#[accel]
fn map_u64(xs: Vector<u64>) -> Vector<u64> {
    xs.map(|x| x * 0x9E3779B97F4A7C15 + x / 7)
}

#[accel]
fn map_usize(xs: Vector<usize>) -> Vector<usize> {
    xs.map(|x| x * 3 + 1)
}

#[accel]
fn map_bool(xs: Vector<bool>) -> Vector<bool> {
    xs.map(|b| !b)
}

#[accel]
fn map_i32_to_f64(xs: Vector<i32>) -> Vector<f64> {
    xs.map(|x| x as f64 * 0.5)
}

#[accel]
fn map_matrix(m: Matrix<f32>) -> Matrix<f32> {
    m.map(|x| x * x - 1.0)
}

#[accel]
fn map_cube(a: Array<i64, 3>) -> Array<i64, 3> {
    a.map(|x| x * 2 - 1)
}

#[accel]
fn map_tuple(xs: Vector<(f32, i32)>) -> Vector<(f32, i32)> {
    xs.map(|(a, b)| (a * 2.0 + b as f32, b - 1))
}

#[accel]
fn imap_vec(xs: Vector<i64>) -> Vector<i64> {
    xs.imap(|i, x| x * (i as i64) - 1)
}

#[accel]
fn imap_mat(m: Matrix<f32>) -> Matrix<f32> {
    m.imap(|(i, j), x| x + (i as f32) * 100.0 + j as f32)
}

#[accel]
fn zip_with_f32(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.zip_with(ys, |x, y| x * y + 1.0)
}

#[accel]
fn zip_with_mixed(xs: Vector<i32>, ys: Vector<f64>) -> Vector<f64> {
    xs.zip_with(ys, |x, y| x as f64 - y)
}

#[accel]
fn zip_with_mat(a: Matrix<u64>, b: Matrix<u64>) -> Matrix<u64> {
    a.zip_with(b, |x, y| x ^ (y << 3))
}

#[accel]
fn zip_unzip(xs: Vector<f32>, ys: Vector<i32>) -> (Vector<(f32, i32)>, Vector<f32>, Vector<i32>) {
    let z = xs.zip(ys);
    let (a, b) = z.unzip();
    (z, a, b)
}

#[accel]
fn unzip_mapped(xs: Vector<u32>) -> (Vector<u32>, Vector<bool>) {
    xs.map(|x| (x / 2, x % 2 == 0)).unzip()
}

#[accel]
fn zip_mat_unzip(a: Matrix<i64>, b: Matrix<f32>) -> (Matrix<i64>, Matrix<f32>) {
    a.zip(b).map(|p| (p.0 + 1, p.1 * 0.5)).unzip()
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn generate_vectors(n in size(), a in f32s()) {
        let (cpu, interp) = both!(gen_vec(n, a));
        let want: Vec<f32> = (0..n).map(|i| (i as f32) * 0.5 - a).collect();
        all_same_bits("generate", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [n]);
    }

    #[test]
    fn generate_matrices((r, c) in shape()) {
        let (cpu, interp) = both!(gen_mat(r, c));
        let want: Vec<i64> = (0..r).flat_map(|i| (0..c).map(move |j| (i as i64) * 1000 - (j as i64) * 7)).collect();
        all_same("generate (matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [r, c]);
        prop_assert_eq!(interp.shape(), [r, c]);
    }

    #[test]
    fn generate_rank3(a in 0usize..6, b in 0usize..9, c in 0usize..13) {
        let (cpu, interp) = both!(gen_cube(a, b, c));
        let mut want = Vec::new();
        for i in 0..a {
            for j in 0..b {
                for k in 0..c {
                    want.push((i * 100 + j * 10 + k) as u32);
                }
            }
        }
        all_same("generate (rank 3)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [a, b, c]);
    }

    #[test]
    fn generate_tuples(n in size()) {
        let (cpu, interp) = both!(gen_tuple(n));
        let want: Vec<(f64, i32)> = (0..n).map(|i| ((i as f64) * 0.25, (i as i32).wrapping_mul(-3))).collect();
        all_same("generate (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn fill_builds_constant_arrays(n in size(), v in f64s(), (r, c) in shape(), w in small_i32s()) {
        let (cpu, interp) = both!(fill_vec(n, v));
        all_same_bits("fill", &cpu.to_vec(), &interp.to_vec(), &vec![v; n])?;
        let (cpu, interp) = both!(fill_mat(r, c, w));
        all_same("fill (matrix of tuples)", &cpu.to_vec(), &interp.to_vec(), &vec![(w, w > 0); r * c])?;
        prop_assert_eq!(cpu.shape(), [r, c]);
    }

    #[test]
    fn iota_counts_in_the_element_type(n in size()) {
        let (cpu, interp) = both!(iota_default(n));
        let want: Vec<i32> = (0..n as i32).collect();
        all_same("iota::<i32>", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (cpu, interp) = both!(iota_f32(n));
        let want: Vec<f32> = (0..n).map(|i| i as f32).collect();
        all_same_bits("iota::<f32>", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (cpu, interp) = both!(iota_u64_from_context(n));
        let want: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
        all_same("iota (u64 from the context)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn unit_holds_one_element(x in f64s()) {
        let ((s_cpu, v_cpu), (s_int, v_int)) = both!(unit_and_get(x));
        all_same_bits("unit", &s_cpu.to_vec(), &s_int.to_vec(), &[x * 2.0])?;
        all_same_bits("fill of get", &v_cpu.to_vec(), &v_int.to_vec(), &[x * 2.0 + 1.0; 3])?;
    }

    #[test]
    fn map_float(xs in vec_sized(f32s(), size()), ys in vec_sized(f64s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(map_f32(&v));
        let want: Vec<f32> = xs.iter().map(|x| x * 1.5 - 2.0).collect();
        all_same_bits("map f32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(map_f64(&v));
        let want: Vec<f64> = ys.iter().map(|x| x / 3.0 + x * x).collect();
        all_same_bits("map f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn map_signed_integers_wrap(xs in vec_sized(i32s(), size()), ys in vec_sized(i64s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(map_i32(&v));
        let want: Vec<i32> = xs.iter().map(|x| x.wrapping_mul(3).wrapping_add(7)).collect();
        all_same("map i32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(map_i64(&v));
        let want: Vec<i64> = ys.iter().map(|x| x.wrapping_mul(*x).wrapping_sub(5)).collect();
        all_same("map i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn map_unsigned_integers_wrap(xs in vec_sized(u32s(), size()), ys in vec_sized(u64s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(map_u32(&v));
        let want: Vec<u32> = xs.iter().map(|x| x.wrapping_mul(2654435761).wrapping_add(1)).collect();
        all_same("map u32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(map_u64(&v));
        let want: Vec<u64> = ys.iter().map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(x / 7)).collect();
        all_same("map u64", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn map_usize_bool_and_conversion(
        xs in vec_sized(0usize..1_000_000, size()),
        bs in prop::collection::vec(any::<bool>(), 0..300),
        is in vec_sized(i32s(), size()),
    ) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(map_usize(&v));
        let want: Vec<usize> = xs.iter().map(|x| x * 3 + 1).collect();
        all_same("map usize", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(bs.clone());
        let (cpu, interp) = both!(map_bool(&v));
        let want: Vec<bool> = bs.iter().map(|b| !b).collect();
        all_same("map bool", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(map_i32_to_f64(&v));
        let want: Vec<f64> = is.iter().map(|&x| x as f64 * 0.5).collect();
        all_same_bits("map i32 -> f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn map_matrices_and_rank3(
        ((r, c), data) in matrix_of(f32s()),
        (a, b, d) in (0usize..5, 0usize..7, 0usize..11),
        seed in any::<u64>(),
    ) {
        let m = Matrix::from_shape_vec([r, c], data.clone()).unwrap();
        let (cpu, interp) = both!(map_matrix(&m));
        let want: Vec<f32> = data.iter().map(|x| x * x - 1.0).collect();
        all_same_bits("map (matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [r, c]);
        prop_assert_eq!(interp.shape(), [r, c]);
        let cube_data = SplitMix::new(seed).i64s(a * b * d);
        let cube = Array::from_shape_vec([a, b, d], cube_data.clone()).unwrap();
        let (cpu, interp) = both!(map_cube(&cube));
        let want: Vec<i64> = cube_data.iter().map(|x| x.wrapping_mul(2).wrapping_sub(1)).collect();
        all_same("map (rank 3)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [a, b, d]);
    }

    #[test]
    fn map_tuples(xs in vec_sized(f32s(), size()), seed in any::<u64>()) {
        let mut rng = SplitMix::new(seed);
        let pairs: Vec<(f32, i32)> = xs.iter().map(|&x| (x, rng.next_u64() as i32 % 1000)).collect();
        let v: Vector<(f32, i32)> = pairs.iter().copied().collect();
        let (cpu, interp) = both!(map_tuple(&v));
        let want: Vec<(f32, i32)> = pairs.iter().map(|&(a, b)| (a * 2.0 + b as f32, b - 1)).collect();
        // Tuples of floats compare with `==`: exact, as for any elementwise float code.
        all_same("map (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn imap_passes_the_index(xs in vec_sized(i64s(), size()), ((r, c), data) in matrix_of(f32s())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(imap_vec(&v));
        let want: Vec<i64> = xs.iter().enumerate().map(|(i, x)| x.wrapping_mul(i as i64).wrapping_sub(1)).collect();
        all_same("imap (vector)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let m = Matrix::from_shape_vec([r, c], data.clone()).unwrap();
        let (cpu, interp) = both!(imap_mat(&m));
        let want: Vec<f32> = (0..r * c).map(|k| data[k] + ((k / c) as f32) * 100.0 + (k % c) as f32).collect();
        all_same_bits("imap (matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn zip_with_takes_the_intersection(xs in vec_sized(f32s(), size()), ys in vec_sized(f32s(), size())) {
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(zip_with_f32(&a, &b));
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| x * y + 1.0).collect();
        all_same_bits("zip_with", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [xs.len().min(ys.len())]);
    }

    #[test]
    fn zip_with_of_different_types(xs in vec_sized(i32s(), size()), ys in vec_sized(f64s(), size())) {
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(zip_with_mixed(&a, &b));
        let want: Vec<f64> = xs.iter().zip(&ys).map(|(&x, y)| x as f64 - y).collect();
        all_same_bits("zip_with i32 f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn zip_with_matrices_intersects_each_dimension(
        ((r1, c1), d1) in matrix_of(u64s()),
        ((r2, c2), d2) in matrix_of(u64s()),
    ) {
        let a = Matrix::from_shape_vec([r1, c1], d1.clone()).unwrap();
        let b = Matrix::from_shape_vec([r2, c2], d2.clone()).unwrap();
        let (cpu, interp) = both!(zip_with_mat(&a, &b));
        let (r, c) = (r1.min(r2), c1.min(c2));
        let want: Vec<u64> = (0..r)
            .flat_map(|i| (0..c).map(move |j| (i, j)))
            .map(|(i, j)| d1[i * c1 + j] ^ d2[i * c2 + j].wrapping_shl(3))
            .collect();
        all_same("zip_with (matrices)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [r, c]);
        prop_assert_eq!(interp.shape(), [r, c]);
    }

    #[test]
    fn zip_then_unzip(xs in vec_sized(f32s(), size()), ys in vec_sized(i32s(), size())) {
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let ((z_cpu, a_cpu, b_cpu), (z_int, a_int, b_int)) = both!(zip_unzip(&a, &b));
        let want: Vec<(f32, i32)> = xs.iter().copied().zip(ys.iter().copied()).collect();
        all_same("zip", &z_cpu.to_vec(), &z_int.to_vec(), &want)?;
        let firsts: Vec<f32> = want.iter().map(|p| p.0).collect();
        let seconds: Vec<i32> = want.iter().map(|p| p.1).collect();
        all_same_bits("unzip .0", &a_cpu.to_vec(), &a_int.to_vec(), &firsts)?;
        all_same("unzip .1", &b_cpu.to_vec(), &b_int.to_vec(), &seconds)?;
    }

    #[test]
    fn unzip_of_computed_tuples(xs in vec_sized(u32s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let ((h_cpu, e_cpu), (h_int, e_int)) = both!(unzip_mapped(&v));
        let halves: Vec<u32> = xs.iter().map(|x| x / 2).collect();
        let evens: Vec<bool> = xs.iter().map(|x| x % 2 == 0).collect();
        all_same("unzip .0", &h_cpu.to_vec(), &h_int.to_vec(), &halves)?;
        all_same("unzip .1", &e_cpu.to_vec(), &e_int.to_vec(), &evens)?;
    }

    #[test]
    fn zip_and_unzip_matrices(((r1, c1), d1) in matrix_of(i64s()), ((r2, c2), d2) in matrix_of(f32s())) {
        let a = Matrix::from_shape_vec([r1, c1], d1.clone()).unwrap();
        let b = Matrix::from_shape_vec([r2, c2], d2.clone()).unwrap();
        let ((x_cpu, y_cpu), (x_int, y_int)) = both!(zip_mat_unzip(&a, &b));
        let (r, c) = (r1.min(r2), c1.min(c2));
        let cells: Vec<(usize, usize)> = (0..r).flat_map(|i| (0..c).map(move |j| (i, j))).collect();
        let xs: Vec<i64> = cells.iter().map(|&(i, j)| d1[i * c1 + j].wrapping_add(1)).collect();
        let ys: Vec<f32> = cells.iter().map(|&(i, j)| d2[i * c2 + j] * 0.5).collect();
        all_same("zip/unzip (matrix) .0", &x_cpu.to_vec(), &x_int.to_vec(), &xs)?;
        all_same_bits("zip/unzip (matrix) .1", &y_cpu.to_vec(), &y_int.to_vec(), &ys)?;
        prop_assert_eq!(x_cpu.shape(), [r, c]);
        prop_assert_eq!(y_int.shape(), [r, c]);
    }
}

proptest! {
    // Large inputs cross the CPU backend's chunk boundaries; the interpreter costs a few tens of
    // milliseconds per 100_000 elements, so only a few cases.
    #![proptest_config(config(4))]

    #[test]
    fn large_map_and_zip_with(n in large_size(), seed in any::<u64>()) {
        let mut rng = SplitMix::new(seed);
        let xs = rng.f32s(n, -100.0, 100.0);
        let ys = rng.f32s(n + 3, -100.0, 100.0);
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(map_f32(&a));
        let want: Vec<f32> = xs.iter().map(|x| x * 1.5 - 2.0).collect();
        all_same_bits("map (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (cpu, interp) = both!(zip_with_f32(&a, &b));
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| x * y + 1.0).collect();
        all_same_bits("zip_with (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let is = rng.i64s(n);
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(imap_vec(&v));
        let want: Vec<i64> = is.iter().enumerate().map(|(i, x)| x.wrapping_mul(i as i64).wrapping_sub(1)).collect();
        all_same("imap (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }
}
