use super::readers::{FileKind, detect, read, read_human, read_reference};
use super::symbolic::{ActionKind, Fate, diff_events, transition_events};
use super::*;
use proagent_overcooked::env::{Action, Layout, ObjKind};

/// Two kitchens split by a middle counter column (3,1)-(3,2) that both players reach:
/// player 0 (left) has the onions and dishes, player 1 (right) the serving window.
/// ```text
/// XXXXXXX      SPLIT: the pot (6,1) is on the right only
/// O 1X2 P
/// D  X  S
/// XXXXXXX
///
/// XPXXXPX      TWO_POTS: one pot per side, (1,0) left and (5,0) right
/// O 1X2 X
/// D  X  S
/// XXXXXXX
/// ```
const SPLIT: &str = "XXXXXXX\nO 1X2 P\nD  X  S\nXXXXXXX\n";
const TWO_POTS: &str = "XPXXXPX\nO 1X2 X\nD  X  S\nXXXXXXX\n";

fn layout(grid: &str) -> Layout {
    Layout::parse("test", grid, "test").unwrap()
}

/// A trajectory from one action string per player (letters N S E W X I; spaces are
/// ignored; the shorter string is padded with X).
fn script(l: &Layout, p0: &str, p1: &str) -> Trajectory {
    let parse = |s: &str| -> Vec<Action> {
        s.chars().filter(|c| !c.is_whitespace()).map(|c| Action::from_letter(c).unwrap()).collect()
    };
    let (a, b) = (parse(p0), parse(p1));
    let n = a.len().max(b.len());
    let joint: Vec<[Action; 2]> = (0..n)
        .map(|k| [a.get(k).copied().unwrap_or(Action::Stay), b.get(k).copied().unwrap_or(Action::Stay)])
        .collect();
    Trajectory::from_actions("script", l.clone(), l.start_state(), joint)
}

fn totals(r: &Report) -> (u32, u32) {
    (r.constructive, r.non_constructive)
}

#[test]
fn hand_over_that_ends_in_a_delivery() {
    // On SPLIT, player 0 passes three onions and a dish over the counter; player 1 pots
    // the onions, plates the soup and serves it.
    //   onion 1..3: p0 place (3,1) -> p1 pick (3,1)   3 links, each onion is in the
    //                                                  delivered soup, nobody held it
    //                                                  twice -> 3 constructive
    //   dish:       p0 place (3,2) -> p1 pick (3,2)   1 constructive (the dish carries
    //                                                  the delivered soup)
    //   pot:        p1 potted and p1 plated           no link
    // => constructive 4, non-constructive 0; p0 triggered 4 (all on the shared counter),
    //    accepted 4; p1's pottings are not triggers (p0 cannot reach the pot).
    let l = layout(SPLIT);
    let onion_p0 = "WIEI XXXX ";
    let onion_p1 = "XXXX WIEI ";
    let p0 = format!("{onion_p0}{onion_p0}{onion_p0} WSWIEI");
    let p1 = format!("{onion_p1}{onion_p1}{onion_p1} XXXXXX SWI NEE {} I SEI", "X".repeat(20));
    let traj = script(&l, &p0, &p1);
    let r = analyze(&traj).unwrap();
    assert_eq!(r.deliveries, 1);
    assert_eq!(r.reward, 20);
    assert_eq!(totals(&r), (4, 0));
    assert_eq!(r.links["onion_counter"], LinkCounts { constructive: 3, non_constructive: 0 });
    assert_eq!(r.links["dish_counter"], LinkCounts { constructive: 1, non_constructive: 0 });
    assert_eq!(r.pot_links, LinkCounts::default());
    assert_eq!((r.players[0].triggered, r.players[0].accepted, r.players[0].accepted_constructive), (4, 4, 4));
    assert_eq!((r.players[1].triggered, r.players[1].accepted), (0, 0));
    assert_eq!((r.players[0].given_constructive, r.players[1].received_constructive), (4, 4));
    assert!(r.interdependencies.iter().all(|d| d.giver == 0 && d.receiver == 1 && d.t_receive > d.t_give));
    // Identities: the soup holds the three handed-over onions and the handed-over dish.
    let soup = r.trace.objects.iter().find(|o| o.kind == ObjKind::Soup).unwrap();
    assert_eq!(soup.ingredients.len(), 3);
    assert!(matches!(soup.fate, Fate::Delivered { player: 1, .. }));
    let linked: Vec<u32> = r.interdependencies.iter().map(|d| d.obj).collect();
    for o in &soup.ingredients {
        assert!(linked.contains(o));
    }
    assert!(linked.contains(&soup.dish.unwrap()));
    assert_eq!((r.trace.simulated_steps, r.trace.diffed_steps, r.trace.repairs), (traj.joint_actions.len(), 0, 0));
    let m = metrics_json(&r);
    assert_eq!(m["constructive"], 4);
    assert_eq!(m["players"][0]["accepted_share"], 1.0);
    assert_eq!(m["constructive_per_soup"], 4.0);
    assert!(m["players"][0].get("actions").is_none(), "play --json lines stay as they were");
    // Who does what (`analyze --json` only): p0 fetches and hands over, p1 pots, plates and serves.
    let j = report_json(&r, false);
    let p0 = json!({"pick-from-dispenser onion": 3, "place-on-counter onion": 3,
                    "pick-from-dispenser dish": 1, "place-on-counter dish": 1});
    let p1 = json!({"pick-from-counter onion": 3, "put-in-pot onion": 3, "pick-from-counter dish": 1,
                    "pick-up-soup soup": 1, "deliver soup": 1});
    assert_eq!((&j["players"][0]["actions"], &j["players"][1]["actions"]), (&p0, &p1));
    assert_eq!(j["players"][0]["triggered"], 4);
}

#[test]
fn hand_over_that_loops_back_to_the_giver() {
    // On TWO_POTS, player 0 hands onion o1 to player 1, who puts it straight back; player 0
    // takes it again, cooks it with two more onions in its own pot, plates the soup and
    // hands the soup to player 1, who serves it.
    //   L1 o1: p0 place -> p1 pick    o1 is delivered (goal-reaching) but p0 holds it
    //                                  again later: looping -> non-constructive
    //   L2 o1: p1 place -> p0 pick    p0 held o1 before: looping -> non-constructive
    //   L3 soup: p0 place -> p1 pick  delivered, no loop -> constructive
    // => constructive 1, non-constructive 2. Triggers: p0 2 (o1 and the soup on the
    //    shared counter; its own pot is out of p1's reach), both accepted, one of them
    //    constructively; p1 1 (o1 put back), accepted, not constructively.
    let l = layout(TWO_POTS);
    let p0 = format!("WIEI XXX IWNI WINI WINI SWIN {} I EI", "X".repeat(20));
    let p1_wait = "X".repeat(4 + 3 + 4 + 4 + 4 + 4 + 20 + 1 + 2);
    let p1 = format!("XXXX WII {} ISEEI", &p1_wait[7..]);
    let r = analyze(&script(&l, &p0, &p1)).unwrap();
    assert_eq!(r.deliveries, 1);
    assert_eq!(totals(&r), (1, 2));
    let onion_links: Vec<&Interdependence> =
        r.interdependencies.iter().filter(|d| d.link == LinkKind::OnionCounter).collect();
    assert_eq!(onion_links.len(), 2);
    assert!(onion_links.iter().all(|d| d.goal_reaching && !d.non_looping));
    assert_eq!((onion_links[0].giver, onion_links[1].giver), (0, 1));
    assert_eq!(onion_links[0].obj, onion_links[1].obj);
    assert_eq!(r.links["soup_counter"], LinkCounts { constructive: 1, non_constructive: 0 });
    assert_eq!((r.players[0].triggered, r.players[0].accepted, r.players[0].accepted_constructive), (2, 2, 1));
    assert_eq!((r.players[1].triggered, r.players[1].accepted, r.players[1].accepted_constructive), (1, 1, 0));
}

#[test]
fn trigger_that_is_never_used() {
    // Player 0 leaves an onion on the shared counter (3,1), and another on its own back
    // counter (1,0), which player 1 cannot reach; player 1 never touches either.
    // => 1 trigger (the back counter is no trigger), 0 accepted, no interdependence.
    let l = layout(SPLIT);
    let r = analyze(&script(&l, "WIEI WINI XX", "")).unwrap();
    assert_eq!(r.trace.actions.iter().filter(|a| a.kind == ActionKind::PlaceOnCounter).count(), 2);
    assert_eq!(totals(&r), (0, 0));
    assert_eq!((r.players[0].triggered, r.players[0].accepted), (1, 0));
    assert_eq!(r.players[0].accepted_share(), Some(0.0));
    assert_eq!(r.players[1].accepted_share(), None);
    let onion = &r.trace.objects[0];
    assert_eq!((onion.kind, onion.fate), (ObjKind::Onion, Fate::InPlay));
    assert_eq!(r.constructive_per_soup(), None);
}

#[test]
fn used_but_never_delivered_is_non_constructive() {
    // Player 1 takes the onion and pots it, but no soup is ever served.
    // => 1 interdependence, non-looping but not goal-reaching -> non-constructive.
    let l = layout(SPLIT);
    let r = analyze(&script(&l, "WIEI", "XXXX WIEI")).unwrap();
    assert_eq!(totals(&r), (0, 1));
    let d = &r.interdependencies[0];
    assert!(d.non_looping && !d.goal_reaching);
    assert_eq!((r.players[0].accepted, r.players[0].accepted_constructive), (1, 0));
}

#[test]
fn counter_used_by_both_in_the_same_step() {
    // Interacts run player 0 then player 1 within a step, so a drop and a pick-up of the
    // same counter in one joint action is a hand-over with k = 0.
    let l = layout(SPLIT);
    let r = analyze(&script(&l, "WIE I", "XXW I")).unwrap();
    assert_eq!(r.interdependencies.len(), 1);
    let d = &r.interdependencies[0];
    assert_eq!((d.giver, d.receiver, d.t_give, d.t_receive), (0, 1, 3, 3));
    assert!(d.give < d.receive);
}

#[test]
fn onions_potted_by_one_and_plated_by_the_other_are_indirect_pot_links() {
    // cramped_room: player 0 pots three onions, player 1 fetches a dish, plates the soup
    // and serves it. Nothing crosses a counter, so there is no direct interdependence and
    // no trigger (soup-ready comes from the cooking clock, not from p0's pottings); the
    // shared pot shows as 3 indirect pot links, goal-reaching since the soup is served.
    let l = Layout::builtin("cramped_room").unwrap();
    let p0 = "NWIENI WIENI WIENI W";
    let p1 = format!("XXXXXX XXXXX XXXXX X SWWSI EN {} I ESSI", "X".repeat(20));
    let r = analyze(&script(&l, p0, &p1)).unwrap();
    assert_eq!(r.deliveries, 1);
    assert_eq!(totals(&r), (0, 0));
    assert_eq!(r.pot_links, LinkCounts { constructive: 3, non_constructive: 0 });
    assert!(r.indirect.iter().all(|d| (d.giver, d.receiver, d.link) == (0, 1, LinkKind::Pot)));
    assert_eq!((r.players[0].triggered, r.players[0].accepted), (0, 0));
    let pick = r.trace.actions.iter().find(|a| a.kind == ActionKind::PickUpSoup).unwrap();
    assert!(pick.pre.contains(&symbolic::Pred::SoupReady { pot: proagent_overcooked::env::Pos::new(2, 0) }));
    assert_eq!(metrics_json(&r)["pot_links"]["constructive"], 3);
}

const FC: &str = include_str!("../../../tests/fixtures/traces/forced_coordination.jsonl");

#[test]
fn reference_forced_coordination_scripted_has_constructive_hand_overs() {
    let trajs = read_reference("fc", FC).unwrap();
    assert_eq!(trajs.len(), 3);
    let t = &trajs[1];
    assert!(t.name.contains("scripted_eps"), "{}", t.name);
    let r = analyze(t).unwrap();
    assert_eq!(r.deliveries, 11);
    assert_eq!(r.reward, 220);
    assert!(r.constructive > 0);
    // Every soup on this layout needs onions and a dish over the counter.
    assert!(r.constructive as usize >= r.deliveries, "{} constructive", r.constructive);
    assert!(r.links["onion_counter"].constructive > 0 && r.links["dish_counter"].constructive > 0);
    // Only player 1 (left) can fetch onions and dishes, only player 0 can cook and serve.
    assert!(r.interdependencies.iter().all(|d| d.giver == 1));
    assert!(r.players[1].triggered >= r.players[1].accepted && r.players[1].accepted > 0);
    assert_eq!((r.trace.simulated_steps, r.trace.diffed_steps, r.trace.repairs), (400, 0, 0));
}

#[test]
fn state_diffing_agrees_with_the_simulator_on_all_reference_transitions() {
    for text in [
        FC,
        include_str!("../../../tests/fixtures/traces/cramped_room.jsonl"),
        include_str!("../../../tests/fixtures/traces/asymmetric_advantages.jsonl"),
        include_str!("../../../tests/fixtures/traces/coordination_ring.jsonl"),
        include_str!("../../../tests/fixtures/traces/counter_circuit.jsonl"),
    ] {
        for t in read_reference("x", text).unwrap() {
            let mut interacts = 0;
            for (k, w) in t.states.windows(2).enumerate() {
                let (sim, simulated) = transition_events(&t.layout, &w[0], t.joint_actions[k], &w[1]);
                assert!(simulated, "{} step {k}", t.name);
                let mut diffed = diff_events(&t.layout, &w[0], &w[1]);
                // The diff cannot know the reward of a delivery.
                for (s, d) in sim.iter().zip(diffed.iter_mut()) {
                    if let (
                        Some(proagent_overcooked::env::Event::Deliver { reward, .. }),
                        Some(proagent_overcooked::env::Event::Deliver { reward: r2, .. }),
                    ) = (s, d)
                    {
                        *r2 = *reward;
                    }
                }
                assert_eq!(sim, diffed, "{} step {k}", t.name);
                interacts += sim.iter().flatten().count();
            }
            assert!(interacts > 0);
            // Rebuilding the states from the actions gives the same analysis.
            let rebuilt = Trajectory::from_actions("r", t.layout.clone(), t.states[0].clone(), t.joint_actions.clone());
            let (a, b) = (analyze(&t).unwrap(), analyze(&rebuilt).unwrap());
            assert_eq!(
                (a.deliveries, a.constructive, a.non_constructive),
                (b.deliveries, b.constructive, b.non_constructive)
            );
            assert_eq!(a.players, b.players);
            assert_eq!(a.trace.repairs, 0);
        }
    }
}

/// Two made-up trials in the human-data format. Trial A (forced_coordination): the left
/// player takes an onion and leaves it on the middle counter, the right player picks it
/// up and pots it; nothing is served. Trial B (counter_circuit, human start cells): a
/// ready soup whose clock ran on to 50, and an onion that lands on the counter although
/// the recorded action is STAY (the recorded states win).
const HUMAN: &str = r#"{"trial":"A","layout":"forced_coordination","t":0,"players":[{"pos":[3,1],"dir":"NORTH","held":null},{"pos":[1,2],"dir":"WEST","held":null}],"objects":[],"actions":["STAY","INTERACT"],"reward":0,"score":0}
{"trial":"A","layout":"forced_coordination","t":1,"players":[{"pos":[3,1],"dir":"NORTH","held":null},{"pos":[1,2],"dir":"WEST","held":{"name":"onion"}}],"objects":[],"actions":["SOUTH","EAST"],"reward":0,"score":0}
{"trial":"A","layout":"forced_coordination","t":2,"players":[{"pos":[3,2],"dir":"SOUTH","held":null},{"pos":[1,2],"dir":"EAST","held":{"name":"onion"}}],"objects":[],"actions":["WEST","INTERACT"],"reward":0,"score":0}
{"trial":"A","layout":"forced_coordination","t":3,"players":[{"pos":[3,2],"dir":"WEST","held":null},{"pos":[1,2],"dir":"EAST","held":null}],"objects":[{"pos":[2,2],"name":"onion"}],"actions":["INTERACT","STAY"],"reward":0,"score":0}
{"trial":"A","layout":"forced_coordination","t":4,"players":[{"pos":[3,2],"dir":"WEST","held":{"name":"onion"}},{"pos":[1,2],"dir":"EAST","held":null}],"objects":[],"actions":["NORTH","STAY"],"reward":0,"score":0}
{"trial":"A","layout":"forced_coordination","t":5,"players":[{"pos":[3,1],"dir":"NORTH","held":{"name":"onion"}},{"pos":[1,2],"dir":"EAST","held":null}],"objects":[],"actions":["INTERACT","STAY"],"reward":0,"score":0}
{"trial":"A","layout":"forced_coordination","t":6,"players":[{"pos":[3,1],"dir":"NORTH","held":null},{"pos":[1,2],"dir":"EAST","held":null}],"objects":[{"pos":[3,0],"name":"soup","onions":1,"cook_time":0}],"actions":["STAY","STAY"],"reward":0,"score":0}
{"trial":"B","layout":"counter_circuit","t":0,"players":[{"pos":[6,3],"dir":"SOUTH","held":{"name":"onion"}},{"pos":[1,3],"dir":"NORTH","held":null}],"objects":[{"pos":[3,0],"name":"soup","onions":3,"cook_time":50}],"actions":["STAY","STAY"],"reward":0,"score":0}
{"trial":"B","layout":"counter_circuit","t":1,"players":[{"pos":[6,3],"dir":"SOUTH","held":null},{"pos":[1,3],"dir":"NORTH","held":null}],"objects":[{"pos":[3,0],"name":"soup","onions":3,"cook_time":51},{"pos":[6,4],"name":"onion"}],"actions":["STAY","STAY"],"reward":0,"score":0}
"#;

#[test]
fn human_format_is_split_by_trial_and_analysed() {
    assert_eq!(detect(HUMAN).unwrap(), FileKind::HumanGames);
    let trajs = read_human(HUMAN).unwrap();
    assert_eq!(trajs.len(), 2);
    let (a, b) = (&trajs[0], &trajs[1]);
    assert_eq!(
        (a.name.as_str(), a.layout.name.as_str(), a.states.len(), a.joint_actions.len()),
        ("A", "forced_coordination", 8, 7)
    );
    // The human counter_circuit starts differ from the built-in layout's.
    assert_eq!((b.layout.name.as_str(), b.layout.starts[0].x, b.layout.starts[0].y), ("counter_circuit", 6, 3));
    let ra = analyze(a).unwrap();
    assert_eq!((ra.trace.simulated_steps, ra.trace.diffed_steps, ra.trace.repairs), (7, 0, 0));
    assert_eq!(totals(&ra), (0, 1));
    assert_eq!(ra.interdependencies[0].giver, 1);
    assert_eq!((ra.players[1].triggered, ra.players[1].accepted), (1, 1));
    let kinds: Vec<ActionKind> = ra.trace.actions.iter().map(|x| x.kind).collect();
    assert_eq!(
        kinds,
        [ActionKind::PickFromDispenser, ActionKind::PlaceOnCounter, ActionKind::PickFromCounter, ActionKind::PutInPot]
    );
    // Trial B: the clock past 20 is clamped (the soup is ready), and the onion drop is
    // read off the states.
    let soup = b.states[0].soup_at(&b.layout, proagent_overcooked::env::Pos::new(3, 0)).unwrap();
    assert!(soup.is_ready() && soup.cooking_tick == 20);
    let rb = analyze(b).unwrap();
    assert_eq!(rb.trace.diffed_steps, 1);
    assert_eq!(rb.trace.repairs, 0);
    assert_eq!(rb.trace.actions[0].kind, ActionKind::PlaceOnCounter);
    assert_eq!((rb.players[0].triggered, rb.players[0].accepted), (1, 0));
}

#[test]
fn unreadable_input_names_the_line() {
    let bad = HUMAN.replacen("\"dir\":\"WEST\"", "\"dir\":\"UP\"", 1);
    let e = read_human(&bad).unwrap_err().to_string();
    assert!(e.starts_with("line 1:") && e.contains("dir"), "{e}");
    let gap = HUMAN.replacen("\"t\":3,", "\"t\":9,", 1);
    assert!(read_human(&gap).unwrap_err().to_string().starts_with("line 4:"));
    // Counts that overflow when added are refused like any other impossible soup.
    let huge = HUMAN.replacen("\"onions\":1,", "\"onions\":18446744073709551615,\"tomatoes\":1,", 1);
    assert!(read_human(&huge).unwrap_err().to_string().contains("soup with 18446744073709551615 onions"));
    let unknown = HUMAN.replacen("forced_coordination", "nowhere", 1);
    assert!(read_human(&unknown).unwrap_err().to_string().contains("unknown layout"));
    assert!(detect("{\"foo\": 1}").is_err());
    assert!(detect("").is_err());
    assert!(detect("not json").unwrap_err().to_string().starts_with("line 1:"));
    let (k, trajs) = read("fc", FC).unwrap();
    assert_eq!((k, trajs.len()), (FileKind::ReferenceTrace, 3));
    // Inconsistent lengths are an error, not a panic.
    let mut t = trajs[0].clone();
    t.joint_actions.pop();
    assert!(analyze(&t).is_err());
}

#[test]
fn summary_distributions() {
    let d = Distribution::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
    assert_eq!((d.n, d.mean, d.median, d.min, d.max), (4, 2.5, 2.5, 1.0, 4.0));
    assert_eq!(Distribution::of(&[]), None);
    let trajs = read_reference("fc", FC).unwrap();
    let reports: Vec<Report> = trajs.iter().map(|t| analyze(t).unwrap()).collect();
    let s = summarize(&reports);
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].trajectories, s[0].without_delivery, s[0].deliveries), (3, 2, 11));
    assert_eq!(s[0].constructive_per_soup.unwrap().n, 1);
}
