//! `proagent replay FILE`: re-run a recorded `play` episode offline, serving the
//! recorded model replies, and check that the re-run says and does exactly what
//! the recording says (wall-clock fields aside).

use anyhow::{Result, bail};
use proagent::runner::files::{EpisodeKind, looks_like_transcript, read_episode_text, read_text_maybe_gz};
use proagent::runner::record::RunConfig;
use proagent::transcript::{Outcome, Scrubber, Transcript, first_divergence};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A transcript written by `proagent play` or `proagent eval` (a trajectory file is
    /// refused with a message saying which commands read it).
    pub file: PathBuf,
    /// Print one JSON object (identical, divergence, counts) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    let file = a.file.display().to_string();
    let text = read_text_maybe_gz(&a.file)?;
    if !looks_like_transcript(&text) {
        // A trajectory holds the joint actions but not what the model was asked and said,
        // so there is nothing to re-run offline; say what the file is and what reads it.
        if let Ok(f) = read_episode_text(&file, &text) {
            bail!(
                "{file} is a {} ({} episode{}), not a transcript: replay re-runs a recorded model \
                 conversation. Measure it with `proagent analyze {file}`, watch it with \
                 `proagent serve {file}`{}",
                f.kind.name(),
                f.episodes.len(),
                if f.episodes.len() == 1 { "" } else { "s" },
                if f.kind == EpisodeKind::ReferenceTrace {
                    format!(", or check its states with `proagent verify-trace {file}`")
                } else {
                    String::new()
                }
            );
        }
    }
    let rec = Transcript::parse(&text, &file)?;
    let footer = rec.require_complete()?;
    if footer.data.get("failed").and_then(Value::as_bool) == Some(true) {
        let why = footer.data.get("error").and_then(Value::as_str).unwrap_or("no reason recorded");
        bail!("{file} records a failed episode ({why}); only finished episodes can be replayed");
    }
    let cfg = RunConfig::from_header(&rec.header, &file, rec.header_line)?;
    // The recording was scrubbed before hashing: the re-run's requests are scrubbed the
    // same way before lookup, and so is the re-run's own transcript.
    let secrets = Scrubber::from_env();
    let replayer = Arc::new(rec.replayer(secrets.clone()));
    let rerun = proagent::replay::rerun(&file, &rec, &cfg, &replayer, secrets)?;
    compare(&a, &file, &rec, &replayer, rerun.score, &rerun.transcript)
}

/// Compares a re-run with its recording and reports (exit 1 when they differ).
fn compare(
    a: &ReplayArgs,
    file: &str,
    rec: &Transcript,
    replayer: &proagent::llm::replay::ReplayModel,
    score: i64,
    rerun_text: &str,
) -> Result<ExitCode> {
    let rerun = Transcript::parse(rerun_text, "the re-run")?;

    let miss = rerun.exchanges.iter().find_map(|e| match &e.outcome {
        Outcome::Error(err) if err.error == "replay_miss" => Some(format!(
            "replay miss at t={} ({} exchange #{}): {}; the re-run stopped there",
            e.t, e.kind, e.seq, err.message
        )),
        _ => None,
    });
    let divergence = first_divergence(rec, &rerun);
    let unserved = replayer.unserved();
    let recorded_score = rec.footer.as_ref().and_then(|f| f.data.get("score")).and_then(Value::as_i64);
    let score_problem =
        (recorded_score != Some(score)).then(|| format!("score: recorded {recorded_score:?}, re-run {score}"));
    let unserved_problem = (!unserved.is_empty()).then(|| {
        let (seq, t, kind) = &unserved[0];
        format!("{} recorded replies were never asked for (first: #{seq} at t={t}, {kind})", unserved.len())
    });
    // After a miss the re-run stopped early, so the other differences are its consequences.
    let problems: Vec<String> = match miss {
        Some(m) => vec![m],
        None => [divergence, score_problem, unserved_problem].into_iter().flatten().collect(),
    };
    let identical = problems.is_empty();
    let wildcards = replayer.wildcard_matches();
    if wildcards > 0 {
        eprintln!(
            "note: {wildcards} of {} requests matched the recording only with its scrubbed spans ([REDACTED]) \
             read as wildcards: the secrets they held are not set here, so those spans were not compared",
            replayer.served()
        );
    }
    if a.json {
        let v = json!({
            "file": file,
            "identical": identical,
            "problems": problems,
            "exchanges": rec.exchanges.len(),
            "steps": rec.steps.len(),
            "score": score,
            "served": replayer.served(),
            "wildcard_matches": wildcards,
        });
        println!("{v}");
    } else if identical {
        println!(
            "identical: {file} ({} exchanges, {} steps, score {}) re-runs exactly",
            rec.exchanges.len(),
            rec.steps.len(),
            score
        );
    } else {
        println!("DIVERGED: {file}");
        for p in &problems {
            println!("  {p}");
        }
    }
    if !identical {
        eprintln!("error: the re-run of {file} diverges: {}", problems[0]);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
