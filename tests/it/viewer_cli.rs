//! `proagent render`, and the file kinds settled between transcripts and trajectories:
//! `analyze` reads transcripts, `replay` explains a trajectory, `serve` checks its flags.

use std::process::Output;

const TRANSCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/transcripts/committed/cramped_room.jsonl");

fn run(args: &[&str]) -> Output {
    crate::support::bin().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn render_writes_svg_png_and_gif_of_the_same_drawing() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let o = run(&["render", TRANSCRIPT, "--out", &p("a.svg"), "--step", "12", "--cell", "40"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(p("a.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("width=\"200\"") && svg.contains("height=\"180\""), "{svg:.120}");
    let again = run(&["render", TRANSCRIPT, "--out", &p("b.svg"), "--step", "12", "--cell", "40"]);
    assert!(again.status.success());
    assert_eq!(svg, std::fs::read_to_string(p("b.svg")).unwrap(), "deterministic");
    let o = run(&["render", TRANSCRIPT, "--out", &p("a.png"), "--no-status"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(p("a.png")).unwrap().starts_with(b"\x89PNG"));
    let o =
        run(&["render", TRANSCRIPT, "--out", &p("a.gif"), "--step", "10", "--to", "20", "--fps", "5", "--cell", "24"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("11 frames (10..=20)"));
    assert!(std::fs::read(p("a.gif")).unwrap().starts_with(b"GIF89a"));

    for (args, want) in [
        (vec!["--out", "x.jpg"], "the extension must be .svg, .png or .gif"),
        (vec!["--out", "x.svg", "--step", "61"], "--step 61: the episode has frames 0..=60"),
        (vec!["--out", "x.gif", "--step", "5", "--to", "3"], "--to 3 is before --step 5"),
        (vec!["--out", "x.gif", "--fps", "0"], "--fps must be"),
        (vec!["--out", "x.svg", "--cell", "4"], "--cell must be"),
        (vec!["--out", "x.svg", "--episode", "2"], "--episode 2: "),
    ] {
        let mut all = vec!["render", TRANSCRIPT];
        all.extend(args.iter().copied());
        let o = run(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(stderr(&o).contains(want), "{all:?}: {}", stderr(&o));
    }
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"header\"}\n").unwrap();
    let o = run(&["render", bad.to_str().unwrap(), "--out", &p("c.svg")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.jsonl:1"), "{}", stderr(&o));
}

#[test]
fn analyze_reads_transcripts_and_replay_explains_trajectories() {
    let o = run(&["analyze", "--json", TRANSCRIPT]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&o.stdout).trim()).unwrap();
    assert_eq!(
        (v["kind"].as_str(), v["steps"].as_u64(), v["reward"].as_u64()),
        (Some("transcript"), Some(60), Some(20))
    );

    let dir = tempfile::tempdir().unwrap();
    let traj = dir.path().join("t.jsonl");
    let o = run(&["play", "--agent", "scripted", "--horizon", "20", "--trajectory", traj.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["replay", traj.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("is a reference trace (1 episode), not a transcript"), "{e}");
    assert!(e.contains("proagent verify-trace") && e.contains("proagent serve"), "{e}");
}

#[test]
fn serve_checks_its_flags_before_listening() {
    for (args, want) in [
        (vec!["serve", "/nonexistent/episodes"], "/nonexistent/episodes: no such file or directory"),
        (vec!["serve", "--step-ms", "5"], "--step-ms must be"),
        (vec!["serve", "--max-games", "0"], "--max-games must be"),
        (vec!["serve", "--model", "oracle"], "--model"),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn show_explains_action_letters_and_render_counts_episodes_from_1() {
    let t = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts/committed/cramped_room.jsonl");
    let o = crate::support::bin().args(["show", "--transcript"]).arg(&t).args(["--step", "3"]).output().unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        s.contains("actions: N north (up) · S south (down) · E east (right) · W west (left) · X stay · I interact"),
        "{s}"
    );
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("a.svg");
    let old = dir.path().join("b.svg");
    let o =
        crate::support::bin().arg("render").arg(&t).arg("--out").arg(&new).args(["--episode", "1"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = crate::support::bin().arg("render").arg(&t).arg("--out").arg(&old).args(["--index", "0"]).output().unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--index is deprecated"));
    assert_eq!(std::fs::read(&new).unwrap(), std::fs::read(&old).unwrap());
}

/// `show FILE` takes a transcript or a trajectory file, told apart by content, and prints
/// what the older `--transcript` / `--trajectory` forms print.
#[test]
fn show_takes_any_saved_episode_as_its_file_argument() {
    let dir = tempfile::tempdir().unwrap();
    let (traj, tr) = (dir.path().join("t.traj.jsonl"), dir.path().join("t.jsonl"));
    let o = crate::support::bin()
        .args(["play", "--layout", "coordination_ring", "--horizon", "30", "--partner", "greedy", "--trajectory"])
        .arg(&traj)
        .arg("--transcript")
        .arg(&tr)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let show = |args: &[&std::ffi::OsStr]| {
        let o = crate::support::bin().arg("show").args(args).args(["--step", "30"]).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let by_file = show(&[traj.as_os_str()]);
    assert_eq!(by_file, show(&["--trajectory".as_ref(), traj.as_os_str()]));
    assert_eq!(show(&[tr.as_os_str()]), show(&["--transcript".as_ref(), tr.as_os_str()]));
    assert!(by_file.contains("legend"), "{by_file}");
    let o = crate::support::bin().args(["show", "--episode", "2"]).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("give the FILE"));
}
