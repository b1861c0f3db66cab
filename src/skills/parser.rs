//! A tolerant parser from text to a [`Skill`]: quotes, spaces, case,
//! `pickup_onion`, `pick up onion` and trailing punctuation are accepted; text
//! that names no skill is an error that keeps the raw text.

use super::vocabulary::{MAX_WAIT, Skill};

/// Text that does not name a skill. The raw text is kept for transcripts and reports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}: {raw:?}")]
pub struct SkillParseError {
    /// The text exactly as given to the parser.
    pub raw: String,
    /// Why no skill was read, e.g. "no skill found" or a wait out of range.
    pub reason: String,
}

/// Lower-case words and numbers of a text; everything else separates tokens.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            cur.push(c.to_ascii_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    // Split glued forms such as "pickup" stays, but "putoniononpot" is not guessed.
    out
}

/// Tries to read a skill at the start of `t`; returns the skill and how many tokens it used.
/// `Err` is a wait whose number is out of range.
fn match_at(t: &[String]) -> Option<Result<(Skill, usize), String>> {
    let w = |i: usize| t.get(i).map(String::as_str);
    let is = |i: usize, s: &[&str]| w(i).is_some_and(|x| s.contains(&x));
    let obj_words = ["obj", "object", "item", "onion", "dish", "soup", "it"];
    // pickup(onion) / pickup_onion / pick up onion / pick_up(dish)
    let pick_len = if is(0, &["pickup", "pickupobj"]) {
        Some(1)
    } else if is(0, &["pick"]) && is(1, &["up"]) {
        Some(2)
    } else {
        None
    };
    if let Some(k) = pick_len {
        let k = if is(k, &["a", "an", "the", "one"]) { k + 1 } else { k };
        return match w(k) {
            Some("onion" | "onions") => Some(Ok((Skill::PickupOnion, k + 1))),
            Some("dish" | "dishes" | "plate") => Some(Ok((Skill::PickupDish, k + 1))),
            _ => None,
        };
    }
    // put_onion_in_pot() / put onion in pot / put an onion into the pot
    if is(0, &["put", "add", "drop"]) {
        let mut k = 1;
        if is(k, &["a", "an", "the", "one"]) {
            k += 1;
        }
        if is(k, &["onion"]) {
            k += 1;
            if is(k, &["in", "into", "to"]) {
                k += 1;
                if is(k, &["a", "the"]) {
                    k += 1;
                }
                if is(k, &["pot"]) {
                    return Some(Ok((Skill::PutOnionInPot, k + 1)));
                }
            }
        }
        return None;
    }
    // place_obj_on_counter() / place onion on counter / place the dish on the counter
    if is(0, &["place", "putdown"]) {
        let mut k = 1;
        if is(k, &["a", "an", "the", "one", "my"]) {
            k += 1;
        }
        if is(k, &obj_words) {
            k += 1;
        }
        if is(k, &["on", "onto"]) {
            k += 1;
            if is(k, &["a", "the"]) {
                k += 1;
            }
            if is(k, &["counter", "counters"]) {
                return Some(Ok((Skill::PlaceObjOnCounter, k + 1)));
            }
        }
        return None;
    }
    // fill_dish_with_soup()
    if is(0, &["fill"]) {
        let mut k = 1;
        if is(k, &["a", "the", "my"]) {
            k += 1;
        }
        if is(k, &["dish"]) && is(k + 1, &["with"]) {
            k += 2;
            if is(k, &["the", "a"]) {
                k += 1;
            }
            if is(k, &["soup"]) {
                return Some(Ok((Skill::FillDishWithSoup, k + 1)));
            }
        }
        return None;
    }
    // deliver_soup()
    if is(0, &["deliver", "serve"]) {
        let k = if is(1, &["the", "a"]) { 2 } else { 1 };
        if is(k, &["soup"]) {
            return Some(Ok((Skill::DeliverSoup, k + 1)));
        }
        return None;
    }
    // wait(n) / wait 3 / wait(n=3)
    if is(0, &["wait"]) {
        let mut k = 1;
        if is(k, &["n", "for"]) {
            k += 1;
        }
        let n: u32 = w(k)?.parse().ok()?;
        if n == 0 || n > MAX_WAIT as u32 {
            return Some(Err(format!("wait(n) needs 0 < n <= {MAX_WAIT}, got {n}")));
        }
        let k = if is(k + 1, &["step", "steps", "timestep", "timesteps"]) { k + 2 } else { k + 1 };
        return Some(Ok((Skill::Wait(n as u8), k)));
    }
    None
}

impl Skill {
    /// Parses one skill written on its own, tolerating quotes, spaces, case,
    /// `pickup_onion`, `pick up onion`, and trailing punctuation.
    pub fn parse(text: &str) -> Result<Skill, SkillParseError> {
        let t = tokens(text);
        let err = |reason: &str| SkillParseError { raw: text.to_string(), reason: reason.to_string() };
        if t.is_empty() {
            return Err(err("empty skill"));
        }
        match match_at(&t) {
            Some(Ok((s, used))) if used == t.len() => Ok(s),
            Some(Ok(_)) => Err(err("unexpected words after the skill")),
            Some(Err(e)) => Err(err(&e)),
            None => Err(err("not a known skill")),
        }
    }

    /// Finds the first skill mentioned anywhere in a text (e.g. a plan line with prose).
    /// A wait out of range is reported as an error rather than skipped.
    pub fn find_first(text: &str) -> Result<Skill, SkillParseError> {
        let t = tokens(text);
        for i in 0..t.len() {
            match match_at(&t[i..]) {
                Some(Ok((s, _))) => return Ok(s),
                Some(Err(e)) => return Err(SkillParseError { raw: text.to_string(), reason: e }),
                None => {}
            }
        }
        Err(SkillParseError { raw: text.to_string(), reason: "no skill found".into() })
    }
}
