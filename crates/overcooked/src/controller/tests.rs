use super::*;
use crate::env::{Ingredient, Layout, Player, Soup};

fn kitchen(rows: &[&str]) -> Arc<Kitchen> {
    Kitchen::shared(Layout::from_grid("test", rows).unwrap())
}

/// A ring around one counter: the onion dispenser and the pot are on the top row.
const RING: [&str; 5] = ["XXXXX", "O1 2P", "X X X", "D   S", "XXXXX"];

/// A dead-end corridor: the pot can only be reached through the teammate's cell.
const CORRIDOR: [&str; 3] = ["XXXXX", "O1 2P", "XDXSX"];

fn put(state: &mut State, k: &Kitchen, p: Pos, o: Object) {
    let i = k.layout.index(p).unwrap();
    state.objects[i] = Some(o);
}

/// Runs player 0's controller with player 1 doing `mate` each step until the skill ends.
fn run(k: &Kitchen, state: &mut State, c: &mut Controller, mate: Action, max: usize) -> (SkillStatus, Vec<Action>) {
    let mut actions = Vec::new();
    for _ in 0..max {
        let s = c.step(state);
        if s.status.is_done() {
            return (s.status, actions);
        }
        actions.push(s.action);
        k.layout.step(state, [s.action, mate]);
    }
    (SkillStatus::Running, actions)
}

#[test]
fn pickup_onion_on_cramped_room_takes_the_shortest_path() {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let mut s = k.layout.start_state();
    let mut c = Controller::new(Arc::clone(&k), 0, 1);
    c.set_skill(Skill::PickupOnion, &s);
    let (status, actions) = run(&k, &mut s, &mut c, Action::Stay, 20);
    assert_eq!(status, SkillStatus::Succeeded);
    assert_eq!(actions, vec![Action::North, Action::West, Action::Interact]);
    assert_eq!(s.players[0].held, Some(Object::ONION));
    assert_eq!(status.feedback(0, Skill::PickupOnion).unwrap(), "Player 0 succeeded at pickup(onion).");
}

#[test]
fn detours_around_a_teammate_that_does_not_move() {
    let k = kitchen(&RING);
    let mut s = k.layout.start_state();
    s.players[0] = Player { pos: Pos::new(1, 1), dir: Dir::East, held: Some(Object::ONION) };
    // Free path: E, E, interact. The teammate on (3,1) blocks the pot's only spot... so
    // put it on (2,1) instead: the way round the ring is then 7 moves + interact.
    s.players[1].pos = Pos::new(2, 1);
    let mut c = Controller::new(Arc::clone(&k), 0, 7);
    c.set_skill(Skill::PutOnionInPot, &s);
    let (status, actions) = run(&k, &mut s, &mut c, Action::Stay, 30);
    assert_eq!(status, SkillStatus::Succeeded, "{actions:?}");
    // It presses on against the teammate (a blocked move: it is already facing east)
    // for at most three steps, then goes round.
    let waits = actions.iter().take_while(|&&a| a == Action::East).count();
    assert!((1..=3).contains(&waits), "{actions:?}");
    assert_eq!(actions[waits], Action::South);
    assert_eq!(actions.len(), waits + 8);
    assert!(matches!(s.soup_at(&k.layout, Pos::new(4, 1)), Some(soup) if soup.len() == 1));
}

#[test]
fn takes_the_free_path_when_the_teammate_is_not_in_the_way() {
    let k = kitchen(&RING);
    let mut s = k.layout.start_state();
    s.players[0] = Player { pos: Pos::new(1, 1), dir: Dir::East, held: Some(Object::ONION) };
    s.players[1].pos = Pos::new(2, 3);
    let mut c = Controller::new(Arc::clone(&k), 0, 7);
    c.set_skill(Skill::PutOnionInPot, &s);
    let (status, actions) = run(&k, &mut s, &mut c, Action::Stay, 30);
    assert_eq!(status, SkillStatus::Succeeded);
    assert_eq!(actions, vec![Action::East, Action::East, Action::Interact]);
}

#[test]
fn blocked_dead_end_fails_after_the_stall_limit_without_bumping() {
    let k = kitchen(&CORRIDOR);
    let mut s = k.layout.start_state();
    s.players[0].held = Some(Object::ONION);
    s.players[0].dir = Dir::East;
    let mut c = Controller::new(Arc::clone(&k), 0, 3);
    c.set_skill(Skill::PutOnionInPot, &s);
    let (status, actions) = run(&k, &mut s, &mut c, Action::Stay, 100);
    match &status {
        SkillStatus::Failed { reason } => assert!(reason.contains("no progress"), "{reason}"),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert!(actions.len() >= STALL_LIMIT as usize && actions.len() < 40, "{}", actions.len());
    assert_eq!(s.players[1].pos, Pos::new(3, 1));
    // Replaying the actions: it never walks into the teammate's cell.
    let mut r = k.layout.start_state();
    for a in &actions {
        let next = a.dir().and_then(|d| r.players[0].pos.step(d));
        assert_ne!(next, Some(Pos::new(3, 1)), "{actions:?}");
        k.layout.step(&mut r, [*a, Action::Stay]);
    }
    let fb = status.feedback(0, Skill::PutOnionInPot).unwrap();
    assert!(fb.starts_with("Player 0 failed at put_onion_in_pot(): I made no progress"), "{fb}");
}

#[test]
fn preconditions_fail_at_once_with_the_reason() {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let mut s = k.layout.start_state();
    s.players[0].held = Some(Object::ONION);
    let soup = Soup::with_ingredients(&[Ingredient::Onion; 3], 3, 20).unwrap();
    put(&mut s, &k, k.layout.pots[0], Object::Soup(soup));
    let mut c = Controller::new(Arc::clone(&k), 0, 1);
    c.set_skill(Skill::PutOnionInPot, &s);
    let step = c.step(&s);
    assert_eq!(
        step.status.feedback(0, Skill::PutOnionInPot).unwrap(),
        "Player 0 failed at put_onion_in_pot(): I cannot put_onion_in_pot(), since every pot I can reach is full or cooking."
    );
    assert_eq!(c.skill(), None);
    c.set_skill(Skill::PickupOnion, &s);
    assert!(matches!(c.step(&s).status, SkillStatus::Failed { .. }));
}

#[test]
fn fill_dish_waits_at_the_pot_until_the_soup_is_ready() {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let mut s = k.layout.start_state();
    s.players[0] = Player { pos: Pos::new(2, 2), dir: Dir::North, held: Some(Object::Dish) };
    s.players[1].pos = Pos::new(3, 2);
    let soup = Soup::with_ingredients(&[Ingredient::Onion; 3], 10, 20).unwrap();
    put(&mut s, &k, k.layout.pots[0], Object::Soup(soup));
    let mut c = Controller::new(Arc::clone(&k), 0, 1);
    c.set_skill(Skill::FillDishWithSoup, &s);
    let (status, actions) = run(&k, &mut s, &mut c, Action::Stay, 40);
    assert_eq!(status, SkillStatus::Succeeded, "{actions:?}");
    assert_eq!(actions[0], Action::North);
    // Then stays until the last tick and interacts once.
    assert_eq!(actions.iter().filter(|&&a| a == Action::Interact).count(), 1);
    assert_eq!(*actions.last().unwrap(), Action::Interact);
    assert!(actions[1..actions.len() - 1].iter().all(|&a| a == Action::Stay));
    assert!(matches!(s.players[0].held, Some(Object::Soup(_))));
}

#[test]
fn place_on_counter_prefers_the_hand_over_counter_on_forced_coordination() {
    let k = Kitchen::shared(Layout::builtin("forced_coordination").unwrap());
    let mut s = k.layout.start_state();
    // Player 1 is on the left side (no pots) with an onion.
    s.players[1] = Player { pos: Pos::new(1, 3), dir: Dir::North, held: Some(Object::ONION) };
    let mut c = Controller::new(Arc::clone(&k), 1, 1);
    c.set_skill(Skill::PlaceObjOnCounter, &s);
    let mut placed_at = None;
    for _ in 0..20 {
        let st = c.step(&s);
        if st.status.is_done() {
            assert_eq!(st.status, SkillStatus::Succeeded);
            break;
        }
        let out = k.layout.step(&mut s, [Action::Stay, st.action]);
        if let Some(crate::env::Event::PlaceCounter { at, .. }) = out.events[1] {
            placed_at = Some(at);
        }
    }
    // A counter of the middle column, from whose right side a pot is two actions away.
    assert_eq!(placed_at, Some(Pos::new(2, 2)));
    // The controller does not take back what it handed over while a dispenser is reachable.
    c.set_skill(Skill::PickupOnion, &s);
    let mut took_from = None;
    for _ in 0..20 {
        let st = c.step(&s);
        if st.status.is_done() {
            break;
        }
        let out = k.layout.step(&mut s, [Action::Stay, st.action]);
        if let Some(e) = out.events[1] {
            took_from = Some(e);
        }
    }
    assert!(matches!(took_from, Some(crate::env::Event::Dispense { .. })), "{took_from:?}");
    // The right side takes the onion from the counter.
    let mut r = Controller::new(Arc::clone(&k), 0, 1);
    r.set_skill(Skill::PickupOnion, &s);
    let (status, _) = run(&k, &mut s, &mut r, Action::Stay, 20);
    assert_eq!(status, SkillStatus::Succeeded);
}

#[test]
fn wait_runs_n_steps_and_is_seeded() {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let s0 = k.layout.start_state();
    let go = |seed| {
        let mut s = s0.clone();
        let mut c = Controller::new(Arc::clone(&k), 0, seed);
        c.set_skill(Skill::Wait(5), &s);
        run(&k, &mut s, &mut c, Action::Stay, 20)
    };
    let (status, a) = go(9);
    assert_eq!(status, SkillStatus::Succeeded);
    assert_eq!(a.len(), 5);
    assert!(!a.contains(&Action::Interact));
    assert_eq!(go(9), (status, a));
}

#[test]
fn pot_choice_prefers_the_fuller_pot() {
    let k = Kitchen::shared(Layout::builtin("asymmetric_advantages").unwrap());
    let mut s = k.layout.start_state();
    // Pots at (4,2) and (4,3); standing at (5,2) facing west is next to the first.
    s.players[0] = Player { pos: Pos::new(5, 2), dir: Dir::West, held: Some(Object::ONION) };
    let soup = Soup::with_ingredients(&[Ingredient::Onion; 2], -1, 20).unwrap();
    put(&mut s, &k, Pos::new(4, 3), Object::Soup(soup));
    let mut c = Controller::new(Arc::clone(&k), 0, 1);
    c.set_skill(Skill::PutOnionInPot, &s);
    let first = c.step(&s).action;
    assert_eq!(first, Action::South, "goes to the pot with two onions");
}

#[test]
fn wait_steps_off_the_spot_the_teammate_needs() {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let mut s = k.layout.start_state();
    // Player 0 waits on (3,2), the only spot facing the window; player 1 carries a soup.
    s.players[0] = Player { pos: Pos::new(3, 2), dir: Dir::South, held: None };
    s.players[1] = Player { pos: Pos::new(2, 1), dir: Dir::North, held: Some(soup_object()) };
    let mut c = Controller::new(Arc::clone(&k), 0, 4);
    c.set_skill(Skill::Wait(3), &s);
    let first = c.step(&s).action;
    assert!(matches!(first, Action::North | Action::West), "moves off (3,2): {first:?}");
    // Away from the teammate's spots it just stays.
    let mut s2 = k.layout.start_state();
    s2.players[1].held = Some(soup_object());
    let mut c = Controller::new(Arc::clone(&k), 0, 4);
    c.set_skill(Skill::Wait(3), &s2);
    assert_eq!(c.step(&s2).action, Action::Stay);
}

fn soup_object() -> Object {
    Object::Soup(Soup::with_ingredients(&[Ingredient::Onion; 3], 20, 20).unwrap())
}

#[test]
fn without_a_stall_limit_a_blocked_skill_keeps_trying() {
    let k = kitchen(&CORRIDOR);
    let mut s = k.layout.start_state();
    s.players[0].held = Some(Object::ONION);
    s.players[0].dir = Dir::East;
    let opts = ControllerOptions { stall_limit: None, wait_moves: WaitMoves::StayOrUnjam };
    let mut c = Controller::new(Arc::clone(&k), 0, 3).with_options(opts);
    c.set_skill(Skill::PutOnionInPot, &s);
    // The default fails within 40 steps (blocked_dead_end_fails_after_the_stall_limit...).
    let (status, actions) = run(&k, &mut s, &mut c, Action::Stay, 200);
    assert_eq!(status, SkillStatus::Running, "never gives up: {actions:?}");
    assert_eq!(actions.len(), 200);
}

#[test]
fn random_valid_waits_stay_or_move_to_floor_cells_uniformly() {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let s = k.layout.start_state();
    // Player 0 starts at (1,2): floor to the north (1,1) and east (2,2); counter west, dish dispenser south.
    let opts = ControllerOptions { wait_moves: WaitMoves::RandomValid, ..ControllerOptions::default() };
    let draw = |seed| {
        let mut c = Controller::new(Arc::clone(&k), 0, seed).with_options(opts);
        let mut v = Vec::new();
        for _ in 0..60 {
            c.set_skill(Skill::Wait(20), &s);
            for _ in 0..20 {
                v.push(c.step(&s).action);
            }
        }
        v
    };
    let a = draw(5);
    assert_eq!(a, draw(5), "seeded");
    for (action, share) in [(Action::Stay, 1.0 / 3.0), (Action::North, 1.0 / 3.0), (Action::East, 1.0 / 3.0)] {
        let n = a.iter().filter(|&&x| x == action).count() as f64 / a.len() as f64;
        assert!((n - share).abs() < 0.05, "{action:?}: {n}");
    }
    assert!(a.iter().all(|x| matches!(x, Action::Stay | Action::North | Action::East)), "{a:?}");
}
