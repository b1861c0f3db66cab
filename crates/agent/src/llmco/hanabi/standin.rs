//! The `scripted` stand-in for the LLM-Coordination agent's Hanabi prompts: a rule-based
//! reader of the prompt text, **not a language model**. It reads the stacks, tokens, lives,
//! what the agent knows of its cards, the partners' cards and knowledge and the partner's
//! last action from the state description, and plays a simple clue convention:
//!
//! 1. play a card that is surely playable (every colour and rank it can still be fits a
//!    stack);
//! 2. play the card a partner's clue pointed at (the newest card the clue touched), when it
//!    may be playable and a life can be spared — except after a rank-5 clue, which saves;
//! 3. with a reveal token, clue a partner's playable card so that it is the newest card the
//!    clue touches (the fewest cards touched wins);
//! 4. with a reveal token, save a partner's oldest unclued card when it is a 5;
//! 5. discard a card known to be useless, else the oldest card without a clue;
//! 6. at eight tokens, give a clue that cannot be read as "play this" (its newest card
//!    cannot be playable), else the first clue listed.
//!
//! Verification rejects a play that is neither sure nor pointed at by a clue (or is pointed
//! at with one life left), and a discard of a card clued as a 5. The Theory-of-Mind answer
//! says what the partner's last clue points at and suggests the clue of rule 3.

use crate::llmco::standin::{Prompt, Scripted, StandInModel, line_value};
use proagent_hanabi::rules::{COLOR_NAMES, NUM_COLORS};

/// The Hanabi reader (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct HanabiStandIn;

impl HanabiStandIn {
    /// The stand-in as a language model named `scripted`.
    pub fn model() -> StandInModel<HanabiStandIn> {
        StandInModel::new(HanabiStandIn)
    }
}

/// What the text says of one card's possible values.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Know {
    colors: Vec<u8>,
    ranks: Vec<u8>,
    clued: bool,
}

impl Know {
    fn candidates(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.colors.iter().flat_map(|&c| self.ranks.iter().map(move |&r| (c, r)))
    }
}

/// One partner as the text shows them.
#[derive(Clone, Debug)]
struct Partner {
    name: String,
    cards: Vec<(u8, u8)>,
    know: Vec<Know>,
}

/// Everything the stand-in reads from a state description.
#[derive(Clone, Debug, Default)]
struct Table {
    fireworks: [u8; NUM_COLORS],
    tokens: u8,
    lives: u8,
    mine: Vec<Know>,
    partners: Vec<Partner>,
    discards: Vec<(u8, u8)>,
    /// The card of mine the partner's last clue points at (newest touched), unless it was
    /// a rank-5 clue.
    pointed: Option<usize>,
}

fn color_of(word: &str) -> Option<u8> {
    COLOR_NAMES.iter().position(|c| c.eq_ignore_ascii_case(word.trim())).map(|i| i as u8)
}

/// "Red 3" → (0, 2).
fn card_of(words: &str) -> Option<(u8, u8)> {
    let mut it = words.split_whitespace();
    let c = color_of(it.next()?)?;
    let r: u8 = it.next()?.trim_end_matches(['.', ',', ';']).parse().ok()?;
    (1..=5).contains(&r).then_some((c, r - 1))
}

/// "[Red, Yellow] [1, 2] (clued Red)" → the knowledge.
fn know_of(text: &str) -> Option<Know> {
    let a = text.find('[')?;
    let b = text[a..].find(']')? + a;
    let c = text[b..].find('[')? + b;
    let d = text[c..].find(']')? + c;
    let colors = text[a + 1..b].split(',').filter_map(color_of).collect();
    let ranks = text[c + 1..d]
        .split(',')
        .filter_map(|r| r.trim().parse::<u8>().ok())
        .filter(|r| (1..=5).contains(r))
        .map(|r| r - 1)
        .collect();
    Some(Know { colors, ranks, clued: text[d..].contains("(clued") })
}

/// The card indices of "my Cards 1 and 3" / "my Card 2".
fn indices_after(text: &str, marker: &str) -> Vec<usize> {
    let Some(at) = text.find(marker) else { return Vec::new() };
    let rest = &text[at + marker.len()..];
    let rest = rest.trim_start_matches('s').trim_start();
    let end =
        rest.find(|c: char| !(c.is_ascii_digit() || c == ',' || c == ' ' || "and".contains(c))).unwrap_or(rest.len());
    rest[..end].split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse().ok()).collect()
}

/// The default preset's rules sentence on what a clue means; the paper preset's rules lack
/// it (docs/llmco.md#presets), and so does its state's clue marking.
const DEFAULT_CLUE_HINT: &str = "a clue also tells what the giver wants";

/// Whether a prompt whose game description is `rules` marks the clued cards ("(clued
/// Red)"): the default preset's does; the paper preset's, like the released agent's, only
/// narrows a clued card's colours or ranks, so there a card narrowed to one colour or one
/// rank is read as clued.
fn marks_clues(rules: &str) -> bool {
    rules.contains(DEFAULT_CLUE_HINT)
}

fn read_table_of(p: &Prompt<'_>) -> Table {
    let mut t = read_table(p.text);
    if !marks_clues(p.rules) {
        for k in t.mine.iter_mut().chain(t.partners.iter_mut().flat_map(|p| p.know.iter_mut())) {
            k.clued |= k.colors.len() == 1 || k.ranks.len() == 1;
        }
    }
    t
}

fn read_table(text: &str) -> Table {
    let mut t = Table { lives: 3, ..Table::default() };
    if let Some(v) = line_value(text, "Current stacks (cards on each):") {
        for part in v.trim_end_matches('.').split(',') {
            let mut it = part.split_whitespace();
            if let (Some(c), Some(h)) = (it.next().and_then(color_of), it.next().and_then(|h| h.parse::<u8>().ok())) {
                t.fireworks[c as usize] = h.min(5);
            }
        }
    }
    t.tokens = line_value(text, "Remaining reveal tokens:").and_then(|v| v.parse().ok()).unwrap_or(0);
    t.lives = line_value(text, "Remaining lives:").and_then(|v| v.parse().ok()).unwrap_or(1);
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("My Card ")
            && let Some((_, k)) = rest.split_once("could be:")
            && let Some(k) = know_of(k)
        {
            t.mine.push(k);
        } else if let Some(rest) = line.strip_prefix("I can see ")
            && let Some((name, cards)) = rest.split_once("'s cards:")
        {
            let cards = cards
                .trim_end_matches('.')
                .split(',')
                .filter_map(|c| c.split_once(':').and_then(|(_, w)| card_of(w)))
                .collect();
            t.partners.push(Partner { name: name.to_string(), cards, know: Vec::new() });
        } else if let Some((who, rest)) = line.split_once(" thinks their Card ")
            && let Some((_, k)) = rest.split_once("could be:")
            && let Some(k) = know_of(k)
            && let Some(p) = t.partners.iter_mut().find(|p| p.name == who)
        {
            p.know.push(k);
        } else if let Some(d) = line.strip_prefix("The discard pile:") {
            t.discards = d.trim_end_matches('.').split(',').filter_map(card_of).collect();
        }
    }
    // The partner's last clue, stated plainly or as the Theory-of-Mind step read it.
    let plain = text.lines().find(|l| l.contains("'s last action:") && l.contains("revealed my "));
    if let Some(l) = plain {
        let touched = indices_after(l, "my Card");
        if !l.contains("rank 5 cards") {
            t.pointed = touched.into_iter().max();
        }
    }
    if let Some(l) = text.lines().find(|l| l.starts_with("Interpretation of ")) {
        let pointed = indices_after(l, "wants me to play my Card");
        if let Some(&i) = pointed.first() {
            t.pointed = Some(i);
        }
    }
    t.pointed = t.pointed.filter(|&i| i < t.mine.len());
    t
}

impl Table {
    fn playable(&self, (c, r): (u8, u8)) -> bool {
        self.fireworks[c as usize] == r
    }
    fn useless(&self, (c, r): (u8, u8)) -> bool {
        r < self.fireworks[c as usize]
    }
    fn sure_play(&self, k: &Know) -> bool {
        k.candidates().next().is_some() && k.candidates().all(|x| self.playable(x))
    }
    fn maybe_play(&self, k: &Know) -> bool {
        k.candidates().any(|x| self.playable(x))
    }
    fn sure_useless(&self, k: &Know) -> bool {
        k.candidates().next().is_some() && k.candidates().all(|x| self.useless(x))
    }
    /// Whether playing my card `i` is what the convention does.
    fn may_play(&self, i: usize) -> bool {
        let Some(k) = self.mine.get(i) else { return false };
        self.sure_play(k) || (self.pointed == Some(i) && self.maybe_play(k) && self.lives >= 2)
    }
}

fn find(options: &[String], wanted: &str) -> Option<usize> {
    options.iter().position(|o| o.eq_ignore_ascii_case(wanted))
}

fn cap(c: u8) -> String {
    let n = COLOR_NAMES[c as usize % NUM_COLORS];
    format!("{}{}", &n[..1].to_uppercase(), &n[1..])
}

/// A hint's touched cards in `p`'s hand: (colour hint?, value).
fn touched(p: &Partner, color: bool, v: u8) -> Vec<usize> {
    (0..p.cards.len()).filter(|&j| if color { p.cards[j].0 == v } else { p.cards[j].1 == v }).collect()
}

/// Whether, after the hint, `p` may read its newest touched card as playable.
fn reads_as_play(t: &Table, p: &Partner, color: bool, v: u8, focus: usize) -> bool {
    if !color && v == 4 {
        return false;
    }
    let Some(k) = p.know.get(focus) else { return true };
    let after = if color {
        Know { colors: vec![v], ranks: k.ranks.clone(), clued: true }
    } else {
        Know { colors: k.colors.clone(), ranks: vec![v], clued: true }
    };
    t.maybe_play(&after)
}

/// The best play clue: (option index, explanation).
fn play_clue(t: &Table, options: &[String]) -> Option<(usize, String)> {
    let mut best: Option<(usize, usize, u8, String)> = None;
    for p in &t.partners {
        for (j, &card) in p.cards.iter().enumerate() {
            if !t.playable(card) || p.know.get(j).is_some_and(|k| t.sure_play(k)) {
                continue;
            }
            for color in [true, false] {
                let v = if color { card.0 } else { card.1 };
                let hit = touched(p, color, v);
                if hit.iter().max() != Some(&j) || !reads_as_play(t, p, color, v, j) {
                    continue;
                }
                let text = if color {
                    format!("Reveal {}'s {} color cards", p.name, cap(v))
                } else {
                    format!("Reveal {}'s rank {} cards", p.name, v + 1)
                };
                let Some(i) = find(options, &text) else { continue };
                let key = (hit.len(), card.1);
                if best.as_ref().is_none_or(|b| key < (b.1, b.2)) {
                    let why = format!(
                        "{}'s Card {j} is {} {}, which is playable now; this clue points at it",
                        p.name,
                        cap(card.0),
                        card.1 + 1
                    );
                    best = Some((i, hit.len(), card.1, why));
                }
            }
        }
    }
    best.map(|(i, _, _, why)| (i, why))
}

fn choose(t: &Table, options: &[String]) -> (String, usize) {
    // 1. A sure play, the lowest card first.
    if let Some(i) =
        (0..t.mine.len()).filter(|&i| t.sure_play(&t.mine[i])).min_by_key(|&i| t.mine[i].ranks.iter().max().copied())
        && let Some(o) = find(options, &format!("Play my Card {i}"))
    {
        return (format!("my Card {i} is surely the next card of its stack"), o);
    }
    // 2. The card a clue pointed at.
    if let Some(i) = t.pointed
        && t.may_play(i)
        && let Some(o) = find(options, &format!("Play my Card {i}"))
    {
        return (format!("the last clue pointed at my Card {i}, so it should be playable"), o);
    }
    // 3. A play clue.
    if t.tokens > 0
        && let Some((o, why)) = play_clue(t, options)
    {
        return (why, o);
    }
    // 4. Save a partner's 5 about to be discarded.
    if t.tokens > 0 {
        for p in &t.partners {
            let chop = (0..p.cards.len()).find(|&j| !p.know.get(j).is_some_and(|k| k.clued));
            if let Some(j) = chop
                && p.cards[j].1 == 4
                && let Some(o) = find(options, &format!("Reveal {}'s rank 5 cards", p.name))
            {
                return (format!("{}'s oldest unclued card is a 5, which must not be discarded", p.name), o);
            }
        }
    }
    // 5. Discard.
    let useless = (0..t.mine.len()).find(|&i| t.sure_useless(&t.mine[i]));
    let chop = (0..t.mine.len()).find(|&i| !t.mine[i].clued);
    for i in [useless, chop, Some(0)].into_iter().flatten() {
        if let Some(o) = find(options, &format!("Discard my Card {i}")) {
            let why = if Some(i) == useless {
                format!("my Card {i} can no longer be played, so discarding it costs nothing")
            } else {
                format!("no card is safe to play and no clue helps; my Card {i} is my oldest card without a clue")
            };
            return (why, o);
        }
    }
    // 6. Eight tokens: a clue that cannot be read as a play.
    for (o, text) in options.iter().enumerate() {
        let Some(rest) = text.strip_prefix("Reveal ") else { continue };
        let Some((name, what)) = rest.split_once("'s ") else { continue };
        let Some(p) = t.partners.iter().find(|p| p.name == name) else { continue };
        let (color, v) = if let Some(r) = what.strip_prefix("rank ") {
            (false, r.split_whitespace().next().and_then(|x| x.parse::<u8>().ok()).map_or(0, |x| x.saturating_sub(1)))
        } else {
            (true, what.split_whitespace().next().and_then(color_of).unwrap_or(0))
        };
        if let Some(&focus) = touched(p, color, v).iter().max()
            && !reads_as_play(t, p, color, v, focus)
        {
            return ("we hold all eight tokens; this clue gives information without asking for a play".into(), o);
        }
    }
    let o = options.iter().position(|o| o.starts_with("Reveal ")).unwrap_or(0);
    ("nothing is safe; a clue at least keeps our lives".into(), o)
}

impl Scripted for HanabiStandIn {
    const GAME: &'static str = "hanabi";
    const OPENING: &'static str = "The card game Hanabi";
    fn choose(&self, p: &Prompt<'_>) -> (String, usize) {
        choose(&read_table_of(p), &p.options)
    }

    fn verify(&self, p: &Prompt<'_>, proposal: &str) -> (String, bool) {
        let t = read_table_of(p);
        let index = |prefix: &str| proposal.strip_prefix(prefix).and_then(|r| r.trim().parse::<usize>().ok());
        if let Some(i) = index("Play my Card") {
            return if t.may_play(i) {
                (format!("Playing my Card {i} is safe: it is surely playable or a clue pointed at it."), true)
            } else {
                (format!("My Card {i} is not known to be playable; playing it may cost a life."), false)
            };
        }
        if let Some(i) = index("Discard my Card") {
            let five = t.mine.get(i).is_some_and(|k| k.ranks == [4]);
            return if five {
                (format!("My Card {i} is a 5, the only copy; discarding it loses its stack."), false)
            } else {
                ("Discarding regains a token and follows the rules.".into(), true)
            };
        }
        ("A clue follows the rules and cannot cost a life.".into(), t.tokens > 0 || !proposal.starts_with("Reveal"))
    }

    fn interpret(&self, p: &Prompt<'_>) -> String {
        let t = read_table_of(p);
        // The partner's move: the first line in the paper preset's Theory-of-Mind message, a
        // line after the state in the default preset's.
        let first = p.text.lines().find(|l| l.contains("'s last action:")).or(p.text.lines().next()).unwrap_or("");
        let meaning = match t.pointed {
            Some(i) if t.may_play(i) => {
                format!("The clue points at my Card {i}: my partner wants me to play my Card {i}.")
            }
            _ if first.contains("revealed my rank 5") => "The clue saves my 5; I should keep it.".to_string(),
            _ if first.contains("'s last action:") => format!("{} The action asks nothing of me.", first.trim()),
            _ => "My partner has not acted yet.".to_string(),
        };
        let suggestion = play_clue(&t, &p.options)
            .map_or("no clue marks a playable card now".to_string(), |(i, why)| {
                format!("{} ({why})", p.options.get(i).map(String::as_str).unwrap_or(""))
            });
        format!("Partner's Move Means: {meaning}\nClue To Give: {suggestion}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = "It is my (Alice's) turn.
Current stacks (cards on each): Red 1, Yellow 0, Green 0, White 0, Blue 0.
Next playable cards: only Red 2 can be played on the Red stack; only Yellow 1 can be played on the Yellow stack.
My cards, as far as I know them:
My Card 0 could be: [Red, Yellow, Green, White, Blue] [1, 2, 3, 4, 5]
My Card 1 could be: [Red] [2] (clued Red 2)
My Card 2 could be: [Yellow, Green] [1, 2, 3, 4, 5] (clued Yellow)
I can see Bob's cards: Card 0: Green 4, Card 1: Blue 1, Card 2: White 3.
What Bob knows of their cards:
Bob thinks their Card 0 could be: [Red, Yellow, Green, White, Blue] [1, 2, 3, 4, 5]
Bob thinks their Card 1 could be: [Red, Yellow, Green, White, Blue] [1, 2, 3, 4, 5]
Bob thinks their Card 2 could be: [Red, Yellow, Green, White, Blue] [1, 2, 3, 4, 5]
Remaining reveal tokens: 5
Remaining lives: 3
Deck size: 30
The discard pile: Green 1, Red 4.";

    fn options() -> Vec<String> {
        [
            "Reveal Bob's Green color cards",
            "Reveal Bob's Blue color cards",
            "Reveal Bob's White color cards",
            "Reveal Bob's rank 1 cards",
            "Reveal Bob's rank 3 cards",
            "Reveal Bob's rank 4 cards",
            "Play my Card 0",
            "Play my Card 1",
            "Play my Card 2",
            "Discard my Card 0",
            "Discard my Card 1",
            "Discard my Card 2",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    #[test]
    fn the_table_is_read_from_the_text() {
        let t = read_table(STATE);
        assert_eq!(t.fireworks, [1, 0, 0, 0, 0]);
        assert_eq!((t.tokens, t.lives), (5, 3));
        assert_eq!(t.mine.len(), 3);
        assert_eq!(t.mine[1], Know { colors: vec![0], ranks: vec![1], clued: true });
        assert_eq!(t.partners[0].cards, vec![(2, 3), (4, 0), (3, 2)]);
        assert_eq!(t.partners[0].know.len(), 3);
        assert_eq!(t.discards, vec![(2, 0), (0, 3)]);
        assert_eq!(t.pointed, None);
    }

    #[test]
    fn sure_plays_come_first_then_clues_then_discards() {
        let (_, i) = choose(&read_table(STATE), &options());
        assert_eq!(options()[i], "Play my Card 1");
        // Without the sure card: Bob's Blue 1 is playable and the newest Blue card.
        let no_sure = STATE.replace("[Red] [2] (clued Red 2)", "[Red] [3, 4]");
        let (_, i) = choose(&read_table(&no_sure), &options());
        assert_eq!(options()[i], "Reveal Bob's Blue color cards");
        // Without tokens: discard the oldest card without a clue.
        let broke = no_sure.replace("Remaining reveal tokens: 5", "Remaining reveal tokens: 0");
        let (_, i) = choose(&read_table(&broke), &options());
        assert_eq!(options()[i], "Discard my Card 0");
    }

    #[test]
    fn a_clue_pointing_at_a_card_is_played_and_verified() {
        let pointed = STATE.replace("[Red] [2] (clued Red 2)", "[Red] [3, 4]")
            + "\nBob's last action: Bob revealed my Yellow cards: my Card 2.";
        let t = read_table(&pointed);
        assert_eq!(t.pointed, Some(2));
        let (_, i) = choose(&t, &options());
        assert_eq!(options()[i], "Play my Card 2");
        let p = Prompt { rules: "", text: &pointed, options: options() };
        assert!(HanabiStandIn.verify(&p, "Play my Card 2").1);
        assert!(!HanabiStandIn.verify(&p, "Play my Card 0").1);
        assert!(HanabiStandIn.interpret(&p).contains("wants me to play my Card 2"));
        // A rank-5 clue saves.
        let save = pointed.replace("revealed my Yellow cards", "revealed my rank 5 cards");
        assert_eq!(read_table(&save).pointed, None);
    }
}
