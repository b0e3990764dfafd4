//! netem's delay distribution tables, generated from their formulas the way
//! iproute2's `normal.c`, `pareto.c` and `paretonormal.c` generate the
//! `*.dist` files: 4096 signed 16-bit quantiles scaled by 8192
//! (`NETEM_DIST_SCALE`). A delay is then `mu + sigma · T[rnd % 4096] / 8192`
//! with the kernel's rounding (see [`tabledist`]).
//!
//! - normal: for `i = 0, 4, …, 16380`, the largest `x` on iproute2's grid
//!   (−10 + k·0.00005) with `rint(16384·Φ(x)) = i`; range −4.00σ..+3.52σ.
//! - pareto (a = 3): `(u^(−1/3) − 1.5) · 4/3 · 8192` for `u = i/65536`,
//!   `i = 65536, 65520, …, 16`, capped at 32767; range −0.667σ..+4σ.
//! - paretonormal: `(normal + 3·pareto) / 4` entry by entry.
//!
//! A test compares these with the `.dist` files of an installed iproute2
//! when one is present.

use std::sync::OnceLock;

/// `NETEM_DIST_SCALE`.
pub const DIST_SCALE: i64 = 8192;
/// Entries per table.
pub const TABLE_SIZE: usize = 4096;

/// A delay distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Distribution {
    /// Uniform over `[mu − sigma, mu + sigma)` (no table).
    #[default]
    Uniform,
    /// Normal.
    Normal,
    /// Pareto, a = 3.
    Pareto,
    /// (normal + 3·pareto)/4.
    ParetoNormal,
}

impl Distribution {
    /// netem's name.
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Normal => "normal",
            Distribution::Pareto => "pareto",
            Distribution::ParetoNormal => "paretonormal",
        }
    }

    /// From netem's name.
    pub fn from_name(s: &str) -> Option<Distribution> {
        Some(match s {
            "uniform" => Distribution::Uniform,
            "normal" => Distribution::Normal,
            "pareto" => Distribution::Pareto,
            "paretonormal" => Distribution::ParetoNormal,
            _ => return None,
        })
    }

    /// The table, or `None` for uniform.
    pub fn table(self) -> Option<&'static [i16; TABLE_SIZE]> {
        static NORMAL: OnceLock<[i16; TABLE_SIZE]> = OnceLock::new();
        static PARETO: OnceLock<[i16; TABLE_SIZE]> = OnceLock::new();
        static PARETONORMAL: OnceLock<[i16; TABLE_SIZE]> = OnceLock::new();
        match self {
            Distribution::Uniform => None,
            Distribution::Normal => Some(NORMAL.get_or_init(|| clamp_all(&normal_raw()))),
            Distribution::Pareto => Some(PARETO.get_or_init(|| clamp_all(&pareto_raw()))),
            Distribution::ParetoNormal => Some(PARETONORMAL.get_or_init(|| {
                let n = normal_raw();
                let p = pareto_raw();
                // C integer division truncates toward zero, as Rust's does.
                let v: Vec<i64> = n.iter().zip(&p).map(|(a, b)| (a + 3 * b) / 4).collect();
                clamp_all(&v)
            })),
        }
    }
}

fn clamp_all(v: &[i64]) -> [i16; TABLE_SIZE] {
    let mut t = [0i16; TABLE_SIZE];
    for (o, x) in t.iter_mut().zip(v) {
        *o = (*x).clamp(i16::MIN as i64, i16::MAX as i64) as i16;
    }
    t
}

/// Normal quantiles × 8192, before clamping to i16.
fn normal_raw() -> Vec<i64> {
    const STEP: f64 = 0.00005;
    (0..TABLE_SIZE)
        .map(|j| {
            let i = 4 * j as i64;
            // rint(16384·Φ(x)) = i  ⇔  Φ(x) < (i + 0.5)/16384: the largest grid
            // point below that quantile.
            let upper = inverse_normal_cdf((i as f64 + 0.5) / 16384.0);
            let k = ((upper + 10.0) / STEP).ceil() - 1.0;
            let x = -10.0 + k * STEP;
            (x * DIST_SCALE as f64).round_ties_even() as i64
        })
        .collect()
}

/// Pareto (a = 3) quantiles × 8192, capped at 32767 as iproute2 does.
fn pareto_raw() -> Vec<i64> {
    (0..TABLE_SIZE)
        .map(|j| {
            let u = (65536 - 16 * j as i64) as f64 / 65536.0;
            let v = (1.0 / u.powf(1.0 / 3.0) - 1.5) * (4.0 / 3.0) * DIST_SCALE as f64;
            v.min(32767.0).round_ties_even() as i64
        })
        .collect()
}

/// Φ⁻¹(p) by Acklam's rational approximation (relative error < 1.2·10⁻⁹,
/// far below the table's 1/8192 resolution).
pub fn inverse_normal_cdf(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] =
        [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    const LOW: f64 = 0.02425;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    }
}

/// netem's `tabledist` formula in the integer type `$t`.
macro_rules! tabledist_in {
    ($t:ty, $mu:expr, $sigma:expr, $rnd:expr, $dist:expr) => {{
        let (mu, sigma, scale) = ($mu as $t, $sigma as $t, DIST_SCALE as $t);
        match $dist.table() {
            None => (($rnd as $t) % (2 * sigma)) + mu - sigma,
            Some(table) => {
                let t = table[$rnd as usize % TABLE_SIZE] as $t;
                let x = (sigma % scale) * t;
                let x = if x >= 0 { x + scale / 2 } else { x - scale / 2 };
                x / scale + (sigma / scale) * t + mu
            }
        }
    }};
}

/// netem's `tabledist`: a delay (ns) around `mu` with spread `sigma` (ns),
/// given a (possibly correlated) uniform `rnd`.
#[allow(clippy::unnecessary_cast)] // the formula is written once for both widths
pub fn tabledist(mu: i64, sigma: i64, rnd: u32, dist: Distribution) -> i64 {
    if sigma == 0 {
        return mu;
    }
    // Delays under ~18 minutes: in i64, where nothing can overflow (|t| ≤
    // 2¹⁵, so every product stays under 2⁵⁷) and `/`, `%` round as in i128
    // — the same result without 128-bit division on every packet.
    const SMALL: i64 = 1 << 40;
    if mu.unsigned_abs() < SMALL as u64 && (0..SMALL).contains(&sigma) {
        return tabledist_in!(i64, mu, sigma, rnd, dist);
    }
    // In i128, saturated back: huge delays (hours of spikes) never wrap.
    let v = tabledist_in!(i128, mu, sigma, rnd, dist);
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The formula in 128-bit arithmetic, as netem's would be without
    /// overflow: what the 64-bit fast path must equal.
    fn wide(mu: i64, sigma: i64, rnd: u32, dist: Distribution) -> i64 {
        let (mu, sigma, scale) = (mu as i128, sigma as i128, DIST_SCALE as i128);
        let v = match dist.table() {
            None => ((rnd as i128) % (2 * sigma)) + mu - sigma,
            Some(table) => {
                let t = table[rnd as usize % TABLE_SIZE] as i128;
                let mut x = (sigma % scale) * t;
                x += if x >= 0 { scale / 2 } else { -scale / 2 };
                x / scale + (sigma / scale) * t + mu
            }
        };
        v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    proptest::proptest! {
        #[test]
        fn the_64_bit_path_equals_the_wide_formula(
            mu in -(1i64 << 41)..(1i64 << 41),
            sigma in 1i64..(1i64 << 41),
            rnd in proptest::prelude::any::<u32>(),
            d in 0usize..4,
        ) {
            let dist = [Distribution::Uniform, Distribution::Normal, Distribution::Pareto, Distribution::ParetoNormal][d];
            proptest::prop_assert_eq!(tabledist(mu, sigma, rnd, dist), wide(mu, sigma, rnd, dist));
        }
    }

    fn moments(t: &[i16]) -> (f64, f64, f64, f64) {
        let v: Vec<f64> = t.iter().map(|&x| x as f64 / DIST_SCALE as f64).collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
        (v[0], v[v.len() - 1], mean, sd)
    }

    #[test]
    fn tables_have_the_documented_shapes() {
        let (lo, hi, mean, sd) = moments(Distribution::Normal.table().unwrap());
        assert!((lo + 4.0).abs() < 0.01 && (hi - 3.52).abs() < 0.01, "{lo} {hi}");
        assert!(mean.abs() < 0.01 && (sd - 1.0).abs() < 0.01, "{mean} {sd}");
        let (lo, hi, _, sd) = moments(Distribution::Pareto.table().unwrap());
        assert!((lo + 0.667).abs() < 0.001 && (hi - 4.0).abs() < 0.001, "{lo} {hi}");
        assert!((sd - 0.82).abs() < 0.02, "{sd}");
        let (lo, hi, _, sd) = moments(Distribution::ParetoNormal.table().unwrap());
        assert!((lo + 1.50).abs() < 0.01 && (hi - 3.88).abs() < 0.01, "{lo} {hi}");
        assert!((sd - 0.83).abs() < 0.02, "{sd}");
        let t = Distribution::Normal.table().unwrap();
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "quantiles ascend");
    }

    #[test]
    fn tables_match_an_installed_iproute2() {
        // iproute2's generated files, where the host has them: a check of
        // the formulas, not a copy (nothing is read at run time).
        let dirs = ["/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/tc", "/usr/lib64/tc", "/usr/lib/aarch64-linux-gnu/tc"];
        let mut checked = 0;
        for (name, dist) in [
            ("normal", Distribution::Normal),
            ("pareto", Distribution::Pareto),
            ("paretonormal", Distribution::ParetoNormal),
        ] {
            let Some(text) = dirs.iter().find_map(|d| std::fs::read_to_string(format!("{d}/{name}.dist")).ok()) else {
                continue;
            };
            let theirs: Vec<i64> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .flat_map(|l| l.split_whitespace().map(|t| t.parse::<i64>().unwrap()))
                .collect();
            let ours = dist.table().unwrap();
            assert_eq!(theirs.len(), TABLE_SIZE, "{name}");
            let max_diff = theirs.iter().zip(ours.iter()).map(|(a, b)| (a - *b as i64).abs()).max().unwrap();
            assert!(max_diff <= 1, "{name}: entries differ by up to {max_diff}");
            checked += 1;
        }
        if checked == 0 {
            eprintln!("no iproute2 .dist files on this host: comparison skipped");
        }
    }

    #[test]
    fn tabledist_uniform_and_table_ranges() {
        for rnd in [0u32, 1, 12345, u32::MAX] {
            let d = tabledist(50_000_000, 10_000_000, rnd, Distribution::Uniform);
            assert!((40_000_000..60_000_000).contains(&d));
            let n = tabledist(50_000_000, 10_000_000, rnd, Distribution::Normal);
            assert!((10_000_000..=85_300_000).contains(&n), "{n}");
        }
        assert_eq!(tabledist(7, 0, 99, Distribution::Pareto), 7);
    }
}
