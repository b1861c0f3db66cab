//! The command line: raw clap arguments are turned into validated configs
//! before anything runs; errors go to stderr with a non-zero exit.

mod agent_args;
mod analyze;
mod bc;
mod bench;
mod bench_agent;
mod bench_controller;
mod bench_partners;
mod bench_rl;
mod chat;
mod common;
mod eval;
mod llm_args;
mod mock_server;
mod play;
mod qa;
mod replay;
mod rl;
mod show;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "proagent", version, about = "ProAgent on Overcooked-AI: simulator, agents, partners, evaluation")]
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
    /// Reinforcement-learned partners (SP, PBT, FCP, MEP): train with PPO, evaluate.
    #[command(subcommand)]
    Rl(rl::RlCommand),
    /// Re-run a recorded `play` transcript offline and check it matches exactly.
    Replay(replay::ReplayArgs),
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
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
    let cli = Cli::parse();
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
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
