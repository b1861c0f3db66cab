//! Reading the chosen option out of a model's reply.
//!
//! Default mode: strip `<think>` blocks and markdown, look at the text after the last
//! "Answer:"/"Action:" when there is one, recognise a letter in its usual forms ("B",
//! "B.", "(B)", "B)", "Option B: …", "The answer is B") without taking the words "A" and
//! "I" in prose for letters, and otherwise match the reply against the option texts; when
//! nothing is close the reply is "unmatched" rather than guessed.
//!
//! Compat mode reproduces the original scorer (`find_answer_fuzzy` in LLM-Coordination's
//! `src/reasoning_evals/main.py`): the first "Action:" (else "Answer:") line, the first
//! capital letter followed by "." or ")", else the option list cut out of the lower-cased
//! question and `fuzzywuzzy.process.extractOne` with no threshold, the option index turned
//! into a letter.

use super::data::{QaOption, Question};
use super::fuzzy::{best_choice, py_isspace, py_strip};
use serde::{Deserialize, Serialize};

/// Which scorer reads the replies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Robust letter recognition, thresholded fuzzy matching, trimmed keys, failed
    /// requests left out of the accuracy.
    Default,
    /// The original scorer's rules, to compare with published figures.
    Compat,
}

/// How a letter was found.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// A letter right after "Answer:"/"Action:".
    Marker,
    /// A phrase such as "the answer is B" or "option B".
    Cue,
    /// The reply (its first line) starts with a letter token.
    Leading,
    /// The reply's text matched one option's text.
    Fuzzy,
    /// The original scorer's letter pattern.
    CompatLetter,
    /// The original scorer's fuzzy fallback.
    CompatFuzzy,
    /// The original scorer raised an exception (scored wrong there).
    CompatError,
    /// The `answer` field of a structured (JSON schema) reply.
    Structured,
    /// Nothing recognisable.
    Unmatched,
}

/// The outcome of reading one reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Extraction {
    /// The chosen letter, if any.
    pub letter: Option<char>,
    /// Which rule found the letter (or `Unmatched`).
    pub method: Method,
    /// Similarity of the fuzzy match (0–1 by default, 0–100 in compat), when one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

impl Extraction {
    fn letter(letter: char, method: Method) -> Self {
        Extraction { letter: Some(letter), method, score: None }
    }
    fn unmatched() -> Self {
        Extraction { letter: None, method: Method::Unmatched, score: None }
    }
}

/// A structured QA reply: the JSON object [`answer_schema`] asks for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StructuredAnswer {
    answer: String,
}

/// The JSON schema a structured QA request asks the answer in: `{"answer": "<letter>"}`,
/// the letter one of the question's printed option letters.
pub fn answer_schema(q: &Question) -> proagent_llm::ResponseSchema {
    let mut letters: Vec<String> = q.options.iter().map(|o| o.letter.to_string()).collect();
    letters.dedup();
    proagent_llm::ResponseSchema::object(
        "coordination_qa_answer",
        &[proagent_llm::structured::Field::one_of("answer", "the letter of the chosen option", letters)],
    )
}

/// Reads a structured reply strictly: a JSON object with exactly the field `answer`,
/// holding one of the question's option letters. `Err` says why not (the reply stays in
/// the transcript).
pub fn extract_structured(reply: &str, q: &Question) -> Result<Extraction, UnfitAnswer> {
    let a: StructuredAnswer = serde_json::from_str(reply.trim())
        .map_err(|e| UnfitAnswer(format!("the reply is not the answer schema's JSON: {e}")))?;
    let t = a.answer.trim();
    let mut chars = t.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if q.options.iter().any(|o| o.letter == c) => Ok(Extraction::letter(c, Method::Structured)),
        _ => Err(UnfitAnswer(format!("{t:?} is not one of the question's option letters"))),
    }
}

/// Why a structured reply does not fit the answer schema.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnfitAnswer(pub String);

/// Minimum similarity for a fuzzy match in default mode.
pub const FUZZY_THRESHOLD: f64 = 0.8;
/// The best fuzzy candidate must beat the second by this much.
pub const FUZZY_MARGIN: f64 = 0.05;

/// Removes `<think>…</think>` blocks; an unclosed `<think>` hides the rest, and a closing
/// tag without an opening one (servers that drop the opening tag) hides what precedes it.
pub fn strip_think(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let mut pos = 0;
    // A lone closing tag before any opening tag: everything before it was reasoning.
    if let Some(close) = lower.find("</think>") {
        if lower.find("<think>").is_none_or(|open| open > close) {
            pos = close + "</think>".len();
        }
    }
    while let Some(rel) = lower[pos..].find("<think>") {
        let open = pos + rel;
        out.push_str(&text[pos..open]);
        match lower[open..].find("</think>") {
            Some(rel_close) => pos = open + rel_close + "</think>".len(),
            None => return out,
        }
    }
    out.push_str(&text[pos..]);
    out
}

/// Removes markdown emphasis, code ticks, heading marks and quote marks.
pub fn strip_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split('\n') {
        let l = line.trim_start();
        let l = l.trim_start_matches('#').trim_start_matches('>');
        let l = l.replace("**", "").replace("__", "").replace(['*', '`'], "");
        out.push_str(&l);
        out.push('\n');
    }
    out.pop();
    out
}

/// Lower-case, non-alphanumerics to single spaces: the form option texts are compared in.
pub fn normalize(s: &str) -> String {
    let mut out: String = normalized_chars(s).collect();
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// The characters of [`normalize`], lazily, with a space after the last word when
/// non-alphanumerics end the text (which `normalize` drops).
fn normalized_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut space = true;
    s.chars().flat_map(move |c| {
        let (lower, gap) = if c.is_alphanumeric() {
            space = false;
            (Some(c.to_lowercase()), None)
        } else if !space {
            space = true;
            (None, Some(' '))
        } else {
            (None, None)
        };
        lower.into_iter().flatten().chain(gap)
    })
}

/// The texts after each "answer:"/"action:" marker, last marker first: the rest of the
/// marker's line, or the next non-empty line when the marker ends its line.
fn marker_segments(text: &str) -> Vec<&str> {
    let lower = text.to_ascii_lowercase();
    let mut ends: Vec<usize> = Vec::new();
    for word in ["answer", "action"] {
        let mut from = 0;
        while let Some(rel) = lower[from..].find(word) {
            let after = from + rel + word.len();
            from = after;
            // "Answer :" and "answer:" both count; "answered:" does not.
            let rest = &lower[after..];
            let colon = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            if lower[after + colon..].starts_with(':') {
                ends.push(after + colon + 1);
            }
        }
    }
    ends.sort_unstable_by(|a, b| b.cmp(a));
    // Each segment runs to its line's end: only the last markers are tried, so that a line
    // of many markers is not read once per marker.
    ends.truncate(MAX_MARKERS);
    ends.iter().filter_map(|&e| text[e..].split('\n').map(str::trim).find(|l| !l.is_empty())).collect()
}

/// How many characters of a free-text answer compat mode's fuzzy match reads (the
/// original read all of it; no benchmark reply comes near this length).
pub const MAX_COMPAT_QUERY_CHARS: usize = 16_384;

/// How many markers, from the last one back, [`extract`] tries.
pub const MAX_MARKERS: usize = 8;

const OPTION_WORDS: [&str; 3] = ["option", "choice", "letter"];

/// A letter token at the start of `s`: "B", "B.", "B)", "(B)", "[B]", "B: text",
/// "B - text", "Option B", "B text" (but not the words "A" / "I" starting a sentence,
/// unless the rest is exactly that option's text). Unprinted letters are returned only with
/// `any_letter` or when written unmistakably ("D", "(D)", "Option D").
fn leading_letter(s: &str, q: &Question, any_letter: bool) -> Option<char> {
    let mut s = s.trim_start().trim_start_matches(['"', '\'']);
    let mut prefixed = false;
    // "Option B", "Choice: (C)", "Letter D".
    for w in OPTION_WORDS {
        if s.len() > w.len() && s.get(..w.len()).is_some_and(|h| h.eq_ignore_ascii_case(w)) {
            let rest = &s[w.len()..];
            if rest.starts_with([' ', ':', '\t']) {
                s = rest.trim_start_matches([' ', ':', '\t']);
                prefixed = true;
                break;
            }
        }
    }
    let bracketed = s.starts_with(['(', '[']);
    if bracketed {
        s = &s[1..];
    }
    let mut it = s.chars();
    let c = it.next()?;
    let rest = it.as_str();
    if !c.is_ascii_alphabetic() {
        return None;
    }
    let next = rest.chars().next();
    if next.is_some_and(|n| n.is_alphanumeric()) {
        return None; // part of a word ("Bob", "c0")
    }
    let upper = c.to_ascii_uppercase();
    // (`all`/`any` stop at the first character that decides, where trimming both ends
    // would walk a long tail of the reply once per cue.)
    let lower_ok = c.is_ascii_uppercase()
        || bracketed
        || prefixed
        || rest.chars().all(|x| x == '.' || x == ')' || x.is_whitespace());
    if !lower_ok {
        return None;
    }
    let strong = match next {
        None => true,
        Some(')' | ']' | '.' | ':' | ',' | ';' | '"' | '\'') => true,
        Some(n) if n.is_whitespace() => {
            let r = rest.trim_start();
            r.is_empty()
                || r.starts_with(['-', '–', '—', ':', '(', '.'])
                || prefixed
                || bracketed
                || (upper != 'A' && upper != 'I')
                || option_text_matches(q, upper, r)
        }
        Some('-' | '–' | '—') => true,
        _ => false,
    };
    if !strong {
        return None;
    }
    // An unprinted letter is still the model's answer when it is written unmistakably.
    let explicit = prefixed || bracketed || !rest.chars().any(char::is_alphanumeric);
    if q.has_option(upper) || ((any_letter || explicit) && c.is_ascii_uppercase()) { Some(upper) } else { None }
}

/// Whether `rest` reads as the text of option `letter` (for "A plate …" vs "A place onion").
/// Only an exact match counts: "I should Discard Card 2" must not read as option I when
/// option I is "I should Discard Card 3".
fn option_text_matches(q: &Question, letter: char, rest: &str) -> bool {
    let Some(t) = q.option_text(letter) else { return false };
    let b = normalize(t);
    // normalize(rest) equals b or starts with b and a space: only as much of `rest` is
    // normalised as that takes (the rest of the reply may be long).
    let mut a = normalized_chars(rest);
    !b.is_empty() && b.chars().all(|c| a.next() == Some(c)) && matches!(a.next(), None | Some(' '))
}

/// Letters introduced by a phrase: "answer is B" (strong) or "option B" / "choice B"
/// (weak: several different ones cancel out). Only printed letters count.
fn cue_letter(text: &str, q: &Question) -> Option<char> {
    let lower = text.to_ascii_lowercase();
    let strong_cues = [
        "answer is",
        "answer would be",
        "answer should be",
        "option is",
        "choice is",
        "i choose",
        "i select",
        "i pick",
        "i would choose",
        "i will choose",
        "go with",
    ];
    let weak_cues = ["option", "choice"];
    let find_all = |cues: &[&str]| {
        let mut found: Vec<(usize, char)> = Vec::new();
        for cue in cues {
            let mut from = 0;
            while let Some(rel) = lower[from..].find(cue) {
                let start = from + rel;
                let after = start + cue.len();
                from = after;
                // The cue must start a word.
                if start > 0 && lower[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric()) {
                    continue;
                }
                let rest = &text[after..];
                if !rest.starts_with([' ', ':', '\t', '(', '[']) {
                    continue;
                }
                let rest = rest.trim_start_matches([' ', ':', '\t']);
                let rest = rest.strip_prefix("option ").or_else(|| rest.strip_prefix("Option ")).unwrap_or(rest);
                if let Some(c) = leading_letter(rest, q, false) {
                    found.push((start, c));
                }
            }
        }
        found.sort();
        found
    };
    let strong = find_all(&strong_cues);
    if let Some(&(_, c)) = strong.last() {
        return Some(c);
    }
    let weak = find_all(&weak_cues);
    let first = weak.first()?.1;
    if weak.iter().all(|&(_, c)| c == first) { Some(first) } else { None }
}

/// The one printed letter written as "X." / "X)" / "(X)" somewhere in `s` ("I think C."),
/// if exactly one such letter appears.
fn lone_marked_letter(s: &str, q: &Question) -> Option<char> {
    let cs: Vec<char> = s.chars().collect();
    let mut found: Option<char> = None;
    for i in 0..cs.len() {
        let c = cs[i];
        if !c.is_ascii_uppercase() || !q.has_option(c) {
            continue;
        }
        let prev = if i > 0 { Some(cs[i - 1]) } else { None };
        let next = cs.get(i + 1).copied();
        let after = cs.get(i + 2).copied();
        let standalone = prev.is_none_or(|p| !p.is_alphanumeric());
        let marked = (prev == Some('(') && next == Some(')'))
            || (matches!(next, Some('.' | ')')) && after.is_none_or(|a| !a.is_alphanumeric()));
        if standalone && marked {
            match found {
                Some(f) if f != c => return None,
                _ => found = Some(c),
            }
        }
    }
    found
}

/// Matches a piece of reply text against the option texts: an exact (normalised) match,
/// else one option's text contained in the reply, else the closest by normalised
/// Levenshtein similarity if it reaches the threshold and clearly beats the runner-up.
pub fn fuzzy_option(text: &str, options: &[QaOption]) -> Option<(char, f64)> {
    let t = normalize(text);
    if t.is_empty() {
        return None;
    }
    let norms: Vec<(char, String)> =
        options.iter().map(|o| (o.letter, normalize(&o.text))).filter(|(_, n)| !n.is_empty()).collect();
    let exact: Vec<char> = norms.iter().filter(|(_, n)| *n == t).map(|(c, _)| *c).collect();
    if let [c] = exact[..] {
        return Some((c, 1.0));
    }
    // Replies that open with an option's text ("No, because …"): the longest such option.
    let mut prefixed: Vec<&(char, String)> =
        norms.iter().filter(|(_, n)| t.starts_with(n.as_str()) && t[n.len()..].starts_with(' ')).collect();
    prefixed.sort_by_key(|(_, n)| std::cmp::Reverse(n.len()));
    match prefixed[..] {
        [(c, _)] => return Some((*c, 0.97)),
        [(c, a), (_, b), ..] if a.len() > b.len() => return Some((*c, 0.97)),
        _ => {}
    }
    // Option texts found whole in the reply; one that is part of another found one does not count.
    let padded = format!(" {t} ");
    let contained: Vec<&(char, String)> = norms.iter().filter(|(_, n)| padded.contains(&format!(" {n} "))).collect();
    let maximal: Vec<&&(char, String)> = contained
        .iter()
        .filter(|(_, n)| !contained.iter().any(|(_, m)| m.len() > n.len() && m.contains(n.as_str())))
        .collect();
    if let [(c, n)] = maximal[..] {
        // Short options ("yes", "0") are only trusted when they are most of the text.
        if n.len() >= 8 || n.len() * 2 >= t.len() {
            return Some((*c, 0.95));
        }
    }
    if maximal.len() > 1 {
        return None;
    }
    // The similarity is at most shorter / longer (in characters): an option whose bound
    // is below the threshold minus the margin can neither win nor spoil the margin, and is
    // not aligned with the whole reply (quadratic in their lengths).
    let t_chars = t.chars().count();
    let mut scored: Vec<(char, f64)> = norms
        .iter()
        .map(|(c, n)| {
            let n_chars = n.chars().count();
            let bound = t_chars.min(n_chars) as f64 / t_chars.max(n_chars).max(1) as f64;
            (*c, if bound < FUZZY_THRESHOLD - FUZZY_MARGIN { bound } else { strsim::normalized_levenshtein(&t, n) })
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let best = *scored.first()?;
    let second = scored.get(1).map_or(0.0, |s| s.1);
    (best.1 >= FUZZY_THRESHOLD && best.1 - second >= FUZZY_MARGIN).then_some(best)
}

/// Default-mode extraction.
pub fn extract(reply: &str, q: &Question) -> Extraction {
    let clean = strip_markdown(&strip_think(reply));
    // The last marker is the final answer; earlier ones are tried when it names nothing.
    for seg in marker_segments(&clean) {
        if let Some(c) = leading_letter(seg, q, true) {
            return Extraction::letter(c, Method::Marker);
        }
        if let Some(c) = cue_letter(seg, q).or_else(|| lone_marked_letter(seg, q)) {
            return Extraction::letter(c, Method::Cue);
        }
        if let Some((c, s)) = fuzzy_option(seg, &q.options) {
            return Extraction { letter: Some(c), method: Method::Fuzzy, score: Some(s) };
        }
    }
    let first_line = clean.split('\n').map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if let Some(c) = leading_letter(first_line, q, false) {
        return Extraction::letter(c, Method::Leading);
    }
    if let Some(c) = cue_letter(&clean, q) {
        return Extraction::letter(c, Method::Cue);
    }
    if let Some((c, s)) = fuzzy_option(&clean, &q.options) {
        return Extraction { letter: Some(c), method: Method::Fuzzy, score: Some(s) };
    }
    Extraction::unmatched()
}

/// Python's `re.search(r'([A-Z])[\.\)]', s)`.
pub fn compat_letter(s: &str) -> Option<char> {
    let cs: Vec<char> = s.chars().collect();
    cs.windows(2).find(|w| w[0].is_ascii_uppercase() && (w[1] == '.' || w[1] == ')')).map(|w| w[0])
}

/// `re.search(marker + r"\s*(.*)", s).group(1)`: after the first marker, skip whitespace
/// (newlines included), then take the rest of that line.
fn compat_after_marker<'a>(s: &'a str, marker: &str) -> Option<&'a str> {
    let at = s.find(marker)? + marker.len();
    let rest = s[at..].trim_start_matches(py_isspace);
    Some(rest.split('\n').next().unwrap_or(""))
}

/// `re.sub(r'^[a-z]\.\s*', '', s)`.
fn compat_drop_letter_prefix(s: &str) -> &str {
    let mut it = s.chars();
    match (it.next(), it.next()) {
        (Some(c), Some('.')) if c.is_ascii_lowercase() => it.as_str().trim_start_matches(py_isspace),
        _ => s,
    }
}

/// The option lines as the original cuts them from the question: lower-cased, split after
/// the last header on '\n', lines equal to "" or " " dropped, a leading "x." removed.
/// Which header is used depends on whether "actions" appears anywhere in the question.
pub fn compat_option_lines(question: &str) -> Vec<String> {
    compat_kept_lines(question).iter().map(|l| py_strip(compat_drop_letter_prefix(l)).to_string()).collect()
}

/// The raw pieces the original keeps as options: those not equal to "" or " " (a line of
/// two spaces stays).
pub fn compat_kept_lines(question: &str) -> Vec<String> {
    compat_raw_lines(question).into_iter().filter(|l| !l.is_empty() && l != " ").collect()
}

/// The list the original's random baseline counts: every piece after the header, blank
/// lines and the header line's own remainder included.
pub fn compat_raw_lines(question: &str) -> Vec<String> {
    let l = py_strip(question).to_lowercase();
    let tail = if l.contains("actions") {
        l.rsplit("available actions:").next().unwrap_or("")
    } else if l.contains("answer") {
        l.rsplit("available answers:").next().unwrap_or("")
    } else {
        return Vec::new();
    };
    tail.split('\n').map(str::to_string).collect()
}

/// Compat-mode extraction: the original `find_answer_fuzzy`.
pub fn extract_compat(reply: &str, q: &Question) -> Extraction {
    let answer_text =
        compat_after_marker(reply, "Action:").or_else(|| compat_after_marker(reply, "Answer:")).unwrap_or(reply);
    if let Some(c) = compat_letter(answer_text) {
        return Extraction::letter(c, Method::CompatLetter);
    }
    let choices = compat_option_lines(&q.question);
    let start = answer_text.find("Action:").or_else(|| answer_text.find("Answer:"));
    let query = match start {
        None => py_strip(compat_drop_letter_prefix(answer_text)),
        Some(i) => py_strip(compat_drop_letter_prefix(py_strip(&answer_text[i + 7..]))),
    };
    // The fuzzy match aligns the answer with every option (time grows with their product):
    // an answer is matched by its first MAX_COMPAT_QUERY_CHARS characters.
    let query = match query.char_indices().nth(MAX_COMPAT_QUERY_CHARS) {
        Some((cut, _)) => &query[..cut],
        None => query,
    };
    match best_choice(query, &choices) {
        Some((idx, score)) => match char::from_u32(65 + idx as u32) {
            Some(c) => Extraction { letter: Some(c), method: Method::CompatFuzzy, score: Some(score as f64) },
            None => Extraction { letter: None, method: Method::CompatError, score: None },
        },
        // extractOne returned None and the unpacking raised: the original scores '2'.
        None => Extraction { letter: None, method: Method::CompatError, score: None },
    }
}

/// Compat-mode correctness: the letter must equal one comma-separated key part exactly
/// (so the " F" of "D, F" never matches).
pub fn compat_correct(letter: Option<char>, key_raw: &str) -> bool {
    letter.is_some_and(|c| key_raw.split(',').any(|p| p.chars().eq(std::iter::once(c))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_blocks() {
        assert_eq!(strip_think("<think>A maybe</think>Answer: B"), "Answer: B");
        assert_eq!(strip_think("reasoning A</think>\nB."), "\nB.");
        assert_eq!(strip_think("Answer: C <think>unfinished A."), "Answer: C ");
        assert_eq!(strip_think("no tags"), "no tags");
    }

    #[test]
    fn compat_pieces() {
        assert_eq!(compat_letter("I think the answer is B."), Some('B'));
        assert_eq!(compat_letter("Answer B"), None);
        assert_eq!(compat_letter("x (C) y"), Some('C'));
        assert_eq!(compat_after_marker("Answer:\n\n  B. yes\nmore", "Answer:"), Some("B. yes"));
        assert_eq!(compat_drop_letter_prefix("c.place onion"), "place onion");
        assert_eq!(compat_drop_letter_prefix("C. place"), "C. place");
        assert!(compat_correct(Some('D'), "D, F"));
        assert!(!compat_correct(Some('F'), "D, F"));
        assert!(compat_correct(Some('C'), "A,C"));
    }
}
