//! CollabCapture seats: [`Random`], the greedy [`Chaser`], the [`DoorOperator`] and the
//! paper's [`GreedyBaseline`] (the published `GreedyAgent`, decision for decision).

use super::common::rule_seat;
use proagent_collab::capture::{Capture, CaptureAction, CaptureState};
use proagent_collab::maze::Room;

/// Uniform over the legal actions.
pub type Random = super::common::Random<Capture>;

/// The published greedy baseline (`GreedyAgent` of collab_capture_action_manager.py): in a
/// button room it presses when the thief would be one move away with that door toggled;
/// otherwise it moves into the thief's room when it can, else to the first room it can
/// reach (in exit order), else stays.
pub struct GreedyBaseline;

impl GreedyBaseline {
    /// The decision for `player` in `s`.
    pub fn decide(game: &Capture, s: &CaptureState, player: usize) -> CaptureAction {
        let me = s.players[player];
        if let Some(d) = game.button_in(me)
            && game.can_move(me, s.thief, s.doors ^ (1 << d))
        {
            return CaptureAction::Press;
        }
        if game.can_move(me, s.thief, s.doors) {
            return CaptureAction::Move(s.thief);
        }
        game.accessible(me, s.doors).next().map_or(CaptureAction::Stay, CaptureAction::Move)
    }
}

rule_seat!(Capture, GreedyBaseline, "greedy_baseline");

/// Moves along a shortest path through open doors into the thief's room; stays when the
/// thief cannot be reached.
pub struct Chaser;

impl Chaser {
    /// The decision for `player` in `s`.
    pub fn decide(game: &Capture, s: &CaptureState, player: usize) -> CaptureAction {
        let me = s.players[player];
        let (dist, first) = game.maze().shortest_paths(me, |a, b| game.can_move(a, b, s.doors));
        if dist[s.thief as usize] == u32::MAX || s.thief == me {
            CaptureAction::Stay
        } else {
            CaptureAction::Move(first[s.thief as usize])
        }
    }
}

rule_seat!(Capture, Chaser, "chaser");

/// Works the doors to corner the thief while the partner chases. When it is the nearer of
/// the two to the thief (player 0 on a tie) it chases like [`Chaser`]. Otherwise it rates
/// a door setting by how many rooms the thief can still reach, counting only settings in
/// which some player can reach the thief; if toggling one door gives a better setting it
/// walks to that door's button and presses it, otherwise it chases.
pub struct DoorOperator;

impl DoorOperator {
    /// How good a door setting is for the catchers (lower is better; `None`: nobody can
    /// reach the thief).
    fn rate(game: &Capture, s: &CaptureState, doors: u64) -> Option<usize> {
        let open = |a: Room, b: Room| game.can_move(a, b, doors);
        let (from_thief, _) = game.maze().shortest_paths(s.thief, open);
        let reachable = s.players.iter().any(|&p| game.maze().shortest_paths(p, open).0[s.thief as usize] != u32::MAX);
        reachable.then(|| from_thief.iter().filter(|&&d| d != u32::MAX).count())
    }

    /// The decision for `player` in `s`.
    pub fn decide(game: &Capture, s: &CaptureState, player: usize) -> CaptureAction {
        let me = s.players[player];
        // The player nearer the thief (player 0 on a tie) chases; the other works doors.
        let open = |a: Room, b: Room| game.can_move(a, b, s.doors);
        let dist = |p: usize| game.maze().shortest_paths(s.players[p], open).0[s.thief as usize];
        let (mine, theirs) = (dist(player), dist(1 - player.min(1)));
        if mine < theirs || (mine == theirs && mine != u32::MAX && player == 0) {
            return Chaser::decide(game, s, player);
        }
        let now = DoorOperator::rate(game, s, s.doors);
        let mut best: Option<(usize, usize)> = None;
        for d in 0..game.maze().doors.len() {
            if let Some(r) = DoorOperator::rate(game, s, s.doors ^ (1 << d))
                && now.is_none_or(|n| r < n)
                && best.is_none_or(|(_, b)| r < b)
            {
                best = Some((d, r));
            }
        }
        if let Some((d, _)) = best {
            let button = game.maze().doors[d].button;
            if button == me {
                return CaptureAction::Press;
            }
            let (dist, first) = game.maze().shortest_paths(me, |a, b| game.can_move(a, b, s.doors));
            if dist[button as usize] != u32::MAX {
                return CaptureAction::Move(first[button as usize]);
            }
        }
        Chaser::decide(game, s, player)
    }
}

rule_seat!(Capture, DoorOperator, "door_operator");

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_core::Game;
    use proagent_core::NoChance;

    #[test]
    fn greedy_baseline_presses_when_the_toggle_puts_the_thief_in_reach() {
        let g = Capture::builtin("capture:1").unwrap();
        let mut s = g.initial_state(&mut NoChance);
        // Alice in 1, thief in 2, door open: move in.
        assert_eq!(GreedyBaseline::decide(&g, &s, 0), CaptureAction::Move(2));
        // Bob in 6: the thief is not next to him; first reachable room is 5.
        assert_eq!(GreedyBaseline::decide(&g, &s, 1), CaptureAction::Move(5));
        // In room 9 (button of door 1-2) with the thief in 6: the toggle does not change
        // that 6 is reachable, and the published rule presses anyway.
        s.players[0] = 9;
        s.thief = 6;
        assert_eq!(GreedyBaseline::decide(&g, &s, 0), CaptureAction::Press);
    }

    #[test]
    fn every_bot_plays_legal_actions() {
        for spec in ["capture:1", "capture:2", "capture:3", "capture:4"] {
            let g = Capture::builtin(spec).unwrap();
            for players in [[1, 6], [9, 8], [3, 4], [7, 2]] {
                for thief in 1..=9 {
                    for doors in 0..4 {
                        let s = CaptureState { t: 1, players, thief, doors, caught: false };
                        for p in 0..2 {
                            let legal = g.legal_actions(&s, p);
                            for a in [
                                GreedyBaseline::decide(&g, &s, p),
                                Chaser::decide(&g, &s, p),
                                DoorOperator::decide(&g, &s, p),
                            ] {
                                assert!(legal.contains(&a), "{spec} {s:?} p{p}: {a:?} not in {legal:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn door_operator_opens_the_way_when_the_thief_is_cut_off() {
        let g = Capture::builtin("capture:4").unwrap();
        // Thief in 2, shut in with 3 (both doors closed); Alice in 9 by the 1-2 button.
        let s = CaptureState { t: 0, players: [9, 7], thief: 2, doors: 0, caught: false };
        assert_eq!(DoorOperator::decide(&g, &s, 0), CaptureAction::Press);
        assert_eq!(Chaser::decide(&g, &s, 1), CaptureAction::Stay);
    }
}
