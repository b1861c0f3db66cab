//! Random-choice baselines, computed exactly (expected accuracy) and by seeded sampling.

use super::data::{Category, Question};
use super::extract::Mode;
use super::extract::{compat_correct, compat_raw_lines};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How a random model picks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Uniformly over the printed options.
    Uniform,
    /// As the original's baseline: uniformly over letters A.. as many as the lines after
    /// the options header, blank lines and the header line's remainder included.
    Original,
}

impl Policy {
    /// One line for reports naming the policy.
    pub fn describe(self) -> &'static str {
        match self {
            Policy::Uniform => "uniform choice over the printed options",
            Policy::Original => "the original's baseline (letters counted from all lines after the header)",
        }
    }
}

/// The letters a policy may answer, each equally likely.
pub fn letters(q: &Question, policy: Policy) -> Vec<char> {
    match policy {
        Policy::Uniform => q.options.iter().map(|o| o.letter).collect(),
        Policy::Original => original_letters(&q.question),
    }
}

/// The letters the original's baseline draws from for a question text: A.. as many as
/// the pieces after the options header.
pub fn original_letters(question: &str) -> Vec<char> {
    (0..compat_raw_lines(question).len() as u32).filter_map(|i| char::from_u32(65 + i)).collect()
}

fn correct(q: &Question, letter: char, mode: Mode) -> bool {
    match mode {
        Mode::Default => q.is_correct(letter),
        Mode::Compat => compat_correct(Some(letter), &q.key_raw),
    }
}

/// Probability that one random answer to `q` is scored correct.
pub fn expected(q: &Question, policy: Policy, mode: Mode) -> f64 {
    let ls = letters(q, policy);
    if ls.is_empty() {
        return 0.0;
    }
    ls.iter().filter(|&&c| correct(q, c, mode)).count() as f64 / ls.len() as f64
}

/// The convention of the table in SOURCE.md: each accepted letter counts as one option,
/// whether or not it is printed, over the number of printed options.
pub fn published_convention(q: &Question) -> f64 {
    q.accepted.len() as f64 / q.options.len().max(1) as f64
}

/// Mean of per-question values per category (EC, ToM, JP) and over all.
pub fn by_category(questions: &[Question], value: impl Fn(&Question) -> f64) -> ([f64; 3], f64) {
    let mut sums = [0.0; 3];
    let mut counts = [0usize; 3];
    for q in questions {
        let i = Category::ALL.iter().position(|&c| c == q.category).unwrap_or(0);
        sums[i] += value(q);
        counts[i] += 1;
    }
    let all = if questions.is_empty() { 0.0 } else { sums.iter().sum::<f64>() / questions.len() as f64 };
    let mut out = [0.0; 3];
    for i in 0..3 {
        out[i] = if counts[i] == 0 { 0.0 } else { sums[i] / counts[i] as f64 };
    }
    (out, all)
}

/// Seeded sampling of `trials` runs of the policy: per-trial accuracy per category and
/// over all (`[EC, ToM, JP, all]`).
pub fn sample(questions: &[Question], policy: Policy, mode: Mode, trials: u32, seed: u64) -> Vec<[f64; 4]> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let choices: Vec<Vec<char>> = questions.iter().map(|q| letters(q, policy)).collect();
    (0..trials)
        .map(|_| {
            let mut right = [0usize; 4];
            let mut n = [0usize; 4];
            for (q, ls) in questions.iter().zip(&choices) {
                let i = Category::ALL.iter().position(|&c| c == q.category).unwrap_or(0);
                let ok = !ls.is_empty() && correct(q, ls[rng.random_range(0..ls.len())], mode);
                for j in [i, 3] {
                    n[j] += 1;
                    right[j] += ok as usize;
                }
            }
            let mut acc = [0.0; 4];
            for j in 0..4 {
                acc[j] = if n[j] == 0 { 0.0 } else { right[j] as f64 / n[j] as f64 };
            }
            acc
        })
        .collect()
}

/// Mean and standard error (population std over trials / √trials, as the original).
pub fn mean_se(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, var.sqrt() / n.sqrt())
}

/// The random baselines of `qa baseline`, one JSON row per (policy, scoring) pair: its
/// label, policy and mode, the exact expectation per category and overall, and the mean and
/// standard error of `trials` sampled runs from `seed`. Then the published table's
/// convention (accepted letters over printed options), exact only.
pub fn table(questions: &[Question], trials: u32, seed: u64) -> (Vec<serde_json::Value>, serde_json::Value) {
    use serde_json::json;
    let mut rows = Vec::new();
    for (policy, mode, label) in [
        (Policy::Uniform, Mode::Default, "random (uniform over printed options), default scoring"),
        (Policy::Uniform, Mode::Compat, "random (uniform over printed options), compat scoring"),
        (Policy::Original, Mode::Compat, "random-original (the original's baseline), compat scoring"),
        (Policy::Original, Mode::Default, "random-original, default scoring"),
    ] {
        let (cats, all) = by_category(questions, |q| expected(q, policy, mode));
        let samples = sample(questions, policy, mode, trials, seed);
        let stat = |j: usize| mean_se(&samples.iter().map(|s| s[j]).collect::<Vec<_>>());
        let sampled: Vec<(f64, f64)> = (0..4).map(stat).collect();
        rows.push(json!({
            "label": label, "policy": policy, "mode": mode,
            "exact": {"EC": cats[0], "ToM": cats[1], "JP": cats[2], "all": all},
            "sampled": {
                "trials": trials, "seed": seed,
                "EC": sampled[0].0, "ToM": sampled[1].0, "JP": sampled[2].0, "all": sampled[3].0,
                "stderr": {"EC": sampled[0].1, "ToM": sampled[1].1, "JP": sampled[2].1, "all": sampled[3].1},
            }
        }));
    }
    let (pub_cats, pub_all) = by_category(questions, published_convention);
    let published = json!({
        "label": "SOURCE.md's table convention: accepted letters / printed options (keys taken at face value)",
        "exact": {"EC": pub_cats[0], "ToM": pub_cats[1], "JP": pub_cats[2], "all": pub_all}
    });
    (rows, published)
}
