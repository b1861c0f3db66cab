//! The viewer and human play in a real browser: headless Chromium driven over the
//! DevTools protocol (a websocket on loopback). It opens a committed transcript, steps
//! through it with the keyboard, reads the model's analysis shown at step 12, takes a
//! screenshot and checks it is not blank, then plays a short turn-based game with key
//! presses and checks the saved trajectory with `proagent verify-trace`. Then the same for
//! OvercookedV2: a V2 transcript (played with a view radius) rendered and stepped, the
//! recipe read beside the board, one player's view shaded, and a few V2 moves by keyboard.
//! Games of ProAgent and LLM-Co against a mock reasoning model (`proagent mock-server
//! --reasoning field`) show the model's reasoning text in the step panel.
//!
//! Needs Debian's `chromium` (or `PROAGENT_CHROMIUM=/path/to/chrome`); without it the test
//! fails saying so (it never skips: a skipped browser test would pass without testing).
//! `PROAGENT_VIEWER_SCREENSHOT=FILE` keeps the screenshot, `PROAGENT_VIEWER_SCREENSHOT_V2=FILE`
//! the V2 one.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TRANSCRIPT: &str = "transcripts/committed/cramped_room.jsonl";

fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PROAGENT_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Kills the processes this test started when it ends, however it ends.
struct Killer(Vec<Child>);

impl Drop for Killer {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A DevTools protocol client on the browser's websocket, talking to one page through a
/// flattened session.
struct Cdp {
    ws: tungstenite::WebSocket<TcpStream>,
    next: u64,
    session: Option<String>,
}

impl Cdp {
    fn connect(port: u16, path: &str) -> Cdp {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let (ws, _) = tungstenite::client(format!("ws://127.0.0.1:{port}{path}"), stream).unwrap();
        let mut cdp = Cdp { ws, next: 1, session: None };
        let target = cdp.call("Target.createTarget", json!({"url": "about:blank"}));
        let attached = cdp.call("Target.attachToTarget", json!({"targetId": target["targetId"], "flatten": true}));
        cdp.session = Some(attached["sessionId"].as_str().unwrap().to_string());
        cdp
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        let msg = msg.to_string();
        self.ws.send(tungstenite::Message::text(msg)).unwrap();
        loop {
            let m = self.ws.read().unwrap_or_else(|e| panic!("{method}: {e}"));
            let tungstenite::Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    panic!("{method}: {e}");
                }
                return v["result"].clone();
            }
        }
    }

    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call("Runtime.evaluate", json!({"expression": expr, "returnByValue": true, "awaitPromise": true}));
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expr}: {e}");
        }
        r["result"]["value"].clone()
    }

    /// Waits until `expr` is truthy (an exception counts as not yet: the page may still be
    /// loading); panics with `what` after 20 s.
    fn wait(&mut self, expr: &str, what: &str) -> Value {
        let t0 = Instant::now();
        let guarded = format!("(() => {{ try {{ return ({expr}); }} catch (e) {{ return null; }} }})()");
        loop {
            let v = self.eval(&guarded);
            if !(v.is_null() || v == false || v == "") {
                return v;
            }
            if t0.elapsed() > Duration::from_secs(20) {
                let page = self.eval("document.body.innerText.slice(0, 2000)");
                panic!("timed out waiting for {what} ({expr}); the page says:\n{page}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn key(&mut self, key: &str, code: &str, vk: u32) {
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}),
            );
        }
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        let take = chunk.len() - 1;
        for i in 0..take {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// The share of pixels that differ from the most common colour, and how many colours there are.
fn picture_stats(png_bytes: &[u8]) -> (f64, usize, (u32, u32)) {
    let decoder = png::Decoder::new(png_bytes);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let mut counts = std::collections::HashMap::new();
    for px in buf[..info.buffer_size()].chunks(channels) {
        *counts.entry(px[..3.min(channels)].to_vec()).or_insert(0usize) += 1;
    }
    let total: usize = counts.values().sum();
    let top = counts.values().max().copied().unwrap_or(0);
    (1.0 - top as f64 / total as f64, counts.len(), (info.width, info.height))
}

#[test]
fn viewer_and_human_play_in_headless_chromium() {
    // A missing browser fails the test rather than skipping it: a skipped browser test
    // would pass without testing the page (`.ci/run` installs Debian's chromium).
    let Some(chromium) = find_chromium() else {
        panic!(
            "web_browser: no Chromium found, so the viewer's browser test cannot run; install it \
             (apt-get install -y chromium) or set PROAGENT_CHROMIUM=/path/to/chrome"
        );
    };
    let t0 = Instant::now();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let games = tmp.path().join("games");
    let mut procs = Killer(Vec::new());
    // A V2 episode played with a view radius, for the viewer.
    let v2_dir = tmp.path().join("v2");
    std::fs::create_dir_all(&v2_dir).unwrap();
    let v2_transcript = v2_dir.join("v2-grounded.jsonl");
    let out = crate::support::bin()
        .args(["play", "--layout", "v2:grounded_coord_simple", "--agent", "proagent", "--partner", "scripted"])
        .args(["--view-radius", "2", "--horizon", "40", "--seed", "1", "--transcript"])
        .arg(&v2_transcript)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Short games of both agents against a mock reasoning model (its reasoning text in
    // `reasoning_content`), for the reasoning panel.
    let mock = crate::support::Mock::start(&["--reasoning", "field"]);
    let mut reasoning_games = Vec::new();
    for agent in ["proagent", "llmco"] {
        let path = v2_dir.join(format!("reasoning-{agent}.jsonl"));
        let extra = ["--horizon", "6", "--transcript", path.to_str().unwrap()];
        let out = crate::reasoning::play(&mock, "cramped_room", agent, "gpt-4o", &extra);
        assert!(out.status.success(), "{agent}: {}", String::from_utf8_lossy(&out.stderr));
        reasoning_games.push((agent, path.display().to_string()));
    }
    drop(mock);

    let mut server = crate::support::bin()
        .args(["serve", "--addr", "127.0.0.1:0", "--games-dir"])
        .arg(&games)
        .arg("transcripts/committed")
        .arg(&v2_dir)
        .current_dir(repo)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = server.stdout.take().unwrap();
    procs.0.push(server);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let base = line.trim().strip_prefix("serving ").unwrap_or_else(|| panic!("server said {line:?}")).to_string();

    let profile = tmp.path().join("profile");
    let browser = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-debugging-port=0",
            "--window-size=1400,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", chromium.display()));
    procs.0.push(browser);
    let port_file = profile.join("DevToolsActivePort");
    // Its first line is the port, its second the browser's websocket path.
    let (port, path): (u16, String) = loop {
        if let Ok(text) = std::fs::read_to_string(&port_file) {
            let mut lines = text.lines();
            if let (Some(Ok(p)), Some(path)) = (lines.next().map(|l| l.trim().parse()), lines.next()) {
                break (p, path.trim().to_string());
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "Chromium wrote no DevToolsActivePort");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut cdp = Cdp::connect(port, &path);
    cdp.call("Page.enable", json!({}));

    // The viewer on a committed transcript.
    cdp.call("Page.navigate", json!({"url": format!("{base}#open={TRANSCRIPT}")}));
    cdp.wait("document.getElementById('frame-label').textContent.startsWith('t = 0 / 60')", "the transcript to open");
    cdp.wait("document.querySelector('#board svg') !== null", "the board");
    for _ in 0..12 {
        cdp.key("ArrowRight", "ArrowRight", 39);
    }
    cdp.wait("document.getElementById('frame-label').textContent.startsWith('t = 12 / 60')", "step 12");
    let panel = cdp.eval("document.getElementById('step-panel').innerText").as_str().unwrap().to_string();
    assert!(panel.contains("<Pot 0> is cooking (18 timesteps left)"), "{panel}");
    assert!(panel.contains("Plan: fill_dish_with_soup()"), "{panel}");
    assert!(panel.contains("Skill succeeded"), "{panel}");
    cdp.key("ArrowLeft", "ArrowLeft", 37);
    cdp.wait("document.getElementById('frame-label').textContent.startsWith('t = 11 / 60')", "step 11");
    cdp.key("ArrowRight", "ArrowRight", 39);
    cdp.wait("document.getElementById('frame-label').textContent.startsWith('t = 12 / 60')", "step 12 again");
    // The board of frame 12 is in the page before the picture is taken.
    cdp.wait("document.querySelector('#board svg') !== null", "the board of step 12");
    std::thread::sleep(Duration::from_millis(200));
    let shot = cdp.call("Page.captureScreenshot", json!({"format": "png"}));
    let png = base64_decode(shot["data"].as_str().unwrap());
    let (busy, colours, (w, h)) = picture_stats(&png);
    assert!(w >= 800 && h >= 600, "{w}x{h}");
    assert!(busy > 0.05 && colours > 50, "the screenshot looks blank: {busy:.3} non-background, {colours} colours");
    if let Some(p) = std::env::var_os("PROAGENT_VIEWER_SCREENSHOT") {
        std::fs::write(&p, &png).unwrap();
    }

    // A short turn-based human game against greedy.
    cdp.eval("document.getElementById('tab-play').click()");
    cdp.wait("document.getElementById('pf-layout').options.length > 0", "the game options");
    cdp.eval(
        "(() => { const g = (i) => document.getElementById(i); g('pf-layout').value = 'cramped_room'; \
         g('pf-layout').dispatchEvent(new Event('change')); g('pf-partner').value = 'greedy'; \
         g('pf-horizon').value = '8'; g('pf-turn').checked = true; g('play-start').click(); return true; })()",
    );
    cdp.wait("document.getElementById('play-status').textContent.startsWith('Playing')", "the game to start");
    let keys = [
        ("ArrowLeft", "ArrowLeft", 37),
        ("ArrowUp", "ArrowUp", 38),
        (" ", "Space", 32),
        ("ArrowRight", "ArrowRight", 39),
        ("ArrowDown", "ArrowDown", 40),
        (" ", "Space", 32),
        ("ArrowUp", "ArrowUp", 38),
        ("ArrowLeft", "ArrowLeft", 37),
    ];
    for (k, (key, code, vk)) in keys.iter().enumerate() {
        cdp.key(key, code, *vk);
        cdp.wait(
            &format!("document.getElementById('play-status').textContent.includes('t = {} / 8')", k + 1),
            "a step",
        );
    }
    cdp.wait("document.getElementById('play-status').textContent.startsWith('Game over')", "the end of the game");
    let traj =
        cdp.wait("(document.querySelector('#play-files .saved-trajectory') || {}).textContent", "the saved files");
    let human = cdp.eval("document.querySelector('#play-files .saved-human').textContent");
    let traj = traj.as_str().unwrap();
    let out = crate::support::bin().args(["verify-trace", traj]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.contains("PASS") && said.contains("(8 steps"), "{said}");
    let out = crate::support::bin().args(["analyze", human.as_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("8 steps"));
    // The human moved as told: the first key turned player 0 west.
    let t: Value = serde_json::from_str(std::fs::read_to_string(traj).unwrap().trim()).unwrap();
    assert_eq!(t["steps"][0]["actions"][0], "W");
    assert_eq!(t["steps"][2]["actions"][0], "I");

    // OvercookedV2 in the viewer: the page reloads on the V2 transcript.
    let v2_path = v2_transcript.display().to_string();
    cdp.call("Page.navigate", json!({"url": format!("{base}?v2#open={v2_path}")}));
    cdp.wait(
        "document.getElementById('frame-label').textContent.startsWith('t = 0 / 40')",
        "the V2 transcript to open",
    );
    cdp.wait("document.querySelector('#board svg') !== null", "the V2 board");
    let title = cdp.eval("document.getElementById('episode-title').textContent").as_str().unwrap().to_string();
    assert!(title.contains("v2:grounded_coord_simple") && title.contains("proagent[rule-based] (P0)"), "{title}");
    for _ in 0..5 {
        cdp.key("ArrowRight", "ArrowRight", 39);
    }
    cdp.wait("document.getElementById('frame-label').textContent.startsWith('t = 5 / 40')", "V2 step 5");
    let caption = cdp.eval("document.getElementById('caption').textContent").as_str().unwrap().to_string();
    assert!(caption.starts_with("recipe: "), "{caption}");
    let panel = cdp.eval("document.getElementById('step-panel').innerText").as_str().unwrap().to_string();
    assert!(panel.contains("Step t = 5") && panel.contains("P1"), "{panel}");
    // Player 0's view, shaded (the episode was played with a view radius).
    assert_eq!(cdp.eval("document.getElementById('view-label').classList.contains('hidden')"), false);
    cdp.eval("(() => { const v = document.getElementById('view-of'); v.value = '0'; v.onchange(); return true; })()");
    cdp.wait("document.querySelector('#board svg') !== null && document.getElementById('board').innerHTML.includes('opacity')", "the shaded view");
    std::thread::sleep(Duration::from_millis(200));
    let shot = cdp.call("Page.captureScreenshot", json!({"format": "png"}));
    let png = base64_decode(shot["data"].as_str().unwrap());
    let (busy, colours, _) = picture_stats(&png);
    assert!(busy > 0.05 && colours > 50, "the V2 screenshot looks blank: {busy:.3} non-background, {colours} colours");
    if let Some(p) = std::env::var_os("PROAGENT_VIEWER_SCREENSHOT_V2") {
        std::fs::write(&p, &png).unwrap();
    }

    // A reasoning model's text beside the board, under each exchange of either agent.
    for (agent, path) in &reasoning_games {
        cdp.call("Page.navigate", json!({"url": format!("{base}?{agent}#open={path}")}));
        cdp.wait("document.getElementById('frame-label').textContent.startsWith('t = 0 / 6')", "the reasoning game");
        let text = cdp.wait(
            "[...document.querySelectorAll('#step-panel .card details.reasoning')].map((d) => d.innerText).join('\\n')",
            &format!("{agent}'s reasoning panel"),
        );
        let text = text.as_str().unwrap();
        assert!(text.contains("model's reasoning") && text.contains(proagent_mock::REASONING_TEXT), "{agent}: {text}");
        let visible = cdp.eval(
            "[...document.querySelectorAll('#step-panel details.reasoning pre')].some((p) => p.offsetHeight > 0)",
        );
        assert_eq!(visible, true, "{agent}: the reasoning is shown open");
    }

    // A few V2 moves by keyboard: turn-based, against the scripted cook.
    cdp.eval("document.getElementById('tab-play').click()");
    cdp.wait("document.getElementById('pf-layout').options.length > 0", "the game options");
    cdp.eval(
        "(() => { const g = (i) => document.getElementById(i); g('pf-layout').value = 'v2:cramped_room_v2'; \
         g('pf-layout').dispatchEvent(new Event('change')); g('pf-partner').value = 'scripted'; \
         g('pf-horizon').value = '5'; g('pf-turn').checked = true; g('pf-radius').value = '2'; \
         g('play-start').click(); return true; })()",
    );
    cdp.wait("document.getElementById('play-status').textContent.startsWith('Playing')", "the V2 game to start");
    let status = cdp.eval("document.getElementById('play-status').textContent").as_str().unwrap().to_string();
    assert!(status.contains("v2:cramped_room_v2") && status.contains("with scripted"), "{status}");
    let keys = [
        ("ArrowDown", "ArrowDown", 40),
        ("ArrowLeft", "ArrowLeft", 37),
        (" ", "Space", 32),
        ("ArrowUp", "ArrowUp", 38),
        (" ", "Space", 32),
    ];
    for (k, (key, code, vk)) in keys.iter().enumerate() {
        cdp.key(key, code, *vk);
        cdp.wait(
            &format!("document.getElementById('play-status').textContent.includes('t = {} / 5')", k + 1),
            "a V2 step",
        );
    }
    cdp.wait("document.getElementById('play-status').textContent.startsWith('Game over')", "the end of the V2 game");
    let traj =
        cdp.wait("(document.querySelector('#play-files .saved-trajectory') || {}).textContent", "the saved V2 files");
    let traj = traj.as_str().unwrap();
    let out = crate::support::bin().args(["show", "--trajectory", traj, "--step", "5"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("t=4 actions=[I, "), "the last move was the human's");
    let t: Value = serde_json::from_str(std::fs::read_to_string(traj).unwrap().trim()).unwrap();
    let mine: Vec<&str> = t["steps"].as_array().unwrap().iter().map(|s| s["actions"][0].as_str().unwrap()).collect();
    assert_eq!(mine, ["S", "W", "I", "N", "I"]);
    assert_eq!(t["settings"]["view_radius"], 2);

    // The Play tab offers every game of the catalog: each played to its end by picking
    // moves (buttons for the turn games, arrow keys for Overcooked) against its default
    // partner, the person in the last seat.
    cdp.call("Page.navigate", json!({"url": format!("{base}#tab=play")}));
    cdp.wait("document.getElementById('pf-layout').options.length > 0", "the game options");
    let offered =
        cdp.eval("JSON.stringify(P.options.games.map((g) => [g.kind, g.layouts[0].spec, g.layouts[0].players]))");
    let offered: Vec<(String, String, usize)> = serde_json::from_str(offered.as_str().unwrap()).unwrap();
    let kinds: Vec<&str> = offered.iter().map(|g| g.0.as_str()).collect();
    for kind in ["hanabi", "collab_capture", "collab_escape", "lever", "overcooked_v2", "overcooked"] {
        assert!(kinds.contains(&kind), "the Play tab offers {kind}: {kinds:?}");
    }
    for (kind, layout, players) in &offered {
        choose_game(&mut cdp, layout, players - 1, None, "");
        let end = play_to_end(&mut cdp);
        assert!(end.starts_with("Game over"), "{kind} {layout}: {end}");
        let traj =
            cdp.wait("(document.querySelector('#play-files .saved-trajectory') || {}).textContent", "the saved game");
        let out = crate::support::bin().args(["show", "--trajectory", traj.as_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{kind}: {}", String::from_utf8_lossy(&out.stderr));
        let errors = cdp.eval("document.getElementById('play-files').innerText");
        assert!(!errors.as_str().unwrap().contains("ended early"), "{kind}: {errors}");
    }

    // A game against LLM-Co stopped at step 6: its transcript replays exactly, and the
    // viewer shows each exchange by its step, the partner prediction beside what the
    // partner then did.
    // (On Overcooked LLM-Co's Theory-of-Mind step is off unless asked for: the seat spec asks.)
    choose_game(&mut cdp, "cramped_room", 0, None, "llmco[tom=on]");
    for k in 0..6 {
        cdp.eval("document.body.dispatchEvent(new KeyboardEvent('keydown', {key: ' ', bubbles: true})); true");
        cdp.wait(&format!("P.last && P.last.t >= {}", k + 1), "a step against LLM-Co");
    }
    cdp.eval("document.getElementById('play-stop').click()");
    cdp.wait("document.getElementById('play-status').textContent.startsWith('Game over')", "the stopped game");
    let transcript =
        cdp.wait("(document.querySelector('#play-files .saved-transcript') || {}).textContent", "the saved transcript");
    let transcript = transcript.as_str().unwrap().to_string();
    let out = crate::support::bin().args(["replay", &transcript]).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && !said.contains("DIVERGED"), "{said}");
    cdp.eval("document.querySelector('#play-files .saved-transcript').click()");
    cdp.wait(
        "document.getElementById('frame-label').textContent.startsWith('t = 0 / 6')",
        "the stopped game in the viewer",
    );
    cdp.wait(
        "document.querySelector('#step-panel .card[data-kind=tom]') !== null",
        "a Theory-of-Mind exchange at t = 0",
    );
    let panel = cdp.eval("document.getElementById('step-panel').innerText").as_str().unwrap().to_string();
    assert!(panel.contains("Theory of Mind: partner prediction"), "{panel}");
    assert!(panel.contains("The partner then did: P0 at t = 0"), "{panel}");
    assert!(panel.contains("Action"), "{panel}");
    assert!(!panel.contains("Verificator"), "LLM-Co's steps are not ProAgent's verificator: {panel}");

    // A page of another origin (another port on loopback) tries to use the server: a
    // "simple" text/plain POST that starts a game, a JSON POST, reading the file list and
    // the page (for its token), and an image of a device file. None may get through.
    let saved_before = std::fs::read_dir(&games).map_or(0, |d| d.count());
    let attacker = attacker_page(&base);
    cdp.call("Page.navigate", json!({"url": attacker}));
    let results = cdp.wait("window.attackDone && JSON.stringify(window.attack)", "the other page's attempts");
    let results: Value = serde_json::from_str(results.as_str().unwrap()).unwrap();
    assert_eq!(results["json_post"], "blocked", "{results}");
    assert_eq!(results["files"], "blocked", "{results}");
    assert_eq!(results["page"], "blocked", "{results}");
    assert_eq!(results["image"], "blocked", "{results}");
    // The no-cors POST is sent but answered 403 (its answer is opaque to the page): no game.
    std::thread::sleep(Duration::from_millis(800));
    let saved_after = std::fs::read_dir(&games).map_or(0, |d| d.count());
    assert_eq!(saved_before, saved_after, "a page of another origin started a game: {results}");
    eprintln!("web_browser: viewer and game checked in Chromium in {:.1} s", t0.elapsed().as_secs_f64());
}

/// Picks `layout` on the Play tab (the game's default partner, or the first choice whose
/// value starts with `partner`, or the seat spec `spec` when not empty), the person in
/// `seat`, turn-based, 8 steps; starts it.
fn choose_game(cdp: &mut Cdp, layout: &str, seat: usize, partner: Option<&str>, spec: &str) {
    let script = format!(
        "(() => {{ const g = (i) => document.getElementById(i); g('pf-layout').value = {layout:?}; \
         g('pf-layout').dispatchEvent(new Event('change')); g('pf-seat').value = '{seat}'; \
         g('pf-seat').dispatchEvent(new Event('change')); const want = {want}; \
         if (want) {{ const o = [...g('pf-partner').options].find((o) => o.value.startsWith(want)); g('pf-partner').value = o.value; }} \
         g('pf-horizon').value = '8'; g('pf-turn').checked = true; g('pf-spec').value = {spec:?}; \
         window.oldGame = P.id; g('play-start').click(); return true; }})()",
        want = partner.map_or("null".to_string(), |p| format!("{p:?}")),
    );
    cdp.eval(&script);
    cdp.wait("P.id && P.id !== window.oldGame && P.last && P.last.id === P.id", &format!("{layout} to start"));
}

/// Plays the running game to its end in the page, one move per step: a button of the
/// turn games, an arrow key or space in Overcooked; returns the final status line.
fn play_to_end(cdp: &mut Cdp) -> String {
    let script = "(async () => {
        const keys = ['ArrowLeft', 'ArrowUp', ' ', 'ArrowRight', 'ArrowDown', ' '];
        const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
        for (let i = 0; i < 600; i++) {
          const s = P.last;
          if (s && s.done) return document.getElementById('play-status').textContent;
          const buttons = document.querySelectorAll('#play-moves button.move');
          if (!s || !s.moves.length || (!ARROW_GAMES.has(s.game) && !buttons.length)) { await sleep(40); continue; }
          const t = s.t;
          if (ARROW_GAMES.has(s.game)) document.body.dispatchEvent(new KeyboardEvent('keydown', { key: keys[i % keys.length], bubbles: true }));
          else buttons[(i * 3 + 1) % buttons.length].click();
          for (let w = 0; w < 200 && P.last && !P.last.done && P.last.t === t; w++) { await sleep(20); await pollGame(); }
        }
        return 'not over: ' + document.getElementById('play-status').textContent;
      })()";
    cdp.eval(script).as_str().unwrap_or_default().to_string()
}

/// Serves, on another loopback port (another origin), a page that tries to use the
/// proagent server at `base`; returns its URL. The page records each attempt's outcome in
/// `window.attack` and sets `window.attackDone`.
fn attacker_page(base: &str) -> String {
    let base = base.trim_end_matches('/');
    let game = r#"{"layout":"cramped_room","partner":"greedy","horizon":2,"step_ms":30}"#;
    let html = format!(
        r#"<!doctype html><html><body><script>
window.attack = {{}};
const B = "{base}";
const game = '{game}';
async function attempt(name, f) {{
  try {{ const r = await f(); window.attack[name] = r; }} catch (e) {{ window.attack[name] = "blocked"; }}
}}
(async () => {{
  await attempt("simple_post", async () => {{ const r = await fetch(B + "/api/play", {{ method: "POST", mode: "no-cors", headers: {{ "content-type": "text/plain" }}, body: game }}); return r.type; }});
  await attempt("json_post", async () => {{ const r = await fetch(B + "/api/play", {{ method: "POST", headers: {{ "content-type": "application/json" }}, body: game }}); return "status " + r.status; }});
  await attempt("files", async () => {{ const r = await fetch(B + "/api/files"); return await r.text(); }});
  await attempt("page", async () => {{ const r = await fetch(B + "/"); return await r.text(); }});
  await new Promise((done) => {{
    const img = new Image();
    img.onload = () => {{ window.attack.image = "loaded"; done(); }};
    img.onerror = () => {{ window.attack.image = "blocked"; done(); }};
    img.src = B + "/api/episode?path=/dev/zero";
  }});
  window.attackDone = true;
}})();
</script></body></html>"#
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut buf);
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                html.len()
            );
            let _ = std::io::Write::write_all(&mut stream, answer.as_bytes());
        }
    });
    format!("http://127.0.0.1:{port}/")
}
