//! Bounded resources end to end (docs/limits.md): every input that used to panic,
//! abort on a huge allocation, overflow the stack or run forever is now a clear
//! error naming the flag, field or file, with exit code 2 — and never a panic.

use crate::support::text;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

fn bin(dir: &Path) -> Command {
    let mut c = crate::support::bin();
    c.current_dir(dir).env_remove("OPENAI_API_KEY").env_remove("OPENAI_BASE_URL").env_remove("RUST_LOG");
    c.env("RUST_BACKTRACE", "0");
    c
}

/// Runs `args` in `dir` and checks for a usage/input error: exit 2, no panic, and
/// stderr containing every one of `wanted`.
fn refused(dir: &Path, args: &[&str], wanted: &[&str]) -> String {
    let out: Output = bin(dir).args(args).output().expect("run proagent");
    input_error(args, &out, wanted)
}

/// Checks that the run of `args` that gave `out` was an input error: exit 2, no panic,
/// and stderr containing every one of `wanted`; returns stderr.
fn input_error(args: &[&str], out: &Output, wanted: &[&str]) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?} should exit 2; stderr: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for w in wanted {
        assert!(err.contains(w), "{args:?}: stderr lacks {w:?}: {err}");
    }
    err
}

#[test]
fn huge_memory_k_is_a_flag_error_not_a_capacity_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    refused(d, &["play", "--memory-k", "18446744073709551615", "--no-transcript"], &["--memory-k", "0..=1000"]);
    refused(
        d,
        &[
            "eval",
            "--layouts",
            "cramped_room",
            "--agents",
            "proagent",
            "--partners",
            "greedy",
            "--memory-k",
            "1001",
            "--out",
            "x",
        ],
        &["--memory-k"],
    );
    refused(d, &["bench", "agent", "--memory-k", "99999999999"], &["--memory-k"]);
}

#[test]
fn every_command_that_takes_a_horizon_bounds_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let huge = "4294967295";
    for args in [
        vec!["play", "--agent", "stay", "--partner", "stay"],
        vec!["eval", "--layouts", "cramped_room", "--agents", "stay", "--partners", "stay", "--out", "x"],
        vec!["bench", "partners"],
        vec!["bench", "agent"],
        vec!["bc", "selfplay", "--layout", "cramped_room"],
    ] {
        let mut a = args.clone();
        a.extend(["--horizon", huge]);
        refused(d, &a, &["--horizon", "1..=100000"]);
        let mut a = args.clone();
        a.extend(["--horizon", "0"]);
        refused(d, &a, &["--horizon"]);
    }
}

#[test]
fn huge_concurrency_is_refused_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let huge = "18446744073709551615";
    refused(d, &["qa", "--model", "oracle", "--no-transcript", "--concurrency", huge], &["--concurrency", "1..=1024"]);
    refused(d, &["bench", "qa", "--concurrency", huge], &["--concurrency"]);
    refused(d, &["bench", "eval", "--concurrency", "0"], &["--concurrency"]);
    refused(
        d,
        &[
            "eval",
            "--layouts",
            "cramped_room",
            "--agents",
            "stay",
            "--partners",
            "stay",
            "--out",
            "x",
            "--concurrency",
            huge,
        ],
        &["--concurrency"],
    );
}

/// One bad value for every numeric flag of every subcommand: a usage error naming the flag.
#[test]
fn every_numeric_flag_is_range_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = ["eval", "--layouts", "cramped_room", "--agents", "stay", "--partners", "stay", "--out", "x"];
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (vec!["play"], "--seat", "2"),
        (vec!["play"], "--episodes", "0"),
        (vec!["play"], "--episodes", "1000001"),
        (vec!["play"], "--seed", "-1"),
        (vec!["play"], "--max-replans", "21"),
        (vec!["play"], "--temperature", "2.5"),
        (vec!["play"], "--temperature", "nan"),
        (vec!["play"], "--top-p", "0"),
        (vec!["play"], "--max-tokens", "0"),
        (vec!["play"], "--max-tokens", "1000001"),
        (vec!["play"], "--connect-timeout", "0"),
        (vec!["play"], "--request-timeout", "inf"),
        (vec!["play"], "--retries", "101"),
        (vec!["play"], "--backoff-ms", "3600001"),
        (vec!["play"], "--backoff-max-ms", "18446744073709551615"),
        (sweep.to_vec(), "--seats", "2"),
        (sweep.to_vec(), "--episodes", "0"),
        (sweep.to_vec(), "--fake-episode-ms", "3600001"),
        (vec!["qa"], "--trials", "0"),
        (vec!["qa"], "--trials", "1001"),
        (vec!["qa"], "--temperature", "3"),
        (vec!["qa"], "--top-p", "1.5"),
        (vec!["qa"], "--max-tokens", "0"),
        (vec!["qa"], "--request-timeout", "0"),
        (vec!["qa"], "--retries", "1000"),
        (vec!["qa"], "--backoff-ms", "99999999999"),
        (vec!["qa", "baseline"], "--samples", "0"),
        (vec!["bench", "qa"], "--latency-ms", "3600001"),
        (vec!["bench", "qa"], "--trials", "0"),
        (vec!["bc", "train", "--layout", "cramped_room", "--split", "train", "--out", "m"], "--epochs", "0"),
        (vec!["bc", "selfplay", "--layout", "cramped_room"], "--episodes", "0"),
        (vec!["bench", "env"], "--steps", "0"),
        (vec!["bench", "controller"], "--episodes", "0"),
        (vec!["bench", "controller"], "--repeats", "0"),
        (vec!["bench", "eval"], "--episodes", "0"),
        (vec!["bench", "eval"], "--episode-ms", "3600001"),
        (vec!["bench", "eval"], "--llm-calls", "100001"),
        (vec!["bench", "eval"], "--mock-latency-ms", "3600001"),
        (vec!["bench", "agent"], "--seat", "2"),
        (vec!["bench", "partners"], "--episodes", "0"),
        (vec!["mock-server"], "--latency-ms", "3600001"),
        (vec!["mock-server"], "--fault-rate", "1.5"),
        (vec!["mock-server"], "--retry-after", "86401"),
        (vec!["mock-server"], "--hang-ms", "3600001"),
        (vec!["chat", "--model", "m", "hi"], "--max-tokens", "0"),
        (vec!["chat", "--model", "m", "hi"], "--retries", "101"),
    ];
    for (cmd, flag, value) in &cases {
        let mut a = cmd.clone();
        let arg = format!("{flag}={value}");
        a.push(&arg);
        refused(d, &a, &[flag]);
    }
    println!("{} out-of-range flags refused", cases.len());
}

fn write_transcript(dir: &Path, name: &str, horizon: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    let out = bin(dir)
        .args(["play", "--horizon", horizon, "--seed", "1", "--json", "--no-wall-clock", "--transcript"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    p
}

/// The transcript `original` with its header's `config` edited by `edit`.
fn with_header(original: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    let mut header: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    edit(&mut header["config"]);
    lines[0] = header.to_string();
    lines.join("\n") + "\n"
}

#[test]
fn every_number_of_a_transcript_header_is_range_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = std::fs::read_to_string(write_transcript(d, "a.jsonl", "30")).unwrap();
    let big = serde_json::json!(18446744073709551615u64);
    type Edit<'a> = Box<dyn Fn(&mut serde_json::Value) + 'a>;
    let cases: Vec<(&str, Edit)> = vec![
        ("config.proagent.memory_k", Box::new(|c| c["proagent"]["memory_k"] = big.clone())),
        ("config.proagent.max_replans", Box::new(|c| c["proagent"]["max_replans"] = serde_json::json!(4000000000u32))),
        ("config.horizon", Box::new(|c| c["horizon"] = serde_json::json!(4294967295u32))),
        ("config.horizon", Box::new(|c| c["horizon"] = serde_json::json!(0))),
        ("config.seat", Box::new(|c| c["seat"] = big.clone())),
        ("config.model.temperature", Box::new(|c| c["model"]["temperature"] = serde_json::json!(1e300))),
        ("config.model.top_p", Box::new(|c| c["model"]["top_p"] = serde_json::json!(-1))),
        ("config.model.max_tokens", Box::new(|c| c["model"]["max_tokens"] = serde_json::json!(0))),
        ("config.model.retries", Box::new(|c| c["model"]["retries"] = serde_json::json!(4000000000u32))),
        ("config.model.backoff_ms", Box::new(|c| c["model"]["backoff_ms"] = big.clone())),
        ("config.model.request_timeout_s", Box::new(|c| c["model"]["request_timeout_s"] = serde_json::json!(-5.0))),
    ];
    for (k, (field, edit)) in cases.iter().enumerate() {
        let name = format!("bad{k}.jsonl");
        std::fs::write(d.join(&name), with_header(&original, edit)).unwrap();
        refused(d, &["replay", &name], &[&format!("{name}:1: {field} is ")]);
    }
    // A recorded layout text that is not a layout, and one far too large, are errors too.
    std::fs::write(
        d.join("lay.jsonl"),
        with_header(&original, |c| c["layout_file"] = serde_json::json!("X".repeat(40))),
    )
    .unwrap();
    refused(d, &["replay", "lay.jsonl"], &["lay.jsonl (recorded layout)"]);
}

#[test]
fn oversized_layouts_are_refused_by_the_parser() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 150 x 150: the all-pairs motion table of this grid was 15 GB.
    let mut rows = vec!["X".repeat(150)];
    rows[0].replace_range(1..5, "PSOD");
    for y in 1..149 {
        let mut r = format!("X{}X", " ".repeat(148));
        if y == 1 {
            r.replace_range(1..3, "12");
        }
        rows.push(r);
    }
    rows.push("X".repeat(150));
    std::fs::write(d.join("big.layout"), rows.join("\n")).unwrap();
    for args in [
        vec!["play", "--layout", "big.layout", "--agent", "stay", "--partner", "stay"],
        vec!["show", "--layout", "big.layout"],
    ] {
        refused(d, &args, &["big.layout:1:1: the grid is 150 wide and 150 high; layouts may be at most 32 x 32"]);
    }
    // The same kitchen at the limit plays (two `stay` partners: nothing is precomputed).
    let small: Vec<String> = rows[..32].iter().map(|r| format!("{}X", &r[..31])).collect();
    let mut small = small;
    small[31] = "X".repeat(32);
    std::fs::write(d.join("edge.layout"), small.join("\n")).unwrap();
    let out = bin(d)
        .args(["play", "--layout", "edge.layout", "--agent", "greedy", "--partner", "stay", "--horizon", "50"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deep = format!("{{'grid': {}{}}}", "[".repeat(30_000), "]".repeat(30_000));
    std::fs::write(d.join("deep.layout"), deep).unwrap();
    refused(d, &["show", "--layout", "deep.layout"], &["deep.layout:1:", "nested more than 32 deep"]);
}

#[test]
fn many_keys_are_checked_for_duplicates_in_linear_time() {
    // 60 000 distinct keys and then a repeat: the old check compared every key with every
    // earlier one (1.8 billion comparisons); a set answers at once.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("layouts/cramped_room.layout")).unwrap();
    let body = base.trim().trim_start_matches('{').trim_end_matches('}').trim().trim_end_matches(',');
    let mut text = String::from("{\n");
    for i in 0..60_000 {
        text.push_str(&format!("'k{i}': 0,\n"));
    }
    text.push_str(body);
    text.push_str(",\n'k7': 1,\n}\n");
    std::fs::write(d.join("keys.layout"), &text).unwrap();
    refused(d, &["show", "--layout", "keys.layout"], &["keys.layout:", "duplicate key `k7`"]);
}

#[test]
fn endless_and_compressed_inputs_stop_at_their_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An endless device is refused as a device before a byte is read (it used to be read as
    // a stream up to the limit); a layout file past the limit is refused from its size.
    if Path::new("/dev/zero").exists() {
        refused(d, &["show", "--layout", "/dev/zero"], &["/dev/zero", "is a character device, not a regular file"]);
        // `play` opens a layout through the file-access policy, which refuses a device before
        // opening it.
        refused(d, &["play", "--layout", "/dev/zero", "--no-transcript"], &["/dev/zero", "not a regular file"]);
    }
    std::fs::write(d.join("big.layout"), vec![b' '; (1 << 20) + 1]).unwrap();
    refused(d, &["show", "--layout", "big.layout"], &["big.layout", "larger than 1 MiB, the limit for layout files"]);
    // A gzip bomb: 300 members of 1 MiB of zeros each (about 300 KB on disk, 300 MiB inside).
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&vec![0u8; 1 << 20]).unwrap();
    let member = enc.finish().unwrap();
    let bomb: Vec<u8> = member.iter().copied().cycle().take(member.len() * 300).collect();
    std::fs::write(d.join("bomb.jsonl.gz"), &bomb).unwrap();
    refused(
        d,
        &["analyze", "bomb.jsonl.gz"],
        &["bomb.jsonl.gz", "larger than 256 MiB, the limit for decompressed trajectory files"],
    );
    std::fs::create_dir(d.join("data")).unwrap();
    std::fs::write(d.join("data/cramped_room_train.jsonl.gz"), &bomb).unwrap();
    refused(
        d,
        &["bc", "eval", "--model", "bc", "--data", "data", "--layout", "cramped_room", "--split", "train"],
        &["cramped_room_train.jsonl.gz", "larger than 256 MiB"],
    );
}

#[test]
fn replay_stops_at_the_first_miss_with_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = std::fs::read_to_string(write_transcript(d, "long.jsonl", "400")).unwrap();
    // A changed switch: every request from the first miss on differs from the recording.
    std::fs::write(
        d.join("switched.jsonl"),
        with_header(&original, |c| {
            // Both copies of the switches: the shared one and the seat's own.
            c["proagent"]["memory_k"] = 3.into();
            for i in 0..2 {
                if c["seats"][i].is_object() {
                    c["seats"][i]["proagent"]["memory_k"] = 3.into();
                }
            }
        }),
    )
    .unwrap();
    let out = bin(d).args(["replay", "switched.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let problems: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(problems.len(), 1, "one problem, the miss: {stdout}");
    assert!(problems[0].contains("replay miss at t=") && problems[0].contains("the re-run stopped there"), "{stdout}");
    // Before, the re-run went on for all 400 steps, failing (and logging) every later request.
    let failed_calls = stderr.matches("model call failed").count();
    assert!(failed_calls <= 2, "{failed_calls} failed calls logged: {stderr}");
    assert!(stdout.len() + stderr.len() < 8_000, "{} bytes of output", stdout.len() + stderr.len());
}

/// Runs `args` in `dir` with a deadline and checks for a prompt input error: exit 2 within
/// 60 seconds (a command that blocks on a FIFO is killed and fails the test instead of
/// hanging it), no panic, and stderr containing every one of `wanted`.
#[cfg(unix)]
fn refused_promptly(dir: &Path, args: &[&str], wanted: &[&str]) -> String {
    use std::time::{Duration, Instant};
    let mut child = bin(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run proagent");
    let t0 = Instant::now();
    loop {
        if child.try_wait().expect("wait for proagent").is_some() {
            break;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not return within 60 s (blocked on a special file?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("collect proagent's output");
    input_error(args, &out, wanted)
}

/// Every input path of the command line is a regular file: a FIFO with no writer (which
/// used to block the open for ever) ends at once in exit 2 naming the path, for model
/// files, layouts, mazes, transcripts, traces, QA data, results, prompts and human-data
/// files.
#[cfg(unix)]
#[test]
fn a_fifo_for_any_input_path_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = |name: &str| -> String {
        let p = d.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        crate::support::mkfifo(&p);
        name.to_string()
    };
    const WHAT: &str = "is a FIFO (named pipe), not a regular file";
    // Model files.
    let m = fifo("m.safetensors");
    for args in [
        &["play", "--partner", &format!("rl:{m}"), "--no-transcript"][..],
        &["play", "--partner", &format!("bc:{m}"), "--no-transcript"],
        &["rl", "eval", "--layout", "cramped_room", "--policy", &m, "--episodes", "1"],
        &["rl", "eval", "--layout", "cramped_room", "--model", &m, "--episodes", "1"],
        &["rl", "eval", "--layout", "cramped_room", "--policy", "sp", "--partner", &format!("rl:{m}")],
        &["bc", "selfplay", "--layout", "cramped_room", "--policy", &format!("bc:{m}"), "--episodes", "1"],
    ] {
        refused_promptly(d, args, &[&m, WHAT]);
    }
    // Layouts and mazes.
    let l = fifo("k.layout");
    refused_promptly(d, &["show", "--layout", &l], &[&l, WHAT]);
    refused_promptly(d, &["play", "--layout", &l, "--no-transcript"], &[&l, WHAT]);
    refused_promptly(d, &["play", "--layout", &format!("v2:{l}"), "--no-transcript"], &[&l, WHAT]);
    let z = fifo("z.maze");
    refused_promptly(d, &["play", "--layout", &z, "--no-transcript"], &[&z, WHAT]);
    // Transcripts, trajectories and traces.
    let t = fifo("run.jsonl");
    for args in [
        &["replay", &t][..],
        &["show", "--transcript", &t],
        &["render", &t, "--out", "x.svg"],
        &["analyze", &t],
        &["verify-trace", &t],
        &["play", "--model", &format!("replay:{t}"), "--no-transcript"],
        &["qa", "--model", &format!("replay:{t}"), "--no-transcript"],
    ] {
        refused_promptly(d, args, &[&t, WHAT]);
    }
    // CoordinationQA data and prompts.
    let q = fifo("q.csv");
    refused_promptly(d, &["qa", "--data", &q, "--model", "oracle", "--no-transcript"], &[&q, WHAT]);
    refused_promptly(d, &["qa", "lint", "--data", &q], &[&q, WHAT]);
    let qp = fifo("qaprompts/system.j2");
    refused_promptly(d, &["qa", "--prompts", "qaprompts", "--model", "oracle", "--no-transcript"], &[&qp, WHAT]);
    let ap = fifo("prompts2/agent/extra.j2");
    refused_promptly(d, &["play", "--prompts", "prompts2", "--no-transcript"], &[&ap, WHAT]);
    // Results: given to `eval report`, and found in an `eval --out` directory.
    let r = fifo("res/results.jsonl");
    refused_promptly(d, &["eval", "report", &r], &[&r, WHAT]);
    refused_promptly(d, &["eval", "report", "res"], &[&r, WHAT]);
    let sweep = vec!["eval", "--layouts", "cramped_room", "--agents", "greedy", "--partners", "greedy", "--out", "res"];
    refused_promptly(d, &sweep, &[&r, WHAT]);
    // Scripts `bench` hands to Python: checked before anything is timed.
    let py = fifo("bench.py");
    for args in [
        vec!["bench", "env", "--game", "hanabi", "--hle", "python3", "--hle-script", &py],
        vec!["bench", "env", "--layout", "v2:cramped_room", "--jaxmarl", "python3", "--jaxmarl-script", &py],
        vec![
            "bench",
            "env",
            "--game",
            "capture",
            "--reference",
            "python3",
            "--reference-src",
            ".",
            "--reference-script",
            &py,
        ],
    ] {
        refused_promptly(d, &args, &[&py, WHAT]);
    }
    // Human data: the demonstration file and its `layouts.json` side file.
    let h = fifo("hd/cramped_room_train.jsonl.gz");
    refused_promptly(d, &["bc", "eval", "--policy", "bc", "--data", &h], &[&h, WHAT]);
    refused_promptly(
        d,
        &["bc", "train", "--layout", "cramped_room", "--split", "train", "--data", "hd", "--out", "o.safetensors"],
        &[&h, WHAT],
    );
    std::fs::write(d.join("hd2.jsonl"), "").unwrap();
    std::fs::create_dir_all(d.join("hd2")).unwrap();
    std::fs::copy(d.join("hd2.jsonl"), d.join("hd2/cramped_room_train.jsonl")).unwrap();
    let side = fifo("hd2/layouts.json");
    refused_promptly(
        d,
        &["bc", "train", "--layout", "cramped_room", "--split", "train", "--data", "hd2", "--out", "o.safetensors"],
        &[&side, WHAT],
    );
}

/// A device is not a file either: `/dev/null` and `/dev/zero` are refused by name before a
/// byte is read (they used to be read as an empty file or an endless stream).
#[cfg(unix)]
#[test]
fn a_device_for_an_input_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    const WHAT: &str = "is a character device, not a regular file";
    for dev in ["/dev/null", "/dev/zero"] {
        if !Path::new(dev).exists() {
            continue;
        }
        for args in [
            &["play", "--partner", &format!("rl:{dev}"), "--no-transcript"][..],
            &["play", "--partner", &format!("bc:{dev}"), "--no-transcript"],
            &["rl", "eval", "--layout", "cramped_room", "--policy", dev, "--episodes", "1"],
            &["show", "--layout", dev],
            &["replay", dev],
            &["verify-trace", dev],
            &["qa", "lint", "--data", dev],
            &["eval", "report", dev],
        ] {
            refused_promptly(d, args, &[dev, WHAT]);
        }
    }
}
