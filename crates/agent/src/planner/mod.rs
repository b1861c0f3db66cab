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
