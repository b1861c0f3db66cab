use super::trace::{parse_v2_trace_file, verify};
use super::*;
use rand::SeedableRng;

fn grid(rows: &[&str], recipes: &str) -> Layout {
    let text = format!("name: t\nrecipes: {recipes}\ngrid:\n{}\n", rows.join("\n"));
    Layout::parse(&text, "test").unwrap()
}

/// Always draws index `k`.
struct Fixed(usize);
impl Chance for Fixed {
    fn pick(&mut self, n: usize) -> usize {
        self.0.min(n - 1)
    }
}

#[test]
fn builtin_layouts_parse_and_round_trip() {
    let names: Vec<&str> = Layout::builtin_names().collect();
    assert_eq!(names.len(), 23);
    for name in names {
        let l = Layout::builtin(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(l.name, name);
        assert!(!l.recipes.is_empty());
        let back = Layout::parse(&l.to_text(), "round trip").unwrap();
        assert_eq!(back, l, "{name}");
    }
    let l = Layout::builtin("cramped_room").unwrap();
    assert_eq!(
        l.starts,
        vec![proagent_overcooked::env::Pos::new(3, 1), proagent_overcooked::env::Pos::new(1, 1)],
        "swapped agents"
    );
    assert_eq!(Layout::builtin("long_room").unwrap().num_agents(), 1);
    assert_eq!(Layout::builtin("cramped_room_v2").unwrap().recipes.len(), 4);
}

#[test]
fn bad_layouts_name_the_line() {
    let cases: &[(&str, &str)] = &[
        ("recipes: any\ngrid:\nWWPWW\n0A A1\nWBWXW\n", "needs a recipe indicator"),
        ("recipes: 0 0\ngrid:\nWWPWW\nWA AW\nW0BXW\n", "has 2 ingredients"),
        ("recipes: 0 0 3\ngrid:\nWWPWW\nWA AW\nW0BXW\n", "has no pile"),
        ("recipes: 0 0 0\ngrid:\nWWPWW\n A AW\nW0BXW\n", "floor on the border"),
        ("recipes: 0 0 0\ngrid:\nWWPWW\nWA AW\nW0BX\n", "has 4 cells"),
        ("recipes: 0 0 0\ngrid:\nWWPWW\nWAZAW\nW0BXW\n", "unknown grid character 'Z'"),
        ("recipes: 0 0 0\ngrid:\nWWPWW\nW   W\nW0BXW\n", "no agent start"),
        ("colour: red\n", "unknown key"),
        ("recipes: 0 0 0\n", "no `grid:`"),
        ("recipes: 0 0 0\nagent_order: sideways\ngrid:\nWWPWW\nWA AW\nW0BXW\n", "agent_order"),
    ];
    for (text, want) in cases {
        let e = Layout::parse(text, "bad.layout").unwrap_err();
        assert!(e.to_string().contains(want), "{text:?}: {e}");
        assert!(e.to_string().starts_with("bad.layout:"), "{e}");
    }
    let named =
        Layout::parse("recipes: onion onion tomato\ningredients: onion, tomato\ngrid:\nWWPWW\n0A A1\nWBWXW\n", "x")
            .unwrap();
    assert_eq!(named.recipes, vec![Recipe([0, 0, 1])]);
}

#[test]
fn recipe_loop_with_auto_start_and_rewards() {
    // Agent 0 at (1,1) under the pot (1,0); the onion pile is west of it, the goal east of agent 1.
    let l = grid(&["WPWWW", "0A AX", "WBWWW"], "0 0 0");
    let s0 = Settings { negative_rewards: true, ..Settings::default() };
    let mut st = l.start_state(&s0, &mut Fixed(0));
    use proagent_overcooked::env::Action::*;
    let go = |st: &mut State, a0, a1| l.step(&s0, st, &[a0, a1], &mut Fixed(0));
    for _ in 0..3 {
        go(&mut st, West, Stay); // face the pile
        let o = go(&mut st, Interact, Stay);
        assert!(matches!(o.events[0], Some(Event::TakeFromPile { .. })));
        go(&mut st, North, Stay);
        let o = go(&mut st, Interact, Stay);
        assert_eq!(o.shaped[0], SHAPED_POTTING);
    }
    let pot = proagent_overcooked::env::Pos::new(1, 0);
    assert!(matches!(st.pot(&l, pot), PotPhase::Cooking { left: 19, .. }), "{:?}", st.pot(&l, pot));
    go(&mut st, South, Stay);
    let o = go(&mut st, Interact, Stay);
    assert_eq!(
        o.events[0],
        Some(Event::TakeFromPile { item: Item::PLATE, at: proagent_overcooked::env::Pos::new(1, 2) })
    );
    assert_eq!(o.shaped[0], SHAPED_PLATE, "a plate while a pot cooks");
    go(&mut st, North, Stay);
    for _ in 0..16 {
        assert_eq!(go(&mut st, Interact, Stay).events[0], None, "cooking pots ignore plates");
    }
    let o = go(&mut st, Interact, Stay);
    assert!(matches!(o.events[0], Some(Event::PlateSoup { .. })), "{:?} {:?}", o, st.pot(&l, pot));
    assert_eq!(o.shaped[0], SHAPED_DISH);
    // Agent 1 is at (3,1); agent 0 walks east into it: blocked (same cell).
    let o = go(&mut st, East, Stay);
    assert_eq!(st.agents[0].pos, proagent_overcooked::env::Pos::new(2, 1));
    assert_eq!(o.reward, 0);
    go(&mut st, East, East);
    assert_eq!(
        st.agents[0].pos,
        proagent_overcooked::env::Pos::new(2, 1),
        "blocked by agent 1, who cannot move into the goal"
    );
    // Hand the dish over: agent 1 cannot reach it; instead agent 0 and 1 swap attempts fail.
    go(&mut st, East, West);
    assert_eq!(st.agents[0].pos, proagent_overcooked::env::Pos::new(2, 1), "no swapping");
    assert_eq!(st.agents[1].pos, proagent_overcooked::env::Pos::new(3, 1));
}

#[test]
fn wrong_dish_button_and_resampling() {
    let l = grid(&["WWPWW", "0A AX", "WLW1W", "WWBWW"], "0 0 0; 1 1 1");
    // Agent 1 at (3,1): goal east. Agent 0 at (1,1).
    let s = Settings { negative_rewards: true, sample_recipe_on_delivery: true, ..Settings::default() };
    let mut st = l.start_state(&s, &mut Fixed(0));
    assert_eq!(st.recipe, Recipe([0, 0, 0]));
    st.agents[1].held = Recipe([1, 1, 1]).dish();
    st.agents[1].dir = proagent_overcooked::env::Dir::East;
    use proagent_overcooked::env::Action::*;
    let o = l.step(&s, &mut st, &[Stay, Interact], &mut Fixed(1));
    assert_eq!(o.reward, -DELIVERY_REWARD);
    assert_eq!((o.correct_deliveries, o.wrong_deliveries, o.drawn), (0, 1, None));
    st.agents[1].held = Recipe([0, 0, 0]).dish();
    let o = l.step(&s, &mut st, &[Stay, Interact], &mut Fixed(1));
    assert_eq!(o.reward, DELIVERY_REWARD);
    assert_eq!(o.drawn, Some(1));
    assert_eq!(st.recipe, Recipe([1, 1, 1]));
    assert!(st.new_correct_delivery);
    // The button (1,2) south of agent 0: pressing costs 5 and lights it for 10 steps, counted down at once.
    let o = l.step(&s, &mut st, &[South, Stay], &mut Fixed(0));
    assert_eq!(o.reward, 0);
    assert!(!st.new_correct_delivery);
    let b = proagent_overcooked::env::Pos::new(1, 2);
    assert!(!st.shows_recipe_at(&l, b));
    let o = l.step(&s, &mut st, &[Interact, Stay], &mut Fixed(0));
    assert_eq!(o.reward, -BUTTON_COST);
    assert_eq!(st.timer_at(&l, b), BUTTON_TIME - 1);
    for _ in 0..9 {
        assert!(st.shows_recipe_at(&l, b));
        l.step(&s, &mut st, &[Stay, Stay], &mut Fixed(0));
    }
    assert!(!st.shows_recipe_at(&l, b));
}

#[test]
fn pots_started_by_interaction() {
    let l = grid(&["WWPWW", "0A AW", "WBWXW"], "0 0 0");
    let s = Settings { start_cooking_interaction: true, ..Settings::default() };
    let mut st = l.start_state(&s, &mut Fixed(0));
    use proagent_overcooked::env::Action::*;
    st.agents[0].pos = proagent_overcooked::env::Pos::new(2, 1);
    st.agents[0].dir = proagent_overcooked::env::Dir::North;
    st.agents[0].held = Item::ingredient(0);
    let o = l.step(&s, &mut st, &[Interact, Stay], &mut Fixed(0));
    assert_eq!(
        o.events[0],
        Some(Event::AddToPot { kind: 0, at: proagent_overcooked::env::Pos::new(2, 0), count: 1, started: false })
    );
    let o = l.step(&s, &mut st, &[Interact, Stay], &mut Fixed(0));
    assert_eq!(o.events[0], Some(Event::StartCooking { at: proagent_overcooked::env::Pos::new(2, 0) }));
    assert_eq!(o.shaped[0], 0, "one onion is not the recipe");
    assert!(matches!(st.pot(&l, proagent_overcooked::env::Pos::new(2, 0)), PotPhase::Cooking { left: 19, .. }));
}

#[test]
fn random_starts_stay_in_their_room_and_are_seeded() {
    let l = Layout::builtin("two_rooms").unwrap();
    let s = Settings { random_agent_positions: true, ..Settings::default() };
    for seed in 0..20 {
        let a = l.start_state(&s, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let b = l.start_state(&s, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        assert_eq!(a, b);
        for (i, ag) in a.agents.iter().enumerate() {
            assert_eq!(l.room_of(ag.pos), l.room_of(l.starts[i]));
        }
        assert_ne!(a.agents[0].pos, a.agents[1].pos);
    }
}

#[test]
fn view_window_hides_far_cells_in_the_tensor() {
    let l = Layout::builtin("grounded_coord_ring").unwrap();
    let full = Settings::default();
    let near = Settings { view_radius: Some(1), ..Settings::default() };
    let st = l.start_state(&full, &mut Fixed(0));
    let mut buf = Vec::new();
    obs::encode(&l, &full, &st, 0, &mut buf);
    assert_eq!(buf.len(), 9 * 9 * obs::channels(&l, &full));
    obs::encode(&l, &near, &st, 0, &mut buf);
    assert_eq!(buf.len(), 3 * 3 * obs::channels(&l, &near));
    let me = st.agents[0].pos;
    assert!(obs::visible(&near, me, proagent_overcooked::env::Pos::new(me.x + 1, me.y + 1)));
    assert!(!obs::visible(&near, me, proagent_overcooked::env::Pos::new(me.x + 2, me.y)));
    assert!(obs::visible(&full, me, proagent_overcooked::env::Pos::new(0, 0)));
}

#[test]
fn committed_reference_traces_match() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/v2_traces");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    files.sort();
    assert_eq!(files.len(), 23, "one trace file per JaxMARL layout");
    let (mut trajs, mut steps) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(trace::is_v2_trace(&text));
        for traj in parse_v2_trace_file(&text).unwrap() {
            let r = verify(&traj);
            assert!(r.passed, "{}:{} {:?}", f.display(), traj.line, r.divergence);
            trajs += 1;
            steps += r.steps_matched;
        }
    }
    assert_eq!(trajs, 46);
    assert!(steps >= 46 * 200, "{steps}");
}

#[test]
fn a_changed_trace_diverges_at_the_right_step() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/v2_traces/cramped_room_v2.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut trajs = parse_v2_trace_file(&text).unwrap();
    let traj = &mut trajs[1];
    traj.steps[7].reward += 1;
    let r = verify(traj);
    assert!(!r.passed);
    let d = r.divergence.unwrap();
    assert_eq!((d.t, d.field.as_str()), (Some(7), "reward"));
    assert_eq!(r.steps_matched, 7);
    let mut trajs = parse_v2_trace_file(&text).unwrap();
    let traj = &mut trajs[0];
    traj.steps[3].obs[1] = "0000000000000000".into();
    let d = verify(traj).divergence.unwrap();
    assert_eq!((d.t, d.field.as_str()), (Some(3), "obs"));
    let traj = &mut trajs[1];
    traj.steps[2].state.agents[0][3] = 4;
    let d = verify(traj).divergence.unwrap();
    assert_eq!((d.t, d.field.as_str()), (Some(2), "state"));
    let bad = text.replacen("\"kind\":\"step\"", "\"kind\":\"stpe\"", 1);
    let e = parse_v2_trace_file(&bad).unwrap_err().to_string();
    assert!(e.starts_with("line 2:"), "{e}");
}
