//! The `scripted` stand-in for the LLM-Coordination agent's CollabEscape prompts: a
//! rule-based reader of the prompt text, **not a language model**. From the game
//! description it reads the map, the generators and the exit; from the state, where
//! everybody is, whom the killer will follow and how far each generator is. A room is
//! dangerous this turn when the killer will end its move there (the room of the player it
//! follows, or, when it wanders, any room next to it). Then:
//!
//! 1. followed by the killer: leave for a safe room, away from the partner (drawing the
//!    killer off);
//! 2. with the gate open: walk towards the exit through safe rooms;
//! 3. in a safe room with an unrepaired generator: fix it;
//! 4. walk towards the nearest unrepaired generator the partner is not at, through safe
//!    rooms;
//! 5. else wait if it is safe, else any safe move.
//!
//! Verification rejects ending the turn in a dangerous room; the Theory-of-Mind answer
//! says whether the partner is fixing, fleeing or heading for the gate.

use crate::llmco::maze_text::{MapText, number_after};
use crate::llmco::standin::{Prompt, Scripted, StandInModel};

/// The CollabEscape reader (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct EscapeStandIn;

impl EscapeStandIn {
    /// The stand-in as a language model named `scripted`.
    pub fn model() -> StandInModel<EscapeStandIn> {
        StandInModel::new(EscapeStandIn)
    }
}

/// Whom the killer follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Killer {
    Me,
    Partner,
    Nobody,
}

#[derive(Clone, Debug)]
struct Scene {
    map: MapText,
    exit: u8,
    me: u8,
    mate: u8,
    killer: u8,
    follows: Killer,
    /// Unrepaired generators.
    broken: Vec<u8>,
    gate_open: bool,
    mate_fixing: bool,
}

fn read_scene(rules: &str, text: &str) -> Scene {
    let map = MapText::read(rules);
    let exit = number_after(rules, "the exit gate is in room ").unwrap_or(0) as u8;
    let me = number_after(text, ") am in room ").unwrap_or(0) as u8;
    let mate = text.find(") am in room ").and_then(|at| number_after(&text[at..], " is in room ")).unwrap_or(0) as u8;
    let killer = number_after(text, "The killer is in room ").unwrap_or(0) as u8;
    let follows = if text.contains("has seen me") {
        Killer::Me
    } else if text.contains("The killer has seen ") {
        Killer::Partner
    } else {
        Killer::Nobody
    };
    let broken = text
        .lines()
        .filter(|l| l.starts_with("The generator in room ") && l.contains(" needs "))
        .filter_map(|l| number_after(l, "The generator in room ").map(|g| g as u8))
        .collect();
    Scene {
        map,
        exit,
        me,
        mate,
        killer,
        follows,
        broken,
        gate_open: text.contains("is open: one of us must reach it"),
        mate_fixing: text.contains("spent the last turn repairing the generator"),
    }
}

impl Scene {
    /// Whether ending the turn in `room` may end the game.
    fn danger(&self, room: u8) -> bool {
        match self.follows {
            Killer::Me => room == self.me,
            Killer::Partner => room == self.mate,
            Killer::Nobody => self.map.exits(self.killer).contains(&room),
        }
    }
    /// My first safe step towards `goal`.
    fn step_toward(&self, goal: u8) -> Option<u8> {
        let back = |from: u8| {
            let d = self.map.distances(from, |_, _| true);
            d.get(goal as usize).copied().unwrap_or(u32::MAX)
        };
        self.map
            .exits(self.me)
            .iter()
            .copied()
            .filter(|&e| !self.danger(e) && e != self.killer)
            .filter(|&e| back(e) != u32::MAX)
            .min_by_key(|&e| back(e))
    }
    fn dist(&self, from: u8, to: u8) -> u32 {
        self.map.distances(from, |_, _| true).get(to as usize).copied().unwrap_or(u32::MAX)
    }
}

fn pick(options: &[String], wanted: &str) -> Option<usize> {
    options.iter().position(|o| o == wanted)
}

fn choose(s: &Scene, options: &[String]) -> (String, usize) {
    let wait = pick(options, "wait");
    let to = |r: u8| pick(options, &format!("move to room {r}"));
    let safe_moves: Vec<u8> =
        s.map.exits(s.me).iter().copied().filter(|&e| !s.danger(e) && e != s.killer && to(e).is_some()).collect();
    // 1. Followed: draw the killer away.
    if s.follows == Killer::Me {
        if let Some(&r) = safe_moves.iter().max_by_key(|&&r| (r != s.mate, s.dist(r, s.mate).min(99), u8::MAX - r))
            && let Some(o) = to(r)
        {
            return (format!("the killer will come into my room, so I leave for room {r} and draw it away"), o);
        }
    }
    // 2. The gate is open.
    if s.gate_open {
        if s.map.exits(s.me).contains(&s.exit)
            && !s.danger(s.exit)
            && let Some(o) = to(s.exit)
        {
            return ("the gate is open and next door: I escape".into(), o);
        }
        if let Some(o) = s.step_toward(s.exit).and_then(to) {
            return ("the gate is open: I head for it through safe rooms".into(), o);
        }
    }
    // 3. Fix here.
    if s.broken.contains(&s.me)
        && !s.danger(s.me)
        && let Some(o) = pick(options, &format!("fix generator in room {}", s.me))
    {
        return ("the killer is not coming here this turn, so I keep fixing this generator".into(), o);
    }
    // 4. Towards a generator.
    let goal = s
        .broken
        .iter()
        .copied()
        .filter(|&g| !(g == s.mate && s.mate_fixing) || s.broken.len() == 1)
        .min_by_key(|&g| s.dist(s.me, g));
    if let Some(g) = goal
        && let Some(o) = s.step_toward(g).and_then(to)
    {
        return (format!("I head for the generator in room {g} through rooms the killer will not enter"), o);
    }
    // 5. Stay safe.
    if !s.danger(s.me)
        && let Some(o) = wait
    {
        return ("no safe step brings us closer, so I wait".into(), o);
    }
    if let Some(o) = safe_moves.first().and_then(|&r| to(r)) {
        return ("my room is not safe: I move away".into(), o);
    }
    ("nothing is safe; I wait".into(), wait.unwrap_or(0))
}

impl Scripted for EscapeStandIn {
    const GAME: &'static str = "collab_escape";
    const OPENING: &'static str = "The game Collab Escape";
    fn choose(&self, p: &Prompt<'_>) -> (String, usize) {
        choose(&read_scene(p.rules, p.text), &p.options)
    }

    fn verify(&self, p: &Prompt<'_>, proposal: &str) -> (String, bool) {
        let s = read_scene(p.rules, p.text);
        let end = number_after(proposal, "move to room ").map_or(s.me, |r| r as u8);
        if s.danger(end) {
            (format!("The killer will end its move in room {end}: the action loses the game."), false)
        } else {
            (format!("Room {end} is safe from the killer this turn."), true)
        }
    }

    fn interpret(&self, p: &Prompt<'_>) -> String {
        let s = read_scene(p.rules, p.text);
        let (intention, needs) = if s.follows == Killer::Partner {
            (
                "my partner is being chased and must keep moving",
                "that I repair the generators while the killer follows them",
            )
        } else if s.mate_fixing {
            ("my partner is repairing a generator", "that I keep the killer away and work on the other generator")
        } else if s.gate_open {
            ("my partner is heading for the exit gate", "that one of us reaches the gate safely")
        } else {
            ("my partner is on the way to a generator", "that I repair the other generator")
        };
        format!("Partner Intention: {intention}.\nPartner Needs: {needs}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &str = "The map: room 1 leads to 2, 10; room 2 leads to 1, 3; room 3 leads to 2, 4, 8; room 4 leads to 3, 5; room 5 leads to 4, 6; room 6 leads to 5, 7; room 7 leads to 3, 6; room 8 leads to 3, 7, 9; room 9 leads to 8, 10; room 10 leads to 1, 9.\n\nThere are generators in room 1, room 6; the exit gate is in room 7.";

    fn opts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fixes_when_safe_and_flees_when_followed() {
        let text = "Turn 1 of 50.\nI (Alice) am in room 1. Bob is in room 2.\nThe killer is in room 6. The killer does not know where we are; it will move to a random neighbouring room.\nThe generator in room 1 needs 2 more fixes.\nThe generator in room 6 needs 2 more fixes.\nThe exit gate in room 7 is closed.";
        let s = read_scene(RULES, text);
        assert_eq!((s.me, s.mate, s.killer, s.exit, s.follows), (1, 2, 6, 7, Killer::Nobody));
        assert_eq!(s.broken, vec![1, 6]);
        let o = opts(&["move to room 2", "move to room 10", "fix generator in room 1", "wait"]);
        assert_eq!(o[choose(&s, &o).1], "fix generator in room 1");
        let chased = text.replace("The killer is in room 6. The killer does not know where we are; it will move to a random neighbouring room.", "The killer is in room 10. The killer has seen me and will move into the room I am in now.");
        let s = read_scene(RULES, &chased);
        assert_eq!(s.follows, Killer::Me);
        assert_eq!(o[choose(&s, &o).1], "move to room 2", "away from the killer's room 10");
        let p = Prompt { rules: RULES, text: &chased, options: o.clone() };
        assert!(!EscapeStandIn.verify(&p, "fix generator in room 1").1);
        assert!(EscapeStandIn.verify(&p, "move to room 2").1);
    }
}
