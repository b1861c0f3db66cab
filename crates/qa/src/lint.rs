//! Data defects the benchmark file shows by itself, and how each scoring mode treats them.

use super::data::{Category, Question};
use super::extract::{compat_kept_lines, compat_raw_lines, fuzzy_option};
use serde::Serialize;

/// A kind of defect in the benchmark file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The key names a letter that is not printed: no answer can be scored correct.
    KeyMissingOption,
    /// An option letter is printed twice.
    RepeatedLetter,
    /// An option letter is left out of the sequence.
    SkippedLetter,
    /// The key has whitespace around a letter ("D, F").
    KeyStraySpace,
    /// The original's fuzzy fallback numbers the options differently from their letters.
    CompatLetterShift,
    /// Advisory: the free-text answer matches an option the key does not accept.
    AnswerTextDisagrees,
}

impl Kind {
    /// The kebab-case name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Kind::KeyMissingOption => "key-missing-option",
            Kind::RepeatedLetter => "repeated-letter",
            Kind::SkippedLetter => "skipped-letter",
            Kind::KeyStraySpace => "key-stray-space",
            Kind::CompatLetterShift => "compat-letter-shift",
            Kind::AnswerTextDisagrees => "answer-text-disagrees",
        }
    }

    /// Whether the finding is certain (false: needs a human to check).
    pub fn certain(self) -> bool {
        self != Kind::AnswerTextDisagrees
    }
}

/// One defect of one question.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// The question's id, e.g. `50-EC`.
    pub id: String,
    /// The question's 0-based data row.
    pub row: usize,
    /// The question's category.
    pub category: Category,
    /// Which defect it is.
    pub kind: Kind,
    /// The defect in this question's terms (letters, key, options).
    pub detail: String,
    /// What the default scorer does about it.
    pub default_scoring: String,
    /// What `--compat` (the original scorer) does about it.
    pub compat_scoring: String,
}

/// Every defect found in a set of questions, and how the original's baseline is skewed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LintReport {
    /// Questions examined.
    pub questions: usize,
    /// The defects, in question order.
    pub findings: Vec<Finding>,
    /// Questions where the original's random baseline draws from more letters than there
    /// are printed options (it counts blank lines).
    pub baseline_inflated: usize,
    /// Extra letters the original's baseline draws from, summed over questions.
    pub baseline_extra_letters: usize,
}

fn letters_text(q: &Question) -> String {
    q.options.iter().map(|o| o.letter.to_string()).collect::<Vec<_>>().join(" ")
}

/// The letters the original's fuzzy fallback gives the printed options, when they differ
/// from the printed ones: (printed, compat) pairs.
fn compat_shifts(q: &Question) -> (Vec<(char, char)>, bool) {
    let kept = compat_kept_lines(&q.question);
    let mut shifts = Vec::new();
    for (j, line) in kept.iter().enumerate() {
        let mut cs = line.chars();
        if let (Some(c), Some('.')) = (cs.next(), cs.next()) {
            if c.is_ascii_lowercase() {
                let printed = c.to_ascii_uppercase();
                let compat = char::from_u32(65 + j as u32).unwrap_or('?');
                if printed != compat {
                    shifts.push((printed, compat));
                }
            }
        }
    }
    // A line of spaces right after the header survives the filter and becomes "option A".
    let blank_first = kept.first().is_some_and(|l| l.trim().is_empty());
    (shifts, blank_first)
}

/// Examines each question for the defects of [`Kind`]; reads nothing but the questions.
pub fn lint(questions: &[Question]) -> LintReport {
    let mut findings = Vec::new();
    let mut baseline_inflated = 0;
    let mut baseline_extra_letters = 0;
    for q in questions {
        let mut add = |kind: Kind, detail: String, default_scoring: &str, compat_scoring: &str| {
            findings.push(Finding {
                id: q.id.clone(),
                row: q.row,
                category: q.category,
                kind,
                detail,
                default_scoring: default_scoring.into(),
                compat_scoring: compat_scoring.into(),
            })
        };
        let text_match = fuzzy_option(&q.answer_text, &q.options).map(|(c, _)| c);
        let missing: Vec<char> = q.accepted.iter().copied().filter(|&c| !q.has_option(c)).collect();
        if !missing.is_empty() {
            let hint = text_match.map_or(String::new(), |c| format!("; the answer text matches option {c}"));
            let none_left = !q.is_scorable();
            add(
                Kind::KeyMissingOption,
                format!(
                    "key {:?} names {} but the options are {}{hint}",
                    q.key_raw,
                    missing.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
                    letters_text(q)
                ),
                if none_left {
                    "no answer can be correct; the question stays in the denominator and the report lists it as unscorable"
                } else {
                    "the missing letter is ignored; the printed keyed letters are accepted"
                },
                "a reply naming the missing letter (e.g. \"C.\") is scored correct, as the original does",
            );
        }
        let mut seen: Vec<char> = Vec::new();
        let mut expected_next = 'A';
        for o in &q.options {
            if seen.contains(&o.letter) {
                add(
                    Kind::RepeatedLetter,
                    format!("letter {} is printed twice (options {})", o.letter, letters_text(q)),
                    "answers are read by letter, so either copy of the letter scores the same",
                    "the fuzzy fallback numbers options by position, so options after the repeat are read one letter later",
                );
            } else if o.letter > expected_next {
                add(
                    Kind::SkippedLetter,
                    format!(
                        "letter{} {} skipped (options {})",
                        if (o.letter as u32) - (expected_next as u32) > 1 { "s" } else { "" },
                        (expected_next..o.letter).map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
                        letters_text(q)
                    ),
                    "letters are taken as printed",
                    "the fuzzy fallback numbers options by position, so options after the gap are read one letter earlier",
                );
            }
            seen.push(o.letter);
            expected_next = char::from_u32(o.letter as u32 + 1).unwrap_or('Z');
        }
        if q.key_raw.split(',').any(|p| p != p.trim()) {
            add(
                Kind::KeyStraySpace,
                format!("key {:?} has whitespace around a letter", q.key_raw),
                "key parts are trimmed, so every listed letter is accepted",
                "the key is split on ',' only, so a part with a space never equals a letter and only the others are accepted",
            );
        }
        let (shifts, blank_first) = compat_shifts(q);
        if !shifts.is_empty() {
            let pairs: Vec<String> = shifts.iter().map(|(p, c)| format!("{p}->{c}")).collect();
            let why = if blank_first {
                "a line of spaces after the options header counts as an option"
            } else {
                "the letters repeat or skip"
            };
            add(
                Kind::CompatLetterShift,
                format!("the original's fuzzy fallback reads option letters as {} ({why})", pairs.join(" ")),
                "unaffected: options keep their printed letters",
                "replies matched by text (no \"X.\" letter in the reply) get the shifted letter",
            );
        }
        if let Some(c) = text_match.filter(|c| !q.accepted.contains(c) && missing.is_empty()) {
            add(
                Kind::AnswerTextDisagrees,
                format!(
                    "the free-text answer {:?} matches option {c}, but the key is {:?} (needs a manual check)",
                    q.answer_text.trim(),
                    q.key_raw
                ),
                "scored by the key as published",
                "scored by the key as published",
            );
        }
        let raw = compat_raw_lines(&q.question).len();
        if raw > q.options.len() {
            baseline_inflated += 1;
            baseline_extra_letters += raw - q.options.len();
        }
    }
    findings.sort_by_key(|f| (f.row, f.category, f.kind));
    LintReport { questions: questions.len(), findings, baseline_inflated, baseline_extra_letters }
}
