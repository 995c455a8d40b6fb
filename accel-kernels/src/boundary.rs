//! Where a stencil reads outside its array: the one rule that the interpreter, the CPU backend
//! and the device kernels all call (host-compilable, so that it is unit-tested here).

/// A stencil boundary without its constant's value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rule {
    /// The nearest element inside.
    Clamp,
    /// Reflection about the edge without repeating it: `-1` reads 1, `n` reads `n - 2`.
    Mirror,
    /// Periodic: `-1` reads `n - 1`.
    Wrap,
    /// A fixed value replaces every read outside.
    Constant,
}

/// The coordinate that coordinate `i` of a dimension of extent `n > 0` reads under `rule`, or
/// `None` when `i` is outside and the rule is [`Rule::Constant`].
///
/// `Mirror` is periodic with period `2(n - 1)`, so offsets that reach past the far edge of a
/// short dimension still land inside.
#[inline(always)]
pub fn resolve(rule: Rule, i: isize, n: usize) -> Option<usize> {
    let n = n as isize;
    if i >= 0 && i < n {
        return Some(i as usize);
    }
    let inside = match rule {
        Rule::Clamp => {
            if i < 0 {
                0
            } else {
                n - 1
            }
        }
        Rule::Wrap => i.rem_euclid(n),
        Rule::Mirror if n == 1 => 0,
        Rule::Mirror => {
            let period = 2 * (n - 1);
            let m = i.rem_euclid(period);
            if m < n { m } else { period - m }
        }
        Rule::Constant => return None,
    };
    Some(inside as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_lands_inside_or_says_constant() {
        let read =
            |rule, n: usize| -> [Option<usize>; 9] { core::array::from_fn(|k| resolve(rule, k as isize - 3, n)) };
        assert_eq!(read(Rule::Clamp, 3), [0, 0, 0, 0, 1, 2, 2, 2, 2].map(Some));
        assert_eq!(read(Rule::Wrap, 3), [0, 1, 2, 0, 1, 2, 0, 1, 2].map(Some));
        assert_eq!(read(Rule::Mirror, 3), [1, 2, 1, 0, 1, 2, 1, 0, 1].map(Some));
        assert_eq!(read(Rule::Mirror, 1), [Some(0); 9]);
        assert_eq!(read(Rule::Constant, 3), [None, None, None, Some(0), Some(1), Some(2), None, None, None]);
    }
}
