//! The `scripted` stand-in for the LLM-Coordination agent's Overcooked prompts: a
//! rule-based reader of the prompt text, **not a language model**. It reads what both cooks
//! hold, every place's distance, every cooker's onions and cooking state and what lies on
//! the counters, then picks one of the listed target-specific actions:
//!
//! - holding a soup: deliver it at the nearest delivery area, else wait;
//! - holding a plate: load it at a cooked soup, else at the cooker that is ready soonest,
//!   else put it on a shared counter, else wait;
//! - holding an onion: put it in the cooker with the most onions (the nearest on a tie),
//!   else on a shared counter, else wait;
//! - empty-handed: fetch a plate when a soup is cooking or cooked (or about to start) and
//!   the partner has none; else fetch an onion while cookers still need some; else take a
//!   cooked soup lying on a counter; else wait.
//!
//! Items are passed over shared counters only in a kitchen split in two (the game
//! description says so); Counter Circuit's island counters are left alone.
//!
//! Among places offering the same thing it takes the nearest, and avoids one "blocked by"
//! the partner when another is open. Verification accepts every listed action; the
//! Theory-of-Mind answer says what the partner is carrying it to.

use crate::llmco::standin::{Prompt, Scripted, StandInModel};
use std::collections::HashMap;

/// The Overcooked reader (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct OvercookedStandIn;

impl OvercookedStandIn {
    /// The stand-in as a language model named `scripted`.
    pub fn model() -> StandInModel<OvercookedStandIn> {
        StandInModel::new(OvercookedStandIn)
    }
}

/// A cooker as the text describes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cooker {
    onions: u32,
    cooking: bool,
    ready: bool,
    left: u32,
}

#[derive(Clone, Debug, Default)]
struct Kitchen {
    held: String,
    mate_held: String,
    /// Distance to each place (`u32::MAX`: inaccessible; blocked ways cost 20 extra).
    dist: HashMap<String, u32>,
    cookers: HashMap<String, Cooker>,
    /// The partner's way to some place is blocked by me (its location line says so).
    blocking_mate: bool,
}

const BLOCKED_EXTRA: u32 = 20;

/// "o0 is 3 units away. c0 is blocked by Bob. d0 is inaccessible." → distances.
fn read_distances(line: &str, out: &mut HashMap<String, u32>) {
    for sentence in line.split(". ") {
        let sentence = sentence.trim().trim_end_matches('.');
        let Some((name, rest)) = sentence.split_once(" is ") else { continue };
        let name = name.trim();
        if name.contains(' ') {
            continue;
        }
        let d = if let Some(n) = rest.strip_suffix(" units away") {
            n.trim().parse().unwrap_or(u32::MAX)
        } else if rest.starts_with("blocked by") {
            BLOCKED_EXTRA * 2
        } else {
            u32::MAX
        };
        out.entry(name.to_string()).or_insert(d);
    }
}

fn read_kitchen(text: &str) -> Kitchen {
    let mut k = Kitchen::default();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("<Inventory>: I am holding ") {
            if let Some((mine, theirs)) = rest.split_once(". ") {
                k.held = mine.to_string();
                k.mate_held =
                    theirs.split_once(" is holding ").map_or("", |(_, h)| h.trim_end_matches('.')).to_string();
            }
        } else if let Some(rest) = line.strip_prefix("<My location information>:") {
            read_distances(rest, &mut k.dist);
        } else if line.starts_with('<') && line.contains("'s location information>:") {
            k.blocking_mate = line.contains(" is blocked by ");
        } else if let Some(rest) = line.strip_prefix("<Environment details>:") {
            for sentence in rest.split(". ") {
                let s = sentence.trim().trim_end_matches('.');
                if let Some((name, n)) = s.split_once(" contains ")
                    && let Some(n) = n.strip_suffix(" out of 3 onions")
                {
                    k.cookers.entry(name.to_string()).or_default().onions = n.trim().parse().unwrap_or(0);
                } else if let Some(name) = s.strip_prefix("Soup in ") {
                    let (name, state) = name.split_once(" is ").unwrap_or((name, ""));
                    let c = k.cookers.entry(name.to_string()).or_default();
                    c.cooking = state.starts_with("still cooking");
                    c.ready = state == "cooked";
                    c.left = state.rsplit(' ').nth(1).and_then(|n| n.parse().ok()).unwrap_or(0);
                } else if let Some((name, what)) = s.split_once(" contains ")
                    && let Some((_, d)) = what.split_once(" and is ")
                {
                    let d =
                        d.strip_suffix(" units away").and_then(|n| n.trim().parse().ok()).unwrap_or(BLOCKED_EXTRA * 2);
                    k.dist.insert(name.to_string(), d);
                }
            }
        }
    }
    k
}

/// The place an option names (its last word).
fn place_of(option: &str) -> &str {
    option.rsplit(' ').next().unwrap_or("")
}

fn nearest(k: &Kitchen, options: &[String], prefix: &str) -> Option<usize> {
    options
        .iter()
        .enumerate()
        .filter(|(_, o)| o.starts_with(prefix))
        .min_by_key(|(_, o)| k.dist.get(place_of(o)).copied().unwrap_or(BLOCKED_EXTRA))
        .map(|(i, _)| i)
}

/// The nearest plate to pick up: from a dispenser or kitchen counter ("pick up plate from")
/// or a shared counter ("pick up a plate from", the released agent's words).
fn nearest_plate(k: &Kitchen, options: &[String]) -> Option<usize> {
    options
        .iter()
        .enumerate()
        .filter(|(_, o)| o.starts_with("pick up plate from ") || o.starts_with("pick up a plate from "))
        .min_by_key(|(_, o)| k.dist.get(place_of(o)).copied().unwrap_or(BLOCKED_EXTRA))
        .map(|(i, _)| i)
}

fn choose(k: &Kitchen, options: &[String]) -> (String, usize) {
    let wait = options.iter().position(|o| o == "wait").unwrap_or(0);
    let cooker = |o: &String| k.cookers.get(place_of(o)).copied().unwrap_or_default();
    match k.held.as_str() {
        "soup in plate" => {
            if let Some(i) = nearest(k, options, "place soup for delivery in ") {
                return ("I carry a soup: deliver it".into(), i);
            }
        }
        "plate" => {
            let best = options
                .iter()
                .enumerate()
                .filter(|(_, o)| o.starts_with("load soup on plate from "))
                .min_by_key(|(_, o)| {
                    let c = cooker(o);
                    (!c.ready, c.left, k.dist.get(place_of(o)).copied().unwrap_or(BLOCKED_EXTRA))
                })
                .map(|(i, _)| i);
            if let Some(i) = best {
                return ("load the soup that is ready first".into(), i);
            }
            if let Some(i) = nearest(k, options, "place plate in s") {
                return ("my partner serves: pass the plate on a shared counter".into(), i);
            }
        }
        "onion" => {
            let best = options
                .iter()
                .enumerate()
                .filter(|(_, o)| o.starts_with("place onion in c"))
                .min_by_key(|(_, o)| {
                    (3u32.saturating_sub(cooker(o).onions), k.dist.get(place_of(o)).copied().unwrap_or(BLOCKED_EXTRA))
                })
                .map(|(i, _)| i);
            if let Some(i) = best {
                return ("put the onion in the cooker closest to full".into(), i);
            }
            if let Some(i) = nearest(k, options, "place onion in s") {
                return ("my partner cooks: pass the onion on a shared counter".into(), i);
            }
        }
        _ => {
            let cooking = k.cookers.values().any(|c| c.cooking || c.ready);
            let about_to =
                k.cookers.values().any(|c| !c.cooking && !c.ready && c.onions == 2) && k.mate_held == "onion";
            let mate_serving = matches!(k.mate_held.as_str(), "plate" | "soup in plate");
            if (cooking || about_to) && !mate_serving {
                let plate = nearest_plate(k, options);
                if let Some(i) = plate {
                    return ("a soup is cooking and nobody holds a plate: fetch one".into(), i);
                }
            }
            let need: u32 = k.cookers.values().filter(|c| !c.cooking && !c.ready).map(|c| 3 - c.onions.min(3)).sum();
            let need = need.saturating_sub(u32::from(k.mate_held == "onion"));
            if (need > 0 || k.cookers.is_empty())
                && let Some(i) = nearest(k, options, "pick up onion from ")
            {
                return ("the cookers need onions: fetch one".into(), i);
            }
            if let Some(i) = nearest(k, options, "pick up cooked soup from ") {
                return ("a cooked soup waits on a counter: take it to deliver".into(), i);
            }
            if !mate_serving
                && k.cookers.values().any(|c| c.onions > 0)
                && let Some(i) = nearest_plate(k, options)
            {
                return ("prepare a plate for the next soup".into(), i);
            }
        }
    }
    // Idle where the partner needs to pass (in front of the cooker it must load, say):
    // waiting there stalls both for good, so step aside.
    if k.blocking_mate
        && let Some(i) = options.iter().position(|o| o == "move away")
    {
        return ("nothing to do here and I block my partner's way: step aside".into(), i);
    }
    ("nothing useful to do right now".into(), wait)
}

impl Scripted for OvercookedStandIn {
    const GAME: &'static str = "overcooked";
    const OPENING: &'static str = "Overcooked: two cooks";
    fn choose(&self, p: &Prompt<'_>) -> (String, usize) {
        let k = read_kitchen(p.text);
        if p.rules.contains("split in two parts") {
            return choose(&k, &p.options);
        }
        // A kitchen that is not split (Counter Circuit's island): both cooks reach
        // everything, so nothing is passed over a shared counter.
        let keep: Vec<usize> = (0..p.options.len())
            .filter(|&i| !["place onion in s", "place plate in s"].iter().any(|pass| p.options[i].starts_with(pass)))
            .collect();
        let sub: Vec<String> = keep.iter().map(|&i| p.options[i].clone()).collect();
        let (why, j) = choose(&k, &sub);
        (why, keep.get(j).copied().unwrap_or(0))
    }

    fn verify(&self, _p: &Prompt<'_>, proposal: &str) -> (String, bool) {
        (format!("\"{proposal}\" is one of the available actions and keeps the kitchen going."), true)
    }

    fn interpret(&self, p: &Prompt<'_>) -> String {
        let k = read_kitchen(p.text);
        let (intention, needs) = match k.mate_held.as_str() {
            "onion" => ("my partner is bringing an onion to a cooker", "onions and a plate once the soup cooks"),
            "plate" => ("my partner is waiting to load a soup", "a cooked soup"),
            "soup in plate" => ("my partner is delivering a soup", "the next soup started"),
            _ => ("my partner is fetching an ingredient or a plate", "that I work on the other part of the recipe"),
        };
        format!("Partner Intention: {intention}.\nPartner Needs: {needs}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = "<Inventory>: I am holding nothing. Bob is holding onion.
<My location information>: o0 is 1 units away. o1 is 3 units away. c0 is blocked by Bob. p0 is 4 units away. d0 is 5 units away.
<Bob's location information>: o0 is 2 units away.
<Environment details>: c0 contains 2 out of 3 onions. c0 is off. Soup in c0 is not cooking. k3 contains plate and is 2 units away. Closest empty kitchen counter k1 is 1 units away.
Timesteps left: 300.";

    fn opts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_kitchen_is_read() {
        let k = read_kitchen(STATE);
        assert_eq!((k.held.as_str(), k.mate_held.as_str()), ("nothing", "onion"));
        assert_eq!(k.dist["o0"], 1);
        assert_eq!(k.dist["c0"], 2 * BLOCKED_EXTRA);
        assert_eq!(k.dist["k3"], 2);
        assert_eq!(k.cookers["c0"], Cooker { onions: 2, cooking: false, ready: false, left: 0 });
    }

    #[test]
    fn an_idle_cook_in_the_partners_way_steps_aside() {
        let o = opts(&["pick up onion from o0", "pick up plate from p0", "wait", "move away"]);
        // Everything done, nothing to fetch: wait, unless the partner's way is blocked by me.
        let idle = STATE
            .replace(
                "c0 contains 2 out of 3 onions. c0 is off. Soup in c0 is not cooking.",
                "c0 contains 3 out of 3 onions. c0 is on. Soup in c0 is still cooking, ready in 7 timesteps.",
            )
            .replace("Bob is holding onion", "Bob is holding plate");
        let k = read_kitchen(&idle);
        assert!(!k.blocking_mate);
        assert_eq!(o[choose(&k, &o).1], "wait");
        let blocking = idle.replace(
            "<Bob's location information>: o0 is 2 units away.",
            "<Bob's location information>: o0 is 2 units away. c0 is blocked by Alice.",
        );
        let k = read_kitchen(&blocking);
        assert!(k.blocking_mate);
        assert_eq!(o[choose(&k, &o).1], "move away");
    }

    #[test]
    fn plates_when_a_soup_is_about_to_cook_and_onions_otherwise() {
        let o = opts(&[
            "pick up onion from o0",
            "pick up onion from o1",
            "pick up plate from p0",
            "pick up plate from k3",
            "wait",
            "move away",
        ]);
        let k = read_kitchen(STATE);
        assert_eq!(o[choose(&k, &o).1], "pick up plate from k3", "the nearest plate");
        let k = read_kitchen(&STATE.replace("Bob is holding onion", "Bob is holding nothing"));
        assert_eq!(o[choose(&k, &o).1], "pick up onion from o0");
        let cooking = STATE.replace(
            "c0 contains 2 out of 3 onions. c0 is off. Soup in c0 is not cooking.",
            "c0 contains 3 out of 3 onions. c0 is on. Soup in c0 is still cooking, ready in 7 timesteps.",
        );
        let k = read_kitchen(&cooking);
        assert_eq!(k.cookers["c0"].left, 7);
        assert!(k.cookers["c0"].cooking);
    }
}
