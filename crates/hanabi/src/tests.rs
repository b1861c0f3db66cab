//! Unit tests of the Hanabi crate: HLE fidelity on the fixture traces, rules, views,
//! the game interface and the bots.

use crate::rules::*;
use crate::trace;
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

#[test]
fn every_fixture_replays_move_for_move() {
    let games = fixture_games();
    assert!(games.len() >= 30, "only {} fixture games", games.len());
    let (mut lost, mut out_of_cards, mut perfect) = (0, 0, 0);
    for (file, g) in &games {
        let r = trace::verify(g).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(r.passed, "{file} {}: {:?}", r.game, r.divergence);
        assert_eq!(r.states_matched, g.states.len());
        assert_eq!(r.vectors_compared, g.states.len() * g.header.players);
        match r.status.as_str() {
            "out_of_life_tokens" => lost += 1,
            "out_of_cards" => out_of_cards += 1,
            "completed_fireworks" => perfect += 1,
            s => panic!("{file}: status {s}"),
        }
    }
    assert!(lost > 0 && out_of_cards > 0 && perfect > 0, "{lost} {out_of_cards} {perfect}");
}

#[test]
fn a_view_never_shows_its_own_cards() {
    let game = Hanabi::new(3).unwrap();
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
    let s = game.new_game(&mut rng);
    for p in 0..3 {
        let v = crate::view::HanabiView::new(&game, &s, p);
        assert!(v.cards(p).is_none());
        for q in (0..3).filter(|&q| q != p) {
            assert_eq!(v.cards(q), Some(s.hand(q).cards()));
        }
        // Unseen counts include the observer's own hand: they are not the deck.
        let unseen: u32 = v.unseen_counts().iter().map(|&x| u32::from(x)).sum();
        assert_eq!(unseen as usize, s.deck_size() + s.hand(p).len());
        // Not even through Debug.
        let shown = format!("{v:?}");
        for c in s.hand(p).cards() {
            let other_has = (0..3).any(|q| q != p && s.hand(q).cards().contains(c));
            assert!(other_has || !shown.contains(&c.to_string()), "{shown}");
        }
    }
}

#[test]
fn move_uids_and_tokens_round_trip() {
    for n in 2..=5 {
        let game = Hanabi::new(n).unwrap();
        assert_eq!(game.max_moves(), 2 * game.hand_size() + (n - 1) * 10);
        for uid in 0..game.max_moves() {
            let m = game.move_from_uid(uid).unwrap();
            assert_eq!(game.move_uid(m), Some(uid));
            assert_eq!(<Hanabi as proagent_core::Game>::parse_action(&game, &m.token()), Some(m));
        }
        assert!(game.move_from_uid(game.max_moves()).is_none());
    }
    let g2 = Hanabi::new(2).unwrap();
    assert_eq!(<Hanabi as proagent_core::Game>::parse_action(&g2, "H2R"), None, "offset 2 in a 2-player game");
    assert_eq!(<Hanabi as proagent_core::Game>::parse_action(&g2, "X"), None);
    assert_eq!(Hanabi::from_spec("hanabi:4p").unwrap().players(), 4);
    assert!(Hanabi::from_spec("hanabi:6p").is_err() && Hanabi::from_spec("hanabi:1p").is_err());
}

#[test]
fn legality_follows_hle() {
    let game = Hanabi::new(2).unwrap();
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(9);
    let mut s = game.new_game(&mut rng);
    // 8 tokens: no discard.
    assert!(!game.is_legal(&s, Move::Discard(0)));
    assert!(game.is_legal(&s, Move::Play(4)));
    // A hint must touch a card of the target.
    let target = s.hand(1).cards().to_vec();
    let absent = (0..5u8).find(|&c| target.iter().all(|x| x.color != c));
    if let Some(c) = absent {
        assert!(!game.is_legal(&s, Move::RevealColor { offset: 1, color: c }));
    }
    let present = target[0];
    assert!(game.is_legal(&s, Move::RevealRank { offset: 1, rank: present.rank }));
    // Spend every token: no hint at 0.
    for _ in 0..8 {
        let cur = s.current_player();
        let c = s.hand((cur + 1) % 2).cards()[0];
        game.apply(&mut s, Move::RevealColor { offset: 1, color: c.color }, &mut rng).unwrap();
    }
    assert_eq!(s.info_tokens(), 0);
    assert!(game.legal_moves(&s, s.current_player()).iter().all(|m| !m.is_hint()));
    let before = s.clone();
    assert!(game.apply(&mut s, Move::RevealRank { offset: 1, rank: 0 }, &mut rng).is_err());
    assert_eq!(s, before, "a refused move changes nothing");
    // Not this player's turn: no moves.
    assert!(game.legal_moves(&s, 1 - s.current_player()).is_empty());
}

#[test]
fn the_verifier_names_the_first_difference() {
    let (_, g) = fixture_games().into_iter().find(|(_, g)| g.header.policy == "cautious").unwrap();
    // A knowledge string changed in state 10.
    let mut bad = g.clone();
    bad.states[10].1.knowledge[1][0] = "RX|R12345".into();
    let r = trace::verify(&bad).unwrap();
    assert!(!r.passed);
    let d = r.divergence.unwrap();
    assert_eq!((d.t, d.field.as_str()), (10, "knowledge[1][0]"));
    // A different deal shows up as a hand.
    let mut bad = g.clone();
    bad.header.deal.swap(0, 1);
    if bad.header.deal[0] != g.header.deal[0] {
        let r = trace::verify(&bad).unwrap();
        assert_eq!(r.divergence.unwrap().field, "hands[0]");
    }
    // A flipped observation bit is named by player and bit.
    let mut bad = g.clone();
    let hex = &mut bad.states[3].1.encoded[0];
    let first = hex.remove(0);
    hex.insert(0, if first == '0' { '8' } else { '0' });
    let r = trace::verify(&bad).unwrap();
    assert!(r.divergence.unwrap().field.starts_with("encoded[0][bit 0"));
}

#[test]
fn malformed_traces_are_errors_with_lines() {
    let text = std::fs::read_to_string(fixture_dir().join("random_2p.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{\"type\":\"move\",\"t\":0,\"player\":0}";
    let e = trace::parse_trace_file(&lines.join("\n")).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    let e = trace::parse_trace_file("{\"type\":\"game\"").unwrap_err();
    assert_eq!(e.line, 1);
    let e = trace::parse_trace_file(&text.lines().take(4).collect::<Vec<_>>().join("\n")).unwrap_err();
    assert!(e.message.contains("no end line"), "{e}");
    // A deal naming a fourth R1.
    let mut games = trace::parse_trace_file(&text).unwrap();
    games[0].header.deal[0] = "B5".into();
    games[0].header.deal[1] = "B5".into();
    assert!(trace::verify(&games[0]).is_err());
    assert!(!trace::is_hanabi_trace("{\"schema\":\"proagent-v2-trace/1\"}"));
}

#[test]
fn the_game_interface_refuses_illegal_moves_and_reports_events() {
    use proagent_core::{Game, Turn};
    let game = Hanabi::from_spec("hanabi").unwrap();
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(5);
    let mut s = game.initial_state(&mut rng);
    assert_eq!(game.turn(&s), Turn::Player(0));
    let mut tally = crate::HanabiTally::default();
    // Discarding at 8 tokens is refused: nothing changes, the step is idle.
    let before = s.clone();
    let out = game.step(&mut s, &[Some(Move::Discard(0)), None], &mut rng);
    assert!(game.idle(&before, &s, &out) && s == before && game.event(&out, 0).is_none());
    game.tally(&mut tally, &before, &s, &out);
    assert_eq!(tally.refused, 1);
    // Player 1's slot is ignored on player 0's turn.
    let out = game.step(&mut s, &[None, Some(Move::Play(0))], &mut rng);
    assert!(out.record.is_none());
    // A hint: the event names the target and the touched cards, not the mover's new card.
    let c = s.hand(1).cards()[2];
    let before = s.clone();
    let out = game.step(&mut s, &[Some(Move::RevealRank { offset: 1, rank: c.rank }), None], &mut rng);
    game.tally(&mut tally, &before, &s, &out);
    match game.event(&out, 0) {
        Some(crate::HanabiEvent::Hint { target, cards, .. }) => {
            assert_eq!(*target, 1);
            assert!(cards.contains(&2));
        }
        e => panic!("{e:?}"),
    }
    assert!(game.event(&out, 1).is_none());
    assert_eq!((tally.rank_hints, tally.moves, s.info_tokens()), (1, 1, 7));
    // A play: reward under HLE scoring is the score change.
    let card = s.hand(1).cards()[0];
    let out = game.step(&mut s, &[None, Some(Move::Play(0))], &mut rng);
    let ok = matches!(game.event(&out, 1), Some(crate::HanabiEvent::Play { success: true, .. }));
    assert_eq!(ok, card.rank == 0);
    assert_eq!(game.reward(&out), i32::from(ok));
    assert_eq!(game.action_token(Move::RevealColor { offset: 1, color: 3 }), "H1W");
    let text = game.render_text(&s);
    assert!(text.contains("player 0:") && text.contains("fireworks"), "{text}");
    let j = game.state_json(&s);
    assert_eq!(j["hands"].as_array().unwrap().len(), 2);
    assert_eq!(j["info_tokens"], 7);
}

#[test]
fn losing_every_life_zeroes_hle_score_but_not_cards_played() {
    use proagent_core::Game;
    // The first fixture game of the simple agent plays 8 cards and then loses its lives.
    let (_, g) = fixture_games().into_iter().find(|(_, g)| g.header.game == "simple_2p_0").unwrap();
    let hle = Hanabi::new(2).unwrap();
    let paper = hle.with_scoring(Scoring::CardsPlayed);
    for (game, want) in [(hle, 0), (paper, 8)] {
        let deal: Vec<Card> = g.header.deal.iter().map(|c| Card::parse(c).unwrap()).collect();
        let mut chance = RecordedChance::new(deal_picks(&deal).unwrap());
        let mut s = game.initial_state(&mut chance);
        let (mut total, mut tally) = (0, crate::HanabiTally::default());
        for (_, m) in &g.moves {
            let before = s.clone();
            let mut actions = [None, None];
            actions[s.current_player()] = game.move_from_uid(m.uid);
            let out = game.step(&mut s, &actions, &mut chance);
            total += game.reward(&out);
            game.tally(&mut tally, &before, &s, &out);
        }
        assert_eq!(total, want);
        assert_eq!((tally.score, tally.cards_played, tally.lives_lost), (0, 8, 3));
        assert_eq!(tally.end, Some(EndReason::OutOfLifeTokens));
    }
}

/// A chance that answers anything, in or out of range.
struct Wild(u64);

impl proagent_core::Chance for Wild {
    fn pick(&mut self, _n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as usize
    }
}

#[test]
fn random_games_keep_the_invariants_for_any_chance() {
    use proagent_core::Game;
    for n in 2..=5 {
        let game = Hanabi::new(n).unwrap();
        for seed in 0..40u64 {
            let mut chance = Wild(seed);
            let mut s = game.initial_state(&mut chance);
            assert_eq!(s.deck_size(), 50 - n * game.hand_size());
            let mut pick = seed;
            while !game.is_over(&s) {
                assert!(game.time(&s) < game.max_steps());
                let legal = game.legal_actions(game.view(&s, s.current_player()), s.current_player());
                assert!(!legal.is_empty());
                pick = pick.wrapping_mul(2862933555777941757).wrapping_add(3037000493);
                let m = legal[(pick >> 33) as usize % legal.len()];
                let mut actions = vec![None; n];
                actions[s.current_player()] = Some(m);
                let out = game.step(&mut s, &actions, &mut chance);
                assert!(out.record.is_some());
                let held: usize = (0..n).map(|p| s.hand(p).len()).sum();
                let played = s.cards_played() as usize;
                assert_eq!(held + s.deck_size() + s.discards().len() + played, 50);
                assert!(s.info_tokens() <= MAX_INFO_TOKENS && s.life_tokens() <= MAX_LIFE_TOKENS);
                for p in 0..n {
                    for (c, k) in s.hand(p).cards().iter().zip(s.hand(p).knowledge()) {
                        assert!(k.allows(*c), "knowledge must never rule out the real card");
                    }
                }
            }
            assert!(s.end_reason().is_some());
        }
    }
}

#[test]
fn an_illegal_recorded_move_is_a_divergence_not_a_panic() {
    let (_, g) = fixture_games().into_iter().find(|(_, g)| g.header.game == "cheat_2p_0").unwrap();
    let mut bad = g.clone();
    // The first move becomes a discard at 8 information tokens.
    bad.moves[0].1.uid = 0;
    bad.moves[0].1.text = "(Discard 0)".into();
    let r = trace::verify(&bad).unwrap();
    let d = r.divergence.unwrap();
    assert_eq!((d.t, d.field.as_str()), (0, "legal"));
    // A uid outside the game is an error naming the line.
    let mut bad = g.clone();
    bad.moves[3].1.uid = 999;
    let e = trace::verify(&bad).unwrap_err();
    assert_eq!(e.line, bad.moves[3].0);
}
