//! Counts the prompt tokens of chat requests the way `--dry-run` counts them
//! ([`proagent_llm::tokens::TokenCounter::prompt`]), for scripts that compare prompts made
//! elsewhere (`scripts/llmco_original_prompts.py`).
//!
//! Reads JSON Lines on stdin, each `{"label": "...", "messages": [{"role": "system",
//! "content": "..."}, ...]}`, and prints one line per request: the label, a tab, the prompt
//! tokens. The first argument names the model whose tokenizer counts (default `gpt-4o`).
//!
//! ```sh
//! echo '{"label":"hi","messages":[{"role":"user","content":"Hello"}]}' | cargo run -q -p proagent-llm --example count_tokens -- gpt-4o
//! ```

use proagent_llm::Message;
use proagent_llm::tokens::TokenCounter;
use std::io::BufRead;
use std::process::ExitCode;

/// One request to count.
#[derive(serde::Deserialize)]
struct Request {
    label: String,
    messages: Vec<Message>,
}

fn main() -> ExitCode {
    let model = std::env::args().nth(1).unwrap_or_else(|| "gpt-4o".to_string());
    let counter = TokenCounter::for_model(&model);
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("stdin: {e}");
                return ExitCode::from(2);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Request>(&line) {
            Ok(r) => println!("{}\t{}", r.label, counter.prompt(&r.messages)),
            Err(e) => {
                eprintln!("stdin line {}: {e}", i + 1);
                return ExitCode::from(2);
            }
        }
    }
    eprintln!("counted with {}", counter.describe());
    ExitCode::SUCCESS
}
