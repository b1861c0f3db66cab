//! CollabEscape seats: [`Random`], the [`Runner`] (keeps away from the killer), the
//! generator [`Fixer`] (repairs the nearest unrepaired generator while staying out of the
//! killer's way, then heads for the exit) and [`GreedyBaseline`], our reading of the
//! paper's greedy baseline, whose code is not published (docs/collab.md): the fixer's
//! route without any regard for the killer.

use super::common::rule_seat;
use proagent_collab::escape::{Escape, EscapeAction, EscapeState, KillerPlan};
use proagent_collab::maze::Room;

/// Uniform over the legal actions.
pub type Random = super::common::Random<Escape>;

/// The rooms the killer may end this turn in, as the players are told: the chased
/// player's room, or any exit of its room when it wanders.
pub fn danger(game: &Escape, s: &EscapeState) -> Vec<Room> {
    match game.killer_plan(s).0 {
        KillerPlan::Chase(p) => vec![s.players[p]],
        KillerPlan::Wander => game.maze().exits(s.adversary).to_vec(),
    }
}

/// The nearest unrepaired generator's room reachable from `from` and the first move
/// towards it (`None`: none left or none reachable).
fn nearest_generator(game: &Escape, s: &EscapeState, from: Room) -> Option<(Room, Room)> {
    let (dist, first) = game.maze().shortest_paths(from, |_, _| true);
    game.maze()
        .generators
        .iter()
        .enumerate()
        .filter(|&(i, &g)| !game.is_fixed(s, i) && dist[g as usize] != u32::MAX)
        .min_by_key(|&(_, &g)| dist[g as usize])
        .map(|(_, &g)| (g, first[g as usize]))
}

/// The first move towards the exit gate (`None`: there already, or unreachable).
fn towards_exit(game: &Escape, from: Room) -> Option<Room> {
    let exit = game.maze().exit;
    let (dist, first) = game.maze().shortest_paths(from, |_, _| true);
    (from != exit && dist[exit as usize] != u32::MAX).then(|| first[exit as usize])
}

/// Keeps away from the killer: among staying and the exits of its room, a room the
/// killer cannot end this turn in, preferring rooms it cannot see from there, then rooms
/// farthest (in moves) from where it may end, then farthest from where it is now (so a
/// chased player leads it away instead of slipping past it back and forth); the first
/// such action on a tie. With the gate open it steps towards the exit whenever that step
/// is safe.
pub struct Runner;

impl Runner {
    /// The decision for `player` in `s`.
    pub fn decide(game: &Escape, s: &EscapeState, player: usize) -> EscapeAction {
        let me = s.players[player];
        let danger = danger(game, s);
        if game.gate_open(s)
            && let Some(step) = towards_exit(game, me)
            && !danger.contains(&step)
        {
            return EscapeAction::Move(step);
        }
        Runner::flee(game, s, player, &danger, false)
    }

    /// The safest action; with `lure`, among equally safe rooms the one farthest from the
    /// unrepaired generators, to draw the killer away from them.
    fn flee(game: &Escape, s: &EscapeState, player: usize, danger: &[Room], lure: bool) -> EscapeAction {
        let me = s.players[player];
        let maze = game.maze();
        let from_danger: Vec<Vec<u32>> = danger.iter().map(|&d| maze.distances(d, |_, _| true)).collect();
        let from_killer = maze.distances(s.adversary, |_, _| true);
        let unfixed: Vec<Vec<u32>> = if lure {
            let gens = maze.generators.iter().enumerate().filter(|&(i, _)| !game.is_fixed(s, i));
            gens.map(|(_, &g)| maze.distances(g, |_, _| true)).collect()
        } else {
            Vec::new()
        };
        let rate = |r: Room| -> (bool, bool, u32, u32, u32) {
            let safe = !danger.contains(&r);
            let unseen = !danger.iter().any(|&d| maze.exits(d).contains(&r));
            let far = from_danger.iter().map(|d| d[r as usize]).min().unwrap_or(u32::MAX);
            // Distances from each generator to r (exits are one-way, this is close enough).
            let away = unfixed.iter().map(|d| d[r as usize]).min().unwrap_or(0);
            (safe, unseen, far, away, from_killer[r as usize])
        };
        let mut best = (EscapeAction::Wait, rate(me));
        for &r in maze.exits(me) {
            let score = rate(r);
            if score > best.1 {
                best = (EscapeAction::Move(r), score);
            }
        }
        best.0
    }
}

rule_seat!(Escape, Runner, "runner");

/// Repairs generators and escapes, staying out of the killer's way: with the gate open it
/// heads for the exit; when the killer is after it, it runs and leads the killer away
/// from the unrepaired generators (a chased player can never fix: the killer moves into
/// its room); in a room with an unrepaired generator the killer will not enter this turn
/// it fixes; otherwise it steps towards the nearest unrepaired generator when that step is
/// safe, and runs like [`Runner`] when it is not.
pub struct Fixer;

impl Fixer {
    /// The decision for `player` in `s`.
    pub fn decide(game: &Escape, s: &EscapeState, player: usize) -> EscapeAction {
        let me = s.players[player];
        let danger = danger(game, s);
        let safe = |r: Room| !danger.contains(&r);
        if game.gate_open(s) {
            return match towards_exit(game, me) {
                Some(step) if safe(step) => EscapeAction::Move(step),
                _ => Runner::flee(game, s, player, &danger, false),
            };
        }
        // Chased, it cannot fix anywhere: it leads the killer away from the generators.
        if game.intent(s) == Some(player) {
            return Runner::flee(game, s, player, &danger, true);
        }
        if safe(me) && game.generator_in(me).is_some_and(|i| !game.is_fixed(s, i)) {
            return EscapeAction::Fix;
        }
        match nearest_generator(game, s, me) {
            Some((_, step)) if step != 0 && safe(step) => EscapeAction::Move(step),
            _ => Runner::flee(game, s, player, &danger, false),
        }
    }
}

rule_seat!(Escape, Fixer, "fixer");

/// Our reading of the paper's greedy baseline for CollabEscape (its code is not
/// published): go for the nearest unrepaired generator by a shortest path, fix it until
/// it is repaired, then take a shortest path to the exit, never minding the killer.
pub struct GreedyBaseline;

impl GreedyBaseline {
    /// The decision for `player` in `s`.
    pub fn decide(game: &Escape, s: &EscapeState, player: usize) -> EscapeAction {
        let me = s.players[player];
        if game.gate_open(s) {
            return towards_exit(game, me).map_or(EscapeAction::Wait, EscapeAction::Move);
        }
        if game.generator_in(me).is_some_and(|i| !game.is_fixed(s, i)) {
            return EscapeAction::Fix;
        }
        match nearest_generator(game, s, me) {
            Some((_, step)) if step != 0 => EscapeAction::Move(step),
            _ => EscapeAction::Wait,
        }
    }
}

rule_seat!(Escape, GreedyBaseline, "greedy_baseline");

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_core::Game;
    use proagent_core::NoChance;

    #[test]
    fn every_bot_plays_legal_actions() {
        for spec in ["escape:1", "escape:2"] {
            let g = Escape::builtin(spec).unwrap();
            let start = g.initial_state(&mut NoChance);
            for a in 1..=10 {
                for b in 1..=10 {
                    for k in [3, 6, 9] {
                        for fixed in 0..4 {
                            if a == k || b == k {
                                continue;
                            }
                            let s = EscapeState { players: [a, b], adversary: k, fixed, ..start.clone() };
                            for p in 0..2 {
                                let legal = g.legal_actions(&s, p);
                                for act in [
                                    Runner::decide(&g, &s, p),
                                    Fixer::decide(&g, &s, p),
                                    GreedyBaseline::decide(&g, &s, p),
                                ] {
                                    assert!(legal.contains(&act), "{spec} {s:?} p{p}: {act:?} not in {legal:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_fixer_steps_aside_and_the_greedy_baseline_does_not() {
        let g = Escape::builtin("escape:2").unwrap();
        let s = g.initial_state(&mut NoChance);
        // Alice in 5 is seen by the killer in 6: it will come into 5.
        assert_eq!(danger(&g, &s), vec![5]);
        // Chased, the fixer leads it away from the generators (to 4); the greedy baseline
        // heads for the generator in 6 regardless (slipping past: passing is not a catch).
        assert_eq!(Fixer::decide(&g, &s, 0), EscapeAction::Move(4));
        assert_eq!(GreedyBaseline::decide(&g, &s, 0), EscapeAction::Move(6));
        // Bob in 10 goes for the generator in room 1.
        assert_eq!(Fixer::decide(&g, &s, 1), EscapeAction::Move(1));
        let mut s2 = s.clone();
        s2.players = [1, 9];
        s2.adversary = 2;
        // The killer in 2 sees Alice in 1: the greedy baseline fixes on; the fixer leaves,
        // to 10 rather than slip past the killer into 2 (farther from where it is now).
        assert_eq!(GreedyBaseline::decide(&g, &s2, 0), EscapeAction::Fix);
        assert_eq!(Fixer::decide(&g, &s2, 0), EscapeAction::Move(10));
    }
}
