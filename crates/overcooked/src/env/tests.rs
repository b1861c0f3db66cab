use super::*;
use Action::{East as E, Interact as I, North as N, South as S, Stay as X, West as W};

/// A small kitchen used by most tests:
/// ```text
/// XOXPX      y=0
/// D 1 S      y=1   player 0 at (2,1)
/// X 2 P      y=2   player 1 at (2,2)
/// XXXXX      y=3
/// ```
fn kitchen() -> Layout {
    Layout::parse("t", "XOXPX\nD 1 S\nX 2 P\nXXXXX\n", "t").unwrap()
}

fn at(x: u8, y: u8) -> Pos {
    Pos::new(x, y)
}

fn place(l: &Layout, s: &mut State, p: Pos, o: Object) {
    let i = l.index(p).unwrap();
    s.objects[i] = Some(o);
}

fn soup(n: usize, tick: i16) -> Object {
    Object::Soup(Soup::with_ingredients(&vec![Ingredient::Onion; n], tick, 20).unwrap())
}

fn setup(p0: (Pos, Dir, Option<Object>), p1: (Pos, Dir, Option<Object>)) -> (Layout, State) {
    let l = kitchen();
    let mut s = l.start_state();
    s.players[0] = Player { pos: p0.0, dir: p0.1, held: p0.2 };
    s.players[1] = Player { pos: p1.0, dir: p1.1, held: p1.2 };
    (l, s)
}

#[test]
fn start_state_faces_north_with_no_objects() {
    let l = kitchen();
    let s = l.start_state();
    assert_eq!(s.players[0].pos, at(2, 1));
    assert_eq!(s.players[1].pos, at(2, 2));
    assert!(s.players.iter().all(|p| p.dir == Dir::North && p.held.is_none()));
    assert!(s.objects.iter().all(Option::is_none));
    assert_eq!(s.timestep, 0);
}

#[test]
fn take_onion_and_dish_from_dispensers() {
    // Player 0 at (1,1) faces the onion dispenser at (1,0); player 1 at (1,2) faces west... use dish at (0,1).
    let (l, mut s) = setup((at(1, 1), Dir::North, None), (at(3, 2), Dir::North, None));
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, Some(Object::ONION));
    assert_eq!(out.events[0], Some(Event::Dispense { kind: ObjKind::Onion, at: at(1, 0) }));
    // Holding something at a dispenser is a no-op.
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, Some(Object::ONION));
    assert_eq!(out.events[0], None);
    // Dish dispenser at (0,1).
    s.players[0] = Player { pos: at(1, 1), dir: Dir::West, held: None };
    l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, Some(Object::Dish));
}

#[test]
fn counter_drop_and_pickup() {
    let (l, mut s) = setup((at(1, 2), Dir::West, Some(Object::ONION)), (at(3, 1), Dir::North, None));
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, None);
    assert_eq!(s.object_at(&l, at(0, 2)), Some(&Object::ONION));
    assert_eq!(out.events[0], Some(Event::PlaceCounter { kind: ObjKind::Onion, at: at(0, 2) }));
    // Holding something at an occupied counter: no-op.
    s.players[0].held = Some(Object::Dish);
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, Some(Object::Dish));
    assert_eq!(out.events[0], None);
    // Empty hand picks it up.
    s.players[0].held = None;
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, Some(Object::ONION));
    assert_eq!(s.object_at(&l, at(0, 2)), None);
    assert_eq!(out.events[0], Some(Event::PickupCounter { kind: ObjKind::Onion, at: at(0, 2) }));
    // Empty hand at an empty counter: no-op.
    s.players[0].held = None;
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, None);
    assert_eq!(out.events[0], None);
}

#[test]
fn interacts_resolve_player_zero_first_on_a_shared_counter() {
    // Both face the counter (2,3)? Use (0,2): only one can face it. Build a kitchen where both face one counter.
    let l = Layout::parse("t", "XXXXX\nO1X2D\nX   X\nXPXSX\n", "t").unwrap();
    let mut s = l.start_state();
    s.players[0].dir = Dir::East;
    s.players[1].dir = Dir::West;
    s.objects[l.index(at(2, 1)).unwrap()] = Some(Object::ONION);
    l.step(&mut s, [I, I]);
    assert_eq!(s.players[0].held, Some(Object::ONION));
    assert_eq!(s.players[1].held, None);
    // Now player 0 drops it back while player 1 tries to take it in the same step: 0 first, so 1 takes it.
    l.step(&mut s, [I, I]);
    assert_eq!(s.players[0].held, None);
    assert_eq!(s.players[1].held, Some(Object::ONION));
}

#[test]
fn potting_cooking_timing_and_full_pot() {
    // Pot at (3,0); player 0 at (3,1) facing north.
    let (l, mut s) = setup((at(3, 1), Dir::North, Some(Object::ONION)), (at(1, 2), Dir::North, None));
    let pot = at(3, 0);
    let out = l.step(&mut s, [I, X]);
    assert_eq!(out.shaped_by_player, [PLACEMENT_IN_POT_REW, 0]);
    assert_eq!(out.events[0], Some(Event::Potting { kind: ObjKind::Onion, at: pot, count: 1 }));
    let sp = s.soup_at(&l, pot).unwrap();
    assert_eq!((sp.len(), sp.cooking_tick), (1, -1));
    for n in 2..=3 {
        s.players[0].held = Some(Object::ONION);
        l.step(&mut s, [I, X]);
        assert_eq!(s.soup_at(&l, pot).unwrap().len(), n);
    }
    // The step that adds the 3rd onion already shows tick 1.
    let sp = *s.soup_at(&l, pot).unwrap();
    assert_eq!(sp.cooking_tick, 1);
    assert!(sp.is_cooking() && !sp.is_ready());
    // An onion on a full pot is a no-op.
    s.players[0].held = Some(Object::ONION);
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, Some(Object::ONION));
    assert_eq!(out.shaped_by_player, [0, 0]);
    assert_eq!(s.soup_at(&l, pot).unwrap().cooking_tick, 2);
    // A dish on a cooking pot is a no-op.
    s.players[0].held = Some(Object::Dish);
    l.step(&mut s, [I, X]);
    assert_eq!(s.players[0].held, Some(Object::Dish));
    // Ready 19 steps after the 3rd onion (tick 20).
    while s.soup_at(&l, pot).unwrap().cooking_tick < 19 {
        l.step(&mut s, [X, X]);
    }
    assert!(!s.soup_at(&l, pot).unwrap().is_ready());
    l.step(&mut s, [X, X]);
    let sp = *s.soup_at(&l, pot).unwrap();
    assert!(sp.is_ready() && !sp.is_cooking() && sp.cooking_tick == 20);
    // Stays at 20.
    l.step(&mut s, [X, X]);
    assert_eq!(s.soup_at(&l, pot).unwrap().cooking_tick, 20);
    // Dish + ready pot → soup in hand, pot empty, +5 shaping.
    let out = l.step(&mut s, [I, X]);
    assert!(matches!(s.players[0].held, Some(Object::Soup(x)) if x.is_ready()));
    assert_eq!(s.soup_at(&l, pot), None);
    assert_eq!(out.shaped_by_player, [SOUP_PICKUP_REWARD, 0]);
    assert_eq!(out.events[0], Some(Event::PickupSoup { at: pot }));
}

#[test]
fn empty_hand_never_starts_a_pot() {
    let (l, mut s) = setup((at(3, 1), Dir::North, None), (at(1, 2), Dir::North, None));
    place(&l, &mut s, at(3, 0), soup(2, -1));
    let out = l.step(&mut s, [I, X]);
    assert_eq!(s.soup_at(&l, at(3, 0)).unwrap().cooking_tick, -1);
    assert_eq!(out.events, [None, None]);
}

#[test]
fn serving_pays_only_for_soup() {
    // Serving window at (4,1); player 0 at (3,1) facing east.
    let (l, mut s) = setup((at(3, 1), Dir::East, Some(soup(3, 20))), (at(1, 2), Dir::North, None));
    let out = l.step(&mut s, [I, X]);
    assert_eq!(out.reward, 20);
    assert_eq!(out.sparse_by_player, [20, 0]);
    assert_eq!(s.players[0].held, None);
    assert_eq!(out.events[0], Some(Event::Deliver { at: at(4, 1), reward: 20 }));
    // A dish or an onion at the window: no-op.
    for o in [Object::Dish, Object::ONION] {
        s.players[0].held = Some(o);
        let out = l.step(&mut s, [I, X]);
        assert_eq!((out.reward, s.players[0].held), (0, Some(o)));
    }
}

#[test]
fn soup_held_at_pot_and_onion_on_counter_soup_are_noops() {
    let (l, mut s) = setup((at(3, 1), Dir::North, Some(soup(3, 20))), (at(3, 2), Dir::East, None));
    place(&l, &mut s, at(3, 0), soup(1, -1));
    let before = s.clone();
    let out = l.step(&mut s, [I, X]);
    assert_eq!(out.events, [None, None]);
    assert_eq!(s.players[0].held, before.players[0].held);
    assert_eq!(s.soup_at(&l, at(3, 0)), before.soup_at(&l, at(3, 0)));
    // Player 1 faces the pot at (4,2) which is empty; a dish on an empty pot does nothing.
    s.players[1].held = Some(Object::Dish);
    let out = l.step(&mut s, [X, I]);
    assert_eq!(out.events[1], None);
    assert_eq!(s.soup_at(&l, at(4, 2)), None);
}

#[test]
fn dish_pickup_shaping_only_when_useful() {
    let (l, mut s) = setup((at(1, 1), Dir::West, None), (at(3, 1), Dir::North, None));
    // No non-empty pot: not useful.
    let out = l.step(&mut s, [I, X]);
    assert_eq!(out.shaped_by_player, [0, 0]);
    // One partly filled pot and no dish held: useful.
    s.players[0].held = None;
    place(&l, &mut s, at(3, 0), soup(1, -1));
    let out = l.step(&mut s, [I, X]);
    assert_eq!(out.shaped_by_player, [DISH_PICKUP_REWARD, 0]);
    // Player 1 already holds a dish for the only pot: not useful.
    s.players[0].held = None;
    s.players[1].held = Some(Object::Dish);
    let out = l.step(&mut s, [I, X]);
    assert_eq!(out.shaped_by_player, [0, 0]);
    // A dish on a counter blocks the bonus even with two pots.
    s.players[0].held = None;
    s.players[1].held = None;
    place(&l, &mut s, at(4, 2), soup(3, 5));
    place(&l, &mut s, at(0, 2), Object::Dish);
    let out = l.step(&mut s, [I, X]);
    assert_eq!(out.shaped_by_player, [0, 0]);
}

#[test]
fn moves_turn_even_when_blocked() {
    let (l, mut s) = setup((at(1, 1), Dir::South, None), (at(3, 2), Dir::North, None));
    l.step(&mut s, [N, X]); // into the onion dispenser: blocked, turns north
    assert_eq!((s.players[0].pos, s.players[0].dir), (at(1, 1), Dir::North));
    l.step(&mut s, [E, X]);
    assert_eq!((s.players[0].pos, s.players[0].dir), (at(2, 1), Dir::East));
    // Stay and interact keep the facing.
    l.step(&mut s, [X, I]);
    assert_eq!(s.players[0].dir, Dir::East);
    assert_eq!(s.players[1].dir, Dir::North);
}

#[test]
fn same_cell_collision_cancels_both_moves_but_turns() {
    // p0 at (1,2), p1 at (3,2); both move into (2,2).
    let (l, mut s) = setup((at(1, 2), Dir::North, None), (at(3, 2), Dir::North, None));
    l.step(&mut s, [E, W]);
    assert_eq!((s.players[0].pos, s.players[1].pos), (at(1, 2), at(3, 2)));
    assert_eq!((s.players[0].dir, s.players[1].dir), (Dir::East, Dir::West));
}

#[test]
fn moving_into_a_staying_player_is_a_collision() {
    let (l, mut s) = setup((at(1, 2), Dir::North, None), (at(2, 2), Dir::North, None));
    l.step(&mut s, [E, X]);
    assert_eq!((s.players[0].pos, s.players[1].pos), (at(1, 2), at(2, 2)));
    assert_eq!(s.players[0].dir, Dir::East);
    // Interacting counts as staying, too.
    l.step(&mut s, [E, I]);
    assert_eq!(s.players[0].pos, at(1, 2));
}

#[test]
fn swap_collision_cancels_both_moves() {
    let (l, mut s) = setup((at(1, 2), Dir::North, None), (at(2, 2), Dir::North, None));
    l.step(&mut s, [E, W]);
    assert_eq!((s.players[0].pos, s.players[1].pos), (at(1, 2), at(2, 2)));
    assert_eq!((s.players[0].dir, s.players[1].dir), (Dir::East, Dir::West));
}

#[test]
fn following_is_allowed() {
    let (l, mut s) = setup((at(1, 2), Dir::North, None), (at(2, 2), Dir::North, None));
    l.step(&mut s, [E, E]);
    assert_eq!((s.players[0].pos, s.players[1].pos), (at(2, 2), at(3, 2)));
}

#[test]
fn a_blocked_mover_cancels_nothing_else() {
    // p0 walks into a counter (stays in place); p1 moving into p0's cell collides.
    let (l, mut s) = setup((at(1, 2), Dir::North, None), (at(2, 2), Dir::North, None));
    l.step(&mut s, [W, W]);
    assert_eq!((s.players[0].pos, s.players[1].pos), (at(1, 2), at(2, 2)));
    assert_eq!((s.players[0].dir, s.players[1].dir), (Dir::West, Dir::West));
}

#[test]
fn interacts_use_pre_move_positions() {
    // p0 interacts with the dispenser while p1 moves; p0 also cannot both move and interact.
    let (l, mut s) = setup((at(1, 1), Dir::North, None), (at(2, 2), Dir::North, None));
    l.step(&mut s, [I, W]);
    assert_eq!(s.players[0].held, Some(Object::ONION));
    assert_eq!(s.players[1].pos, at(1, 2));
}

#[test]
fn timestep_and_horizon() {
    let l = std::sync::Arc::new(kitchen());
    let mut env = Env::new(l, 3);
    for _ in 0..3 {
        assert!(!env.is_done());
        env.step([X, X]);
    }
    assert!(env.is_done());
    assert_eq!(env.state.timestep, 3);
    env.reset();
    assert_eq!(env.state.timestep, 0);
}

#[test]
fn custom_rules_are_honoured() {
    let text = r#"{
        "grid": """XXPXX
                   O  2O
                   X1  X
                   XDXSX""",
        "cook_time": 5, "delivery_reward": 7, "num_items_for_soup": 2,
        "rew_shaping_params": None, "unknown_key": [1, (2, 3)]
    }"#;
    let l = Layout::parse("c", text, "c.layout").unwrap();
    assert_eq!(l.rules.num_items, 2);
    let mut s = l.start_state();
    s.players[0] = Player { pos: at(2, 1), dir: Dir::North, held: Some(Object::ONION) };
    l.step(&mut s, [I, X]);
    s.players[0].held = Some(Object::ONION);
    l.step(&mut s, [I, X]);
    let sp = *s.soup_at(&l, at(2, 0)).unwrap();
    assert_eq!((sp.len(), sp.cooking_tick, sp.cook_time), (2, 1, 5));
    for _ in 0..4 {
        l.step(&mut s, [X, X]);
    }
    assert!(s.soup_at(&l, at(2, 0)).unwrap().is_ready());
    let sp = *s.soup_at(&l, at(2, 0)).unwrap();
    assert_eq!(l.rules.value_of(&sp), 7);
}

#[test]
fn recipe_lists_and_orders() {
    let text = r#"{"grid": "XXPXX\nO  2O\nX1  X\nXDXSX",
        "start_all_orders": [{"ingredients": ["onion", "onion", "onion"]}, {"ingredients": ["onion"]}],
        "recipe_values": [30, 5], "recipe_times": [10, 2]}"#;
    let l = Layout::parse("c", text, "c.layout").unwrap();
    let three = Soup::with_ingredients(&[Ingredient::Onion; 3], 20, 10).unwrap();
    let one = Soup::with_ingredients(&[Ingredient::Onion], 20, 2).unwrap();
    let two = Soup::with_ingredients(&[Ingredient::Onion; 2], 20, 20).unwrap();
    assert_eq!(l.rules.value_of(&three), 30);
    assert_eq!(l.rules.value_of(&one), 5);
    assert_eq!(l.rules.value_of(&two), 0, "not an order");
    assert_eq!(l.rules.cook_time_of(&three), 10);
    assert_eq!(l.rules.cook_time_of(&one), 2);
}

#[test]
fn builtin_layouts_and_aliases() {
    for (name, _) in layout::BUILTIN {
        let l = Layout::builtin(name).unwrap_or_else(|| panic!("{name} must parse"));
        assert_eq!(l.rules.orders.len(), 1);
        assert_eq!(l.rules.value_of(&Soup::with_ingredients(&[Ingredient::Onion; 3], 20, 20).unwrap()), 20);
    }
    assert_eq!(Layout::builtin("random0").unwrap().name, "forced_coordination");
    assert_eq!(Layout::builtin("random3").unwrap().name, "counter_circuit");
    assert_eq!(Layout::builtin("simple").unwrap().name, "cramped_room");
    assert_eq!(Layout::builtin("unident_s").unwrap().name, "asymmetric_advantages");
    assert_eq!(Layout::builtin("random1").unwrap().name, "coordination_ring");
    assert!(Layout::builtin("nope").is_none());
    let cc = Layout::builtin("counter_circuit").unwrap();
    assert_eq!((cc.width, cc.height, cc.starts), (8, 5, [at(3, 3), at(3, 1)]));
    assert_eq!(cc.pots, vec![at(3, 0), at(4, 0)]);
}

fn err_of(text: &str) -> LayoutError {
    Layout::parse("bad", text, "bad.layout").expect_err("must fail")
}

#[test]
fn bad_layouts_name_line_and_column() {
    let e = err_of("XXPXX\nO  2O\nX1 X\nXDXSX\n");
    assert_eq!((e.line, e.column), (3, 5));
    assert!(e.message.contains("ragged"), "{e}");
    let e = err_of("XXPXX\nO  2O\nX1 QX\nXDXSX\n");
    assert_eq!((e.line, e.column), (3, 4));
    assert!(e.message.contains("unknown tile 'Q'"), "{e}");
    let e = err_of("XXPXX\nO  2O\nX1 1X\nXDXSX\n");
    assert_eq!((e.line, e.column), (3, 4));
    assert!(e.message.contains("duplicate start"), "{e}");
    let e = err_of("XXPXX\nO   O\nX1  X\nXDXSX\n");
    assert!(e.message.contains("missing start for player 1"), "{e}");
    let e = err_of("XXXXX\nO  2O\nX1  X\nXDXSX\n");
    assert!(e.message.contains("no pot"), "{e}");
    let e = err_of("XXPXX\nO  2O\nX1  X\nXDXXX\n");
    assert!(e.message.contains("no serving"), "{e}");
    let e = err_of("XXPXX\nX  2X\nX1  X\nXDXSX\n");
    assert!(e.message.contains("no onion"), "{e}");
    let e = err_of("XXPXX\nO  2O\nX1  X\nXXXSX\n");
    assert!(e.message.contains("no dish"), "{e}");
    assert_eq!(e.source_name, "bad.layout");
}

#[test]
fn bad_layout_dicts_name_line_and_column() {
    // Unbalanced triple quotes.
    let e = err_of("{\n  \"grid\": \"\"\"XXPXX\n   O  2O\n");
    assert_eq!((e.line, e.column), (2, 11));
    assert!(e.message.contains("unterminated string"), "{e}");
    // Unknown tile inside a triple-quoted grid: position in the file.
    let e =
        err_of("{\n  \"grid\": \"\"\"XXPXX\n              O  2Z\n              X1  X\n              XDXSX\"\"\"\n}\n");
    assert_eq!((e.line, e.column), (3, 19), "{e}");
    // Missing bracket.
    let e = err_of("{\"grid\": \"XXPXX\", \"cook_time\": [1, 2\n");
    assert!(e.message.contains("unclosed"), "{e}");
    // Wrong types and lengths.
    let e = err_of("{\"grid\": \"XXPXX\\nO  2O\\nX1  X\\nXDXSX\", \"cook_time\": \"soon\"}");
    assert!(e.message.contains("cook_time"), "{e}");
    let e = err_of("{\"grid\": \"XXPXX\\nO  2O\\nX1  X\\nXDXSX\", \"recipe_values\": [1, 2]}");
    assert!(e.message.contains("recipe_values"), "{e}");
    let e = err_of("{\"cook_time\": 3}");
    assert!(e.message.contains("no `grid`"), "{e}");
    let e = err_of("[1, 2]");
    assert!(e.message.contains("must be a dict") || e.message.contains("unknown tile"), "{e}");
    let e = err_of("{\"grid\": \"XXPXX\", \"grid\": \"XX\"}");
    assert!(e.message.contains("duplicate key"), "{e}");
    let e = err_of("{\"grid\": os.system('x')}");
    assert!(e.message.contains("unsupported name"), "{e}");
}

/// A square kitchen of `side` cells with a counter border.
fn square(side: usize) -> String {
    let mut rows = vec![format!("XPSOD{}", "X".repeat(side - 5))];
    rows.push(format!("X12{}X", " ".repeat(side - 4)));
    for _ in 2..side - 1 {
        rows.push(format!("X{}X", " ".repeat(side - 2)));
    }
    rows.push("X".repeat(side));
    rows.join("\n")
}

#[test]
fn layout_limits_hold_at_their_edges() {
    let l = Layout::parse("edge", &square(layout::MAX_LAYOUT_SIDE), "edge").unwrap();
    assert_eq!((l.width, l.height), (32, 32));
    let e = err_of(&square(layout::MAX_LAYOUT_SIDE + 1));
    assert_eq!((e.line, e.column), (1, 1));
    assert_eq!(e.message, "the grid is 33 wide and 33 high; layouts may be at most 32 x 32 (see docs/limits.md)");
    // Nesting: the dict plus 31 lists is the deepest allowed; one more is an error at its bracket.
    let nested = |n: usize| format!("{{'grid': 'X', 'x': {}{}}}", "[".repeat(n), "]".repeat(n));
    let e = err_of(&nested(layout::MAX_NESTING - 1));
    assert!(e.message.contains("unknown tile") || e.message.contains("missing start"), "{e}");
    let e = err_of(&nested(layout::MAX_NESTING));
    assert_eq!((e.line, e.column), (1, 19 + layout::MAX_NESTING), "the 32nd list, inside the dict");
    assert!(e.message.contains("brackets nested more than 32 deep"), "{e}");
    // Text beyond the size limit is refused before it is read.
    let e = err_of(&" ".repeat(layout::MAX_LAYOUT_TEXT_BYTES + 1));
    assert!(e.message.contains("layouts may be at most 1048576 bytes"), "{e}");
}

#[test]
fn parsing_arbitrary_bytes_never_panics() {
    // A cheap deterministic fuzz over truncations and mutations of a real file.
    let text = layout::BUILTIN[0].1;
    let chars: Vec<char> = text.chars().collect();
    for cut in 0..chars.len() {
        let s: String = chars[..cut].iter().collect();
        let _ = Layout::parse("f", &s, "f");
    }
    let junk = ['"', '\'', '{', '}', '[', ']', '(', ')', ',', ':', '\n', 'Z', '1', '2', '-', '\\'];
    for (i, j) in (0..chars.len()).zip(junk.iter().cycle()) {
        let mut c = chars.clone();
        c[i] = *j;
        let s: String = c.iter().collect();
        let _ = Layout::parse("f", &s, "f");
    }
}

#[test]
fn step_does_not_allocate_and_is_deterministic() {
    // Same actions from the same state give the same states (no hidden randomness).
    let l = Layout::builtin("cramped_room").unwrap();
    let mut a = l.start_state();
    let mut b = l.start_state();
    let seq = [I, W, N, I, E, S, I, X, I, I, N, W, E];
    for k in 0..400 {
        let j = [seq[k % seq.len()], seq[(k * 7 + 3) % seq.len()]];
        let oa = l.step(&mut a, j);
        let ob = l.step(&mut b, j);
        assert_eq!(oa, ob);
        assert_eq!(a, b);
    }
    let cap = a.objects.capacity();
    l.step(&mut a, [I, I]);
    assert_eq!(a.objects.capacity(), cap);
}

#[test]
fn render_shows_players_objects_and_pots() {
    let (l, mut s) = setup((at(3, 1), Dir::North, Some(Object::ONION)), (at(1, 2), Dir::West, Some(Object::Dish)));
    place(&l, &mut s, at(3, 0), soup(3, 7));
    place(&l, &mut s, at(0, 2), Object::ONION);
    let text = render::render(&l, &s);
    assert!(text.contains("↑0o"), "{text}");
    assert!(text.contains("←1d"), "{text}");
    assert!(text.contains("P{øøø 7}"), "{text}");
    assert!(text.contains("Xo"), "{text}");
    assert!(text.ends_with("t=0\n"));
}
