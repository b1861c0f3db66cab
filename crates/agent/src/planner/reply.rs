//! The planner's reply reading: the model's reply into analysis, intention and plan, for
//! any game whose skills a [`SkillReader`] recognises ([`read_reply`]), or into the
//! fields as text for games that read their own skills ([`reply_fields`]). The examples
//! below use the kitchen skills (`pickup(onion)`, `wait(n)`); the rules are the same for
//! every vocabulary.
//!
//! # Reading a reply
//!
//! Replies are untrusted text, and real models do not stick to the requested
//! `Analysis: / Intention for Player m: / Plan for Player k:` lines. The reader
//! follows these rules (the corpus test `tests/it/reply_corpus.rs` holds them to
//! 250-odd replies in the styles of GPT-3.5, GPT-4, Llama-3, Qwen, DeepSeek-R1
//! and Mistral):
//!
//! - **What counts as the answer.** `<think>` / `<thinking>` / `<reasoning>`
//!   blocks are dropped (an unclosed one runs to the end; a lone closing tag means
//!   the opening one was in the chat template). Text after a leaked end-of-turn
//!   token (`<|eot_id|>`, `<|im_end|>`, `<|end|>`, `</s>`, ...) is the model
//!   writing the next turn itself and is dropped, as is everything from a
//!   `Scene <n>:` or `Instruction` line that follows a readable plan (an
//!   invented next scene). `<answer>` tags, code fences, markdown emphasis,
//!   headings, bullets, list numbers, block quotes, table pipes and LaTeX
//!   wrappers (`$`, `\(`, `\[`, `\text{}`, `\boxed{}`, `\_`) are removed.
//! - **Field headers are anchored.** A header starts a line (after that markup
//!   and any opening quote or bracket), or directly follows another header's
//!   separator (`**Final Answer:** Plan for Player 0: ...`). Its label is
//!   `Analysis`, `Intention` (also `predicted intention`, `Player 1's
//!   intention`), or a plan label: `Plan` (also `my / final / next / revised
//!   plan`, `next action`, `next skill`, `final answer`). It may name a player
//!   (`Player 0`, `Player0`, `player_0`, `<Player 0>`, `Player #0`, `P0`,
//!   `(me)` asides) before or after the label, and ends with `:`, `：`, ` - `,
//!   `—`, `=`, `→`, or is a heading alone on its line (`### Plan for Player 0`,
//!   the skill on the next line). `Plan for Player k is ...` also counts. In the
//!   middle of a line only a header that names one player and ends with `:` or
//!   `is` counts (`... full. Intention for Player 1: ...`): so `My plan: get
//!   onions first.` inside the analysis is prose, never the plan field. Lines
//!   labelled `Player k:` (joint plans, tables, JSON per player) are fields for
//!   that player when they stand alone or under a plan label without a player.
//!   `Explanation:`, `Reasoning:`, `Note:`, `Alternative:`, `Rejected plan:` and
//!   the like end the field before them.
//! - **Which plan field wins.** The agent's own `Plan for Player k` fields (k =
//!   its seat) come first; failing those, plan fields naming no player (`Plan:`,
//!   `Final answer:`, a joint plan's `Player k:` line); failing those, stand-alone
//!   `Player k:` lines; failing those, a line before any field that is a skill and
//!   nothing else (a bare `pickup(onion)` reply). Among fields of the winning kind
//!   the **last** one that names a skill is the plan, so a reply that drafts and
//!   then revises (`Plan for Player 0: wait(1)` ... `Wait, no.` ... `Plan for
//!   Player 0: pickup(dish)`) is read as revised; a field that names no skill
//!   (cut off, "see below") is passed over. A plan for the teammate's seat is
//!   never the agent's plan.
//! - **Several skills in one field.** The first skill the field states is the
//!   plan: `pickup(onion), then put_onion_in_pot()` → `pickup(onion)`; `either
//!   pickup(onion) or pickup(dish)` → `pickup(onion)` (the writer's first choice,
//!   as a careful reader takes it); `if the soup is done, fill_dish_with_soup();
//!   otherwise wait(2)` → `fill_dish_with_soup()`. Skipped are skills the words
//!   reject (`not X`, `don't X`, `instead of X`, `rather than X`, `X is not
//!   possible`) and skills whose subject is the teammate (`Since Player 1 will
//!   put_onion_in_pot(), I will pickup(dish)` → `pickup(dish)`). Trailing
//!   explanation after the skill is ignored; the skill may sit on the line after
//!   the label, in backticks, quotes, brackets, bold or LaTeX.
//! - **Intention** is read the same way from the teammate's `Intention` fields
//!   (then unlabelled ones); without any, from the reply's plan for the
//!   teammate's seat or its `Player m:` line. Skills whose subject is the agent
//!   itself are skipped there. An intention field that names no skill leaves the
//!   intention empty with the reason in `intention_error`.
//! - **JSON answers** (`{"plan_for_player_0": "..."}`, also with single quotes
//!   or a trailing comma, nested per player) are read key by key under the same
//!   rules, in the order written.
//!
//! A reply that yields no skill for the agent's seat is a [`ReplyParseError`]
//! that keeps the raw text; it is never turned into a wait here, and never a
//! guess from a skill merely mentioned in the analysis.

use serde::{Deserialize, Serialize};

/// The JSON schema a structured planner request asks the reply in:
/// `{"analysis": ..., "intention": ..., "plan": ...}`, every field a required string; the
/// plan field is described by `plan`, in the game's own words (the grounding's
/// [`crate::grounding::Grounding::PLAN_FIELD`]).
pub fn plan_schema(plan: &'static str) -> proagent_llm::ResponseSchema {
    use proagent_llm::structured::Field;
    proagent_llm::ResponseSchema::object(
        "proagent_plan",
        &[
            Field::text("analysis", "what the scene means for the team"),
            Field::text("intention", "the teammate's next skill"),
            Field::text("plan", plan),
        ],
    )
}

/// A structured planner reply: exactly the fields of [`plan_schema`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanJson {
    analysis: String,
    intention: String,
    plan: String,
}

/// Reads a structured planner reply strictly (a JSON object with exactly the fields of
/// [`plan_schema`]) and writes it as the labelled text the skill readers read, for player
/// `me` whose teammate is `mate`: `Analysis:`, `Intention for Player m:`, `Plan for Player k:`.
/// `Err` says why the reply does not fit the schema.
pub fn structured_plan_text(raw: &str, me: usize, mate: Option<usize>) -> Result<String, StructuredReplyError> {
    let p: PlanJson = serde_json::from_str(raw.trim()).map_err(|e| {
        StructuredReplyError(format!("the reply is not the plan schema's JSON ({e}): {:?}", cut(raw, 300)))
    })?;
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = format!("Analysis: {}\n", one_line(&p.analysis));
    if let Some(m) = mate {
        out.push_str(&format!("Intention for Player {m}: {}\n", one_line(&p.intention)));
    }
    out.push_str(&format!("Plan for Player {me}: {}", one_line(&p.plan)));
    Ok(out)
}

/// Why a structured reply does not fit its schema; the message quotes the start of the
/// raw reply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StructuredReplyError(pub String);

/// At most `n` characters of `s`, with "..." when cut.
fn cut(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        out.push_str("...");
    }
    out
}

/// A planner reply, parsed; `S` is the game's skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanReply<S> {
    /// The first analysis field, whitespace-collapsed; `None` when absent or empty.
    pub analysis: Option<String>,
    /// The teammate's predicted skill, when the reply states one.
    pub intention: Option<S>,
    /// Why the intention field could not be read, when it was present but unreadable.
    pub intention_error: Option<String>,
    /// The skill the reply chooses for the agent's seat.
    pub plan: S,
}

/// A reply that yields no plan. `raw` is the reply as received.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{reason}")]
pub struct ReplyParseError {
    /// The reply as received.
    pub raw: String,
    /// Why no plan could be read, naming the field ("the 'Plan for Player 0:' field names no allowed skill").
    pub reason: String,
}

/// Who a skill named in a field is about, as a game's [`SkillReader`] reads the words
/// next to it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// No subject next to the skill (`pickup(onion)`, `so pickup(dish)`).
    Unknown,
    /// The writer: `I`, `I'll`, `me`, `my next skill is`.
    Speaker,
    /// A player by seat: `Player k`, `<Player k>`, `P k`.
    Player(usize),
    /// `my teammate`, `the partner`, `the other player`.
    Teammate,
}

/// One skill named in a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention<S> {
    /// The skill, or why the words that name it are not an allowed one.
    pub skill: Result<S, String>,
    /// Whom the skill is about.
    pub subject: Subject,
    /// Whether the words reject it (`not X`, `instead of X`).
    pub negated: bool,
}

/// A game's skill vocabulary, as [`read_reply`] needs it.
pub trait SkillReader {
    /// The game's skill.
    type Skill;
    /// Every skill `text` names, in order.
    fn mentions(&self, text: &str) -> Vec<Mention<Self::Skill>>;
    /// The skill a line is and nothing else (a bare `pickup(onion)` reply), if it is one.
    fn parse_line(&self, line: &str) -> Option<Self::Skill>;
}

/// Chat-template tokens after which a model goes on to write the next turn itself.
const END_OF_TURN: [&str; 11] = [
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|endoftext|>",
    "<|eom_id|>",
    "<end_of_turn>",
    "</s>",
    "<|im_start|>",
    "<|start_header_id|>",
    "<|user|>",
    "<|assistant|>",
];

/// Wrapper tags and template tokens that carry no content.
const NOISE_TAGS: [&str; 14] = [
    "<answer>",
    "</answer>",
    "<response>",
    "</response>",
    "<output>",
    "</output>",
    "<final_answer>",
    "</final_answer>",
    "<example>",
    "</example>",
    "[/inst]",
    "[inst]",
    "<s>",
    "<|begin_of_text|>",
];

/// Removes `<think>`-style blocks: an unclosed block runs to the end, a lone closing
/// tag means the opening one was part of the chat template.
fn strip_thinking(text: &str) -> String {
    let mut s = text.to_string();
    for (open, close) in [("<think>", "</think>"), ("<thinking>", "</thinking>"), ("<reasoning>", "</reasoning>")] {
        let lower = s.to_ascii_lowercase();
        let mut out = String::with_capacity(s.len());
        let mut at = 0;
        // A closing tag before any opening one: everything up to it was reasoning.
        if let Some(b) = lower.find(close) {
            if lower.find(open).is_none_or(|a| a > b) {
                at = b + close.len();
            }
        }
        while let Some(a) = lower[at..].find(open).map(|p| at + p) {
            out.push_str(&s[at..a]);
            match lower[a..].find(close) {
                Some(b) => at = a + b + close.len(),
                None => {
                    at = s.len();
                    break;
                }
            }
        }
        out.push_str(&s[at..]);
        s = out;
    }
    s
}

/// Removes every case-insensitive occurrence of `tag`.
fn remove_tag(s: &str, tag: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    while let Some(p) = lower[at..].find(tag) {
        out.push_str(&s[at..at + p]);
        at += p + tag.len();
    }
    out.push_str(&s[at..]);
    out
}

/// The part of a reply that is the model's answer to this turn: reasoning blocks, wrapper
/// tags and anything after a leaked end-of-turn token removed.
pub(crate) fn answer_part(text: &str) -> String {
    let mut s = strip_thinking(text);
    let lower = s.to_ascii_lowercase();
    let mut cut = s.len();
    for tok in END_OF_TURN {
        let mut from = 0;
        while let Some(p) = lower[from..].find(tok) {
            let at = from + p;
            // A template token before any content opens the turn; it does not end it.
            if s[..at].trim().is_empty() {
                from = at + tok.len();
                continue;
            }
            cut = cut.min(at);
            break;
        }
    }
    s.truncate(cut);
    for tag in NOISE_TAGS.iter().chain(END_OF_TURN.iter()) {
        s = remove_tag(&s, tag);
    }
    s
}

/// LaTeX commands whose argument is the content (`\text{pickup(onion)}`).
const LATEX_WRAPPERS: [&str; 17] = [
    "text",
    "texttt",
    "textbf",
    "textit",
    "textsf",
    "mathrm",
    "mathtt",
    "mathbf",
    "mathit",
    "mathsf",
    "boxed",
    "emph",
    "operatorname",
    "mbox",
    "displaystyle",
    "quad",
    "qquad",
];

/// Undoes LaTeX wrapping: `$\boxed{\text{fill\_dish\_with\_soup()}}$` → `fill_dish_with_soup()`.
fn unlatex(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c == '\\' {
            let after = &rest[1..];
            let name_len = after.bytes().take_while(u8::is_ascii_alphabetic).count();
            if name_len > 0 && LATEX_WRAPPERS.contains(&&after[..name_len]) {
                rest = &after[name_len..];
                continue;
            }
            if let Some(n) = after.chars().next().filter(|n| matches!(n, '_' | '(' | ')' | '[' | ']' | '{' | '}' | '$'))
            {
                if n == '_' {
                    out.push('_');
                }
                rest = &after[n.len_utf8()..];
                continue;
            }
        }
        if !matches!(c, '$' | '{' | '}') {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Strips leading markup from a line: headings, quotes, bullets and list numbers.
fn strip_leading_markup(mut t: &str) -> &str {
    loop {
        let before = t;
        t = t.trim_start();
        t = t.trim_start_matches(['#', '>']);
        for bullet in ["- ", "+ ", "• ", "· ", "– "] {
            if let Some(r) = t.strip_prefix(bullet) {
                t = r;
            }
        }
        if t == "-" || t == "•" {
            t = "";
        }
        // "1. ", "2) ", "(3) "
        let inner = t.strip_prefix('(').unwrap_or(t);
        let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
        if (1..=3).contains(&digits) {
            let r = &inner[digits..];
            let r = r.strip_prefix(['.', ')']).unwrap_or("x");
            if r.is_empty() || r.starts_with([' ', '\t']) {
                t = r;
            }
        }
        if t.len() == before.len() {
            return t;
        }
    }
}

/// Removes reasoning blocks, end-of-turn continuations, code fences, tables, LaTeX
/// wrappers, markdown emphasis and leading markup, line by line.
pub fn clean_reply(text: &str) -> String {
    clean_lines(&answer_part(text))
}

/// [`clean_reply`] without the answer extraction (for text that is already the answer).
pub(crate) fn clean_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            // The fence goes, its content stays.
            continue;
        }
        let mut t = t.to_string();
        if t.starts_with('|') {
            let cells: Vec<&str> = t.trim_matches('|').split('|').map(str::trim).collect();
            if cells.iter().all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' '))) {
                continue;
            }
            t = match cells.split_first() {
                Some((first, rest)) if !rest.is_empty() => format!("{first}: {}", rest.join(" ")),
                _ => cells.join(" "),
            };
        }
        if t.contains(['\\', '$']) {
            t = unlatex(&t);
        }
        let t: String = t.chars().filter(|&c| c != '*' && c != '`').collect();
        out.push_str(strip_leading_markup(&t).trim());
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------------
// JSON answers

/// A JSON value with object keys in the order written (the last plan key may matter).
enum Json {
    Scalar(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Scalar(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Scalar(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Scalar(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(Json::Scalar(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::Scalar(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Scalar(String::new()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = seq.next_element()? {
                    items.push(v);
                }
                Ok(Json::List(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    entries.push((k, v));
                }
                Ok(Json::Object(entries))
            }
        }
        d.deserialize_any(V)
    }
}

impl Json {
    fn render(&self) -> String {
        match self {
            Json::Scalar(s) => s.split_whitespace().collect::<Vec<_>>().join(" "),
            Json::List(items) => items.iter().map(Json::render).collect::<Vec<_>>().join(", "),
            Json::Object(entries) => {
                entries.iter().map(|(k, v)| format!("{k} {}", v.render())).collect::<Vec<_>>().join("; ")
            }
        }
    }
}

fn parse_json_object(s: &str) -> Option<Vec<(String, Json)>> {
    match serde_json::Deserializer::from_str(s).into_iter::<Json>().next()? {
        Ok(Json::Object(entries)) => Some(entries),
        _ => None,
    }
}

/// Common slips in model-written JSON: trailing commas, single quotes.
fn repair_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == ',' && chars[i + 1..].iter().find(|c| !c.is_whitespace()).is_some_and(|n| matches!(n, '}' | ']')) {
            continue;
        }
        out.push(c);
    }
    if !out.contains('"') { out.replace('\'', "\"") } else { out }
}

/// A JSON object in the answer, as `key: value` lines in the order written.
pub(crate) fn json_as_lines(answer: &str) -> Option<String> {
    let start = answer.find('{')?;
    let end = answer.rfind('}')?;
    if end < start {
        return None;
    }
    let slice = &answer[start..=end];
    let entries = parse_json_object(slice).or_else(|| parse_json_object(&repair_json(slice)))?;
    let mut out = String::new();
    for (k, v) in entries {
        out.push_str(&format!("{k}: {}\n", v.render()));
    }
    Some(out)
}

// ---------------------------------------------------------------------------------
// Field headers

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Analysis,
    Intention,
    Plan,
    /// A `Player k:` line.
    PlayerLine,
    /// A label that ends the field before it (`Explanation:`, `Note:`).
    Other,
    /// `Scene 12:` / `Instruction 2:` — an invented next turn, once a plan was given.
    Stop,
}

/// Which players a header names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Seat {
    Unnamed,
    One(usize),
    Several,
}

/// A field header found in the cleaned text.
#[derive(Copy, Clone, Debug)]
struct Field {
    kind: Kind,
    seat: Seat,
    start: usize,
    content: usize,
    /// For a `Player k:` line: it stands under a plan label that names no player.
    under_plan: bool,
}

const PLAN_ADJ: [&str; 12] = [
    "my",
    "final",
    "next",
    "new",
    "revised",
    "updated",
    "chosen",
    "selected",
    "current",
    "corrected",
    "proposed",
    "the",
];
const LABELS: &[(&[&str], Kind)] = &[
    (&["analysis"], Kind::Analysis),
    (&["scene", "analysis"], Kind::Analysis),
    (&["situation", "analysis"], Kind::Analysis),
    (&["intention"], Kind::Intention),
    (&["predicted", "intention"], Kind::Intention),
    (&["expected", "intention"], Kind::Intention),
    (&["likely", "intention"], Kind::Intention),
    (&["teammate", "intention"], Kind::Intention),
    (&["teammate", "s", "intention"], Kind::Intention),
    (&["partner", "intention"], Kind::Intention),
    (&["partner", "s", "intention"], Kind::Intention),
    (&["plan"], Kind::Plan),
    (&["action"], Kind::Plan),
    (&["skill"], Kind::Plan),
    (&["answer"], Kind::Plan),
    (&["rejected", "plan"], Kind::Other),
    (&["backup", "plan"], Kind::Other),
    (&["alternative", "plan"], Kind::Other),
    (&["fallback", "plan"], Kind::Other),
    (&["previous", "plan"], Kind::Other),
    (&["explanation"], Kind::Other),
    (&["reason"], Kind::Other),
    (&["reasons"], Kind::Other),
    (&["reasoning"], Kind::Other),
    (&["rationale"], Kind::Other),
    (&["justification"], Kind::Other),
    (&["note"], Kind::Other),
    (&["notes"], Kind::Other),
    (&["why"], Kind::Other),
    (&["comment"], Kind::Other),
    (&["comments"], Kind::Other),
    (&["alternative"], Kind::Other),
    (&["alternatives"], Kind::Other),
    (&["fallback"], Kind::Other),
    (&["summary"], Kind::Other),
    (&["scene"], Kind::Stop),
    (&["instruction"], Kind::Stop),
];

fn is_alnum(b: &[u8], i: usize) -> bool {
    i < b.len() && b[i].is_ascii_alphanumeric()
}

fn skip_ws(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// A run of letters starting at `i` (at a word start); returns its end.
fn read_word(b: &[u8], i: usize, end: usize) -> Option<usize> {
    if i >= end || !b[i].is_ascii_lowercase() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
        return None;
    }
    let mut j = i;
    while j < end && b[j].is_ascii_lowercase() {
        j += 1;
    }
    Some(j)
}

/// `'s` or `’s` at `i`; returns its end.
fn possessive(b: &[u8], i: usize, end: usize) -> Option<usize> {
    let i = skip_ws(b, i, end);
    let q = if b[i..end].starts_with(b"'") {
        1
    } else if b[i..end].starts_with("’".as_bytes()) {
        3
    } else {
        return None;
    };
    (i + q < end && b[i + q] == b's' && !is_alnum(b, i + q + 1)).then_some(i + q + 1)
}

/// "player 0", "player0", "player-0", "player #0", "<player 0>", "p0", "agent 1"; returns (k, end).
fn read_player(b: &[u8], i: usize, end: usize) -> Option<(usize, usize)> {
    let mut j = skip_ws(b, i, end);
    let opened = j < end && matches!(b[j], b'<' | b'[' | b'(');
    if opened {
        j = skip_ws(b, j + 1, end);
    }
    let we = read_word(b, j, end)?;
    let mut k = match &b[j..we] {
        b"player" | b"agent" | b"chef" => {
            let mut k = we;
            while k < end && matches!(b[k], b' ' | b'-' | b'#') {
                k += 1;
            }
            k
        }
        b"p" => we,
        _ => return None,
    };
    let d0 = k;
    while k < end && b[k].is_ascii_digit() {
        k += 1;
    }
    if k == d0 || k - d0 > 2 || is_alnum(b, k) {
        return None;
    }
    let n = std::str::from_utf8(&b[d0..k]).ok()?.parse().ok()?;
    let c = skip_ws(b, k, end);
    if opened && c < end && matches!(b[c], b'>' | b']' | b')') {
        k = c + 1;
    }
    Some((n, k))
}

/// A label (up to three words) at `i`; returns its kind and end.
fn read_label(b: &[u8], i: usize, end: usize) -> Option<(Kind, usize)> {
    let mut words: Vec<(&[u8], usize)> = Vec::new();
    let mut j = i;
    while words.len() < 4 {
        let Some(we) = read_word(b, j, end) else { break };
        words.push((&b[j..we], we));
        if let Some(pe) = possessive(b, we, end) {
            words.push((b"s", pe));
            j = skip_ws(b, pe, end);
        } else {
            let n = skip_ws(b, we, end);
            if n == we {
                break;
            }
            j = n;
        }
    }
    // Plan labels may carry adjectives: "my plan", "final answer", "next action".
    let skip = words.iter().take_while(|(w, _)| PLAN_ADJ.iter().any(|a| a.as_bytes() == *w)).count();
    let mut best = None;
    for (words_of, kind) in LABELS {
        for offset in [0, skip] {
            if offset > 0 && *kind != Kind::Plan {
                continue;
            }
            let n = words_of.len();
            if words.len() >= offset + n
                && words[offset..offset + n].iter().zip(words_of.iter()).all(|((w, _), l)| *w == l.as_bytes())
            {
                let e = words[offset + n - 1].1;
                if best.is_none_or(|(_, be)| e > be) {
                    best = Some((*kind, e));
                }
            }
        }
    }
    best
}

/// A field separator at `i`; returns where the content starts.
fn read_sep(b: &[u8], i: usize, end: usize) -> Option<usize> {
    let i = skip_ws(b, i, end);
    let rest = &b[i..end];
    for (sep, need_space) in [
        (":".as_bytes(), false),
        ("：".as_bytes(), false),
        ("->".as_bytes(), false),
        ("=>".as_bytes(), false),
        ("→".as_bytes(), false),
        ("=".as_bytes(), false),
        ("—".as_bytes(), false),
        ("–".as_bytes(), false),
        ("-".as_bytes(), true),
    ] {
        if rest.starts_with(sep) {
            let c = i + sep.len();
            if need_space && c < end && !matches!(b[c], b' ' | b'\t') {
                return None;
            }
            return Some(c);
        }
    }
    None
}

/// A header at `i`: `line_start` when it begins a line (or follows another header).
fn header_at(b: &[u8], i: usize, end: usize, line_start: bool) -> Option<(Kind, Seat, usize)> {
    let mut i = skip_ws(b, i, end);
    if line_start {
        while i < end && matches!(b[i], b'"' | b'\'' | b'{' | b'[' | b'(' | b',' | b' ') {
            i += 1;
        }
        // "Player 0 plan:", "Player 1's intention:", "Player 1 (me) — Plan:", "Player 0: ..."
        if let Some((k, mut j)) = read_player(b, i, end) {
            if let Some(e) = possessive(b, j, end) {
                j = e;
            }
            let p = skip_ws(b, j, end);
            if p < end && b[p] == b'(' {
                if let Some(close) = b[p..end].iter().position(|&c| c == b')').filter(|&c| c < 24) {
                    j = p + close + 1;
                }
            }
            let mut l = skip_ws(b, j, end);
            for dash in ["—", "–", "-"] {
                if b[l..end].starts_with(dash.as_bytes()) {
                    l = skip_ws(b, l + dash.len(), end);
                }
            }
            if let Some((kind @ (Kind::Plan | Kind::Intention | Kind::Analysis), le)) = read_label(b, l, end) {
                return phrase_and_sep(b, le, end, kind, line_start, Some(k));
            }
            let c = read_sep(b, j, end)?;
            return Some((Kind::PlayerLine, Seat::One(k), c));
        }
    }
    let (kind, le) = read_label(b, i, end)?;
    if !line_start && !matches!(kind, Kind::Plan | Kind::Intention) {
        return None;
    }
    phrase_and_sep(b, le, end, kind, line_start, None)
}

/// The words between a label and its separator ("for Player 0 (me)"), then the separator.
fn phrase_and_sep(
    b: &[u8],
    mut j: usize,
    end: usize,
    kind: Kind,
    line_start: bool,
    prefix: Option<usize>,
) -> Option<(Kind, Seat, usize)> {
    let mut players: Vec<usize> = prefix.into_iter().collect();
    let mut joint = false;
    let mut free_words = 0;
    let mut numbered = false;
    let mut later = false;
    for _ in 0..16 {
        j = skip_ws(b, j, end);
        let seat = || match (players.first(), joint || players.iter().any(|&p| Some(&p) != players.first())) {
            (_, true) => Seat::Several,
            (Some(&p), false) => Seat::One(p),
            (None, false) => Seat::Unnamed,
        };
        if let Some(c) = read_sep(b, j, end) {
            if !line_start
                && !(matches!(seat(), Seat::One(_)) && (b[j] == b':' || b[j..end].starts_with("：".as_bytes())))
            {
                return None;
            }
            if kind == Kind::Stop && !numbered && free_words == 0 && label_is_scene(b, j) {
                return None;
            }
            return Some((now_or_later(kind, later), seat(), c));
        }
        if j >= end {
            // A heading alone on its line: "### Plan for Player 0", "**Analysis**".
            let ok = line_start && free_words == 0 && (kind != Kind::Stop || numbered);
            return ok.then(|| (now_or_later(kind, later), seat(), end));
        }
        if matches!(kind, Kind::Plan | Kind::Intention) && matches!(seat(), Seat::One(_)) {
            // "Plan for Player 0 is (to) pickup(onion)"
            for verb in ["is to ", "is ", "would be ", "will be ", "should be "] {
                if b[j..end].starts_with(verb.as_bytes()) && read_word(b, j, end).is_some() {
                    return Some((now_or_later(kind, later), seat(), j + verb.len()));
                }
            }
        }
        if let Some((k, e)) = read_player(b, j, end) {
            players.push(k);
            j = e;
            continue;
        }
        if let Some(we) = read_word(b, j, end) {
            match &b[j..we] {
                b"for" | b"of" | b"by" | b"me" | b"you" | b"myself" | b"teammate" | b"partner" | b"and" | b"s" => {}
                b"both" | b"players" | b"each" | b"all" | b"team" | b"everyone" => joint = true,
                // "Plan for Player 0 (after that):" is a later step, not the plan now.
                b"after" | b"afterwards" | b"afterward" | b"later" | b"then" | b"subsequently" | b"future"
                | b"eventually" => later = true,
                _ => {
                    free_words += 1;
                    if free_words > (if line_start { 4 } else { 2 }) {
                        return None;
                    }
                }
            }
            j = we;
            continue;
        }
        if b[j].is_ascii_digit() {
            while j < end && b[j].is_ascii_digit() {
                j += 1;
            }
            numbered = true;
            continue;
        }
        if matches!(b[j], b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'\'' | b'"' | b'&' | b',' | b'#') {
            j += 1;
            continue;
        }
        if b[j..end].starts_with("’".as_bytes()) {
            j += 3;
            continue;
        }
        return None;
    }
    None
}

/// A plan or intention header qualified as a later step ("after that") ends the field
/// before it but is not the plan now.
fn now_or_later(kind: Kind, later: bool) -> Kind {
    if later && matches!(kind, Kind::Plan | Kind::Intention) { Kind::Other } else { kind }
}

/// Whether the label just before `j` on its line is "scene" (which needs a number).
fn label_is_scene(b: &[u8], j: usize) -> bool {
    let line = &b[..j];
    let start = line.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
    line[start..].trim_ascii().ends_with(b"scene")
}

/// Words before a mid-line "plan" that make it not the answer ("the rejected plan for Player 0: ...").
const NOT_THE_PLAN: [&str; 6] = ["rejected", "backup", "alternative", "previous", "old", "failed"];

fn find_fields(clean: &str) -> Vec<Field> {
    // Lower case, and `_` as a space so `plan_for_player_0` reads like `plan for player 0`.
    let norm: Vec<u8> = clean.bytes().map(|c| if c == b'_' { b' ' } else { c.to_ascii_lowercase() }).collect();
    let b = norm.as_slice();
    let mut fields = Vec::new();
    let mut line_start = 0;
    while line_start < b.len() {
        let end = b[line_start..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| line_start + p);
        let mut scan_from = line_start;
        let mut at = line_start;
        // Headers at the line start, and headers right after another header's separator.
        while let Some((kind, seat, content)) = header_at(b, at, end, true) {
            fields.push(Field { kind, seat, start: at, content, under_plan: false });
            scan_from = content.min(end);
            if content >= end {
                break;
            }
            at = skip_ws(b, content, end);
        }
        // Mid-line headers that name one player: "... two onions. Intention for Player 1: ...".
        let mut p = scan_from + 1;
        while p < end {
            if matches!(b[p], b'p' | b'i') && !b[p - 1].is_ascii_alphanumeric() {
                let prev_word = {
                    let before = b[line_start..p].trim_ascii_end();
                    let ws = before.iter().rposition(|c| !c.is_ascii_alphabetic()).map_or(0, |x| x + 1);
                    &before[ws..]
                };
                if !NOT_THE_PLAN.iter().any(|w| w.as_bytes() == prev_word) {
                    if let Some((kind, seat, content)) = header_at(b, p, end, false) {
                        fields.push(Field { kind, seat, start: p, content, under_plan: false });
                        p = content.max(p + 1);
                        continue;
                    }
                }
            }
            p += 1;
        }
        line_start = end + 1;
    }
    // `Player k:` lines are fields only on their own or under a plan label naming no player;
    // elsewhere (an analysis listing what each player holds) they are that field's text.
    let mut parent: Option<(Kind, Seat)> = None;
    fields.retain_mut(|f| {
        if f.kind != Kind::PlayerLine {
            parent = Some((f.kind, f.seat));
            return true;
        }
        match parent {
            None => true,
            Some((Kind::Plan, Seat::Unnamed | Seat::Several)) => {
                f.under_plan = true;
                true
            }
            _ => false,
        }
    });
    fields
}

// ---------------------------------------------------------------------------------
// Reading the fields

#[derive(Copy, Clone, PartialEq, Eq)]
enum Role {
    Plan,
    Intention,
}

/// The skill a field states for `role`: the first one its words do not reject or give to
/// the other side. `None` when it states none.
fn stated_skill<R: SkillReader>(reader: &R, text: &str, role: Role, me: usize) -> Option<Result<R::Skill, String>> {
    let mate = me ^ 1;
    reader
        .mentions(text)
        .into_iter()
        .filter(|m| !m.negated)
        .find(|m| match (role, m.subject) {
            (Role::Plan, Subject::Teammate) => false,
            (Role::Plan, Subject::Player(k)) => k == me,
            (Role::Intention, Subject::Speaker) => false,
            (Role::Intention, Subject::Player(k)) => k == mate,
            _ => true,
        })
        .map(|m| m.skill)
}

/// Reads a planner reply for player `me` (0 or 1; the teammate is the other seat) under the
/// rules of the module documentation, with the skills `reader` recognises.
pub fn read_reply<R: SkillReader>(raw: &str, me: usize, reader: &R) -> Result<PlanReply<R::Skill>, ReplyParseError> {
    let answer = answer_part(raw);
    if let Some(lines) = json_as_lines(&answer) {
        if let Ok(r) = parse_fields(reader, raw, &clean_lines(&lines), me) {
            return Ok(r);
        }
    }
    parse_fields(reader, raw, &clean_lines(&answer), me)
}

fn parse_fields<R: SkillReader>(
    reader: &R,
    raw: &str,
    clean: &str,
    me: usize,
) -> Result<PlanReply<R::Skill>, ReplyParseError> {
    let mate = me ^ 1;
    let err = |reason: String| ReplyParseError { raw: raw.to_string(), reason };
    let mut fields = find_fields(clean);
    let mut text_end = clean.len();
    let section = |fields: &[Field], k: usize, text_end: usize| {
        let end = fields.get(k + 1).map_or(text_end, |f| f.start);
        &clean[fields[k].content.min(end)..end]
    };
    let my_plan_rank = |f: &Field| match (f.kind, f.seat) {
        (Kind::Plan, Seat::One(k)) if k == me => Some(3),
        (Kind::Plan, Seat::Unnamed | Seat::Several) => Some(2),
        (Kind::PlayerLine, Seat::One(k)) if k == me => Some(if f.under_plan { 2 } else { 1 }),
        _ => None,
    };
    // An invented next scene after a readable plan ends the answer.
    let mut planned = false;
    for k in 0..fields.len() {
        if fields[k].kind == Kind::Stop && planned {
            text_end = fields[k].start;
            fields.truncate(k);
            break;
        }
        planned = planned
            || (my_plan_rank(&fields[k]).is_some()
                && stated_skill(reader, section(&fields, k, text_end), Role::Plan, me).is_some());
    }
    let section = |k: usize| section(&fields, k, text_end);

    // The plan: the best-ranked kind of field present, and the last of those that names a skill.
    let best = fields.iter().filter_map(my_plan_rank).max();
    let plan = match best {
        Some(rank) => {
            let stated = (0..fields.len())
                .rev()
                .filter(|&k| my_plan_rank(&fields[k]) == Some(rank))
                .find_map(|k| stated_skill(reader, section(k), Role::Plan, me));
            match stated {
                Some(Ok(s)) => s,
                Some(Err(e)) => return Err(err(format!("the 'Plan for Player {me}:' field: {e}"))),
                None => return Err(err(format!("the 'Plan for Player {me}:' field names no allowed skill"))),
            }
        }
        None => {
            // No plan field: accept only a line that is a skill and nothing else (a bare reply
            // such as `pickup(onion)`), never a skill mentioned in the analysis or intention.
            let before = fields.first().map_or(text_end, |f| f.start);
            match clean[..before].lines().find_map(|l| reader.parse_line(l)) {
                Some(s) => s,
                None => {
                    let only_mate = fields.iter().any(|f| f.kind == Kind::Plan && f.seat == Seat::One(mate));
                    return Err(err(format!(
                        "the reply has no 'Plan for Player {me}:' field{}",
                        if only_mate { format!(" (it only plans for Player {mate})") } else { String::new() }
                    )));
                }
            }
        }
    };

    // The intention: the teammate's intention fields, else unlabelled ones; without any, the
    // reply's plan for the teammate's seat or its `Player m:` line.
    let intention_rank = |f: &Field| match (f.kind, f.seat) {
        (Kind::Intention, Seat::One(k)) if k == mate => Some(4),
        (Kind::Intention, Seat::Unnamed) => Some(3),
        (Kind::Plan, Seat::One(k)) if k == mate => Some(2),
        (Kind::PlayerLine, Seat::One(k)) if k == mate => Some(1),
        _ => None,
    };
    let mut intention = None;
    let mut intention_error = None;
    if let Some(rank) = fields.iter().filter_map(intention_rank).max() {
        let stated = (0..fields.len())
            .rev()
            .filter(|&k| intention_rank(&fields[k]) == Some(rank))
            .find_map(|k| stated_skill(reader, section(k), Role::Intention, me));
        match stated {
            Some(Ok(s)) => intention = Some(s),
            Some(Err(e)) => intention_error = Some(e),
            None if rank >= 3 => intention_error = Some("no skill found".to_string()),
            None => {}
        }
    }

    let analysis = fields
        .iter()
        .position(|f| f.kind == Kind::Analysis)
        .map(|k| section(k).split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|a| !a.is_empty());
    Ok(PlanReply { analysis, intention, intention_error, plan })
}

/// The fields of a planner reply, as text, before any skill is read from them: for games
/// that read their own skills from the fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplyFields {
    /// The first "Analysis" section, trimmed.
    pub analysis: Option<String>,
    /// The last of the best-ranked intention sections about the teammate (or naming no player).
    pub intention: Option<String>,
    /// The last of the best-ranked plan sections about `me` (or naming no player).
    pub plan: Option<String>,
    /// The lines before the first field (all lines when there is none): where a bare skill may stand.
    pub outside: Vec<String>,
}

/// Splits a reply for player `me` into its fields with the same header rules as
/// [`read_reply`]. The intention taken is about `mate` (with `None`: about any player but
/// `me`), or one that names no player.
pub fn reply_fields(raw: &str, me: usize, mate: Option<usize>) -> ReplyFields {
    let answer = answer_part(raw);
    // A JSON answer is read key by key; when its keys hold no plan (braces in prose, `{}`),
    // the reply is read as text, as [`read_reply`] does.
    if let Some(lines) = json_as_lines(&answer) {
        let from_json = fields_of(&clean_lines(&lines), me, mate);
        if from_json.plan.is_some() {
            return from_json;
        }
    }
    fields_of(&clean_lines(&answer), me, mate)
}

/// [`reply_fields`] of a cleaned text.
fn fields_of(clean: &str, me: usize, mate: Option<usize>) -> ReplyFields {
    let mut fields = find_fields(clean);
    let is_mate = |k: usize| mate.map_or(k != me, |m| k == m);
    let plan_rank = |f: &Field| match (f.kind, f.seat) {
        (Kind::Plan, Seat::One(k)) if k == me => Some(3),
        (Kind::Plan, Seat::Unnamed | Seat::Several) => Some(2),
        (Kind::PlayerLine, Seat::One(k)) if k == me => Some(if f.under_plan { 2 } else { 1 }),
        _ => None,
    };
    // An invented next scene after a plan ends the answer.
    let mut text_end = clean.len();
    if let Some(stop) = fields
        .iter()
        .enumerate()
        .position(|(k, f)| f.kind == Kind::Stop && fields[..k].iter().any(|g| plan_rank(g).is_some()))
    {
        text_end = fields[stop].start;
        fields.truncate(stop);
    }
    let section = |k: usize| {
        let end = fields.get(k + 1).map_or(text_end, |f| f.start);
        clean[fields[k].content.min(end)..end].trim().to_string()
    };
    let intention_rank = |f: &Field| match (f.kind, f.seat) {
        (Kind::Intention, Seat::One(k)) if is_mate(k) => Some(4),
        (Kind::Intention, Seat::Unnamed) => Some(3),
        (Kind::Plan, Seat::One(k)) if is_mate(k) => Some(2),
        (Kind::PlayerLine, Seat::One(k)) if is_mate(k) => Some(1),
        _ => None,
    };
    let best_of = |rank: &dyn Fn(&Field) -> Option<u8>| {
        let best = fields.iter().filter_map(rank).max()?;
        (0..fields.len()).rev().find(|&k| rank(&fields[k]) == Some(best)).map(section)
    };
    ReplyFields {
        analysis: fields.iter().position(|f| f.kind == Kind::Analysis).map(section),
        intention: best_of(&intention_rank),
        plan: best_of(&plan_rank),
        outside: clean[..fields.first().map_or(text_end, |f| f.start)].lines().map(String::from).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-skill vocabulary, `a()` and `b()`: the reader needs nothing of any game.
    struct Ab;

    impl SkillReader for Ab {
        type Skill = char;
        fn mentions(&self, text: &str) -> Vec<Mention<char>> {
            let mut out = Vec::new();
            for (i, w) in text.match_indices(['a', 'b']) {
                if text[i + 1..].starts_with("()") {
                    let negated = text[..i].trim_end().ends_with("not");
                    let subject =
                        if text[..i].contains("Player 1 will") { Subject::Player(1) } else { Subject::Unknown };
                    out.push(Mention { skill: Ok(w.chars().next().unwrap_or('a')), subject, negated });
                }
            }
            out
        }
        fn parse_line(&self, line: &str) -> Option<char> {
            match line.trim() {
                "a()" => Some('a'),
                "b()" => Some('b'),
                _ => None,
            }
        }
    }

    #[test]
    fn any_vocabulary_reads_under_the_same_rules() {
        let r =
            read_reply("Analysis: x\nIntention for Player 1: b()\nPlan for Player 0: not a() but b()", 0, &Ab).unwrap();
        assert_eq!((r.plan, r.intention, r.analysis.as_deref()), ('b', Some('b'), Some("x")));
        assert_eq!(read_reply("a()", 1, &Ab).unwrap().plan, 'a');
        let e = read_reply("Plan for Player 1: a()", 0, &Ab).unwrap_err();
        assert!(e.reason.contains("it only plans for Player 1"), "{}", e.reason);
        let e = read_reply("Plan for Player 0: c()", 0, &Ab).unwrap_err();
        assert!(e.reason.contains("names no allowed skill"), "{}", e.reason);
    }
}
