//! Reading classic Overcooked's skills from a planner reply: [`ClassicSkills`] gives the
//! planner's reply reader the paper's six skills plus `wait(n)`, and [`parse_reply`] reads
//! a reply with them.
//!
//! Guarantees: total on any text (a reply that yields no skill for the seat is a
//! [`ReplyParseError`] keeping the raw text); the rules are the planner's
//! ([`crate::planner::reply`]).

use crate::planner::reply::{Mention, PlanReply, ReplyParseError, SkillReader, Subject, read_reply};
use proagent_overcooked::skills::Skill;
use proagent_overcooked::skills::parser::Subject as Said;

/// Classic Overcooked's skill vocabulary for the reply reader.
#[derive(Copy, Clone, Debug, Default)]
pub struct ClassicSkills;

impl SkillReader for ClassicSkills {
    type Skill = Skill;

    fn mentions(&self, text: &str) -> Vec<Mention<Skill>> {
        Skill::mentions(text)
            .into_iter()
            .map(|m| Mention {
                skill: m.skill.map_err(|e| e.reason),
                subject: match m.subject {
                    Said::Unknown => Subject::Unknown,
                    Said::Speaker => Subject::Speaker,
                    Said::Player(k) => Subject::Player(k),
                    Said::Teammate => Subject::Teammate,
                },
                negated: m.negated,
            })
            .collect()
    }

    fn parse_line(&self, line: &str) -> Option<Skill> {
        Skill::parse(line).ok()
    }
}

/// Parses a planner reply for player `me` (0 or 1; the teammate is the other seat) with
/// classic Overcooked's skills, under the planner's rules.
pub fn parse_reply(raw: &str, me: usize) -> Result<PlanReply<Skill>, ReplyParseError> {
    read_reply(raw, me, &ClassicSkills)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::skills::Skill::{self, *};

    #[test]
    fn messy_replies() {
        let table: &[(&str, Result<Skill, &str>)] = &[
            (
                "Analysis: pot empty.\nIntention for Player 1: \"pickup(onion)\".\nPlan for Player 0: \"pickup(onion)\".",
                Ok(PickupOnion),
            ),
            ("<think>Maybe pickup(dish)? No.</think>\nPlan for Player 0: put_onion_in_pot()", Ok(PutOnionInPot)),
            (
                "<THINK>long thoughts\nPlan for Player 0: deliver_soup()</THINK>Plan for Player 0: pickup(dish)",
                Ok(PickupDish),
            ),
            ("thinking about it...</think>\nPlan for Player 0: wait(3)", Ok(Wait(3))),
            (
                "<think>I was cut off before answering. Plan for Player 0: pickup(onion)",
                Err("no 'Plan for Player 0:' field"),
            ),
            (
                "**Analysis:** the soup is ready.\n**Intention for Player 1:** *pickup(onion)*\n**Plan for Player 0:** **fill_dish_with_soup()**",
                Ok(FillDishWithSoup),
            ),
            ("analysis: ok\nplan for player 0: pick up dish", Ok(PickupDish)),
            ("PLAN FOR PLAYER 0: DELIVER_SOUP()", Ok(DeliverSoup)),
            ("```\nAnalysis: x\nPlan for Player 0: \"place_obj_on_counter()\"\n```", Ok(PlaceObjOnCounter)),
            ("Plan for Player 0: I think the best is to deliver the soup now, i.e. deliver_soup().", Ok(DeliverSoup)),
            ("Plan for Player 0: \"wait(20)\" or \"pickup(dish)\".", Ok(Wait(20))),
            ("Plan for Player 0: \"deliver_soup(), pickup(onion)\".", Ok(DeliverSoup)),
            ("Plan for <Player 0>: 'pickup(onion)'", Ok(PickupOnion)),
            ("### Plan for Player 0:\npickup(onion)", Ok(PickupOnion)),
            ("Plan for Player 0:\n\n  put_onion_in_pot()\n", Ok(PutOnionInPot)),
            (
                "Intention for Player 1: pickup(onion)\nPlan for Player 1: pickup(dish)\nPlan for Player 0: pickup(onion)",
                Ok(PickupOnion),
            ),
            ("pickup(onion)", Ok(PickupOnion)),
            ("\"fill_dish_with_soup()\"", Ok(FillDishWithSoup)),
            ("Plan for Player 0: wait(50)", Err("0 < n <= 20")),
            ("Plan for Player 0: cook the soup", Err("names no allowed skill")),
            (
                "Analysis: Player 1 should pickup(onion) and I should deliver_soup().",
                Err("no 'Plan for Player 0:' field"),
            ),
            ("I think we should coordinate better.", Err("no 'Plan for Player 0:' field")),
            ("", Err("no 'Plan for Player 0:' field")),
            ("Intention for Player 1: \"put_onion_in_pot()\"", Err("no 'Plan for Player 0:' field")),
        ];
        for (text, want) in table {
            match (parse_reply(text, 0), want) {
                (Ok(r), Ok(s)) => assert_eq!(r.plan, *s, "{text:?}"),
                (Err(e), Err(frag)) => {
                    assert!(e.reason.contains(frag), "{text:?}: {}", e.reason);
                    assert_eq!(e.raw, *text);
                }
                (got, want) => panic!("{text:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn fields_and_seat_one() {
        let r = parse_reply(
            "Analysis: The pot has 2 onions.\n  Player 0 holds one.\nIntention for Player 0: \"put_onion_in_pot()\".\nPlan for Player 1: \"pickup(dish)\".",
            1,
        )
        .unwrap();
        assert_eq!(r.analysis.as_deref(), Some("The pot has 2 onions. Player 0 holds one."));
        assert_eq!(r.intention, Some(PutOnionInPot));
        assert_eq!(r.plan, PickupDish);
        let r = parse_reply("Intention for Player 0: who knows\nPlan for Player 1: wait(2)", 1).unwrap();
        assert_eq!(r.intention, None);
        assert!(r.intention_error.is_some());
        // "Plan for Player 0" is not seat 1's plan.
        assert!(parse_reply("Plan for Player 0: pickup(onion)", 1).is_err());
        // A field-like word inside a sentence is not a header.
        let r = parse_reply("Analysis: my plan is simple.\nPlan for Player 0: pickup(dish)", 0).unwrap();
        assert_eq!(r.plan, PickupDish);
    }

    #[test]
    fn anchored_headers_and_the_last_complete_plan() {
        // The issue's reply: "My plan:" inside the analysis is prose, not the plan field.
        let raw = "Analysis: The pot is empty. My plan: get onions first.\nPlan for Player 0: \"pickup(onion)\"";
        let r = parse_reply(raw, 0).unwrap();
        assert_eq!(r.plan, PickupOnion);
        assert_eq!(r.analysis.as_deref(), Some("The pot is empty. My plan: get onions first."));
        // Drafts and revisions: the last plan field that names a skill.
        let raw =
            "Plan for Player 1: wait(1)\nWait, no.\nPlan for Player 1: pickup(dish)\nPlan for Player 1: see above";
        assert_eq!(parse_reply(raw, 1).unwrap().plan, PickupDish);
        // A plan for the other seat only is a failure that says so.
        let e = parse_reply("Plan for Player 1: pickup(onion)", 0).unwrap_err();
        assert!(e.reason.contains("no 'Plan for Player 0:' field (it only plans for Player 1)"), "{}", e.reason);
        // The teammate's skill and a rejected one are passed over within a field.
        let raw = "Plan for Player 0: Since Player 1 will put_onion_in_pot(), not wait(2) but pickup(dish).";
        assert_eq!(parse_reply(raw, 0).unwrap().plan, PickupDish);
        // JSON keys in the order written; the teammate's plan is its expected intention.
        let r = parse_reply(r#"{"plan_for_player_1": "pickup(onion)", "plan_for_player_0": "wait(2)"}"#, 0).unwrap();
        assert_eq!((r.plan, r.intention), (Wait(2), Some(PickupOnion)));
        // An invented next scene after the answer is not read.
        let raw =
            "Plan for Player 0: pickup(onion)\nScene 4: <Player 0> holds one onion.\nPlan for Player 0: deliver_soup()";
        assert_eq!(parse_reply(raw, 0).unwrap().plan, PickupOnion);
    }
}
