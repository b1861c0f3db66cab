//! `proagent chat`: send one prompt to a model and print the reply — a quick
//! check that an endpoint, a key and a model name work, with the same retries,
//! fault recording and transcript format as the agent.

use super::llm_args::LlmArgs;
use anyhow::{Context, Result, bail};
use proagent::limits::{MAX_STDIN_PROMPT_BYTES, read_limited};
use proagent::llm::{ChatRequest, Message};
use proagent::runner::models::{ModelChoice, build_model, classify_model};
use proagent::transcript::{Exchange, Header, TranscriptWriter, WriterOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// What `--model` means for `chat`.
const CHAT_MODEL_HELP: &str = "The model to ask: a name an OpenAI-compatible server at --base-url serves \
(gpt-4o, llama3.1:8b, ...), or replay:FILE to print the reply recorded in a transcript.";

#[derive(clap::Args, Debug)]
#[command(mut_arg("model", |a| a.help(CHAT_MODEL_HELP).required(true).default_value(None::<&'static str>)))]
pub struct ChatArgs {
    #[command(flatten)]
    pub llm: LlmArgs,
    /// A system message to send before the prompt.
    #[arg(long)]
    pub system: Option<String>,
    /// Write the exchange as a transcript (JSON Lines) to this file.
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// Leave wall-clock fields (times, latencies) out of the transcript, so the same
    /// command gives a byte-identical file.
    #[arg(long)]
    pub no_wall_clock: bool,
    /// Print a JSON object (reply, usage, attempts, faults) instead of the reply text.
    #[arg(long)]
    pub json: bool,
    /// Seed of the retry jitter.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The user message; `-` reads it from stdin.
    pub prompt: String,
}

pub fn run(args: ChatArgs) -> Result<ExitCode> {
    if let ModelChoice::Builtin(name) = classify_model(&args.llm.model) {
        bail!(
            "--model {name}: `chat` asks a served model (--model NAME with --base-url) or replays one \
             (--model replay:FILE); {name} is built in and only answers ProAgent's or CoordinationQA's own prompts"
        );
    }
    let sampling = args.llm.sampling()?;
    let spec = args.llm.model_spec(args.seed)?;
    let prompt = if args.prompt == "-" {
        let what = "prompts read from stdin";
        let bytes = read_limited(std::io::stdin().lock(), MAX_STDIN_PROMPT_BYTES, what)
            .context("reading the prompt from stdin")?;
        String::from_utf8(bytes).context("reading the prompt from stdin: not UTF-8 text")?
    } else {
        args.prompt.clone()
    };
    let mut messages = Vec::new();
    if let Some(sys) = &args.system {
        messages.push(Message::system(sys.clone()));
    }
    messages.push(Message::user(prompt));
    let request = ChatRequest::new(messages, sampling);

    let mut writer = match &args.transcript {
        Some(path) => {
            let opts = WriterOptions { scrubber: spec.scrubber(), wall_clock: !args.no_wall_clock };
            let mut w = TranscriptWriter::create(path, opts)?;
            let config = serde_json::json!({"command": "chat", "seed": args.seed, "llm": spec});
            w.write_header(&Header::new(config, BTreeMap::new()))?;
            Some(w)
        }
        None => None,
    };

    let model = build_model(&spec)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;
    let started = Instant::now();
    let result = rt.block_on(model.chat(&request));
    let latency = started.elapsed();

    if let Some(w) = writer.as_mut() {
        w.write_exchange(&Exchange::new(0, "chat", request.clone(), &result, latency))?;
        let footer = match &result {
            Ok(r) => {
                serde_json::json!({"ok": true, "attempts": r.attempts, "faults": r.faults.len(), "usage": r.usage})
            }
            Err(e) => serde_json::json!({"ok": false, "faults": e.faults().len()}),
        };
        w.write_footer(footer)?;
    }
    // Nothing below prints a secret; scrub anyway in case a server echoed one.
    let scrubber = spec.scrubber();
    let redact = |s: String| scrubber.scrub(&s).into_owned();
    match result {
        Ok(reply) => {
            if args.json {
                let v = serde_json::json!({
                    "model": model.name(), "text": reply.text, "usage": reply.usage, "attempts": reply.attempts,
                    "faults": reply.faults, "finish_reason": reply.finish_reason, "latency_ms": latency.as_millis() as u64,
                });
                println!("{}", redact(v.to_string()));
            } else {
                println!("{}", redact(reply.text));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if args.json {
                let v = serde_json::json!({"model": model.name(), "error": e.to_string(), "faults": e.faults()});
                println!("{}", redact(v.to_string()));
            }
            eprintln!("error: {}", redact(e.to_string()));
            for f in e.faults() {
                eprintln!("  attempt {}: {} — {}", f.attempt, f.kind, redact(f.detail.clone()));
            }
            // A refused configuration (wrong key, unknown model, ...) exits like any
            // configuration error; a model that failed after every retry exits 1.
            Ok(ExitCode::from(if e.is_fatal() { 2 } else { 1 }))
        }
    }
}
