//! The primes of a vector, by `filter` with a trial-division test: a scalar `while_loop` looks
//! for the least divisor `d` with `d² <= x`, and `x` is prime when none is found.
//!
//! `filter` keeps the selected elements in order; its result length is known only after the
//! predicate has run everywhere (a scan of the flags gives each kept element its place).

use accel::prelude::*;

/// The elements of `xs` that are prime, in order.
#[accel]
pub fn primes(xs: Vector<u32>) -> Vector<u32> {
    xs.filter(|x| {
        // `d <= x / d` is `d * d <= x` without overflow.
        let d = while_loop(2u32, |d| d <= x / d && x % d != 0, |d| d + 1);
        x >= 2 && d > x / d
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    fn is_prime(x: u32) -> bool {
        x >= 2 && (2..).take_while(|d| d * d <= u64::from(x)).all(|d| u64::from(x) % d != 0)
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(7);
        for n in [0, 1, 17, 1000] {
            let mut xs: Vec<u32> = (0..n).map(|_| rng.below(10_000)).collect();
            // The edge cases, including values whose square root overflows `u32` arithmetic.
            xs.extend([0, 1, 2, 3, 4, 25, 4_294_967_291, u32::MAX].iter().take(n.min(8)));
            let want: Vec<u32> = xs.iter().copied().filter(|&x| is_prime(x)).collect();
            let xs = Vector::from_vec(xs);
            let got = primes(&rt, &xs)?.to_vec();
            check::exact("primes vs interpreter", &got, &primes::reference(&xs)?.to_vec())?;
            check::exact("primes vs oracle", &got, &want)?;
        }
        Ok(())
    }
}
