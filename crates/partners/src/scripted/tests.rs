use super::*;
use proagent_core::episode::{EpisodeOptions, EpisodeResult, play_episode};
use proagent_overcooked::env::{Dir, Ingredient, Object, Player, Soup};
use proagent_overcooked::game::Overcooked;

fn kitchen(name: &str) -> Arc<Kitchen> {
    Kitchen::shared(Layout::builtin(name).unwrap())
}

fn put(k: &Kitchen, s: &mut State, p: Pos, o: Object) {
    let i = k.layout.index(p).unwrap();
    s.objects[i] = Some(o);
}

fn soup(n: usize, tick: i16) -> Object {
    Object::Soup(Soup::with_ingredients(&vec![Ingredient::Onion; n], tick, 20).unwrap())
}

fn choose(k: &Kitchen, s: &State, me: usize, partner_skill: Option<Skill>) -> Skill {
    choose_skill(&facts_from_state(k, s, me, partner_skill, 400))
}

#[test]
fn basic_cycle_on_cramped_room() {
    let k = kitchen("cramped_room");
    let mut s = k.layout.start_state();
    assert_eq!(choose(&k, &s, 0, None), Skill::PickupOnion);
    s.players[0].held = Some(Object::ONION);
    assert_eq!(choose(&k, &s, 0, None), Skill::PutOnionInPot);
    put(&k, &mut s, k.layout.pots[0], soup(3, 5));
    s.players[0].held = Some(Object::Dish);
    assert_eq!(choose(&k, &s, 0, None), Skill::FillDishWithSoup);
    s.players[0].held = Some(soup(3, 20));
    assert_eq!(choose(&k, &s, 0, None), Skill::DeliverSoup);
}

#[test]
fn no_dish_nobody_needs() {
    let k = kitchen("cramped_room");
    let mut s = k.layout.start_state();
    put(&k, &mut s, k.layout.pots[0], soup(3, 5));
    // The only soup already has a dish coming: get an onion for the next one instead.
    s.players[1].held = Some(Object::Dish);
    assert_eq!(choose(&k, &s, 0, None), Skill::PickupOnion);
    // Without the teammate's dish, the closer empty-handed player fetches one.
    s.players[1].held = None;
    s.players[0] = Player { pos: Pos::new(1, 2), dir: Dir::South, held: None };
    s.players[1] = Player { pos: Pos::new(3, 1), dir: Dir::North, held: None };
    assert_eq!(choose(&k, &s, 0, None), Skill::PickupDish);
    assert_ne!(choose(&k, &s, 1, None), Skill::PickupDish);
    // Unless the teammate is known to be on its way to one.
    assert_ne!(choose(&k, &s, 0, Some(Skill::PickupDish)), Skill::PickupDish);
}

#[test]
fn both_pots_get_used() {
    let k = kitchen("asymmetric_advantages");
    let mut s = k.layout.start_state();
    put(&k, &mut s, k.layout.pots[0], soup(3, 5));
    s.players[0].held = Some(Object::ONION);
    // One pot cooks, the other takes the onion.
    assert_eq!(choose(&k, &s, 0, None), Skill::PutOnionInPot);
}

#[test]
fn forced_coordination_hand_overs_from_either_side() {
    let k = kitchen("forced_coordination");
    let mut s = k.layout.start_state();
    // Player 1 starts on the left (dispensers), player 0 on the right (pots, window).
    assert_eq!(choose(&k, &s, 1, None), Skill::PickupOnion);
    s.players[1].held = Some(Object::ONION);
    assert_eq!(choose(&k, &s, 1, None), Skill::PlaceObjOnCounter);
    // The right side has nothing to take yet.
    assert!(matches!(choose(&k, &s, 0, None), Skill::Wait(_)));
    put(&k, &mut s, Pos::new(2, 1), Object::ONION);
    assert_eq!(choose(&k, &s, 0, None), Skill::PickupOnion);
    // A soup nearly done: the left side fetches a dish for it, the right side takes it.
    put(&k, &mut s, k.layout.pots[0], soup(3, 18));
    s.players[1].held = None;
    s.objects[k.layout.index(Pos::new(2, 1)).unwrap()] = None;
    assert_eq!(choose(&k, &s, 1, None), Skill::PickupDish);
    s.players[1].held = Some(Object::Dish);
    assert_eq!(choose(&k, &s, 1, None), Skill::PlaceObjOnCounter);
    put(&k, &mut s, Pos::new(2, 2), Object::Dish);
    s.players[1].held = None;
    assert_eq!(choose(&k, &s, 0, None), Skill::PickupDish);
    // Only one dish per soup is handed over.
    assert_ne!(choose(&k, &s, 1, None), Skill::PickupDish);
    // The right side serves what it plates.
    s.players[0].held = Some(soup(3, 20));
    assert_eq!(choose(&k, &s, 0, None), Skill::DeliverSoup);
}

#[test]
fn facts_state_who_reaches_what() {
    let k = kitchen("forced_coordination");
    let s = k.layout.start_state();
    let f = facts_from_state(&k, &s, 1, None, 400);
    assert!(f.my_access.onion_source && f.my_access.dish_source && !f.my_access.serving);
    assert!(!f.partner_access.onion_source && f.partner_access.serving);
    assert!(f.pots.iter().all(|p| !p.reachable_by_me && p.reachable_by_partner));
    assert_eq!(f.empty_shared_counters, 3);
    assert_eq!(f.time_left, 400);
    assert_eq!(f.soup_size, 3);
    assert_eq!(f.my_steps.pot, None);
    assert!(f.my_steps.onion.is_some());
}

#[test]
fn a_blocked_planner_yields() {
    let k = kitchen("coordination_ring");
    let s = k.layout.start_state();
    let mut f = facts_from_state(&k, &s, 0, None, 400);
    f.blocked = true;
    assert!(matches!(choose_skill(&f), Skill::Wait(_)));
}

fn play(layout: &str, a: &str, b: &str, seed: u64, horizon: u32) -> EpisodeResult<Overcooked> {
    let g = Arc::new(Overcooked::with_kitchen(kitchen(layout), horizon));
    let seat = |spec: &str| -> Box<dyn Seat<Overcooked>> {
        match spec {
            "scripted" => Box::new(ScriptedPartner::new(g.kitchen())),
            "greedy" => Box::new(crate::greedy::GreedyPartner::new(g.kitchen())),
            "courier" => Box::new(crate::courier::CourierPartner::new(g.kitchen())),
            other => panic!("no such test seat {other}"),
        }
    };
    let seats = vec![seat(a), seat(b)];
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(play_episode(Arc::clone(&g), seats, seed, EpisodeOptions::default())).unwrap()
}

#[test]
fn self_play_serves_on_every_layout_without_deadlock() {
    for name in ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
    {
        let r = play(name, "scripted", "scripted", 1, 150);
        assert!(r.tally.deliveries >= 2, "{name}: {} deliveries", r.tally.deliveries);
        assert!(!r.deadlocked(), "{name}");
        // Both players take part.
        for p in 0..2 {
            assert!(r.skill_events.iter().any(|e| e.player == p && e.outcome == SkillOutcome::Succeeded), "{name} {p}");
        }
    }
}

#[test]
fn hands_over_to_greedy_on_forced_coordination() {
    // Greedy on the right (player 0) cooks with what the scripted player 1 passes over.
    let r = play("forced_coordination", "greedy", "scripted", 2, 200);
    assert!(r.tally.deliveries >= 2, "{} deliveries", r.tally.deliveries);
}
