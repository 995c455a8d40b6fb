//! `permute` of an `expand`, fused into one kernel that never writes the expanded array (fused
//! form 4, `accel_core::fusion::expand_permute`): scatters with `+` and `min` into a few
//! destinations (contended), with unique destinations (each expanded index once, which checks
//! that every output is spread exactly once), with dropped outputs, and of tuples (a lock per
//! destination).
//!
//! Counts of awkward shapes: no sources, all counts zero, the first or the last zero, counts
//! around the warp and block sizes (31/32/33, 255/256/257, 1023/1024/1025), power-law (Zipf)
//! counts, one count of 10^7 among 10^6 zeros on the GPU (70 000 among 5000 on the CPU), random
//! ones. On the GPU every strategy (a source per thread, warp or block, output-balanced tiles) is
//! forced in turn and must give the interpreter's result, as the automatic choice must.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use accel::Strategy;
use accel::prelude::*;
use libtest_mimic::Failed;
use std::fmt::Debug;

/// Each source `c` expands to `c` outputs `c * 1000 + j`, added into `bins` bins at a hash of
/// the output.
#[accel]
fn scatter_add(counts: Vector<u32>, bins: usize) -> Vector<u64> {
    let e = counts.expand(|c| c, |c, j| (c as u64) * 1000 + j as u64);
    e.map(|v| v % 97 + 1).permute(
        fill(bins, 0u64),
        |i| Some(((e[i] * 2654435761) % bins as u64) as usize),
        |a, b| a + b,
    )
}

/// The least output per bin, a third of the outputs dropped, counts of a signed type.
#[accel]
fn scatter_min(counts: Vector<i32>, bins: usize) -> Vector<i32> {
    let e = counts.expand(|c| c, |c, j| c * 7 - j as i32);
    e.permute(
        fill(bins, i32::MAX),
        |i| if e[i] % 3 == 0 { None } else { Some(((e[i] as usize) + i) % bins) },
        |a, b| a.min(b),
    )
}

/// Every output to its own index of the expanded array: the expansion written by the scatter.
#[accel]
fn scatter_unique(counts: Vector<u32>, total: usize) -> Vector<u64> {
    let e = counts.expand(|c| c, |c, j| ((c as u64) << 32) | j as u64);
    e.permute(fill(total, u64::MAX), |i| Some(i), |a, b| a.min(b))
}

/// Tuples combined under a lock: counts per bin and the xor of the outputs.
#[accel]
fn scatter_pairs(counts: Vector<u32>, bins: usize) -> Vector<(u32, u32)> {
    let e = counts.expand(|c| c % 300, |c, j| c ^ (j as u32 * 2654435761));
    e.map(|v| (1u32, v)).permute(
        fill(bins, (0u32, 0u32)),
        |i| Some(e[i] as usize % bins),
        |a, b| (a.0 + b.0, a.1 ^ b.1),
    )
}

/// Counts of the sweeps: the awkward patterns, then random ones.
fn counts_of(pattern: usize, on: &Target, rng: &mut Rng) -> Vec<u32> {
    match pattern {
        0 => vec![],
        1 => vec![0; 17],
        2 => vec![0, 5, 9, 1],
        3 => vec![4, 1, 9, 0],
        4 => [31, 32, 33, 0, 31, 32, 33].to_vec(),
        5 => [255, 256, 257, 1].to_vec(),
        6 => [1023, 1024, 1025, 0, 2].to_vec(),
        // Power-law (Zipf) counts: a few long, many short.
        7 => (1..=3000).map(|k| 50_000 / (k * k)).collect(),
        // One long count among many zeros.
        8 => {
            let (n, long) = if on.is_gpu() { (1_000_000, 10_000_000) } else { (5000, 70_000) };
            let mut c = vec![0; n];
            c[n / 2] = long;
            c
        }
        _ => {
            let n = rng.below(3000);
            (0..n).map(|_| if rng.below(10) == 0 { rng.below(1500) as u32 } else { rng.below(11) as u32 }).collect()
        }
    }
}

/// Every program on every pattern of counts, against the interpreter and a plain-Rust oracle,
/// the backend run under each of `strategies` (as the runtime is set when empty).
fn patterns(on: &Target, strategies: &[Option<Strategy>]) -> Check {
    for pattern in 0..12 {
        let mut rng = Rng::new("expand_permute", pattern);
        let counts = counts_of(pattern, on, &mut rng);
        let here = |e: Failed| at(&format!("counts pattern {pattern}"), e);
        one_pattern(on, strategies, &counts).map_err(here)?;
    }
    Ok(())
}

fn every_pattern(on: &Target) -> Check {
    patterns(on, &[])
}

/// Runs `run` on the backend under each of `strategies` and compares it with the interpreter's
/// result `reference` (computed once) and the oracle's `want`.
fn under_each<T: PartialEq + Approx + Debug>(
    on: &Target,
    strategies: &[Option<Strategy>],
    what: &str,
    reference: &[T],
    want: &[T],
    run: impl Fn(&Runtime) -> accel::Result<Vec<T>>,
) -> Check {
    let rt = on.rt()?;
    let once = [None];
    let forced = !strategies.is_empty();
    for strategy in if forced { strategies } else { &once } {
        if forced {
            rt.set_expand_strategy(*strategy);
        }
        let what = if forced { format!("{what} (strategy {strategy:?})") } else { what.to_string() };
        let got = ok(&format!("{what} on the {}", on.side()), run(rt))?;
        all_same(on, &what, &got, reference, want)?;
    }
    Ok(())
}

fn one_pattern(on: &Target, strategies: &[Option<Strategy>], counts: &[u32]) -> Check {
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    let v = Vector::from_vec(counts.to_vec());
    let outputs = || counts.iter().flat_map(|&c| (0..c).map(move |j| (c, j)));
    // The long patterns once, the others into one, a few and many destinations.
    let bins: &[usize] = if total > 1_000_000 { &[37] } else { &[1, 37, 5000] };
    for &bins in bins {
        let r = reference!(scatter_add(&v, bins)).to_vec();
        let mut want = vec![0u64; bins];
        for (c, j) in outputs() {
            let y = u64::from(c) * 1000 + u64::from(j);
            want[((y.wrapping_mul(2654435761)) % bins as u64) as usize] += y % 97 + 1;
        }
        under_each(on, strategies, &format!("scatter_add into {bins}"), &r, &want, |rt| {
            scatter_add(rt, &v, bins).map(|a| a.to_vec())
        })?;
        let signed = Vector::from_vec(counts.iter().map(|&c| c as i32).collect());
        let r = reference!(scatter_min(&signed, bins)).to_vec();
        let mut want = vec![i32::MAX; bins];
        for (k, (c, j)) in outputs().enumerate() {
            let y = (c as i32).wrapping_mul(7).wrapping_sub(j as i32);
            if y % 3 != 0 {
                let d = ((y as usize).wrapping_add(k)) % bins;
                want[d] = want[d].min(y);
            }
        }
        under_each(on, strategies, &format!("scatter_min into {bins}"), &r, &want, |rt| {
            scatter_min(rt, &signed, bins).map(|a| a.to_vec())
        })?;
        let r = reference!(scatter_pairs(&v, bins)).to_vec();
        let mut want = vec![(0u32, 0u32); bins];
        for c in counts {
            for j in 0..c % 300 {
                let y = c ^ j.wrapping_mul(2654435761);
                let d = y as usize % bins;
                want[d] = (want[d].0 + 1, want[d].1 ^ y);
            }
        }
        under_each(on, strategies, &format!("scatter_pairs into {bins}"), &r, &want, |rt| {
            scatter_pairs(rt, &v, bins).map(|a| a.to_vec())
        })?;
    }
    let r = reference!(scatter_unique(&v, total)).to_vec();
    let want: Vec<u64> = outputs().map(|(c, j)| (u64::from(c) << 32) | u64::from(j)).collect();
    under_each(on, strategies, "scatter_unique", &r, &want, |rt| scatter_unique(rt, &v, total).map(|a| a.to_vec()))
}

/// Each strategy forced in turn, and the automatic choice, on every pattern of counts. Runs
/// alone: the strategy is a setting of the shared runtime.
fn every_strategy(on: &Target) -> Check {
    let strategies: Vec<Option<Strategy>> = Strategy::ALL.into_iter().map(Some).chain([None]).collect();
    let result = patterns(on, &strategies);
    on.rt()?.set_expand_strategy(None);
    result
}

/// A count that is negative fails as `expand` does, and a destination out of range as
/// `permute` does, fused or not.
fn errors(on: &Target) -> Check {
    let v = Vector::from_vec(vec![3, -2, 4]);
    let what = "a negative count";
    let e = same_error(on, what, scatter_min(on.rt()?, &v, 5), scatter_min::reference(&v, 5))?;
    is_variant(what, &e, "InvalidArgument")?;
    let too_few = Vector::from_vec(vec![2u32, 3]);
    let what = "a destination past the defaults";
    let e = same_error(on, what, scatter_unique(on.rt()?, &too_few, 4), scatter_unique::reference(&too_few, 4))?;
    is_variant(what, &e, "IndexOutOfBounds")
}

/// Every output of sources whose counts may add up to more than a run can address, counted into
/// one bin.
#[accel]
fn count_outputs(counts: Vector<u64>) -> Vector<u64> {
    counts.expand(|c| c, |c, j| c ^ j as u64).permute(fill(1, 0u64), |_| Some(0), |a, b| a + b)
}

/// Counts of 2^62 are an `InvalidArgument` error (no kernel spreads them), whether the spread
/// kernel selects its strategy from the sizes it reads (few sources) or the host does (a forced
/// strategy). GPU only: the other backends would run the 2^63 outputs.
fn too_many_outputs(on: &Target) -> Check {
    let rt = on.rt()?;
    let huge = Vector::from_vec(vec![7, 1 << 62, 1 << 62, 3]);
    let result = [None, Some(Strategy::Thread)].into_iter().try_for_each(|strategy| {
        rt.set_expand_strategy(strategy);
        let what = format!("counts of 2^62 under {strategy:?}");
        match count_outputs(rt, &huge) {
            Ok(v) => Err(Failed::from(format!("{what}: expected an error, got {:?}", v.to_vec()))),
            Err(e) => {
                is_variant(&what, &e, "InvalidArgument")?;
                let says = e.to_string().contains("4 sources with counts up to 4611686018427387904");
                if says { Ok(()) } else { Err(Failed::from(format!("{what}: the error says {e}"))) }
            }
        }
    });
    rt.set_expand_strategy(None);
    result
}

pub fn tests() -> Vec<Test> {
    vec![
        case("expand_permute::every_pattern", every_pattern),
        case("expand_permute::errors", errors),
        exclusive("expand_permute::every_strategy", every_strategy).cuda_only(),
        exclusive("expand_permute::too_many_outputs", too_many_outputs).cuda_only(),
    ]
}
