//! The OvercookedV2 `scripted` seat: the rule-based cook of [`proagent_overcooked_v2::rules`]
//! on what it sees, grounded by [`proagent_overcooked_v2::nav`]. (`random` and `stay` are the
//! generic baselines of [`crate::basic`].)

use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat, SkillEvent, SkillOutcome};
use proagent_overcooked::env::Action;
use proagent_overcooked_v2::game::OvercookedV2;
use proagent_overcooked_v2::knowledge::{Knowledge, Recall};
use proagent_overcooked_v2::nav::{Nav, Status};
use proagent_overcooked_v2::rules::choose;

/// The rule-based V2 cook. It sees only its view radius and remembers the last recipe it saw.
pub struct ScriptedV2 {
    nav: Nav,
    recall: Recall,
    me: usize,
    events: Vec<SkillEvent>,
    skills: u32,
    failed: u32,
}

impl Default for ScriptedV2 {
    fn default() -> Self {
        ScriptedV2::new()
    }
}

impl ScriptedV2 {
    /// A fresh seat.
    pub fn new() -> ScriptedV2 {
        ScriptedV2 { nav: Nav::new(0), recall: Recall::default(), me: 0, events: Vec::new(), skills: 0, failed: 0 }
    }
}

#[async_trait]
impl Seat<OvercookedV2> for ScriptedV2 {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn reset(&mut self, _game: &OvercookedV2, seat: usize, seed: u64) {
        *self = ScriptedV2 { nav: Nav::new(seed), me: seat, ..ScriptedV2::new() };
    }

    async fn act(&mut self, obs: &Observation<'_, OvercookedV2>) -> Result<Action, AgentError> {
        let (layout, settings, state) = (&*obs.game.layout, &obs.game.settings, obs.view);
        let me = self.me;
        self.recall.update(layout, settings, state, me, obs.last_events);
        let k = Knowledge::observe(layout, settings, state, me, &mut self.recall);
        let mut last = obs.last_events.get(me).and_then(|e| e.as_ref());
        for _ in 0..2 {
            if self.nav.skill().is_none() {
                let skill = choose(&k);
                self.nav.set(skill);
                self.skills += 1;
                self.events.push(SkillEvent {
                    t: state.step,
                    player: me,
                    skill: skill.text(&k.names),
                    outcome: SkillOutcome::Started,
                });
            }
            let running = self.nav.skill().map(|s| s.text(&k.names)).unwrap_or_default();
            match self.nav.step(layout, settings, &k, last) {
                Status::Running(a) => return Ok(a),
                Status::Succeeded => self.events.push(SkillEvent {
                    t: state.step,
                    player: me,
                    skill: running,
                    outcome: SkillOutcome::Succeeded,
                }),
                Status::Failed(reason) => {
                    self.failed += 1;
                    self.events.push(SkillEvent {
                        t: state.step,
                        player: me,
                        skill: running,
                        outcome: SkillOutcome::Failed { reason },
                    })
                }
            }
            // The event that ended the skill must not end the next one too.
            last = None;
        }
        Ok(Action::Stay)
    }

    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        std::mem::take(&mut self.events)
    }

    fn metrics(&self) -> serde_json::Value {
        serde_json::json!({ "skills_started": self.skills, "skills_failed": self.failed })
    }
}
