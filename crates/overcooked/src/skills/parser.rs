//! A tolerant parser from text to a [`Skill`]: quotes, spaces, case,
//! `pickup_onion`, `pick up onion`, `PickUpOnion`, markdown escapes (`\_`) and
//! trailing punctuation are accepted; text that names no skill is an error that
//! keeps the raw text.
//!
//! [`Skill::mentions`] lists every skill a piece of prose names, each with what
//! the words around it say: whether it is negated ("not", "instead of",
//! "rather than", "... is not possible") and who the clause's subject is ("I",
//! "Player 1", "my teammate"). The planner uses that to tell the skill a reply
//! chooses from the skills it only talks about. A wait whose number runs into
//! the end of the text (`wait(1` — perhaps `wait(15)` cut off) is no mention.

use super::vocabulary::{MAX_WAIT, Skill};

/// Text that does not name a skill. The raw text is kept for transcripts and reports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}: {raw:?}")]
pub struct SkillParseError {
    /// The text as given.
    pub raw: String,
    /// Why it is not a skill.
    pub reason: String,
}

/// Who the words just before a skill mention say will do it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// No subject next to the skill ("pickup(onion)", "so pickup(dish)").
    Unknown,
    /// The writer: "I", "I'll", "me", "my next skill is".
    Speaker,
    /// "Player k", "<Player k>", "Player_k", "P k".
    Player(usize),
    /// "my teammate", "the partner", "the other player".
    Teammate,
}

/// One skill named in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillMention {
    /// The skill, or why it cannot be one (a wait out of range; the error's `raw` is the
    /// text from the mention on, at most [`MENTION_RAW_CHARS`] characters).
    pub skill: Result<Skill, SkillParseError>,
    /// "not pickup(dish)", "instead of put_onion_in_pot()", "deliver_soup() is not possible".
    pub negated: bool,
    /// Who the words just before the skill say will do it.
    pub subject: Subject,
    /// Byte offset of the mention's first word in the text.
    pub offset: usize,
}

/// One lower-case word or number of a text.
#[derive(Clone, Debug)]
struct Tok {
    word: String,
    start: usize,
    end: usize,
    /// A clause break (`, ; . ! ? — –` or a line end) lies between this token and the one before.
    brk: bool,
}

/// Lower-case words and numbers of a text; everything else separates tokens, and a
/// lower-to-upper case change inside a word does too (`PutOnionInPot`).
fn tokens(text: &str) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut brk = false;
    let mut prev_lower = false;
    fn push(out: &mut Vec<Tok>, cur: &mut String, start: usize, end: usize, brk: &mut bool) {
        if !cur.is_empty() {
            out.push(Tok { word: std::mem::take(cur), start, end, brk: *brk });
            *brk = false;
        }
    }
    for (i, c) in text.char_indices() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                push(&mut out, &mut cur, start, i, &mut brk);
            }
            if cur.is_empty() {
                start = i;
            }
            cur.push(c.to_ascii_lowercase());
            prev_lower = c.is_ascii_lowercase();
        } else {
            push(&mut out, &mut cur, start, i, &mut brk);
            prev_lower = false;
            if matches!(c, ',' | ';' | '.' | '!' | '?' | '\n' | '—' | '–') {
                brk = true;
            }
        }
    }
    push(&mut out, &mut cur, start, text.len(), &mut brk);
    out
}

/// How much text from a refused mention on its error keeps ([`SkillMention::skill`]).
pub const MENTION_RAW_CHARS: usize = 64;

/// Why skill-shaped words are no allowed skill (a wait whose number is out of range).
struct NotAllowed(String);

/// Tries to read a skill at the start of `t`; returns the skill and how many tokens it used.
/// `Err` is a wait whose number is out of range.
fn match_at(t: &[Tok], text: &str) -> Option<Result<(Skill, usize), NotAllowed>> {
    let w = |i: usize| t.get(i).map(|x| x.word.as_str());
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
        let num = t.get(k)?;
        let n: u32 = num.word.parse().ok()?;
        // `wait(1` ending the text was cut off: it may have been wait(15).
        let opened = text[..num.start].trim_end().ends_with(['(', '=']);
        // (Whether only whitespace follows, without trimming the text's end once per mention.)
        if opened && text[num.end..].chars().all(char::is_whitespace) {
            return None;
        }
        if n == 0 || n > MAX_WAIT as u32 {
            return Some(Err(NotAllowed(format!("wait(n) needs 0 < n <= {MAX_WAIT}, got {n}"))));
        }
        let k = if is(k + 1, &["step", "steps", "timestep", "timesteps"]) { k + 2 } else { k + 1 };
        return Some(Ok((Skill::Wait(n as u8), k)));
    }
    None
}

/// Words that turn the skill right after them into one the writer rejects.
const NEG_BEFORE: [&str; 13] =
    ["not", "t", "never", "cannot", "cant", "dont", "shouldnt", "wont", "avoid", "without", "instead", "than", "nor"];
/// Verbs that, followed by a negation, reject the skill right before them ("... is not possible").
const AUX_AFTER: [&str; 14] =
    ["is", "isn", "isnt", "won", "wont", "wouldn", "will", "would", "can", "cannot", "cant", "does", "doesn", "doesnt"];
const NEG_AFTER: [&str; 8] = ["not", "t", "cannot", "impossible", "invalid", "isnt", "wont", "cant"];
/// Words that may stand between a subject and its skill ("Player 1 will most likely ...").
const GLUE: [&str; 52] = [
    "will",
    "ll",
    "would",
    "d",
    "should",
    "shall",
    "can",
    "could",
    "must",
    "may",
    "might",
    "is",
    "s",
    "are",
    "am",
    "going",
    "to",
    "also",
    "then",
    "probably",
    "likely",
    "most",
    "first",
    "now",
    "already",
    "just",
    "need",
    "needs",
    "wants",
    "want",
    "plans",
    "plan",
    "intends",
    "intend",
    "about",
    "expected",
    "gonna",
    "do",
    "does",
    "doing",
    "the",
    "a",
    "next",
    "skill",
    "action",
    "move",
    "intention",
    "be",
    "soon",
    "immediately",
    "try",
    "tries",
];

fn player_token(word: &str) -> Option<usize> {
    let digits = word.strip_prefix("player").or_else(|| word.strip_prefix("p"))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The subject of the clause a skill at token `i` belongs to.
fn subject_before(t: &[Tok], i: usize) -> Subject {
    let mut j = i;
    let mut steps = 0;
    while j > 0 && !t[j].brk && steps < 8 {
        j -= 1;
        steps += 1;
        let w = t[j].word.as_str();
        if GLUE.contains(&w) {
            continue;
        }
        if let Some(k) = player_token(w) {
            return Subject::Player(k);
        }
        if w.bytes().all(|b| b.is_ascii_digit()) {
            let named = j > 0 && !t[j].brk && matches!(t[j - 1].word.as_str(), "player" | "agent" | "chef");
            return match (named, w.parse()) {
                (true, Ok(k)) => Subject::Player(k),
                _ => Subject::Unknown,
            };
        }
        return match w {
            "i" | "me" | "my" | "myself" => Subject::Speaker,
            "teammate" | "partner" | "mate" | "collaborator" => Subject::Teammate,
            "player" if j > 0 && !t[j].brk && t[j - 1].word == "other" => Subject::Teammate,
            _ => Subject::Unknown,
        };
    }
    Subject::Unknown
}

/// Whether the words around the skill at tokens `i..i + used` reject it; words before
/// `floor` (the end of the previous mention) belong to that one.
fn negated(t: &[Tok], i: usize, used: usize, floor: usize) -> bool {
    let mut j = i;
    for _ in 0..3 {
        if j <= floor || t[j].brk {
            break;
        }
        j -= 1;
        let w = t[j].word.as_str();
        if NEG_BEFORE.contains(&w) || (w == "no" && t.get(j + 1).is_some_and(|n| n.word == "need")) {
            return true;
        }
    }
    let after = i + used;
    if t.get(after).is_some_and(|a| !a.brk && AUX_AFTER.contains(&a.word.as_str())) {
        for k in after..(after + 3).min(t.len()) {
            if k > after && t[k].brk {
                break;
            }
            if NEG_AFTER.contains(&t[k].word.as_str()) {
                return true;
            }
        }
    }
    false
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
        match match_at(&t, text) {
            Some(Ok((s, used))) if used == t.len() => Ok(s),
            Some(Ok(_)) => Err(err("unexpected words after the skill")),
            Some(Err(e)) => Err(err(&e.0)),
            None => Err(err("not a known skill")),
        }
    }

    /// Every skill a text names, in order, with its negation and subject.
    pub fn mentions(text: &str) -> Vec<SkillMention> {
        let t = tokens(text);
        let mut out = Vec::new();
        let mut i = 0;
        let mut floor = 0;
        while i < t.len() {
            match match_at(&t[i..], text) {
                Some(found) => {
                    let used = found.as_ref().map_or(1, |&(_, used)| used);
                    out.push(SkillMention {
                        // The error keeps the words from the mention on, not the whole
                        // text: a text of many refused mentions is not copied once each.
                        skill: found.map(|(s, _)| s).map_err(|e| SkillParseError {
                            raw: text[t[i].start..].chars().take(MENTION_RAW_CHARS).collect(),
                            reason: e.0,
                        }),
                        negated: negated(&t, i, used, floor),
                        subject: subject_before(&t, i),
                        offset: t[i].start,
                    });
                    i += used;
                    floor = i;
                }
                None => i += 1,
            }
        }
        out
    }

    /// Finds the first skill mentioned anywhere in a text (e.g. a plan line with prose).
    /// A wait out of range is reported as an error rather than skipped.
    pub fn find_first(text: &str) -> Result<Skill, SkillParseError> {
        match Skill::mentions(text).into_iter().next() {
            Some(m) => m.skill.map_err(|e| SkillParseError { raw: text.to_string(), ..e }),
            None => Err(SkillParseError { raw: text.to_string(), reason: "no skill found".into() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> SkillMention {
        Skill::mentions(text).into_iter().next().unwrap_or_else(|| panic!("no mention in {text:?}"))
    }

    #[test]
    fn spellings() {
        for (text, want) in [
            ("PutOnionInPot()", Skill::PutOnionInPot),
            ("pickUp(Dish)", Skill::PickupDish),
            ("fill\\_dish\\_with\\_soup()", Skill::FillDishWithSoup),
            ("\\text{deliver_soup()}", Skill::DeliverSoup),
            ("wait (2 timesteps)", Skill::Wait(2)),
        ] {
            assert_eq!(Skill::find_first(text), Ok(want), "{text}");
        }
        // Cut off inside the number: not wait(1).
        assert!(Skill::find_first("Plan: wait(1").is_err());
        assert_eq!(Skill::find_first("Plan: wait(1)"), Ok(Skill::Wait(1)));
        assert_eq!(Skill::find_first("wait 1"), Ok(Skill::Wait(1)));
    }

    #[test]
    fn negation_and_subject() {
        assert!(first("Don't place_obj_on_counter()").negated);
        assert!(first("instead of put_onion_in_pot()").negated);
        assert!(first("rather than pickup(dish), go").negated);
        assert!(first("put_onion_in_pot() is not possible").negated);
        assert!(!first("Player 0 is not holding anything so pickup(onion)").negated);
        assert!(!first("pickup(onion) is the best").negated);
        // "not" belongs to the skill it stands before, not to the next one.
        let two = Skill::mentions("Not wait(1) pickup(onion) is better");
        assert!(two[0].negated && !two[1].negated);
        assert_eq!(first("Since Player 1 will put_onion_in_pot()").subject, Subject::Player(1));
        assert_eq!(first("Player1 is going to pick up an onion").subject, Subject::Player(1));
        assert_eq!(first("my teammate does deliver_soup()").subject, Subject::Teammate);
        assert_eq!(first("the other player will most likely pickup(dish)").subject, Subject::Teammate);
        assert_eq!(first("I'll pickup(dish)").subject, Subject::Speaker);
        assert_eq!(first("Player 1 holds an onion, so pickup(dish)").subject, Subject::Unknown);
        assert_eq!(first("Pot 1 will wait(3)").subject, Subject::Unknown);
        let all = Skill::mentions("Since Player 1 will put_onion_in_pot(), I will pickup(dish).");
        assert_eq!(all.len(), 2);
        assert_eq!((all[1].skill.clone(), all[1].subject), (Ok(Skill::PickupDish), Subject::Speaker));
    }
}
