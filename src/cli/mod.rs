//! The command line: raw clap arguments are turned into validated configs
//! before anything runs; errors go to stderr with a non-zero exit.

mod agent_args;
mod analyze;
mod bc;
mod bench;
mod bench_agent;
mod bench_partners;
mod bench_rl;
mod board;
mod chat;
mod common;
mod cost;
mod eval;
mod llm_args;
mod mock_server;
mod play;
mod progress;
mod qa;
mod render;
mod replay;
mod rl;
mod serve;
mod show;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "proagent",
    version,
    about = about()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a layout as an ASCII board.
    Show(show::ShowArgs),
    /// Replay reference trajectories and compare every step with the recording.
    VerifyTrace(verify::VerifyArgs),
    /// Play seeded episodes of an agent with a partner.
    Play(play::PlayArgs),
    /// Benchmarks (simulator speed, ...).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Teamwork analysis: constructive interdependencies and accepted triggers per trajectory.
    Analyze(analyze::AnalyzeArgs),
    /// Serve an OpenAI-compatible mock model (latency and seeded faults on request).
    MockServer(mock_server::MockServerArgs),
    /// Send one prompt to a model (an OpenAI-compatible server, or replay:FILE) and print the reply.
    Chat(chat::ChatArgs),
    /// Evaluation sweeps over layouts × agents × partners × seats × episodes
    /// (concurrent, resumable, shardable), and `eval report` for tables and heatmaps.
    Eval(eval::EvalArgs),
    /// CoordinationQA: ask, score and report the 198 questions (`qa lint`, `qa baseline`).
    Qa(qa::QaArgs),
    /// Behaviour-cloned human proxies: train, evaluate, self-play.
    #[command(subcommand)]
    Bc(bc::BcCommand),
    /// Reinforcement-learned partners (SP, PBT, FCP, MEP, COLE) on the two Overcooked games:
    /// train with PPO, evaluate.
    #[command(subcommand)]
    Rl(rl::RlCommand),
    /// Re-run a recorded `play` transcript offline and check it matches exactly.
    Replay(replay::ReplayArgs),
    /// The browser viewer (transcripts, trajectories, eval directories) and human play.
    Serve(serve::ServeArgs),
    /// Draw an episode (transcript or trajectory) as SVG/PNG (one frame) or an animated GIF.
    Render(render::RenderArgs),
}

/// The one-line description of `proagent --help`: the agents and every game of the catalog.
fn about() -> String {
    let titles: Vec<&str> = proagent::games::entries().iter().rev().map(|e| e.title).collect();
    let (last, rest) = titles.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
    format!(
        "ProAgent and LLM-Coordination agents on {} and {last}: simulators, agents, partners, evaluation",
        rest.join(", ")
    )
}

pub fn main() -> ExitCode {
    // `proagent ... | head` closes stdout early; end quietly like other Unix tools instead of
    // reporting the failed write as a crash.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info.payload().downcast_ref::<String>().map(String::as_str).unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default_hook(info);
    }));
    init_logging();
    let cli = Cli::parse();
    warn_stale_models();
    let result = match cli.command {
        Command::Show(a) => show::run(a),
        Command::VerifyTrace(a) => verify::run(a),
        Command::Bench(b) => bench::run(b),
        Command::Analyze(a) => analyze::run(a),
        Command::MockServer(a) => mock_server::run(a),
        Command::Chat(a) => chat::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Play(a) => play::run(a),
        Command::Qa(a) => qa::run(a),
        Command::Bc(b) => bc::run(b),
        Command::Rl(c) => rl::run(c),
        Command::Replay(a) => replay::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Render(a) => render::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            ExitCode::from(2)
        }
    }
}

/// Whether stderr may carry colour codes: only on a terminal, and never with `NO_COLOR`
/// set to anything non-empty (https://no-color.org).
pub fn stderr_colour() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Diagnostics on stderr through `tracing`: level from `RUST_LOG` (default `warn`), colour
/// only when [`stderr_colour`] allows it.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(stderr_colour()).with_writer(std::io::stderr).init();
}

/// Warns for each model file of this build's source tree (`data/rl/`, `data/bc/`) that
/// differs from the copy compiled in: `sp`, `fcp`, `bc`, … play the compiled copy, so a model
/// re-trained into the tree is not what they play until a rebuild. Silent when the tree is
/// not there (an installed binary).
fn warn_stale_models() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    for (path, kind) in proagent_partners::stale_shipped(&data) {
        tracing::warn!(
            "{} differs from the model compiled into this binary: the shipped names (sp, fcp, bc, ...) play the \
             compiled one until a rebuild (cargo build --release); to play the file, pass {kind}:{}",
            path.display(),
            path.display()
        );
    }
}

/// An error and its causes on one line, `outer: cause: root`, leaving out a cause whose
/// text the line already holds (library errors often print their source themselves, and
/// an OS message said twice reads like two failures).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if part.is_empty() || text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every visible argument and subcommand of `cmd` and below without a description.
    fn undocumented(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if arg.is_hide_set() || id == "help" || id == "version" {
                continue;
            }
            if arg.get_help().is_none_or(|h| h.to_string().trim().is_empty()) {
                out.push(format!("{path} {}", arg.get_long().map_or(id.to_string(), |l| format!("--{l}"))));
            }
        }
        for sub in cmd.get_subcommands() {
            let name = format!("{path} {}", sub.get_name());
            if sub.get_name() != "help" && sub.get_about().is_none() {
                out.push(format!("{name} (the command itself)"));
            }
            undocumented(sub, &name, out);
        }
    }

    #[test]
    fn every_argument_and_command_has_a_description() {
        let cmd = Cli::command();
        cmd.clone().debug_assert();
        let mut missing = Vec::new();
        undocumented(&cmd, "proagent", &mut missing);
        assert!(missing.is_empty(), "arguments without help text:\n{}", missing.join("\n"));
    }

    #[test]
    fn model_help_says_what_each_command_takes() {
        let cmd = Cli::command();
        let help = |path: &[&str]| {
            let mut c = &cmd;
            for p in path {
                c = c.find_subcommand(p).unwrap();
            }
            let arg = c.get_arguments().find(|a| a.get_id() == "model").unwrap();
            (
                arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
                arg.get_default_values().to_vec(),
                arg.is_required_set(),
            )
        };
        for path in [&["play"][..], &["eval"], &["bench", "agent"]] {
            let (text, default, _) = help(path);
            assert!(text.contains("rule-based") && text.contains("replay:FILE"), "{path:?}: {text}");
            assert!(text.contains("for `qa`"), "{path:?} must not offer oracle as if it worked: {text}");
            assert_eq!(default, ["rule-based"], "{path:?}");
        }
        let (text, default, required) = help(&["chat"]);
        assert!(!text.contains("scripted") && text.contains("replay:FILE"), "{text}");
        assert!(default.is_empty() && required, "chat has no default model it would then refuse");
        let (text, _, _) = help(&["qa"]);
        assert!(text.contains("oracle") && text.contains("random-original") && !text.contains("scripted"), "{text}");
    }

    #[test]
    fn qa_has_the_same_http_flags_as_play() {
        let cmd = Cli::command();
        let longs = |name: &str| -> Vec<String> {
            let c = cmd.find_subcommand(name).unwrap();
            c.get_arguments().filter_map(|a| a.get_long().map(str::to_string)).collect()
        };
        let (play, qa, chat) = (longs("play"), longs("qa"), longs("chat"));
        for flag in ["base-url", "connect-timeout", "request-timeout", "retries", "backoff-ms", "backoff-max-ms"] {
            assert!(play.iter().any(|f| f == flag), "play --{flag}");
            assert!(qa.iter().any(|f| f == flag), "qa --{flag}");
            assert!(chat.iter().any(|f| f == flag), "chat --{flag}");
        }
    }

    #[test]
    fn each_command_keeps_its_own_default_episode_count() {
        let cmd = Cli::command();
        let default_of = |path: &[&str]| {
            let mut c = &cmd;
            for p in path {
                c = c.find_subcommand(p).unwrap();
            }
            let a = c.get_arguments().find(|a| a.get_id() == "episodes").unwrap();
            a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect::<Vec<_>>()
        };
        assert_eq!(default_of(&["play"]), ["1"]);
        assert_eq!(default_of(&["bench", "partners"]), ["10"]);
        assert_eq!(default_of(&["bench", "agent"]), ["20"]);
        assert_eq!(default_of(&["rl", "eval"]), ["100"]);
    }

    #[test]
    fn an_error_says_each_cause_once() {
        let os = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)");
        // A library error that prints its source and also exposes it as its source.
        #[derive(Debug, thiserror::Error)]
        #[error("reading x.jsonl: {source}")]
        struct E {
            source: std::io::Error,
        }
        let e = anyhow::Error::new(E { source: os }).context("--transcript");
        assert_eq!(error_text(&e), "--transcript: reading x.jsonl: No such file or directory (os error 2)");
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_text(&plain), "outer: inner");
    }
}
