use super::*;
use proagent_core::NoChance;
use proagent_core::episode::env_chance;

fn play(g: &Lever, s: &mut LeverState, a: u8, b: u8) -> LeverOutcome {
    g.step(s, &[Some(Pull(a)), Some(Pull(b))], &mut NoChance)
}

#[test]
fn specs_name_the_rounds() {
    assert_eq!(Lever::from_spec("lever").unwrap().rounds(), DEFAULT_ROUNDS);
    assert_eq!(Lever::from_spec(" lever:5r ").unwrap().rounds(), 5);
    assert_eq!(Lever::from_spec("lever:5r").unwrap().spec(), "lever:5r");
    assert_eq!(Lever::from_spec("lever:10r").unwrap().spec(), "lever", "the default rounds write as plain `lever`");
    for bad in ["lever:", "lever:0r", "lever:101r", "lever:5", "lever:r", "lever:05r", "lever:-1r", "levers"] {
        assert!(Lever::from_spec(bad).is_err(), "{bad}");
    }
    assert!(Lever::is_spec("lever:xyz") && !Lever::is_spec("cramped_room"));
    let e = Lever::from_spec("lever:0r").unwrap_err().to_string();
    assert!(e.contains("lever:Nr"), "{e}");
}

#[test]
fn matched_pulls_score_the_lever_and_others_nothing() {
    let g = Lever::new(4);
    let mut s = LeverState { special: 3, rounds: Vec::new(), score: 0 };
    assert_eq!(play(&g, &mut s, 0, 0).reward, PAYOFF);
    assert_eq!(play(&g, &mut s, 3, 3).reward, SPECIAL_PAYOFF);
    let out = play(&g, &mut s, 3, 4);
    assert_eq!(out.reward, 0);
    assert_eq!(out.events[0], Some(LeverEvent { lever: 4, special: true, matched: false }));
    assert_eq!(g.step(&mut s, &[Some(Pull(2)), None], &mut NoChance).reward, 0);
    assert_eq!(s.score, PAYOFF + SPECIAL_PAYOFF);
    assert!(g.is_over(&s));
    assert_eq!(g.turn(&s), Turn::Over);
    assert!(g.legal_actions(&s, 0).is_empty());
    // Steps after the end change nothing.
    let before = s.clone();
    assert_eq!(play(&g, &mut s, 1, 1).reward, 0);
    assert_eq!(s, before);
}

#[test]
fn the_special_lever_comes_from_the_chance_and_a_seed_fixes_it() {
    let g = Lever::default();
    let specials: Vec<u8> = (0..40).map(|seed| g.initial_state(&mut env_chance(seed)).special).collect();
    assert!(specials.iter().all(|&l| l < LEVERS));
    assert!(specials.iter().any(|&l| l != specials[0]), "the position varies with the seed");
    assert_eq!(g.initial_state(&mut env_chance(7)), g.initial_state(&mut env_chance(7)));
    assert_eq!(g.legal_actions(&g.initial_state(&mut NoChance), 1).len(), LEVERS as usize);
    assert!(g.legal_actions(&g.initial_state(&mut NoChance), 2).is_empty());
}

#[test]
fn the_tally_counts_matches_specials_and_switches() {
    let g = Lever::new(5);
    let mut s = LeverState { special: 9, rounds: Vec::new(), score: 0 };
    let mut tally = LeverTally::default();
    for (a, b) in [(9, 2), (9, 9), (9, 9), (1, 1), (1, 5)] {
        let before = s.clone();
        let out = play(&g, &mut s, a, b);
        g.tally(&mut tally, &before, &s, &out);
        assert!(!g.idle(&before, &s, &out));
    }
    assert_eq!(
        tally,
        LeverTally { coordinated: 3, on_special: 2, first_match: Some(2), special_pulls: [3, 2], switches: [1, 3] }
    );
    let before = s.clone();
    let out = LeverOutcome { events: [None, None], reward: 0 };
    assert!(g.idle(&before, &s, &out));
}

#[test]
fn tokens_round_trip_and_junk_is_refused() {
    let g = Lever::default();
    for l in 0..LEVERS {
        assert_eq!(g.parse_action(&g.action_token(Pull(l))), Some(Pull(l)));
    }
    assert_eq!(g.action_token(Pull(9)), "L10");
    for bad in ["L0", "L11", "L", "L01", "l3", "3", "", "L+1", "L100"] {
        assert_eq!(g.parse_action(bad), None, "{bad}");
    }
    // A lever out of range in a step is no pull.
    let mut s = g.initial_state(&mut NoChance);
    let out = g.step(&mut s, &[Some(Pull(10)), Some(Pull(10))], &mut NoChance);
    assert_eq!((out.reward, s.rounds[0]), (0, [None, None]));
}

#[test]
fn render_and_json() {
    let g = Lever::new(3);
    let mut s = LeverState { special: 2, rounds: Vec::new(), score: 0 };
    play(&g, &mut s, 2, 2);
    let text = g.render_text(&s);
    assert!(text.starts_with("lever:3r round 1/3  score 9\n"), "{text}");
    assert!(text.contains("pays    10 10  9 10"), "{text}");
    assert!(text.contains("round   1: A  3  B  3  +9"), "{text}");
    assert_eq!(g.state_json(&s), json!({"t": 1, "special": 3, "rounds": [[3, 3]], "score": 9}));
}
