//! The `scripted` stand-in for the LLM-Coordination agent's CollabCapture prompts: a
//! rule-based reader of the prompt text, **not a language model**. From the game
//! description it reads the map and which button works which door; from the state, where
//! everybody is and which doors are open. Then:
//!
//! 1. move into the thief's room when a passage through an open door leads there;
//! 2. in a button room, press when that opens a door on the only way to the thief, or
//!    closes a door the thief could flee through while the partner closes in;
//! 3. with a way to the thief, the nearer player follows a shortest way; the other heads
//!    for the thief's neighbouring room farthest from the nearer player (a pincer);
//! 4. without a way, walk to the nearest button of a closed door (and press it there);
//! 5. else stay.
//!
//! Verification accepts every listed action; the Theory-of-Mind answer says whether the
//! partner is closing in or working a door.

use crate::llmco::maze_text::{MapText, number_after};
use crate::llmco::standin::{Prompt, Scripted, StandInModel};

/// The CollabCapture reader (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct CaptureStandIn;

impl CaptureStandIn {
    /// The stand-in as a language model named `scripted`.
    pub fn model() -> StandInModel<CaptureStandIn> {
        StandInModel::new(CaptureStandIn)
    }
}

/// One door read from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Door {
    rooms: [u8; 2],
    button: u8,
    open: bool,
}

/// Everything the stand-in reads.
#[derive(Clone, Debug, Default)]
struct Scene {
    map: MapText,
    doors: Vec<Door>,
    me: u8,
    mate: u8,
    thief: u8,
    /// Whether I play Alice (ties between the players go her way).
    alice: bool,
}

fn read_scene(rules: &str, text: &str) -> Scene {
    let map = MapText::read(rules);
    let mut doors = Vec::new();
    // "the passage between room 1 and room 2 has a door worked by the button in room 9"
    for part in rules.split(';').chain(rules.split(". ")) {
        if let Some(at) = part.find("the passage between room ") {
            let p = &part[at..];
            let (Some(a), Some(b), Some(btn)) =
                (number_after(p, "between room "), number_after(p, " and room "), number_after(p, "button in room "))
            else {
                continue;
            };
            let d = Door { rooms: [a as u8, b as u8], button: btn as u8, open: true };
            if !doors.iter().any(|x: &Door| x.rooms == d.rooms) {
                doors.push(d);
            }
        }
    }
    for d in &mut doors {
        let line = format!("The door between room {} and room {} is ", d.rooms[0], d.rooms[1]);
        if let Some(at) = text.find(&line) {
            d.open = text[at + line.len()..].starts_with("open");
        }
    }
    let me = number_after(text, "am in room ").unwrap_or(0) as u8;
    let thief = number_after(text, "The thief is in room ").unwrap_or(0) as u8;
    // The partner's sentence follows mine: "I (Alice) am in room 1. Bob is in room 6."
    let mate = text.find(") am in room ").and_then(|at| number_after(&text[at..], " is in room ")).unwrap_or(0) as u8;
    Scene { map, doors, me, mate, thief, alice: text.contains("I (Alice)") }
}

impl Scene {
    fn blocked(&self, a: u8, b: u8, doors: &[Door]) -> bool {
        doors.iter().any(|d| !d.open && (d.rooms == [a, b] || d.rooms == [b, a]))
    }
    fn dist(&self, from: u8, doors: &[Door]) -> Vec<u32> {
        self.map.distances(from, |a, b| !self.blocked(a, b, doors))
    }
    fn d(v: &[u32], r: u8) -> u32 {
        v.get(r as usize).copied().unwrap_or(u32::MAX)
    }
    /// The first room of a shortest way from `from` to `to` (through open doors).
    fn step_toward(&self, from: u8, to: u8) -> Option<u8> {
        let back = self.dist(to, &self.doors);
        self.map
            .exits(from)
            .iter()
            .copied()
            .filter(|&e| !self.blocked(from, e, &self.doors))
            .min_by_key(|&e| Self::d(&back, e))
            .filter(|&e| Self::d(&back, e) < Self::d(&back, from))
    }
    /// Rooms the thief can reach without passing a player.
    fn thief_space(&self, doors: &[Door]) -> usize {
        let d = self.map.distances(self.thief, |a, b| {
            !self.blocked(a, b, doors) && b != self.me && b != self.mate && a != self.me && a != self.mate
        });
        d.iter().filter(|&&x| x != u32::MAX).count()
    }
}

fn pick(options: &[String], wanted: &str) -> Option<usize> {
    options.iter().position(|o| o == wanted)
}

fn choose(s: &Scene, options: &[String]) -> (String, usize) {
    let stay = pick(options, "stay in current room").unwrap_or(0);
    let to = |r: u8| pick(options, &format!("move to room {r}"));
    // 1. Into the thief's room.
    if let Some(o) = to(s.thief) {
        return ("the thief is in a room I can enter right now".into(), o);
    }
    let mine = s.dist(s.me, &s.doors);
    let theirs = s.dist(s.mate, &s.doors);
    let (dm, dp) = (Scene::d(&mine, s.thief), Scene::d(&theirs, s.thief));
    // 2. A button here.
    let press = pick(options, &format!("press button in room {}", s.me));
    if let (Some(o), Some(i)) = (press, s.doors.iter().position(|d| d.button == s.me)) {
        let mut toggled = s.doors.clone();
        toggled[i].open = !toggled[i].open;
        let dm2 = Scene::d(&s.dist(s.me, &toggled), s.thief).min(Scene::d(&s.dist(s.mate, &toggled), s.thief));
        let opens_the_way = !s.doors[i].open && dm.min(dp) == u32::MAX && dm2 != u32::MAX;
        let traps = s.doors[i].open && dp != u32::MAX && dp <= 3 && s.thief_space(&toggled) < s.thief_space(&s.doors);
        if opens_the_way || traps {
            let why = if opens_the_way {
                "pressing opens the only way to the thief"
            } else {
                "closing this door traps the thief"
            };
            return (why.into(), o);
        }
    }
    // 3. Chase, or cut the thief off.
    if dm != u32::MAX {
        let nearer = dm < dp || (dm == dp && s.alice);
        let target = if nearer || dp == u32::MAX {
            s.thief
        } else {
            // The thief's neighbour farthest from the partner, that I can reach.
            s.map
                .exits(s.thief)
                .iter()
                .copied()
                .filter(|&r| Scene::d(&mine, r) != u32::MAX && r != s.mate)
                .max_by_key(|&r| (Scene::d(&theirs, r), u32::MAX - Scene::d(&mine, r)))
                .unwrap_or(s.thief)
        };
        let target = if target == s.me { s.thief } else { target };
        if let Some(o) = s.step_toward(s.me, target).and_then(to) {
            let why = if target == s.thief {
                "I follow the shortest way to the thief".to_string()
            } else {
                format!("my partner chases the thief, so I cut off its escape through room {target}")
            };
            return (why, o);
        }
    }
    // 4. Open the way: the nearest button of a closed door.
    let button = s
        .doors
        .iter()
        .filter(|d| !d.open)
        .map(|d| d.button)
        .filter(|&b| Scene::d(&mine, b) != u32::MAX)
        .min_by_key(|&b| Scene::d(&mine, b));
    if let Some(b) = button {
        if b == s.me
            && let Some(o) = press
        {
            return ("this button opens a closed door on our way".into(), o);
        }
        if let Some(o) = s.step_toward(s.me, b).and_then(to) {
            return (format!("I go to the button in room {b} to open a closed door"), o);
        }
    }
    ("nothing better to do this turn".into(), stay)
}

impl Scripted for CaptureStandIn {
    const GAME: &'static str = "collab_capture";
    const OPENING: &'static str = "The game Collab Capture";
    fn choose(&self, p: &Prompt<'_>) -> (String, usize) {
        choose(&read_scene(p.rules, p.text), &p.options)
    }

    fn verify(&self, _p: &Prompt<'_>, proposal: &str) -> (String, bool) {
        (format!("\"{proposal}\" follows the rules and cannot lose the game."), true)
    }

    fn interpret(&self, p: &Prompt<'_>) -> String {
        let s = read_scene(p.rules, p.text);
        let theirs = s.dist(s.mate, &s.doors);
        let intention = if Scene::d(&theirs, s.thief) == u32::MAX {
            "my partner has no open way to the thief and is heading for a button"
        } else {
            "my partner is closing in on the thief"
        };
        // The partner's likely next room: its first step towards the thief (it stays when
        // no open way leads there).
        let next = s.step_toward(s.mate, s.thief).unwrap_or(s.mate);
        format!("Partner Next Room: {next}\nPartner Plan: {intention}, so I should block the thief's other way out.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &str = "The map: room 1 leads to 2, 6; room 2 leads to 1, 3; room 3 leads to 2, 4; room 4 leads to 3, 5; room 5 leads to 4, 6, 7; room 6 leads to 5, 9, 1; room 7 leads to 5, 8; room 8 leads to 7; room 9 leads to 6.\nThe doors: the passage between room 1 and room 2 has a door worked by the button in room 9; the passage between room 3 and room 4 has a door worked by the button in room 8. A closed door";

    #[test]
    fn the_scene_is_read_and_the_thief_is_chased() {
        let text = "Turn 1 of 30.\nI (Alice) am in room 1. Bob is in room 6. The thief is in room 2.\nThe door between room 1 and room 2 is open.\nThe door between room 3 and room 4 is closed.";
        let s = read_scene(RULES, text);
        assert_eq!((s.me, s.mate, s.thief), (1, 6, 2));
        assert_eq!(
            s.doors,
            vec![Door { rooms: [1, 2], button: 9, open: true }, Door { rooms: [3, 4], button: 8, open: false }]
        );
        let options: Vec<String> =
            ["stay in current room", "move to room 2", "move to room 6"].iter().map(|s| s.to_string()).collect();
        assert_eq!(choose(&s, &options).1, 1);
        // A closed door between us and the thief: go for its button.
        let shut = text.replace("room 1 and room 2 is open", "room 1 and room 2 is closed");
        let s = read_scene(RULES, &shut);
        let options: Vec<String> = ["stay in current room", "move to room 6"].iter().map(|s| s.to_string()).collect();
        assert_eq!(choose(&s, &options).1, 1, "towards the button in room 9");
    }
}
