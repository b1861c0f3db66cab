//! The two presets of the agent loop, and what each one decides.
//!
//! - [`Preset::Default`] is this runtime's agent (validation when planning, two-round
//!   verificator, memory and belief blocks in every prompt, waits that end when the
//!   kitchen changes, a 12-step stall rule).
//! - [`Preset::Paper`] reproduces the published ProAgent agent (Zhang et al.) point by
//!   point; `docs/agent.md` has the table, behaviour by behaviour.
//!
//! A preset selects the agent's step (`ProAgent::step_default` or `step_paper`), the
//! parameters that step and the controller read ([`Preset::rules`]) and the template
//! folder its knowledge library comes from (per game:
//! [`crate::prompts::Family::template_dir`]); the switches both
//! presets share (K, re-plan cap, prompt level, ...) start from the preset's values and
//! can be changed one by one (`agent::config`). Pure data: no I/O.

use serde::{Deserialize, Serialize};

/// Which agent loop a ProAgent seat runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// This runtime's loop (see the module doc).
    #[default]
    Default,
    /// The published ProAgent loop.
    Paper,
}

impl std::str::FromStr for Preset {
    type Err = crate::names::UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "default" | "ours" => Ok(Preset::Default),
            "paper" | "original" => Ok(Preset::Paper),
            _ => Err(crate::names::UnknownName::new("preset", s, "default or paper")),
        }
    }
}

/// What happens when the re-plan cap is reached.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReplanCap {
    /// Each re-plan is validated; after `max_replans` rejected ones the agent waits one step (default).
    ValidateEach,
    /// The `max_replans`-th re-plan's answer is replaced by `wait(1)` unchecked, as in the
    /// original, whose loop forces the wait on the count alone (paper).
    ForceWaitOnCount,
}

/// The parameters of a preset's loop that its step and the controller read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LoopRules {
    /// A skill fails after this many steps without progress (`None`: never).
    pub stall_limit: Option<u32>,
    /// Each step of a `wait(n)` takes a seeded random valid move (stay or a neighbouring
    /// floor cell) instead of staying put.
    pub random_wait_moves: bool,
    /// On these layouts a wait read from the model lasts at least this many steps.
    pub min_wait: &'static [(&'static str, u8)],
    /// Stop sequences of planner requests.
    pub planner_stop: &'static [&'static str],
    /// The re-plan cap.
    pub replan_cap: ReplanCap,
}

impl Preset {
    /// Both presets, default first.
    pub const ALL: [Preset; 2] = [Preset::Default, Preset::Paper];

    /// The name used on the command line and in transcript headers.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Default => "default",
            Preset::Paper => "paper",
        }
    }

    /// The loop parameters of this preset.
    pub fn rules(self) -> LoopRules {
        match self {
            Preset::Default => LoopRules {
                stall_limit: Some(proagent_overcooked::controller::STALL_LIMIT),
                random_wait_moves: false,
                min_wait: &[],
                planner_stop: &[],
                replan_cap: ReplanCap::ValidateEach,
            },
            Preset::Paper => LoopRules {
                stall_limit: None,
                random_wait_moves: true,
                min_wait: &[("forced_coordination", 3)],
                planner_stop: &["Scene"],
                replan_cap: ReplanCap::ForceWaitOnCount,
            },
        }
    }
}

impl LoopRules {
    /// The shortest wait on `layout` (1 where no minimum applies).
    pub fn min_wait_on(&self, layout: &str) -> u8 {
        self.min_wait.iter().find(|(l, _)| *l == layout).map_or(1, |&(_, n)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_rules_differ_where_documented() {
        for p in Preset::ALL {
            assert_eq!(p.name().parse::<Preset>(), Ok(p));
            assert_eq!(serde_json::to_value(p).unwrap(), serde_json::Value::String(p.name().into()));
        }
        assert!("gpt".parse::<Preset>().is_err());
        let (d, p) = (Preset::Default.rules(), Preset::Paper.rules());
        assert!(!d.random_wait_moves && p.random_wait_moves);
        assert_eq!((d.replan_cap, p.replan_cap), (ReplanCap::ValidateEach, ReplanCap::ForceWaitOnCount));
        assert_eq!((d.stall_limit, p.stall_limit), (Some(12), None));
        assert_eq!((d.min_wait_on("forced_coordination"), p.min_wait_on("forced_coordination")), (1, 3));
        assert_eq!(p.min_wait_on("cramped_room"), 1);
        assert_eq!(p.planner_stop, ["Scene"]);
    }
}
