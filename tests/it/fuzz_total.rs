//! Every parser of untrusted text is total: the reply parsers (ProAgent's planner and
//! double-check readers with both skill vocabularies, LLM-Coordination's action and
//! verdict reader with the options of every game, CoordinationQA's answer reader in both
//! modes) and the trace and transcript readers (Hanabi, collab, classic and V2 Overcooked
//! traces, `analyze`'s readers, eval and CoordinationQA transcripts).
//!
//! Three properties, each with a fixed seed and a fixed number of cases:
//!
//! - **No panic** on arbitrary text: any Unicode, characters whose lower case has another
//!   length in UTF-8 (`İ`, the Kelvin sign, `Ⱥ`, `ẞ`), control characters, broken markup,
//!   and each parser's own keywords in every order.
//! - **Bounded time** on 8 MiB inputs built to trip super-linear code: each parser's
//!   keywords repeated on one line with a long tail of trimmable characters, many lines of
//!   keywords and noise, and a valid answer inside 8 MiB of noise. Each runs on its own
//!   thread under a generous deadline ([`HANG`]), so a hang fails the test instead of
//!   stalling it; the deadline is not a speed target.
//! - **No misread**: a valid answer surrounded by random noise that holds none of the
//!   parser's keywords still reads as that answer (for the trace readers: whitespace-only
//!   lines, Unicode whitespace included, change nothing).
//!
//! Run with `--nocapture` to see how many inputs each target tried.

use proagent::agent::grounding::overcooked::parse_reply;
use proagent::agent::grounding::overcooked_v2 as v2_grounding;
use proagent::agent::llmco::reply;
use proagent::agent::planner::reply_fields;
use proagent::agent::{paper, verificator};
use proagent::overcooked_v2::skills as v2_skills;
use proagent::skills::Skill;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long one 8 MiB input may take before the test calls it a hang. Linear code takes a
/// few seconds in a debug build on a loaded machine; super-linear code takes hours.
const HANG: Duration = Duration::from_secs(120);

/// The size of the large inputs.
const HUGE: usize = 8 << 20;

/// Characters whose case mapping changes their length in UTF-8, or maps outside ASCII
/// into ASCII (the Kelvin sign's lower case is `k`), or depends on context (final sigma).
const CASE_SHIFTERS: &[char] =
    &['İ', '\u{212A}', 'Ⱥ', 'Ⱦ', 'ẞ', 'ß', 'Σ', 'ς', 'ı', 'ſ', 'ﬃ', 'ǅ', '\u{2126}', '\u{212B}', 'ᾼ', 'ŉ', 'ΐ', 'Ꞵ'];

/// Control and format characters, line and paragraph separators, a BOM, bidi overrides.
const CONTROLS: &[char] = &[
    '\0', '\u{1}', '\u{7}', '\u{8}', '\t', '\u{b}', '\u{c}', '\r', '\u{1b}', '\u{1c}', '\u{1f}', '\u{7f}', '\u{85}',
    '\u{a0}', '\u{2028}', '\u{2029}', '\u{feff}', '\u{200b}', '\u{202e}', '\u{3000}', '\u{fffd}',
];

/// ASCII punctuation and markup the parsers look at.
const PUNCT: &[char] = &[
    ' ', ' ', ' ', '\n', '.', ',', ':', ';', '(', ')', '[', ']', '{', '}', '<', '>', '"', '\'', '*', '`', '#', '|',
    '-', '_', '=', '$', '\\', '/', '!', '?', '~', '+', '&', '%', '0', '1', '2', '7',
];

/// Non-ASCII punctuation the parsers treat as separators or quotes.
const WIDE_PUNCT: &[char] = &['：', '→', '—', '–', '’', '“', '”', '•', '·', '…', '（', '）'];

/// Words of noise that spell none of any parser's keywords, with case-changing letters.
const SAFE_WORDS: &[&str] = &[
    "İstanbul",
    "İzmir",
    "\u{212A}elvin",
    "ȺȺȺ",
    "STRAẞE",
    "ΣΊΣΥΦΟΣ",
    "ǅemal",
    "ﬃ",
    "lorem",
    "dolor",
    "xyz",
    "QQ",
    "42",
    "3.14",
    "日本語",
    "🙂",
    "e\u{301}",
];

/// A deterministic text generator.
struct Gen {
    rng: ChaCha8Rng,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.rng.random_range(0..xs.len())]
    }

    /// Any Unicode scalar value, weighted towards the interesting ones.
    fn any_char(&mut self) -> char {
        match self.rng.random_range(0..10) {
            0 | 1 => *self.pick(CASE_SHIFTERS),
            2 => *self.pick(CONTROLS),
            3 | 4 => *self.pick(PUNCT),
            5 => *self.pick(WIDE_PUNCT),
            6 => char::from(self.rng.random_range(b'A'..=b'z')),
            7 => char::from_u32(self.rng.random_range(0x80..0x3000)).unwrap_or('\u{fffd}'),
            8 => char::from_u32(self.rng.random_range(0..0x11_0000)).unwrap_or('\u{10ffff}'),
            _ => char::from_u32(self.rng.random_range(0x1_F300..0x1_F6FF)).unwrap_or('🙂'),
        }
    }

    /// Arbitrary text: random characters and the parser's keywords, in random cases.
    fn arbitrary(&mut self, keywords: &[&str], max_len: usize) -> String {
        let target = self.rng.random_range(0..=max_len);
        let mut s = String::new();
        while s.len() < target {
            if self.rng.random_bool(0.3) {
                let k = *self.pick(keywords);
                match self.rng.random_range(0..4) {
                    0 => s.push_str(&k.to_uppercase()),
                    1 => s.push_str(&k.to_lowercase()),
                    _ => s.push_str(k),
                }
            } else {
                s.push(self.any_char());
            }
        }
        s
    }

    /// Noise that holds no keyword of any parser: safe words, case-changing letters,
    /// control characters, punctuation, non-ASCII characters; never an ASCII letter
    /// outside the safe words.
    fn noise(&mut self, max_len: usize) -> String {
        let target = self.rng.random_range(0..=max_len);
        self.noise_of(target)
    }

    /// [`Gen::noise`] of at least `target` bytes.
    fn noise_of(&mut self, target: usize) -> String {
        let mut s = String::new();
        while s.len() < target {
            match self.rng.random_range(0..8) {
                0 | 1 => {
                    let w: &&str = self.pick(SAFE_WORDS);
                    s.push_str(w);
                }
                2 => s.push(*self.pick(CASE_SHIFTERS)),
                3 => s.push(*self.pick(CONTROLS)),
                4 | 5 => s.push(*self.pick(PUNCT)),
                6 => s.push(*self.pick(WIDE_PUNCT)),
                _ => {
                    let c = char::from_u32(self.rng.random_range(0x80..0x11_0000)).unwrap_or('·');
                    s.push(c);
                }
            }
        }
        s
    }
}

/// `block` repeated to `size` bytes (cut at a character boundary).
fn tile(block: &str, size: usize) -> String {
    assert!(!block.is_empty());
    let mut s = String::with_capacity(size + block.len());
    while s.len() < size {
        s.push_str(block);
    }
    let mut cut = size;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s
}

/// The large inputs for a parser with these keywords: one line of keywords cycled with
/// separators that trip byte-offset code, ending in a long run of characters that
/// trimming eats; many lines of keywords, case-changing letters and noise.
fn huge_inputs(keywords: &[&str], seed: u64) -> Vec<(String, String)> {
    let mut g = Gen::new(seed);
    let mut line = String::new();
    let seps = [" ", "İ", "(", "\u{212A} ", ": ", "Ⱥ", "\t", "\""];
    let mut k = 0;
    while line.len() < 64 << 10 {
        line.push_str(keywords[k % keywords.len()]);
        line.push_str(seps[k % seps.len()]);
        k += 1;
    }
    let mut one_line = tile(&line, HUGE / 2);
    one_line.push_str(&tile(" .)\t\"'…", HUGE / 2));
    let mut block = String::new();
    while block.len() < 256 << 10 {
        block.push_str(&g.arbitrary(keywords, 200));
        block.push('\n');
    }
    vec![
        ("keywords on one line, then a trimmable tail".into(), one_line),
        ("lines of keywords, case-changing letters and noise".into(), tile(&block, HUGE)),
    ]
}

/// Runs `f` on its own thread; fails on a panic, and on a hang after [`HANG`].
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(HANG) {
        Ok(v) => {
            println!("  {what}: {:.1?}", started.elapsed());
            v
        }
        Err(RecvTimeoutError::Timeout) => panic!("{what}: still running after {HANG:?} (a hang or super-linear time)"),
        Err(RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

/// Runs `check` on `cases` arbitrary inputs; collects the panics.
fn no_panics(target: &str, keywords: &[&str], cases: usize, seed: u64, check: impl Fn(&str)) {
    let mut g = Gen::new(seed);
    let mut failures = Vec::new();
    for k in 0..cases {
        let max = if k % 10 == 0 { 4_000 } else { 300 };
        let input = g.arbitrary(keywords, max);
        if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
            failures.push(format!("case {k}: {:?}", input.chars().take(300).collect::<String>()));
        }
    }
    println!("fuzz {target}: {cases} arbitrary inputs, {} panics", failures.len());
    assert!(failures.is_empty(), "{target}: {} inputs panicked:\n{}", failures.len(), failures.join("\n"));
}

/// Runs `check` on each large input under the hang deadline.
fn bounded(target: &str, inputs: Vec<(String, String)>, check: fn(&str)) {
    for (what, input) in inputs {
        let label = format!("{target}, {} MiB: {what}", input.len() >> 20);
        within(&label, move || check(&input));
    }
}

// ---------------------------------------------------------------------------------------
// LLM-Coordination

const LLMCO_KEYWORDS: &[&str] = &[
    "Action:",
    "action:",
    "ACTION:",
    "Explanation:",
    "Verification:",
    "Not Okay",
    "Okay",
    "ok",
    "<think>",
    "</think>",
    "**",
    "`",
    "#",
    "B.",
    "(B)",
    "AA)",
    "move to room 10",
    "Play my Card 0",
    "pick up onion from o0",
    "wait",
    "İ",
    "\u{212A}",
    "Ⱥ",
];

/// The options each game offers, in the groundings' words.
fn llmco_options() -> Vec<Vec<String>> {
    use proagent::agent::llmco::capture::grounding::action_words as capture_words;
    use proagent::agent::llmco::escape::grounding::action_words as escape_words;
    use proagent::collab::capture::CaptureAction;
    use proagent::collab::escape::EscapeAction;
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&[
            "pick up onion from o0",
            "pick up onion from o1",
            "pick up plate from p0",
            "place onion in c0",
            "place onion on k3",
            "wait",
            "move away",
        ]),
        s(&[
            "Reveal Bob's Red color cards",
            "Reveal Bob's rank 1 cards",
            "Play my Card 0",
            "Play my Card 1",
            "Play my Card 4",
            "Discard my Card 0",
            "Discard my Card 3",
        ]),
        [CaptureAction::Stay, CaptureAction::Move(1), CaptureAction::Move(10), CaptureAction::Press]
            .into_iter()
            .map(|a| capture_words(4, a))
            .collect(),
        [EscapeAction::Wait, EscapeAction::Move(2), EscapeAction::Move(12), EscapeAction::Fix]
            .into_iter()
            .map(|a| escape_words(7, a))
            .collect(),
    ]
}

fn llmco_all(text: &str) {
    for options in llmco_options() {
        if let Some(t) = reply::action_text(text)
            && let Some(i) = reply::match_option(&t, &options)
        {
            assert!(i < options.len());
        }
        let _ = reply::match_option(text, &options);
    }
    let _ = reply::verdict(text);
    let _ = reply::explanation(text, 400);
}

/// What the agent does with a reply, once: the action against one game's options, the
/// verdict, the explanation.
fn llmco_once(text: &str) {
    let options = &llmco_options()[1];
    if let Some(t) = reply::action_text(text) {
        assert!(t.chars().count() <= reply::MAX_ACTION_CHARS);
        let _ = reply::match_option(&t, options);
    }
    let _ = reply::verdict(text);
    let _ = reply::explanation(text, 400);
}

#[test]
fn llmco_reply_parser_never_panics() {
    no_panics("llmco reply parser", LLMCO_KEYWORDS, 3_000, 101, llmco_all);
}

#[test]
fn llmco_reply_parser_reads_8_mib_replies_in_bounded_time() {
    let mut inputs = huge_inputs(LLMCO_KEYWORDS, 102);
    // A whole 8 MiB action line.
    inputs.push(("one 8 MiB action line".into(), format!("Action: {}", tile("play my card 0 İ ", HUGE))));
    bounded("llmco reply parser", inputs, llmco_once);
    // The answer inside 8 MiB of noise is still read.
    let mut g = Gen::new(103);
    let noise = tile(&g.noise_of(64 << 10).replace('\n', " "), HUGE / 2);
    let reply = format!("Explanation: {noise}\nAction: move to room 10\nVerification: Not Okay\n{noise}");
    let (found, verdict) = within("llmco reply parser, 8 MiB of noise around the answer", move || {
        let t = reply::action_text(&reply);
        let opts: Vec<String> = ["move to room 1", "move to room 10", "wait"].map(String::from).to_vec();
        (t.and_then(|t| reply::match_option(&t, &opts)), reply::verdict(&reply))
    });
    assert_eq!((found, verdict), (Some(1), Some(false)));
}

#[test]
fn llmco_reply_parser_reads_the_answer_inside_noise() {
    let mut g = Gen::new(104);
    let games = llmco_options();
    let mut cases = 0;
    for k in 0..1_200 {
        let options = &games[k % games.len()];
        let want = g.rng.random_range(0..options.len());
        let opt = &options[want];
        let written = match g.rng.random_range(0..5) {
            0 => format!("{}. {opt}", reply::option_letter(want)),
            1 => format!("\"{opt}.\""),
            2 => format!("**{opt}**"),
            _ => opt.clone(),
        };
        let keyword = *g.pick(&["Action:", "ACTION:", "action:", "**Action:**"]);
        let before = g.noise(600);
        let why = g.noise(300).replace('\n', " ");
        let after = g.noise(600);
        let text = format!("{before}\nExplanation: {why}\n{keyword} {written}\n{after}");
        let read = reply::action_text(&text).and_then(|t| reply::match_option(&t, options));
        assert_eq!(read, Some(want), "case {k}: {text:?}");
        let ok = g.rng.random_bool(0.5);
        let verdict = if ok { "Okay" } else { "Not Okay" };
        let checked = format!("{before}\nVerification: {verdict}\n{}", after.replace(':', " "));
        assert_eq!(reply::verdict(&checked), Some(ok), "case {k}: {checked:?}");
        cases += 1;
    }
    println!("llmco reply parser: {cases} answers inside noise read right");
}

// ---------------------------------------------------------------------------------------
// ProAgent: the planner's reply, both skill vocabularies, the double-check reply

const PROAGENT_KEYWORDS: &[&str] = &[
    "Analysis:",
    "Intention for Player 1:",
    "Plan for Player 0:",
    "Plan for Player 1:",
    "plan_for_player_0",
    "Plan:",
    "Player 0:",
    "P1:",
    "### Plan for Player 0",
    "<think>",
    "</think>",
    "<thinking>",
    "<|eot_id|>",
    "</s>",
    "Scene 3:",
    "```",
    "| Player 0 |",
    "$\\boxed{\\text{",
    "}}$",
    "pickup(onion)",
    "pickup(",
    "put_ingredient_in_pot(tomato)",
    "wait(",
    "wait(1",
    "wait(0)",
    "not",
    "{\"plan_for_player_0\": \"",
    "\"}",
    ",",
    "Failed condition:",
    "the failed condition is",
    "pot_not_full",
    "Player 1 will",
    "(",
    ")",
    "'s",
    "’s",
    "—",
    "：",
    " is to ",
];

fn v2_names() -> Vec<String> {
    proagent::env_v2::Layout::builtin("cramped_room_v2").unwrap().ingredient_names.clone()
}

fn proagent_all(text: &str) {
    let names = v2_names();
    for me in 0..2 {
        match parse_reply(text, me) {
            Ok(r) => assert_eq!(Skill::parse(&r.plan.to_string()), Ok(r.plan)),
            Err(e) => assert!(!e.reason.is_empty()),
        }
        let _ = reply_fields(text, me, Some(1 - me));
        let _ = v2_grounding::read_reply(text, me, None, &names);
        let _ = paper::read_plan(text, me, 3, |r| parse_reply(r, me).map_err(|e| e.reason));
    }
    let _ = verificator::read_failed_condition(text);
    let _ = Skill::parse(text);
    let _ = Skill::mentions(text);
    if let Err(e) = Skill::find_first(text) {
        assert_eq!(e.raw, text);
    }
    let _ = v2_skills::parse(text, &names);
    let _ = v2_skills::find_first(text, &names);
}

/// One pass of each ProAgent reader, for the large inputs.
fn proagent_once(text: &str) {
    let names = v2_names();
    let _ = parse_reply(text, 0);
    let _ = v2_grounding::read_reply(text, 1, None, &names);
    let _ = verificator::read_failed_condition(text);
    let _ = Skill::find_first(text);
    let _ = v2_skills::find_first(text, &names);
}

#[test]
fn proagent_reply_parsers_never_panic() {
    no_panics("proagent reply parsers", PROAGENT_KEYWORDS, 2_000, 201, proagent_all);
}

#[test]
fn proagent_reply_parsers_read_8_mib_replies_in_bounded_time() {
    bounded("proagent reply parsers", huge_inputs(PROAGENT_KEYWORDS, 202), proagent_once);
    let mut g = Gen::new(203);
    let noise = tile(&g.noise_of(64 << 10), HUGE / 2);
    let reply = format!("Analysis: {noise}\nPlan for Player 0: pickup(onion)\n{noise}");
    let plan = within("proagent planner, 8 MiB of noise around the plan", move || {
        parse_reply(&reply, 0).map(|r| r.plan).map_err(|e| e.reason)
    });
    assert_eq!(plan, Ok(Skill::PickupOnion));
}

#[test]
fn proagent_reply_parsers_read_the_answer_inside_noise() {
    let mut g = Gen::new(204);
    let names = v2_names();
    let classic = [Skill::PickupOnion, Skill::PickupDish, Skill::PutOnionInPot, Skill::DeliverSoup, Skill::Wait(3)];
    let v2 = ["pickup(plate)", "put_ingredient_in_pot(tomato)", "start_cooking()", "deliver_dish()", "wait(2)"];
    for k in 0..400 {
        let me = k % 2;
        let (before, after) = (g.noise(500), g.noise(500));
        let skill = classic[k % classic.len()];
        let text = format!("{before}\nPlan for Player {me}: {skill}\n{after}");
        let read = parse_reply(&text, me).map(|r| r.plan).map_err(|e| e.reason);
        assert_eq!(read, Ok(skill), "case {k}: {text:?}");
        let written = v2[k % v2.len()];
        let text = format!("{before}\nPlan for Player {me}: {written}\n{after}");
        let read = v2_grounding::read_reply(&text, me, None, &names).map(|r| r.plan);
        assert_eq!(read, v2_skills::parse(written, &names).map_err(|e| e.reason), "case {k}: {text:?}");
        let text = format!("{before}\nFailed condition: pot_not_full: the pot is full\n{after}");
        let read = verificator::read_failed_condition(&text).and_then(|f| f.condition);
        assert_eq!(read.as_deref(), Some("pot_not_full"), "case {k}: {text:?}");
    }
}

// ---------------------------------------------------------------------------------------
// CoordinationQA

const QA_KEYWORDS: &[&str] = &[
    "Answer:",
    "Action:",
    "answer is A x ",
    "the answer is",
    "option",
    "choice",
    "Option B",
    "(C)",
    "A.",
    "B)",
    "I choose",
    "go with",
    "<think>",
    "</think>",
    "**",
    "...",
    " A ",
    "I ",
    "\n",
    "Available actions:",
];

fn qa_questions() -> Arc<Vec<proagent::qa::data::Question>> {
    Arc::new(proagent::qa::data::embedded().unwrap().questions)
}

#[test]
fn qa_answer_reader_never_panics() {
    let qs = qa_questions();
    no_panics("qa answer reader", QA_KEYWORDS, 1_500, 301, |text| {
        for q in [&qs[0], &qs[qs.len() / 2], &qs[qs.len() - 1]] {
            let e = proagent::qa::extract::extract(text, q);
            assert!(e.letter.is_none_or(|c| c.is_ascii_uppercase()));
            let _ = proagent::qa::extract::extract_compat(text, q);
        }
    });
}

#[test]
fn qa_answer_reader_reads_8_mib_replies_in_bounded_time() {
    fn both(text: &str) {
        let qs = proagent::qa::data::embedded().unwrap().questions;
        let Some(q) = qs.iter().max_by_key(|q| q.options.len()) else { return };
        let _ = proagent::qa::extract::extract(text, q);
        let _ = proagent::qa::extract::extract_compat(text, q);
    }
    bounded("qa answer reader", huge_inputs(QA_KEYWORDS, 302), both);
    let mut g = Gen::new(303);
    let noise = tile(&g.noise_of(64 << 10), HUGE / 2);
    let reply = format!("{noise}\nAnswer: C.\n{noise}");
    let qs = qa_questions();
    let got = within("qa answer reader, 8 MiB of noise around the answer", move || {
        let q = &qs[0];
        (proagent::qa::extract::extract(&reply, q).letter, proagent::qa::extract::extract_compat(&reply, q).letter)
    });
    assert_eq!(got, (Some('C'), Some('C')));
}

#[test]
fn qa_answer_reader_reads_the_answer_inside_noise() {
    let mut g = Gen::new(304);
    let qs = qa_questions();
    for k in 0..300 {
        let q = &qs[g.rng.random_range(0..qs.len())];
        let letter = q.options[g.rng.random_range(0..q.options.len())].letter;
        let text = format!("{}\nAnswer: {letter}.\n{}", g.noise(500), g.noise(500));
        assert_eq!(proagent::qa::extract::extract(&text, q).letter, Some(letter), "case {k}: {text:?}");
        assert_eq!(proagent::qa::extract::extract_compat(&text, q).letter, Some(letter), "case {k}: {text:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Trace and transcript readers

fn fixture(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

const TRACE_KEYWORDS: &[&str] = &[
    "{\"type\":\"game\",\"schema\":\"proagent-hanabi-trace/1\"",
    "{\"kind\":\"header\",\"schema\":\"proagent-collab-trace/1\"",
    "{\"type\":\"state\"",
    "{\"kind\":\"step\",\"t\":0",
    "{\"kind\":\"end\"",
    "\"draws\":[[2,5]]",
    "[[[[",
    "]]]]",
    "\"\\u0130\"",
    "\"İ\"",
    "18446744073709551616",
    "-1",
    "1e999",
    "null",
    "\n",
    "\r\n",
    ",",
    ":",
];

/// Each reader on one text: parse, and replay what parses (small inputs only).
fn traces_all(text: &str, replay: bool) {
    use proagent::collab::trace as collab;
    use proagent_hanabi::trace as hanabi;
    if let Ok(games) = hanabi::parse_trace_file(text)
        && replay
    {
        for g in &games {
            let _ = hanabi::verify(g);
        }
    }
    let _ = hanabi::is_hanabi_trace(text);
    let _ = collab::is_collab_trace(text);
    if let Ok(rollouts) = collab::parse(text, "fuzz.jsonl")
        && replay
    {
        for r in &rollouts {
            let _ = collab::verify(r);
        }
    }
    let _ = proagent::env::trace::parse_trace_file(text);
    let _ = proagent::env_v2::trace::parse_v2_trace_file(text);
    let _ = proagent::analysis::readers::read("fuzz.jsonl", text);
    let _ = proagent::transcript::Transcript::parse(text, "fuzz.jsonl");
    let _ = proagent::qa::transcript::parse(text, "fuzz.jsonl");
}

/// Valid files of every kind, cut to a few records.
fn trace_seeds() -> Vec<String> {
    let head = |path: &str, n: usize| fixture(path).lines().take(n).collect::<Vec<_>>().join("\n");
    vec![
        fixture("tests/fixtures/hanabi_traces/cheat_2p.jsonl"),
        fixture("tests/fixtures/collab_traces/capture_1.jsonl"),
        fixture("tests/fixtures/collab_traces/escape_1.jsonl"),
        head("tests/fixtures/traces/cramped_room.jsonl", 40),
        head("tests/fixtures/v2_traces/asymm_advantages.jsonl", 40),
    ]
}

#[test]
fn trace_readers_never_panic() {
    // Arbitrary text, and valid files with arbitrary text spliced in at random places.
    no_panics("trace readers (arbitrary)", TRACE_KEYWORDS, 600, 401, |t| traces_all(t, true));
    let seeds = trace_seeds();
    let mut g = Gen::new(402);
    let mut failures = Vec::new();
    let cases = 400;
    for k in 0..cases {
        let seed = &seeds[k % seeds.len()];
        let mut at = g.rng.random_range(0..=seed.len());
        while !seed.is_char_boundary(at) {
            at -= 1;
        }
        let cut = g.rng.random_range(0..40).min(seed.len() - at);
        let mut end = at + cut;
        while !seed.is_char_boundary(end) {
            end += 1;
        }
        let text = format!("{}{}{}", &seed[..at], g.arbitrary(TRACE_KEYWORDS, 12), &seed[end..]);
        if catch_unwind(AssertUnwindSafe(|| traces_all(&text, true))).is_err() {
            failures.push(format!("case {k}: seed {} at byte {at}", k % seeds.len()));
        }
    }
    println!("fuzz trace readers (spliced): {cases} inputs, {} panics", failures.len());
    assert!(failures.is_empty(), "{} inputs panicked:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn trace_readers_read_8_mib_files_in_bounded_time() {
    let mut inputs = huge_inputs(TRACE_KEYWORDS, 403);
    // Valid files repeated to 8 MiB, and one 8 MiB string in a record.
    inputs.push((
        "a Hanabi trace repeated".into(),
        tile(&(fixture("tests/fixtures/hanabi_traces/cheat_2p.jsonl") + "\n"), HUGE),
    ));
    inputs.push((
        "a collab trace repeated".into(),
        tile(&(fixture("tests/fixtures/collab_traces/capture_1.jsonl") + "\n"), HUGE),
    ));
    let long = format!("{{\"type\":\"game\",\"schema\":\"{}\"}}", tile("İ\u{212A}\\u0130", HUGE));
    inputs.push(("one 8 MiB string".into(), long));
    bounded("trace readers", inputs, |t| traces_all(t, false));
}

#[test]
fn trace_readers_ignore_whitespace_only_lines() {
    use proagent::collab::trace as collab;
    use proagent_hanabi::trace as hanabi;
    let spread = |text: &str| {
        let mut out = String::from("\u{3000}\n");
        for line in text.lines() {
            out.push_str(line);
            out.push_str("\r\n \t\u{a0}\u{2028}\n\n");
        }
        out
    };
    let h = fixture("tests/fixtures/hanabi_traces/cheat_2p.jsonl");
    let (a, b) = (hanabi::parse_trace_file(&h).unwrap(), hanabi::parse_trace_file(&spread(&h)).unwrap());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            (x.header.game.as_str(), x.states.len(), x.moves.len()),
            (y.header.game.as_str(), y.states.len(), y.moves.len())
        );
        assert!(hanabi::verify(y).unwrap().passed);
    }
    let c = fixture("tests/fixtures/collab_traces/escape_1.jsonl");
    let (a, b) = (collab::parse(&c, "a").unwrap(), collab::parse(&spread(&c), "b").unwrap());
    assert_eq!(
        a.iter().map(|r| r.steps.len()).collect::<Vec<_>>(),
        b.iter().map(|r| r.steps.len()).collect::<Vec<_>>()
    );
    assert!(b.iter().all(|r| collab::verify(r).passed));
}

/// A CoordinationQA transcript written by `qa` with the offline oracle model.
fn qa_transcript() -> String {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("qa.jsonl");
    let out = crate::support::bin()
        .args(["qa", "--model", "oracle", "--trials", "1", "--no-progress", "--transcript"])
        .arg(&t)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(&t).unwrap()
}

#[test]
fn qa_transcript_reader_is_total() {
    use proagent::qa::transcript as qa;
    let full = qa_transcript();
    let whole = qa::parse(&full, "qa.jsonl").unwrap();
    // Whitespace-only lines (Unicode whitespace too) change nothing.
    let spread: String = full.lines().map(|l| format!("{l}\r\n \t\u{a0}\u{3000}\n\n")).collect();
    assert_eq!(qa::parse(&spread, "b").unwrap().exchanges.len(), whole.exchanges.len());
    // Arbitrary text spliced into a valid head: an error or a transcript, never a panic.
    let seed = full.lines().take(6).collect::<Vec<_>>().join("\n");
    let mut g = Gen::new(404);
    let mut failures = Vec::new();
    let cases = 400;
    for k in 0..cases {
        let mut at = g.rng.random_range(0..=seed.len());
        while !seed.is_char_boundary(at) {
            at -= 1;
        }
        let text = format!("{}{}{}", &seed[..at], g.arbitrary(TRACE_KEYWORDS, 12), &seed[at..]);
        if catch_unwind(AssertUnwindSafe(|| qa::parse(&text, "fuzz.jsonl"))).is_err() {
            failures.push(format!("case {k} at byte {at}"));
        }
    }
    println!("fuzz QA transcript reader (spliced): {cases} inputs, {} panics", failures.len());
    assert!(failures.is_empty(), "{} inputs panicked:\n{}", failures.len(), failures.join("\n"));
    // 8 MiB: the transcript repeated (headers again and again), and arbitrary inputs.
    let mut inputs = huge_inputs(TRACE_KEYWORDS, 405);
    inputs.push(("a QA transcript repeated".into(), tile(&full, HUGE)));
    bounded("QA transcript reader", inputs, |t| {
        let _ = proagent::qa::transcript::parse(t, "fuzz.jsonl");
    });
}
