//! Quicksort as nested data parallelism (Blelloch's NESL quicksort): every round partitions
//! every segment around its first value at once, inside `awhile`, until no segment has a value
//! other than its pivot.
//!
//! A round is one nested map over the segments: the pivot is a read of the row (`seg[0]`), the
//! counts of the values below, equal to and above it a fold and a scan of the row, and each
//! value's new place a per-row scalar (its part's start) plus its rank within its part. The
//! values travel with the start of their segment, so the map gives every value its place in the
//! whole vector; a `permute` moves them there, and the parts of every segment (`expand`, then a
//! `filter` of the empty ones) are the next round's segments. Flattening turns the map into
//! segmented folds and scans over all segments at once: the parallelism is that of all segments
//! together, however unbalanced the partitions.

use accel::prelude::*;

/// `xs` in ascending order.
#[accel]
pub fn quicksort(xs: Vector<i32>) -> Vector<i32> {
    let n = xs.len();
    // Each value with the start of its segment, and one segment holding everything.
    let placed = xs.map(|x| (x, 0usize));
    let lengths = generate(if n > 0 { 1usize } else { 0 }, |_| n);
    let sorted = awhile(
        (placed, lengths, unit(true)),
        |s| s.2,
        |s| {
            let segments = Nested::from_lengths(s.1, s.0);
            let rounds = segments.map(|seg| {
                let pivot = seg[0].0;
                let below = seg.map(|(x, _)| {
                    (
                        if x < pivot { 1usize } else { 0 },
                        if x == pivot { 1usize } else { 0 },
                        if x > pivot { 1usize } else { 0 },
                    )
                });
                let parts = below.fold((0usize, 0usize, 0usize), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2)).get();
                let ranks = below.scanl1(|a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
                let moves = seg.zip_with(ranks, |(x, start), r| {
                    let (equal, above) = (start + parts.0, start + parts.0 + parts.1);
                    if x < pivot {
                        (x, start + r.0 - 1, start)
                    } else if x == pivot {
                        (x, equal + r.1 - 1, equal)
                    } else {
                        (x, above + r.2 - 1, above)
                    }
                });
                (moves, parts)
            });
            let moves = rounds.0.values();
            let next = moves.map(|(x, _, start)| (x, start)).permute(s.0, |i| moves[i].1, |a, _| a);
            let split = rounds.1.expand(
                |_| 3usize,
                |p, j| {
                    if j == 0 {
                        p.0
                    } else if j == 1 {
                        p.1
                    } else {
                        p.2
                    }
                },
            );
            let changed = rounds.1.map(|p| p.0 + p.2).fold(0usize, |a, b| a.max(b));
            (next, split.filter(|l| l > 0), unit(changed.get() > 0))
        },
    );
    sorted.0.map(|(x, _)| x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(21);
        for (n, range) in [(0, 1), (1, 1), (2, 2), (17, 5), (1000, 1_000_000), (4099, 7), (30_000, u32::MAX)] {
            let v: Vec<i32> = (0..n).map(|_| rng.below(range) as i32).collect();
            let xs = Vector::from_vec(v.clone());
            let mut want = v;
            want.sort_unstable();
            assert_eq!(quicksort(&rt, &xs)?.to_vec(), want, "n = {n}");
            if n <= 4099 {
                assert_eq!(quicksort::reference(&xs)?.to_vec(), want, "n = {n}");
            }
        }
        Ok(())
    }
}
