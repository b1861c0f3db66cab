//! Files written by the main branch before the one-runtime restructuring
//! (tests/fixtures/compat/README.md says how): today's code reads them, replays them, and
//! the same commands still write the very same bytes on the classic game.
//!
//! One change is deliberate: on OvercookedV2 the one ProAgent loop settles predictions of
//! the teammate by the classic rule (the next skill the teammate is seen completing; a
//! predicted wait is right if nothing is seen for its steps), where the old V2 copy matched
//! each seen skill against the oldest open prediction. V2 play is unchanged — the same
//! actions, states, rewards, skill events, scores and model calls — but the belief records
//! and memory lines differ, so a V2 transcript of the old main is read and shown, and its
//! re-run reports the first corrected belief as the divergence.

use super::support::bin;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compat").join(name)
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_same_commands_write_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "classic-play",
            &["--layout", "cramped_room", "--horizon", "60", "--trajectory", "classic-play.trajectory.jsonl"],
            &["classic-play.jsonl", "classic-play.trajectory.jsonl"],
        ),
        (
            "v2-play",
            &["--layout", "v2:cramped_room_v2", "--horizon", "60", "--trajectory", "v2-play.trajectory.jsonl"],
            &["v2-play.jsonl", "v2-play.trajectory.jsonl"],
        ),
        (
            "two",
            &[
                "--layout",
                "cramped_room",
                "--agent",
                "proagent",
                "--partner",
                "proagent[scripted,memory_k=2]",
                "--horizon",
                "40",
            ],
            &["two-proagents.jsonl"],
        ),
        (
            "paper",
            &["--layout", "coordination_ring", "--preset", "paper", "--partner", "random4", "--horizon", "40"],
            &["paper.jsonl"],
        ),
    ];
    for (name, args, files) in cases {
        let out = bin()
            .current_dir(dir.path())
            .arg("play")
            .args(*args)
            // The stand-in's old name, the default when these files were written (now `rule-based`).
            .args(["--model", "scripted"])
            .args(["--transcript", files[0], "--no-wall-clock", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let summary = String::from_utf8_lossy(&out.stdout);
        let recorded = relabel(name, String::from_utf8(read(&fixture(&format!("{name}.summary.json")))).unwrap());
        if name.starts_with("v2") {
            // The same play (see the module documentation): trajectory, score, deliveries, calls.
            let now: serde_json::Value = serde_json::from_str(summary.lines().next().unwrap()).unwrap();
            let then: serde_json::Value = serde_json::from_str(recorded.lines().next().unwrap()).unwrap();
            for key in ["score", "deliveries", "wrong_deliveries", "steps", "llm_calls", "skills_completed", "plans"] {
                assert_eq!(now[key], then[key], "{name}: {key}");
            }
            let traj = files[1];
            assert!(read(&dir.path().join(traj)) == read(&fixture(traj)), "{name}: {traj} differs");
            continue;
        }
        assert_eq!(summary.lines().next(), recorded.lines().next(), "{name}: the play --json line");
        for f in *files {
            let then = relabel(name, String::from_utf8(read(&fixture(f))).unwrap());
            assert!(read(&dir.path().join(f)) == then.into_bytes(), "{name}: {f} differs from the recorded file");
        }
    }
}

/// The one intended change since these files were written: a paper-preset seat's label
/// names its preset (it used to list the four switches the preset sets, as if it were a
/// default-preset seat with four options). Everything else must be byte for byte the same.
fn relabel(name: &str, text: String) -> String {
    if name != "paper" {
        return text;
    }
    text.replace(
        "proagent[scripted,max_replans=4,belief=off,intention=false,wait_interrupt=false]",
        "proagent[scripted,preset=paper]",
    )
}

#[test]
fn old_transcripts_replay_exactly() {
    for f in ["classic-play.jsonl", "two-proagents.jsonl", "paper.jsonl"] {
        let out = bin().arg("replay").arg(fixture(f)).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.starts_with("identical"),
            "{f}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn old_v2_transcripts_are_read_and_their_reruns_name_the_belief_change() {
    for f in ["v2-play.jsonl", "eval-v2-episode.jsonl"] {
        let shown = bin().args(["show", "--transcript"]).arg(fixture(f)).output().unwrap();
        assert!(shown.status.success(), "{f}: {}", String::from_utf8_lossy(&shown.stderr));
        let out = bin().arg("replay").arg(fixture(f)).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{f}: {text}");
        // The first difference is a belief record, or a memory line about a prediction.
        let about_belief = text.contains(".belief") || text.contains("You predicted");
        assert!(text.contains("DIVERGED") && about_belief, "{f}: {text}");
    }
}

/// These results were written before records carried checksums: reported only with
/// `--include-unchecked` (and the report says so), never averaged without it.
#[test]
fn old_results_files_make_the_same_reports() {
    for d in ["eval-classic", "eval-v2"] {
        let lines = std::fs::read_to_string(fixture(&format!("{d}/results.jsonl"))).unwrap().lines().count();
        let out_dir = tempfile::tempdir().unwrap();
        let out = bin().args(["eval", "report"]).arg(fixture(d)).arg("--out").arg(out_dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{d}: {err}");
        assert!(
            err.contains(&format!("all {lines} carry none")) && err.contains("--include-unchecked reports them"),
            "{d}: {err}"
        );
        assert!(!out_dir.path().join("report.md").exists(), "{d}: a report was written");
        let out = bin()
            .args(["eval", "report", "--include-unchecked"])
            .arg(fixture(d))
            .arg("--out")
            .arg(out_dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{d}: {err}");
        assert!(err.contains(&format!("note: {lines} result records carry no checksum: counted unverified")), "{err}");
        let made = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
        let note = format!(
            "**Note:** {lines} result records carry no checksum and are counted in this report unverified \
             (`--include-unchecked`).\n\n"
        );
        assert!(made.contains(&note), "{d}: {made}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.path().join("report.json")).unwrap()).unwrap();
        assert_eq!(report["unchecked"], serde_json::json!({"excluded": 0, "included": lines}), "{d}");
        let recorded = std::fs::read_to_string(fixture(&format!("{d}/report.md"))).unwrap();
        // The intended changes: ProAgent rows played by the stand-in say so, and the report
        // says its records are unverified.
        let recorded =
            recorded.replace("proagent[scripted] |", "proagent[scripted] (rule-based stand-in, not an LLM) |");
        assert_eq!(without_unparsed_column(&made.replace(&note, "")), recorded, "{d}: report.md");
    }
}

/// A report without the "unparsed replies" column and its note, which reports gained
/// after these results were written (old records have no parse-failure counts: "–").
fn without_unparsed_column(report: &str) -> String {
    let mut out = String::new();
    let mut in_cost_table = false;
    for line in report.lines() {
        if line.starts_with("Unparsed replies:") {
            continue;
        }
        if line.starts_with("| layout | agent | partner | seat |") {
            in_cost_table = true;
        } else if !line.starts_with('|') {
            in_cost_table = false;
        }
        if in_cost_table {
            // Drop the last cell: "| ... | x |" → "| ... |".
            let trimmed = line.trim_end().trim_end_matches('|');
            let cut = trimmed.rfind('|').map_or(trimmed, |i| &trimmed[..=i]);
            out.push_str(cut);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    // The note was a paragraph of its own: drop the blank line it leaves at the end.
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[test]
fn old_trajectories_are_read_by_analyze() {
    for f in ["classic-play.trajectory.jsonl", "v2-play.trajectory.jsonl"] {
        let out = bin().arg("analyze").arg(fixture(f)).arg("--json").output().unwrap();
        assert!(out.status.success(), "{f}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{f}: no report");
    }
}
