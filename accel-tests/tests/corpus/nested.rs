//! `Nested::map` with parallel code per row, flattened at build time (`accel_core::flatten`):
//! folds of the row, per-row scalars (a row's mean) used by later row code, `map` and `zip_with`
//! of the row, inclusive scans of the row, reads of outer arrays by computed index (a CSR
//! sparse matrix-vector product); results a scalar per row or a vector per row.
//!
//! Rows of awkward lengths: no rows, only empty rows, the first or the last row empty, lengths
//! around the warp, block and scan tile sizes (31/32/33, 255/256/257, 1023/1024/1025), random
//! and power-law (Zipf) lengths, one long row among many empty ones. Integers compare exactly;
//! the sparse product's float sums within the rounding bound of their row.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::strategies::*;
use accel::Elem;
use accel::prelude::*;
use libtest_mimic::Failed;
use proptest::prelude::*;

#[accel]
fn row_sums(n: Nested<i64>) -> Vector<i64> {
    n.map(|row| row.sum())
}

#[accel]
fn row_spread(n: Nested<i64>) -> Vector<i64> {
    n.map(|row| {
        let len = (row.len() as i64).max(1);
        let mean = row.sum().get() / len;
        row.map(|x| (x - mean) * (x - mean)).sum().get() / len
    })
}

#[accel]
fn rows_centred(n: Nested<i64>, k: i64) -> Nested<i64> {
    n.map(|row| {
        let s = row.sum().get();
        row.map(|x| x * k - s)
    })
}

#[accel]
fn rows_scanned(n: Nested<i32>) -> Nested<i32> {
    n.map(|row| row.zip_with(row.map(|x| x ^ 5), |a, b| a + b).scanl1(|a, b| a + b))
}

#[accel]
fn row_lengths_and_firsts(n: Nested<u32>) -> Vector<u64> {
    n.map(|row| if row.len() > 2 { (row.len() as u64) * 10 } else { row.fold(3u32, |a, b| a ^ b).get() as u64 })
}

#[accel]
fn spmv(rows: Nested<(u32, f32)>, x: Vector<f32>) -> Vector<f32> {
    rows.map(|row| row.map(|(c, v)| v * x[c as usize]).sum())
}

/// Lengths of rows for the sweeps: the awkward patterns of the issue, then random ones.
fn row_lengths(pattern: usize, rng: &mut Rng) -> Vec<usize> {
    match pattern {
        0 => vec![],
        1 => vec![0; 17],
        2 => vec![0, 5, 9, 1],
        3 => vec![4, 1, 9, 0],
        4 => [31, 32, 33, 0, 31, 32, 33].to_vec(),
        5 => [255, 256, 257, 1].to_vec(),
        6 => [1023, 1024, 1025, 0, 2].to_vec(),
        // Power-law (Zipf) lengths: a few long rows, many short ones.
        7 => (1..=300).map(|k| 20_000 / (k * k)).collect(),
        // One long row among many empty ones.
        8 => {
            let mut l = vec![0; 5000];
            l[2500] = 70_000;
            l
        }
        _ => {
            let total = rng.below(9000);
            rng.lengths(total, false)
        }
    }
}

fn nested_from<E: Elem>(lengths: &[usize], values: Vec<E>) -> Result<Nested<E>, accel::Error> {
    let mut offsets = vec![0];
    for l in lengths {
        offsets.push(offsets[offsets.len() - 1] + l);
    }
    Nested::from_parts(offsets, values)
}

fn rows<E: Elem>(n: &Nested<E>) -> Vec<Vec<E>> {
    let (offsets, values) = (n.offsets().to_vec(), n.values().to_vec());
    offsets.windows(2).map(|w| values[w[0]..w[1]].to_vec()).collect()
}

fn same_nested<E: Elem + PartialEq + std::fmt::Debug>(what: &str, got: &Nested<E>, want: &Nested<E>) -> Check {
    same(&format!("{what} (offsets)"), &got.offsets(), &want.offsets())?;
    same(&format!("{what} (values)"), got.values(), want.values())
}

/// Every program on every pattern of row lengths, against the interpreter and a plain-Rust oracle.
fn integer_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let mut rng = Rng::new("nested::integer_rows", pattern);
        let lengths = row_lengths(pattern, &mut rng);
        let total: usize = lengths.iter().sum();
        let n = nested_from(&lengths, rng.vec::<i64>(total).into_iter().map(|x| x % 1000).collect())?;
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        let rs = rows(&n);
        let (g, r) = both!(on, row_sums(&n));
        let want: Vec<i64> = rs.iter().map(|r| r.iter().sum()).collect();
        all_same(on, "row sums", &g.to_vec(), &r.to_vec(), &want).map_err(here)?;
        let (g, r) = both!(on, row_spread(&n));
        let want: Vec<i64> = rs
            .iter()
            .map(|r| {
                let len = (r.len() as i64).max(1);
                let mean = r.iter().sum::<i64>() / len;
                r.iter().map(|x| (x - mean) * (x - mean)).sum::<i64>() / len
            })
            .collect();
        all_same(on, "row spread", &g.to_vec(), &r.to_vec(), &want).map_err(here)?;
        let (g, r) = both!(on, rows_centred(&n, 3));
        same_nested("rows centred", &g, &r).map_err(here)?;
        let want: Vec<Vec<i64>> =
            rs.iter().map(|r| r.iter().map(|x| x * 3 - r.iter().sum::<i64>()).collect()).collect();
        check!(rows(&r) == want);
        let n32 = nested_from(&lengths, rng.vec::<i32>(total))?;
        let (g, r) = both!(on, rows_scanned(&n32));
        same_nested("rows scanned", &g, &r).map_err(here)?;
        let want: Vec<Vec<i32>> = rows(&n32)
            .iter()
            .map(|r| {
                let mut acc = 0i32;
                r.iter()
                    .map(|&x| {
                        acc = acc.wrapping_add(x.wrapping_add(x ^ 5));
                        acc
                    })
                    .collect()
            })
            .collect();
        check!(rows(&r) == want);
        let nu = nested_from(&lengths, rng.vec::<u32>(total))?;
        let (g, r) = both!(on, row_lengths_and_firsts(&nu));
        let want: Vec<u64> = rows(&nu)
            .iter()
            .map(|r| if r.len() > 2 { r.len() as u64 * 10 } else { r.iter().fold(3u32, |a, b| a ^ b) as u64 })
            .collect();
        all_same(on, "row lengths or folds", &g.to_vec(), &r.to_vec(), &want).map_err(here)?;
    }
    Ok(())
}

/// The CSR sparse matrix-vector product written as a nested map, on every pattern of row
/// lengths: within the rounding bound of each row (the same product of absolute values).
fn sparse_product(on: &Target) -> Check {
    for pattern in 0..12 {
        let mut rng = Rng::new("nested::spmv", pattern);
        let lengths = row_lengths(pattern, &mut rng);
        let total: usize = lengths.iter().sum();
        let cols = 1 + rng.below(5000);
        let entries: Vec<(u32, f32)> =
            (0..total).map(|_| (rng.below(cols) as u32, rng.f32s(1, -1.0, 1.0)[0])).collect();
        let x = Vector::from_vec(rng.f32s(cols, -2.0, 2.0));
        let m = nested_from(&lengths, entries.clone())?;
        let abs_m = nested_from(&lengths, entries.iter().map(|&(c, v)| (c, v.abs())).collect())?;
        let abs_x = Vector::from_vec(x.to_vec().iter().map(|v| v.abs()).collect());
        let (g, r) = both!(on, spmv(&m, &x));
        let bound = reference!(spmv(&abs_m, &abs_x));
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        summed("spmv (backend vs interpreter)", &g.to_vec(), &r.to_vec(), &bound.to_vec()).map_err(here)?;
        let want: Vec<f32> =
            rows(&m).iter().map(|r| r.iter().map(|&(c, v)| v * x.get_linear(c as usize)).sum()).collect();
        summed("spmv (interpreter vs oracle)", &r.to_vec(), &want, &bound.to_vec()).map_err(here)?;
    }
    Ok(())
}

fn random_rows(on: &Target) -> Check {
    props(24, prop::collection::vec(prop::collection::vec(small_i32s(), 0..70), 0..60), |rows_in| {
        let n = Nested::from_rows(rows_in.iter().map(|r| r.iter().map(|&x| x as i64).collect()).collect());
        let (g, r) = both!(on, row_spread(&n));
        let want: Vec<i64> = rows_in
            .iter()
            .map(|r| {
                let len = (r.len() as i64).max(1);
                let mean = r.iter().map(|&x| x as i64).sum::<i64>() / len;
                r.iter().map(|&x| (x as i64 - mean) * (x as i64 - mean)).sum::<i64>() / len
            })
            .collect();
        all_same(on, "row spread", &g.to_vec(), &r.to_vec(), &want)
    })
}

pub fn tests() -> Vec<Test> {
    vec![
        case("nested::map::integer_rows", integer_rows),
        case("nested::map::sparse_product", sparse_product),
        case("nested::map::random_rows", random_rows),
    ]
}
