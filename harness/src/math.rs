//! Exact integer arithmetic the game and the metrics share, the rounding
//! of every float a report or probe writes ([`round4`]), and the two
//! sample statistics the link fits share ([`pearson`], [`nearest_rank`]).
//!
//! [`isqrt`] is `u64::isqrt` at a fraction of the cost: a floating-point
//! estimate, then an exact integer correction. IEEE 754 square roots are
//! correctly rounded everywhere, and the correction makes the result exact
//! regardless, so the game stays bit-identical across platforms.

/// ⌊√n⌋, exactly.
pub fn isqrt(n: u64) -> u64 {
    // Through `i64` where it is the same value (one instruction each way,
    // where `u64` ↔ `f64` takes several on x86-64 without AVX-512): the
    // root of any `u64`, rounded, is at most 2³².
    let f = if n < 1 << 63 { n as i64 as f64 } else { n as f64 };
    let mut r = f.sqrt() as i64 as u64;
    while r.checked_mul(r).is_none_or(|sq| sq > n) {
        r -= 1;
    }
    while (r + 1).checked_mul(r + 1).is_some_and(|sq| sq <= n) {
        r += 1;
    }
    r
}

/// ⌊√(dx² + dy² + dz²)⌋ for any differences of two `i32` coordinates
/// (the sum of squares can pass `u64::MAX`: then a float root, exact to
/// far below a micrometre's share of such distances).
pub fn hypot3(dx: u64, dy: u64, dz: u64) -> u64 {
    let sum = dx as u128 * dx as u128 + dy as u128 * dy as u128 + dz as u128 * dz as u128;
    match u64::try_from(sum) {
        Ok(n) => isqrt(n),
        Err(_) => (sum as f64).sqrt() as u64,
    }
}

/// [`hypot3`] of the differences `a − b` of two points, computed in `f64`
/// when that is exact — the common case, kept branch-light for the
/// metrics' per-entity loops: below 2⁵² every square and their sum are
/// exact integers in an `f64`, and the correctly rounded root truncates
/// to ⌊√s⌋ (see [`isqrt`]). Otherwise exactly as [`hypot3`].
#[inline]
pub fn distance(a: [i32; 3], b: [i32; 3]) -> u64 {
    let d = |i: usize| (a[i] as i64 - b[i] as i64) as f64;
    let (dx, dy, dz) = (d(0), d(1), d(2));
    let s = dx * dx + dy * dy + dz * dz;
    if s < (1u64 << 52) as f64 {
        // The root is below 2²⁶: through `i64`, the same value in one
        // instruction.
        s.sqrt() as i64 as u64
    } else {
        let d = |i: usize| (a[i] as i64 - b[i] as i64).unsigned_abs();
        hypot3(d(0), d(1), d(2))
    }
}

/// Whether [`distance`]`(a, b)` — rounded down to a whole µm — is more
/// than `allowed`, without a root: ⌊√s⌋ > a exactly when s ≥ (a + 1)².
/// For the tests most points pass (a render within a snap's reach, a
/// motion shorter than a jump).
#[inline]
pub fn farther_than(a: [i32; 3], b: [i32; 3], allowed: i64) -> bool {
    let Ok(allowed) = u64::try_from(allowed) else { return true };
    // A difference is below 2³², so each square fits `u64`: only the sum,
    // and the bound's square, need 128 bits.
    let d = |x: i32, y: i32| (x as i64 - y as i64).unsigned_abs().pow(2) as u128;
    let s = d(a[0], b[0]) + d(a[1], b[1]) + d(a[2], b[2]);
    s >= (allowed as u128 + 1).pow(2)
}

/// Rounds to 4 decimals (reports compare byte for byte).
pub fn round4(x: f64) -> f64 {
    let r = (x * 1e4).round() / 1e4;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// Pearson's correlation of `pairs`; `None` with fewer than two or no spread.
pub fn pearson(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 2 {
        return None;
    }
    let n = pairs.len() as f64;
    let (ma, mb) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let cov: f64 = pairs.iter().map(|(a, b)| (a - ma) * (b - mb)).sum();
    let va: f64 = pairs.iter().map(|(a, _)| (a - ma).powi(2)).sum();
    let vb: f64 = pairs.iter().map(|(_, b)| (b - mb).powi(2)).sum();
    (va > 0.0 && vb > 0.0).then(|| cov / (va * vb).sqrt())
}

/// The `u` quantile of sorted `v` by nearest rank; 0 when `v` is empty.
pub fn nearest_rank(v: &[f64], u: f64) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v[((v.len() as f64 * u) as usize).min(v.len() - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::{distance, farther_than, hypot3, isqrt};
    use proptest::prelude::*;

    #[test]
    fn hypot3_is_exact_and_does_not_overflow() {
        assert_eq!(hypot3(3, 4, 0), 5);
        assert_eq!(hypot3(2, 3, 6), 7);
        let far = (i32::MAX as i64 - i32::MIN as i64) as u64;
        assert!(hypot3(far, far, far) >= far);
    }

    proptest! {
        /// `isqrt` is the standard library's at any `u64`, squares and
        /// their neighbours included.
        #[test]
        fn isqrt_is_the_standard_librarys(n in any::<u64>(), k in any::<u32>()) {
            prop_assert_eq!(isqrt(n), n.isqrt());
            let k = k as u64;
            for m in [k * k, (k * k).saturating_sub(1), (k * k).saturating_add(1)] {
                prop_assert_eq!(isqrt(m), m.isqrt());
            }
        }
    }

    #[test]
    fn edges_match_the_standard_library() {
        for n in [
            0u64,
            1,
            2,
            3,
            4,
            15,
            16,
            17,
            u32::MAX as u64,
            (1 << 52) - 1,
            1 << 52,
            (1 << 53) + 1,
            u64::MAX - 1,
            u64::MAX,
        ] {
            assert_eq!(isqrt(n), n.isqrt(), "{n}");
        }
        for k in [3u64, 1 << 20, (1 << 26) + 1, (1 << 32) - 1] {
            for n in [k * k - 1, k * k, k * k + 1] {
                assert_eq!(isqrt(n), n.isqrt(), "{n}");
            }
        }
    }

    proptest! {
        /// `distance` is `hypot3` of the differences, near and far.
        #[test]
        fn distance_is_hypot3(
            a in proptest::array::uniform3(any::<i32>()),
            near in proptest::array::uniform3(-70_000_000i32..70_000_000),
            k in 1i64..(1 << 26),
        ) {
            let exact = |a: [i32; 3], b: [i32; 3]| {
                let d = |i: usize| (a[i] as i64 - b[i] as i64).unsigned_abs();
                hypot3(d(0), d(1), d(2))
            };
            let b = std::array::from_fn(|i| a[i].saturating_add(near[i]));
            prop_assert_eq!(distance(a, b), exact(a, b));
            prop_assert_eq!(distance(a, near), exact(a, near));
            // Whole distances and their neighbours along and off an axis.
            let onto = |dx: i64, dy: i32| [a[0].saturating_sub(dx as i32), a[1].saturating_sub(dy), a[2]];
            for (dx, dy) in [(k, 0), (k, 1), (k - 1, 1), (k, k as i32 % 1000)] {
                prop_assert_eq!(distance(a, onto(dx, dy)), exact(a, onto(dx, dy)));
            }
        }

        #[test]
        fn matches_the_standard_library(n in any::<u64>(), k in 0u64..(1 << 32)) {
            prop_assert_eq!(isqrt(n), n.isqrt());
            let sq = k * k;
            prop_assert_eq!(isqrt(sq.saturating_sub(1)), sq.saturating_sub(1).isqrt());
            prop_assert_eq!(isqrt(sq), k);
        }

        /// The comparison without a root is the comparison of the
        /// rounded-down distance.
        #[test]
        fn farther_than_compares_the_rounded_distance(
            a in proptest::array::uniform3(any::<i32>()),
            b in proptest::array::uniform3(any::<i32>()),
            near in proptest::array::uniform3(-3_000i32..3_000),
            allowed in -5i64..8_000_000_000,
        ) {
            prop_assert_eq!(farther_than(a, b, allowed), distance(a, b) as i64 > allowed);
            // Mostly the interesting case: a short step against a bound near it.
            let c = [a[0].saturating_add(near[0]), a[1].saturating_add(near[1]), a[2].saturating_add(near[2])];
            let bound = distance(a, c) as i64 + allowed % 3 - 1;
            prop_assert_eq!(farther_than(a, c, bound), distance(a, c) as i64 > bound);
        }
    }
}
