//! The transcript reader: checks record order, sequence numbers, the sha256
//! of every request and system prompt, and the footer's counts, naming the
//! file and line of the first problem.

use super::schema::{FORMAT_VERSION, Footer, Header, Record, StepRecord, TranscriptError};
use super::scrub::Scrubber;
use proagent_core::limits::{MAX_TRANSCRIPT_BYTES, read_file};
use proagent_llm::record::Exchange;
use proagent_llm::{ChatRequest, Message, sha256_hex};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// A parsed transcript.
#[derive(Clone, Debug)]
pub struct Transcript {
    /// The file it came from (for messages).
    pub source: String,
    /// The first record.
    pub header: Header,
    /// Every exchange, with system prompts restored and hashes checked.
    pub exchanges: Vec<Exchange>,
    /// Every step record, in order.
    pub steps: Vec<StepRecord>,
    /// The last record; `None` when the run did not finish writing.
    pub footer: Option<Footer>,
    /// Number of lines read.
    pub lines: usize,
    /// The 1-based line of the header record.
    pub header_line: usize,
}

impl Transcript {
    /// Reads and checks a transcript file (see [`Transcript::parse`]).
    pub fn read(path: &Path) -> Result<Self, TranscriptError> {
        let name = path.display().to_string();
        let bytes = read_file(path, MAX_TRANSCRIPT_BYTES, "transcripts")
            .map_err(|source| TranscriptError::Io { path: name.clone(), source })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
            TranscriptError::Bad { path: name.clone(), line, message: "not valid UTF-8".into() }
        })?;
        Transcript::parse(&text, &name)
    }

    /// Parses transcript text; `name` is used in error messages.
    pub fn parse(text: &str, name: &str) -> Result<Self, TranscriptError> {
        let bad = |line: usize, message: String| TranscriptError::Bad { path: name.to_string(), line, message };
        let mut header: Option<Header> = None;
        let mut header_line = 1;
        let mut exchanges = Vec::new();
        let mut steps = Vec::new();
        let mut footer: Option<(usize, Footer)> = None;
        let mut system_texts: HashMap<String, String> = HashMap::new();
        let ends_with_newline = text.ends_with('\n');
        let lines: Vec<&str> = text.lines().collect();
        let last_line = lines.len();
        for (idx, raw) in lines.iter().enumerate() {
            let n = idx + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let record: Record = match serde_json::from_str(raw) {
                Ok(r) => r,
                Err(e) if n == last_line && !ends_with_newline && e.is_eof() => {
                    return Err(bad(n, format!("truncated record: the file ends in the middle of this line ({e})")));
                }
                Err(e) => return Err(bad(n, format!("malformed record: {e}"))),
            };
            if let Some((fl, _)) = &footer {
                return Err(bad(n, format!("record after the footer (line {fl})")));
            }
            match record {
                Record::Header(h) => {
                    if header.is_some() {
                        return Err(bad(n, "a second header".into()));
                    }
                    if n != 1 && exchanges.len() + steps.len() > 0 {
                        return Err(bad(n, "the header must be the first record".into()));
                    }
                    if h.format_version > FORMAT_VERSION || h.format_version == 0 {
                        return Err(bad(
                            n,
                            format!(
                                "transcript format version {} is not supported (this proagent reads 1..={FORMAT_VERSION})",
                                h.format_version
                            ),
                        ));
                    }
                    header = Some(h);
                    header_line = n;
                }
                other if header.is_none() => {
                    let kind = match other {
                        Record::Exchange(_) => "an exchange",
                        Record::Step(_) => "a step",
                        _ => "a footer",
                    };
                    return Err(bad(n, format!("{kind} record before the header (is this a transcript?)")));
                }
                Record::Exchange(r) => {
                    let r = *r;
                    if r.seq != exchanges.len() as u64 {
                        return Err(bad(n, format!("exchange seq {} where {} was expected", r.seq, exchanges.len())));
                    }
                    let mut messages = Vec::with_capacity(r.request.messages.len());
                    for (i, m) in r.request.messages.into_iter().enumerate() {
                        let content = match (m.content, m.sha256) {
                            (Some(c), Some(h)) => {
                                if sha256_hex(c.as_bytes()) != h {
                                    return Err(bad(n, format!("message {i}: content does not match its sha256")));
                                }
                                system_texts.insert(h, c.clone());
                                c
                            }
                            (Some(c), None) => c,
                            (None, Some(h)) => match system_texts.get(&h) {
                                Some(c) => c.clone(),
                                None => {
                                    return Err(bad(
                                        n,
                                        format!("message {i} refers to system prompt {h} that no earlier line holds"),
                                    ));
                                }
                            },
                            (None, None) => return Err(bad(n, format!("message {i} has neither content nor sha256"))),
                        };
                        messages.push(Message { role: m.role, content });
                    }
                    let request = ChatRequest {
                        messages,
                        sampling: r.request.sampling,
                        response_format: r.request.response_format.map(|f| *f),
                    };
                    let hash = request.canonical_hash();
                    if hash != r.request_hash {
                        return Err(bad(
                            n,
                            format!(
                                "the request does not match its request_hash ({} recorded, {hash} computed)",
                                r.request_hash
                            ),
                        ));
                    }
                    exchanges.push(Exchange {
                        seq: r.seq,
                        t: r.t,
                        kind: r.kind,
                        request,
                        outcome: r.outcome,
                        parsed: r.parsed,
                        parse_error: r.parse_error,
                        latency: r.wall.and_then(|w| w.latency_ms).map(Duration::from_millis),
                        scrubbed: r.scrubbed,
                        seat: r.seat,
                    });
                }
                Record::Step(s) => steps.push(s),
                Record::Footer(f) => {
                    if f.exchanges != exchanges.len() as u64 || f.steps != steps.len() as u64 {
                        return Err(bad(
                            n,
                            format!(
                                "the footer counts {} exchanges and {} steps but the file holds {} and {}",
                                f.exchanges,
                                f.steps,
                                exchanges.len(),
                                steps.len()
                            ),
                        ));
                    }
                    footer = Some((n, f));
                }
            }
        }
        let Some(header) = header else {
            return Err(TranscriptError::Incomplete {
                path: name.to_string(),
                message: "empty transcript (no header record)".into(),
            });
        };
        Ok(Transcript {
            source: name.to_string(),
            header,
            exchanges,
            steps,
            footer: footer.map(|(_, f)| f),
            lines: last_line,
            header_line,
        })
    }

    /// The footer, or an error saying the run did not finish writing this transcript.
    pub fn require_complete(&self) -> Result<&Footer, TranscriptError> {
        self.footer.as_ref().ok_or_else(|| TranscriptError::Incomplete {
            path: self.source.clone(),
            message: format!(
                "no footer after line {} (the run was interrupted, or the file was cut short)",
                self.lines
            ),
        })
    }
}

impl Transcript {
    /// A model that serves this transcript's recorded replies, named after the file.
    /// Live requests are scrubbed with `scrubber` before they are looked up, as the
    /// writer scrubbed them before hashing (see [`super::scrub`]): give it the secrets
    /// the recording run knew, usually [`Scrubber::from_env`].
    pub fn replayer(&self, scrubber: Scrubber) -> proagent_llm::replay::ReplayModel {
        proagent_llm::replay::ReplayModel::new(self.source.clone(), self.exchanges.clone()).with_scrubber(scrubber)
    }
}

/// The longest stretch of a model's reasoning [`reasoning_notes`] keeps per exchange.
pub const REASONING_SHOWN_CHARS: usize = 400;

/// The reasoning `exchanges` kept apart from their replies (a reasoning model's
/// `reasoning_content` or `<think>` blocks), one line per exchange keyed by its timestep:
/// `  reasoning (planner): ...`, on one line, cut at [`REASONING_SHOWN_CHARS`] characters.
/// Exchanges without reasoning (every exchange of a chat model) add nothing.
pub fn reasoning_notes(exchanges: &[Exchange]) -> std::collections::BTreeMap<u32, Vec<String>> {
    let mut out: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    for x in exchanges {
        let proagent_llm::record::Outcome::Reply(r) = &x.outcome else { continue };
        let Some(reasoning) = &r.reasoning else { continue };
        let flat: String = reasoning.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut shown: String = flat.chars().take(REASONING_SHOWN_CHARS).collect();
        if flat.chars().count() > REASONING_SHOWN_CHARS {
            shown.push('…');
        }
        out.entry(x.t).or_default().push(format!("  reasoning ({}): {shown}", x.kind));
    }
    out
}
