//! Scoring exchanges and the report: accuracy per game × category and overall, mean ±
//! standard error over trials (population std over trials / √trials, as the original),
//! unmatched replies and failed requests counted apart.

use super::baseline::{self, Policy, mean_se};
use super::data::{Category, Game, Group, Question};
use super::extract::{self, Mode};
use super::extract::{Extraction, compat_correct, extract, extract_compat};
use super::transcript::Exchange;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Reads the letter from a reply and decides whether it is correct.
pub fn judge(q: &Question, reply: &str, mode: Mode) -> (Extraction, bool) {
    match mode {
        Mode::Default => {
            let x = extract(reply, q);
            let ok = x.letter.is_some_and(|c| q.is_correct(c));
            (x, ok)
        }
        Mode::Compat => {
            let x = extract_compat(reply, q);
            let ok = compat_correct(x.letter, &q.key_raw);
            (x, ok)
        }
    }
}

/// Scores a structured (JSON schema) reply: its `answer` read strictly
/// ([`extract::extract_structured`]); a reply that does not fit the schema is unmatched,
/// never guessed. Compat mode scores the letter by the original's key rule.
pub fn judge_structured(q: &Question, reply: &str, mode: Mode) -> (Extraction, bool) {
    let x = extract::extract_structured(reply, q).unwrap_or(Extraction {
        letter: None,
        method: extract::Method::Unmatched,
        score: None,
    });
    let ok = match mode {
        Mode::Default => x.letter.is_some_and(|c| q.is_correct(c)),
        Mode::Compat => compat_correct(x.letter, &q.key_raw),
    };
    (x, ok)
}

/// Counts and accuracy of one group of questions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// "all", "game" or "group".
    pub scope: String,
    /// The game or group name, or "all".
    pub name: String,
    /// "EC", "ToM", "JP" or "all".
    pub category: String,
    /// Questions in the group.
    pub questions: usize,
    /// Exchanges (questions × trials) recorded for the group.
    pub exchanges: usize,
    /// Exchanges scored correct.
    pub correct: usize,
    /// Replies a letter was read from.
    pub answered: usize,
    /// Replies no letter could be read from.
    pub unmatched: usize,
    /// Requests that produced no reply.
    pub failed: usize,
    /// Mean over trials of the per-trial accuracy (`null` when nothing was scored).
    pub accuracy: Option<f64>,
    /// Standard error of `accuracy`: population std over trials / √trials (`null` with `accuracy`).
    pub stderr: Option<f64>,
    /// Accuracy of each trial, in trial order (`null` for a trial with nothing scored).
    pub per_trial: Vec<Option<f64>>,
    /// The exact expected accuracy of the random policy, for random models.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<f64>,
}

/// Accuracy per category and over all, as JSON keys `all`, `EC`, `ToM`, `JP`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ByCategory {
    /// Over all categories.
    pub all: Option<f64>,
    /// Environment Comprehension only.
    #[serde(rename = "EC")]
    pub ec: Option<f64>,
    /// Theory of Mind only.
    #[serde(rename = "ToM")]
    pub tom: Option<f64>,
    /// Joint Planning only.
    #[serde(rename = "JP")]
    pub jp: Option<f64>,
}

/// A question no answer can get right in default mode: its key names no printed option.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unscorable {
    /// The question's id, e.g. `50-EC`.
    pub id: String,
    /// The answer key as written in the file.
    pub key: String,
    /// The printed option letters, space-separated.
    pub options: String,
    /// A sentence saying why it cannot be scored correct.
    pub reason: String,
}

/// The exact expected accuracy of a random policy, shown beside a random model's score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expected {
    /// The random policy.
    pub policy: Policy,
    /// The policy in words.
    pub description: String,
    /// Expected accuracy over all the questions run (mean of per-question probabilities).
    pub accuracy: f64,
    /// The same expectation per category.
    pub by_category: ByCategory,
}

/// A run's results: overall, per category, per game and group, and every cell behind them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The model's name as reported by the backend.
    pub model: String,
    /// The scorer used.
    pub mode: Mode,
    /// Questions asked.
    pub questions: usize,
    /// Times each question was asked.
    pub trials: u32,
    /// Exchanges recorded (questions × trials when the run completed).
    pub exchanges: usize,
    /// Exchanges scored correct.
    pub correct: usize,
    /// Replies a letter was read from.
    pub answered: usize,
    /// Replies no letter could be read from.
    pub unmatched: usize,
    /// Requests that produced no reply (left out of the accuracy by default, counted wrong in compat).
    pub failed: usize,
    /// Mean over trials of the per-trial accuracy over all questions (`null` when nothing was scored).
    pub accuracy: Option<f64>,
    /// Standard error of `accuracy` (population std over trials / √trials).
    pub stderr: Option<f64>,
    /// Accuracy per category over all games.
    pub by_category: ByCategory,
    /// Standard error per category over all games.
    pub stderr_by_category: ByCategory,
    /// Accuracy per category for each game present, keyed by game name.
    pub by_game: BTreeMap<String, ByCategory>,
    /// Accuracy per category for each original grouping present, keyed by group name.
    pub by_group: BTreeMap<String, ByCategory>,
    /// Correct answers in each trial, over all questions.
    pub correct_per_trial: Vec<usize>,
    /// Default mode only: the questions no answer can get right (empty in compat).
    pub unscorable: Vec<Unscorable>,
    /// The random policy's exact expectation, when the model is a random one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Expected>,
    /// Every (scope, name, category) cell, the source of the summaries above.
    pub cells: Vec<Cell>,
}

/// `label` is (scope, name, category).
fn cell(
    label: (&str, &str, &str),
    questions: &[&Question],
    records: &[&Exchange],
    trials: u32,
    mode: Mode,
    expected: Option<&dyn Fn(&Question) -> f64>,
) -> Cell {
    let (scope, name, category) = label;
    let mut c = Cell {
        scope: scope.into(),
        name: name.into(),
        category: category.into(),
        questions: questions.len(),
        exchanges: records.len(),
        correct: 0,
        answered: 0,
        unmatched: 0,
        failed: 0,
        accuracy: None,
        stderr: None,
        per_trial: Vec::new(),
        expected: expected.map(|f| {
            if questions.is_empty() {
                0.0
            } else {
                questions.iter().map(|q| f(q)).sum::<f64>() / questions.len() as f64
            }
        }),
    };
    let mut right = vec![0usize; trials as usize];
    let mut denom = vec![0usize; trials as usize];
    for r in records {
        let t = r.trial as usize;
        if r.failure.is_some() {
            c.failed += 1;
        } else if r.extracted.is_some() {
            c.answered += 1;
        } else {
            c.unmatched += 1;
        }
        if r.correct {
            c.correct += 1;
        }
        if t < right.len() {
            right[t] += r.correct as usize;
            // Default mode leaves failed requests out of the accuracy; compat counts them
            // wrong, as the original's exception path does.
            if r.failure.is_none() || mode == Mode::Compat {
                denom[t] += 1;
            }
        }
    }
    c.per_trial = right.iter().zip(&denom).map(|(&r, &d)| (d > 0).then(|| r as f64 / d as f64)).collect();
    let vals: Vec<f64> = c.per_trial.iter().flatten().copied().collect();
    if !vals.is_empty() {
        let (m, se) = mean_se(&vals);
        c.accuracy = Some(m);
        c.stderr = Some(se);
    }
    c
}

/// Builds the report. `records` may come in any order; `policy` adds the exact
/// expectation of that random policy beside the accuracies.
pub fn build_report(
    model: &str,
    questions: &[Question],
    records: &[Exchange],
    trials: u32,
    mode: Mode,
    policy: Option<Policy>,
) -> Report {
    let by_id: BTreeMap<&str, &Question> = questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let exp_fn = policy.map(|p| move |q: &Question| baseline::expected(q, p, mode));
    let exp_ref: Option<&dyn Fn(&Question) -> f64> = exp_fn.as_ref().map(|f| f as &dyn Fn(&Question) -> f64);
    let select = |pred: &dyn Fn(&Question) -> bool| {
        let qs: Vec<&Question> = questions.iter().filter(|q| pred(q)).collect();
        let rs: Vec<&Exchange> = records.iter().filter(|r| by_id.get(r.id.as_str()).is_some_and(|q| pred(q))).collect();
        (qs, rs)
    };
    let mut cells = Vec::new();
    let cats: [(&str, Option<Category>); 4] =
        [("all", None), ("EC", Some(Category::EC)), ("ToM", Some(Category::ToM)), ("JP", Some(Category::JP))];
    let mut push = |scope: &str, name: &str, pred: &dyn Fn(&Question) -> bool| {
        for (cname, cat) in cats {
            let (qs, rs) = select(&|q: &Question| pred(q) && cat.is_none_or(|c| q.category == c));
            if scope != "all" && qs.is_empty() {
                continue;
            }
            cells.push(cell((scope, name, cname), &qs, &rs, trials, mode, exp_ref));
        }
    };
    push("all", "all", &|_| true);
    for g in Game::ALL {
        push("game", g.name(), &|q: &Question| q.game == g);
    }
    for g in Group::ALL {
        push("group", g.name(), &|q: &Question| q.group() == g);
    }
    let find = |scope: &str, name: &str, cat: &str| {
        cells.iter().find(|c| c.scope == scope && c.name == name && c.category == cat)
    };
    let by_cat = |scope: &str, name: &str, f: &dyn Fn(&Cell) -> Option<f64>| ByCategory {
        all: find(scope, name, "all").and_then(f),
        ec: find(scope, name, "EC").and_then(f),
        tom: find(scope, name, "ToM").and_then(f),
        jp: find(scope, name, "JP").and_then(f),
    };
    let total =
        find("all", "all", "all").cloned().unwrap_or_else(|| cell(("all", "all", "all"), &[], &[], trials, mode, None));
    let by_game = Game::ALL
        .iter()
        .filter(|g| find("game", g.name(), "all").is_some())
        .map(|g| (g.name().to_string(), by_cat("game", g.name(), &|c| c.accuracy)))
        .collect();
    let by_group = Group::ALL
        .iter()
        .filter(|g| find("group", g.name(), "all").is_some())
        .map(|g| (g.name().to_string(), by_cat("group", g.name(), &|c| c.accuracy)))
        .collect();
    let mut correct_per_trial = vec![0usize; trials as usize];
    for r in records {
        if r.correct && (r.trial as usize) < correct_per_trial.len() {
            correct_per_trial[r.trial as usize] += 1;
        }
    }
    let unscorable = match mode {
        Mode::Default => questions
            .iter()
            .filter(|q| !q.is_scorable())
            .map(|q| Unscorable {
                id: q.id.clone(),
                key: q.key_raw.clone(),
                options: q.letters_summary(),
                reason: format!(
                    "the key {:?} names no printed option (options {}), so no answer can be scored correct",
                    q.key_raw,
                    q.letters_summary()
                ),
            })
            .collect(),
        Mode::Compat => Vec::new(),
    };
    let expected = policy.map(|p| {
        let e = by_cat("all", "all", &|c| c.expected);
        Expected { policy: p, description: p.describe().into(), accuracy: e.all.unwrap_or(0.0), by_category: e }
    });
    Report {
        model: model.into(),
        mode,
        questions: questions.len(),
        trials,
        exchanges: total.exchanges,
        correct: total.correct,
        answered: total.answered,
        unmatched: total.unmatched,
        failed: total.failed,
        accuracy: total.accuracy,
        stderr: total.stderr,
        by_category: by_cat("all", "all", &|c| c.accuracy),
        stderr_by_category: by_cat("all", "all", &|c| c.stderr),
        by_game,
        by_group,
        correct_per_trial,
        unscorable,
        expected,
        cells,
    }
}

fn fmt_acc(c: Option<&Cell>) -> String {
    match c.and_then(|c| c.accuracy.map(|a| (a, c.stderr.unwrap_or(0.0)))) {
        Some((a, se)) => format!("{a:.3} ± {se:.3}"),
        None => "-".into(),
    }
}

/// The terminal table.
pub fn render_table(r: &Report) -> String {
    let mut s = String::new();
    let mode = match r.mode {
        Mode::Default => "default",
        Mode::Compat => "compat (the original scorer's rules)",
    };
    let _ = writeln!(
        s,
        "CoordinationQA: model {}, {} question{} x {} trial{}, scoring {mode}",
        r.model,
        r.questions,
        if r.questions == 1 { "" } else { "s" },
        r.trials,
        if r.trials == 1 { "" } else { "s" }
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "{:<15} {:>15} {:>15} {:>15} {:>15}", "game", "EC", "ToM", "JP", "all");
    let find = |scope: &str, name: &str, cat: &str| {
        r.cells.iter().find(|c| c.scope == scope && c.name == name && c.category == cat)
    };
    let row = |s: &mut String, label: &str, scope: &str, name: &str| {
        if find(scope, name, "all").is_none() {
            return;
        }
        let _ = writeln!(
            s,
            "{:<15} {:>15} {:>15} {:>15} {:>15}",
            label,
            fmt_acc(find(scope, name, "EC")),
            fmt_acc(find(scope, name, "ToM")),
            fmt_acc(find(scope, name, "JP")),
            fmt_acc(find(scope, name, "all"))
        );
    };
    for g in Game::ALL {
        row(&mut s, g.name(), "game", g.name());
    }
    if r.cells.iter().any(|c| c.scope == "group" && c.name == "CollabGames") {
        let _ = writeln!(s, "{:<15}", "-- original grouping");
        row(&mut s, "CollabGames", "group", "CollabGames");
    }
    row(&mut s, "all", "all", "all");
    if let Some(e) = &r.expected {
        let f = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
        let _ = writeln!(
            s,
            "{:<15} {:>15} {:>15} {:>15} {:>15}",
            "expected",
            f(e.by_category.ec),
            f(e.by_category.tom),
            f(e.by_category.jp),
            f(e.by_category.all)
        );
        let _ = writeln!(s, "  (exact expected accuracy of {})", e.description);
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "exchanges {}: answered {}, unmatched {}, failed {}; correct {}",
        r.exchanges, r.answered, r.unmatched, r.failed, r.correct
    );
    let per: Vec<String> = r.correct_per_trial.iter().map(|c| format!("{c}/{}", r.questions)).collect();
    let _ = writeln!(s, "correct per trial: {}", per.join(", "));
    if r.failed > 0 {
        let _ = writeln!(
            s,
            "warning: {} requests failed; {}",
            r.failed,
            match r.mode {
                Mode::Default => "they are left out of the accuracies (not scored wrong)",
                Mode::Compat => "compat mode scores them wrong, as the original did",
            }
        );
    }
    if r.unmatched > 0 {
        let _ = writeln!(s, "{} replies named no recognisable option and were scored wrong", r.unmatched);
    }
    if !r.unscorable.is_empty() {
        let _ = writeln!(
            s,
            "{} questions cannot be scored correct (data defects, see `proagent qa lint`):",
            r.unscorable.len()
        );
        for u in &r.unscorable {
            let _ = writeln!(s, "  {}: {}", u.id, u.reason);
        }
    }
    s
}

/// The cells as CSV.
pub fn render_csv(r: &Report) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "model",
        "mode",
        "scope",
        "name",
        "category",
        "questions",
        "trials",
        "exchanges",
        "correct",
        "answered",
        "unmatched",
        "failed",
        "accuracy",
        "stderr",
        "expected",
    ])?;
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    let mode = match r.mode {
        Mode::Default => "default",
        Mode::Compat => "compat",
    };
    for c in &r.cells {
        w.write_record([
            r.model.clone(),
            mode.to_string(),
            c.scope.clone(),
            c.name.clone(),
            c.category.clone(),
            c.questions.to_string(),
            r.trials.to_string(),
            c.exchanges.to_string(),
            c.correct.to_string(),
            c.answered.to_string(),
            c.unmatched.to_string(),
            c.failed.to_string(),
            opt(c.accuracy),
            opt(c.stderr),
            opt(c.expected),
        ])?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
