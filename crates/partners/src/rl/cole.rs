//! COLE: the Cooperative Open-ended LEarning framework (Li et al., "Cooperative
//! Open-ended Learning Framework for Zero-shot Coordination", ICML 2023), as its practical
//! algorithm COLE_SV, on this crate's PPO.
//!
//! The population is a graphic-form game: its members are the learner's own past versions,
//! and the payoff of a pair (i as player 0, j as player 1) is their mean sparse score. Each
//! generation:
//!
//! 1. **Trainer.** The learner runs [`TrainConfig::cole_inner`] PPO iterations. Of every
//!    `a + b` environments ([`TrainConfig::cole_ratio`], `a:b`, 1:1 by default) the first
//!    `a` are self-play (both seats learn); in the other `b` it plays one seat (drawn at
//!    random) with a member drawn from the *cooperative-incompatibility distribution*: `softmax(−10 · φ̂) + û`, where φ̂ are the members' graphic Shapley
//!    values scaled to unit length and û a UCB bonus √(Σ visits) / (1 + visits) (unit
//!    length too) over this generation's draws, so the members the population cooperates
//!    with worst are met most. During the first [`WARMUP`] generations it plays itself only.
//! 2. **Payoffs.** The learner plays every member in both seats and itself
//!    ([`TrainConfig::cole_eval_episodes`] episodes each).
//! 3. **Preference check.** On the symmetrised payoffs of the population plus the learner,
//!    each strategy prefers its best partner (the preference graph); the strategy with the
//!    highest in-degree is the most preferred. The learner joins the population when it,
//!    or one of the newest members (the newest 10 %, 20 % after 50 generations, at least
//!    one), is the most preferred — otherwise it trains another generation first (at most
//!    two in a row are refused). Past the population size the oldest members give way (one
//!    of the ten oldest, drawn at random).
//! 4. **Solver.** The members' graphic Shapley values are estimated by Monte-Carlo over
//!    [`SHAPLEY_PERMUTATIONS`] random orders, with the coalition value
//!    `v(C) = Σ_{i,j∈C} σ_j P_ij / |C|`, σ = `softmax(−10 · PageRank)` of the coalition's
//!    payoff graph (clamped at 0; marginal contributions too).
//!
//! The shipped policy is the learner at the end. Differences from the authors' code (which
//! we read for these facts, not copied): generations are counted in PPO iterations of this
//! trainer, the population is at most [`TrainConfig::population`] (theirs: 50), and all
//! draws come from seeded streams, so a run is reproducible.
//!
//! Determinism: every choice (partner draws, seats, permutations, removals) comes from a
//! stream derived from the run's seed.

use super::game::RlGame;
use super::net::Net;
use super::rollout::SeatPolicy;
use super::train::{Ctx, PoolEntry, TrainConfig, Trained, mean_se};
use proagent_core::seat::derive_seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

/// Generations of self-play only at the start (each adds its learner to the population).
pub const WARMUP: usize = 3;
/// Random orders of the Monte-Carlo Shapley estimate.
pub const SHAPLEY_PERMUTATIONS: usize = 200;
/// Temperature of the incompatibility distribution and of σ.
const TEMPERATURE: f64 = 10.0;
/// PageRank's damping factor, iteration limit and tolerance (per node).
const DAMPING: f64 = 0.85;
const PAGERANK_ITERS: usize = 100;
const PAGERANK_TOL: f64 = 1e-6;

/// PageRank of a weighted digraph given as a square matrix (`w[i][j]`: edge i → j;
/// negative weights count as 0). Nodes without out-weight spread their rank evenly.
pub fn pagerank(w: &[Vec<f64>]) -> Vec<f64> {
    let n = w.len();
    if n == 0 {
        return Vec::new();
    }
    let out: Vec<f64> = w.iter().map(|row| row.iter().map(|&x| x.max(0.0)).sum()).collect();
    let mut x = vec![1.0 / n as f64; n];
    for _ in 0..PAGERANK_ITERS {
        let dangling: f64 = (0..n).filter(|&i| out[i] <= 0.0).map(|i| x[i]).sum();
        let base = (DAMPING * dangling + (1.0 - DAMPING)) / n as f64;
        let mut next = vec![base; n];
        for i in 0..n {
            if out[i] <= 0.0 {
                continue;
            }
            let share = DAMPING * x[i] / out[i];
            for j in 0..n {
                next[j] += share * w[i][j].max(0.0);
            }
        }
        let err: f64 = next.iter().zip(&x).map(|(a, b)| (a - b).abs()).sum();
        x = next;
        if err < n as f64 * PAGERANK_TOL {
            break;
        }
    }
    x
}

/// `softmax(t · x)`.
fn softmax(x: &[f64], t: f64) -> Vec<f64> {
    let max = x.iter().map(|v| v * t).fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = x.iter().map(|v| (v * t - max).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

/// `x` scaled to unit Euclidean length (zeros stay zeros).
fn unit(x: &[f64]) -> Vec<f64> {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 0.0 { x.iter().map(|v| v / norm).collect() } else { x.to_vec() }
}

/// The coalition value `v(C) = Σ_{i,j∈C} σ_j P_ij / |C|` (clamped at 0).
pub fn coalition_value(payoffs: &[Vec<f64>], coalition: &[usize]) -> f64 {
    let k = coalition.len();
    if k == 0 {
        return 0.0;
    }
    let sub: Vec<Vec<f64>> = coalition.iter().map(|&i| coalition.iter().map(|&j| payoffs[i][j]).collect()).collect();
    let pr = pagerank(&sub);
    let sigma = softmax(&pr.iter().map(|v| -v).collect::<Vec<_>>(), TEMPERATURE);
    let mut v = 0.0;
    for row in &sub {
        for (j, p) in row.iter().enumerate() {
            v += sigma[j] * p / k as f64;
        }
    }
    v.max(0.0)
}

/// Monte-Carlo graphic Shapley values of the members of `payoffs` (`permutations` random
/// orders; each member's marginal contribution clamped at 0).
pub fn shapley(payoffs: &[Vec<f64>], permutations: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    let n = payoffs.len();
    let mut sv = vec![0.0; n];
    let mut order: Vec<usize> = (0..n).collect();
    for _ in 0..permutations {
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        let mut prev = 0.0;
        for k in 1..=n {
            let v = coalition_value(payoffs, &order[..k]);
            sv[order[k - 1]] += (v - prev).max(0.0) / permutations as f64;
            prev = v;
        }
    }
    sv
}

/// The cooperative-incompatibility distribution's weights (unnormalised): low Shapley
/// values and few visits weigh most.
pub fn incompatibility_weights(sv: &[f64], visits: &[u32]) -> Vec<f64> {
    let p = softmax(&unit(sv).iter().map(|v| -v).collect::<Vec<_>>(), TEMPERATURE);
    let total: u32 = visits.iter().sum();
    let u: Vec<f64> = visits.iter().map(|&v| (total as f64).sqrt() / (1.0 + v as f64)).collect();
    p.iter().zip(unit(&u)).map(|(a, b)| a + b).collect()
}

/// The most preferred strategy of the preference graph of `payoffs` (made symmetric):
/// each strategy points at its best partner (the last of equals), and the one pointed at
/// most wins (the first of equals).
pub fn most_preferred(payoffs: &[Vec<f64>]) -> usize {
    let n = payoffs.len();
    let mut indegree = vec![0usize; n];
    for i in 0..n {
        let sym = |j: usize| (payoffs[i][j] + payoffs[j][i]) / 2.0;
        let mut best = 0;
        for j in 0..n {
            if sym(j) >= sym(best) {
                best = j;
            }
        }
        indegree[best] += 1;
    }
    let top = indegree.iter().copied().max().unwrap_or(0);
    indegree.iter().position(|&d| d == top).unwrap_or(0)
}

fn draw(weights: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let total: f64 = weights.iter().sum();
    let u: f64 = rng.random::<f64>() * total;
    let mut acc = 0.0;
    for (i, w) in weights.iter().enumerate() {
        acc += w;
        if u < acc {
            return i;
        }
    }
    weights.len().saturating_sub(1)
}

fn mean(scores: &[i32]) -> f64 {
    mean_se(scores).0
}

/// Trains a COLE learner (see the module documentation).
pub(super) fn train_cole<G: RlGame>(ctx: &mut Ctx<'_, G>) -> Trained {
    let cfg: &TrainConfig = ctx.cfg;
    let max_pop = cfg.population.max(1);
    let episodes = cfg.cole_eval_episodes;
    let mut ego = ctx.final_learner(derive_seed(cfg.seed, 700));
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed, 701));
    let mut pop: Vec<PoolEntry> = vec![PoolEntry { label: "cole.g0".into(), net: ego.net.clone() }];
    let s0 = derive_seed(cfg.seed, 702);
    let mut payoffs: Vec<Vec<f64>> = vec![vec![mean(&ctx.eval(&ego.net, &ego.net, episodes, s0))]];
    let mut sv = vec![1.0];
    let total = ctx.iterations(cfg.steps);
    let mut done = 0;
    let mut generation = 0usize;
    let mut refused = 0;
    let mut events = Vec::new();
    let both = [SeatPolicy { net: 0, record: true }; 2];
    let [own, others] = cfg.cole_ratio;
    let self_play_env = |e: usize| e % (own + others).max(1) < own;
    while done < total {
        generation += 1;
        let warmup = generation <= WARMUP;
        for _ in 0..cfg.cole_inner.min(total - done) {
            let mut visits = vec![0u32; pop.len()];
            let draws: Vec<Option<(usize, bool)>> = (0..cfg.envs)
                .map(|e| {
                    if warmup || self_play_env(e) {
                        return None;
                    }
                    let j = draw(&incompatibility_weights(&sv, &visits), &mut rng);
                    visits[j] += 1;
                    Some((j, rng.random_bool(0.5)))
                })
                .collect();
            let nets: Vec<&Net> = pop.iter().map(|p| &p.net).collect();
            let mut seats = |e: usize| match draws[e] {
                None => both,
                Some((j, first)) => {
                    let me = SeatPolicy { net: 0, record: true };
                    let other = SeatPolicy { net: 1 + j, record: false };
                    if first { [me, other] } else { [other, me] }
                }
            };
            ctx.iterate(&format!("cole gen {generation}"), &mut ego, &nets, &mut seats, None);
            done += 1;
        }
        // The learner's payoffs with every member (both seats) and with itself.
        let n = pop.len();
        let seed = derive_seed(cfg.seed, 1000 + generation as u64);
        let mut trial = payoffs.clone();
        let mut col = Vec::with_capacity(n);
        for (i, m) in pop.iter().enumerate() {
            trial[i].push(mean(&ctx.eval(&m.net, &ego.net, episodes, derive_seed(seed, 2 * i as u64))));
            col.push(mean(&ctx.eval(&ego.net, &m.net, episodes, derive_seed(seed, 2 * i as u64 + 1))));
        }
        col.push(mean(&ctx.eval(&ego.net, &ego.net, episodes, derive_seed(seed, u64::MAX))));
        trial.push(col);
        let preferred = most_preferred(&trial);
        let share = if generation > 50 { 0.2 } else { 0.1 };
        let newest = (n as f64 * share) as usize + 1;
        let accepted = warmup || preferred + newest >= n || refused >= 2;
        events.push(json!({
            "generation": generation, "iterations": done, "population": n, "preferred": preferred,
            "self_play": trial[n][n], "accepted": accepted,
        }));
        if !accepted {
            refused += 1;
            continue;
        }
        refused = 0;
        payoffs = trial;
        pop.push(PoolEntry { label: format!("cole.g{generation}"), net: ego.net.clone() });
        if pop.len() > max_pop {
            let k = rng.random_range(0..pop.len().min(10) - 1);
            pop.remove(k);
            payoffs.remove(k);
            for row in &mut payoffs {
                row.remove(k);
            }
        }
        sv = shapley(&payoffs, SHAPLEY_PERMUTATIONS, &mut rng);
    }
    let evals = ctx.final_evals(&ego.net, &pop);
    let r1 = |x: &f64| (x * 10.0).round() / 10.0;
    let notes = json!({
        "population": pop.iter().map(|p| &p.label).collect::<Vec<_>>(),
        "shapley": sv.iter().map(|x| (x * 1e4).round() / 1e4).collect::<Vec<_>>(),
        "payoffs": payoffs.iter().map(|r| r.iter().map(r1).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "generations": events,
    });
    (ego.net, Vec::new(), evals, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pagerank_of_small_graphs() {
        // Uniform weights: uniform rank. A node everyone points at gets more.
        let r = pagerank(&[vec![1.0, 1.0], vec![1.0, 1.0]]);
        assert!((r[0] - 0.5).abs() < 1e-9 && (r[1] - 0.5).abs() < 1e-9);
        let r = pagerank(&[vec![0.0, 1.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 1.0, 0.0]]);
        assert!(r[1] > r[0] && r[1] > r[2] && (r.iter().sum::<f64>() - 1.0).abs() < 1e-6, "{r:?}");
        // All-zero weights: every node dangles, uniform rank.
        let r = pagerank(&vec![vec![0.0; 3]; 3]);
        assert!(r.iter().all(|x| (x - 1.0 / 3.0).abs() < 1e-9));
    }

    #[test]
    fn shapley_values_favour_compatible_members_and_are_seeded() {
        // Members 0 and 1 cooperate (score 100 together and alone); 2 scores with nobody.
        let p = vec![vec![100.0, 100.0, 0.0], vec![100.0, 100.0, 0.0], vec![0.0, 0.0, 0.0]];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let sv = shapley(&p, 50, &mut rng);
        assert!(sv[0] > sv[2] && sv[1] > sv[2], "{sv:?}");
        let again = shapley(&p, 50, &mut ChaCha8Rng::seed_from_u64(1));
        assert_eq!(sv, again);
        // Incompatible members are drawn more often.
        let w = incompatibility_weights(&sv, &[0, 0, 0]);
        assert!(w[2] > w[0] && w[2] > w[1], "{w:?}");
        // Visits lower a member's bonus.
        let w2 = incompatibility_weights(&[1.0, 1.0], &[5, 0]);
        assert!(w2[1] > w2[0], "{w2:?}");
    }

    #[test]
    fn preference_graph_picks_the_best_partner_of_most() {
        // Everybody scores best with 2.
        let p = vec![vec![1.0, 0.0, 5.0], vec![0.0, 1.0, 6.0], vec![5.0, 6.0, 2.0]];
        assert_eq!(most_preferred(&p), 2);
        assert!(coalition_value(&p, &[0, 1, 2]) > coalition_value(&p, &[0, 1]));
        assert_eq!(coalition_value(&p, &[]), 0.0);
    }
}
