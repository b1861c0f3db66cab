//! `proagent serve`: the browser viewer and human play (see docs/viewer.md).

use anyhow::{Context, Result, bail};
use proagent_web::ServeConfig;
use proagent_web::play::{DEFAULT_STEP_MS, PlayConfig, PlayLimits, STEP_MS_RANGE};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on. Loopback only unless --allow-remote: the page reads the files
    /// given here and starts games on your model.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Listen on a non-loopback --addr (anyone who can reach it and load the page can
    /// read the files given here and play on your model; a warning is printed).
    #[arg(long)]
    allow_remote: bool,
    /// A host name the browser may use for this server besides localhost and IP
    /// addresses (the Host header is checked); repeatable.
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
    /// Connections open at once (more are answered 503).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    max_connections: u32,
    /// Memory, in MiB, that the episodes kept open may hold at once, measured as they are
    /// opened (the oldest are dropped first; one that alone holds more is refused).
    #[arg(long, value_name = "MIB", default_value_t = 192, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    keep_budget: u64,
    /// Transcripts, trajectory files, human-game files, eval directories, or directories
    /// holding them: the viewer lists and opens these (and only these).
    files: Vec<PathBuf>,
    /// Where human games are saved (also listed in the viewer).
    #[arg(long, default_value = "games")]
    games_dir: PathBuf,
    /// Default real-time step of a human game, in milliseconds (the 2019 study's pace:
    /// about 154 ms, 6.5 steps per second); the page can change it per game.
    #[arg(long, default_value_t = DEFAULT_STEP_MS)]
    step_ms: u32,
    /// Games running at once.
    #[arg(long, default_value_t = 16)]
    max_games: usize,
    /// End a running game when its page has been silent this many seconds.
    #[arg(long, default_value_t = 60)]
    idle_s: u64,
    /// Options of a `proagent` seat in human games (`--model` is the default model; the
    /// built-in `scripted` model is always offered too).
    #[command(flatten)]
    proagent: super::agent_args::ProAgentArgs,
}

pub fn run(a: ServeArgs) -> Result<ExitCode> {
    if !a.addr.ip().is_loopback() {
        if !a.allow_remote {
            bail!(
                "--addr {}: not a loopback address; the server has no accounts, so anyone who reaches it can read the files given here and play on your model. Add --allow-remote to listen there anyway",
                a.addr
            );
        }
        eprintln!(
            "warning: listening on {} (not loopback): anyone who can reach this address can open the files given here and start games on your model",
            a.addr
        );
    }
    for h in &a.allow_host {
        if h.is_empty() || !h.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.') {
            bail!("--allow-host {h:?}: expected a host name (letters, digits, '-' and '.')");
        }
    }
    if !(STEP_MS_RANGE.0..=STEP_MS_RANGE.1).contains(&a.step_ms) {
        bail!("--step-ms must be {}..={}, got {}", STEP_MS_RANGE.0, STEP_MS_RANGE.1, a.step_ms);
    }
    if a.max_games == 0 || a.max_games > 1024 {
        bail!("--max-games must be 1..=1024, got {}", a.max_games);
    }
    if a.idle_s == 0 || a.idle_s > 86_400 {
        bail!("--idle-s must be 1..=86400, got {}", a.idle_s);
    }
    for f in &a.files {
        if !f.exists() {
            bail!("{}: no such file or directory", f.display());
        }
    }
    let seat = a.proagent.seat("proagent", 0)?;
    // The model must build before the server listens (each game builds the seat again, on
    // its own game's prompts and, for `scripted`, its own stand-in model).
    let game = proagent::overcooked_game::Overcooked::new(
        Arc::new(proagent::env::Layout::builtin("cramped_room").context("the built-in layouts")?),
        proagent::env::DEFAULT_HORIZON,
    );
    seat.config(&game)?;
    let models = proagent_web::offered_models(a.proagent.llm.model.trim(), &seat);
    let mut limits = proagent_web::ServeLimits::default();
    limits.conn.max_connections = a.max_connections as usize;
    limits.keep_budget = a.keep_budget << 20;
    let cfg = ServeConfig {
        limits,
        allow_hosts: a.allow_host.clone(),
        roots: a.files.clone(),
        play: PlayConfig {
            games_dir: a.games_dir.clone(),
            models,
            scrubber: a.proagent.scrubber(),
            limits: PlayLimits {
                max_running: a.max_games,
                idle: Duration::from_secs(a.idle_s),
                default_step_ms: a.step_ms,
            },
        },
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(a.addr).await.with_context(|| format!("--addr {}: cannot listen", a.addr))?;
        let local = listener.local_addr()?;
        // The one line scripts (and the browser test) read to find the server.
        println!("serving http://{local}/");
        use std::io::Write;
        std::io::stdout().flush()?;
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        proagent_web::serve(listener, cfg, stop).await?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}
