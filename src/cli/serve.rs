//! `proagent serve`: the browser viewer and human play (see docs/viewer.md).

use anyhow::{Context, Result, bail};
use proagent::agent::ModelSpec;
use proagent::web::ServeConfig;
use proagent::web::play::{DEFAULT_STEP_MS, GameModel, PlayConfig, PlayLimits, STEP_MS_RANGE};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on. Keep it on loopback: the page reads the files given here.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
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
    // The viewer's games are classic ones: their ProAgent reads the classic prompts.
    let game = proagent::overcooked_game::Overcooked::new(
        Arc::new(proagent::env::Layout::builtin("cramped_room").context("the built-in layouts")?),
        proagent::env::DEFAULT_HORIZON,
    );
    let proagent = seat.config(&game)?;
    let mut models = vec![GameModel {
        name: a.proagent.llm.model.trim().to_string(),
        model: Arc::clone(&proagent.model),
        settings: seat.model.clone(),
    }];
    if models[0].name != "scripted" {
        models.push(GameModel {
            name: "scripted".into(),
            model: Arc::new(proagent::agent::grounding::overcooked::scripted::ScriptedModel::new()),
            settings: ModelSpec::new("scripted"),
        });
    }
    let cfg = ServeConfig {
        roots: a.files.clone(),
        play: PlayConfig {
            games_dir: a.games_dir.clone(),
            proagent,
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
        proagent::web::serve(listener, cfg, stop).await?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}
