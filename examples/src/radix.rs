//! Radix sort of `u32` keys, least significant bit first (ICFP'13, §6): each of the 32 passes is
//! a stable split by one bit, the keys whose bit is clear first, in order, then the others.
//!
//! A split is Blelloch's: a flag per key (1 where the bit is clear), its exclusive prefix sums with
//! their total (`scanl_total`), which give every clear key its place among the clear keys and every
//! set key its place after them (`total + i - before[i]`), and a `permute` of the keys to those
//! places. [`radix_sort`] runs the 32 passes inside `awhile`, calling [`split`] (inlined at build
//! time). Stability is what makes the passes compose: after pass `b` the keys are in order of
//! their lowest `b + 1` bits.

use accel::prelude::*;

/// The stable partition of `keys` by bit `bit` (0 is the lowest; from 32 on every bit is clear):
/// the keys with the bit clear, in their order, then those with it set, in theirs.
#[accel]
pub fn split(keys: Vector<u32>, bit: u32) -> Vector<u32> {
    let n = keys.len();
    let clear = keys.map(|k| if bit < 32 && (k >> bit) & 1 == 1 { 0u32 } else { 1u32 });
    let (before, total) = clear.scanl_total(0u32, |a, b| a + b);
    keys.permute(
        fill(n, 0u32),
        |i| if clear[i] == 1 { before[i] as usize } else { total.get() as usize + i - before[i] as usize },
        |a, b| a + b,
    )
}

/// `keys` in ascending order.
#[accel]
pub fn radix_sort(keys: Vector<u32>) -> Vector<u32> {
    let sorted = awhile((keys, unit(0u32)), |s| unit(s.1.get() < 32), |s| (split(s.0, s.1.get()), unit(s.1.get() + 1)));
    sorted.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    #[test]
    fn sorts_like_the_standard_library() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(11);
        for n in [0usize, 1, 2, 3, 255, 1000, 4099] {
            // Keys over the whole range, and keys of 8 values (many equal keys).
            for few in [false, true] {
                let keys: Vec<u32> = (0..n)
                    .map(|_| {
                        let key = rng.next_u64() as u32;
                        if few { key % 8 } else { key }
                    })
                    .collect();
                let mut want = keys.clone();
                want.sort_unstable();
                let input = Vector::from_vec(keys);
                let got = radix_sort(&rt, &input)?;
                check::exact("radix_sort vs sort", &got.to_vec(), &want)?;
                check::exact("radix_sort vs interpreter", &got.to_vec(), &radix_sort::reference(&input)?.to_vec())?;
            }
        }
        Ok(())
    }

    #[test]
    fn a_split_is_stable() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let keys = Vector::from_vec(vec![6u32, 1, 4, 3, 2, 5, 0, 7, u32::MAX, 8]);
        let got = split(&rt, &keys, 0)?.to_vec();
        assert_eq!(got, [6, 4, 2, 0, 8, 1, 3, 5, 7, u32::MAX]);
        assert_eq!(split(&rt, &keys, 31)?.to_vec(), [6, 1, 4, 3, 2, 5, 0, 7, 8, u32::MAX]);
        // Past the highest bit every bit is clear: the keys stay as they are.
        assert_eq!(split(&rt, &keys, 40)?.to_vec(), keys.to_vec());
        Ok(())
    }
}
