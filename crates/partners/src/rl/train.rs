//! The training algorithms, each producing one policy (plus, for SP, the checkpoints
//! FCP needs):
//!
//! - **SP** — PPO self-play: one network in both seats (parameter sharing), both seats'
//!   samples train it.
//! - **PBT** — a population trained against each other (every member's environments are
//!   split evenly over the members as partners, itself included), with exploit/explore
//!   every `pbt_interval` iterations: the worst member takes the best one's weights,
//!   optimiser state and hyper-parameters, then perturbs the hyper-parameters
//!   (lr, clip, entropy and value coefficients, GAE λ; each ×0.75 or ×1.25 with odds ½).
//!   The member that scores best with the whole population is kept.
//! - **FCP** (Strouse et al. 2021) — a learner trained against a frozen pool: for each of
//!   `population` SP runs, its initial, middle (first checkpoint reaching half the final
//!   score) and final policies. Partners and the learner's seat are drawn per environment.
//!   Optionally ([`TrainConfig::fcp_ratio`] `a:b`, 0:1 by default) `a` of every `a + b`
//!   environments are self-play instead, so the learner must also cook with itself.
//! - **MEP** (Zhao et al. 2023) — a population trained in self-play with the
//!   population-entropy bonus `−α log π̄(a|s)` added to every reward (π̄ the mean of the
//!   members' policies), then a learner trained against the members' initial, middle and
//!   final policies (chosen as FCP's) with prioritised sampling: partner j is drawn with
//!   probability ∝ rank_jᵝ, ranking the partners by the learner's latest score with them,
//!   lowest score highest rank.
//! - **COLE** (Li et al. 2023, COLE_SV) — one learner and a growing population of its
//!   own past versions, seen as a graphic-form game (the payoff matrix of every pair);
//!   half of the learner's environments are self-play, half pair it with a member drawn
//!   from the cooperative-incompatibility distribution (members with a low graphic
//!   Shapley value, i.e. that the population cooperates with poorly, are drawn more
//!   often, with a UCB bonus for rarely drawn ones), in its own module.
//!
//! Rewards: the sparse team reward plus the team's shaped reward (potting, useful dish
//! pickup, soup pickup: `StepOutcome::shaped_by_player`) times a factor annealed linearly
//! from 1 to 0 over `shaping_horizon` environment steps of the policy being trained.
//!
//! The trainer is generic over the game ([`RlGame`]): classic Overcooked and OvercookedV2
//! train the same way, each through its own observation encoding.
//!
//! Determinism: every random choice comes from a seed derived from `seed`
//! ([`proagent_core::seat::derive_seed`]), and rollouts and updates do not depend on the thread
//! count, so the same configuration gives bit-identical weights.
//!
//! Memory: [`TrainConfig::memory_estimate`] bounds what a run allocates from its flags;
//! [`super::run::train`] refuses a run over [`MAX_TRAIN_BYTES`] before allocating anything.

use super::game::RlGame;
use super::net::{Adam, HEAD_OUTPUTS, Net, Workspace, log_softmax};
use super::obs::{Encode, FEATURES62};
use super::ppo::{self, Batch, CHUNK, PpoConfig, UpdateStats};
use super::rollout::{EnvSlot, Rollout, SeatPolicy, collect_parallel};
use proagent_core::seat::derive_seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// A training algorithm.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algo {
    /// Self-play.
    Sp,
    /// Population-based training.
    Pbt,
    /// Fictitious co-play.
    Fcp,
    /// Maximum-entropy population.
    Mep,
    /// Cooperative open-ended learning (COLE_SV).
    Cole,
}

impl Algo {
    /// All algorithms, in the order of ProAgent's Table 1.
    pub const ALL: [Algo; 5] = [Algo::Sp, Algo::Pbt, Algo::Fcp, Algo::Mep, Algo::Cole];

    /// `sp`, `pbt`, `fcp`, `mep` or `cole`.
    pub fn name(self) -> &'static str {
        match self {
            Algo::Sp => "sp",
            Algo::Pbt => "pbt",
            Algo::Fcp => "fcp",
            Algo::Mep => "mep",
            Algo::Cole => "cole",
        }
    }

    /// Inverse of [`Algo::name`].
    pub fn parse(s: &str) -> Option<Algo> {
        Algo::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// Whose shaped reward a recorded sample is credited with.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShapingCredit {
    /// The team's when both seats are the same network (self-play), else the seat's own.
    Auto,
    /// Always the team's (the 2019 self-play set-up).
    Team,
    /// Always the seat's own.
    Own,
}

impl ShapingCredit {
    /// `auto`, `team` or `own`.
    pub fn parse(s: &str) -> Option<ShapingCredit> {
        match s {
            "auto" => Some(ShapingCredit::Auto),
            "team" => Some(ShapingCredit::Team),
            "own" => Some(ShapingCredit::Own),
            _ => None,
        }
    }

    /// Whether an environment with these seats credits own shaped rewards.
    pub fn own(self, seats: &[SeatPolicy; 2]) -> bool {
        match self {
            ShapingCredit::Auto => seats[0].net != seats[1].net,
            ShapingCredit::Team => false,
            ShapingCredit::Own => true,
        }
    }
}

fn default_cole_inner() -> usize {
    5
}

fn default_cole_eval() -> u32 {
    3
}

fn default_cole_ratio() -> [usize; 2] {
    [1, 1]
}

/// Left out of the written configuration at its default, so files trained before the
/// option existed are still what the same command writes.
fn is_default_cole_ratio(r: &[usize; 2]) -> bool {
    *r == default_cole_ratio()
}

fn default_fcp_ratio() -> [usize; 2] {
    [0, 1]
}

/// As [`is_default_cole_ratio`]: FCP files written before the option are unchanged.
fn is_default_fcp_ratio(r: &[usize; 2]) -> bool {
    *r == default_fcp_ratio()
}

/// The most bytes a training run may allocate by its estimate
/// ([`TrainConfig::memory_estimate`]); larger runs are refused before they start.
pub const MAX_TRAIN_BYTES: u64 = 4 << 30;

/// The most hidden layers a trained network may have (model files are held to the same).
pub const MAX_HIDDEN_LAYERS: usize = 16;

/// The most network snapshots a run keeps to choose FCP's middle checkpoint from; longer
/// runs keep every second one, then every fourth, … (shipped runs stay well below).
pub const MAX_SNAPSHOTS: usize = 1024;

/// Everything a training run depends on (stored in the model's metadata).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// The algorithm.
    pub algo: Algo,
    /// Seed of every random choice.
    pub seed: u64,
    /// Environment steps of the final policy's training (per member for PBT).
    pub steps: u64,
    /// Environments per rollout (each plays one whole episode).
    pub envs: usize,
    /// Episode length.
    pub horizon: usize,
    /// Hidden-layer widths.
    pub hidden: Vec<usize>,
    /// The observation encoding (its model-file name).
    pub encoder: String,
    /// PPO hyper-parameters (PBT's starting point).
    pub ppo: PpoConfig,
    /// Environment steps over which the shaping factor falls from 1 to 0.
    pub shaping_horizon: u64,
    /// Whose shaped reward a sample gets. With `auto`, a learner paired with another
    /// network is paid only for its own potting and pickups (else it can learn to let a
    /// capable partner work: an FCP learner trained with the team's shaping scored 0.6 in
    /// self-play on cramped_room).
    pub shaping_credit: ShapingCredit,
    /// PBT and MEP population size; FCP's number of SP runs in its pool; COLE's largest
    /// population of past learners.
    pub population: usize,
    /// Environment steps of each FCP pool run and of each MEP population member.
    pub pool_steps: u64,
    /// PBT: iterations between exploit/explore rounds.
    pub pbt_interval: usize,
    /// MEP: weight α of the population-entropy bonus.
    pub mep_alpha: f64,
    /// MEP: prioritisation exponent β.
    pub mep_beta: f64,
    /// COLE: learner iterations per generation (between payoff updates).
    #[serde(default = "default_cole_inner")]
    pub cole_inner: usize,
    /// COLE: episodes per pair and seat when the payoff matrix is updated.
    #[serde(default = "default_cole_eval")]
    pub cole_eval_episodes: u32,
    /// COLE: of every `a + b` environments, `a` are self-play and `b` pair the learner with
    /// a population member (the authors' `RATIO`; theirs is 2:2).
    #[serde(default = "default_cole_ratio", skip_serializing_if = "is_default_cole_ratio")]
    pub cole_ratio: [usize; 2],
    /// FCP: of every `a + b` environments, `a` are self-play and `b` pair the learner with
    /// a pool member; 0:1 (the published FCP, pool partners only) by default.
    #[serde(default = "default_fcp_ratio", skip_serializing_if = "is_default_fcp_ratio")]
    pub fcp_ratio: [usize; 2],
    /// Self-play episodes of the final evaluation (10 per partner and seat otherwise).
    pub eval_episodes: u32,
    /// Worker threads (results do not depend on it).
    #[serde(skip)]
    pub threads: usize,
}

impl TrainConfig {
    /// Defaults for `algo` (the CLI overrides single fields).
    pub fn new(algo: Algo, seed: u64) -> TrainConfig {
        TrainConfig {
            algo,
            seed,
            steps: 3_000_000,
            envs: 30,
            horizon: 400,
            hidden: vec![64, 64],
            encoder: FEATURES62.to_string(),
            ppo: PpoConfig::default(),
            shaping_horizon: 1_500_000,
            shaping_credit: ShapingCredit::Auto,
            population: 3,
            pool_steps: 3_000_000,
            pbt_interval: 10,
            mep_alpha: 0.01,
            mep_beta: 3.0,
            cole_inner: default_cole_inner(),
            cole_eval_episodes: default_cole_eval(),
            cole_ratio: default_cole_ratio(),
            fcp_ratio: default_fcp_ratio(),
            eval_episodes: 100,
            threads: 1,
        }
    }

    /// Environment steps the whole run will take (every phase), for progress bars.
    pub fn total_steps(&self, pool_given: bool) -> u64 {
        let per_iter = (self.envs * self.horizon) as u64;
        let round = |s: u64| s.div_ceil(per_iter) * per_iter;
        let k = self.population as u64;
        match self.algo {
            Algo::Sp => round(self.steps),
            Algo::Pbt => k * round(self.steps),
            Algo::Fcp => round(self.steps) + if pool_given { 0 } else { k * round(self.pool_steps) },
            Algo::Mep => round(self.steps) + k * round(self.pool_steps),
            Algo::Cole => round(self.steps),
        }
    }

    /// Parameters of a network with `inputs` inputs and this run's hidden widths.
    pub fn parameters(&self, inputs: usize) -> u64 {
        let mut sizes = vec![inputs as u64];
        sizes.extend(self.hidden.iter().map(|&h| h as u64));
        sizes.push(HEAD_OUTPUTS as u64);
        sizes.windows(2).map(|w| w[0].saturating_mul(w[1]).saturating_add(w[1])).fold(0u64, u64::saturating_add)
    }

    /// An upper bound on the bytes a run allocates, from its flags and the encoding's
    /// width `dim`: the rollout and its PPO batch (envs × horizon × 2 seats × (2 × dim + 11)
    /// × 4 bytes), a minibatch's copy and per-chunk gradients, the networks a run holds at
    /// once (learners with Adam state and gradient, frozen partners, kept snapshots) and
    /// the forward workspaces. Saturates instead of overflowing.
    pub fn memory_estimate(&self, dim: usize) -> u64 {
        let m = |a: u64, b: u64| a.saturating_mul(b);
        let dim = dim as u64;
        let params = self.parameters(dim as usize);
        let samples = m(m(self.envs as u64, self.horizon as u64), 2);
        // Rollout (obs, actions, logp, values, rewards, entropy) and batch (obs, actions,
        // logp, adv, ret).
        let per_sample = m(2, m(dim, 4)).saturating_add(2 + 4 * 7);
        let rollout = m(samples, per_sample);
        let mb = samples / self.ppo.minibatches.max(1) as u64 + 1;
        let chunks = mb / CHUNK as u64 + 1;
        let minibatch = m(mb, m(dim, 4).saturating_add(16)).saturating_add(m(m(chunks, params), 4));
        let widest = self.hidden.iter().copied().max().unwrap_or(0).max(HEAD_OUTPUTS) as u64;
        let rows = m(self.envs as u64, 2).max(1024);
        let workspace = m(m(rows, widest), m(4, self.hidden.len() as u64 + 3));
        let net = m(params, 4);
        let learner = m(net, 4);
        let k = self.population.max(1) as u64;
        let snapshots = m(net, MAX_SNAPSHOTS as u64 + 3);
        let nets = match self.algo {
            Algo::Sp => learner.saturating_add(snapshots),
            Algo::Pbt => m(k, learner.saturating_add(net)),
            Algo::Fcp => learner.saturating_add(snapshots).saturating_add(m(m(k, 3), net)),
            Algo::Mep => {
                m(k, learner.saturating_add(snapshots)).saturating_add(m(m(k, 3), net)).saturating_add(learner)
            }
            Algo::Cole => learner.saturating_add(m(k + 2, net)),
        };
        let eval = m(self.eval_episodes as u64, 2 * HEAD_OUTPUTS as u64 * 4 + 256);
        rollout.saturating_add(minibatch).saturating_add(workspace).saturating_add(nets).saturating_add(eval)
    }

    fn validate(&self) -> Result<(), TrainError> {
        let bad = |field: &'static str, why: &str| Err(TrainError::Config { field, message: why.to_string() });
        if self.hidden.len() > MAX_HIDDEN_LAYERS {
            return bad("hidden", &format!("has {} layers; at most {MAX_HIDDEN_LAYERS}", self.hidden.len()));
        }
        if self.envs == 0 || self.envs > 100_000 {
            return bad("envs", "must be between 1 and 100000");
        }
        if self.horizon == 0 {
            return bad("horizon", "must be at least 1");
        }
        if self.steps == 0 {
            return bad("steps", "must be at least 1");
        }
        if self.hidden.is_empty() || self.hidden.iter().any(|&h| h == 0 || h > super::net::MAX_WIDTH) {
            return bad("hidden", "needs 1 or more widths between 1 and 4096");
        }
        if matches!(self.algo, Algo::Pbt | Algo::Mep | Algo::Fcp | Algo::Cole) && self.population == 0 {
            return bad("population", "must be at least 1");
        }
        if self.algo == Algo::Cole && (self.cole_inner == 0 || self.cole_eval_episodes == 0) {
            return bad("cole-inner/cole-eval-episodes", "must be at least 1");
        }
        if self.cole_ratio[0] + self.cole_ratio[1] == 0 {
            return bad("cole-ratio", "needs a self-play or a population share above 0");
        }
        if self.fcp_ratio[1] == 0 {
            return bad("fcp-ratio", "needs a pool share above 0");
        }
        if self.ppo.epochs == 0 || self.ppo.minibatches == 0 {
            return bad("epochs/minibatches", "must be at least 1");
        }
        let p = &self.ppo;
        let finite = [p.lr, p.clip, p.ent_coef, p.vf_coef, p.max_grad_norm, p.gamma, p.lambda, self.mep_alpha];
        if finite.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return bad("ppo", "hyper-parameters must be finite and non-negative");
        }
        if !(0.0..=1.0).contains(&p.gamma) || !(0.0..=1.0).contains(&p.lambda) {
            return bad("gamma/lambda", "must be between 0 and 1");
        }
        Ok(())
    }
}

/// Why training could not run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A configuration value out of range.
    #[error("training configuration: {field} {message}")]
    Config {
        /// The field (CLI flag without dashes).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The game cannot be trained on as configured.
    #[error("{0}")]
    Game(String),
    /// The run would allocate more than [`MAX_TRAIN_BYTES`].
    #[error(
        "this run would allocate about {:.1} GiB (envs {envs} × horizon {horizon} × 2 seats × {dim} inputs, {params} \
         parameters per network), over the {} training budget (docs/limits.md); use fewer --envs, a shorter \
         --horizon or smaller --hidden layers",
        *bytes as f64 / (1u64 << 30) as f64,
        proagent_core::limits::human_bytes(MAX_TRAIN_BYTES)
    )]
    TooLarge {
        /// The estimate.
        bytes: u64,
        /// Environments.
        envs: usize,
        /// Episode length.
        horizon: usize,
        /// The encoding's width.
        dim: usize,
        /// Parameters per network.
        params: u64,
    },
    /// A pool network that does not take this run's input.
    #[error("pool policy {label} takes {got} inputs, this run's encoder gives {want}")]
    PoolShape {
        /// Which pool entry.
        label: String,
        /// Its input size.
        got: usize,
        /// This run's input size.
        want: usize,
    },
    /// Starting weights whose layer sizes are not this run's.
    #[error("the starting weights {label} have layers {got:?}, this run's are {want:?} (input, hidden widths, head)")]
    InitShape {
        /// Where the weights came from.
        label: String,
        /// Their layer sizes.
        got: Vec<usize>,
        /// This run's layer sizes.
        want: Vec<usize>,
    },
    /// Starting weights for an algorithm without a single learner.
    #[error("starting weights are for the learner of fcp, mep and cole, not {0}")]
    InitAlgo(&'static str),
}

/// One PPO iteration of one learner, as reported and stored in the metadata.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IterRecord {
    /// Which part of the run: `sp`, `pool k/K`, `pbt k`, `mep population`, `learner`.
    pub phase: String,
    /// Iteration within the phase, from 1.
    pub iteration: usize,
    /// Environment steps of this learner so far.
    pub steps: u64,
    /// Environment steps of the whole run so far.
    pub run_steps: u64,
    /// Mean sparse episode score of the rollout.
    pub score: f64,
    /// Mean shaped team reward per episode (unscaled).
    pub shaped: f64,
    /// Mean undiscounted training return per recorded trajectory.
    pub train_return: f64,
    /// Mean entropy of the acting policy over recorded samples.
    pub entropy: f64,
    /// The shaping factor used.
    pub shaping: f32,
    /// The learner's hyper-parameters this iteration.
    pub lr: f64,
    /// Entropy coefficient this iteration.
    pub ent_coef: f64,
    /// The update's losses.
    pub update: UpdateStats,
    /// Seconds spent in the rollout.
    pub rollout_s: f64,
    /// Seconds spent in the update.
    pub update_s: f64,
    /// Recorded samples (both seats in self-play).
    pub samples: usize,
}

/// One evaluation of the final policy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalRecord {
    /// Who the policy played with: `self`, or a pool/population label.
    pub partner: String,
    /// The policy's seat (`None` in self-play).
    pub seat: Option<usize>,
    /// Sparse scores, one per episode.
    pub scores: Vec<i32>,
    /// Mean score.
    pub mean: f64,
    /// Standard error of the mean (sample sd / √n; 0 for one episode).
    pub se: f64,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct TrainOutcome {
    /// The policy to ship.
    pub net: Net,
    /// Extra networks stored with it (SP: `early` = initial weights, `middle`).
    pub checkpoints: Vec<(String, Net)>,
    /// Every iteration of every phase.
    pub history: Vec<IterRecord>,
    /// Final evaluations.
    pub evals: Vec<EvalRecord>,
    /// Algorithm-specific facts (PBT hyper-parameters, MEP priorities, the FCP pool, …).
    pub notes: serde_json::Value,
    /// Total environment steps.
    pub env_steps: u64,
    /// Seconds in rollouts.
    pub rollout_s: f64,
    /// Seconds in updates.
    pub update_s: f64,
}

/// A frozen partner policy with a label for reports.
#[derive(Clone, Debug)]
pub struct PoolEntry {
    /// e.g. `sp3.middle` or a file name.
    pub label: String,
    /// The weights.
    pub net: Net,
}

pub(super) struct Learner {
    pub(super) net: Net,
    opt: Adam,
    hp: PpoConfig,
    rng: ChaCha8Rng,
    steps: u64,
    iterations: usize,
    seed: u64,
}

impl Learner {
    pub(super) fn new(dim: usize, cfg: &TrainConfig, seed: u64) -> Learner {
        Learner::from_net(Net::new(dim, &cfg.hidden, derive_seed(seed, 1)), cfg, seed)
    }

    /// A learner starting from `net` (fresh optimiser state, step counts at 0).
    fn from_net(net: Net, cfg: &TrainConfig, seed: u64) -> Learner {
        let n = net.params.len();
        Learner {
            net,
            opt: Adam::new(n),
            hp: cfg.ppo.clone(),
            rng: ChaCha8Rng::seed_from_u64(derive_seed(seed, 2)),
            steps: 0,
            iterations: 0,
            seed,
        }
    }

    /// The RNG of environment `e` in this learner's next iteration.
    fn env_rng(&self, e: usize) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.env_seed(e))
    }

    fn env_seed(&self, e: usize) -> u64 {
        derive_seed(derive_seed(self.seed ^ 0x5EED, self.iterations as u64), e as u64)
    }

    /// The game's chance in environment `e` of this learner's next iteration (a stream of
    /// its own, so games without chance sample exactly as before).
    fn env_chance(&self, e: usize) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(derive_seed(self.env_seed(e), 0xC4A2CE))
    }
}

/// Extra reward per recorded sample, computed from a finished rollout (MEP's entropy bonus).
type RewardBonus<'a> = &'a dyn Fn(&Rollout) -> Vec<f32>;

pub(super) struct Ctx<'a, G: RlGame> {
    pub(super) game: &'a G,
    pub(super) enc: G::Encoder,
    pub(super) dim: usize,
    pub(super) cfg: &'a TrainConfig,
    /// Where the final policy's learner starts (fcp, mep, cole), if not from random weights.
    init: Option<PoolEntry>,
    run_steps: u64,
    on_iter: &'a mut dyn FnMut(&IterRecord),
    history: Vec<IterRecord>,
    rollout_s: f64,
    update_s: f64,
}

impl<G: RlGame> Ctx<'_, G> {
    fn shaping(&self, steps: u64) -> f32 {
        if self.cfg.shaping_horizon == 0 {
            return 0.0;
        }
        (1.0 - steps as f64 / self.cfg.shaping_horizon as f64).max(0.0) as f32
    }

    /// One rollout + update of `l`. `partners` are frozen nets; `seats(e, rng)` says who plays
    /// environment `e` (net 0 is the learner); `bonus` may add to the rewards before GAE.
    pub(super) fn iterate(
        &mut self,
        phase: &str,
        l: &mut Learner,
        partners: &[&Net],
        seats: &mut dyn FnMut(usize) -> [SeatPolicy; 2],
        bonus: Option<RewardBonus<'_>>,
    ) -> (IterRecord, Rollout) {
        let shaping = self.shaping(l.steps);
        let credit = self.cfg.shaping_credit;
        let mut slots: Vec<EnvSlot> = (0..self.cfg.envs)
            .map(|e| {
                let s = seats(e);
                EnvSlot { seats: s, rng: l.env_rng(e), chance: l.env_chance(e), own_shaping: credit.own(&s) }
            })
            .collect();
        let mut nets: Vec<&Net> = vec![&l.net];
        nets.extend_from_slice(partners);
        let t0 = Instant::now();
        let mut r =
            collect_parallel(self.game, &self.enc, &nets, &mut slots, self.cfg.horizon, shaping, self.cfg.threads);
        if let Some(b) = bonus {
            let extra = b(&r);
            for (x, y) in r.rewards.iter_mut().zip(extra) {
                *x += y;
            }
        }
        let rollout_s = t0.elapsed().as_secs_f64();
        let batch = to_batch(&r, l.hp.gamma as f32, l.hp.lambda as f32);
        let t1 = Instant::now();
        let update = ppo::update(&mut l.net, &mut l.opt, &batch, &l.hp, &mut l.rng, self.cfg.threads);
        let update_s = t1.elapsed().as_secs_f64();
        let env_steps = (self.cfg.envs * self.cfg.horizon) as u64;
        l.steps += env_steps;
        l.iterations += 1;
        self.run_steps += env_steps;
        self.rollout_s += rollout_s;
        self.update_s += update_s;
        let n_env = r.scores.len().max(1) as f64;
        let tracks = r.tracks.len().max(1) as f64;
        let rec = IterRecord {
            phase: phase.to_string(),
            iteration: l.iterations,
            steps: l.steps,
            run_steps: self.run_steps,
            score: r.scores.iter().map(|&s| s as f64).sum::<f64>() / n_env,
            shaped: r.shaped.iter().map(|&s| s as f64).sum::<f64>() / n_env,
            train_return: r.rewards.iter().map(|&x| x as f64).sum::<f64>() / tracks,
            entropy: r.entropy.iter().map(|&x| x as f64).sum::<f64>() / r.entropy.len().max(1) as f64,
            shaping,
            lr: l.hp.lr,
            ent_coef: l.hp.ent_coef,
            update,
            rollout_s,
            update_s,
            samples: r.samples(),
        };
        (self.on_iter)(&rec);
        self.history.push(rec.clone());
        (rec, r)
    }

    /// The learner whose weights become the shipped policy (FCP's, MEP's, COLE's): from the
    /// given starting weights if any (its random draws still come from `seed`).
    pub(super) fn final_learner(&self, seed: u64) -> Learner {
        match &self.init {
            Some(e) => Learner::from_net(e.net.clone(), self.cfg, seed),
            None => Learner::new(self.dim, self.cfg, seed),
        }
    }

    pub(super) fn iterations(&self, steps: u64) -> usize {
        steps.div_ceil((self.cfg.envs * self.cfg.horizon) as u64) as usize
    }

    /// Self-play run: returns the final learner and the snapshots (iteration score, net),
    /// the first one being the initial weights.
    fn self_play(&mut self, phase: &str, seed: u64, steps: u64, keep_snapshots: bool) -> (Learner, Vec<(f64, Net)>) {
        let mut l = Learner::new(self.dim, self.cfg, seed);
        let mut snaps = Snapshots::default();
        if keep_snapshots {
            snaps.push(0.0, &l.net);
        }
        let both = [SeatPolicy { net: 0, record: true }; 2];
        for _ in 0..self.iterations(steps) {
            let (rec, _) = self.iterate(phase, &mut l, &[], &mut |_| both, None);
            if keep_snapshots {
                snaps.push(rec.score, &l.net);
            }
        }
        (l, snaps.finish())
    }

    pub(super) fn eval(&self, a: &Net, b: &Net, episodes: u32, seed: u64) -> Vec<i32> {
        play(self.game, &self.enc, a, b, episodes, self.cfg.horizon, seed, self.cfg.threads)
    }

    fn eval_record(&self, partner: &str, seat: Option<usize>, scores: Vec<i32>) -> EvalRecord {
        let (mean, se) = mean_se(&scores);
        EvalRecord { partner: partner.to_string(), seat, scores, mean, se }
    }

    /// Self-play evaluation plus, for each partner, 10 episodes in each seat.
    pub(super) fn final_evals(&self, net: &Net, partners: &[PoolEntry]) -> Vec<EvalRecord> {
        let seed = derive_seed(self.cfg.seed, 900);
        let mut out = vec![self.eval_record("self", None, self.eval(net, net, self.cfg.eval_episodes, seed))];
        for (j, p) in partners.iter().enumerate() {
            for seat in 0..2 {
                let s = derive_seed(seed, (j * 2 + seat) as u64 + 1);
                let scores = if seat == 0 { self.eval(net, &p.net, 10, s) } else { self.eval(&p.net, net, 10, s) };
                out.push(self.eval_record(&p.label, Some(seat), scores));
            }
        }
        out
    }
}

/// The snapshots (iteration score, network) of a run, at most [`MAX_SNAPSHOTS`]: when
/// full, every second one is dropped and later ones are kept at twice the stride. The
/// first snapshot (the initial weights) and the last pushed are always kept.
#[derive(Default)]
struct Snapshots {
    kept: Vec<(f64, Net)>,
    stride: usize,
    seen: usize,
    last: Option<(f64, Net)>,
}

impl Snapshots {
    fn push(&mut self, score: f64, net: &Net) {
        let stride = self.stride.max(1);
        if self.seen.is_multiple_of(stride) {
            if self.kept.len() == MAX_SNAPSHOTS {
                let mut i = 0;
                self.kept.retain(|_| {
                    i += 1;
                    (i - 1) % 2 == 0
                });
                self.stride = stride * 2;
            }
            if self.seen.is_multiple_of(self.stride.max(1)) {
                self.kept.push((score, net.clone()));
                self.last = None;
            } else {
                self.last = Some((score, net.clone()));
            }
        } else {
            self.last = Some((score, net.clone()));
        }
        self.seen += 1;
    }

    fn finish(mut self) -> Vec<(f64, Net)> {
        if let Some(l) = self.last.take() {
            self.kept.push(l);
        }
        self.kept
    }
}

/// Mean and standard error of scores.
pub fn mean_se(scores: &[i32]) -> (f64, f64) {
    let n = scores.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mean = scores.iter().map(|&s| s as f64).sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, 0.0);
    }
    let var = scores.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, (var / n as f64).sqrt())
}

/// GAE per track → a PPO batch.
pub fn to_batch(r: &Rollout, gamma: f32, lambda: f32) -> Batch {
    let n = r.samples();
    let h = r.horizon;
    let mut adv = vec![0f32; n];
    let mut ret = vec![0f32; n];
    for k in 0..r.tracks.len() {
        let s = k * h..(k + 1) * h;
        gae(&r.rewards[s.clone()], &r.values[s.clone()], gamma, lambda, &mut adv[s.clone()], &mut ret[s]);
    }
    Batch { dim: r.dim, obs: r.obs.clone(), actions: r.actions.clone(), logp: r.logp.clone(), adv, ret }
}

use ppo::gae;

/// Plays `episodes` episodes of `a` (seat 0) with `b` (seat 1), sampling both; sparse scores.
#[allow(clippy::too_many_arguments)]
pub fn play<G: RlGame>(
    game: &G,
    enc: &G::Encoder,
    a: &Net,
    b: &Net,
    episodes: u32,
    horizon: usize,
    seed: u64,
    threads: usize,
) -> Vec<i32> {
    play_rollout(game, enc, [a, b], episodes, horizon, seed, threads).scores
}

/// The sampling and chance RNGs of episode `e` of an evaluation seeded `seed`.
pub fn eval_rngs(seed: u64, e: usize) -> (ChaCha8Rng, ChaCha8Rng) {
    let s = derive_seed(seed, e as u64);
    (ChaCha8Rng::seed_from_u64(s), ChaCha8Rng::seed_from_u64(derive_seed(s, 0xC4A2CE)))
}

/// Like [`play`], but the whole rollout (per-episode sparse scores and shaped totals).
#[allow(clippy::too_many_arguments)]
pub fn play_rollout<G: RlGame>(
    game: &G,
    enc: &G::Encoder,
    nets: [&Net; 2],
    episodes: u32,
    horizon: usize,
    seed: u64,
    threads: usize,
) -> Rollout {
    let seats = [SeatPolicy { net: 0, record: false }, SeatPolicy { net: 1, record: false }];
    let mut slots: Vec<EnvSlot> = (0..episodes as usize)
        .map(|e| {
            let (rng, chance) = eval_rngs(seed, e);
            EnvSlot { seats, rng, chance, own_shaping: false }
        })
        .collect();
    collect_parallel(game, enc, &nets, &mut slots, horizon, 0.0, threads)
}

/// The encoding a run of `cfg` reads on `game`, after checking the game can be trained on
/// (two players, a known encoding).
pub fn run_encoder<G: RlGame>(game: &G, cfg: &TrainConfig) -> Result<G::Encoder, TrainError> {
    if game.num_players() != 2 {
        return Err(TrainError::Game(format!(
            "{} has {} player(s); the PPO trainer plays two-player layouts",
            game.spec(),
            game.num_players()
        )));
    }
    game.encoder(&cfg.encoder).map_err(|e| TrainError::Game(e.to_string()))
}

/// Checks a run's configuration and its memory estimate on `game` (what [`train`] does
/// before it allocates anything).
pub fn check<G: RlGame>(game: &G, cfg: &TrainConfig) -> Result<usize, TrainError> {
    cfg.validate()?;
    let dim = run_encoder(game, cfg)?.dim();
    let bytes = cfg.memory_estimate(dim);
    if bytes > MAX_TRAIN_BYTES {
        return Err(TrainError::TooLarge {
            bytes,
            envs: cfg.envs,
            horizon: cfg.horizon,
            dim,
            params: cfg.parameters(dim),
        });
    }
    Ok(dim)
}

/// Checks `cfg` on `game` (configuration, memory budget, FCP pool widths) and sets up a
/// run's context; [`super::run::train`] runs the algorithm in it.
pub(super) fn context<'a, G: RlGame>(
    game: &'a G,
    cfg: &'a TrainConfig,
    pool: Option<&[PoolEntry]>,
    init: Option<PoolEntry>,
    on_iter: &'a mut dyn FnMut(&IterRecord),
) -> Result<Ctx<'a, G>, TrainError> {
    let dim = check(game, cfg)?;
    let enc = run_encoder(game, cfg)?;
    if let Some(p) = pool {
        if let Some(e) = p.iter().find(|e| e.net.inputs() != dim) {
            return Err(TrainError::PoolShape { label: e.label.clone(), got: e.net.inputs(), want: dim });
        }
    }
    if let Some(e) = &init {
        if matches!(cfg.algo, Algo::Sp | Algo::Pbt) {
            return Err(TrainError::InitAlgo(cfg.algo.name()));
        }
        let want: Vec<usize> = std::iter::once(dim).chain(cfg.hidden.iter().copied()).chain([HEAD_OUTPUTS]).collect();
        if e.net.sizes != want {
            return Err(TrainError::InitShape { label: e.label.clone(), got: e.net.sizes.clone(), want });
        }
    }
    Ok(Ctx { game, enc, dim, cfg, init, run_steps: 0, on_iter, history: Vec::new(), rollout_s: 0.0, update_s: 0.0 })
}

/// The outcome of a finished run in `ctx`.
pub(super) fn finish<G: RlGame>(ctx: Ctx<'_, G>, trained: Trained) -> TrainOutcome {
    let (net, checkpoints, evals, notes) = trained;
    TrainOutcome {
        net,
        checkpoints,
        evals,
        notes,
        env_steps: ctx.run_steps,
        rollout_s: ctx.rollout_s,
        update_s: ctx.update_s,
        history: ctx.history,
    }
}

pub(super) type Trained = (Net, Vec<(String, Net)>, Vec<EvalRecord>, serde_json::Value);

/// FCP's three checkpoints of an SP run: initial, middle (first snapshot whose rollout score
/// reaches half the final score, the mean of the last three), final.
pub fn fcp_checkpoints(snaps: &[(f64, Net)]) -> Option<[(usize, &Net); 3]> {
    let last = snaps.len().checked_sub(1)?;
    let tail = &snaps[snaps.len().saturating_sub(3).max(1).min(last)..];
    let final_score = tail.iter().map(|(s, _)| s).sum::<f64>() / tail.len().max(1) as f64;
    let mid = (1..=last).find(|&i| snaps[i].0 >= 0.5 * final_score && final_score > 0.0).unwrap_or(last / 2);
    Some([(0, &snaps[0].1), (mid, &snaps[mid].1), (last, &snaps[last].1)])
}

pub(super) fn train_sp<G: RlGame>(ctx: &mut Ctx<'_, G>) -> Trained {
    let cfg = ctx.cfg;
    let (l, snaps) = ctx.self_play("sp", cfg.seed, cfg.steps, true);
    let mut checkpoints = Vec::new();
    let mut notes = serde_json::json!({});
    if let Some([(_, early), (mid_i, mid), _]) = fcp_checkpoints(&snaps) {
        checkpoints.push(("early".to_string(), early.clone()));
        checkpoints.push(("middle".to_string(), mid.clone()));
        notes = serde_json::json!({"checkpoints": {"early": {"iteration": 0}, "middle": {"iteration": mid_i, "score": snaps[mid_i].0}}});
    }
    let evals = ctx.final_evals(&l.net, &[]);
    (l.net, checkpoints, evals, notes)
}

fn mutate(hp: &mut PpoConfig, rng: &mut ChaCha8Rng) -> Vec<String> {
    let mut changed = Vec::new();
    let mut factor = |rng: &mut ChaCha8Rng, name: &str| -> Option<f64> {
        if rng.random_bool(0.5) {
            let f = if rng.random_bool(0.5) { 0.75 } else { 1.25 };
            changed.push(format!("{name}×{f}"));
            Some(f)
        } else {
            None
        }
    };
    if let Some(f) = factor(rng, "lr") {
        hp.lr *= f;
    }
    if let Some(f) = factor(rng, "clip") {
        hp.clip = (hp.clip * f).clamp(0.01, 0.5);
    }
    if let Some(f) = factor(rng, "ent_coef") {
        hp.ent_coef *= f;
    }
    if let Some(f) = factor(rng, "vf_coef") {
        hp.vf_coef *= f;
    }
    if let Some(f) = factor(rng, "lambda") {
        // Perturb the distance from 1 so λ stays below 1.
        hp.lambda = (1.0 - (1.0 - hp.lambda) * f).clamp(0.5, 0.999);
    }
    changed
}

pub(super) fn train_pbt<G: RlGame>(ctx: &mut Ctx<'_, G>) -> Trained {
    let cfg = ctx.cfg;
    let k = cfg.population;
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed, 300));
    let mut members: Vec<Learner> =
        (0..k).map(|i| Learner::new(ctx.dim, cfg, derive_seed(cfg.seed, 200 + i as u64))).collect();
    for m in members.iter_mut().skip(1) {
        mutate(&mut m.hp, &mut rng);
    }
    let iters = ctx.iterations(cfg.steps);
    let mut recent: Vec<Vec<f64>> = vec![Vec::new(); k];
    let mut events = Vec::new();
    for it in 0..iters {
        let snapshot: Vec<Net> = members.iter().map(|m| m.net.clone()).collect();
        for i in 0..k {
            // Environment e pairs member i with member (i + e) mod k; with itself both seats learn.
            let partners: Vec<&Net> = snapshot.iter().collect();
            let mut seats = |e: usize| {
                let j = (i + e) % k;
                if j == i {
                    [SeatPolicy { net: 0, record: true }; 2]
                } else {
                    let me = SeatPolicy { net: 0, record: true };
                    let other = SeatPolicy { net: 1 + j, record: false };
                    if (e / k + it).is_multiple_of(2) { [me, other] } else { [other, me] }
                }
            };
            let phase = format!("pbt {}/{k}", i + 1);
            let (rec, _) = ctx.iterate(&phase, &mut members[i], &partners, &mut seats, None);
            recent[i].push(rec.score);
        }
        let round_end = (it + 1) % cfg.pbt_interval.max(1) == 0 && it + 1 < iters;
        if round_end && k > 1 {
            let fitness: Vec<f64> = recent.iter().map(|v| v.iter().sum::<f64>() / v.len().max(1) as f64).collect();
            let order = |a: &usize, b: &usize| fitness[*a].total_cmp(&fitness[*b]).then(a.cmp(b));
            let best = (0..k).max_by(order).unwrap_or(0);
            let worst = (0..k).min_by(order).unwrap_or(0);
            if best != worst && fitness[best] > fitness[worst] {
                let (net, opt, hp) = (members[best].net.clone(), members[best].opt.clone(), members[best].hp.clone());
                let w = &mut members[worst];
                w.net = net;
                w.opt = opt;
                w.hp = hp;
                let changed = mutate(&mut w.hp, &mut rng);
                events.push(serde_json::json!({"iteration": it + 1, "fitness": fitness, "copied": best, "into": worst, "mutated": changed}));
            }
            recent.iter_mut().for_each(Vec::clear);
        }
    }
    // Keep the member that scores best with the whole population (both seats).
    let pool: Vec<PoolEntry> = members
        .iter()
        .enumerate()
        .map(|(i, m)| PoolEntry { label: format!("pbt{}", i + 1), net: m.net.clone() })
        .collect();
    let seed = derive_seed(cfg.seed, 901);
    let mut cross = Vec::new();
    for (i, a) in pool.iter().enumerate() {
        let mut all = Vec::new();
        for (j, b) in pool.iter().enumerate() {
            all.extend(ctx.eval(&a.net, &b.net, 10, derive_seed(seed, (i * k + j) as u64)));
            all.extend(ctx.eval(&b.net, &a.net, 10, derive_seed(seed, (i * k + j) as u64 + 10_000)));
        }
        cross.push(mean_se(&all).0);
    }
    let best = (0..k).max_by(|a, b| cross[*a].total_cmp(&cross[*b]).then(b.cmp(a))).unwrap_or(0);
    let others: Vec<PoolEntry> = pool.iter().enumerate().filter(|(i, _)| *i != best).map(|(_, p)| p.clone()).collect();
    let evals = ctx.final_evals(&pool[best].net, &others);
    let notes = serde_json::json!({
        "kept_member": best + 1,
        "population_scores": cross,
        "hyperparameters": members.iter().map(|m| &m.hp).collect::<Vec<_>>(),
        "exploit_explore": events,
    });
    (pool[best].net.clone(), Vec::new(), evals, notes)
}

pub(super) fn train_fcp<G: RlGame>(ctx: &mut Ctx<'_, G>, given: Option<Vec<PoolEntry>>) -> Trained {
    let cfg = ctx.cfg;
    let pool: Vec<PoolEntry> = match given {
        Some(p) => p,
        None => {
            let mut pool = Vec::new();
            for r in 0..cfg.population {
                let phase = format!("pool {}/{}", r + 1, cfg.population);
                let (_, snaps) = ctx.self_play(&phase, derive_seed(cfg.seed, 100 + r as u64), cfg.pool_steps, true);
                if let Some(ck) = fcp_checkpoints(&snaps) {
                    for (tag, (_, net)) in ["early", "middle", "final"].iter().zip(ck) {
                        pool.push(PoolEntry { label: format!("sp{}.{tag}", r + 1), net: net.clone() });
                    }
                }
            }
            pool
        }
    };
    let mut l = ctx.final_learner(derive_seed(cfg.seed, 400));
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed, 401));
    let nets: Vec<&Net> = pool.iter().map(|p| &p.net).collect();
    let [own, others] = cfg.fcp_ratio;
    let both = [SeatPolicy { net: 0, record: true }; 2];
    for _ in 0..ctx.iterations(cfg.steps) {
        // A draw for every environment, self-play ones too, so that the default 0:1 draws
        // exactly what it drew before the option existed.
        let draws: Vec<(usize, bool)> =
            (0..cfg.envs).map(|_| (rng.random_range(0..pool.len().max(1)), rng.random_bool(0.5))).collect();
        let mut seats = |e: usize| {
            if e % (own + others) < own {
                return both;
            }
            let (j, first) = draws[e];
            let me = SeatPolicy { net: 0, record: true };
            let other = SeatPolicy { net: 1 + j, record: false };
            if first { [me, other] } else { [other, me] }
        };
        ctx.iterate("learner", &mut l, &nets, &mut seats, None);
    }
    let evals = ctx.final_evals(&l.net, &pool);
    let notes = serde_json::json!({"pool": pool.iter().map(|p| &p.label).collect::<Vec<_>>()});
    (l.net, Vec::new(), evals, notes)
}

/// −α log π̄(a|s) for every recorded sample, π̄ the mean policy of `population`.
fn population_entropy_bonus(r: &Rollout, population: &[&Net], alpha: f64) -> Vec<f32> {
    let n = r.samples();
    let dim = r.dim;
    let mut mean_p = vec![0f32; n];
    let mut ws = Workspace::default();
    const BLOCK: usize = 1024;
    for net in population {
        for s in (0..n).step_by(BLOCK) {
            let e = (s + BLOCK).min(n);
            net.forward(&r.obs[s * dim..e * dim], e - s, &mut ws);
            let out = ws.output();
            for i in s..e {
                let lp = log_softmax(&out[(i - s) * HEAD_OUTPUTS..(i - s + 1) * HEAD_OUTPUTS]);
                mean_p[i] += lp[r.actions[i] as usize].exp();
            }
        }
    }
    let k = population.len().max(1) as f32;
    let alpha = alpha as f32;
    mean_p.iter().map(|&p| -alpha * (p / k).max(1e-8).ln()).collect()
}

/// MEP's sampling probabilities: rank the partners by the learner's score with them (lowest
/// score → rank k), probability ∝ rankᵝ; uniform until every partner has a score.
pub fn mep_priorities(scores: &[Option<f64>], beta: f64) -> Vec<f64> {
    let k = scores.len();
    if k == 0 {
        return Vec::new();
    }
    if scores.iter().any(Option::is_none) {
        return vec![1.0 / k as f64; k];
    }
    let s: Vec<f64> = scores.iter().map(|x| x.unwrap_or(0.0)).collect();
    let mut order: Vec<usize> = (0..k).collect();
    // Highest score first: it gets rank 1; the lowest gets rank k.
    order.sort_by(|a, b| s[*b].total_cmp(&s[*a]).then(a.cmp(b)));
    let mut w = vec![0f64; k];
    for (r, &i) in order.iter().enumerate() {
        w[i] = ((r + 1) as f64).powf(beta);
    }
    let total: f64 = w.iter().sum();
    w.iter().map(|x| x / total).collect()
}

pub(super) fn train_mep<G: RlGame>(ctx: &mut Ctx<'_, G>) -> Trained {
    let cfg = ctx.cfg;
    let k = cfg.population;
    let mut members: Vec<Learner> =
        (0..k).map(|i| Learner::new(ctx.dim, cfg, derive_seed(cfg.seed, 500 + i as u64))).collect();
    let both = [SeatPolicy { net: 0, record: true }; 2];
    let mut snaps: Vec<Snapshots> = members
        .iter()
        .map(|m| {
            let mut s = Snapshots::default();
            s.push(0.0, &m.net);
            s
        })
        .collect();
    for _ in 0..ctx.iterations(cfg.pool_steps) {
        let snapshot: Vec<Net> = members.iter().map(|m| m.net.clone()).collect();
        let pop: Vec<&Net> = snapshot.iter().collect();
        let bonus = |r: &Rollout| population_entropy_bonus(r, &pop, cfg.mep_alpha);
        for (i, m) in members.iter_mut().enumerate() {
            let phase = format!("mep population {}/{k}", i + 1);
            let (rec, _) = ctx.iterate(&phase, m, &[], &mut |_| both, Some(&bonus));
            snaps[i].push(rec.score, &m.net);
        }
    }
    // The learner's partners: each member's initial, middle and final policies (as FCP's
    // pool), so it also meets partners that cannot cook; a population of near-identical
    // final policies alone teaches a role that fails with anyone else (self-play 0.2 on
    // cramped_room).
    let mut pool: Vec<PoolEntry> = Vec::new();
    let snaps: Vec<Vec<(f64, Net)>> = snaps.into_iter().map(Snapshots::finish).collect();
    for (i, s) in snaps.iter().enumerate() {
        if let Some(ck) = fcp_checkpoints(s) {
            for (tag, (_, net)) in ["early", "middle", "final"].iter().zip(ck) {
                pool.push(PoolEntry { label: format!("mep{}.{tag}", i + 1), net: net.clone() });
            }
        }
    }
    drop(snaps);
    let k = pool.len();
    let nets: Vec<&Net> = pool.iter().map(|p| &p.net).collect();
    let mut l = ctx.final_learner(derive_seed(cfg.seed, 600));
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed, 601));
    let mut scores: Vec<Option<f64>> = vec![None; k];
    for _ in 0..ctx.iterations(cfg.steps) {
        let probs = mep_priorities(&scores, cfg.mep_beta);
        let draws: Vec<(usize, bool)> = (0..cfg.envs)
            .map(|_| {
                let u: f64 = rng.random();
                let mut acc = 0.0;
                let mut j = k - 1;
                for (i, p) in probs.iter().enumerate() {
                    acc += p;
                    if u < acc {
                        j = i;
                        break;
                    }
                }
                (j, rng.random_bool(0.5))
            })
            .collect();
        let mut seats = |e: usize| {
            let (j, first) = draws[e];
            let me = SeatPolicy { net: 0, record: true };
            let other = SeatPolicy { net: 1 + j, record: false };
            if first { [me, other] } else { [other, me] }
        };
        let (_, r) = ctx.iterate("learner", &mut l, &nets, &mut seats, None);
        for j in 0..k {
            let s: Vec<i32> = (0..cfg.envs).filter(|&e| draws[e].0 == j).map(|e| r.scores[e]).collect();
            if !s.is_empty() {
                scores[j] = Some(mean_se(&s).0);
            }
        }
    }
    let evals = ctx.final_evals(&l.net, &pool);
    let notes = serde_json::json!({
        "population": pool.iter().map(|p| &p.label).collect::<Vec<_>>(),
        "final_priorities": mep_priorities(&scores, cfg.mep_beta),
        "last_scores": scores,
    });
    (l.net, Vec::new(), evals, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::run::train;
    use proagent_overcooked::env::Layout;
    use proagent_overcooked::game::Overcooked;
    use std::sync::Arc;

    fn cramped() -> Overcooked {
        Overcooked::new(Arc::new(Layout::builtin("cramped_room").unwrap()), 400)
    }

    fn tiny(algo: Algo) -> TrainConfig {
        TrainConfig {
            steps: 2 * 4 * 100,
            envs: 4,
            horizon: 100,
            hidden: vec![16],
            pool_steps: 4 * 100,
            population: 2,
            eval_episodes: 4,
            shaping_horizon: 800,
            pbt_interval: 1,
            ..TrainConfig::new(algo, 5)
        }
    }

    #[test]
    fn same_config_same_weights_for_every_algorithm() {
        let l = cramped();
        for algo in Algo::ALL {
            let cfg = tiny(algo);
            let mut n = 0;
            let a = train(&l, &cfg, None, &mut |_| n += 1).unwrap();
            let b = train(&l, &TrainConfig { threads: 2, ..cfg.clone() }, None, &mut |_| {}).unwrap();
            assert_eq!(a.net, b.net, "{algo:?}: same seed, same weights (1 vs 2 threads)");
            assert_eq!(a.env_steps, cfg.total_steps(false), "{algo:?}");
            assert_eq!(n, a.history.len());
            let c = train(&l, &TrainConfig { seed: 6, ..cfg }, None, &mut |_| {}).unwrap();
            assert_ne!(a.net, c.net, "{algo:?}: another seed, other weights");
            assert!(a.evals.iter().all(|e| e.scores.len() == if e.seat.is_none() { 4 } else { 10 }));
        }
    }

    #[test]
    fn fcp_ratio_turns_that_share_of_the_learners_environments_into_self_play() {
        let l = cramped();
        let learner_samples = |cfg: &TrainConfig| {
            let out = train(&l, cfg, None, &mut |_| {}).unwrap();
            let it: Vec<usize> = out.history.iter().filter(|r| r.phase == "learner").map(|r| r.samples).collect();
            assert_eq!(it.len(), 2);
            (out, it[0])
        };
        let published = tiny(Algo::Fcp);
        let (a, one_seat) = learner_samples(&published);
        // One recorded seat per environment, 4 environments of 100 steps.
        assert_eq!(one_seat, 4 * 100);
        // 1:1 — environments 0 and 2 are self-play, both seats recorded there.
        let half = TrainConfig { fcp_ratio: [1, 1], ..tiny(Algo::Fcp) };
        let (b, mixed) = learner_samples(&half);
        assert_eq!(mixed, (2 * 2 + 2) * 100);
        assert_ne!(a.net, b.net);
        // The default is left out of the written configuration (older files stay as they were).
        let text = serde_json::to_string(&published).unwrap();
        assert!(!text.contains("fcp_ratio"), "{text}");
        assert!(serde_json::to_string(&half).unwrap().contains("\"fcp_ratio\":[1,1]"));
        let bad = TrainConfig { fcp_ratio: [1, 0], ..tiny(Algo::Fcp) };
        assert!(train(&l, &bad, None, &mut |_| {}).unwrap_err().to_string().contains("fcp-ratio"));
    }

    #[test]
    fn the_learner_starts_from_the_given_weights() {
        let l = cramped();
        let start = train(&l, &tiny(Algo::Sp), None, &mut |_| {}).unwrap().net;
        let init = || Some(PoolEntry { label: "start".into(), net: start.clone() });
        // With a zero step size the learner ends where it started.
        let mut still = tiny(Algo::Fcp);
        still.ppo.lr = 0.0;
        for algo in [Algo::Fcp, Algo::Mep, Algo::Cole] {
            let out = crate::rl::run::train_from(&l, &TrainConfig { algo, ..still.clone() }, None, init(), &mut |_| {});
            assert_eq!(out.unwrap().net, start, "{algo:?}");
        }
        let moved = crate::rl::run::train_from(&l, &tiny(Algo::Fcp), None, init(), &mut |_| {}).unwrap().net;
        assert_ne!(moved, start);
        let err = crate::rl::run::train_from(&l, &tiny(Algo::Sp), None, init(), &mut |_| {}).unwrap_err();
        assert!(matches!(err, TrainError::InitAlgo("sp")), "{err}");
        let wide = TrainConfig { hidden: vec![8], ..tiny(Algo::Fcp) };
        let err = crate::rl::run::train_from(&l, &wide, None, init(), &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("[62, 16, 7]") && err.to_string().contains("[62, 8, 7]"), "{err}");
    }

    #[test]
    fn a_short_self_play_run_improves_over_the_random_start_on_cramped_room() {
        let l = cramped();
        let cfg = TrainConfig {
            steps: 16 * 8 * 200,
            envs: 8,
            horizon: 200,
            hidden: vec![32],
            shaping_horizon: 1_000_000,
            eval_episodes: 2,
            ..TrainConfig::new(Algo::Sp, 1)
        };
        let out = train(&l, &cfg, None, &mut |_| {}).unwrap();
        let early = &out.checkpoints.iter().find(|(t, _)| t == "early").unwrap().1;
        let enc = l.encoder(FEATURES62).unwrap();
        // Team return (sparse + shaped: potting, dish and soup pickups) over the same 24 seeded episodes.
        let ret = |net: &Net| {
            let r = play_rollout(&l, &enc, [net, net], 24, 200, 77, 1);
            r.scores.iter().zip(&r.shaped).map(|(a, b)| (a + b) as f64).sum::<f64>() / 24.0
        };
        let (before, after) = (ret(early), ret(&out.net));
        assert!(after > before + 3.0, "random start {before:.2}, after training {after:.2}");
    }

    #[test]
    fn the_trainer_is_generic_over_the_game_v2_with_a_view_radius() {
        use proagent_overcooked_v2::env::{Layout as V2Layout, Settings};
        use proagent_overcooked_v2::game::OvercookedV2;
        let l = Arc::new(V2Layout::builtin("cramped_room_v2").unwrap());
        let g = OvercookedV2::new(l, Settings { max_steps: 100, view_radius: Some(2), ..Settings::default() });
        let dim = g.encoder(crate::rl::obs_v2::V2_VIEW).unwrap().dim();
        for algo in [Algo::Sp, Algo::Fcp] {
            let cfg = TrainConfig { encoder: crate::rl::obs_v2::V2_VIEW.into(), ..tiny(algo) };
            let a = train(&g, &cfg, None, &mut |_| {}).unwrap();
            let b = train(&g, &TrainConfig { threads: 2, ..cfg.clone() }, None, &mut |_| {}).unwrap();
            assert_eq!(a.net, b.net, "{algo:?}: same weights with 1 and 2 threads");
            assert_eq!(a.net.inputs(), dim);
        }
        // The classic encoding is not one of V2's.
        let e = train(&g, &tiny(Algo::Sp), None, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("not one of overcooked_v2's"), "{e}");
        // One-player layouts cannot be trained on.
        let solo = OvercookedV2::new(Arc::new(V2Layout::builtin("long_room").unwrap()), Settings::default());
        let cfg = TrainConfig { encoder: crate::rl::obs_v2::V2_VIEW.into(), ..tiny(Algo::Sp) };
        assert!(train(&solo, &cfg, None, &mut |_| {}).unwrap_err().to_string().contains("1 player"));
    }

    #[test]
    fn runs_over_the_memory_budget_are_refused_before_allocating() {
        let l = cramped();
        let big = TrainConfig { envs: 10_000, horizon: 100_000, ..tiny(Algo::Sp) };
        let e = train(&l, &big, None, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("training budget") && e.contains("--envs"), "{e}");
        let deep = TrainConfig { hidden: vec![4096; 200], ..tiny(Algo::Sp) };
        assert!(train(&l, &deep, None, &mut |_| {}).unwrap_err().to_string().contains("layers"));
        let wide = TrainConfig { hidden: vec![4096; 16], ..tiny(Algo::Sp) };
        assert!(matches!(train(&l, &wide, None, &mut |_| {}), Err(TrainError::TooLarge { .. })));
        // The defaults are far below it: tens of megabytes.
        let d = TrainConfig::new(Algo::Mep, 1).memory_estimate(62);
        assert!(d < 200 << 20, "{d}");
    }

    #[test]
    fn snapshots_stay_bounded_and_keep_the_first_and_last() {
        let net = Net::new(2, &[2], 0);
        let mut s = Snapshots::default();
        for i in 0..3 * MAX_SNAPSHOTS {
            s.push(i as f64, &net);
        }
        let kept = s.finish();
        assert!(kept.len() <= MAX_SNAPSHOTS + 1, "{}", kept.len());
        assert_eq!(kept[0].0, 0.0);
        assert_eq!(kept.last().unwrap().0, (3 * MAX_SNAPSHOTS - 1) as f64);
        let mut few = Snapshots::default();
        for i in 0..10 {
            few.push(i as f64, &net);
        }
        assert_eq!(few.finish().len(), 10, "short runs keep every snapshot");
    }

    #[test]
    fn mep_priorities_favour_weak_partners() {
        assert_eq!(mep_priorities(&[None, Some(3.0)], 3.0), vec![0.5, 0.5]);
        let p = mep_priorities(&[Some(100.0), Some(0.0), Some(50.0)], 1.0);
        // Ranks 1, 3, 2 → 1/6, 3/6, 2/6.
        assert!((p[0] - 1.0 / 6.0).abs() < 1e-12 && (p[1] - 0.5).abs() < 1e-12 && (p[2] - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn shaping_credit_rule() {
        let s = |a: usize, b: usize| [SeatPolicy { net: a, record: true }, SeatPolicy { net: b, record: false }];
        assert!(!ShapingCredit::Auto.own(&s(0, 0)), "self-play shares the team's shaping");
        assert!(ShapingCredit::Auto.own(&s(0, 2)), "with another network, only its own");
        assert!(ShapingCredit::Own.own(&s(0, 0)) && !ShapingCredit::Team.own(&s(0, 1)));
        assert_eq!(ShapingCredit::parse("own"), Some(ShapingCredit::Own));
        assert_eq!(ShapingCredit::parse("mine"), None);
    }

    #[test]
    fn fcp_checkpoint_choice() {
        let net = Net::new(2, &[2], 0);
        let snaps: Vec<(f64, Net)> =
            [0.0, 0.0, 10.0, 40.0, 60.0, 80.0, 100.0, 120.0].iter().map(|&s| (s, net.clone())).collect();
        // Final = mean of the last three (80, 100, 120) = 100; half = 50 → index 4 (60).
        let ck = fcp_checkpoints(&snaps).unwrap();
        assert_eq!([ck[0].0, ck[1].0, ck[2].0], [0, 4, 7]);
    }

    #[test]
    fn configuration_errors_name_the_field() {
        let l = cramped();
        let bad = TrainConfig { envs: 0, ..tiny(Algo::Sp) };
        let e = train(&l, &bad, None, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("envs"), "{e}");
        let bad = TrainConfig { hidden: vec![], ..tiny(Algo::Sp) };
        assert!(train(&l, &bad, None, &mut |_| {}).unwrap_err().to_string().contains("hidden"));
    }
}
