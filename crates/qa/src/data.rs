//! The CoordinationQA benchmark file: one CSV row per scenario, each row carrying an
//! Environment Comprehension, a Theory of Mind and a Joint Planning question
//! (see `data/coordination_qa/SOURCE.md` for the layout).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The benchmark file as published (LLM-Coordination, commit 586733a), embedded so the
/// command works from any directory.
pub const EMBEDDED_CSV: &str = include_str!("../../../data/coordination_qa/single_turn_trials.csv");
/// The name reports use for the embedded copy.
pub const EMBEDDED_NAME: &str = "embedded:data/coordination_qa/single_turn_trials.csv";

/// The three question categories.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Category {
    /// Environment Comprehension: reading the game state.
    EC,
    /// Theory of Mind: what the partner knows, intends or needs.
    ToM,
    /// Joint Planning: the best next action for the team.
    JP,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 3] = [Category::EC, Category::ToM, Category::JP];

    /// The name reports and question ids use: `EC`, `ToM`, `JP`.
    pub fn name(self) -> &'static str {
        match self {
            Category::EC => "EC",
            Category::ToM => "ToM",
            Category::JP => "JP",
        }
    }

    /// The column prefix in the CSV (`TOM`, not `ToM`).
    fn prefix(self) -> &'static str {
        match self {
            Category::EC => "EC",
            Category::ToM => "TOM",
            Category::JP => "JP",
        }
    }

    /// Reads a category name in any case (`tom`, `ToM`, `TOM`); `None` for anything else.
    pub fn parse(s: &str) -> Option<Category> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ec" => Some(Category::EC),
            "tom" => Some(Category::ToM),
            "jp" => Some(Category::JP),
            _ => None,
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The game a scenario is set in. The file's `Game` column has three values; its
/// `CollabGames` rows are three different games, told apart by the game description.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Game {
    /// Hanabi (the file's `Hanabi` rows).
    Hanabi,
    /// Overcooked-AI layouts (the file's `Overcooked` rows).
    Overcooked,
    /// "Catch the Thief", filed under `CollabGames`.
    CollabCapture,
    /// "Collab Escape", filed under `CollabGames`.
    CollabEscape,
    /// The Overcooked-style onion + tomato rows filed under `CollabGames`.
    CollabCooking,
}

impl Game {
    /// Every game, in report order.
    pub const ALL: [Game; 5] =
        [Game::Hanabi, Game::Overcooked, Game::CollabCapture, Game::CollabEscape, Game::CollabCooking];

    /// The name reports and `--filter game=` use.
    pub fn name(self) -> &'static str {
        match self {
            Game::Hanabi => "Hanabi",
            Game::Overcooked => "Overcooked",
            Game::CollabCapture => "CollabCapture",
            Game::CollabEscape => "CollabEscape",
            Game::CollabCooking => "CollabCooking",
        }
    }

    /// The original evaluator's three-way grouping (its `Game` column).
    pub fn group(self) -> Group {
        match self {
            Game::Hanabi => Group::Hanabi,
            Game::Overcooked => Group::Overcooked,
            Game::CollabCapture | Game::CollabEscape | Game::CollabCooking => Group::CollabGames,
        }
    }

    /// Reads a game name in any case; `None` for an unknown one.
    pub fn parse(s: &str) -> Option<Game> {
        let s = s.trim().to_ascii_lowercase();
        Game::ALL.into_iter().find(|g| g.name().to_ascii_lowercase() == s)
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The `Game` column as the original evaluator groups results.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Group {
    /// The file's `Hanabi` rows.
    Hanabi,
    /// The file's `Overcooked` rows.
    Overcooked,
    /// The file's `CollabGames` rows: capture, escape and cooking together.
    CollabGames,
}

impl Group {
    /// Every group, in report order.
    pub const ALL: [Group; 3] = [Group::Hanabi, Group::Overcooked, Group::CollabGames];

    /// The name as in the file's `Game` column.
    pub fn name(self) -> &'static str {
        match self {
            Group::Hanabi => "Hanabi",
            Group::Overcooked => "Overcooked",
            Group::CollabGames => "CollabGames",
        }
    }

    /// Reads a group name in any case; `None` for an unknown one.
    pub fn parse(s: &str) -> Option<Group> {
        let s = s.trim().to_ascii_lowercase();
        Group::ALL.into_iter().find(|g| g.name().to_ascii_lowercase() == s)
    }
}

/// One answer option as printed in the question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QaOption {
    /// The option's letter, an upper-case A–Z as printed (letters may repeat or skip; see `lint`).
    pub letter: char,
    /// The option's text after the letter and its `.` or `)`, trimmed.
    pub text: String,
}

/// One multiple-choice question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// `<row>-<category>`, e.g. `50-EC`; the row is the 0-based data row (as in SOURCE.md).
    pub id: String,
    /// The 0-based data row (scenario) it comes from.
    pub row: usize,
    /// Which of the row's three questions it is.
    pub category: Category,
    /// The game the scenario is set in.
    pub game: Game,
    /// The system message: the category's directive.
    pub directive: String,
    /// The row's `Game Description` cell: the rules, sent as the first user turn.
    pub game_description: String,
    /// The whole user turn: state, question, options header and options.
    pub question: String,
    /// The printed options, in order, parsed from `question`.
    pub options: Vec<QaOption>,
    /// The answer key as written (`B`, `A,C`, `D, F`).
    pub key_raw: String,
    /// The accepted letters: the key split on commas, each part trimmed.
    pub accepted: Vec<char>,
    /// The free-text answer column (not used for scoring).
    pub answer_text: String,
    /// The Overcooked layout name (empty outside the Overcooked rows).
    pub map: String,
}

impl Question {
    /// The original evaluator's grouping of this question's game.
    pub fn group(&self) -> Group {
        self.game.group()
    }

    /// `letter` is one of the printed options.
    pub fn has_option(&self, letter: char) -> bool {
        self.options.iter().any(|o| o.letter == letter)
    }

    /// Whether a letter counts as correct: accepted by the key and printed as an option.
    pub fn is_correct(&self, letter: char) -> bool {
        self.accepted.contains(&letter) && self.has_option(letter)
    }

    /// False when the key names no printed option, so no answer can be scored correct.
    pub fn is_scorable(&self) -> bool {
        self.accepted.iter().any(|&c| self.has_option(c))
    }

    /// The text of the option printed with `letter`, if there is one.
    pub fn option_text(&self, letter: char) -> Option<&str> {
        self.options.iter().find(|o| o.letter == letter).map(|o| o.text.as_str())
    }

    /// "A–D" style summary of the printed letters, in order.
    pub fn letters_summary(&self) -> String {
        self.options.iter().map(|o| o.letter.to_string()).collect::<Vec<_>>().join(" ")
    }
}

/// A parsed benchmark file.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// Where it came from (a path, or [`EMBEDDED_NAME`]).
    pub source: String,
    /// sha256 (hex) of the file's bytes.
    pub sha256: String,
    /// Number of data rows (scenarios).
    pub rows: usize,
    /// Three per data row (EC, ToM, JP), in file order.
    pub questions: Vec<Question>,
}

/// A problem with the benchmark file, located by row and column.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DataError {
    /// The CSV itself is malformed (unbalanced quotes, a row of the wrong length, bad UTF-8).
    #[error("{file}: {message}")]
    Csv {
        /// The file as named by the caller (a path or [`EMBEDDED_NAME`]).
        file: String,
        /// The CSV reader's error, prefixed with the 1-based line when known.
        message: String,
    },
    /// The header lacks a column the parser needs.
    #[error("{file}: header is missing column {column:?}")]
    MissingColumn {
        /// The file as named by the caller.
        file: String,
        /// The missing header, e.g. `TOM Answer Ordinal`.
        column: String,
    },
    /// One cell cannot be read: unknown game, no options, bad key, empty directive.
    #[error("{file}: row {row} (line {line}), column {col} {column:?}: {message}")]
    Cell {
        /// The file as named by the caller.
        file: String,
        /// 0-based data row (the header is not counted).
        row: usize,
        /// 1-based line of the file where the row starts.
        line: u64,
        /// 0-based column index.
        col: usize,
        /// The column's header.
        column: String,
        /// What is wrong with the cell.
        message: String,
    },
    /// The file has a header but no data rows.
    #[error("{file}: no data rows")]
    Empty {
        /// The file as named by the caller.
        file: String,
    },
}

/// A cell of the data file, or a filter spec, whose text does not have the expected form;
/// the message says what is wrong (the caller adds the file, row and column).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FormatError(pub String);

impl From<String> for FormatError {
    fn from(message: String) -> Self {
        FormatError(message)
    }
}

impl From<&str> for FormatError {
    fn from(message: &str) -> Self {
        FormatError(message.to_string())
    }
}

/// Reads the options of a question: the lines after the last `Available Answers:` or
/// `Available Actions:` header, each `X. text`. Blank lines are skipped; any other line
/// is an error (so a changed format is noticed, not half-read).
pub fn parse_options(question: &str) -> Result<Vec<QaOption>, FormatError> {
    let lines: Vec<&str> = question.split('\n').collect();
    let header = lines
        .iter()
        .rposition(|l| {
            let l = l.trim().to_ascii_lowercase();
            l == "available answers:" || l == "available actions:"
        })
        .ok_or_else(|| "no 'Available Answers:' or 'Available Actions:' header line".to_string())?;
    let mut options = Vec::new();
    for (i, line) in lines[header + 1..].iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let t = line.trim_start();
        let mut chars = t.chars();
        let letter = chars.next().filter(|c| c.is_ascii_uppercase());
        let rest = chars.as_str().trim_start();
        match (letter, rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))) {
            (Some(letter), Some(text)) => {
                // A stray second dot ("F. . place onion") is a typo, not part of the text.
                let text = text.trim_start_matches(|c: char| c == '.' || c.is_whitespace()).trim_end();
                options.push(QaOption { letter, text: text.to_string() });
            }
            _ => {
                return Err(format!(
                    "option line {} after the header is not 'X. text': {:?}",
                    i + 1,
                    line.chars().take(80).collect::<String>()
                )
                .into());
            }
        }
    }
    if options.is_empty() {
        return Err("no options after the header".into());
    }
    Ok(options)
}

/// Splits an answer key on commas and trims each part; every part must be one letter A–Z.
pub fn parse_key(key: &str) -> Result<Vec<char>, FormatError> {
    if key.trim().is_empty() {
        return Err("empty answer key".into());
    }
    let mut out = Vec::new();
    for part in key.split(',') {
        let p = part.trim();
        let mut cs = p.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) if c.is_ascii_uppercase() => {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
            _ => return Err(format!("answer key {key:?}: part {p:?} is not a single letter A-Z").into()),
        }
    }
    Ok(out)
}

struct Columns {
    game: usize,
    description: usize,
    map: Option<usize>,
    /// Per category: question, answer text, key, directive.
    cat: [(usize, usize, usize, usize); 3],
}

fn find_columns(headers: &csv::StringRecord, source: &str) -> Result<Columns, DataError> {
    let find = |name: &str| headers.iter().position(|h| h.trim() == name);
    let need = |name: &str| {
        find(name).ok_or_else(|| DataError::MissingColumn { file: source.to_string(), column: name.to_string() })
    };
    let mut cat = [(0, 0, 0, 0); 3];
    for (i, c) in Category::ALL.into_iter().enumerate() {
        let p = c.prefix();
        cat[i] = (
            need(&format!("{p} Question"))?,
            need(&format!("{p} Answer"))?,
            need(&format!("{p} Answer Ordinal"))?,
            need(&format!("{p} Directive"))?,
        );
    }
    Ok(Columns { game: need("Game")?, description: need("Game Description")?, map: find("Map"), cat })
}

fn game_of(group: &str, description: &str) -> Result<Game, FormatError> {
    match group.trim() {
        "Hanabi" => Ok(Game::Hanabi),
        "Overcooked" => Ok(Game::Overcooked),
        "CollabGames" => {
            let d = description.to_ascii_lowercase();
            if d.contains("catch the thief") {
                Ok(Game::CollabCapture)
            } else if d.contains("collab escape") {
                Ok(Game::CollabEscape)
            } else if d.contains("overcooked") {
                Ok(Game::CollabCooking)
            } else {
                Err("CollabGames row whose game description names none of Catch the Thief, Collab Escape, Overcooked"
                    .into())
            }
        }
        other => Err(format!("unknown game {other:?} (expected Hanabi, Overcooked or CollabGames)").into()),
    }
}

/// Parses the benchmark CSV. `source` names the file in errors and reports.
pub fn parse(text: &str, source: &str) -> Result<Dataset, DataError> {
    // csv's own line counter lags on CRLF files (a record "starts" at the '\n' of the
    // previous CRLF), so lines are counted from byte offsets, that '\n' included.
    let bytes = text.as_bytes();
    let boundary = |byte: u64| {
        let b = (byte as usize).min(bytes.len());
        if bytes.get(b) == Some(&b'\n') { b + 1 } else { b }
    };
    let newlines = |from: usize, to: usize| bytes[from.min(to)..to].iter().filter(|&&b| b == b'\n').count() as u64;
    let line_at = |byte: u64| newlines(0, boundary(byte)) + 1;
    let csv_err = |e: csv::Error| {
        let at = e.position().map(|p| format!("line {}: ", line_at(p.byte()))).unwrap_or_default();
        DataError::Csv { file: source.to_string(), message: format!("{at}{e}") }
    };
    // A byte-order mark would otherwise glue itself to the first column name.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(body.as_bytes());
    let headers = reader.headers().map_err(csv_err)?.clone();
    let cols = find_columns(&headers, source)?;
    let mut questions = Vec::new();
    let mut rows = 0;
    // (byte offset, line) of the last record start, to number lines without rescanning.
    let mut seen: (usize, u64) = (0, 1);
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(csv_err)?;
        rows += 1;
        let at = record.position().map_or(seen.0, |p| boundary(p.byte()));
        let line = seen.1 + newlines(seen.0, at);
        seen = (at, line);
        let cell = |col: usize| record.get(col).unwrap_or("");
        let bad = |col: usize, message: String| DataError::Cell {
            file: source.to_string(),
            row,
            line,
            col,
            column: headers.get(col).unwrap_or("").to_string(),
            message,
        };
        let description = cell(cols.description);
        let game = game_of(cell(cols.game), description).map_err(|m| bad(cols.game, m.0))?;
        for (ci, category) in Category::ALL.into_iter().enumerate() {
            let (qc, ac, kc, dc) = cols.cat[ci];
            let question = cell(qc);
            let options = parse_options(question).map_err(|m| bad(qc, m.0))?;
            let key_raw = cell(kc);
            let accepted = parse_key(key_raw).map_err(|m| bad(kc, m.0))?;
            let directive = cell(dc);
            if directive.trim().is_empty() {
                return Err(bad(dc, "empty directive".into()));
            }
            questions.push(Question {
                id: format!("{row}-{category}"),
                row,
                category,
                game,
                directive: directive.to_string(),
                game_description: description.to_string(),
                question: question.to_string(),
                options,
                key_raw: key_raw.to_string(),
                accepted,
                answer_text: cell(ac).to_string(),
                map: cols.map.map(|c| cell(c).trim().to_string()).unwrap_or_default(),
            });
        }
    }
    if rows == 0 {
        return Err(DataError::Empty { file: source.to_string() });
    }
    Ok(Dataset { source: source.to_string(), sha256: proagent_llm::sha256_hex(text.as_bytes()), rows, questions })
}

/// The embedded benchmark file, parsed.
pub fn embedded() -> Result<Dataset, DataError> {
    parse(EMBEDDED_CSV, EMBEDDED_NAME)
}

/// Which questions to run, from `--filter game=..,category=..` (values of one key are
/// alternatives; different keys must all match).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Keep these games only (empty: any game).
    pub games: Vec<Game>,
    /// Keep these original groupings only (empty: any).
    pub groups: Vec<Group>,
    /// Keep these categories only (empty: any).
    pub categories: Vec<Category>,
    /// Keep these question ids only, e.g. `50-EC`, compared case-insensitively (empty: any).
    pub ids: Vec<String>,
    /// Keep these 0-based data rows only (empty: any).
    pub rows: Vec<usize>,
}

impl Filter {
    /// Parses `key=value` pairs separated by commas; keys: game, group, category, id, row.
    pub fn parse(spec: &str) -> Result<Filter, FormatError> {
        let mut f = Filter::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| format!("filter part {part:?} is not key=value"))?;
            let v = v.trim();
            match k.trim().to_ascii_lowercase().as_str() {
                "game" => f.games.push(Game::parse(v).ok_or_else(|| {
                    format!(
                        "unknown game {v:?} (one of {})",
                        Game::ALL.iter().map(|g| g.name()).collect::<Vec<_>>().join(", ")
                    )
                })?),
                "group" => f.groups.push(
                    Group::parse(v)
                        .ok_or_else(|| format!("unknown group {v:?} (one of Hanabi, Overcooked, CollabGames)"))?,
                ),
                "category" | "cat" => f
                    .categories
                    .push(Category::parse(v).ok_or_else(|| format!("unknown category {v:?} (one of EC, ToM, JP)"))?),
                "id" => f.ids.push(v.to_string()),
                "row" => f.rows.push(v.parse().map_err(|_| format!("row {v:?} is not a number"))?),
                other => return Err(format!("unknown filter key {other:?} (game, group, category, id, row)").into()),
            }
        }
        Ok(f)
    }

    /// Whether `q` passes every non-empty criterion.
    pub fn matches(&self, q: &Question) -> bool {
        (self.games.is_empty() || self.games.contains(&q.game))
            && (self.groups.is_empty() || self.groups.contains(&q.group()))
            && (self.categories.is_empty() || self.categories.contains(&q.category))
            && (self.ids.is_empty() || self.ids.iter().any(|i| i.eq_ignore_ascii_case(&q.id)))
            && (self.rows.is_empty() || self.rows.contains(&q.row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_keys() {
        let q = "State.\nWhat now?\nAvailable Actions:  \n\nA. go.\nB.stay\nC. . wait\n\n";
        let o = parse_options(q).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!((o[1].letter, o[1].text.as_str()), ('B', "stay"));
        assert_eq!(o[2].text, "wait");
        assert!(parse_options("no header\nA. x").is_err());
        assert!(parse_options("Available Answers:\nA. x\nsomething else").unwrap_err().0.contains("line 2"));
        assert_eq!(parse_key("D, F").unwrap(), vec!['D', 'F']);
        assert_eq!(parse_key("A,C").unwrap(), vec!['A', 'C']);
        assert!(parse_key("").is_err());
        assert!(parse_key("AB").is_err());
    }

    #[test]
    fn filter_parsing() {
        let f = Filter::parse("game=hanabi,category=tom,game=CollabEscape").unwrap();
        assert_eq!(f.games, vec![Game::Hanabi, Game::CollabEscape]);
        assert_eq!(f.categories, vec![Category::ToM]);
        assert!(Filter::parse("color=red").is_err());
        assert!(Filter::parse("game=chess").is_err());
        assert_eq!(Filter::parse("").unwrap(), Filter::default());
    }
}
