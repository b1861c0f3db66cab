//! Vectorised rollouts: many environments stepped in lock-step, each seat's observations
//! batched per network, actions sampled from the softmax with each environment's own RNG.
//!
//! Every environment plays one whole episode (the horizon) per rollout, so trajectories
//! end in a terminal state and GAE needs no bootstrapping. A seat either records its
//! samples (a learner's seat) or only acts (a frozen partner).
//!
//! Generic over the game ([`RlGame`]): every player sees its own view through the
//! policy's encoding, the game's own `step` plays the joint action, and the game's chance
//! (recipes, random starts) is drawn from each environment's own chance stream.
//!
//! Determinism: an environment's actions depend only on its RNGs and on the networks'
//! outputs for its own observations (a sample's forward pass does not depend on its batch),
//! so splitting the environments over threads changes nothing.

use super::game::RlGame;
use super::net::{HEAD_OUTPUTS, NUM_ACTIONS, Net, Workspace, log_softmax};
use super::obs::Encode;
use proagent_overcooked::env::Action;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Who plays a seat: an index into the rollout's networks, and whether its samples are kept.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SeatPolicy {
    /// Index into the `nets` given to [`collect`].
    pub net: usize,
    /// Keep this seat's samples for training.
    pub record: bool,
}

/// One environment of a rollout.
#[derive(Clone, Debug)]
pub struct EnvSlot {
    /// Who plays seat 0 and seat 1.
    pub seats: [SeatPolicy; 2],
    /// The environment's sampling RNG.
    pub rng: ChaCha8Rng,
    /// The game's chance in this environment (recipes, random starts; unused by classic
    /// Overcooked).
    pub chance: ChaCha8Rng,
    /// Credit each recorded seat with its own shaped reward only (instead of the team's).
    pub own_shaping: bool,
}

/// A recorded trajectory: the samples of one recording seat of one environment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Track {
    /// Environment index.
    pub env: usize,
    /// Seat (player index).
    pub seat: usize,
}

/// What a rollout produced. Samples are stored track-major: sample `t` of track `k` is
/// at index `k * horizon + t`.
#[derive(Clone, Debug, Default)]
pub struct Rollout {
    /// Input length.
    pub dim: usize,
    /// Steps per episode.
    pub horizon: usize,
    /// The recorded trajectories, in environment then seat order.
    pub tracks: Vec<Track>,
    /// Observations, `samples × dim`.
    pub obs: Vec<f32>,
    /// Actions taken.
    pub actions: Vec<u8>,
    /// Log-probability of each action when taken.
    pub logp: Vec<f32>,
    /// Value estimate at each sample.
    pub values: Vec<f32>,
    /// Training reward of each sample: the sparse team reward + shaping factor × the shaped
    /// reward of the team, or of the sample's own seat when its slot says `own_shaping`.
    pub rewards: Vec<f32>,
    /// Entropy of the acting policy at each sample.
    pub entropy: Vec<f32>,
    /// Sparse team score of each environment's episode (negative rewards included).
    pub scores: Vec<i32>,
    /// Shaped team reward (unscaled) of each environment's episode.
    pub shaped: Vec<i32>,
}

impl Rollout {
    /// Number of recorded samples.
    pub fn samples(&self) -> usize {
        self.actions.len()
    }

    /// Appends another rollout over later environments (same horizon and input length).
    pub fn append(&mut self, mut other: Rollout) {
        let offset = self.scores.len();
        self.dim = other.dim;
        self.horizon = other.horizon;
        self.tracks.extend(other.tracks.iter().map(|t| Track { env: t.env + offset, seat: t.seat }));
        self.obs.append(&mut other.obs);
        self.actions.append(&mut other.actions);
        self.logp.append(&mut other.logp);
        self.values.append(&mut other.values);
        self.rewards.append(&mut other.rewards);
        self.entropy.append(&mut other.entropy);
        self.scores.append(&mut other.scores);
        self.shaped.append(&mut other.shaped);
    }
}

/// Samples an action index from log-probabilities with one uniform draw.
pub fn sample_action(logp: &[f32; NUM_ACTIONS], rng: &mut ChaCha8Rng) -> usize {
    let u: f32 = rng.random();
    let mut acc = 0f32;
    let mut last = 0;
    for (k, &l) in logp.iter().enumerate() {
        let p = l.exp();
        if p <= 0.0 {
            continue;
        }
        acc += p;
        last = k;
        if u < acc {
            return k;
        }
    }
    last
}

/// Plays one episode of `horizon` steps in every slot from the game's start state;
/// `shaping` scales the shaped reward.
pub fn collect<G: RlGame>(
    game: &G,
    enc: &G::Encoder,
    nets: &[&Net],
    slots: &mut [EnvSlot],
    horizon: usize,
    shaping: f32,
) -> Rollout {
    let dim = enc.dim();
    let n_env = slots.len();
    let mut tracks = Vec::new();
    for (e, s) in slots.iter().enumerate() {
        for seat in 0..2 {
            if s.seats[seat].record {
                tracks.push(Track { env: e, seat });
            }
        }
    }
    // track index of (env, seat), if recorded
    let mut track_of = vec![[usize::MAX; 2]; n_env];
    for (k, t) in tracks.iter().enumerate() {
        track_of[t.env][t.seat] = k;
    }
    // Per network: the (env, seat) pairs it plays, in order.
    let mut groups: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nets.len()];
    for (e, s) in slots.iter().enumerate() {
        for seat in 0..2 {
            groups[s.seats[seat].net].push((e, seat));
        }
    }
    let n = tracks.len() * horizon;
    let mut r = Rollout {
        dim,
        horizon,
        tracks,
        obs: vec![0.0; n * dim],
        actions: vec![0; n],
        logp: vec![0.0; n],
        values: vec![0.0; n],
        rewards: vec![0.0; n],
        entropy: vec![0.0; n],
        scores: vec![0; n_env],
        shaped: vec![0; n_env],
    };
    let mut states: Vec<G::State> = slots.iter_mut().map(|s| game.initial_state(&mut s.chance)).collect();
    let mut inputs: Vec<Vec<f32>> = groups.iter().map(|g| vec![0f32; g.len() * dim]).collect();
    let mut ws: Vec<Workspace> = (0..nets.len()).map(|_| Workspace::default()).collect();
    let mut head = vec![[0f32; HEAD_OUTPUTS]; n_env * 2];
    for t in 0..horizon {
        for (p, group) in groups.iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            let x = &mut inputs[p];
            for (row, &(e, seat)) in group.iter().enumerate() {
                enc.encode(game.view(&states[e], seat), seat, &mut x[row * dim..(row + 1) * dim]);
            }
            nets[p].forward(x, group.len(), &mut ws[p]);
            let out = ws[p].output();
            for (row, &(e, seat)) in group.iter().enumerate() {
                head[e * 2 + seat].copy_from_slice(&out[row * HEAD_OUTPUTS..(row + 1) * HEAD_OUTPUTS]);
                let k = track_of[e][seat];
                if k != usize::MAX {
                    let i = k * horizon + t;
                    r.obs[i * dim..(i + 1) * dim].copy_from_slice(&x[row * dim..(row + 1) * dim]);
                }
            }
        }
        for e in 0..n_env {
            let mut joint = [None; 2];
            let mut taken = [0usize; 2];
            let mut lps = [[0f32; NUM_ACTIONS]; 2];
            for seat in 0..2 {
                lps[seat] = log_softmax(&head[e * 2 + seat]);
                taken[seat] = sample_action(&lps[seat], &mut slots[e].rng);
                joint[seat] = Some(Action::ALL[taken[seat]]);
            }
            let out = game.step(&mut states[e], &joint, &mut slots[e].chance);
            let reward = game.reward(&out);
            let by_player = game.shaped(&out);
            let shaped = by_player[0] + by_player[1];
            r.scores[e] += reward;
            r.shaped[e] += shaped;
            for seat in 0..2 {
                let k = track_of[e][seat];
                if k == usize::MAX {
                    continue;
                }
                let credited = if slots[e].own_shaping { by_player[seat] } else { shaped };
                let reward = reward as f32 + shaping * credited as f32;
                let i = k * horizon + t;
                r.actions[i] = taken[seat] as u8;
                r.logp[i] = lps[seat][taken[seat]];
                r.values[i] = head[e * 2 + seat][NUM_ACTIONS];
                r.rewards[i] = reward;
                r.entropy[i] = -lps[seat].iter().map(|&l| l.exp() * l).sum::<f32>();
            }
        }
    }
    r
}

/// [`collect`] with the slots split into `threads` contiguous groups played in parallel;
/// the result is the same as with one thread.
pub fn collect_parallel<G: RlGame>(
    game: &G,
    enc: &G::Encoder,
    nets: &[&Net],
    slots: &mut [EnvSlot],
    horizon: usize,
    shaping: f32,
    threads: usize,
) -> Rollout {
    let threads = threads.clamp(1, slots.len().max(1));
    if threads == 1 {
        return collect(game, enc, nets, slots, horizon, shaping);
    }
    let per = slots.len().div_ceil(threads);
    let parts: Vec<Rollout> = std::thread::scope(|s| {
        let handles: Vec<_> = slots
            .chunks_mut(per)
            .map(|chunk| s.spawn(move || collect(game, enc, nets, chunk, horizon, shaping)))
            .collect();
        // A worker only panics on a bug here; re-raise it.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut all = Rollout::default();
    for p in parts {
        all.append(p);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::Layout;
    use proagent_overcooked::game::Overcooked;
    use rand::SeedableRng;
    use std::sync::Arc;

    #[test]
    fn rollout_shapes_rewards_and_thread_independence() {
        let l = Layout::builtin("cramped_room").unwrap();
        let g = Overcooked::new(Arc::new(l.clone()), 400);
        let enc = g.encoder(crate::rl::obs::FEATURES62).unwrap();
        let a = Net::new(62, &[8], 1);
        let b = Net::new(62, &[8], 2);
        let slots = |n: usize| -> Vec<EnvSlot> {
            (0..n)
                .map(|e| EnvSlot {
                    seats: if e % 2 == 0 {
                        [SeatPolicy { net: 0, record: true }, SeatPolicy { net: 1, record: false }]
                    } else {
                        [SeatPolicy { net: 0, record: true }, SeatPolicy { net: 0, record: true }]
                    },
                    rng: ChaCha8Rng::seed_from_u64(e as u64),
                    chance: ChaCha8Rng::seed_from_u64(0),
                    own_shaping: e == 2,
                })
                .collect()
        };
        let mut s1 = slots(5);
        let r1 = collect(&g, &enc, &[&a, &b], &mut s1, 50, 1.0);
        assert_eq!(r1.tracks.len(), 3 + 2 * 2);
        assert_eq!(r1.samples(), 7 * 50);
        assert_eq!(r1.tracks[1], Track { env: 1, seat: 0 });
        // The first observation of every track is the start state from that seat.
        let mut x = vec![0f32; 62];
        enc.encode(&l.start_state(), 1, &mut x);
        assert_eq!(&r1.obs[2 * 50 * 62..(2 * 50 + 1) * 62], &x[..]);
        assert!(r1.entropy.iter().all(|&h| h > 1.7 && h <= 6f32.ln() + 1e-5), "near-uniform first policies");
        let mut s2 = slots(5);
        let r2 = collect_parallel(&g, &enc, &[&a, &b], &mut s2, 50, 1.0, 2);
        assert_eq!(r1.actions, r2.actions);
        assert_eq!(r1.obs, r2.obs);
        assert_eq!(r1.rewards, r2.rewards);
        assert_eq!(r1.tracks, r2.tracks);
        // Rewards: shaping 1 → reward totals are sparse + the team's shaped reward per
        // environment, except in environment 2, whose one recorded seat gets only its own.
        for (k, t) in r1.tracks.iter().enumerate() {
            let total: f32 = r1.rewards[k * 50..(k + 1) * 50].iter().sum();
            if t.env == 2 {
                assert!(total <= (r1.scores[2] + r1.shaped[2]) as f32);
            } else {
                assert_eq!(total, (r1.scores[t.env] + r1.shaped[t.env]) as f32);
            }
        }
    }

    #[test]
    fn sampling_follows_the_probabilities() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let lp = log_softmax(&[0.0, 0.0, f32::NEG_INFINITY, 1.0, 0.0, 0.0]);
        let mut counts = [0u32; 6];
        for _ in 0..20_000 {
            counts[sample_action(&lp, &mut rng)] += 1;
        }
        assert_eq!(counts[2], 0);
        let p3 = counts[3] as f64 / 20_000.0;
        let want = 1f64.exp() / (4.0 + 1f64.exp());
        assert!((p3 - want).abs() < 0.02, "{p3} vs {want}");
    }
}
