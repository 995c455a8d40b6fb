//! The Sieve of Eratosthenes, data-parallel (the thesis on expand/permute, §5.2): the primes
//! below `c` sieve the candidates `[c, c²)` in one round, so a loop of rounds, each `c` squared,
//! finds the primes below `n`.
//!
//! A round expands every known prime into its multiples in the round's range (`expand`) and
//! scatters a 0 onto each of them (`permute` with `min` into the candidates); the candidates
//! left are the new primes (`filter`). Fusion turns the expand and the permute into one kernel
//! that never writes the list of multiples (`accel_core::fusion::expand_permute`): the primes 2
//! and 3 alone have a third of a round's multiples, so the GPU spreads them over output-balanced
//! tiles rather than a thread or a block per prime.

use accel::prelude::*;

/// The primes below `n`, in order.
#[accel]
pub fn primes_below(n: u32) -> Vector<u32> {
    // The primes below 3, and 3: the first round sieves [3, 9).
    let sieved = awhile(
        (fill(1, 2u32), unit(3u32)),
        |s| unit(s.1.get() < n),
        |s| {
            let c = s.1.get();
            // min(c², n), without overflow.
            let end = if c <= n / c { c * c } else { n };
            let multiples = s.0.expand(|p| (end - 1) / p - (c - 1) / p, |p, j| ((c - 1) / p + 1 + j as u32) * p);
            let left = multiples.map(|_| 0u32).permute(
                generate((end - c) as usize, |i| c + i as u32),
                |i| Some((multiples[i] - c) as usize),
                |a, b| a.min(b),
            );
            (s.0.concat(left.filter(|x| x > 0)), unit(end))
        },
    );
    // Below 3 the loop does not run: the first prime, 2, only counts when n > 2.
    sieved.0.filter(|p| p < n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;

    /// The primes below `n` by a plain sequential sieve.
    pub(crate) fn oracle(n: u32) -> Vec<u32> {
        let n = n as usize;
        let mut composite = vec![false; n.max(2)];
        let mut out = Vec::new();
        for p in 2..n {
            if !composite[p] {
                out.push(p as u32);
                (p * p..n).step_by(p).for_each(|m| composite[m] = true);
            }
        }
        out
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        for n in [0, 1, 2, 3, 4, 5, 9, 10, 48, 49, 50, 1000, 65_537] {
            let got = primes_below(&rt, n)?.to_vec();
            check::exact(&format!("primes below {n} vs oracle"), &got, &oracle(n))?;
            if n <= 1000 {
                check::exact(&format!("primes below {n} vs interpreter"), &got, &primes_below::reference(n)?.to_vec())?;
            }
        }
        Ok(())
    }

    #[test]
    fn the_marking_is_one_fused_kernel() {
        let plan = primes_below::plan().to_string();
        assert!(plan.contains("expand_permute"), "{plan}");
        assert!(!plan.contains("skeleton: expand"), "no expanded array is written:\n{plan}");
    }
}
