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

/// Lower-case words of `s`, punctuation as spaces.
pub fn words(s: &str) -> Vec<String> {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// Removes `<think>...</think>` blocks (reasoning models) from a reply.
fn without_thinking(reply: &str) -> String {
    let mut out = String::new();
    let mut rest = reply;
    while let Some(i) = rest.find("<think>") {
        out.push_str(&rest[..i]);
        match rest[i..].find("</think>") {
            Some(j) => rest = &rest[i + j + "</think>".len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// How many characters of the `Action:` line [`action_text`] reads.
pub const MAX_ACTION_CHARS: usize = 2_000;

/// The text after the first `Action:` of a reply (to the end of its line), cleaned; `None`
/// when the reply has no `Action:` or nothing after it.
pub fn action_text(reply: &str) -> Option<String> {
    let text = without_thinking(reply).replace(['*', '`', '#'], "");
    // ASCII case folding keeps every byte offset, so `at` is an offset of `text`.
    let lower = text.to_ascii_lowercase();
    let at = lower.find("action:")?;
    let after = at + "action:".len();
    let mut rest = &text[after..];
    // The published agent skips a second "Action:" inside the first.
    let again = rest.trim_start();
    if again.get(.."action:".len()).is_some_and(|k| k.eq_ignore_ascii_case("action:")) {
        rest = &again["action:".len()..];
    }
    // At most MAX_ACTION_CHARS of the line are read: no offered action is that long, and
    // matching a whole 8 MiB line word by word against every option would be slow.
    let line = rest.trim_start().lines().next().unwrap_or("");
    let line = match line.char_indices().nth(MAX_ACTION_CHARS) {
        Some((cut, _)) => &line[..cut],
        None => line,
    };
    let line = line.trim();
    let cleaned = line
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '[' || c == ']' || c == '<' || c == '>')
        .trim()
        .trim_end_matches('.')
        .trim();
    (!cleaned.is_empty()).then(|| cleaned.to_string())
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
        Some('.' | ')' | ':') => (Some(&t[..end]), after[1..].trim()),
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
    (winners.len() == 1 && best * 3 >= want.len() * 2).then(|| winners[0])
}

/// The verdict of a verification reply: `Some(true)` okay, `Some(false)` not okay, `None`
/// unreadable.
pub fn verdict(reply: &str) -> Option<bool> {
    let text = without_thinking(reply).replace(['*', '`', '#'], "").to_ascii_lowercase();
    let at = text.rfind("verification:")?;
    let rest = text[at + "verification:".len()..].trim_start();
    let first: String = rest.lines().next().unwrap_or("").chars().take(20).collect();
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
