//! The `scripted` stand-in for the LLM-Coordination agent's lever-game prompts: a
//! rule-based reader of the prompt text, **not a language model**. From the state it reads
//! which lever is special and every earlier round's pulls. Then:
//!
//! 1. after a matched round, pull the same lever again (keep what works);
//! 2. when the partner pulled one lever in each of its last two rounds, pull that one (it
//!    holds a convention: join it);
//! 3. else pull the special lever, the one lever a stranger can single out.
//!
//! Two such readers meet on the special lever in the first round; a partner that copies
//! meets it in the second. Verification accepts every listed action; the Theory-of-Mind
//! answer predicts the partner's next lever by the same rules seen from its side.

use crate::llmco::maze_text::number_after;
use crate::llmco::standin::{Prompt, Scripted, StandInModel};

/// The lever-game reader (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct LeverStandIn;

impl LeverStandIn {
    /// The stand-in as a language model named `scripted`.
    pub fn model() -> StandInModel<LeverStandIn> {
        StandInModel::new(LeverStandIn)
    }
}

/// Everything the stand-in reads: the special lever and per round (mine, the partner's),
/// levers 1-based, `None` for no pull.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Scene {
    special: Option<u32>,
    rounds: Vec<(Option<u32>, Option<u32>)>,
}

fn pull_of(part: &str) -> Option<u32> {
    part.starts_with("lever ").then(|| number_after(part, "lever ")).flatten()
}

fn read_scene(text: &str) -> Scene {
    let special = number_after(text, "The special lever is lever ");
    let rounds = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("Round ") && l.contains(": I ("))
        .map(|l| {
            let mut parts = l.split("pulled ").skip(1);
            (parts.next().and_then(pull_of), parts.next().and_then(pull_of))
        })
        .collect();
    Scene { special, rounds }
}

/// The lever the rules pick for the player whose pulls are `mine` against `theirs`.
fn pick(rounds: &[(Option<u32>, Option<u32>)], special: Option<u32>) -> (String, Option<u32>) {
    if let Some(&(Some(a), Some(b))) = rounds.last()
        && a == b
    {
        return (format!("we matched on lever {a} last round, so I keep pulling it"), Some(a));
    }
    if let [.., (_, Some(x)), (_, Some(y))] = rounds
        && x == y
    {
        return (format!("my partner keeps pulling lever {x}, so I join it there"), Some(*x));
    }
    ("the special lever is the only one we can both single out without a convention".into(), special)
}

impl Scripted for LeverStandIn {
    const GAME: &'static str = "lever";
    const OPENING: &'static str = "The lever game";
    fn choose(&self, p: &Prompt<'_>) -> (String, usize) {
        let s = read_scene(p.text);
        let (why, lever) = pick(&s.rounds, s.special);
        let at = lever.and_then(|l| p.options.iter().position(|o| *o == format!("pull lever {l}")));
        match at {
            Some(i) => (why, i),
            None => ("I cannot read the levers, so I pull the first one".into(), 0),
        }
    }

    fn verify(&self, _p: &Prompt<'_>, proposal: &str) -> (String, bool) {
        (format!("\"{proposal}\" is a lever we may pull."), true)
    }

    fn interpret(&self, p: &Prompt<'_>) -> String {
        let s = read_scene(p.text);
        // The partner's side: its pulls first.
        let theirs: Vec<_> = s.rounds.iter().map(|&(a, b)| (b, a)).collect();
        let (why, lever) = pick(&theirs, s.special);
        let lever = lever.map_or_else(|| "no lever I can tell".to_string(), |l| format!("lever {l}"));
        format!("Partner Prediction: {lever}.\nPartner Reason: {why}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Vec<String> {
        (1..=10).map(|l| format!("pull lever {l}")).collect()
    }

    fn choice(text: &str) -> usize {
        let options = options();
        LeverStandIn.choose(&Prompt { rules: "", text, options }).1
    }

    #[test]
    fn the_reader_takes_the_special_lever_then_keeps_or_joins() {
        let head = "Round 1 of 10. Our score: 0.\nThe special lever is lever 4: it pays 9 points; the other 9 levers pay 10.\n";
        assert_eq!(choice(&format!("{head}No round has been played yet.")), 3);
        let matched = format!("{head}Round 1: I (Alice) pulled lever 7, Bob pulled lever 7: a match, 10 points.");
        assert_eq!(choice(&matched), 6);
        let sticks = format!(
            "{head}Round 1: I (Alice) pulled lever 4, Bob pulled lever 1: no match, 0 points.\nRound 2: I (Alice) pulled lever 4, Bob pulled lever 1: no match, 0 points."
        );
        assert_eq!(choice(&sticks), 0);
        let wanders = format!(
            "{head}Round 1: I (Alice) pulled lever 4, Bob pulled lever 10: no match, 0 points.\nRound 2: I (Alice) pulled no lever, Bob pulled lever 2: no match, 0 points."
        );
        assert_eq!(read_scene(&wanders).rounds, vec![(Some(4), Some(10)), (None, Some(2))]);
        assert_eq!(choice(&wanders), 3);
        let p = Prompt { rules: "", text: &sticks, options: Vec::new() };
        assert!(
            LeverStandIn.interpret(&p).starts_with("Partner Prediction: lever 4."),
            "{}",
            LeverStandIn.interpret(&p)
        );
        assert_eq!(choice("nothing to read"), 0);
    }
}
