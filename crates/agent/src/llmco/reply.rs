//! Reading an LLM-Coordination reply: the action it names (the text after `Action:`),
//! grounded into one of the offered options, and the verdict of a verification reply.
//!
//! Replies are untrusted text. Grounding never invents an action: it returns one of the
//! options offered, or nothing (the caller counts a parse failure and falls back).
//!
//! - The action is the text after the first `Action:` (any case, up to the end of its line
//!   and at most [`MAX_ACTION_CHARS`] characters; markdown, quotes, a
//!   trailing full stop and a leading option letter `B.` or `(B)` removed). A repeated
//!   `Action:` inside it is skipped, as the published agent does.
//! - It matches an option when, after lower-casing and reducing punctuation to spaces, it
//!   equals the option, or is the letter the option was listed under, or contains exactly
//!   one option as whole words (the longest when several overlap, e.g. "room 10" over
//!   "room 1"), or is the start of exactly one option; else the option sharing the most
//!   words with it wins if it shares at least two thirds of its words and no other option
//!   ties.
//! - A verification reply is read from its last `Verification:` line: "Not Okay" (also
//!   "not ok") rejects, "Okay"/"ok" accepts; anything else is unreadable.
//!
//! Every function here is total: no text makes it panic, and its time is linear in the
//! reply's length. Keywords (`Action:`, `Explanation:`, `Verification:`, the verdict
//! words) are ASCII and matched ASCII-case-insensitively on the reply itself, so offsets
//! found are offsets of the reply: a character whose lower case has another length in
//! UTF-8 (`İ`, the Kelvin sign, `Ⱥ`) can neither shift what is read nor split a
//! character, and non-ASCII letters never fold into keyword letters (`O\u{212A}` is not
//! "ok").

use proagent_llm::ResponseSchema;
use proagent_llm::structured::Field;
use serde::Deserialize;

/// The verdicts a structured verification reply may give.
pub const VERDICTS: [&str; 2] = ["Okay", "Not Okay"];

/// The JSON schema of a structured action reply: `{"explanation": ..., "action": ...}`,
/// the action one of `options` exactly as offered.
pub fn action_schema(options: &[String]) -> ResponseSchema {
    ResponseSchema::object(
        "llmco_action",
        &[
            Field::text("explanation", "why this action helps the team"),
            Field::one_of("action", "one of the offered actions, exactly as listed", options.to_vec()),
        ],
    )
}

/// The JSON schema of a structured verification reply: `{"reasoning": ...,
/// "verification": "Okay" | "Not Okay"}`.
pub fn verdict_schema() -> ResponseSchema {
    ResponseSchema::object(
        "llmco_verification",
        &[
            Field::text("reasoning", "whether the proposed action is safe and useful"),
            Field::one_of("verification", "Okay or Not Okay", VERDICTS.iter().map(|v| v.to_string()).collect()),
        ],
    )
}

/// The JSON schema of a structured Theory-of-Mind reply: `{"interpretation": ...}`.
pub fn tom_schema() -> ResponseSchema {
    ResponseSchema::object(
        "llmco_interpretation",
        &[Field::text("interpretation", "what the partner's last action means and what the partner needs")],
    )
}

use crate::planner::StructuredReplyError as Bad;

/// A structured Theory-of-Mind reply: exactly the field of [`tom_schema`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TomJson {
    interpretation: String,
}

/// Reads a structured Theory-of-Mind reply strictly (see [`structured_action`]); `Err`
/// says why it does not fit [`tom_schema`].
pub fn structured_interpretation(reply: &str) -> Result<String, crate::planner::StructuredReplyError> {
    let t: TomJson = serde_json::from_str(without_thinking(reply).trim())
        .map_err(|e| Bad(format!("the reply is not the interpretation schema's JSON ({e}): {:?}", cut(reply, 300))))?;
    Ok(t.interpretation)
}

/// A structured action reply: exactly the fields of [`action_schema`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionJson {
    explanation: String,
    action: String,
}

/// A structured verification reply: exactly the fields of [`verdict_schema`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VerdictJson {
    reasoning: String,
    verification: String,
}

/// At most `n` characters of `s`, with "..." when cut.
fn cut(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        out.push_str("...");
    }
    out
}

/// Reads a structured action reply strictly: a JSON object with exactly the fields of
/// [`action_schema`], whose `action` is one of `options` (surrounding spaces aside).
/// Reasoning blocks before it (a server that leaves them in the content) are dropped;
/// nothing else is forgiven: no code fence, no prose, no other field.
/// Returns the option's index and the explanation; `Err` says why not, quoting the reply.
pub fn structured_action(
    reply: &str,
    options: &[&str],
) -> Result<(usize, String), crate::planner::StructuredReplyError> {
    let a: ActionJson = serde_json::from_str(without_thinking(reply).trim())
        .map_err(|e| Bad(format!("the reply is not the action schema's JSON ({e}): {:?}", cut(reply, 300))))?;
    let want = a.action.trim();
    options
        .iter()
        .position(|o| o.trim() == want)
        .map(|i| (i, a.explanation.split_whitespace().collect::<Vec<_>>().join(" ")))
        .ok_or_else(|| Bad(format!("{:?} is none of the {} offered actions", cut(want, 200), options.len())))
}

/// Reads a structured verification reply strictly: a JSON object with exactly the fields
/// of [`verdict_schema`]; `Ok(true)` for "Okay", `Ok(false)` for "Not Okay" and the
/// reasoning; `Err` says why not.
pub fn structured_verdict(reply: &str) -> Result<(bool, String), crate::planner::StructuredReplyError> {
    let v: VerdictJson = serde_json::from_str(without_thinking(reply).trim())
        .map_err(|e| Bad(format!("the reply is not the verification schema's JSON ({e}): {:?}", cut(reply, 300))))?;
    let reasoning = v.reasoning.split_whitespace().collect::<Vec<_>>().join(" ");
    match v.verification.trim() {
        "Okay" => Ok((true, reasoning)),
        "Not Okay" => Ok((false, reasoning)),
        other => Err(Bad(format!("verification {:?} is neither \"Okay\" nor \"Not Okay\"", cut(other, 50)))),
    }
}

/// Lower-case words of `s`, punctuation as spaces.
pub fn words(s: &str) -> Vec<String> {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// Removes reasoning blocks (`<think>`, `<thinking>`, `<reasoning>`, any case) from a
/// reply: an unclosed one hides the rest, and a closing tag without an opening one (a chat
/// template that opened it) hides what precedes it.
fn without_thinking(reply: &str) -> String {
    let mut text = reply.to_string();
    for tag in ["think", "thinking", "reasoning"] {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        // ASCII folding keeps offsets, so positions found in `lower` are positions of `text`.
        let lower = text.to_ascii_lowercase();
        let first_open = lower.find(&open);
        if let Some(c) = lower.find(&close)
            && first_open.is_none_or(|o| c < o)
        {
            text = text[c + close.len()..].to_string();
        }
        let lower = text.to_ascii_lowercase();
        let mut out = String::new();
        let mut pos = 0;
        loop {
            let Some(i) = lower[pos..].find(&open) else {
                out.push_str(&text[pos..]);
                break;
            };
            out.push_str(&text[pos..pos + i]);
            let after = pos + i + open.len();
            match lower[after..].find(&close) {
                Some(j) => pos = after + j + close.len(),
                None => break,
            }
        }
        text = out;
    }
    text
}

/// How many characters of the `Action:` line [`action_text`] reads.
pub const MAX_ACTION_CHARS: usize = 2_000;

/// Labels that introduce the answer (lower case), the final-answer ones first: a reply's
/// last final-answer label wins over its action labels, and those over answer labels.
const FINAL_LABELS: &[&str] = &[
    "final answer",
    "final action",
    "final decision",
    "final choice",
    "respuesta final",
    "acción final",
    "réponse finale",
    "action finale",
    "endgültige antwort",
    "resposta final",
    "risposta finale",
    "окончательный ответ",
    "итоговое действие",
    "最终答案",
    "最终行动",
    "最终动作",
    "最終回答",
];
/// Labels naming the chosen action (lower case), in any of the languages models answer in.
const ACTION_LABELS: &[&str] = &[
    "action",
    "chosen action",
    "selected action",
    "my action",
    "next action",
    "acción",
    "accion",
    "acción elegida",
    "ação",
    "acao",
    "azione",
    "aktion",
    "handlung",
    "action choisie",
    "действие",
    "动作",
    "行动",
    "行動",
    "アクション",
    "행동",
];
/// Labels of an answer (lower case): read when no action label is there.
const ANSWER_LABELS: &[&str] = &[
    "answer",
    "my answer",
    "choice",
    "my choice",
    "decision",
    "respuesta",
    "réponse",
    "reponse",
    "antwort",
    "resposta",
    "risposta",
    "ответ",
    "答案",
    "回答",
    "选择",
    "選択",
    "답",
];

/// `s` with leading markup removed: spaces, `>` quotes, bullets, `#` headings, `*`/`_`
/// emphasis, and a list number (`1.`, `2)`).
fn strip_markup(s: &str) -> &str {
    let marks = |c: char| c.is_whitespace() || matches!(c, '>' | '-' | '+' | '#' | '*' | '_' | '•');
    let s = s.trim_start_matches(marks);
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits > 0 && digits <= 2 && s[digits..].starts_with(['.', ')']) {
        // One list number, then the marks after it (`1. **Action:**`).
        return s[digits + 1..].trim_start_matches(marks);
    }
    s
}

/// If `line` (markup stripped) starts with one of `labels` (any case), the text after the
/// label and its separator (`:`, `：`, ` -`, `=`; `Some("")` for a label alone on its line,
/// a heading).
fn after_label<'a>(line: &'a str, labels: &[&str]) -> Option<&'a str> {
    let body = strip_markup(line);
    // A label is followed by its separator within a few words, or stands alone on a short
    // line: other lines are passed over at once (a reply may have millions of lines).
    let head_end = body.char_indices().nth(40).map_or(body.len(), |(i, _)| i);
    if !body[..head_end].contains([':', '：', '=', '-', '—']) && head_end < body.len() {
        return None;
    }
    // The longest label first ("action choisie" before "action").
    let mut best: Option<&'a str> = None;
    let mut best_len = 0;
    for label in labels {
        let n = label.chars().count();
        let end = body.char_indices().nth(n).map_or(body.len(), |(i, _)| i);
        if n <= best_len || !label_eq(&body[..end], label) {
            continue;
        }
        let rest = body[end..].trim_start_matches(['*', '_', ' ', '\t']);
        let value = if let Some(r) = rest.strip_prefix([':', '：', '=']) {
            Some(r)
        } else if let Some(r) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("— ")) {
            Some(r)
        } else if rest.trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace()).is_empty() {
            Some("")
        } else {
            None
        };
        if let Some(v) = value {
            best = Some(v);
            best_len = n;
        }
    }
    best
}

/// Whether `head` is `label` (lower case) in any case: an ASCII label letter matches only
/// that ASCII letter in either case (so the Kelvin sign is no `k`), any other letter its
/// lower case.
fn label_eq(head: &str, label: &str) -> bool {
    let mut h = head.chars();
    for l in label.chars() {
        let Some(c) = h.next() else { return false };
        let same = if l.is_ascii() { c.is_ascii() && c.eq_ignore_ascii_case(&l) } else { c.to_lowercase().eq([l]) };
        if !same {
            return false;
        }
    }
    h.next().is_none()
}

/// The value of a labelled line at `lines[i]`: the text after its label, or (a heading or
/// a label alone) the next non-empty line.
fn labelled_value(lines: &[&str], i: usize, after: &str) -> Option<String> {
    let v = after.trim_start_matches(['*', '_']).trim();
    if !v.is_empty() {
        return Some(v.to_string());
    }
    lines[i + 1..].iter().map(|l| strip_markup(l).trim()).find(|l| !l.is_empty()).map(str::to_string)
}

/// A whole short answer: the reply's first (or last) non-empty line when it starts with an
/// option letter (`B`, `(B)`, `B. wait`, `Option B: ...`), for replies with no label.
fn bare_letter(lines: &[&str]) -> Option<String> {
    let nonempty: Vec<&str> = lines.iter().map(|l| strip_markup(l).trim()).filter(|l| !l.is_empty()).collect();
    for l in [nonempty.first(), nonempty.last()].into_iter().flatten() {
        let l = strip_option_word(clean_value(l).as_str()).to_string();
        if let (Some(_), _) = split_letter(&l) {
            return Some(l);
        }
    }
    None
}

/// `s` without a leading "Option"/"Choice" word in front of a letter (`Option B: ...`).
fn strip_option_word(s: &str) -> &str {
    for w in ["option ", "choice ", "opción ", "opcion ", "opção ", "opzione ", "вариант ", "选项"] {
        if let Some(head) = s.get(..w.len())
            && head.to_lowercase() == w
        {
            return s[w.len()..].trim_start();
        }
    }
    s
}

/// A value cleaned of quotes, brackets, emphasis and a trailing full stop.
fn clean_value(v: &str) -> String {
    let quotes = |c: char| {
        matches!(
            c,
            '"' | '\'' | '[' | ']' | '<' | '>' | '“' | '”' | '„' | '‘' | '’' | '«' | '»' | '「' | '」' | '『' | '』'
        )
    };
    let v = v.trim().trim_matches(|c: char| quotes(c) || c == '*' || c == '_' || c.is_whitespace());
    let v = v.trim_end_matches(['.', '。', '!']).trim();
    v.trim_matches(|c: char| quotes(c) || c.is_whitespace()).to_string()
}

/// The text after the first `Action:` of a reply (to the end of its line), cleaned; `None`
/// when the reply names no answer. Reasoning blocks are dropped; then, in order: the last
/// final-answer label (`Final answer:`, `**Respuesta final:**`), the first line labelled
/// as the action (`Action:`, `**Action:**`, `### Action` with the answer on the next line,
/// `Acción:`, `动作：`, ...), the first answer label (`Answer:`, `Choice:`, `Ответ:`), an
/// `Action:` in the middle of a line (as the published agent reads it), a JSON `"action"`
/// key, and a reply whose first or last line is an option letter (`B`, `(C) wait`).
pub fn action_text(reply: &str) -> Option<String> {
    let text = without_thinking(reply).replace('`', "");
    let lines: Vec<&str> = text.lines().collect();
    let mut found: Option<String> = None;
    // The last final answer.
    for (i, l) in lines.iter().enumerate() {
        if let Some(after) = after_label(l, FINAL_LABELS)
            && let Some(v) = labelled_value(&lines, i, after)
        {
            found = Some(v);
        }
    }
    // The first labelled action, then the first labelled answer.
    for labels in [ACTION_LABELS, ANSWER_LABELS] {
        if found.is_none() {
            found = lines
                .iter()
                .enumerate()
                .find_map(|(i, l)| after_label(l, labels).and_then(|after| labelled_value(&lines, i, after)));
        }
    }
    if found.is_none() {
        found = mid_line_action(&text);
    }
    if found.is_none() {
        found = json_action(&text);
    }
    if found.is_none() {
        found = bare_letter(&lines);
    }
    let mut v = found?;
    // The published agent skips a second "Action:" inside the first.
    let again = v.trim_start();
    if again.get(.."action:".len()).is_some_and(|k| k.eq_ignore_ascii_case("action:")) {
        v = again["action:".len()..].to_string();
    }
    // At most MAX_ACTION_CHARS of the line are read: no offered action is that long, and
    // matching a whole 8 MiB line word by word against every option would be slow.
    let line = v.trim_start().lines().next().unwrap_or("");
    let line = match line.char_indices().nth(MAX_ACTION_CHARS) {
        Some((cut, _)) => &line[..cut],
        None => line,
    };
    let cleaned = clean_value(&line.replace(['*', '#'], ""));
    let cleaned = strip_option_word(&cleaned).to_string();
    (!cleaned.is_empty()).then_some(cleaned)
}

/// The text after the first `Action:` anywhere (markdown marks removed), to the end of its line.
fn mid_line_action(text: &str) -> Option<String> {
    let text = text.replace(['*', '#'], "");
    // ASCII case folding keeps every byte offset, so `at` is an offset of `text`.
    let lower = text.to_ascii_lowercase();
    let at = lower.find("action:")?;
    let rest = text[at + "action:".len()..].trim_start();
    let again = rest.get(.."action:".len()).is_some_and(|k| k.eq_ignore_ascii_case("action:"));
    let rest = if again { &rest["action:".len()..] } else { rest };
    let line = rest.trim_start().lines().next().unwrap_or("").trim();
    (!line.is_empty()).then(|| line.to_string())
}

/// The value of a JSON-style `"action": "..."` key written as text (no schema asked).
fn json_action(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find("\"action\"")?;
    let rest = text[at + "\"action\"".len()..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    let v = rest[..end].trim();
    (!v.is_empty()).then(|| v.to_string())
}

/// The letter an option is listed under in prompts (`A`, `B`, ... `Z`, then `AA`, ...).
pub fn option_letter(i: usize) -> String {
    let mut n = i;
    let mut s = String::new();
    loop {
        s.insert(0, char::from(b'A' + (n % 26) as u8));
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s
}

/// A leading option letter (`B.`, `B)`, `(B)`, `B:`) and the rest of the text.
fn split_letter(text: &str) -> (Option<&str>, &str) {
    let t = text.trim_start_matches('(');
    let end = t.find(|c: char| !c.is_ascii_uppercase()).unwrap_or(t.len());
    if end == 0 || end > 2 {
        return (None, text);
    }
    let after = &t[end..];
    if after.is_empty() {
        return (Some(&t[..end]), "");
    }
    match after.chars().next() {
        Some('.' | ')' | ':' | '：') => {
            let c = after.chars().next().map_or(1, char::len_utf8);
            (Some(&t[..end]), after[c..].trim())
        }
        Some(' ') if after.trim_start().starts_with(['-', '–', '—']) => {
            let rest = after.trim_start();
            let c = rest.chars().next().map_or(1, char::len_utf8);
            (Some(&t[..end]), rest[c..].trim())
        }
        _ => (None, text),
    }
}

/// The option a model's action text names (see the module doc), by index.
pub fn match_option(text: &str, options: &[String]) -> Option<usize> {
    let (letter, rest) = split_letter(text.trim());
    let want = words(rest);
    let opts: Vec<Vec<String>> = options.iter().map(|o| words(o)).collect();
    if !want.is_empty()
        && let Some(i) = opts.iter().position(|o| *o == want)
    {
        return Some(i);
    }
    if let Some(l) = letter {
        let by_letter = (0..options.len()).find(|&i| option_letter(i) == l);
        if want.is_empty() || by_letter.is_some_and(|i| opts[i].iter().take(want.len()).eq(want.iter())) {
            return by_letter;
        }
    }
    if want.is_empty() {
        return None;
    }
    // Options the text contains as whole words: the longest one, if it is the only one that long.
    let contains = |o: &[String]| !o.is_empty() && want.windows(o.len()).any(|w| w == o);
    let inside: Vec<usize> = (0..opts.len()).filter(|&i| contains(&opts[i])).collect();
    if let Some(&best) = inside.iter().max_by_key(|&&i| opts[i].len()) {
        let ties = inside.iter().filter(|&&i| opts[i].len() == opts[best].len()).count();
        if ties == 1 {
            return Some(best);
        }
    }
    // The text is the start of exactly one option ("pick up onion" is not enough when two
    // dispensers are offered).
    let starts: Vec<usize> = (0..opts.len()).filter(|&i| opts[i].starts_with(&want)).collect();
    if starts.len() == 1 {
        return Some(starts[0]);
    }
    // The option sharing the most words.
    let shared = |o: &[String]| want.iter().filter(|w| o.contains(w)).count();
    let scores: Vec<usize> = opts.iter().map(|o| shared(o)).collect();
    let best = *scores.iter().max()?;
    let winners: Vec<usize> = (0..opts.len()).filter(|&i| scores[i] == best).collect();
    if winners.len() == 1 && best * 3 >= want.len() * 2 {
        return Some(winners[0]);
    }
    // A letter whose text names no option clearly (a translation, a paraphrase): the
    // letter is the answer.
    letter.and_then(|l| (0..options.len()).find(|&i| option_letter(i) == l))
}

/// Labels of a verification verdict (lower case).
const VERDICT_LABELS: &[&str] = &[
    "verification",
    "final verification",
    "verdict",
    "verificación",
    "verificacion",
    "vérification",
    "verificação",
    "verifica",
    "überprüfung",
    "prüfung",
    "проверка",
    "验证",
    "検証",
];

/// The verdict of a verification reply: `Some(true)` okay, `Some(false)` not okay, `None`
/// unreadable. Read from the last line labelled `Verification:` (also `**Verification:**`,
/// `### Verification` with the verdict on the next line, `Verificación:`, `验证：`), else
/// the last `verification:` in the middle of a line, else a JSON `"verification"` key, else
/// a last line that is the verdict alone (`Not Okay.`).
pub fn verdict(reply: &str) -> Option<bool> {
    let text = without_thinking(reply).replace('`', "");
    let lines: Vec<&str> = text.lines().collect();
    let labelled = (0..lines.len())
        .rev()
        .find_map(|i| after_label(lines[i], VERDICT_LABELS).and_then(|after| labelled_value(&lines, i, after)));
    let value = labelled
        .or_else(|| {
            let t = text.replace(['*', '#'], "");
            let lower = t.to_ascii_lowercase();
            let at = lower.rfind("verification:")?;
            Some(t[at + "verification:".len()..].to_string())
        })
        .or_else(|| {
            let lower = text.to_ascii_lowercase();
            let at = lower.rfind("\"verification\"")?;
            let rest = text[at + "\"verification\"".len()..].trim_start().strip_prefix(':')?;
            Some(rest.trim_start().trim_start_matches('"').to_string())
        });
    if let Some(v) = value {
        return verdict_words(&v);
    }
    let last = lines.iter().rev().map(|l| strip_markup(l).trim()).find(|l| !l.is_empty())?;
    let v = clean_value(last);
    // Only a line that is the verdict and nothing else.
    (v.len() <= 9).then(|| verdict_words(&v)).flatten()
}

/// "Not Okay" (also "not ok", "not-okay") → `false`, "Okay"/"ok" → `true`, at the start
/// of `v` (quotes, marks and a check mark before it skipped); else `None`.
fn verdict_words(v: &str) -> Option<bool> {
    let v = v.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '_' | '"' | '\'' | '“' | '«' | '✅' | '❌' | '✔' | '✗' | '[' | '(')
    });
    let first: String = v.lines().next().unwrap_or("").chars().take(20).collect::<String>().to_ascii_lowercase();
    if first.starts_with("not okay") || first.starts_with("not ok") || first.starts_with("not-okay") {
        Some(false)
    } else if first.starts_with("okay") || first.starts_with("ok") {
        Some(true)
    } else {
        None
    }
}

/// The explanation part of a reply (the text after `Explanation:` up to `Action:`, or the
/// reply without its action line), whitespace collapsed, at most `max` characters.
pub fn explanation(reply: &str, max: usize) -> String {
    let text = without_thinking(reply);
    let lower = text.to_ascii_lowercase();
    let start = lower.find("explanation:").map_or(0, |i| i + "explanation:".len());
    let end = lower[start..].find("action:").map_or(text.len(), |j| start + j);
    let mut s = String::new();
    let mut chars = 0;
    for word in text[start..end].split_whitespace() {
        if chars >= max {
            break;
        }
        if !s.is_empty() {
            s.push(' ');
            chars += 1;
        }
        s.push_str(word);
        chars += word.chars().count();
    }
    s.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_action_line_is_read_and_cleaned() {
        assert_eq!(action_text("Explanation: safe.\nAction: Play my Card 3.").as_deref(), Some("Play my Card 3"));
        assert_eq!(action_text("**Action:** \"move to room 5\"").as_deref(), Some("move to room 5"));
        assert_eq!(action_text("Action: Action: wait").as_deref(), Some("wait"));
        assert_eq!(action_text("<think>Action: no</think>Action: B. Reveal").as_deref(), Some("B. Reveal"));
        assert_eq!(action_text("I think we should wait."), None);
        assert_eq!(action_text("Action:   \n"), None);
    }

    #[test]
    fn options_are_matched_exactly_by_letter_or_by_words() {
        let cards =
            opts(&["Reveal Bob's Red color cards", "Reveal Bob's rank 1 cards", "Play my Card 0", "Play my Card 1"]);
        assert_eq!(match_option("play my card 1", &cards), Some(3));
        assert_eq!(match_option("C. Play my Card 0", &cards), Some(2));
        assert_eq!(match_option("(B)", &cards), Some(1));
        assert_eq!(match_option("I will play my card 0 now", &cards), Some(2));
        assert_eq!(match_option("Reveal Bob's red cards", &cards), Some(0));
        assert_eq!(match_option("Play my card 7", &cards), None, "no such option");
        assert_eq!(match_option("Play", &cards), None, "ambiguous");
        let rooms = opts(&["move to room 1", "move to room 10", "wait"]);
        assert_eq!(match_option("move to room 10", &rooms), Some(1));
        assert_eq!(match_option("I move to room 10 now", &rooms), Some(1));
        assert_eq!(match_option("move to room 1", &rooms), Some(0));
        let oc = opts(&["pick up onion from o0", "pick up onion from o1", "wait", "move away"]);
        assert_eq!(match_option("pick up onion", &oc), None);
        assert_eq!(match_option("pick up onion from o1.", &oc), Some(1));
        assert_eq!(match_option("", &oc), None);
    }

    #[test]
    fn letters_count_past_z() {
        assert_eq!(
            (option_letter(0), option_letter(25), option_letter(26), option_letter(27)),
            ("A".into(), "Z".into(), "AA".into(), "AB".into())
        );
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict("Reasoning: fine.\nVerification: Okay"), Some(true));
        assert_eq!(verdict("It loses a life.\n**Verification: Not Okay**"), Some(false));
        assert_eq!(verdict("verification: ok."), Some(true));
        assert_eq!(verdict("Looks fine to me"), None);
        assert_eq!(verdict("Verification: maybe"), None);
    }

    /// Characters whose lower case is longer or shorter in UTF-8 than they are (`İ` 2 → 3
    /// bytes, the Kelvin sign 3 → 1, `Ⱥ` 2 → 3) once made offsets taken from a lower-cased
    /// copy point elsewhere in the reply: a panic on a non-boundary, or a shifted read.
    #[test]
    fn capitals_with_a_longer_lower_case_before_the_keyword_do_not_panic() {
        assert_eq!(action_text("İİİAction: x").as_deref(), Some("x"));
    }

    #[test]
    fn capitals_with_a_longer_lower_case_do_not_shift_the_action() {
        assert_eq!(action_text("Explanation: İstanbul İzmir. Action: wait").as_deref(), Some("wait"));
    }

    #[test]
    fn case_changing_characters_neither_panic_nor_shift_what_is_read() {
        assert_eq!(action_text("\u{212A}\u{212A}\u{212A} Action: move away").as_deref(), Some("move away"));
        assert_eq!(action_text("ȺȺȺȺ\nACTION: ȺȺ B. wait").as_deref(), Some("ȺȺ B. wait"));
        assert_eq!(
            action_text("İ Action: İ Action: pick up onion from o0").as_deref(),
            Some("İ Action: pick up onion from o0")
        );
        assert_eq!(action_text("İ Action:  action: pick up onion from o0").as_deref(), Some("pick up onion from o0"));
        let oc = opts(&["pick up onion from o0", "wait", "move away"]);
        assert_eq!(
            action_text("Explanation: İstanbul İzmir. Action: wait").and_then(|t| match_option(&t, &oc)),
            Some(1)
        );
        assert_eq!(explanation("İİİ Explanation: İzmir \u{212A}elvin. Action: wait", 100), "İzmir \u{212A}elvin.");
        assert_eq!(explanation("ȺȺȺȺȺȺ Action: x", 100), "ȺȺȺȺȺȺ");
        assert_eq!(verdict("İİİİ Verification: Not Okay"), Some(false));
        assert_eq!(verdict("ȺȺȺ\nVerification: Okay"), Some(true));
        // A non-ASCII letter is not a keyword letter: the Kelvin sign does not spell "ok".
        assert_eq!(verdict("Verification: O\u{212A}"), None);
    }

    #[test]
    fn explanations_are_cut() {
        assert_eq!(explanation("Explanation: a  b\nc\nAction: x", 100), "a b c");
        assert_eq!(explanation("no format at all", 7), "no form");
    }
}
