//! `proagent serve` against what a request names indirectly: files named inside an
//! uploaded or opened episode (a maze trajectory's `spec`, a transcript header's layout)
//! and the options of a language agent's seat spec. Each attack runs against a running
//! server: the `serve` binary with a secret in its environment, or an in-process one whose
//! offered model is a canned loopback server.

use crate::fake_server::{Canned, CannedServer};
use proagent::agent::ModelSpec;
use proagent::runner::seats::ProAgentSeat;
use proagent::transcript::Scrubber;
use proagent_core::Game;
use proagent_web::guard::TOKEN_HEADER;
use proagent_web::play::{GameModel, PlayConfig, PlayLimits};
use proagent_web::{ServeConfig, ServeLimits, serve};
use serde_json::{Value, json};
use std::io::BufRead;
use std::path::Path;
use std::time::Duration;

/// A page's view of a server: its address and token.
struct Page {
    base: String,
    http: reqwest::Client,
    token: String,
}

impl Page {
    async fn open(base: String) -> Page {
        proagent::llm::http::install_tls_provider();
        let http = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
        let html = http.get(format!("{base}/")).send().await.unwrap().text().await.unwrap();
        let at = html.find("name=\"proagent-token\" content=\"").expect("the page carries the token") + 31;
        let token = html[at..at + 32].to_string();
        Page { base, http, token }
    }

    async fn send(&self, r: reqwest::RequestBuilder) -> (u16, Value) {
        let r = r.header(TOKEN_HEADER, &self.token).send().await.unwrap_or_else(|e| panic!("no answer: {e}"));
        let st = r.status().as_u16();
        let text = r.text().await.unwrap();
        (st, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.send(self.http.get(format!("{}{path}", self.base))).await
    }

    async fn upload(&self, name: &str, body: String) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}/api/upload?name={name}", self.base))
            .header("content-type", "application/octet-stream")
            .body(body);
        self.send(r).await
    }

    async fn play(&self, req: Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}/api/play", self.base))
            .header("content-type", "application/json")
            .body(req.to_string());
        self.send(r).await
    }

    async fn post_json(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_string());
        self.send(r).await
    }
}

fn err(v: &Value) -> String {
    v["error"].as_str().unwrap_or_else(|| panic!("no error message in {v}")).to_string()
}

/// The `serve` binary, killed when dropped.
struct Binary(std::process::Child);

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `proagent serve ARGS` with `env` added, and opens its page.
async fn start_binary(args: &[&str], env: &[(&str, &str)]) -> (Binary, Page) {
    let mut c = crate::support::bin();
    c.arg("serve").args(["--addr", "127.0.0.1:0"]).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::inherit()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Binary(child);
    let mut line = String::new();
    std::io::BufReader::new(stdout).read_line(&mut line).unwrap();
    let base =
        line.trim().strip_prefix("serving ").unwrap_or_else(|| panic!("server said {line:?}")).trim_end_matches('/');
    let page = Page::open(base.to_string()).await;
    (server, page)
}

/// A CollabCapture trajectory record (seed 0, no steps) on `capture:1`, its `spec` set to
/// `spec`.
fn capture_record(spec: &str) -> String {
    let g = proagent::collab::load_capture("capture:1").unwrap();
    let start = g.state_json(&g.initial_state(&mut proagent_core::episode::env_chance(0)));
    format!(
        "{}\n",
        json!({"game": "collab_capture", "spec": spec, "agents": ["chaser", "chaser"], "seed": 0, "start": start, "steps": []})
    )
}

/// A CollabEscape record on `escape:1` the same way.
fn escape_record(spec: &str) -> String {
    let g = proagent::collab::load_escape("escape:1").unwrap();
    let start = g.state_json(&g.initial_state(&mut proagent_core::episode::env_chance(0)));
    format!(
        "{}\n",
        json!({"game": "collab_escape", "spec": spec, "agents": ["runner", "fixer"], "seed": 0, "start": start, "steps": []})
    )
}

const CANARY: &str = "sk-canary-7f3e9b1d0c2a";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploaded_episode_never_makes_serve_read_or_echo_a_file_it_names() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    let games = tmp.path().join("games");
    let (_server, page) = start_binary(
        &["--games-dir", games.to_str().unwrap(), files.to_str().unwrap()],
        &[("OPENAI_API_KEY", CANARY), ("PROAGENT_TEST_SECRET", CANARY)],
    )
    .await;
    // The built-in scenario the record was made on opens.
    let (st, v) = page.upload("ok.jsonl", capture_record("capture:1")).await;
    assert_eq!(st, 200, "{v}");
    // A file outside the roots the server can read (its content would be quoted by the
    // maze parser), the process environment, a file it may not even read, and nothing at
    // all: one status, one message (with the path as given), nothing of any file.
    let outside = tmp.path().join("secret.maze");
    std::fs::write(&outside, format!("game: capture {CANARY}\n")).unwrap();
    let missing = tmp.path().join("no-such.maze").display().to_string();
    for record in [capture_record, escape_record] {
        let (st0, v0) = page.upload("m.jsonl", record(&missing)).await;
        let want = err(&v0).replace(&missing, "SPEC");
        for spec in
            ["/proc/self/environ", "/proc/self/cmdline", "/etc/shadow", "/etc/passwd", outside.to_str().unwrap()]
        {
            let (st, v) = page.upload("m.jsonl", record(spec)).await;
            let e = err(&v);
            assert!(!e.contains(CANARY) && !e.contains("PATH=") && !e.contains("root:"), "{spec}: {e}");
            assert_eq!((st, e.replace(spec, "SPEC")), (st0, want.clone()), "{spec}");
        }
        assert_eq!(st0, 403, "{want}");
        assert!(want.ends_with("`spec` names a file: SPEC: not a file this server may open (it opens only existing files under the files and directories given to `proagent serve`, and the shipped data)"), "{want}");
    }
    // FIFOs, under a root and outside: answered at once, never opened; the read budget is
    // not held, so later requests are served.
    for fifo in [files.join("pipe.maze"), tmp.path().join("pipe.maze")] {
        crate::support::mkfifo(&fifo);
        let spec = fifo.display().to_string();
        let t0 = std::time::Instant::now();
        let (st, v) = page.upload("f.jsonl", capture_record(&spec)).await;
        assert!(st == 403 || st == 400, "{spec}: {st} {v}");
        assert!(t0.elapsed() < Duration::from_secs(5), "{spec}: answered after {:?}", t0.elapsed());
    }
    for _ in 0..3 {
        let (st, v) = page.upload("ok.jsonl", capture_record("capture:1")).await;
        assert_eq!(st, 200, "{v}");
        let (st, _) = page.get("/api/files").await;
        assert_eq!(st, 200);
    }
    // A transcript header naming the environment: the same refusal, nothing echoed.
    let transcript =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/transcripts/committed/cramped_room.jsonl"))
            .unwrap();
    let (head, rest) = transcript.split_once('\n').unwrap();
    for spec in ["/proc/self/environ", "v2:/proc/self/environ", outside.to_str().unwrap(), &missing] {
        let mut h: Value = serde_json::from_str(head).unwrap();
        h["config"]["layout_spec"] = json!(spec);
        h["config"]["layout"] = json!("nowhere");
        h["config"].as_object_mut().unwrap().remove("layout_file");
        let (st, v) = page.upload("t.jsonl", format!("{h}\n{rest}")).await;
        assert_eq!(st, 403, "{spec}: {v}");
        assert!(err(&v).contains("names a layout") && !err(&v).contains(CANARY), "{spec}: {v}");
    }
    // The same file opened from under a root (not uploaded): the same answers.
    let saved = files.join("environ.jsonl");
    std::fs::write(&saved, capture_record("/proc/self/environ")).unwrap();
    let q = reqwest::Url::parse_with_params("http://x/", &[("path", saved.to_str().unwrap())]).unwrap();
    let (st, v) = page.get(&format!("/api/episode?{}", q.query().unwrap())).await;
    assert_eq!(st, 403, "{v}");
    assert!(!err(&v).contains(CANARY), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_request_cannot_name_a_maze_outside_the_roots() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    let (_server, page) = start_binary(
        &["--games-dir", tmp.path().join("games").to_str().unwrap(), files.to_str().unwrap()],
        &[("PROAGENT_TEST_SECRET", CANARY)],
    )
    .await;
    let outside = tmp.path().join("x.maze");
    std::fs::write(&outside, format!("game: capture {CANARY}\n")).unwrap();
    let missing = tmp.path().join("none.maze").display().to_string();
    let (st0, v0) = page.play(json!({"layout": missing, "partner": "chaser", "turn_based": true})).await;
    assert_eq!(st0, 403, "{v0}");
    for layout in [outside.to_str().unwrap(), "/proc/self/environ", "/dev/zero"] {
        let (st, v) = page.play(json!({"layout": layout, "partner": "chaser", "turn_based": true})).await;
        assert_eq!(st, 403, "{layout}: {v}");
        assert_eq!(err(&v).replace(layout, "L"), err(&v0).replace(&missing, "L"));
    }
    // Under a root, a maze file is a game.
    let inside = files.join("mine.maze");
    std::fs::write(&inside, proagent::collab::Maze::builtin_text("capture:2").unwrap()).unwrap();
    let (st, v) = page.play(json!({"layout": inside, "partner": "chaser", "turn_based": true})).await;
    assert_eq!(st, 200, "{v}");
    let id = v["id"].as_str().unwrap();
    page.post_json(&format!("/api/play/{id}/stop"), json!({})).await;
}

/// An in-process server offering the model `served` (reached at `canned`, with its own
/// key) and the rule-based stand-in.
async fn start_offering(canned: &CannedServer, games: &Path) -> Page {
    let mut model = ModelSpec::new("served");
    model.base_url = Some(canned.base_url());
    model.api_key = proagent::llm::http::ApiKey::new("sk-the-servers-own-key");
    model.request_timeout_s = Some(5.0);
    model.retries = Some(0);
    let served = ProAgentSeat { label: "proagent[served]".into(), settings: Default::default(), model };
    let cfg = ServeConfig {
        roots: vec![games.to_path_buf()],
        play: PlayConfig {
            games_dir: games.to_path_buf(),
            models: vec![
                GameModel { name: "served".into(), seat: served },
                GameModel { name: "rule-based".into(), seat: ProAgentSeat::new("rule-based") },
            ],
            scrubber: Scrubber::new(),
            limits: PlayLimits { max_running: 64, idle: Duration::from_secs(30), default_step_ms: 154 },
        },
        limits: ServeLimits::default(),
        allow_hosts: Vec::new(),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(serve(listener, cfg, std::future::pending()));
    Page::open(base).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seat_specs_from_the_page_name_only_offered_models_and_no_files() {
    let canned = CannedServer::start(vec![Canned::reply("Action: wait")]).await;
    let tmp = tempfile::tempdir().unwrap();
    let page = start_offering(&canned, tmp.path()).await;
    // A replay file in the server's working directory and one that does not exist: the
    // same refusal, before anything is opened.
    let stop = |v: &Value| v["id"].as_str().map(str::to_string);
    let (st, v) = page.play(json!({"layout": "capture:1", "partner": "llmco[model=replay:nonexistent]"})).await;
    let missing = (st, err(&v).replace("nonexistent", "FILE"));
    for name in ["src", "Cargo.toml", "tests", "/etc/passwd"] {
        let (st, v) = page.play(json!({"layout": "capture:1", "partner": format!("llmco[model=replay:{name}]")})).await;
        assert_eq!((st, err(&v).replace(name, "FILE")), missing, "replay:{name}: its existence shows");
    }
    for (layout, spec) in [
        ("capture:1", "llmco[model=replay:Cargo.toml]"),
        ("capture:1", "llmco[model=replay:src]"),
        ("capture:1", "llmco[model=replay:/nonexistent/x.jsonl]"),
        ("hanabi", "llmco[model=any-name]"),
        ("escape:1", "llmco[gpt-4o]"),
        ("capture:1", "llmco[model=served,prompts=/etc]"),
        ("capture:1", "llmco[prompts=prompts]"),
        ("capture:1", "llmco[prompts=]"),
        ("cramped_room", "proagent[model=replay:Cargo.toml]"),
        ("cramped_room", "proagent[served,prompts=/tmp]"),
        ("cramped_room", "proagent[model=any-name]"),
        ("cramped_room", "llmco[model=any-name]"),
        ("cramped_room", "greedy[model=any-name]"),
        ("capture:1", "chaser[prompts=/etc]"),
        ("hanabi", "simple:x"),
        ("cramped_room", "base_url=http://example.com"),
    ] {
        let (st, v) = page.play(json!({"layout": layout, "partner": spec, "turn_based": true})).await;
        assert_eq!(st, 403, "{spec}: {v}");
        let e = err(&v);
        assert!(e.starts_with("partner: "), "{spec}: {e}");
        assert!(!e.contains("[package]") && !e.contains("No such file"), "{spec}: nothing of a file: {e}");
        let agent = spec.starts_with("llmco[") || spec.starts_with("proagent[");
        if agent && (spec.contains("replay:") || spec.contains("any-name") || spec.contains("gpt-4o")) {
            assert!(e.contains("not one this server offers"), "{spec}: {e}");
        }
        if agent && spec.contains("prompts=") {
            assert!(e.contains("cannot be set from the page"), "{spec}: {e}");
        }
    }
    // Every other option of each agent's grammar is data: the game starts. (A ProAgent spec
    // without `model=` takes the game's model, `model` of the request, as `proagent` does.)
    for (layout, spec) in [
        ("capture:1", "llmco[model=rule-based,temperature=0.5,top_p=0.9,max_tokens=64]"),
        ("capture:1", "llmco[tom=off,verify=on,history=3,max_verify=2]"),
        ("hanabi", "llmco[rule-based,tom=auto]"),
        ("cramped_room", "proagent[model=rule-based,temperature=0.3,top_p=0.8,max_tokens=64,memory_k=2]"),
        ("cramped_room", "proagent[max_replans=1,verificator=rules,belief=annotate,align=coordination]"),
        ("cramped_room", "proagent[analysis=false,intention=false,wait_interrupt=true,preset=paper]"),
    ] {
        let (st, v) =
            page.play(json!({"layout": layout, "partner": spec, "model": "rule-based", "turn_based": true})).await;
        assert_eq!(st, 200, "{spec}: {v}");
        if let Some(id) = stop(&v) {
            page.post_json(&format!("/api/play/{id}/stop"), json!({})).await;
        }
    }
    assert_eq!(canned.hits(), 0, "no game above asked the served model");
}

/// Plays a turn-based game of `partner` on `layout` until the canned server has been
/// asked, pressing `key`.
async fn until_asked(page: &Page, canned: &CannedServer, layout: &str, partner: &str, key: &str) -> Value {
    let (st, v) = page.play(json!({"layout": layout, "partner": partner, "turn_based": true, "human_seat": 0})).await;
    assert_eq!(st, 200, "{partner}: {v}");
    let id = v["id"].as_str().unwrap().to_string();
    for _ in 0..200 {
        if canned.hits() > 0 {
            break;
        }
        page.post_json(&format!("/api/play/{id}/key"), json!({"action": key})).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_, mut status) = page.get(&format!("/api/play/{id}")).await;
    status["svg"] = Value::Null;
    page.post_json(&format!("/api/play/{id}/stop"), json!({})).await;
    status
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offered_model_named_in_a_seat_spec_is_reached_at_the_servers_address_with_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    for (layout, partner, key) in
        [("capture:1", "llmco[model=served,tom=off]", "S"), ("cramped_room", "proagent[model=served,memory_k=2]", "S")]
    {
        let canned = CannedServer::start(vec![Canned::reply("Action: wait")]).await;
        let page = start_offering(&canned, tmp.path()).await;
        let status = until_asked(&page, &canned, layout, partner, key).await;
        assert!(canned.hits() > 0, "{partner}: the served model was never asked at its address: {status}");
        let request = canned.last_request.lock().unwrap().to_lowercase();
        assert!(request.contains("authorization: bearer sk-the-servers-own-key"), "{partner}: {request:.400}");
        assert!(request.contains("\"model\":\"served\""), "{partner}: {request:.600}");
    }
}
