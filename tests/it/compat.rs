//! Files written by the main branch before the one-runtime restructuring
//! (tests/fixtures/compat/README.md says how): today's code reads and replays them, and the
//! same commands still write the very same bytes — transcripts, trajectories and summaries,
//! classic and OvercookedV2.

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
            .args(["--transcript", files[0], "--no-wall-clock", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let summary = String::from_utf8_lossy(&out.stdout);
        let recorded = String::from_utf8(read(&fixture(&format!("{name}.summary.json")))).unwrap();
        assert_eq!(summary.lines().next(), recorded.lines().next(), "{name}: the play --json line");
        for f in *files {
            assert!(read(&dir.path().join(f)) == read(&fixture(f)), "{name}: {f} differs from the recorded file");
        }
    }
}

#[test]
fn old_transcripts_replay_exactly() {
    for f in ["classic-play.jsonl", "v2-play.jsonl", "two-proagents.jsonl", "paper.jsonl", "eval-v2-episode.jsonl"] {
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
fn old_results_files_make_the_same_reports() {
    for d in ["eval-classic", "eval-v2"] {
        let out_dir = tempfile::tempdir().unwrap();
        let out = bin().args(["eval", "report"]).arg(fixture(d)).arg("--out").arg(out_dir.path()).output().unwrap();
        assert!(out.status.success(), "{d}: {}", String::from_utf8_lossy(&out.stderr));
        let made = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
        let recorded = std::fs::read_to_string(fixture(&format!("{d}/report.md"))).unwrap();
        assert_eq!(made, recorded, "{d}: report.md");
    }
}

#[test]
fn old_trajectories_are_read_by_analyze() {
    for f in ["classic-play.trajectory.jsonl", "v2-play.trajectory.jsonl"] {
        let out = bin().arg("analyze").arg(fixture(f)).arg("--json").output().unwrap();
        assert!(out.status.success(), "{f}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{f}: no report");
    }
}
