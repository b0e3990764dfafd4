//! Whether two links rank the algorithms alike: Spearman's rank
//! correlation, per metric, between the algorithms' means on one
//! `compare --vary profile=` value and on another — a recording against
//! its fit, say. A fit can be close in every marginal and still reorder
//! the algorithms; this is the number a user choosing one needs.
//!
//! ```
//! use harness::report::ranks::spearman;
//! assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
//! assert_eq!(spearman(&[1.0, 2.0, 3.0], &[30.0, 20.0, 10.0]), Some(-1.0));
//! assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None, "two points rank nothing");
//! ```

use super::table::Getter;
use super::RunReport;

/// The ranks of `v`, 1 for the least, ties sharing their mean rank.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = mean;
        }
        i = j + 1;
    }
    r
}

/// Spearman's ρ of paired samples: Pearson's correlation of their ranks
/// (ties at their mean rank). `None` below three pairs, or when either
/// side has every value equal.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let mean = (a.len() as f64 + 1.0) / 2.0;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        sab += (x - mean) * (y - mean);
        saa += (x - mean) * (x - mean);
        sbb += (y - mean) * (y - mean);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

/// The `profile=` variants of `runs`, in order, when there are two or
/// more.
pub(crate) fn profile_variants(runs: &[RunReport]) -> Vec<&str> {
    let mut v: Vec<&str> = Vec::new();
    for r in runs.iter().filter(|r| r.variant.starts_with("profile=")) {
        if !v.contains(&r.variant.as_str()) {
            v.push(&r.variant);
        }
    }
    if v.len() < 2 {
        v.clear();
    }
    v
}

/// Per later variant, ρ between the algorithms' means of `get` on it and
/// on the first, and how many algorithms had a value on both.
pub(crate) fn against_first(runs: &[RunReport], variants: &[&str], get: Getter) -> Vec<(Option<f64>, usize)> {
    let mut algos: Vec<&str> = Vec::new();
    for r in runs {
        if !algos.contains(&r.algorithm.as_str()) {
            algos.push(&r.algorithm);
        }
    }
    let mean = |algo: &str, variant: &str| {
        let v: Vec<f64> = runs
            .iter()
            .filter(|r| r.algorithm == algo && r.variant == variant)
            .filter_map(|r| get(&r.metrics))
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    variants[1..]
        .iter()
        .map(|other| {
            let (a, b): (Vec<f64>, Vec<f64>) =
                algos.iter().filter_map(|x| Some((mean(x, variants[0])?, mean(x, other)?))).unzip();
            (spearman(&a, &b), a.len())
        })
        .collect()
}

/// ρ between the algorithms' means of `get` over two halves of `variant`'s
/// seeds (the 1st, 3rd, … against the 2nd, 4th, …), and how many algorithms
/// had a value on both: how far the reference agrees with itself, the
/// most a model of it can be expected to.
pub(crate) fn split_half(runs: &[RunReport], variant: &str, get: Getter) -> (Option<f64>, usize) {
    let mut algos: Vec<&str> = Vec::new();
    for r in runs.iter().filter(|r| r.variant == variant) {
        if !algos.contains(&r.algorithm.as_str()) {
            algos.push(&r.algorithm);
        }
    }
    let half = |algo: &str, odd: bool| {
        let mut seeds: Vec<&RunReport> = runs.iter().filter(|r| r.algorithm == algo && r.variant == variant).collect();
        seeds.sort_by_key(|r| r.seed);
        let v: Vec<f64> = seeds.iter().skip(usize::from(odd)).step_by(2).filter_map(|r| get(&r.metrics)).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let (a, b): (Vec<f64>, Vec<f64>) = algos.iter().filter_map(|x| Some((half(x, false)?, half(x, true)?))).unzip();
    (spearman(&a, &b), a.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_their_mean_rank_and_rho_follows_the_textbook() {
        assert_eq!(ranks(&[10.0, 30.0, 20.0, 20.0]), vec![1.0, 4.0, 2.5, 2.5]);
        // One swap of neighbours among five: ρ = 1 − 6·2/(5·24) = 0.9.
        let r = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0, 2.0, 3.0, 5.0, 4.0]).unwrap();
        assert!((r - 0.9).abs() < 1e-12, "{r}");
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None, "no order on one side");
    }
}
