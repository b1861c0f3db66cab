//! The Hanabi bots: HLE's simple agent move for move on the fixture traces, and self-play.

use proagent_hanabi::rules::*;
use proagent_hanabi::trace;
use std::path::PathBuf;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hanabi_traces")
}

fn fixture_games() -> Vec<(String, trace::TraceGame)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        assert!(trace::is_hanabi_trace(&text), "{}", f.display());
        for g in trace::parse_trace_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display())) {
            out.push((f.display().to_string(), g));
        }
    }
    out
}

/// Replays a fixture game, calling `at` with the game and each recorded state and its move.
fn replay(g: &trace::TraceGame, mut at: impl FnMut(&Hanabi, &State, Move)) {
    let game = Hanabi::new(g.header.players).expect("players");
    let deal: Vec<Card> = g.header.deal.iter().map(|c| Card::parse(c).expect("card")).collect();
    let mut chance = RecordedChance::new(deal_picks(&deal).expect("deal"));
    let mut s = game.new_game(&mut chance);
    for (_, m) in &g.moves {
        let mv = game.move_from_uid(m.uid).expect("uid");
        at(&game, &s, mv);
        game.apply(&mut s, mv, &mut chance).expect("legal");
    }
}

#[test]
fn simple_bot_makes_hle_simple_agents_moves() {
    let mut checked = 0;
    for (file, g) in fixture_games().iter().filter(|(_, g)| g.header.policy == "simple") {
        replay(g, |game, s, mv| {
            let view = proagent_hanabi::view::HanabiView::new(game, s, s.current_player());
            assert_eq!(super::SimpleBot::choose(&view), mv, "{file} {} t={}", g.header.game, s.moves());
            checked += 1;
        });
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn bots_play_legal_games_and_the_convention_bot_scores_best() {
    use super::selfplay::evaluate;
    use super::{ConventionBot, RandomBot, SimpleBot};
    use proagent_core::Seat;
    let game = Hanabi::new(2).unwrap();
    let run = |name: &str| {
        let make = || -> Vec<Box<dyn Seat<Hanabi>>> {
            (0..2)
                .map(|_| -> Box<dyn Seat<Hanabi>> {
                    match name {
                        "random" => Box::new(RandomBot::default()),
                        "simple" => Box::new(SimpleBot),
                        _ => Box::new(ConventionBot),
                    }
                })
                .collect()
        };
        evaluate(&game, &make, 40, 1).unwrap()
    };
    let (r, s, c) = (run("random"), run("simple"), run("convention"));
    for x in [&r, &s, &c] {
        assert_eq!(x.refused, 0, "{}", x.bots);
    }
    assert!(c.mean_score > s.mean_score && c.mean_cards_played > s.mean_cards_played, "{c:?} {s:?}");
    assert!(s.mean_cards_played > r.mean_cards_played, "{s:?} {r:?}");
    // Same seed, same games.
    assert_eq!(run("random").mean_cards_played, r.mean_cards_played);
}
