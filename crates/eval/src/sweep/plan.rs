//! The sweep plan: the cross product of layouts, agents, partners, seats and
//! episodes in a stable order, each episode named by the sha256 of its
//! canonical spec, and the deterministic `--shard i/n` split.

use proagent_llm::sha256_hex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Bumped when the meaning of an episode spec changes, so old results are not reused.
/// Version 2: agents and partners are named by their labels (a ProAgent by its model and
/// options), and real episodes' `runner_config` covers every seat (code version, model
/// server, file hashes).
pub const SPEC_VERSION: u32 = 2;

/// A layout in a sweep: its report name and the sha256 of its source text, so
/// editing a layout file never silently reuses results from the old grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutRef {
    /// The name reports use: the canonical built-in name, or the layout file's layout name.
    pub name: String,
    /// sha256 (hex) of the layout's source text (the embedded file for built-ins).
    pub sha256: String,
}

/// What a sweep covers. List order is kept in the plan; duplicates are dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepSpec {
    /// Layouts to play, in report order.
    pub layouts: Vec<LayoutRef>,
    /// Agent specs evaluated (e.g. `proagent`, `scripted`, `greedy`).
    pub agents: Vec<String>,
    /// Partner specs they are paired with (e.g. `bc`, `greedy`, `stay`).
    pub partners: Vec<String>,
    /// Seats the evaluated agent takes (0 = player 0).
    pub seats: Vec<u8>,
    /// Episodes per cell (layout × agent × partner × seat).
    pub episodes: u32,
    /// Episode `i` is played with seed `seed + i` in every cell (common random numbers),
    /// so differences between agents are not blurred by different seeds.
    pub seed: u64,
    /// Episode length in ticks.
    pub horizon: u32,
    /// Which episode runner produced the results ("play" for real episodes). Part of the
    /// key, so results of a test runner can never be mistaken for real ones.
    pub runner: String,
    /// For agent and partner specs whose behaviour also depends on runner-wide settings
    /// (e.g. a `proagent` seat's model and switches, given as flags rather than in the
    /// spec): a fingerprint of those settings. Specs not listed depend on nothing else.
    pub spec_configs: BTreeMap<String, String>,
}

/// The `runner_config` of an episode: empty when neither seat depends on runner-wide
/// settings, else the sha256 of both seats' fingerprints — so changing, say, the model
/// replays the episodes with a ProAgent seat and keeps the others.
pub fn episode_runner_config(spec_configs: &BTreeMap<String, String>, agent: &str, partner: &str) -> String {
    let a = spec_configs.get(agent).map(String::as_str).unwrap_or("");
    let p = spec_configs.get(partner).map(String::as_str).unwrap_or("");
    if a.is_empty() && p.is_empty() { String::new() } else { sha256_hex(format!("{a}\n{p}").as_bytes()) }
}

/// One episode to play. Its `config_hash` is its identity in result files.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EpisodeSpec {
    /// Which episode runner plays it (`play` for real episodes).
    pub runner: String,
    /// Fingerprint of the runner-wide settings either seat depends on (see [`episode_runner_config`]); empty if none.
    pub runner_config: String,
    /// The layout's report name.
    pub layout: String,
    /// sha256 (hex) of the layout's source text.
    pub layout_sha256: String,
    /// The evaluated agent's spec.
    pub agent: String,
    /// The partner's spec.
    pub partner: String,
    /// The seat the agent takes (0 or 1); the partner takes the other.
    pub seat: u8,
    /// Episode seed: the sweep seed plus the episode index.
    pub seed: u64,
    /// Episode length in ticks.
    pub horizon: u32,
}

#[derive(Serialize)]
struct Canonical<'a> {
    v: u32,
    runner: &'a str,
    runner_config: &'a str,
    layout: &'a str,
    layout_sha256: &'a str,
    agent: &'a str,
    partner: &'a str,
    seat: u8,
    seed: u64,
    horizon: u32,
}

impl EpisodeSpec {
    /// The canonical JSON the hash is taken over: fixed key order, no whitespace.
    pub fn canonical_json(&self) -> String {
        let c = Canonical {
            v: SPEC_VERSION,
            runner: &self.runner,
            runner_config: &self.runner_config,
            layout: &self.layout,
            layout_sha256: &self.layout_sha256,
            agent: &self.agent,
            partner: &self.partner,
            seat: self.seat,
            seed: self.seed,
            horizon: self.horizon,
        };
        // Serialising a struct of strings and integers cannot fail.
        serde_json::to_string(&c).unwrap_or_default()
    }

    /// sha256 (hex) of [`EpisodeSpec::canonical_json`].
    pub fn config_hash(&self) -> String {
        sha256_hex(self.canonical_json().as_bytes())
    }
}

/// An episode of the plan with its key computed once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedEpisode {
    /// The episode.
    pub spec: EpisodeSpec,
    /// Its key: [`EpisodeSpec::config_hash`].
    pub config_hash: String,
}

fn dedup(items: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for s in items {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// The cross product in a stable order: episode index outermost, then layout,
/// agent, partner, seat (each in the order given). Episode-major order means an
/// interrupted sweep has covered every cell evenly, and raising `--episodes`
/// only appends to the plan.
pub fn cross_product(s: &SweepSpec) -> Vec<PlannedEpisode> {
    let agents = dedup(&s.agents);
    let partners = dedup(&s.partners);
    let mut seats: Vec<u8> = Vec::new();
    for &seat in &s.seats {
        if !seats.contains(&seat) {
            seats.push(seat);
        }
    }
    let mut layouts: Vec<&LayoutRef> = Vec::new();
    for l in &s.layouts {
        if !layouts.iter().any(|x| x.name == l.name && x.sha256 == l.sha256) {
            layouts.push(l);
        }
    }
    let mut out = Vec::new();
    for e in 0..s.episodes {
        for l in &layouts {
            for a in &agents {
                for p in &partners {
                    for &seat in &seats {
                        let spec = EpisodeSpec {
                            runner: s.runner.clone(),
                            runner_config: episode_runner_config(&s.spec_configs, a, p),
                            layout: l.name.clone(),
                            layout_sha256: l.sha256.clone(),
                            agent: a.clone(),
                            partner: p.clone(),
                            seat,
                            seed: s.seed.wrapping_add(e as u64),
                            horizon: s.horizon,
                        };
                        let config_hash = spec.config_hash();
                        out.push(PlannedEpisode { spec, config_hash });
                    }
                }
            }
        }
    }
    out
}

/// `--shard i/n`: shard `i` (0-based) of `n`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard's 0-based index, below `count`.
    pub index: u32,
    /// Number of shards, at least 1.
    pub count: u32,
}

/// A `--shard` value that is not `i/n` with `0 <= i < n`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid shard {text:?}: {reason} (expected i/n with 0 <= i < n, e.g. 3/8)")]
pub struct ShardParseError {
    /// The value as given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FromStr for Shard {
    type Err = ShardParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| ShardParseError { text: s.to_string(), reason: reason.to_string() };
        let (i, n) = s.split_once('/').ok_or_else(|| err("no '/'"))?;
        let index: u32 = i.trim().parse().map_err(|_| err("i is not a non-negative integer"))?;
        let count: u32 = n.trim().parse().map_err(|_| err("n is not a non-negative integer"))?;
        if count == 0 {
            return Err(err("n must be at least 1"));
        }
        if index >= count {
            return Err(err("i must be smaller than n"));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether an episode belongs to this shard. The shard depends only on the
    /// episode's own key (first 8 bytes of its hash, modulo n), never on the rest of
    /// the command: extending a sweep (more episodes, another partner) never moves a
    /// finished episode to another shard, where it would be played again.
    pub fn contains(&self, config_hash: &str) -> bool {
        shard_of(config_hash, self.count) == self.index
    }
}

/// The shard (0-based) of a key among `count` shards.
pub fn shard_of(config_hash: &str, count: u32) -> u32 {
    let prefix = config_hash.get(..16).unwrap_or(config_hash);
    // Keys are our own hex hashes; anything else still lands on a fixed shard.
    let v = u64::from_str_radix(prefix, 16).unwrap_or_else(|_| {
        let h = sha256_hex(config_hash.as_bytes());
        u64::from_str_radix(&h[..16], 16).unwrap_or(0)
    });
    (v % count.max(1) as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SweepSpec {
        SweepSpec {
            layouts: vec![
                LayoutRef { name: "cramped_room".into(), sha256: "aa".into() },
                LayoutRef { name: "counter_circuit".into(), sha256: "bb".into() },
            ],
            agents: vec!["scripted".into(), "greedy".into()],
            partners: vec!["greedy".into(), "stay".into(), "random".into()],
            seats: vec![0, 1],
            episodes: 3,
            seed: 10,
            horizon: 400,
            runner: "play".into(),
            spec_configs: BTreeMap::new(),
        }
    }

    #[test]
    fn cross_product_is_complete_ordered_and_unique() {
        let plan = cross_product(&spec());
        assert_eq!(plan.len(), 3 * 2 * 2 * 3 * 2);
        let mut keys: Vec<&str> = plan.iter().map(|p| p.config_hash.as_str()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), plan.len());
        // episode-major: the first 24 episodes all use seed 10, then 11, ...
        assert!(plan[..24].iter().all(|p| p.spec.seed == 10));
        assert_eq!(plan[24].spec.seed, 11);
        assert_eq!(
            (
                plan[0].spec.layout.as_str(),
                plan[0].spec.agent.as_str(),
                plan[0].spec.partner.as_str(),
                plan[0].spec.seat
            ),
            ("cramped_room", "scripted", "greedy", 0)
        );
        assert_eq!(plan[1].spec.seat, 1);
        assert_eq!(plan[2].spec.partner, "stay");
        assert_eq!(cross_product(&spec()), plan, "same spec, same plan");
    }

    #[test]
    fn more_episodes_only_append() {
        let short = cross_product(&spec());
        let mut s = spec();
        s.episodes = 5;
        let long = cross_product(&s);
        assert_eq!(&long[..short.len()], &short[..]);
    }

    #[test]
    fn runner_config_only_touches_episodes_with_a_configured_seat() {
        let plain = cross_product(&spec());
        let mut s = spec();
        s.spec_configs.insert("greedy".into(), "f1".into());
        let with = cross_product(&s);
        for (a, b) in plain.iter().zip(&with) {
            let touched = a.spec.agent == "greedy" || a.spec.partner == "greedy";
            assert_eq!(a.config_hash != b.config_hash, touched, "{:?}", a.spec);
            assert_eq!(b.spec.runner_config.is_empty(), !touched);
        }
        s.spec_configs.insert("greedy".into(), "f2".into());
        let other = cross_product(&s);
        assert!(with.iter().zip(&other).any(|(a, b)| a.config_hash != b.config_hash));
    }

    #[test]
    fn duplicates_in_lists_are_dropped() {
        let mut s = spec();
        s.agents.push("scripted".into());
        s.layouts.push(s.layouts[0].clone());
        assert_eq!(cross_product(&s).len(), cross_product(&spec()).len());
    }

    #[test]
    fn config_hash_is_sha256_of_the_canonical_spec() {
        let e = EpisodeSpec {
            runner: "play".into(),
            runner_config: String::new(),
            layout: "cramped_room".into(),
            layout_sha256: "ab".into(),
            agent: "scripted".into(),
            partner: "greedy".into(),
            seat: 1,
            seed: 7,
            horizon: 400,
        };
        let text = e.canonical_json();
        assert_eq!(
            text,
            r#"{"v":2,"runner":"play","runner_config":"","layout":"cramped_room","layout_sha256":"ab","agent":"scripted","partner":"greedy","seat":1,"seed":7,"horizon":400}"#
        );
        assert_eq!(e.config_hash(), sha256_hex(text.as_bytes()));
        let mut other = e.clone();
        other.layout_sha256 = "ac".into();
        assert_ne!(other.config_hash(), e.config_hash());
    }

    #[test]
    fn shards_partition_the_plan() {
        let plan = cross_product(&spec());
        for n in [1u32, 2, 3, 7] {
            let mut seen = 0;
            for i in 0..n {
                let sh = Shard { index: i, count: n };
                seen += plan.iter().filter(|p| sh.contains(&p.config_hash)).count();
            }
            assert_eq!(seen, plan.len(), "n = {n}");
        }
        // A key's shard does not depend on the rest of the sweep.
        let mut bigger = spec();
        bigger.partners.push("courier".into());
        let big = cross_product(&bigger);
        let sh = Shard { index: 1, count: 3 };
        for p in &plan {
            let q = big.iter().find(|q| q.config_hash == p.config_hash).unwrap();
            assert_eq!(sh.contains(&p.config_hash), sh.contains(&q.config_hash));
        }
    }

    #[test]
    fn shard_parsing() {
        assert_eq!("3/8".parse::<Shard>().unwrap(), Shard { index: 3, count: 8 });
        assert_eq!("0/1".parse::<Shard>().unwrap(), Shard { index: 0, count: 1 });
        for bad in ["8/8", "1/0", "x/2", "3", "-1/2", "1/2/3"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
        }
    }
}
