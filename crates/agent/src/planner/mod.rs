//! The planner, in the paper's two parts: the prompt it sends ([`prompt`]: the prompt
//! levels, the belief block, the scene with the recent memory, the re-plan suffix) and
//! the reading of the model's reply ([`reply`]: analysis, intention and plan, for any
//! skill vocabulary a game supplies).
//!
//! Guarantees: nothing here names a game. A game supplies its templates, writes its skills
//! for prompts, and reads them from reply fields through [`reply::SkillReader`] or
//! [`reply::reply_fields`] (its grounding, in [`crate::grounding`]).

pub mod prompt;
pub mod reply;

pub use prompt::{PromptLevel, SceneParts, belief_block, replan_message, scene_message};
pub use reply::{
    Mention, PlanReply, ReplyFields, ReplyParseError, SkillReader, StructuredReplyError, Subject, clean_reply,
    plan_schema, read_reply, reply_fields, structured_plan_text,
};
pub(crate) use reply::{answer_part, clean_lines, json_as_lines};

#[cfg(test)]
mod tests {
    /// The planner's code names no game: a game's words (its skills, its objects) come from
    /// its grounding. Comments may use them as examples; tests are left out.
    #[test]
    fn the_planner_code_names_no_game() {
        let words = ["onion", "tomato", "pickup", "soup", "dish", "overcooked", "kitchen", "hanabi", "capture"];
        for (file, text) in [
            ("mod.rs", include_str!("mod.rs")),
            ("prompt.rs", include_str!("prompt.rs")),
            ("reply.rs", include_str!("reply.rs")),
        ] {
            let code = text.split("#[cfg(test)]").next().unwrap_or(text);
            for (i, line) in code.lines().enumerate() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                let lower = line.to_ascii_lowercase();
                for w in words {
                    assert!(!lower.contains(w), "planner/{file}:{}: names {w:?}: {line}", i + 1);
                }
            }
        }
    }
}
