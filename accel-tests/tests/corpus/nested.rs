//! `Nested::map` and `map_rows` (over a matrix) with parallel code per row, flattened at build
//! time (`accel_core::flatten`): folds of the row, per-row scalars (a row's mean) used by later
//! row code, `map` and `zip_with` of the row, scans of the row, reads of the row by index (with
//! per-row bounds errors), reads of outer arrays by computed index (a CSR sparse matrix-vector
//! product), filters of the row with a per-row predicate, arrays of a per-row size generated in
//! the row; results a scalar per row, a vector per row, or a tuple of those.
//!
//! Rows of awkward lengths: no rows, only empty rows, the first or the last row empty, lengths
//! around the warp, block and scan tile sizes (31/32/33, 255/256/257, 1023/1024/1025), random
//! and power-law (Zipf) lengths, one long row among many empty ones. Integers compare exactly;
//! the sparse product's float sums within the rounding bound of their row.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::strategies::*;
use accel::prelude::*;
use accel::{Elem, Strategy};
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

#[accel]
fn row_sums_and_scaled(n: Nested<i64>) -> (Vector<i64>, Nested<i64>) {
    n.map(|row| (row.sum(), row.map(|x| x * 3)))
}

/// The composition of each row's affine maps `x -> a x + b`, in order (not commutative), seeded
/// by the identity.
#[accel]
fn composed_rows(n: Nested<(i64, i64)>) -> Vector<(i64, i64)> {
    n.map(|row| row.fold((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1)))
}

/// Each row's wrapping sum and its minimum (from `i64::MAX`): commutative operators, which the
/// walks fold out of order.
#[accel]
fn row_sums_and_minima(n: Nested<i64>) -> (Vector<i64>, Vector<i64>) {
    n.map(|row| (row.sum(), row.fold(i64::MAX, |a, b| a.min(b))))
}

/// Each row's largest pair, part by part, of two 4-byte columns (the ranges walk reads a lane's
/// run of each 16 bytes a load, and zips them).
#[accel]
fn row_maxima_pairs(n: Nested<(i32, u32)>) -> Vector<(i32, u32)> {
    n.map(|row| row.fold((i32::MIN, 0u32), |a, b| (a.0.max(b.0), a.1.max(b.1))))
}

/// Each row's largest value, of elements narrower than a word (the walks read them a value a
/// load, where they read 4- and 8-byte columns 16 bytes a load).
#[accel]
fn row_maxima_i16(n: Nested<i16>) -> Vector<i16> {
    n.map(|row| row.fold(i16::MIN, |a, b| a.max(b)))
}

#[accel]
fn row_maxima_u8(n: Nested<u8>) -> Vector<u8> {
    n.map(|row| row.fold(0u8, |a, b| a.max(b)))
}

#[accel]
fn row_ends(n: Nested<i64>) -> Vector<i64> {
    n.map(|row| if row.len() > 0 { row[0] - row[row.len() - 1] } else { 0 })
}

#[accel]
fn row_firsts(n: Nested<i64>) -> Vector<i64> {
    n.map(|row| row[0])
}

#[accel]
fn rows_minus_neighbour(n: Nested<i64>) -> Nested<i64> {
    n.map(|row| row.map(|x| x - row[(x & 7) as usize % row.len()]))
}

/// The values of each row at or above the row's mean (a segmented filter whose predicate reads a
/// per-row value), and how many there are with their sum.
#[accel]
fn rows_above_mean(n: Nested<i64>) -> (Nested<i64>, Vector<(usize, i64)>) {
    n.map(|row| {
        let mean = row.sum().get() / (row.len() as i64).max(1);
        let kept = row.filter(|x| x >= mean);
        (kept.map(|x| x - mean), (kept.len(), kept.sum().get()))
    })
}

/// Per row: the row weighted by place (a generate of the row's length reading the row), and the
/// first `len / 3 + 1` multiples of the row's sum (a generate of another per-row size), summed.
#[accel]
fn rows_generated(n: Nested<i64>) -> (Nested<i64>, Vector<i64>) {
    n.map(|row| {
        let s = row.sum().get();
        let weighted = generate(row.len(), |j| row[j] * (j as i64 + 1));
        (weighted, generate(row.len() / 3 + 1, |j| s * j as i64).sum())
    })
}

/// Per row: each value `x` expanded into `(x + mean) & 3` values `x + j - mean` (an expand whose
/// closures read a per-row value), their sum, and the row's largest value seeded by the row's
/// length (a fold whose seed depends on the row).
#[accel]
fn rows_expanded(n: Nested<i64>) -> (Nested<i64>, Vector<i64>, Vector<i64>) {
    n.map(|row| {
        let mean = row.sum().get() / (row.len() as i64).max(1);
        let spread = row.expand(|x| (x + mean) & 3, |x, j| x + j as i64 - mean);
        (spread, spread.sum(), row.fold(row.len() as i64, |a, b| a.max(b)))
    })
}

/// Per row: the running sums from the row's length (a scan whose seed depends on the row), and
/// the running maxima before each value from -1000 with the row's largest (`scanl_total`).
#[accel]
fn rows_scanned_from_seeds(n: Nested<i64>) -> (Nested<i64>, Nested<i64>, Vector<i64>) {
    n.map(|row| {
        let sums = row.scanl(row.len() as i64, |a, b| a + b);
        let maxima = row.scanl_total(-1000, |a, b| a.max(b));
        (sums, maxima.0, maxima.1)
    })
}

/// Per row, from the right: the running maxima (`scanr1`), the running sums towards the row's
/// length (`scanr`, a seed that depends on the row), and the maxima after each value from -1000
/// with the row's largest (`scanr_total`).
#[accel]
fn rows_scanned_right(n: Nested<i64>) -> (Nested<i64>, Nested<i64>, Nested<i64>, Vector<i64>) {
    n.map(|row| {
        let after = row.scanr_total(-1000, |a, b| a.max(b));
        (row.scanr1(|a, b| a.max(b)), row.scanr(row.len() as i64, |a, b| a + b), after.0, after.1)
    })
}

/// Per row of a matrix: the sum of the row seeded by the row's first value.
#[accel]
fn matrix_seeded(m: Matrix<i32>) -> Vector<i32> {
    m.map_rows(|row| row.fold(if row.len() > 0 { row[0] } else { 1 }, |a, b| a + b))
}

/// Per row, with `m` the row's length plus 2: the row's values made non-negative and summed
/// modulo `m` (an operator that reads a per-row value), and their running affine maps modulo
/// `m` from the left (associative, not commutative).
#[accel]
fn rows_modular(n: Nested<i64>) -> (Vector<i64>, Nested<(i64, i64)>) {
    n.map(|row| {
        let m = row.len() as i64 + 2;
        let kept = row.map(|x| x & 1023);
        (
            kept.fold(0, |a, b| (a + b) % m),
            kept.map(|x| (x, 3i64)).scanl1(|a, b| ((a.0 + a.1 * b.0) % m, (a.1 * b.1) % m)),
        )
    })
}

/// Per row of a matrix, scans seeded per row: the running sums from the row's length, the
/// running maxima from the right from the row's first value (7 for an empty row), and the
/// running sums before each value from the row's sum, with the row's total.
#[accel]
fn matrix_scanned_from_seeds(m: Matrix<i32>) -> (Matrix<i32>, Matrix<i32>, Matrix<i32>, Vector<i32>) {
    m.map_rows(|row| {
        let before = row.scanl_total(row.sum().get(), |a, b| a + b);
        let first = if row.len() > 0 { row[0] } else { 7 };
        (row.scanl(row.len() as i32, |a, b| a + b), row.scanr(first, |a, b| a.max(b)), before.0, before.1)
    })
}

#[accel]
fn matrix_centred(m: Matrix<i64>) -> (Vector<i64>, Matrix<i64>) {
    m.map_rows(|row| {
        let mean = row.sum().get() / (row.len() as i64).max(1);
        (row.maximum(), row.map(|x| (x - mean) * (x - mean)))
    })
}

#[accel]
fn matrix_scanned(m: Matrix<i32>) -> Matrix<i32> {
    m.map_rows(|row| row.zip_with(row.map(|x| x ^ 5), |a, b| a + b).scanr1(|a, b| a + b))
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

/// The rows of length pattern `pattern` filled with random integers of magnitude below 1000, their
/// lengths, and the generator (seeded by `name` and the pattern) for more.
fn integer_nested(name: &str, pattern: usize) -> Result<(Vec<usize>, Nested<i64>, Rng), accel::Error> {
    let mut rng = Rng::new(name, pattern);
    let lengths = row_lengths(pattern, &mut rng);
    let total = lengths.iter().sum();
    let n = nested_from(&lengths, rng.vec::<i64>(total).into_iter().map(|x| x % 1000).collect())?;
    Ok((lengths, n, rng))
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
        let (lengths, n, mut rng) = integer_nested("nested::integer_rows", pattern)?;
        let total: usize = lengths.iter().sum();
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

/// A tuple of results per row of a `Nested`: a vector and a nested array.
fn tuple_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let (_, n, _) = integer_nested("nested::tuple_rows", pattern)?;
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        let ((gs, gn), (rs, rn)) = both!(on, row_sums_and_scaled(&n));
        let want: Vec<i64> = rows(&n).iter().map(|r| r.iter().sum()).collect();
        all_same(on, "row sums", &gs.to_vec(), &rs.to_vec(), &want).map_err(here)?;
        same_nested("rows scaled", &gn, &rn).map_err(here)?;
        let want: Vec<Vec<i64>> = rows(&n).iter().map(|r| r.iter().map(|x| x * 3).collect()).collect();
        check!(rows(&rn) == want);
    }
    Ok(())
}

/// Reads of the row by index (segmented gathers): the ends of each row, each value less another
/// value of its row, and the first value of each row, an index error where a row is empty, the
/// same error (index and the row's shape) on both sides.
fn indexed_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let (lengths, n, _) = integer_nested("nested::indexed_rows", pattern)?;
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        let rs = rows(&n);
        let (g, r) = both!(on, row_ends(&n));
        let want: Vec<i64> = rs.iter().map(|r| if r.is_empty() { 0 } else { r[0] - r[r.len() - 1] }).collect();
        all_same(on, "row ends", &g.to_vec(), &r.to_vec(), &want).map_err(here)?;
        let (g, r) = both!(on, rows_minus_neighbour(&n));
        same_nested("rows minus a neighbour", &g, &r).map_err(here)?;
        let want: Vec<Vec<i64>> =
            rs.iter().map(|r| r.iter().map(|&x| x - r[(x & 7) as usize % r.len()]).collect()).collect();
        check!(rows(&r) == want);
        let (g, r) = both_raw!(on, row_firsts(&n));
        if lengths.contains(&0) {
            let e = same_error(on, "the first value of an empty row", g, r).map_err(here)?;
            is_variant("the first value of an empty row", &e, "IndexOutOfBounds").map_err(here)?;
        } else {
            let (g, r) = (g?, r?);
            let want: Vec<i64> = rs.iter().map(|r| r[0]).collect();
            all_same(on, "row firsts", &g.to_vec(), &r.to_vec(), &want).map_err(here)?;
        }
    }
    Ok(())
}

/// Segmented folds of a non-commutative operator and of commutative ones (over 8-, 4-, 2- and
/// 1-byte elements) on every pattern
/// of row lengths (rows spanning many of the walk's ranges, rows of 10^5 among empty ones,
/// Zipf), under each walk in turn on the GPU: ranges of 256 values (`tiles`), rows split into
/// parts (`warp`), wide ranges (`block`), then the automatic choice.
fn every_walk(on: &Target) -> Check {
    let walks = [Some(Strategy::Tiles), Some(Strategy::Warp), Some(Strategy::Block), None];
    let result = walks.iter().try_for_each(|&walk| {
        on.rt()?.set_expand_strategy(walk);
        for pattern in 0..12 {
            let mut rng = Rng::new("nested::every_walk", pattern);
            let mut lengths = row_lengths(pattern, &mut rng);
            if pattern == 8 && on.is_gpu() {
                lengths[2500] = 3_000_000;
            }
            let total: usize = lengths.iter().sum();
            let maps: Vec<(i64, i64)> =
                (0..total).map(|_| (rng.below(3) as i64 - 1, rng.below(7) as i64 - 3)).collect();
            let n = nested_from(&lengths, maps)?;
            let here = |e: Failed| at(&format!("row lengths pattern {pattern}, walk {walk:?}"), e);
            let (g, r) = both!(on, composed_rows(&n));
            let want: Vec<(i64, i64)> = rows(&n)
                .iter()
                .map(|r| {
                    r.iter().fold((1i64, 0i64), |p, q| (p.0.wrapping_mul(q.0), p.1.wrapping_mul(q.0).wrapping_add(q.1)))
                })
                .collect();
            all_same(on, "composed rows", &g.to_vec(), &r.to_vec(), &want).map_err(here)?;
            let values: Vec<i64> = rng.vec::<i64>(total);
            let n = nested_from(&lengths, values)?;
            let ((gs, gm), (rs, rm)) = both!(on, row_sums_and_minima(&n));
            let (want_sums, want_minima): (Vec<i64>, Vec<i64>) = rows(&n)
                .iter()
                .map(|r| (r.iter().fold(0i64, |a, &b| a.wrapping_add(b)), r.iter().copied().fold(i64::MAX, i64::min)))
                .unzip();
            all_same(on, "row sums", &gs.to_vec(), &rs.to_vec(), &want_sums).map_err(here)?;
            all_same(on, "row minima", &gm.to_vec(), &rm.to_vec(), &want_minima).map_err(here)?;
            row_maxima_of_narrow_and_paired(on, &lengths, &mut rng).map_err(here)?;
        }
        Ok(())
    });
    on.rt()?.set_expand_strategy(None);
    result
}

/// Each row's maxima over a tuple of two 4-byte columns, over 2-byte and over 1-byte elements
/// (random values, rows of `lengths`), against the interpreter and a plain-Rust oracle.
fn row_maxima_of_narrow_and_paired(on: &Target, lengths: &[usize], rng: &mut Rng) -> Check {
    let total: usize = lengths.iter().sum();
    let pairs: Vec<(i32, u32)> = rng.vec::<i32>(total).into_iter().zip(rng.vec::<u32>(total)).collect();
    let n = nested_from(lengths, pairs)?;
    let (g, r) = both!(on, row_maxima_pairs(&n));
    let want: Vec<(i32, u32)> =
        rows(&n).iter().map(|r| r.iter().fold((i32::MIN, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)))).collect();
    all_same(on, "row maxima (i32, u32)", &g.to_vec(), &r.to_vec(), &want)?;
    let n = nested_from(lengths, rng.vec::<i16>(total))?;
    let (g, r) = both!(on, row_maxima_i16(&n));
    let want: Vec<i16> = rows(&n).iter().map(|r| r.iter().copied().fold(i16::MIN, i16::max)).collect();
    all_same(on, "row maxima (i16)", &g.to_vec(), &r.to_vec(), &want)?;
    let n = nested_from(lengths, rng.vec::<u8>(total))?;
    let (g, r) = both!(on, row_maxima_u8(&n));
    let want: Vec<u8> = rows(&n).iter().map(|r| r.iter().copied().fold(0, u8::max)).collect();
    all_same(on, "row maxima (u8)", &g.to_vec(), &r.to_vec(), &want)
}

/// [`row_maxima_of_narrow_and_paired`] on every pattern of row lengths, on every backend (the GPU
/// under each walk in turn is [`every_walk`]'s).
fn narrow_and_paired_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let mut rng = Rng::new("nested::narrow_and_paired_rows", pattern);
        let lengths = row_lengths(pattern, &mut rng);
        row_maxima_of_narrow_and_paired(on, &lengths, &mut rng)
            .map_err(|e| at(&format!("row lengths pattern {pattern}"), e))?;
    }
    Ok(())
}

/// `map_rows` over matrices of awkward shapes (no rows, empty rows, widths around the warp,
/// block and scan tile sizes), against the interpreter and a plain-Rust oracle.
fn matrix_rows(on: &Target) -> Check {
    let shapes = [(0, 5), (5, 0), (0, 0), (1, 1), (7, 31), (3, 32), (2, 33), (4, 255), (3, 256), (3, 257)];
    let shapes = shapes.into_iter().chain([(2, 1023), (2, 1024), (2, 1025), (1000, 3), (70, 300)]);
    for (k, (r, c)) in shapes.enumerate() {
        let mut rng = Rng::new("nested::matrix_rows", k);
        let here = |e: Failed| at(&format!("a {r}x{c} matrix"), e);
        let data: Vec<i64> = rng.vec::<i64>(r * c).into_iter().map(|x| x % 1000).collect();
        let m = Matrix::from_shape_vec([r, c], data.clone())?;
        let row_of = |i: usize| &data[i * c..(i + 1) * c];
        if c == 0 && r > 0 {
            // An empty row has no maximum: the same error, from both.
            let (g, w) = both_raw!(on, matrix_centred(&m));
            let e = same_error(on, "maximum of an empty row", g, w).map_err(here)?;
            is_variant("maximum of an empty row", &e, "EmptyReduction").map_err(here)?;
        } else {
            let ((gm, gc), (rm, rc)) = both!(on, matrix_centred(&m));
            let want: Vec<i64> = (0..r).map(|i| row_of(i).iter().copied().max().unwrap_or(0)).collect();
            all_same(on, "row maxima", &gm.to_vec(), &rm.to_vec(), &want).map_err(here)?;
            same("rows centred", &gc, &rc).map_err(here)?;
            let want: Vec<i64> = (0..r)
                .flat_map(|i| {
                    let mean = row_of(i).iter().sum::<i64>() / (c as i64).max(1);
                    row_of(i).iter().map(move |x| (x - mean) * (x - mean))
                })
                .collect();
            check!(rc.shape() == [r, c] && rc.to_vec() == want);
        }
        let data32 = rng.vec::<i32>(r * c);
        let m32 = Matrix::from_shape_vec([r, c], data32.clone())?;
        let (g, w) = both!(on, matrix_scanned(&m32));
        same("rows scanned from the right", &g, &w).map_err(here)?;
        let want: Vec<i32> = (0..r)
            .flat_map(|i| {
                let mut acc = 0i32;
                let mut out: Vec<i32> = data32[i * c..(i + 1) * c]
                    .iter()
                    .rev()
                    .map(|&x| {
                        acc = acc.wrapping_add(x.wrapping_add(x ^ 5));
                        acc
                    })
                    .collect();
                out.reverse();
                out
            })
            .collect();
        check!(w.shape() == [r, c] && w.to_vec() == want);
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

/// A filter of each row with a per-row predicate (new segments per row), on every pattern of row
/// lengths, and on rows where every value or none is kept.
fn filtered_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let (lengths, n, _) = integer_nested("nested::filtered_rows", pattern)?;
        let constant = nested_from(&lengths, vec![7i64; lengths.iter().sum()])?;
        for (what, n) in [("random", &n), ("constant", &constant)] {
            let here = |e: Failed| at(&format!("{what} rows, row lengths pattern {pattern}"), e);
            let ((gk, gs), (rk, rs)) = both!(on, rows_above_mean(n));
            same_nested("rows above their mean", &gk, &rk).map_err(here)?;
            let kept: Vec<Vec<i64>> = rows(n)
                .iter()
                .map(|r| {
                    let mean = r.iter().sum::<i64>() / (r.len() as i64).max(1);
                    r.iter().filter(|&&x| x >= mean).map(|&x| x - mean).collect()
                })
                .collect();
            check!(rows(&rk) == kept);
            let counts: Vec<(usize, i64)> = rows(n)
                .iter()
                .map(|r| {
                    let mean = r.iter().sum::<i64>() / (r.len() as i64).max(1);
                    let k: Vec<i64> = r.iter().copied().filter(|&x| x >= mean).collect();
                    (k.len(), k.iter().sum())
                })
                .collect();
            all_same(on, "kept counts and sums", &gs.to_vec(), &rs.to_vec(), &counts).map_err(here)?;
        }
    }
    Ok(())
}

/// Arrays of a per-row size generated in each row, on every pattern of row lengths.
fn generated_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let (_, n, _) = integer_nested("nested::generated_rows", pattern)?;
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        let ((gw, gs), (rw, rs)) = both!(on, rows_generated(&n));
        same_nested("rows weighted by place", &gw, &rw).map_err(here)?;
        let weighted: Vec<Vec<i64>> =
            rows(&n).iter().map(|r| r.iter().enumerate().map(|(j, &x)| x * (j as i64 + 1)).collect()).collect();
        check!(rows(&rw) == weighted);
        let sums: Vec<i64> = rows(&n)
            .iter()
            .map(|r| {
                let s: i64 = r.iter().sum();
                (0..r.len() / 3 + 1).map(|j| s * j as i64).sum()
            })
            .collect();
        all_same(on, "sums of generated multiples", &gs.to_vec(), &rs.to_vec(), &sums).map_err(here)?;
    }
    Ok(())
}

/// An expand of each row with per-row counts and values, and folds seeded per row, on every
/// pattern of row lengths; a matrix's rows folded from per-row seeds.
fn expanded_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let (_, n, _) = integer_nested("nested::expanded_rows", pattern)?;
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        let ((ge, gs, gm), (re, rs, rm)) = both!(on, rows_expanded(&n));
        same_nested("rows expanded", &ge, &re).map_err(here)?;
        let mut expanded = Vec::new();
        let (mut sums, mut maxima) = (Vec::new(), Vec::new());
        for r in rows(&n) {
            let mean = r.iter().sum::<i64>() / (r.len() as i64).max(1);
            let row: Vec<i64> = r.iter().flat_map(|&x| (0..(x + mean) & 3).map(move |j| x + j - mean)).collect();
            sums.push(row.iter().sum::<i64>());
            expanded.push(row);
            maxima.push(r.iter().fold(r.len() as i64, |a, &b| a.max(b)));
        }
        check!(rows(&re) == expanded);
        all_same(on, "sums of expanded rows", &gs.to_vec(), &rs.to_vec(), &sums).map_err(here)?;
        all_same(on, "maxima seeded by the row's length", &gm.to_vec(), &rm.to_vec(), &maxima).map_err(here)?;
    }
    on.each_shape("nested::map_rows::seeded", Tier::Small, |r, c, rng| {
        let data = rng.vec::<i32>(r * c);
        let m = Matrix::from_shape_vec([r, c], data.clone())?;
        let (g, w) = both!(on, matrix_seeded(&m));
        let want: Vec<i32> = (0..r)
            .map(|i| {
                let row = &data[i * c..(i + 1) * c];
                row.iter().fold(row.first().copied().unwrap_or(1), |a, &b| a.wrapping_add(b))
            })
            .collect();
        all_same(on, "matrix rows seeded by their first value", &g.to_vec(), &w.to_vec(), &want)
    })
}

/// Folds and scans whose operator reads a per-row value ([`rows_modular`]), on every pattern of
/// row lengths, against the interpreter and Rust loops.
fn modular_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let (_, n, _) = integer_nested("nested::modular_rows", pattern)?;
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        let ((gs, ga), (rs, ra)) = both!(on, rows_modular(&n));
        same_nested("running affine maps modulo the row's modulus", &ga, &ra).map_err(here)?;
        let (mut sums, mut maps) = (Vec::new(), Vec::new());
        for r in rows(&n) {
            let m = r.len() as i64 + 2;
            sums.push(r.iter().fold(0, |a, &b| (a + (b & 1023)) % m));
            let mut row: Vec<(i64, i64)> = Vec::new();
            for &x in &r {
                let b = (x & 1023, 3i64);
                row.push(match row.last() {
                    Some(&a) => ((a.0 + a.1 * b.0) % m, (a.1 * b.1) % m),
                    None => b,
                });
            }
            maps.push(row);
        }
        check!(rows(&ra) == maps);
        all_same(on, "sums modulo the row's modulus", &gs.to_vec(), &rs.to_vec(), &sums).map_err(here)?;
    }
    Ok(())
}

/// Scans of a matrix's rows seeded per row ([`matrix_scanned_from_seeds`]) against Rust loops.
fn matrix_scans_seeded(on: &Target) -> Check {
    on.each_shape("nested::map_rows::scanned_from_seeds", Tier::Small, |r, c, rng| {
        let data: Vec<i32> = rng.vec::<i32>(r * c).into_iter().map(|x| x >> 8).collect();
        let m = Matrix::from_shape_vec([r, c], data.clone())?;
        let ((gs, gm, ge, gt), (rs, rm, re, rt)) = both!(on, matrix_scanned_from_seeds(&m));
        let (mut sums, mut maxima, mut before, mut totals) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..r {
            let row = &data[i * c..(i + 1) * c];
            let mut acc = c as i32;
            sums.push(acc);
            for &x in row {
                acc = acc.wrapping_add(x);
                sums.push(acc);
            }
            let mut top = row.first().copied().unwrap_or(7);
            let mut from_right = vec![top];
            for &x in row.iter().rev() {
                top = top.max(x);
                from_right.push(top);
            }
            from_right.reverse();
            maxima.extend(from_right);
            let mut acc = row.iter().fold(0i32, |a, &b| a.wrapping_add(b));
            for &x in row {
                before.push(acc);
                acc = acc.wrapping_add(x);
            }
            totals.push(acc);
        }
        let shaped = |w: usize, v: Vec<i32>| Matrix::from_shape_vec([r, w], v);
        same("running sums from the row's length", &gs, &shaped(c + 1, sums)?)?;
        same("interpreter: running sums", &rs, &gs)?;
        same("running maxima from the right from the first value", &gm, &shaped(c + 1, maxima)?)?;
        same("interpreter: running maxima", &rm, &gm)?;
        same("running sums before each value from the row's sum", &ge, &shaped(c, before)?)?;
        same("interpreter: running sums before", &re, &ge)?;
        all_same(on, "totals from the row's sum", &gt.to_vec(), &rt.to_vec(), &totals)
    })
}

/// Scans of each row, left and right, seeded per row, on every pattern of row lengths.
fn scanned_rows(on: &Target) -> Check {
    for pattern in 0..12 {
        let (_, n, _) = integer_nested("nested::scanned_rows", pattern)?;
        let here = |e: Failed| at(&format!("row lengths pattern {pattern}"), e);
        let ((gs, gm, gt), (rs, rm, rt)) = both!(on, rows_scanned_from_seeds(&n));
        same_nested("running sums from the row's length", &gs, &rs).map_err(here)?;
        same_nested("running maxima before each value", &gm, &rm).map_err(here)?;
        let (mut sums, mut maxima, mut tops) = (Vec::new(), Vec::new(), Vec::new());
        for r in rows(&n) {
            let mut acc = r.len() as i64;
            let mut row = vec![acc];
            for &x in &r {
                acc += x;
                row.push(acc);
            }
            sums.push(row);
            let mut top = -1000i64;
            let mut before = Vec::new();
            for &x in &r {
                before.push(top);
                top = top.max(x);
            }
            maxima.push(before);
            tops.push(top);
        }
        check!(rows(&rs) == sums);
        check!(rows(&rm) == maxima);
        all_same(on, "largest per row from -1000", &gt.to_vec(), &rt.to_vec(), &tops).map_err(here)?;
        let ((g1, g2, g3, g4), (r1, r2, r3, r4)) = both!(on, rows_scanned_right(&n));
        same_nested("running maxima from the right", &g1, &r1).map_err(here)?;
        same_nested("running sums towards the row's length", &g2, &r2).map_err(here)?;
        same_nested("maxima after each value", &g3, &r3).map_err(here)?;
        let (mut inclusive, mut seeded, mut after) = (Vec::new(), Vec::new(), Vec::new());
        for r in rows(&n) {
            let mut row: Vec<i64> = Vec::new();
            for &x in r.iter().rev() {
                row.push(row.last().map_or(x, |&m: &i64| m.max(x)));
            }
            row.reverse();
            inclusive.push(row);
            let mut row = vec![r.len() as i64];
            for &x in r.iter().rev() {
                row.push(x + row[row.len() - 1]);
            }
            row.reverse();
            seeded.push(row);
            let mut row = Vec::new();
            let mut top = -1000i64;
            for &x in r.iter().rev() {
                row.push(top);
                top = top.max(x);
            }
            row.reverse();
            after.push(row);
        }
        check!(rows(&r1) == inclusive);
        check!(rows(&r2) == seeded);
        check!(rows(&r3) == after);
        all_same(on, "largest per row from -1000 (right)", &g4.to_vec(), &r4.to_vec(), &tops).map_err(here)?;
    }
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![
        case("nested::map::integer_rows", integer_rows),
        case("nested::map::sparse_product", sparse_product),
        case("nested::map::random_rows", random_rows),
        case("nested::map::tuple_rows", tuple_rows),
        case("nested::map::indexed_rows", indexed_rows),
        case("nested::map::filtered_rows", filtered_rows),
        case("nested::map::generated_rows", generated_rows),
        case("nested::map::expanded_rows", expanded_rows),
        case("nested::map_rows::scanned_from_seeds", matrix_scans_seeded),
        case("nested::map::modular_rows", modular_rows),
        case("nested::map::scanned_rows", scanned_rows),
        case("nested::map::narrow_and_paired_rows", narrow_and_paired_rows),
        exclusive("nested::map::every_walk", every_walk).cuda_only(),
        case("nested::map_rows::matrices", matrix_rows),
    ]
}
