//! CoordinationQA library checks: parsing the real file, lint findings, letter extraction
//! (default and compat), scoring of the built-in models, transcripts and replay.

use proagent::llm::{ChatRequest, ChatResponse, LanguageModel, LlmError};
use proagent::qa::baseline::{self, Policy};
use proagent::qa::data::{self, Category, Dataset, Game, Question};
use proagent::qa::extract::{Method, extract, extract_compat};
use proagent::qa::lint::{Kind, lint};
use proagent::qa::models::{Oracle, RandomModel, Replay};
use proagent::qa::prompt::Prompts;
use proagent::qa::score::build_report;
use proagent::qa::transcript::{self, Line};
use proagent::qa::{self, Mode, RunConfig};
use std::sync::Arc;

fn ds() -> Dataset {
    data::embedded().expect("embedded data parses")
}

fn q<'a>(ds: &'a Dataset, id: &str) -> &'a Question {
    ds.questions.iter().find(|q| q.id == id).unwrap_or_else(|| panic!("no question {id}"))
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(f)
}

#[test]
fn the_real_file_has_198_questions_with_the_documented_counts() {
    let d = ds();
    assert_eq!(d.rows, 66);
    assert_eq!(d.questions.len(), 198);
    assert_eq!(d.sha256, "ac86ab2a2c1212d4bbdc1eef08b750a1e7322eeb34ba0842a71258ab95f667c4");
    // SOURCE.md: per game, questions per category and rows with several accepted letters (EC/ToM/JP).
    let table = [
        (Game::Hanabi, 28, [0, 3, 2]),
        (Game::Overcooked, 20, [0, 11, 5]),
        (Game::CollabCapture, 6, [0, 0, 0]),
        (Game::CollabEscape, 7, [0, 1, 0]),
        (Game::CollabCooking, 5, [0, 0, 1]),
    ];
    for (game, n, multi) in table {
        for (i, cat) in Category::ALL.into_iter().enumerate() {
            let qs: Vec<&Question> = d.questions.iter().filter(|q| q.game == game && q.category == cat).collect();
            assert_eq!(qs.len(), n, "{game} {cat}");
            assert_eq!(qs.iter().filter(|q| q.accepted.len() > 1).count(), multi[i], "{game} {cat} multi-key rows");
        }
    }
    // Original three-way grouping: CollabGames = the three collab games.
    assert_eq!(d.questions.iter().filter(|q| q.group() == data::Group::CollabGames).count(), 54);
    // Option counts (min, max) per category for Hanabi and Overcooked, as in SOURCE.md.
    for (game, cat, lo, hi, mean) in [
        (Game::Hanabi, Category::EC, 2, 7, 4.3),
        (Game::Hanabi, Category::ToM, 4, 10, 7.7),
        (Game::Hanabi, Category::JP, 10, 19, 16.1),
        (Game::Overcooked, Category::EC, 2, 10, 4.0),
        (Game::Overcooked, Category::ToM, 4, 13, 7.2),
        // SOURCE.md once said 6.6: that count missed the two options written "C.place" (46-JP, 47-JP).
        (Game::Overcooked, Category::JP, 3, 9, 6.7),
    ] {
        let ns: Vec<usize> =
            d.questions.iter().filter(|q| q.game == game && q.category == cat).map(|q| q.options.len()).collect();
        assert_eq!((*ns.iter().min().unwrap(), *ns.iter().max().unwrap()), (lo, hi), "{game} {cat}");
        let m = ns.iter().sum::<usize>() as f64 / ns.len() as f64;
        assert!((m - mean).abs() < 0.05, "{game} {cat} mean {m}");
    }
    // Overcooked maps, and the fields of one question.
    assert_eq!(d.questions.iter().filter(|q| q.map == "Forced Coordination").count(), 18);
    let x = q(&d, "7-ToM");
    assert_eq!(x.key_raw, "D, F");
    assert_eq!(x.accepted, vec!['D', 'F']);
    assert!(x.directive.starts_with("You are a theory of mind inference agent"));
    assert!(x.game_description.starts_with("The card game Hanabi"));
    assert_eq!(x.option_text('F'), Some("Reveal Bob's rank 2 cards."));
    assert_eq!(q(&d, "47-JP").option_text('F'), Some("place onion on s3."));
    assert_eq!(q(&d, "46-JP").option_text('C'), Some("place onion on s0."));
}

#[test]
fn malformed_files_name_row_and_column() {
    let good = data::EMBEDDED_CSV;
    // A key that is not a letter.
    let bad = good.replacen("\"D, F\"", "\"D; F\"", 1);
    let e = data::parse(&bad, "bad.csv").unwrap_err().to_string();
    assert!(e.contains("bad.csv") && e.contains("row 7") && e.contains("TOM Answer Ordinal"), "{e}");
    // A missing column.
    let bad = good.replacen("EC Answer Ordinal", "EC Key", 1);
    let e = data::parse(&bad, "x.csv").unwrap_err().to_string();
    assert!(e.contains("missing column \"EC Answer Ordinal\""), "{e}");
    // A row with a missing field.
    let header = good.split("\r\n").next().unwrap();
    let e = data::parse(&format!("{header}\r\na,b,c\r\n"), "short.csv").unwrap_err().to_string();
    assert!(e.starts_with("short.csv: line 2:"), "{e}");
    // A question without an options header.
    let bad =
        good.replacen("Have any cards been played yet?\nAvailable Answers:", "Have any cards been played yet?", 1);
    let e = data::parse(&bad, "h.csv").unwrap_err().to_string();
    assert!(e.contains("row 0") && e.contains("\"EC Question\"") && e.contains("Available"), "{e}");
    // An unknown game.
    let bad = good.replacen(",Hanabi,,Point the 1", ",Chess,,Point the 1", 1);
    let e = data::parse(&bad, "g.csv").unwrap_err().to_string();
    assert!(e.contains("row 0") && e.contains("Chess"), "{e}");
    assert!(data::parse("", "empty.csv").is_err());
}

#[test]
fn lint_finds_the_documented_defects() {
    let d = ds();
    let r = lint(&d.questions);
    let has = |id: &str, kind: Kind| r.findings.iter().any(|f| f.id == id && f.kind == kind);
    for id in ["50-EC", "56-EC"] {
        assert!(has(id, Kind::KeyMissingOption), "{id}");
    }
    for id in ["10-EC", "12-EC", "35-ToM", "53-JP"] {
        assert!(has(id, Kind::RepeatedLetter), "{id}");
    }
    for id in ["35-ToM", "54-JP", "63-EC"] {
        assert!(has(id, Kind::SkippedLetter), "{id}");
    }
    assert!(has("7-ToM", Kind::KeyStraySpace));
    // The seven questions where a line of spaces after the header shifts every text match by one.
    let spaces: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::CompatLetterShift && f.detail.contains("line of spaces"))
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(spaces, ["0-JP", "38-ToM", "38-JP", "39-ToM", "39-JP", "46-JP", "47-JP"]);
    // Nothing certain beyond these: 2 + 4 + 3 + 1 + 13 shifts.
    let certain = r.findings.iter().filter(|f| f.kind.certain()).count();
    assert_eq!(certain, 23, "{:#?}", r.findings);
    // The missing keys come with the option their answer text matches (B and C in SOURCE.md).
    let f = r.findings.iter().find(|f| f.id == "50-EC" && f.kind == Kind::KeyMissingOption).unwrap();
    assert!(f.detail.contains("matches option B"), "{}", f.detail);
    // Advisory answer-text mismatches include SOURCE.md's 12-ToM and 61-EC.
    assert!(has("12-ToM", Kind::AnswerTextDisagrees) && has("61-EC", Kind::AnswerTextDisagrees));
}

#[test]
fn default_extraction_table() {
    let d = ds();
    let jp = q(&d, "28-JP"); // A pick up onion from o0 … C pick up plate from p0 … E wait, F move away
    let cases: &[(&str, Option<char>)] = &[
        ("B", Some('B')),
        ("B.", Some('B')),
        ("(B)", Some('B')),
        ("B)", Some('B')),
        ("**B**", Some('B')),
        ("[B]", Some('B')),
        ("b", Some('B')),
        ("The answer is B", Some('B')),
        ("The answer is B.", Some('B')),
        ("Option B: pick up onion from o1.", Some('B')),
        ("Action: B. pick up onion from o1.", Some('B')),
        ("Explanation: Bob is next to o0.\nAction: pick up plate from p0", Some('C')),
        ("<think>Maybe A. No, C.</think>\nAnswer: E", Some('E')),
        ("I would go with D.", Some('D')),
        ("Answer: (F) move away", Some('F')),
        ("Explanation: x\nAnswer:\n\n**C**", Some('C')),
        ("Explanation: ...\n\nFinal Answer: D - pick up onion from k5", Some('D')),
        ("Answer: I think C.", Some('C')),
        ("A good plan is to pick up plate from p0.", Some('C')),
        ("Answer: B\nExplanation: Bob will take action: move", Some('B')),
        ("I think so.", None),
        ("", None),
        ("Answer: pick up a tomato", None),
        ("<think>The answer is B", None),
    ];
    for (reply, want) in cases {
        let x = extract(reply, jp);
        assert_eq!(x.letter, *want, "reply {reply:?} -> {x:?}");
        if want.is_none() {
            assert_eq!(x.method, Method::Unmatched);
        }
    }
    let tom = q(&d, "4-ToM"); // A–J: "I should Play Card 0" … "I should Discard Card 4"
    for (reply, want) in [
        ("Answer: I should Play Card 4", Some('E')),
        ("Answer: I", Some('I')),
        ("Action: I should Discard Card 3", Some('I')),
        ("Action: I should Discard Card 2", Some('H')),
        ("Answer: I should Play Card 0\nExplanation: the answer is I. because action: x", Some('A')),
        ("Answer: I. I should Discard Card 3", Some('I')),
        ("Explanation: Bob hinted it.\nAnswer: E. I should Play Card 4", Some('E')),
    ] {
        assert_eq!(extract(reply, tom).letter, want, "{reply:?}");
    }
    let ec = q(&d, "0-EC"); // A Yes. B No.
    for (reply, want) in [
        ("No", Some('B')),
        ("Answer: No, no card has been played yet.", Some('B')),
        ("Yes.", Some('A')),
        ("A", Some('A')),
        ("Answer: A plate was never played.", None),
        ("A card has been played? No.", None),
    ] {
        assert_eq!(extract(reply, ec).letter, want, "{reply:?}");
    }
    // A clearly written letter that is not printed is kept (and will score wrong).
    assert_eq!(extract("Answer: C.", q(&d, "50-EC")).letter, Some('C'));
}

#[test]
fn compat_extraction_matches_the_original() {
    let d = ds();
    let jp = q(&d, "28-JP");
    // The original's regex takes the first capital followed by '.' or ')'.
    let tom_in_prose = "Explanation: x\nAnswer: Theory of mind (ToM) says Bob waits, E";
    assert_eq!(extract_compat(tom_in_prose, jp).letter, Some('M'));
    assert_eq!(extract(tom_in_prose, jp).letter, None);
    // A bare letter without '.' goes to the fuzzy fallback, which matches "d" against the option texts.
    let x = extract_compat("Answer: D", jp);
    assert_eq!(x.method, Method::CompatFuzzy);
    assert_eq!(extract("Answer: D", jp).letter, Some('D'));
    assert_eq!(extract_compat("The answer is (C).", jp).letter, Some('C'));
    // A line of spaces after the header: the fuzzy fallback reads "wait" (E) as F.
    let shifted = q(&d, "38-JP");
    assert_eq!(shifted.option_text('E'), Some("wait."));
    assert_eq!(extract_compat("Action: wait", shifted).letter, Some('F'));
    assert_eq!(extract("Action: wait", shifted).letter, Some('E'));
    // Reference letters computed by the original rules with fuzzywuzzy 0.18.0 (fixture).
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qa/compat_cases.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 500);
    let mut fuzzy = 0;
    for c in cases {
        let question = q(&d, c["id"].as_str().unwrap());
        let reply = c["reply"].as_str().unwrap();
        let want = c["letter"].as_str().and_then(|s| s.chars().next());
        let got = extract_compat(reply, question);
        fuzzy += (got.method == Method::CompatFuzzy) as usize;
        assert_eq!(got.letter, want, "{} reply {reply:?}", question.id);
    }
    assert!(fuzzy > 200, "the fixture exercises the fuzzy fallback ({fuzzy})");
}

async fn run_model(
    model: Arc<dyn LanguageModel>,
    questions: &[Question],
    trials: u32,
    mode: Mode,
) -> Vec<transcript::Exchange> {
    let prompts = Prompts::embedded().unwrap();
    let cfg =
        RunConfig { trials, concurrency: 16, sampling: qa::default_sampling(), mode, max_failures_in_a_row: None };
    qa::run(questions, &prompts, model, &cfg, &mut |_| Ok(())).await.unwrap()
}

#[test]
fn oracle_scores_all_but_the_two_unscorable_questions() {
    let d = ds();
    let prompts = Prompts::embedded().unwrap();
    let oracle: Arc<dyn LanguageModel> = Arc::new(Oracle::new(&d.questions, &prompts).unwrap());
    let recs = block_on(run_model(oracle.clone(), &d.questions, 2, Mode::Default));
    let r = build_report("oracle", &d.questions, &recs, 2, Mode::Default, None);
    assert_eq!(r.correct_per_trial, vec![196, 196]);
    assert_eq!((r.answered, r.unmatched, r.failed), (396, 0, 0));
    let ids: Vec<&str> = r.unscorable.iter().map(|u| u.id.as_str()).collect();
    assert_eq!(ids, ["50-EC", "56-EC"]);
    assert!(recs.iter().filter(|x| !x.correct).all(|x| ids.contains(&x.id.as_str())));
    assert_eq!(r.by_category.tom, Some(1.0));
    assert_eq!(r.by_category.jp, Some(1.0));
    assert!((r.by_category.ec.unwrap() - 64.0 / 66.0).abs() < 1e-12);
    assert_eq!(r.by_game["CollabCapture"].ec, Some(5.0 / 6.0));
    // The original scorer counts a reply naming the missing letter as correct.
    let recs = block_on(run_model(oracle, &d.questions, 1, Mode::Compat));
    let r = build_report("oracle", &d.questions, &recs, 1, Mode::Compat, None);
    assert_eq!(r.correct, 198);
}

#[test]
fn random_is_seeded_order_independent_and_near_its_exact_expectation() {
    let d = ds();
    let make = |seed| Arc::new(RandomModel::new(seed, Policy::Uniform)) as Arc<dyn LanguageModel>;
    let a = block_on(run_model(make(7), &d.questions, 3, Mode::Default));
    let b = block_on(run_model(make(7), &d.questions, 3, Mode::Default));
    let letters = |v: &[transcript::Exchange]| v.iter().map(|x| x.extracted).collect::<Vec<_>>();
    assert_eq!(letters(&a), letters(&b), "same seed, same answers");
    let c = block_on(run_model(make(8), &d.questions, 3, Mode::Default));
    assert_ne!(letters(&a), letters(&c));
    // Trials of one question differ (draws depend on the repetition).
    assert!(a.chunks(3).any(|t| t[0].extracted != t[1].extracted));
    let r = build_report("random", &d.questions, &a, 3, Mode::Default, Some(Policy::Uniform));
    let e = r.expected.as_ref().unwrap();
    let (cats, all) = baseline::by_category(&d.questions, |q| baseline::expected(q, Policy::Uniform, Mode::Default));
    assert!((e.by_category.ec.unwrap() - cats[0]).abs() < 1e-12);
    assert!((e.accuracy - all).abs() < 1e-12);
    // Exact expectation of uniform choice over the printed options.
    assert!((cats[0] - 0.2763).abs() < 5e-4 && (cats[1] - 0.2289).abs() < 5e-4 && (cats[2] - 0.1738).abs() < 5e-4);
    // Three trials of 66 questions: within 4 standard errors of a binomial.
    for (acc, p) in [(r.by_category.ec, cats[0]), (r.by_category.tom, cats[1]), (r.by_category.jp, cats[2])] {
        let se = (p * (1.0 - p) / 198.0).sqrt();
        assert!((acc.unwrap() - p).abs() < 4.0 * se, "{acc:?} vs {p}");
    }
    assert_eq!(r.unmatched + r.failed, 0);
}

#[test]
fn baselines_reproduce_the_source_figures() {
    let d = ds();
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    // The original's baseline scored by the original's rules: 0.219 / 0.183 / 0.141 (SOURCE.md once
    // gave 0.185 for ToM, which trims "D, F"; the original's split keeps " F" unmatchable).
    let (orig, _) = baseline::by_category(&d.questions, |q| baseline::expected(q, Policy::Original, Mode::Compat));
    assert_eq!(orig.map(round), [0.219, 0.183, 0.141]);
    // SOURCE.md's "accepted letters ÷ printed options" row: each key letter is one option (0.286 / 0.227 / 0.169).
    let (publ, _) = baseline::by_category(&d.questions, baseline::published_convention);
    assert_eq!(publ.map(round), [0.286, 0.227, 0.169]);
    // Sampling converges to the exact values.
    let s = baseline::sample(&d.questions, Policy::Uniform, Mode::Default, 1000, 1);
    let (exact, _) = baseline::by_category(&d.questions, |q| baseline::expected(q, Policy::Uniform, Mode::Default));
    for j in 0..3 {
        let (m, se) = baseline::mean_se(&s.iter().map(|v| v[j]).collect::<Vec<_>>());
        assert!((m - exact[j]).abs() < 4.0 * se + 1e-9, "{j}: {m} vs {}", exact[j]);
    }
}

/// A model that fails some requests, to check the accounting of failures.
struct Flaky;

#[async_trait::async_trait]
impl LanguageModel for Flaky {
    fn name(&self) -> String {
        "flaky".into()
    }
    async fn chat(&self, r: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let last = &r.messages.last().unwrap().content;
        if last.contains("Available Actions") {
            Err(LlmError::Unreachable { faults: vec![] })
        } else {
            Ok(ChatResponse::simple("Answer: A.", Default::default()))
        }
    }
}

#[test]
fn failed_requests_are_reported_apart() {
    let d = ds();
    let qs: Vec<Question> = d.questions.iter().filter(|q| q.game == Game::CollabCooking).cloned().collect();
    let recs = block_on(run_model(Arc::new(Flaky), &qs, 1, Mode::Default));
    let failed = recs.iter().filter(|x| x.failure.is_some()).count();
    assert_eq!(failed, 10); // ToM and JP questions use "Available Actions"
    let r = build_report("flaky", &qs, &recs, 1, Mode::Default, None);
    assert_eq!((r.failed, r.answered, r.unmatched), (10, 5, 0));
    // Default: accuracy over the 5 answered EC questions only; compat: over all 15.
    let ec_right = qs.iter().filter(|q| q.category == Category::EC && q.is_correct('A')).count();
    assert_eq!(r.accuracy, Some(ec_right as f64 / 5.0));
    assert_eq!(r.by_category.tom, None);
    let recs = block_on(run_model(Arc::new(Flaky), &qs, 1, Mode::Compat));
    let r = build_report("flaky", &qs, &recs, 1, Mode::Compat, None);
    assert_eq!(r.by_category.tom, Some(0.0));
    assert_eq!(r.accuracy, Some(ec_right as f64 / 15.0));
}

#[test]
fn transcripts_replay_exactly_and_misses_are_loud() {
    let d = ds();
    let qs: Vec<Question> = d.questions.iter().filter(|q| q.game == Game::CollabEscape).cloned().collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let prompts = Prompts::embedded().unwrap();
    let cfg = RunConfig {
        trials: 2,
        concurrency: 4,
        sampling: qa::default_sampling(),
        mode: Mode::Default,
        max_failures_in_a_row: None,
    };
    let mut w = transcript::Writer::create(&path).unwrap();
    w.write(&Line::Header(Box::new(transcript::Header {
        kind: transcript::KIND.into(),
        version: transcript::VERSION,
        proagent_version: "test".into(),
        model: "random".into(),
        mode: Mode::Default,
        trials: 2,
        concurrency: 4,
        seed: 3,
        sampling: cfg.sampling.clone(),
        structured: false,
        filter: "game=CollabEscape".into(),
        data_source: d.source.clone(),
        data_sha256: d.sha256.clone(),
        questions: qs.len(),
        prompts_sha256: prompts.sha256.clone(),
        prompt_sources: prompts.sources.clone(),
    })))
    .unwrap();
    let model = Arc::new(RandomModel::new(3, Policy::Uniform));
    let first =
        block_on(qa::run(&qs, &prompts, model, &cfg, &mut |x| w.write(&Line::Exchange(Box::new(x.clone()))))).unwrap();
    drop(w);
    let replay = Arc::new(Replay::load(&path).unwrap());
    let again = block_on(qa::run(&qs, &prompts, replay.clone(), &cfg, &mut |_| Ok(()))).unwrap();
    let key = |v: &[transcript::Exchange]| {
        v.iter().map(|x| (x.id.clone(), x.trial, x.reply.clone(), x.correct)).collect::<Vec<_>>()
    };
    assert_eq!(key(&first), key(&again));
    // A third trial is not in the recording: the run stops with a replay miss.
    let cfg3 = RunConfig { trials: 3, ..cfg.clone() };
    let replay = Arc::new(Replay::load(&path).unwrap());
    let e = block_on(qa::run(&qs, &prompts, replay, &cfg3, &mut |_| Ok(()))).unwrap_err().to_string();
    assert!(e.contains("replay miss"), "{e}");
    // Different sampling: every request misses.
    let cfg_t = RunConfig { sampling: proagent::llm::Sampling { temperature: 0.0, ..cfg.sampling.clone() }, ..cfg };
    let replay = Arc::new(Replay::load(&path).unwrap());
    let e = block_on(qa::run(&qs, &prompts, replay, &cfg_t, &mut |_| Ok(()))).unwrap_err().to_string();
    assert!(e.contains("not in the recording"), "{e}");
    // A tampered request is caught when the transcript is read.
    let text = std::fs::read_to_string(&path).unwrap().replacen("Got it!", "Got it?", 1);
    std::fs::write(&path, text).unwrap();
    let e = Replay::load(&path).err().unwrap().to_string();
    assert!(e.contains("t.jsonl:2") && e.contains("does not match"), "{e}");
}

#[test]
fn arbitrary_replies_never_panic() {
    use rand::{Rng, SeedableRng};
    let d = ds();
    let pieces = [
        "Answer:",
        "Action:",
        "answer is ",
        "Option ",
        "<think>",
        "</think>",
        "**",
        "(",
        ")",
        "[",
        "B",
        "a",
        "I",
        "A",
        "é",
        "日本",
        "🙂",
        "\n",
        " ",
        "  ",
        ".",
        ":",
        "-",
        "\u{a0}",
        "\u{1c}",
        "\t",
        "pick up onion from o0",
        "No",
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let qs: Vec<&Question> = ["0-EC", "28-JP", "38-JP", "4-ToM", "50-EC"].iter().map(|id| q(&d, id)).collect();
    for _ in 0..300 {
        let n = rng.random_range(0..12);
        let reply: String = (0..n).map(|_| pieces[rng.random_range(0..pieces.len())]).collect();
        for question in &qs {
            for x in [extract(&reply, question), extract_compat(&reply, question)] {
                assert!(x.letter.is_none_or(|c| c.is_ascii_uppercase()), "{reply:?} -> {x:?}");
            }
        }
    }
}

#[tokio::test]
async fn mock_responder_recognises_qa_prompts_even_in_custom_templates_and_passes_the_rest_on() {
    use proagent::qa::models::{MockResponder, QaAnswer};
    struct Other;
    #[async_trait::async_trait]
    impl LanguageModel for Other {
        fn name(&self) -> String {
            "other".into()
        }
        async fn chat(&self, _: &ChatRequest) -> Result<ChatResponse, LlmError> {
            Ok(ChatResponse::simple("Plan for Player 0: \"wait(1)\"", Default::default()))
        }
    }
    assert_eq!("key".parse::<QaAnswer>().unwrap(), QaAnswer::Key);
    assert_eq!(" c ".parse::<QaAnswer>().unwrap(), QaAnswer::Letter('C'));
    assert!("AB".parse::<QaAnswer>().is_err() && "".parse::<QaAnswer>().is_err());
    let ds = data::embedded().unwrap();
    let q = ds.questions.iter().find(|q| q.accepted.len() == 1 && q.has_option(q.accepted[0])).unwrap();
    let m = MockResponder::new(QaAnswer::Key, 0, ds.questions.clone(), Arc::new(Other));
    let ask = |text: String| ChatRequest::new(vec![proagent::llm::Message::user(text)], Default::default());
    let reply = m.chat(&ask(q.question.clone())).await.unwrap().text;
    assert_eq!(extract(&reply, q).letter, Some(q.accepted[0]), "{reply}");
    // Wrapped in other text by a custom template: still found.
    let wrapped = format!("Please think carefully.\n{}", q.question);
    assert_eq!(extract(&m.chat(&ask(wrapped)).await.unwrap().text, q).letter, Some(q.accepted[0]));
    // Not a QA prompt: the other model answers.
    assert!(m.chat(&ask("Scene 3: <Player 0> holds nothing.".into())).await.unwrap().text.starts_with("Plan for"));
}
