//! What the loop needs of any game's skill vocabulary ([`AgentSkill`]): a leaf the
//! planner, belief correction and every grounding share.

use std::fmt::Debug;

/// What the loop needs of a game's skills beyond naming them: every vocabulary has a
/// `wait(n)`, the fallback of a planning round that found no valid plan.
pub trait AgentSkill: Copy + Eq + Debug + Send + Sync + 'static {
    /// `wait(n)`: stay for `n` steps.
    fn wait(n: u8) -> Self;
    /// `Some(n)` for `wait(n)`, `None` for every other skill.
    fn wait_steps(self) -> Option<u8>;
    /// Whether this is a wait.
    fn is_wait(self) -> bool {
        self.wait_steps().is_some()
    }
}

/// Implements [`AgentSkill`] for a skill enum whose waits are its `Wait(u8)` variant.
macro_rules! wait_variant_skill {
    ($skill:ty) => {
        impl $crate::skill::AgentSkill for $skill {
            fn wait(n: u8) -> Self {
                Self::Wait(n)
            }

            fn wait_steps(self) -> Option<u8> {
                match self {
                    Self::Wait(n) => Some(n),
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use wait_variant_skill;
