//! The `proagent serve` HTTP API, endpoint by endpoint, on an in-process server bound to
//! loopback: the page, files, episodes of every kind (and bad files: a clear error, never
//! a crash), board pictures, eval directories, and human games (several at once).

use proagent::env::trace::{Trajectory, verify};
use proagent::env::{Action, Layout};
use proagent::partners::bc::data::{parse as parse_demo, step_line};
use proagent::runner::files::{EpisodeKind, read_episode_file};
use proagent::runner::seats::ProAgentSeat;
use proagent::transcript::Scrubber;
use proagent_web::guard::TOKEN_HEADER;
use proagent_web::play::{GameModel, PlayConfig, PlayLimits};
use proagent_web::{ServeConfig, ServeLimits, serve};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/transcripts/committed");

struct Server {
    base: String,
    http: reqwest::Client,
    dir: tempfile::TempDir,
    token: String,
}

/// The token the page of a server start carries.
async fn page_token(http: &reqwest::Client, base: &str) -> String {
    let html = http.get(format!("{base}/")).send().await.unwrap().text().await.unwrap();
    let at = html.find("name=\"proagent-token\" content=\"").expect("the page carries the token") + 31;
    html[at..at + 32].to_string()
}

impl Server {
    async fn start(max_running: usize) -> Server {
        Server::start_with(max_running, ServeLimits::default()).await
    }

    async fn start_with(max_running: usize, limits: ServeLimits) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let files = dir.path().join("files");
        std::fs::create_dir_all(&files).unwrap();
        let cfg = ServeConfig {
            roots: vec![PathBuf::from(COMMITTED), files],
            play: PlayConfig {
                games_dir: dir.path().join("games"),
                models: vec![GameModel { name: "scripted".into(), seat: ProAgentSeat::new("scripted") }],
                scrubber: Scrubber::new(),
                limits: PlayLimits { max_running, idle: Duration::from_secs(30), default_step_ms: 154 },
            },
            limits,
            allow_hosts: Vec::new(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(serve(listener, cfg, std::future::pending()));
        proagent::llm::http::install_tls_provider();
        let http = reqwest::Client::new();
        let token = page_token(&http, &base).await;
        Server { base, http, dir, token }
    }

    fn file(&self, name: &str, text: &str) -> String {
        let p = self.dir.path().join("files").join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    async fn get(&self, path: &str) -> (u16, String, String) {
        let r = self.http.get(format!("{}{path}", self.base)).header(TOKEN_HEADER, &self.token).send().await.unwrap();
        let status = r.status().as_u16();
        let ct = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        (status, ct, r.text().await.unwrap())
    }

    async fn get_json(&self, path: &str) -> (u16, Value) {
        let (s, _, body) = self.get(path).await;
        (s, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}")))
    }

    /// A POST as the page sends it: the token, and the endpoint's content type.
    async fn post(&self, path: &str, body: impl Into<reqwest::Body>) -> (u16, Value) {
        let ct = if path.starts_with("/api/upload") { "application/octet-stream" } else { "application/json" };
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .header(TOKEN_HEADER, &self.token)
            .header("content-type", ct)
            .body(body)
            .send()
            .await
            .unwrap();
        let s = r.status().as_u16();
        let text = r.text().await.unwrap();
        (s, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {text}")))
    }

    /// `GET /api/episode` for a path, URL-encoded.
    async fn episode(&self, path: &str, index: usize) -> (u16, Value) {
        let q = reqwest::Url::parse_with_params("http://x/", &[("path", path), ("index", &index.to_string())]).unwrap();
        self.get_json(&format!("/api/episode?{}", q.query().unwrap())).await
    }
}

fn err(v: &Value) -> &str {
    v["error"].as_str().unwrap_or_else(|| panic!("no error message in {v}"))
}

fn committed(name: &str) -> String {
    format!("{COMMITTED}/{name}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_assets_are_embedded() {
    let s = Server::start(4).await;
    let (st, ct, html) = s.get("/").await;
    assert_eq!((st, ct.as_str()), (200, "text/html; charset=utf-8"));
    assert!(html.contains("<script src=\"/app.js\">") && !html.contains("http://") && !html.contains("https://"));
    let (st, ct, js) = s.get("/app.js").await;
    assert_eq!(st, 200);
    assert!(ct.starts_with("text/javascript") && js.contains("/api/episode"), "{ct}");
    let (st, ct, _) = s.get("/app.css").await;
    assert!(st == 200 && ct.starts_with("text/css"));
    let (st, v) = s.get_json("/nope").await;
    assert_eq!(st, 404);
    assert!(err(&v).contains("no such page"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_lists_the_roots_and_only_they_can_be_opened() {
    let s = Server::start(4).await;
    s.file("a.jsonl", "{}\n");
    let (st, v) = s.get_json("/api/files").await;
    assert_eq!(st, 200);
    let roots = v["roots"].as_array().unwrap();
    assert_eq!(roots.len(), 3, "committed, files, games: {v}");
    let entries: Vec<&str> =
        roots[0]["entries"].as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert!(entries.iter().any(|p| p.ends_with("cramped_room.jsonl")), "{entries:?}");
    // Outside the roots: refused, with a reason.
    let outside = format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
    let (st, v) = s.episode(&outside, 0).await;
    assert_eq!(st, 403);
    assert!(err(&v).contains("not a file this server may open"), "{v}");
    let (st, v) = s.episode(&format!("{COMMITTED}/../../Cargo.toml"), 0).await;
    assert_eq!(st, 403, "{v}");
    // A missing path gets the answer a forbidden one gets: a page cannot tell which exist.
    let missing = committed("missing.jsonl");
    let (st, w) = s.episode(&missing, 0).await;
    assert_eq!(st, 403);
    assert_eq!(err(&w).replace(&missing, "P"), err(&v).replace(&format!("{COMMITTED}/../../Cargo.toml"), "P"));
    let (st, v) = s.episode("", 0).await;
    assert_eq!((st, err(&v)), (400, "path: missing"));
    let (st, v) = s.episode(COMMITTED, 0).await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("a directory"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_json_carries_a_reasoning_models_text_for_both_agents() {
    let s = Server::start(4).await;
    // Transcripts recorded against the mock with its reasoning text in `reasoning_content`
    // (`field`) and in a `<think>` block (`think`), by ProAgent and by LLM-Co.
    for mode in ["field", "think"] {
        let m = crate::support::Mock::start(&["--reasoning", mode]);
        for agent in ["proagent", "llmco"] {
            let path = s.dir.path().join("files").join(format!("{agent}-{mode}.jsonl"));
            let extra = ["--horizon", "6", "--transcript", path.to_str().unwrap()];
            let out =
                tokio::task::block_in_place(|| crate::reasoning::play(&m, "cramped_room", agent, "gpt-4o", &extra));
            assert!(out.status.success(), "{agent} {mode}: {}", String::from_utf8_lossy(&out.stderr));
            let (st, v) = s.episode(path.to_str().unwrap(), 0).await;
            assert_eq!(st, 200, "{v}");
            let exchanges: Vec<&Value> =
                v["events"].as_array().unwrap().iter().filter(|e| e["type"] == "exchange").collect();
            assert!(!exchanges.is_empty(), "{agent} {mode}: {v}");
            for e in exchanges {
                assert_eq!(e["reasoning"], proagent_mock::REASONING_TEXT, "{agent} {mode}: {e}");
                assert!(!e["reply"].as_str().unwrap().contains("A first idea"), "kept apart from the reply: {e}");
            }
        }
    }
    // A chat model's transcript carries none.
    let (_, v) = s.episode(&committed("cramped_room.jsonl"), 0).await;
    let events = v["events"].as_array().unwrap();
    assert!(events.iter().filter(|e| e["type"] == "exchange").all(|e| e["reasoning"].is_null()), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transcript_shows_what_the_model_thought_at_each_step() {
    let s = Server::start(4).await;
    let path = committed("cramped_room.jsonl");
    let (st, v) = s.episode(&path, 0).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["kind"], "transcript");
    assert_eq!(v["frames"], 61);
    assert_eq!(v["agents"], json!(["proagent", "greedy"]));
    assert_eq!(v["score"][60], 20);
    assert_eq!(v["summary"]["score"], 20);
    let events = v["events"].as_array().unwrap();
    let plan12 = events.iter().find(|e| e["type"] == "exchange" && e["t"] == 12).unwrap();
    assert_eq!(plan12["plan"], "fill_dish_with_soup()");
    assert_eq!(plan12["intention"], "pickup(onion)");
    assert!(plan12["analysis"].as_str().unwrap().contains("<Pot 0> is cooking (18 timesteps left)"));
    assert_eq!(plan12["prompt"].as_array().unwrap().len(), 2, "system and user messages");
    assert!(events.iter().any(|e| e["type"] == "skill" && e["outcome"] == "succeeded" && e["t"] == 12));
    assert!(events.iter().any(|e| e["type"] == "belief" && e["correct"] == true));
    // The board of a frame, and its errors.
    let id = v["id"].as_str().unwrap();
    let (st, ct, svg) = s.get(&format!("/api/board/{id}/12")).await;
    assert_eq!((st, ct.as_str()), (200, "image/svg+xml"));
    assert!(svg.starts_with("<svg") && svg.contains("width=\"240\""), "{}", &svg[..80]);
    let (_, _, with_status) = s.get(&format!("/api/board/{id}/12?status=1&cell=20")).await;
    assert!(with_status.contains("width=\"100\"") && with_status != svg);
    let (st, v) = s.get_json(&format!("/api/board/{id}/61")).await;
    assert_eq!(st, 404);
    assert!(err(&v).contains("frames 0..=60"));
    let (st, v) = s.get_json(&format!("/api/board/{id}/x")).await;
    assert_eq!(st, 400, "{v}");
    let (st, v) = s.get_json(&format!("/api/board/{id}/1?cell=9999")).await;
    assert_eq!(st, 400);
    assert!(err(&v).starts_with("cell:"));
    let (st, v) = s.get_json("/api/board/e999/0").await;
    assert_eq!(st, 404);
    assert!(err(&v).contains("not open"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trajectories_and_human_games_open_with_their_hand_overs() {
    let s = Server::start(4).await;
    // A trajectory of our own (reference-trace schema); the courier hands onions over the
    // counter in forced coordination.
    let out = crate::support::bin()
        .args(["play", "--layout", "forced_coordination", "--agent", "scripted", "--partner", "courier"])
        .args(["--horizon", "120", "--episodes", "2", "--trajectory"])
        .arg(s.dir.path().join("files/fc.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fc = s.dir.path().join("files/fc.jsonl").display().to_string();
    let (st, v) = s.episode(&fc, 1).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        (v["kind"].as_str(), v["count"].as_u64(), v["index"].as_u64()),
        (Some("reference trace"), Some(2), Some(1))
    );
    assert_eq!(v["frames"], 121);
    let handovers = v["handovers"].as_array().unwrap();
    assert!(!handovers.is_empty(), "the courier hands onions over the counter");
    assert!(handovers[0]["at"].is_array());
    let (st, v) = s.episode(&fc, 2).await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("episode 2 does not exist (the file holds 2)"), "{v}");

    // A human-game file in the 2019 schema.
    let l = Layout::builtin("cramped_room").unwrap();
    let mut st0 = l.start_state();
    let mut lines = String::new();
    for (t, joint) in
        [[Action::West, Action::East], [Action::North, Action::Interact], [Action::Interact, Action::Stay]]
            .into_iter()
            .enumerate()
    {
        lines.push_str(&step_line("trial-a", &l, &st0, joint, 0, 0));
        lines.push('\n');
        l.step(&mut st0, joint);
        assert_eq!(st0.timestep as usize, t + 1);
    }
    let hg = s.file("hg.jsonl", &lines);
    let (st, v) = s.episode(&hg, 0).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        (v["kind"].as_str(), v["frames"].as_u64(), v["name"].as_str()),
        (Some("human games"), Some(4), Some("trial-a"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_files_get_a_clear_error_and_the_server_goes_on() {
    let s = Server::start(4).await;
    let transcript = std::fs::read_to_string(committed("cramped_room.jsonl")).unwrap();
    let mut half = transcript.len() / 2;
    while !transcript.is_char_boundary(half) {
        half += 1;
    }
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty.jsonl", String::new(), "the file is empty"),
        ("garbage.jsonl", "hello\n".into(), "line 1"),
        ("other.jsonl", "{\"a\": 1}\n".into(), "unrecognised record"),
        ("torn.jsonl", transcript[..half].to_string(), "truncated record"),
        (
            "cheat.jsonl",
            transcript.replace(r#""joint":["I","W"],"reward":20"#, r#""joint":["S","W"],"reward":20"#),
            "records reward 20, but the simulator gives 0",
        ),
        ("badjson.jsonl", transcript.replacen("\"type\":\"step\"", "\"type\":\"stp\"", 1), ":"),
    ];
    for (name, text, want) in &cases {
        let p = s.file(name, text);
        let (st, v) = s.episode(&p, 0).await;
        assert_eq!(st, 400, "{name}: {v}");
        let e = err(&v);
        assert!(e.contains(name) && e.contains(want), "{name}: {e}");
    }
    let p = s.dir.path().join("files/bin.jsonl");
    std::fs::write(&p, [b'{', 0xff, 0xfe, b'\n']).unwrap();
    let (st, v) = s.episode(&p.display().to_string(), 0).await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("not valid UTF-8"), "{v}");
    // Uploads: the same file reader, named by the upload's name.
    let (st, v) = s.post("/api/upload?name=mine.jsonl", transcript.clone()).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["source"], "mine.jsonl");
    let (st, v) = s.post("/api/upload?name=junk.jsonl", "not json").await;
    assert_eq!(st, 400);
    assert!(err(&v).starts_with("junk.jsonl: "), "{v}");
    // Still serving.
    let (st, _) = s.episode(&committed("counter_circuit.jsonl"), 0).await;
    assert_eq!(st, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eval_directories_list_episodes_by_cell_with_kept_trajectories() {
    let s = Server::start(4).await;
    let out_dir = s.dir.path().join("files/sweep");
    let out = crate::support::bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "proagent,scripted", "--partners", "greedy"])
        .args(["--seats", "0", "--episodes", "2", "--horizon", "30", "--quiet", "--no-report", "--keep-trajectories"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (st, files) = s.get_json("/api/files").await;
    assert_eq!(st, 200);
    assert!(files.to_string().contains("\"kind\":\"eval\""), "{files}");
    let q = reqwest::Url::parse_with_params("http://x/", &[("path", out_dir.display().to_string())]).unwrap();
    let (st, v) = s.get_json(&format!("/api/eval?{}", q.query().unwrap())).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["records"], 4);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for c in cells {
        let eps = c["episodes"].as_array().unwrap();
        assert_eq!(eps.len(), 2);
        let traj = eps[0]["trajectory"].as_str().expect("trajectory kept");
        let t: Trajectory = serde_json::from_str(std::fs::read_to_string(traj).unwrap().trim()).unwrap();
        assert!(verify(&t).unwrap().passed);
        let with_transcript = c["agent"].as_str().is_some_and(|a| a.starts_with("proagent"));
        assert_eq!(eps[0]["transcript"].is_string(), with_transcript, "{c}");
        let open = eps[0]["transcript"].as_str().unwrap_or(traj);
        let (st, ep) = s.episode(open, 0).await;
        assert_eq!(st, 200, "{ep}");
        assert_eq!(ep["frames"], 31);
    }
    // Not eval directories.
    let q = reqwest::Url::parse_with_params("http://x/", &[("path", COMMITTED)]).unwrap();
    let (st, v) = s.get_json(&format!("/api/eval?{}", q.query().unwrap())).await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("no results.jsonl here"), "{v}");
    let q = reqwest::Url::parse_with_params("http://x/", &[("path", committed("cramped_room.jsonl"))]).unwrap();
    let (st, _) = s.get_json(&format!("/api/eval?{}", q.query().unwrap())).await;
    assert_eq!(st, 400);
}

/// A results line whose checksum was removed (its score edited) is listed, marked, but left
/// out of the cell's mean unless the request asks for it; the answer says how many.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eval_directories_average_only_records_with_a_checksum() {
    let s = Server::start(4).await;
    let out_dir = s.dir.path().join("files/fake");
    let out = crate::support::bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "scripted", "--partners", "greedy"])
        .args(["--seats", "0", "--episodes", "3", "--fake-episode-ms", "0", "--quiet", "--no-report"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = out_dir.join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3);
    let score = |l: &str| serde_json::from_str::<Value>(l).unwrap()["score"].as_f64().unwrap();
    let checked: Vec<f64> = lines[1..].iter().map(|l| score(l)).collect();
    let mut edited: Value = serde_json::from_str(&lines[0]).unwrap();
    edited.as_object_mut().unwrap().remove("checksum");
    edited["score"] = json!(10_000.0);
    lines[0] = edited.to_string();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let ask = |include: Option<&str>| {
        let mut params = vec![("path", out_dir.display().to_string())];
        if let Some(i) = include {
            params.push(("include_unchecked", i.to_string()));
        }
        let q = reqwest::Url::parse_with_params("http://x/", &params).unwrap();
        format!("/api/eval?{}", q.query().unwrap())
    };
    let (st, v) = s.get_json(&ask(None)).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!((v["records"].as_u64(), &v["unchecked"]), (Some(3), &json!({"excluded": 1, "included": 0})), "{v}");
    let cell = &v["cells"][0];
    assert_eq!((cell["mean_of"].as_u64(), cell["unchecked"].as_u64()), (Some(2), Some(1)), "{cell}");
    assert_eq!(cell["mean_score"].as_f64(), Some((checked[0] + checked[1]) / 2.0), "{cell}");
    let marks: Vec<bool> = cell["episodes"].as_array().unwrap().iter().map(|e| e["checked"] == true).collect();
    assert_eq!(marks.iter().filter(|c| !**c).count(), 1, "{cell}");
    let (st, v) = s.get_json(&ask(Some("true"))).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["unchecked"], json!({"excluded": 0, "included": 1}), "{v}");
    let cell = &v["cells"][0];
    assert_eq!(cell["mean_of"].as_u64(), Some(3), "{cell}");
    assert_eq!(cell["mean_score"].as_f64(), Some((checked[0] + checked[1] + 10_000.0) / 3.0), "{cell}");
    // A cell of unchecked records only has no mean.
    let only: String = format!("{}\n", lines[0]);
    std::fs::write(&path, only).unwrap();
    let (st, v) = s.get_json(&ask(None)).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!((v["cells"][0]["mean_score"].is_null(), v["cells"][0]["mean_of"].as_u64()), (true, Some(0)), "{v}");
}

async fn wait_done(s: &Server, id: &str) -> Value {
    for _ in 0..400 {
        let (st, v) = s.get_json(&format!("/api/play/{id}")).await;
        assert_eq!(st, 200, "{v}");
        if v["done"] == true {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("game {id} did not end");
}

async fn wait_t(s: &Server, id: &str, t: u64) {
    for _ in 0..400 {
        let (_, v) = s.get_json(&format!("/api/play/{id}")).await;
        if v["t"].as_u64() >= Some(t) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("game {id} did not reach t = {t}");
}

fn check_saved_game(files: &Value, steps: usize, transcript: bool) {
    let traj = files["trajectory"].as_str().unwrap();
    let t: Trajectory = serde_json::from_str(std::fs::read_to_string(traj).unwrap().trim()).unwrap();
    let report = verify(&t).unwrap();
    assert!(report.passed, "{report:?}");
    assert_eq!(t.steps.len(), steps);
    let human = files["human"].as_str().unwrap();
    let f = read_episode_file(Path::new(human)).unwrap();
    assert_eq!(f.kind, EpisodeKind::HumanGames);
    assert_eq!(f.episodes[0].steps(), steps);
    let demo = parse_demo(&std::fs::read_to_string(human).unwrap(), &Layout::builtin(&t.layout).unwrap()).unwrap();
    assert_eq!(demo.len(), steps, "bc train reads every step");
    assert_eq!(files["transcript"].is_string(), transcript);
    if transcript {
        let f = read_episode_file(Path::new(files["transcript"].as_str().unwrap())).unwrap();
        assert_eq!(f.episodes[0].steps(), steps);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn human_games_turn_based_real_time_and_several_at_once() {
    let s = Server::start(2).await;
    let (st, o) = s.get_json("/api/play/options").await;
    assert_eq!(st, 200);
    assert_eq!(o["step_ms"], 154);
    assert!(o["partners"].as_array().unwrap().iter().any(|p| p == "proagent"));
    assert!(o["partners"].as_array().unwrap().iter().any(|p| p == "sp"));
    assert_eq!(o["models"], json!(["scripted"]));
    // Every offered layout comes with its game, as the catalog reads it.
    for l in o["layouts"].as_array().unwrap() {
        let kind = proagent::games::catalog::entry_for(l.as_str().unwrap()).unwrap().kind;
        assert_eq!(o["layout_games"][l.as_str().unwrap()], kind, "{l}");
    }
    assert_eq!(o["layout_games"]["v2:two_rooms"], "overcooked_v2");
    // Bad requests name the field.
    for (body, want) in [
        (json!({"human_seat": 2}), "human_seat: must be 0 or 1"),
        (json!({"horizon": 0}), "horizon: must be"),
        (json!({"step_ms": 1}), "step_ms: must be"),
        (json!({"partner": "wizard"}), "partner: unknown agent \"wizard\""),
        (json!({"partner": "proagent", "model": "gpt-9"}), "model: unknown model"),
        (json!({"layout": "atlantis"}), "layout: not a built-in layout"),
        (json!({"speed": 3}), "unknown field `speed`"),
    ] {
        let (st, v) = s.post("/api/play", body.to_string()).await;
        // An unknown layout name is answered like a file the server may not open.
        let status = if want.starts_with("layout: not a built-in") { 403 } else { 400 };
        assert_eq!(st, status, "{body}: {v}");
        assert!(err(&v).contains(want), "{body}: {v}");
    }
    let (st, v) = s.post("/api/play", "{").await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("not valid"));

    // Two games at once: a turn-based one against ProAgent (scripted model), a real-time
    // one against the shipped self-play PPO partner; separate ids and states.
    let tb =
        json!({"layout": "cramped_room", "partner": "proagent", "turn_based": true, "horizon": 6, "human_seat": 1});
    let (st, a) = s.post("/api/play", tb.to_string()).await;
    assert_eq!(st, 200, "{a}");
    let rt = json!({"layout": "coordination_ring", "partner": "sp", "step_ms": 30, "horizon": 2000});
    let (st, b) = s.post("/api/play", rt.to_string()).await;
    assert_eq!(st, 200, "{b}");
    let (ida, idb) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    assert_ne!(ida, idb);
    assert!(a["svg"].as_str().unwrap().starts_with("<svg"));
    // The person's legal moves come with the state (the page shows them as buttons for games
    // not played with the arrow keys).
    assert_eq!(a["game"], "overcooked");
    let moves: Vec<&str> = a["moves"].as_array().unwrap().iter().map(|m| m["token"].as_str().unwrap()).collect();
    assert!(moves.contains(&"N") && moves.contains(&"I"), "{moves:?}");
    // A third is too many for this server.
    let (st, v) = s.post("/api/play", json!({"turn_based": true}).to_string()).await;
    assert_eq!(st, 429, "{v}");

    let (st, v) = s.post(&format!("/api/play/{ida}/key"), json!({"action": "jump"}).to_string()).await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("unknown action \"jump\""));
    let (st, _) = s.post("/api/play/nope/key", json!({"action": "N"}).to_string()).await;
    assert_eq!(st, 404);
    let (st, _) = s.get_json("/api/play/nope").await;
    assert_eq!(st, 404);
    // Turn-based: nothing moves without a key; each key is one step.
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(s.get_json(&format!("/api/play/{ida}")).await.1["t"], 0);
    for (k, key) in ["W", "N", "I", "E", "X", "I"].iter().enumerate() {
        let (st, _) = s.post(&format!("/api/play/{ida}/key"), json!({"action": key}).to_string()).await;
        assert_eq!(st, 200);
        wait_t(&s, ida, k as u64 + 1).await;
    }
    let done = wait_done(&s, ida).await;
    assert_eq!(done["t"], 6);
    assert_eq!(done["partner"], "proagent[scripted]");
    check_saved_game(&done["files"], 6, true);
    // The game's transcript re-runs exactly with `replay` (the human's keys take their seat).
    let out = crate::support::bin().arg("replay").arg(done["files"]["transcript"].as_str().unwrap()).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));

    // Real time: it moves by itself; stop ends it and saves what was played.
    wait_t(&s, idb, 5).await;
    let (st, _) = s.post(&format!("/api/play/{idb}/stop"), "").await;
    assert_eq!(st, 200);
    let done = wait_done(&s, idb).await;
    let t = done["t"].as_u64().unwrap() as usize;
    assert!((5..2000).contains(&t), "{t}");
    check_saved_game(&done["files"], t, false);
    // Both finished: a new game may start.
    let (st, _) = s.post("/api/play", json!({"turn_based": true, "horizon": 1}).to_string()).await;
    assert_eq!(st, 200);
}

/// Runs `proagent ARGS` and checks it succeeded.
fn run_ok(args: &[&str]) {
    let out = crate::support::bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v2_transcripts_trajectories_and_eval_directories_open_and_draw() {
    let s = Server::start(4).await;
    let files = s.dir.path().join("files");
    let (t, traj) = (files.join("v2t.jsonl"), files.join("v2traj.jsonl"));
    run_ok(&[
        "play",
        "--layout",
        "v2:grounded_coord_simple",
        "--agent",
        "proagent",
        "--partner",
        "scripted",
        "--view-radius",
        "2",
        "--horizon",
        "40",
        "--seed",
        "1",
        "--transcript",
        t.to_str().unwrap(),
        "--trajectory",
        traj.to_str().unwrap(),
    ]);
    let (st, v) = s.episode(t.to_str().unwrap(), 0).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!((v["kind"].as_str(), v["game"].as_str()), (Some("transcript"), Some("overcooked_v2")));
    assert_eq!((v["frames"].as_u64(), v["players"].as_u64()), (Some(41), Some(2)));
    assert_eq!(v["layout"]["name"], "v2:grounded_coord_simple");
    assert_eq!(v["agents"], json!(["proagent[rule-based]", "scripted"]));
    assert_eq!(v["partial_view"], true, "played with a view radius");
    assert!(v["captions"][0].as_str().unwrap().starts_with("recipe: "), "{}", v["captions"]);
    assert!(
        v["teamwork"]["correct_dishes"].is_u64() && v["teamwork_line"].as_str().unwrap().contains("button presses")
    );
    let events = v["events"].as_array().unwrap();
    let plan = events.iter().find(|e| e["type"] == "exchange" && e["kind"] == "planner").expect("a planner exchange");
    assert!(plan["plan"].is_string() && plan["analysis"].is_string(), "{plan}");
    assert!(events.iter().any(|e| e["type"] == "skill"));
    // Frames: plain, with the status rows, with player 0's view shaded; bad views refused.
    let id = v["id"].as_str().unwrap();
    let (st, ct, plain) = s.get(&format!("/api/board/{id}/10?cell=20")).await;
    assert_eq!((st, ct.as_str()), (200, "image/svg+xml"));
    assert!(plain.contains("width=\"160\"") && plain.contains("height=\"100\""), "{}", &plain[..120]);
    let (_, _, status) = s.get(&format!("/api/board/{id}/10?cell=20&status=1")).await;
    assert!(status.contains("height=\"120\""), "two status rows");
    let (_, _, viewed) = s.get(&format!("/api/board/{id}/10?cell=20&view=0")).await;
    assert!(viewed != plain && viewed.contains("opacity=\"0.45\""));
    let (st, e) = s.get_json(&format!("/api/board/{id}/10?view=2")).await;
    assert_eq!(st, 400);
    assert!(err(&e).contains("view: player 2 does not exist"), "{e}");
    // The trajectory of the same episode: the same frames and score.
    let (st, w) = s.episode(traj.to_str().unwrap(), 0).await;
    assert_eq!(st, 200, "{w}");
    assert_eq!((w["kind"].as_str(), w["game"].as_str()), (Some("trajectory"), Some("overcooked_v2")));
    assert_eq!((&w["frames"], &w["score"], &w["joint"]), (&v["frames"], &v["score"], &v["joint"]));
    let wid = w["id"].as_str().unwrap();
    assert_eq!(s.get(&format!("/api/board/{wid}/10?cell=20")).await.2, plain, "drawn alike");
    // An upload of the transcript opens the same way.
    let (st, u) = s.post("/api/upload?name=mine.jsonl", std::fs::read(&t).unwrap()).await;
    assert_eq!(st, 200, "{u}");
    assert_eq!((u["game"].as_str(), u["frames"].as_u64()), (Some("overcooked_v2"), Some(41)));
    // A tampered V2 transcript: a clear error naming the step.
    let text = std::fs::read_to_string(&t).unwrap().replacen("\"reward\":0", "\"reward\":20", 1);
    let bad = s.file("bad-v2.jsonl", &text);
    let (st, e) = s.episode(&bad, 0).await;
    assert_eq!(st, 400);
    assert!(err(&e).contains("bad-v2.jsonl: step t = 0 records reward 20"), "{e}");

    // Hand-overs over the counter of two_rooms are marked, in an eval directory's kept trajectory.
    let sweep = files.join("sweep");
    run_ok(&[
        "eval",
        "--layouts",
        "v2:two_rooms",
        "--agents",
        "scripted",
        "--partners",
        "scripted",
        "--seats",
        "0",
        "--episodes",
        "1",
        "--horizon",
        "120",
        "--quiet",
        "--no-report",
        "--keep-trajectories",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    let q = reqwest::Url::parse_with_params("http://x/", &[("path", sweep.display().to_string())]).unwrap();
    let (st, ev) = s.get_json(&format!("/api/eval?{}", q.query().unwrap())).await;
    assert_eq!(st, 200, "{ev}");
    let ep = &ev["cells"][0]["episodes"][0];
    assert_eq!(ev["cells"][0]["layout"], "v2:two_rooms");
    let (st, h) = s.episode(ep["trajectory"].as_str().expect("kept"), 0).await;
    assert_eq!(st, 200, "{h}");
    assert_eq!(h["score"].as_array().unwrap().last().and_then(Value::as_f64), ep["score"].as_f64());
    let handovers = h["handovers"].as_array().unwrap();
    assert!(!handovers.is_empty(), "two_rooms is played over the middle counter: {}", h["teamwork"]);
    let first = &handovers[0];
    assert!(first["at"].is_array() && first["giver"] != first["receiver"], "{first}");
    // Its counter is outlined on the board while the item lies there.
    let hid = h["id"].as_str().unwrap();
    let f = first["t_receive"].as_u64().unwrap();
    let (_, _, marked) = s.get(&format!("/api/board/{hid}/{f}")).await;
    assert!(
        marked.contains("#D81B60")
            || marked.contains("#d81b60")
            || marked.contains("#F09ABB")
            || marked.contains("#f09abb")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_v2_layouts_against_v2_seats() {
    let s = Server::start(4).await;
    let (_, o) = s.get_json("/api/play/options").await;
    let layouts = o["layouts"].as_array().unwrap();
    assert!(layouts.iter().any(|l| l == "cramped_room") && layouts.iter().any(|l| l == "v2:two_rooms"));
    assert!(o["partners_by_game"]["overcooked_v2"].as_array().unwrap().iter().any(|p| p == "scripted"));
    for (body, want) in [
        (json!({"layout": "v2:atlantis"}), "layout: not a built-in layout"),
        (json!({"layout": "v2:two_rooms", "partner": "greedy"}), "partner: unknown agent \"greedy\" for v2:two_rooms"),
        (json!({"layout": "v2:long_room", "human_seat": 1}), "human_seat: must be 0, not 1"),
        (json!({"layout": "v2:two_rooms", "v2": {"view_radius": 2, "fog": true}}), "unknown field `fog`"),
    ] {
        let (st, v) = s.post("/api/play", body.to_string()).await;
        // An unknown layout name is answered like a file the server may not open.
        let status = if want.starts_with("layout: not a built-in") { 403 } else { 400 };
        assert_eq!(st, status, "{body}: {v}");
        assert!(err(&v).contains(want), "{body}: {v}");
    }
    // Turn-based against the V2 ProAgent (its built-in scripted model), with a view radius:
    // the person's board hides what their player cannot see.
    let req = json!({
        "layout": "v2:two_rooms", "partner": "proagent", "turn_based": true, "horizon": 6, "human_seat": 0,
        "seed": 2, "v2": {"view_radius": 1},
    });
    let (st, g) = s.post("/api/play", req.to_string()).await;
    assert_eq!(st, 200, "{g}");
    assert_eq!((g["layout"].as_str(), g["players"].as_u64()), (Some("v2:two_rooms"), Some(2)));
    assert!(g["svg"].as_str().unwrap().contains("fill=\"#10141C\"") || g["svg"].as_str().unwrap().contains("#10141c"));
    let id = g["id"].as_str().unwrap();
    let (st, v) = s.post(&format!("/api/play/{id}/key"), json!({"action": "jump"}).to_string()).await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("unknown action \"jump\""));
    for (k, key) in ["N", "E", "I", "w", "X", "S"].iter().enumerate() {
        let (st, _) = s.post(&format!("/api/play/{id}/key"), json!({"action": key}).to_string()).await;
        assert_eq!(st, 200);
        wait_t(&s, id, k as u64 + 1).await;
    }
    let done = wait_done(&s, id).await;
    assert_eq!((done["t"].as_u64(), done["partner"].as_str()), (Some(6), Some("proagent[scripted]")));
    assert!(done["error"].is_null(), "{done}");
    let files = &done["files"];
    assert!(files["human"].is_null(), "V2 has no human-data schema");
    let traj = files["trajectory"].as_str().unwrap();
    let f = read_episode_file(Path::new(traj)).unwrap();
    assert_eq!((f.kind, f.episodes[0].steps()), (EpisodeKind::Trajectory, 6));
    let v: Value = serde_json::from_str(std::fs::read_to_string(traj).unwrap().trim()).unwrap();
    assert_eq!(v["policy"]["human_seat"], 0);
    assert_eq!(v["steps"][0]["actions"][0], "N");
    assert_eq!(v["steps"][3]["actions"][0], "W", "a lower-case key is read");
    assert_eq!(v["settings"]["view_radius"], 1);
    let transcript = files["transcript"].as_str().unwrap();
    let f = read_episode_file(Path::new(transcript)).unwrap();
    assert_eq!(f.episodes[0].steps(), 6);
    // It opens in the viewer, and re-runs exactly with `replay` (the person's keys take their seat).
    let (st, ep) = s.episode(transcript, 0).await;
    assert_eq!(st, 200, "{ep}");
    assert_eq!(ep["agents"], json!(["human", "proagent[scripted]"]));
    let out = crate::support::bin().arg("replay").arg(transcript).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));

    // Real time, stopped after a few steps: saved as played. Against the scripted cook, and
    // against the ProAgent with the game going on while it thinks (`proceed`).
    for (partner, llm) in [("scripted", "wait"), ("proagent", "proceed")] {
        let req = json!({
            "layout": "v2:cramped_room_v2", "partner": partner, "llm": llm, "step_ms": 30, "horizon": 2000,
            "human_seat": 1,
        });
        let (st, g) = s.post("/api/play", req.to_string()).await;
        assert_eq!(st, 200, "{g}");
        let id = g["id"].as_str().unwrap();
        wait_t(&s, id, 5).await;
        s.post(&format!("/api/play/{id}/stop"), "").await;
        let done = wait_done(&s, id).await;
        assert!(done["partner"].as_str().unwrap().starts_with(partner), "{done}");
        assert!(done["error"].is_null(), "stopped by the person: {done}");
        let t = done["t"].as_u64().unwrap() as usize;
        let f = read_episode_file(Path::new(done["files"]["trajectory"].as_str().unwrap())).unwrap();
        assert_eq!(f.episodes[0].steps(), t);
        match done["files"]["transcript"].as_str() {
            Some(transcript) => {
                let f = read_episode_file(Path::new(transcript)).unwrap();
                assert_eq!((partner, f.episodes[0].steps()), ("proagent", t));
            }
            None => assert_eq!(partner, "scripted"),
        }
    }

    // A one-player layout: the person alone.
    let (st, g) =
        s.post("/api/play", json!({"layout": "v2:long_room", "turn_based": true, "horizon": 2}).to_string()).await;
    assert_eq!(st, 200, "{g}");
    assert_eq!((g["players"].as_u64(), g["partner"].as_str()), (Some(1), Some("")));
    let id = g["id"].as_str().unwrap();
    for (k, key) in ["E", "E"].iter().enumerate() {
        s.post(&format!("/api/play/{id}/key"), json!({"action": key}).to_string()).await;
        wait_t(&s, id, k as u64 + 1).await;
    }
    let done = wait_done(&s, id).await;
    let f = read_episode_file(Path::new(done["files"]["trajectory"].as_str().unwrap())).unwrap();
    assert_eq!(f.episodes[0].steps(), 2);
}

/// A raw request with exactly these headers (no token unless given), for the attacks below.
async fn raw(s: &Server, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut r = s.http.request(m, format!("{}{path}", s.base));
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    let r = r.body(body.to_string()).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

fn games_saved(s: &Server) -> usize {
    std::fs::read_dir(s.dir.path().join("games")).map_or(0, |d| d.count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_that_are_not_the_pages_own_are_refused() {
    let s = Server::start(4).await;
    let game = json!({"layout": "cramped_room", "partner": "greedy", "horizon": 2, "step_ms": 30}).to_string();
    let token = s.token.clone();
    // A "simple" cross-site POST (text/plain, no token), as any page can send without asking.
    let (st, body) = raw(&s, "POST", "/api/play", &[("content-type", "text/plain")], &game).await;
    assert_eq!(st, 403, "{body}");
    // With the token but as text/plain: not JSON here.
    let (st, body) =
        raw(&s, "POST", "/api/play", &[("content-type", "text/plain"), (TOKEN_HEADER, &token)], &game).await;
    assert_eq!(st, 415, "{body}");
    // From another page's origin, even with the right token and type.
    let json_ct = ("content-type", "application/json");
    let (st, body) =
        raw(&s, "POST", "/api/play", &[json_ct, (TOKEN_HEADER, &token), ("origin", "http://evil.example")], &game)
            .await;
    assert_eq!(st, 403);
    assert!(body.contains("Origin"), "{body}");
    let (st, _) = raw(&s, "GET", "/api/files", &[(TOKEN_HEADER, &token), ("sec-fetch-site", "cross-site")], "").await;
    assert_eq!(st, 403);
    // DNS rebinding: the page's own host name in the Host header.
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let evil = format!("evil.example:{port}");
    let (st, body) = raw(&s, "GET", "/", &[("host", &evil)], "").await;
    assert_eq!(st, 403);
    assert!(body.contains("does not name this server") && !body.contains("proagent-token"), "{body}");
    // A wrong token.
    let (st, _) = raw(&s, "GET", "/api/files", &[(TOKEN_HEADER, "0123456789abcdef0123456789abcdef")], "").await;
    assert_eq!(st, 403);
    // None of them started a game: one game of two steps at 30 ms would be saved by now.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(games_saved(&s), 0);
    // The page's own request does.
    let (st, v) = s.post("/api/play", game).await;
    assert_eq!(st, 200, "{v}");
    wait_done(&s, v["id"].as_str().unwrap()).await;
    assert!(games_saved(&s) > 0);
    // A new server start has a new token: the old one is refused there.
    let t = Server::start(1).await;
    assert_ne!(t.token, token);
    assert_eq!(raw(&t, "GET", "/api/files", &[(TOKEN_HEADER, &token)], "").await.0, 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_in_requests_and_headers_are_allow_listed() {
    let s = Server::start(4).await;
    let secret = s.dir.path().join("secret.layout");
    std::fs::write(&secret, "rX\n").unwrap();
    let secret = secret.display().to_string();
    // Seat specs naming files outside the roots: refused before anything is opened.
    for partner in ["rl:/dev/zero", "bc:/etc/passwd", &format!("bc:{secret}"), "rl:../../../../../../dev/zero"] {
        let (st, v) = s.post("/api/play", json!({"partner": partner, "horizon": 2}).to_string()).await;
        assert_eq!(st, 403, "{partner}: {v}");
        assert!(err(&v).starts_with("partner: ") && err(&v).contains("not a file this server may open"), "{v}");
    }
    // ProAgent options that would read files or use another model.
    for (partner, want) in [
        ("proagent[prompts=/etc]", "cannot be set from the page"),
        ("proagent[model=gpt-4o]", "not one this server offers"),
    ] {
        let (st, v) = s.post("/api/play", json!({"partner": partner, "horizon": 2}).to_string()).await;
        assert_eq!(st, 403, "{partner}: {v}");
        assert!(err(&v).contains(want), "{v}");
    }
    // A layout file outside the roots, or a device.
    for layout in [secret.as_str(), "/dev/zero", "v2:/etc/passwd"] {
        let (st, v) = s.post("/api/play", json!({"layout": layout}).to_string()).await;
        assert_eq!(st, 403, "{layout}: {v}");
        assert!(!err(&v).contains("'r'") && !err(&v).contains("rX"), "nothing of the file: {v}");
    }
    // An uploaded transcript whose header names a file outside the roots: refused before
    // the file is read, nothing of it echoed.
    let transcript = std::fs::read_to_string(committed("cramped_room.jsonl")).unwrap();
    let (head, rest) = transcript.split_once('\n').unwrap();
    let mut h: Value = serde_json::from_str(head).unwrap();
    h["config"]["layout_spec"] = json!(secret);
    h["config"]["layout"] = json!("secret");
    h["config"].as_object_mut().unwrap().remove("layout_file");
    let crafted = format!("{h}\n{rest}");
    let (st, v) = s.post("/api/upload?name=crafted.jsonl", crafted.clone()).await;
    assert_eq!(st, 403, "{v}");
    assert!(err(&v).contains("names a layout") && !err(&v).contains("rX") && !err(&v).contains("'r'"), "{v}");
    // The same file on disk under a root: the same refusal.
    let p = s.file("crafted.jsonl", &crafted);
    let (st, _) = s.episode(&p, 0).await;
    assert_eq!(st, 403);
    // A FIFO under a root, as an episode and as a layout: refused at once, never opened;
    // the server goes on answering.
    let fifo = s.dir.path().join("files/pipe.layout");
    crate::support::mkfifo(&fifo);
    let fifo = fifo.display().to_string();
    let (st, v) = s.episode(&fifo, 0).await;
    assert_eq!(st, 400);
    assert!(err(&v).contains("not a regular file"), "{v}");
    let (st, v) = s.post("/api/play", json!({"layout": fifo}).to_string()).await;
    assert_eq!(st, 400, "{v}");
    let (st, v) = s.post("/api/play", json!({"partner": format!("rl:{fifo}")}).to_string()).await;
    assert_eq!(st, 400, "{v}");
    assert_eq!(s.get_json("/api/files").await.0, 200);
    // /dev/zero and a missing file: the same answer.
    let (a, va) = s.episode("/dev/zero", 0).await;
    let (b, vb) = s.episode("/nonexistent/x.jsonl", 0).await;
    assert_eq!((a, b), (403, 403));
    assert_eq!(err(&va).replace("/dev/zero", "P"), err(&vb).replace("/nonexistent/x.jsonl", "P"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_bounds_connections_time_and_memory() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut limits = ServeLimits::default();
    limits.conn.max_connections = 4;
    limits.conn.header_timeout = Duration::from_millis(500);
    limits.conn.body_timeout = Duration::from_millis(500);
    limits.read_budget = 256 << 10;
    limits.max_upload = 1 << 20;
    limits.budget_wait = Duration::from_millis(300);
    let s = Server::start_with(2, limits).await;
    let addr = s.base.trim_start_matches("http://").to_string();
    // An idle connection is closed after the header time-out.
    let mut idle = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let mut buf = [0u8; 256];
    let n =
        tokio::time::timeout(Duration::from_secs(5), idle.read(&mut buf)).await.expect("closed in time").unwrap_or(0);
    let said = String::from_utf8_lossy(&buf[..n]).to_string();
    assert!(n == 0 || said.contains("408"), "{said}");
    // A body that never arrives: 408 after the body time-out.
    let mut slow = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /api/play HTTP/1.1\r\nhost: {addr}\r\n{TOKEN_HEADER}: {}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{",
        s.token
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut out)).await.expect("answered in time");
    let out = String::from_utf8_lossy(&out);
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
    // The connection cap: of five connections opened at once (each sending half a request
    // head), at most four are served and the rest are told 503 at once. Which one is refused
    // is not fixed: the task of a connection closed just before may still hold its slot for
    // a moment (under load, long enough for the fourth to be refused and the fifth served).
    let mut held = Vec::new();
    for _ in 0..5 {
        let mut c = tokio::net::TcpStream::connect(&addr).await.unwrap();
        c.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n").await.unwrap();
        held.push(c);
    }
    let mut answers = Vec::new();
    for c in &mut held {
        // Served ones end at the header time-out (500 ms), with a 408 or nothing.
        let mut out = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(3), c.read_to_end(&mut out)).await;
        answers.push(String::from_utf8_lossy(&out).to_string());
    }
    let refused: Vec<&String> = answers.iter().filter(|a| a.starts_with("HTTP/1.1 503")).collect();
    assert!(!refused.is_empty(), "five served at once: {answers:?}");
    assert!(refused.iter().all(|a| a.contains("too many connections")), "{answers:?}");
    assert!(!answers[0].starts_with("HTTP/1.1 503"), "the first of the five refused: {answers:?}");
    drop(held);
    tokio::time::sleep(Duration::from_millis(700)).await;
    // Uploads: larger than the largest upload, or than the read budget, are refused
    // before they are read; the server goes on.
    // Only the head is sent: the answer must come from the declared length alone (a client
    // still writing a body the server will not read can see the connection reset instead).
    let declared = |name: &str, len: usize| {
        format!(
            "POST /api/upload?name={name} HTTP/1.1\r\nhost: {addr}\r\n{TOKEN_HEADER}: {}\r\ncontent-type: application/octet-stream\r\ncontent-length: {len}\r\n\r\n",
            s.token
        )
    };
    for (name, len, says) in
        [("big.jsonl", 2usize << 20, ""), ("mid.jsonl", 512 << 10, "more than this server reads at once")]
    {
        let mut c = tokio::net::TcpStream::connect(&addr).await.unwrap();
        c.write_all(declared(name, len).as_bytes()).await.unwrap();
        let mut out = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut out)).await.expect("answered in time");
        let out = String::from_utf8_lossy(&out);
        assert!(out.starts_with("HTTP/1.1 413") && out.contains(says), "{name}: {out}");
    }
    let (st, v) = s.post("/api/upload?name=ok.jsonl", std::fs::read(committed("cramped_room.jsonl")).unwrap()).await;
    assert_eq!(st, 200, "{v}");
}

/// A classic trajectory of cramped_room (reference-trace schema, one line) in which
/// nobody moves for `steps` steps: about 220 bytes of text a step.
fn still_trajectory(steps: usize) -> String {
    let players = r#"[{"held":null,"or":[0,-1],"pos":[1,2]},{"held":null,"or":[0,-1],"pos":[3,1]}]"#;
    let mut out = format!(
        r#"{{"agents":["stay","stay"],"deliveries":0,"grid":["XXPXX","O  2O","X1  X","XDXSX"],"horizon":{steps},"layout":"cramped_room","old_dynamics":true,"policy":{{"kind":"test"}},"seed":0,"start":{{"players":{players}}},"total_reward":0,"steps":["#
    );
    for t in 0..steps {
        if t > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#"{{"actions":["X","X"],"reward":0,"shaped_by_player":[0,0],"sparse_by_player":[0,0],"state":{{"objects":[],"players":{players},"timestep":{}}},"t":{t}}}"#,
            t + 1
        ));
    }
    out.push_str("]}\n");
    out
}

/// The resident memory of a process, in KiB (`VmRSS` of /proc/PID/status).
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS in /proc/PID/status");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Issue 37: the keep budget counts what the kept episodes hold in memory (measured as they
/// are opened, not the length of their text), and what parsing them freed goes back to the
/// system, so `serve` opening large trajectories one after another stays under its budget
/// plus a fixed allowance for the process itself. (Before: a trajectory held about twice
/// its text once opened, and the many small blocks parsing it took, about 20 times its
/// text, stayed resident after they were freed: 35 MiB of trajectory left 740 MiB.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_stays_under_its_memory_budget_with_large_episodes_open() {
    /// The keep budget given to the server.
    const BUDGET_MIB: u64 = 16;
    /// The process itself: the binary and its libraries, the runtime's threads, buffers
    /// left from the last answer (an idle debug `serve` is at about 35 MiB).
    const ALLOWANCE_MIB: u64 = 64;
    const FILES: usize = 3;
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    // About 3.5 MiB of text each; opened, each holds about 7 MiB: two fit the budget.
    let text = still_trajectory(16_000);
    let names: Vec<PathBuf> = (0..FILES).map(|i| files.join(format!("still-{i}.jsonl"))).collect();
    for n in &names {
        std::fs::write(n, &text).unwrap();
    }
    use std::io::BufRead;
    let mut child = crate::support::bin()
        .args(["serve", "--addr", "127.0.0.1:0", "--keep-budget", &BUDGET_MIB.to_string(), "--games-dir"])
        .arg(tmp.path().join("games"))
        .arg(&files)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let pid = child.id();
    let _server = Kill(child);
    let base =
        line.trim().strip_prefix("serving ").unwrap_or_else(|| panic!("{line}")).trim_end_matches('/').to_string();
    proagent::llm::http::install_tls_provider();
    let http = reqwest::Client::new();
    let token = page_token(&http, &base).await;
    let idle = resident_kib(pid);
    let limit = (BUDGET_MIB + ALLOWANCE_MIB) << 10;
    let mut ids = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let q = reqwest::Url::parse_with_params("http://x/", &[("path", n.display().to_string())]).unwrap();
        let r = http
            .get(format!("{base}/api/episode?{}", q.query().unwrap()))
            .header(TOKEN_HEADER, &token)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let v: Value = r.json().await.unwrap();
        assert_eq!(status, 200, "{}", v["error"]);
        assert_eq!(v["frames"], 16_001);
        ids.push(v["id"].as_str().unwrap().to_string());
        let rss = resident_kib(pid);
        assert!(
            rss < limit,
            "after opening {} trajectories of {:.1} MiB: {} MiB resident, over the budget ({BUDGET_MIB} MiB) \
             plus the allowance ({ALLOWANCE_MIB} MiB); idle it was {} MiB",
            i + 1,
            text.len() as f64 / (1 << 20) as f64,
            rss >> 10,
            idle >> 10
        );
    }
    // The oldest were dropped to stay within the budget; the newest is open.
    let board = |id: &str| format!("{base}/api/board/{id}/0");
    let first = http.get(board(&ids[0])).header(TOKEN_HEADER, &token).send().await.unwrap();
    assert_eq!(first.status().as_u16(), 404, "the first episode is still kept");
    let last = http.get(board(&ids[FILES - 1])).header(TOKEN_HEADER, &token).send().await.unwrap();
    assert_eq!(last.status().as_u16(), 200);
}

/// An episode that alone holds more than the keep budget is refused, and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_larger_than_the_keep_budget_is_refused() {
    let limits = ServeLimits { keep_budget: 16 << 10, ..ServeLimits::default() };
    let s = Server::start_with(2, limits).await;
    let (st, v) = s.episode(&committed("cramped_room.jsonl"), 0).await;
    assert_eq!(st, 413, "{}", v["error"]);
    assert!(err(&v).contains("in memory once opened, more than this server keeps open (16384 bytes;"), "{v}");
    // Smaller ones still open.
    let small = s.file("small.jsonl", &still_trajectory(1));
    let (st, v) = s.episode(&small, 0).await;
    assert_eq!(st, 200, "{v}");
}

/// `serve` on an address other than loopback needs --allow-remote, and says why.
#[test]
fn serve_refuses_a_remote_address_without_allow_remote() {
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::support::bin()
        .args(["serve", "--addr", "0.0.0.0:0", "--games-dir"])
        .arg(tmp.path().join("g"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("not a loopback address") && e.contains("--allow-remote"), "{e}");
    // With it: a warning, then it serves.
    use std::io::BufRead;
    let mut child = crate::support::bin()
        .args(["serve", "--addr", "0.0.0.0:0", "--allow-remote", "--games-dir"])
        .arg(tmp.path().join("g"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    assert!(line.starts_with("serving http://0.0.0.0:"), "{line}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: listening on 0.0.0.0"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_the_llm_coordination_games_against_the_llmco_agent() {
    let s = Server::start(4).await;
    // CollabCapture: the person stays put; the llmco partner (its scripted stand-in) chases.
    let req = json!({"layout": "capture:1", "partner": "llmco", "turn_based": true, "human_seat": 0, "seed": 0});
    let (st, g) = s.post("/api/play", req.to_string()).await;
    assert_eq!(st, 200, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    for k in 0..30u64 {
        let (_, v) = s.get_json(&format!("/api/play/{id}")).await;
        if v["done"] == true {
            break;
        }
        let (st, v) = s.post(&format!("/api/play/{id}/key"), json!({"action": "S"}).to_string()).await;
        assert_eq!(st, 200, "{v}");
        let (_, v) = s.get_json(&format!("/api/play/{id}")).await;
        if v["done"] != true {
            wait_t(&s, &id, k + 1).await;
        }
    }
    let done = wait_done(&s, &id).await;
    assert!(done["error"].is_null(), "{done}");
    assert_eq!(done["partner"].as_str(), Some("llmco[rule-based]"), "{done}");
    let transcript = done["files"]["transcript"].as_str().unwrap();
    let f = read_episode_file(Path::new(transcript)).unwrap();
    assert!(f.episodes[0].steps() >= 1);
    let (st, ep) = s.episode(transcript, 0).await;
    assert_eq!(st, 200, "{ep}");
    // Hanabi: a game starts and the person's board hides their own hand.
    let req = json!({"layout": "hanabi", "partner": "llmco", "turn_based": true, "human_seat": 0, "seed": 1});
    let (st, g) = s.post("/api/play", req.to_string()).await;
    assert_eq!(st, 200, "{g}");
    assert_eq!(g["layout"].as_str(), Some("hanabi"));
    let id = g["id"].as_str().unwrap();
    let (st, _) = s.post(&format!("/api/play/{id}/stop"), "").await;
    assert_eq!(st, 200);
}

/// Plays a started game to its end through the API, the person picking move number
/// `pick(t)` of their legal moves (modulo their count) whenever it is their turn; returns
/// the final status.
async fn play_out(s: &Server, id: &str, pick: impl Fn(u64) -> usize) -> Value {
    for _ in 0..2000 {
        let (st, v) = s.get_json(&format!("/api/play/{id}")).await;
        assert_eq!(st, 200, "{v}");
        if v["done"] == true {
            return v;
        }
        let moves = v["moves"].as_array().unwrap();
        if moves.is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        }
        let t = v["t"].as_u64().unwrap();
        let token = moves[pick(t) % moves.len()]["token"].as_str().unwrap();
        let (st, r) = s.post(&format!("/api/play/{id}/key"), json!({"action": token}).to_string()).await;
        assert_eq!(st, 200, "{r}");
        wait_moved(s, id, t).await;
    }
    panic!("game {id} did not end");
}

/// Waits until the game is past step `t` or over.
async fn wait_moved(s: &Server, id: &str, t: u64) {
    for _ in 0..2000 {
        let (_, v) = s.get_json(&format!("/api/play/{id}")).await;
        if v["done"] == true || v["t"].as_u64() > Some(t) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("game {id} stayed at t = {t}");
}

/// Starts a game; panics with the server's answer if it is refused.
async fn start_game(s: &Server, req: Value) -> String {
    let (st, g) = s.post("/api/play", req.to_string()).await;
    assert_eq!(st, 200, "{req}: {g}");
    g["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_play_tab_offers_every_catalog_game_with_its_seats() {
    let s = Server::start(4).await;
    let (st, o) = s.get_json("/api/play/options").await;
    assert_eq!(st, 200, "{o}");
    let offered: Vec<&str> = o["layouts"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(offered, proagent::games::catalog::all_builtin_specs(), "every built-in layout and scenario");
    let kinds: Vec<&str> = o["games"].as_array().unwrap().iter().map(|g| g["kind"].as_str().unwrap()).collect();
    let want: Vec<&str> = proagent::games::catalog::entries().iter().map(|e| e.kind).collect();
    assert_eq!(kinds, want, "every game of the catalog");
    for g in o["games"].as_array().unwrap() {
        let partners: Vec<&str> = g["partners"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert!(partners.contains(&"llmco") || partners.contains(&"proagent"), "a language agent: {g}");
        for l in g["layouts"].as_array().unwrap() {
            let d = l["default_partner"].as_str().unwrap();
            assert!(partners.contains(&d), "{l}: the default partner {d} is offered");
            assert!(l["players"].as_u64().unwrap() >= 1, "{l}");
        }
    }
    let by = |kind: &str| o["partners_by_game"][kind].as_array().unwrap().clone();
    assert!(by("overcooked").iter().any(|p| p == "proagent") && by("overcooked").iter().any(|p| p == "sp"));
    assert!(by("hanabi").iter().any(|p| p == "convention"), "{}", o["partners_by_game"]);
    assert!(by("collab_capture").iter().any(|p| p == "chaser"), "{}", o["partners_by_game"]);
    let five = o["games"][0]["layouts"].as_array().unwrap().iter().find(|l| l["players"] == 5);
    assert!(five.is_some(), "Hanabi for five players: {}", o["games"][0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_finishes_every_game_in_either_seat_against_every_rule_partner_and_llmco() {
    let s = Server::start(4).await;
    let (_, o) = s.get_json("/api/play/options").await;
    let mut played = 0;
    for g in o["games"].as_array().unwrap() {
        let kind = g["kind"].as_str().unwrap();
        let layout = &g["layouts"][0];
        let spec = layout["spec"].as_str().unwrap();
        let players = layout["players"].as_u64().unwrap() as usize;
        for partner in g["partners"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()) {
            // Learned partners: played on every layout by the next test.
            if LEARNED.contains(&partner) {
                continue;
            }
            for seat in 0..players {
                let req = json!({"layout": spec, "partner": partner, "turn_based": true, "human_seat": seat,
                                 "seed": 3, "horizon": 12});
                let id = start_game(&s, req).await;
                let done = play_out(&s, &id, |t| t as usize * 7 + 1).await;
                assert!(done["error"].is_null(), "{kind} {spec} against {partner} in seat {seat}: {}", done["error"]);
                assert!(done["t"].as_u64().unwrap() >= 1, "{done}");
                let traj = done["files"]["trajectory"].as_str().unwrap();
                let v = crate::support::bin().args(["show", "--trajectory", traj]).output().unwrap();
                assert!(v.status.success(), "{kind} {partner}: {}", String::from_utf8_lossy(&v.stderr));
                played += 1;
            }
        }
    }
    assert!(played >= 20, "{played} games");
}

/// The learned partners (behaviour cloning and the RL policies), built from the shipped models.
const LEARNED: [&str; 8] = ["bc", "bc:test", "bc:train", "sp", "pbt", "fcp", "mep", "cole"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_finishes_every_layout_against_every_learned_partner_in_either_seat() {
    let t0 = std::time::Instant::now();
    let s = Server::start(4).await;
    let (_, o) = s.get_json("/api/play/options").await;
    let horizon: usize = 10;
    let mut played = 0;
    let mut refused = 0;
    for g in o["games"].as_array().unwrap() {
        let kind = g["kind"].as_str().unwrap();
        let listed: Vec<&str> = g["partners"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        for layout in g["layouts"].as_array().unwrap() {
            let spec = layout["spec"].as_str().unwrap();
            let players = layout["players"].as_u64().unwrap() as usize;
            let offered: Vec<&str> =
                layout["partners"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
            for partner in LEARNED.iter().filter(|p| listed.contains(p)) {
                if players < 2 {
                    // A one-player layout has no other seat.
                    assert!(offered.is_empty() || !offered.contains(partner), "{spec}: {offered:?}");
                    continue;
                }
                if !offered.contains(partner) {
                    // Not offered on this layout because it cannot be built here (no shipped model).
                    let req = json!({"layout": spec, "partner": partner, "turn_based": true, "horizon": horizon});
                    let (st, v) = s.post("/api/play", req.to_string()).await;
                    assert_eq!(st, 400, "{spec} does not offer {partner}, yet it starts: {}", v["error"]);
                    refused += 1;
                    continue;
                }
                for seat in 0..players {
                    let req = json!({"layout": spec, "partner": partner, "turn_based": true, "human_seat": seat,
                                     "seed": 3, "horizon": horizon});
                    let id = start_game(&s, req).await;
                    let done = play_out(&s, &id, |t| t as usize * 7 + 1).await;
                    let what = format!("{spec} against {partner} with the person in seat {seat}");
                    assert!(done["error"].is_null(), "{what}: {}", done["error"]);
                    assert_eq!(done["t"], horizon, "{what}: played to the end: {done}");
                    assert_eq!(done["partner"], *partner, "{what}: {done}");
                    // The partner moved at every step (the person in the other seat).
                    let traj = done["files"]["trajectory"].as_str().unwrap();
                    let t: Value = serde_json::from_str(std::fs::read_to_string(traj).unwrap().trim()).unwrap();
                    let steps = t["steps"].as_array().unwrap();
                    assert_eq!(steps.len(), horizon, "{what}");
                    assert!(steps.iter().all(|st| !st["actions"][1 - seat].is_null()), "{what}: {t}");
                    played += 1;
                }
            }
        }
        if kind == "overcooked" {
            // Every classic built-in layout has every learned partner shipped.
            for layout in g["layouts"].as_array().unwrap() {
                for p in LEARNED {
                    assert!(layout["partners"].as_array().unwrap().iter().any(|q| q == p), "{p} on {layout}");
                }
            }
        }
    }
    assert!(played >= 5 * LEARNED.len() * 2, "{played} games");
    // V2 asymm_advantages' models were trained with a view radius of 2: not offered at the
    // default switches, they play when the game asks for that radius.
    for partner in ["sp", "fcp"] {
        let req = json!({"layout": "v2:asymm_advantages", "partner": partner, "turn_based": true, "human_seat": 1,
                         "seed": 3, "horizon": horizon, "v2": {"view_radius": 2}});
        let id = start_game(&s, req).await;
        let done = play_out(&s, &id, |t| t as usize * 7 + 1).await;
        assert!(done["error"].is_null() && done["t"] == horizon, "v2:asymm_advantages against {partner}: {done}");
        played += 1;
    }
    eprintln!(
        "learned partners: {played} games of {horizon} steps played and {refused} unshipped pairings refused in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_finishes_hanabi_against_llmco_in_either_seat_and_with_several_players() {
    let s = Server::start(4).await;
    for seat in 0..2 {
        let req = json!({"layout": "hanabi", "partner": "llmco", "turn_based": true, "human_seat": seat, "seed": 1});
        let id = start_game(&s, req).await;
        let done = play_out(&s, &id, |_| 0).await;
        assert!(done["error"].is_null(), "seat {seat}: {}", done["error"]);
        assert!(done["t"].as_u64().unwrap() > 2, "played past the human's first move: {done}");
        let transcript = done["files"]["transcript"].as_str().unwrap();
        let out = crate::support::bin().args(["replay", transcript]).output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Four players: the person in seat 2, each other seat its own partner.
    let (_, o) = s.get_json("/api/play/options").await;
    let four = o["games"][0]["layouts"].as_array().unwrap().iter().find(|l| l["players"] == 4).unwrap().clone();
    let req = json!({"layout": four["spec"], "partners": ["simple", "llmco", "convention"], "turn_based": true,
                     "human_seat": 2, "seed": 2});
    let id = start_game(&s, req).await;
    let done = play_out(&s, &id, |t| t as usize).await;
    assert!(done["error"].is_null(), "{}", done["error"]);
    assert_eq!(done["players"], 4);
    assert_eq!(done["partner"].as_str().unwrap().split(", ").count(), 3, "{}", done["partner"]);
    let traj: Value =
        serde_json::from_str(std::fs::read_to_string(done["files"]["trajectory"].as_str().unwrap()).unwrap().trim())
            .unwrap();
    let turns: Vec<usize> = traj["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["actions"].as_array().unwrap().iter().position(|a| !a.is_null()).unwrap())
        .collect();
    assert_eq!(&turns[..4], &[0, 1, 2, 3], "each seat in turn");
    let transcript = done["files"]["transcript"].as_str().unwrap();
    let out = crate::support::bin().args(["replay", transcript]).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // Wrong counts and two model seats are refused, naming the field.
    for (req, want) in [
        (json!({"layout": four["spec"], "partners": ["simple"], "human_seat": 0}), "partners: names 1 seat"),
        (
            json!({"layout": four["spec"], "partners": ["llmco", "llmco", "simple"], "human_seat": 0}),
            "at most one seat",
        ),
        (json!({"layout": four["spec"], "human_seat": 4}), "human_seat: must be 0..=3"),
    ] {
        let (st, v) = s.post("/api/play", req.to_string()).await;
        assert_eq!(st, 400, "{req}: {v}");
        assert!(err(&v).contains(want), "{req}: {v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_game_of_each_game_stopped_at_step_6_replays_exactly() {
    let s = Server::start(4).await;
    // Seeds where the game lasts past step 6 with these moves (a capture ends when the thief is caught).
    for (layout, partner, seat, seed) in [
        ("cramped_room", "proagent", 1, 5),
        ("cramped_room", "llmco", 0, 5),
        ("v2:cramped_room_v2", "proagent", 0, 5),
        ("hanabi", "llmco", 0, 5),
        ("capture:4", "llmco", 1, 2),
        ("escape:1", "llmco", 0, 5),
        ("lever", "llmco", 0, 5),
    ] {
        let req = json!({"layout": layout, "partner": partner, "turn_based": true, "human_seat": seat, "seed": seed,
                         "horizon": 40});
        let id = start_game(&s, req).await;
        let mut t = 0;
        while t < 6 {
            let (_, v) = s.get_json(&format!("/api/play/{id}")).await;
            t = v["t"].as_u64().unwrap();
            if t >= 6 {
                // (A capture may end by itself at step 6: the thief caught.)
                break;
            }
            assert_ne!(v["done"], true, "{layout}: ended before step 6, at t = {t}");
            let moves = v["moves"].as_array().unwrap();
            if moves.is_empty() {
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
            // Not the first move: in Hanabi that plays a card and may lose the game early.
            let token = moves[(t as usize * 3 + 1) % moves.len()]["token"].as_str().unwrap();
            s.post(&format!("/api/play/{id}/key"), json!({"action": token}).to_string()).await;
            wait_moved(&s, &id, t).await;
        }
        let (st, _) = s.post(&format!("/api/play/{id}/stop"), "").await;
        assert_eq!(st, 200);
        let done = wait_done(&s, &id).await;
        assert!(done["error"].is_null(), "{layout}: {}", done["error"]);
        assert_eq!(done["t"], 6, "{layout}");
        let files = &done["files"];
        let transcript = files["transcript"].as_str().unwrap_or_else(|| panic!("{layout}: {files}"));
        let text = std::fs::read_to_string(transcript).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        // Honest: the header keeps the game as played (its horizon), the footer the steps played.
        let header = &lines[0];
        let horizon = header["config"]["horizon"].as_u64().or(header["horizon"].as_u64());
        assert_ne!(horizon, Some(6), "{layout}: the header's horizon is the game's, not the steps played: {header}");
        let footer = lines.last().unwrap();
        assert_eq!(lines.iter().filter(|l| l["type"] == "step").count(), 6, "{layout}");
        assert!(footer.to_string().contains("\"steps\":6"), "{layout}: {footer}");
        let out = crate::support::bin().args(["replay", transcript]).output().unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && !said.contains("DIVERGED"), "{layout} against {partner}: {said}");
        for args in [
            vec!["show", transcript, "--step", "6"],
            vec!["show", "--trajectory", files["trajectory"].as_str().unwrap(), "--step", "6"],
        ] {
            let out = crate::support::bin().args(&args).output().unwrap();
            assert!(out.status.success(), "{layout}: {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        if layout == "cramped_room" {
            // Classic trajectories are reference traces too.
            let out =
                crate::support::bin().args(["verify-trace", files["trajectory"].as_str().unwrap()]).output().unwrap();
            let said = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success() && said.contains("PASS"), "{layout}: {said}");
        }
    }
}
