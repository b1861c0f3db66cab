// proagent viewer and human play. Plain JS, no framework, nothing loaded from elsewhere.
// The board pictures come from the server (/api/board/...), drawn by the same Rust code
// as `proagent render`.
"use strict";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

function say(text) { $("message").textContent = text || ""; }

// Every API call carries this server start's token (it is in the page's HTML; other
// pages cannot read it), and JSON bodies say they are JSON.
const TOKEN = document.querySelector('meta[name="proagent-token"]').content;
function send(url, opts) {
  const o = Object.assign({}, opts || {});
  o.headers = Object.assign({ "x-proagent-token": TOKEN }, o.headers || {});
  return fetch(url, o);
}

async function api(url, opts) {
  const r = await send(url, opts);
  let body = null;
  try { body = await r.json(); } catch (_) { /* not JSON */ }
  if (!r.ok) throw new Error((body && body.error) || `${r.status} ${r.statusText}`);
  return body;
}

// ---------- tabs ----------
let tab = "view";
function showTab(name) {
  tab = name;
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === name);
  $("page-view").classList.toggle("hidden", name !== "view");
  $("page-play").classList.toggle("hidden", name !== "play");
  if (name === "play") loadPlayOptions();
}
for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => showTab(b.dataset.tab));

// ---------- viewer ----------
const V = { ep: null, frame: 0, timer: null, cache: new Map(), pending: new Map() };

async function loadFiles() {
  try {
    const d = await api("/api/files");
    const out = [];
    for (const r of d.roots) {
      if (r.kind === "file") out.push(`<a data-path="${esc(r.path)}" data-kind="file">${esc(r.path)}</a>`);
      else if (r.kind === "eval") out.push(`<a class="eval" data-path="${esc(r.path)}" data-kind="eval">${esc(r.path)}</a>`);
      else {
        out.push(`<div class="root">${esc(r.path)}/</div>`);
        for (const e of r.entries) {
          const cls = e.kind === "eval" ? "eval" : "";
          out.push(`<a class="${cls}" data-path="${esc(e.path)}" data-kind="${esc(e.kind)}">${esc(e.path.slice(r.path.length + 1) || e.path)}</a>`);
        }
        if (!r.entries.length) out.push(`<div class="hint">(no episode files)</div>`);
      }
    }
    $("file-list").innerHTML = out.join("") || "<div class='hint'>Start the server with files or directories to list them here.</div>";
  } catch (e) { $("file-list").textContent = e.message; }
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest("a[data-path]");
  if (!a) return;
  ev.preventDefault();
  if (a.dataset.kind === "eval") openEval(a.dataset.path);
  else openPath(a.dataset.path, Number(a.dataset.index || 0));
});

async function openEval(path) {
  say("");
  try {
    const d = await api(`/api/eval?path=${encodeURIComponent(path)}`);
    const rows = [];
    for (const c of d.cells) {
      const mean = c.mean_score === null ? "no mean (no episode with a checksum)" : `mean ${c.mean_score.toFixed(1)}`;
      const left = c.unchecked > 0 ? ` · ${c.unchecked} without a checksum, not averaged` : "";
      rows.push(`<tr><th colspan="3">${esc(c.layout)} · ${esc(c.agent)} + ${esc(c.partner)} · seat ${c.seat} · ${mean}${left}</th></tr>`);
      for (const e of c.episodes) {
        const file = e.transcript || e.trajectory;
        const link = file ? `<a data-path="${esc(file)}" data-kind="file">open</a>` : `<span class="hint">no file kept</span>`;
        const mark = e.checked ? "" : ` <span class="hint">(no checksum: unverified)</span>`;
        rows.push(`<tr><td>seed ${e.seed}</td><td>score ${e.score}${mark}</td><td>${link}</td></tr>`);
      }
    }
    const note = d.unchecked.excluded > 0
      ? `<p class="hint">${d.unchecked.excluded} records carry no checksum (written before records had one, or the field was removed): listed, but left out of the means.</p>`
      : "";
    $("eval-table").innerHTML = `<h2>${esc(d.path)} (${d.records} episodes)</h2>${note}<table>${rows.join("")}</table>`;
  } catch (e) { say(e.message); }
}

async function openPath(path, index) {
  say("");
  try {
    const ep = await api(`/api/episode?path=${encodeURIComponent(path)}&index=${index || 0}`);
    showEpisode(ep);
    history.replaceState(null, "", `#open=${encodeURIComponent(path)}&index=${index || 0}`);
  } catch (e) { say(e.message); }
}

$("upload").addEventListener("change", async () => {
  const f = $("upload").files[0];
  if (!f) return;
  say("");
  try {
    const ep = await api(`/api/upload?name=${encodeURIComponent(f.name)}`, { method: "POST", headers: { "content-type": "application/octet-stream" }, body: await f.arrayBuffer() });
    showEpisode(ep);
  } catch (e) { say(e.message); }
});

function showEpisode(ep) {
  pause();
  V.ep = ep;
  V.cache = new Map();
  V.pending = new Map();
  V.byFrame = new Map();
  for (const e of ep.events) {
    if (!V.byFrame.has(e.t)) V.byFrame.set(e.t, []);
    V.byFrame.get(e.t).push(e);
  }
  V.plans = ep.events.filter((e) => e.type === "exchange" && e.kind === "planner");
  V.view = null;
  const viewOf = $("view-of");
  viewOf.innerHTML = `<option value="">all</option>` +
    Array.from({ length: ep.players }, (_, i) => `<option value="${i}">player ${i}</option>`).join("");
  $("view-label").classList.toggle("hidden", !ep.partial_view);
  const who = ep.agents ? " · " + ep.agents.map((a, i) => `${a} (P${i})`).join(" + ") : "";
  const more = ep.count > 1 ? ` · episode ${ep.index + 1} of ${ep.count}` : "";
  $("episode-title").textContent = `${ep.source} · ${ep.kind} · ${ep.layout.name}${who}${more}`;
  if (ep.count > 1) {
    const links = [];
    for (let i = 0; i < Math.min(ep.count, 200); i++) {
      links.push(`<a style="display:inline" data-path="${esc(ep.source)}" data-index="${i}" data-kind="file">${i}</a>`);
    }
    $("episode-title").insertAdjacentHTML("beforeend", `<div class="hint">episodes: ${links.join(" ")}</div>`);
  }
  $("scrubber").max = String(ep.frames - 1);
  const tw = ep.teamwork || {};
  const sum = ep.summary || {};
  const lines = [`final score ${ep.score[ep.score.length - 1]} in ${ep.steps} steps`];
  lines.push(ep.teamwork_line || (tw.error ? `teamwork: ${tw.error}` : ""));
  if (sum.llm_calls !== undefined) lines.push(`model calls ${sum.llm_calls}, re-plans ${sum.replans ?? 0}, failed skills ${sum.skills_failed ?? 0}, belief accuracy ${sum.belief_accuracy ?? "-"}`);
  $("summary").textContent = lines.join("\n");
  drawChart();
  seek(0);
}

// Cells sized so the board is about 560 px wide; with a view chosen, what that player
// does not see is shaded.
function frameUrl(f) {
  const cell = Math.max(24, Math.min(112, Math.floor(560 / V.ep.layout.width)));
  const view = V.view === null ? "" : `&view=${V.view}`;
  return `/api/board/${V.ep.id}/${f}?cell=${cell}${view}`;
}
$("view-of").onchange = () => {
  const v = $("view-of").value;
  V.view = v === "" ? null : Number(v);
  V.cache = new Map();
  V.pending = new Map();
  seek(V.frame);
};

function fetchFrame(f) {
  if (V.cache.has(f)) return Promise.resolve(V.cache.get(f));
  if (V.pending.has(f)) return V.pending.get(f);
  const p = send(frameUrl(f)).then((r) => (r.ok ? r.text() : r.json().then((b) => { throw new Error(b.error); })))
    .then((svg) => { V.cache.set(f, svg); V.pending.delete(f); return svg; });
  V.pending.set(f, p);
  return p;
}

async function seek(f) {
  if (!V.ep) return;
  f = Math.max(0, Math.min(V.ep.frames - 1, f));
  V.frame = f;
  $("scrubber").value = String(f);
  $("frame-label").textContent = `t = ${f} / ${V.ep.frames - 1} · score ${V.ep.score[f]}`;
  $("caption").textContent = V.ep.captions ? (V.ep.captions[f] || "") : "";
  renderPanel(f);
  moveCursor(f);
  try {
    const svg = await fetchFrame(f);
    if (V.frame === f) $("board").innerHTML = svg;
  } catch (e) { say(e.message); }
  for (let k = 1; k <= 8; k++) if (f + k < V.ep.frames) fetchFrame(f + k).catch(() => {});
}

function play() {
  if (!V.ep) return;
  if (V.frame >= V.ep.frames - 1) seek(0);
  const fps = Number($("speed").value);
  V.timer = setInterval(() => {
    if (V.frame >= V.ep.frames - 1) { pause(); return; }
    seek(V.frame + 1);
  }, 1000 / fps);
  $("playpause").textContent = "pause";
}
function pause() {
  if (V.timer) clearInterval(V.timer);
  V.timer = null;
  $("playpause").textContent = "play";
}
function toggle() { if (V.timer) pause(); else play(); }

$("first").onclick = () => { pause(); seek(0); };
$("prev").onclick = () => { pause(); seek(V.frame - 1); };
$("next").onclick = () => { pause(); seek(V.frame + 1); };
$("last").onclick = () => { pause(); if (V.ep) seek(V.ep.frames - 1); };
$("playpause").onclick = toggle;
$("scrubber").oninput = () => { pause(); seek(Number($("scrubber").value)); };
$("speed").onchange = () => { if (V.timer) { pause(); play(); } };

document.addEventListener("keydown", (ev) => {
  if (tab === "play") { playKey(ev); return; }
  if (ev.target.closest("input, select, textarea")) return;
  if (!V.ep) return;
  const k = ev.key;
  if (k === "ArrowRight") { pause(); seek(V.frame + 1); }
  else if (k === "ArrowLeft") { pause(); seek(V.frame - 1); }
  else if (k === " ") toggle();
  else if (k === "Home") { pause(); seek(0); }
  else if (k === "End") { pause(); seek(V.ep.frames - 1); }
  else return;
  ev.preventDefault();
});

function drawChart() {
  const ep = V.ep;
  const n = Math.max(1, ep.frames - 1);
  const max = Math.max(20, ...ep.score);
  const min = Math.min(0, ...ep.score);
  const x = (f) => (f / n) * 600;
  const y = (s) => 85 - ((s - min) / (max - min)) * 75;
  const pts = ep.score.map((s, f) => `${x(f).toFixed(1)},${y(s).toFixed(1)}`).join(" ");
  const marks = [];
  for (const e of ep.events) {
    let color = null;
    if (e.type === "exchange" && e.replan) color = "#e07b39";
    else if (e.type === "exchange" && (e.kind === "verificator" || e.kind === "verify" || e.kind === "explainer")) color = "#8e44ad";
    else if (e.type === "skill" && e.outcome === "failed") color = "#d93b2b";
    else if (e.type === "handover" && e.phase === "receive") color = e.constructive ? "#d81b60" : "#f09abb";
    if (color) marks.push(`<line x1="${x(e.t)}" x2="${x(e.t)}" y1="0" y2="10" stroke="${color}" stroke-width="2"/>`);
  }
  $("score-chart").innerHTML =
    `<polyline points="${pts}" fill="none" stroke="#2f6bd8" stroke-width="2" vector-effect="non-scaling-stroke"/>` +
    marks.join("") + `<line id="cursor" x1="0" x2="0" y1="0" y2="90" stroke="#262b33" stroke-width="1" vector-effect="non-scaling-stroke"/>` +
    `<text x="4" y="22" font-size="11" fill="#6a737d">score (max ${max}${min < 0 ? `, min ${min}` : ""})</text>`;
}
function moveCursor(f) {
  const c = document.getElementById("cursor");
  if (!c || !V.ep) return;
  const xx = (f / Math.max(1, V.ep.frames - 1)) * 600;
  c.setAttribute("x1", xx); c.setAttribute("x2", xx);
}
$("score-chart").addEventListener("click", (ev) => {
  if (!V.ep) return;
  const r = $("score-chart").getBoundingClientRect();
  pause();
  seek(Math.round(((ev.clientX - r.left) / r.width) * (V.ep.frames - 1)));
});

const ACTION = { N: "↑ north", S: "↓ south", E: "→ east", W: "← west", X: "· stay", I: "interact" };

function field(name, value) {
  return value ? `<div class="field"><b>${esc(name)}:</b> ${esc(value)}</div>` : "";
}

// Each exchange titled by the step of the agent that made it: ProAgent's planner
// (analysis, intention, plan), verificator and explainer; LLM-Co's Theory-of-Mind,
// action and verification steps.
const KIND_TITLE = {
  planner: "Plan", verificator: "Verification", explainer: "Verification (explainer)",
  tom: "Theory of Mind: partner prediction", action: "Action", retry: "Action (asked again)", verify: "Verification",
};
function kindTitle(kind) { return KIND_TITLE[kind] || String(kind || "exchange"); }

// What the other players did next after step t (the first step at or after t where each moved).
function partnerDid(e) {
  const ep = V.ep;
  if (!ep || !ep.joint) return "";
  const out = [];
  for (let p = 0; p < ep.players; p++) {
    if (p === e.player) continue;
    for (let f = e.t; f < ep.joint.length; f++) {
      const a = ep.joint[f] && ep.joint[f][p];
      if (a !== null && a !== undefined) { out.push(`P${p} at t = ${f}: ${ACTION[a] || a}`); break; }
    }
  }
  return out.join("; ") || "(no later move recorded)";
}

function exchangeCard(e, current) {
  let cls = e.kind;
  let title = kindTitle(e.kind);
  if (e.replan) { cls = "replan"; title = "Re-plan"; }
  if (current) { cls = "current"; title = `Current plan (decided at t = ${e.t})`; }
  const prompt = (e.prompt || []).map((m) => `<b>${esc(m.role)}</b><pre>${esc(m.content)}</pre>`).join("");
  const lastUser = [...(e.prompt || [])].reverse().find((m) => m.role === "user");
  let body = "";
  if (e.kind === "planner") {
    body += field("Analysis", e.analysis) + field("Intention for teammate", e.intention) + field("Plan", e.plan);
    if (e.reply_error) body += field("Reply not readable", e.reply_error);
  } else {
    body += `<div class="field"><b>Asked:</b></div><pre>${esc(lastUser ? lastUser.content : "")}</pre>`;
    body += `<div class="field"><b>${e.kind === "tom" ? "Prediction" : "Answer"}:</b></div><pre class="answer">${esc(e.reply)}</pre>`;
    if (typeof e.parsed === "string") body += field("Read as", e.parsed);
  }
  if (e.kind === "tom" && !current) body += `<div class="field partner-did"><b>The partner then did:</b> ${esc(partnerDid(e))}</div>`;
  if (e.reasoning) body += `<details class="reasoning" open><summary>model's reasoning</summary><pre>${esc(e.reasoning)}</pre></details>`;
  if (e.error) body += field("Model error", e.error);
  if (e.parse_error) body += field("Parse error", e.parse_error);
  const details = current ? "" :
    `<details><summary>reply text</summary><pre>${esc(e.reply)}</pre></details>` +
    `<details><summary>prompt (${(e.prompt || []).length} messages)</summary>${prompt}</details>`;
  const who = e.player !== undefined && e.player !== null ? ` <span class="badge">player ${e.player}</span>` : "";
  return `<div class="card ${esc(cls)}" data-kind="${esc(e.kind)}"><h3>${esc(title)} <span class="badge">#${e.seq}</span>${who}</h3>${body}${details}</div>`;
}

function renderPanel(f) {
  const ep = V.ep;
  const out = [];
  const j = ep.joint[f];
  const acts = j ? j.map((a, i) => `<b>P${i}</b> ${esc(a === null ? "—" : ACTION[a] || a)}`).join(" · ") : "";
  out.push(`<div class="card"><h3>Step t = ${f}</h3>` +
    (j ? `<div class="field">${acts} · reward ${ep.rewards[f] ?? 0}</div>`
       : `<div class="field">the final state</div>`) + `</div>`);
  const here = V.byFrame.get(f) || [];
  const hasPlanHere = here.some((e) => e.type === "exchange" && e.kind === "planner");
  if (!hasPlanHere && V.plans.length) {
    let cur = null;
    for (const p of V.plans) { if (p.t <= f) cur = p; else break; }
    if (cur) out.push(exchangeCard(cur, true));
  }
  for (const e of here) {
    if (e.type === "exchange") out.push(exchangeCard(e, false));
    else if (e.type === "skill") {
      const failed = e.outcome === "failed";
      out.push(`<div class="card skill${failed ? " skill-failed" : ""}"><h3>Skill ${esc(e.outcome)}` +
        `<span class="badge ${failed ? "bad" : e.outcome === "succeeded" ? "good" : ""}">player ${e.player}</span></h3>` +
        field("Skill", e.skill) + field("Reason", e.reason) + `</div>`);
    } else if (e.type === "belief") {
      out.push(`<div class="card belief"><h3>Belief correction <span class="badge ${e.correct ? "good" : "bad"}">${e.correct ? "prediction right" : "prediction wrong"}</span></h3>` +
        field("Predicted at t = " + e.predicted_at, e.predicted) + field("Seen at t = " + e.real_at, e.real) + field("Mode", e.correction) + `</div>`);
    } else if (e.type === "handover") {
      const verb = e.phase === "give" ? `player ${e.giver} puts down` : `player ${e.receiver} picks up`;
      out.push(`<div class="card handover"><h3>Hand-over: ${esc(verb)} ${esc(e.object)} <span class="badge ${e.constructive ? "good" : ""}">${e.constructive ? "constructive" : "not constructive"}</span></h3>` +
        field("Counter", e.at ? `(${e.at[0]}, ${e.at[1]})` : "") + field("Given at / taken at", `t = ${e.t_give} / t = ${e.t_receive}`) + `</div>`);
    }
  }
  $("step-panel").innerHTML = out.join("");
}

// ---------- human play ----------
const P = { id: null, poll: null, options: null, last: null };

async function loadPlayOptions() {
  if (P.options) return;
  try {
    const o = await api("/api/play/options");
    P.options = o;
    // Every game of the server's catalog, its layouts or scenarios grouped under its title.
    P.layouts = new Map();
    const groups = [];
    for (const g of o.games) {
      const opts = g.layouts.map((l) => { P.layouts.set(l.spec, Object.assign({ game: g.kind }, l)); return `<option>${esc(l.spec)}</option>`; });
      groups.push(`<optgroup label="${esc(g.title)}">${opts.join("")}</optgroup>`);
    }
    $("pf-layout").innerHTML = groups.join("");
    $("pf-horizon").value = o.horizon;
    $("pf-step").value = o.step_ms;
    $("pf-step").min = o.step_ms_range[0];
    $("pf-step").max = o.step_ms_range[1];
    fillPartners();
  } catch (e) { say(e.message); }
}

// The seats and switches offered depend on the layout's game, as the server's catalog
// names it: the page never reads a spec's text.
function gameOf(layout) {
  return (P.options && P.options.layout_games[layout]) || "overcooked";
}
function layoutInfo(layout) {
  return (P.layouts && P.layouts.get(layout)) || { players: 2, default_partner: "greedy", game: gameOf(layout) };
}
// Games played with the arrow keys; the others by picking one of the legal moves.
const ARROW_GAMES = new Set(["overcooked", "overcooked_v2"]);
// The seats a layout can build (a learned partner only where a model is shipped for
// it); the language agents are offered once per model the server has, and the
// rule-based stand-in is labelled as such (it is not a language model).
function seatChoices(info) {
  const o = P.options;
  const list = info.partners || (o.partners_by_game && o.partners_by_game[info.game]) || o.partners;
  const out = [];
  for (const p of list) {
    if (p === "proagent" || p === "llmco") {
      for (const m of o.models) {
        const label = m === "rule-based" || m === "scripted" ? `${p} (rule-based stand-in, not a language model)` : `${p} with ${m}`;
        out.push({ value: `${p}[model=${m}]`, label });
      }
    } else out.push({ value: p, label: p });
  }
  return out;
}
function partnerSelect(id, info, def) {
  const opts = seatChoices(info).map((c) => `<option value="${esc(c.value)}" ${c.value === def ? "selected" : ""}>${esc(c.label)}</option>`);
  return `<select id="${id}">${opts.join("")}</select>`;
}
function fillPartners() {
  const o = P.options;
  if (!o) return;
  const info = layoutInfo($("pf-layout").value);
  const game = info.game;
  const def = info.default_partner;
  $("pf-partner").innerHTML = seatChoices(info).map((c) => `<option value="${esc(c.value)}" ${c.value === def ? "selected" : ""}>${esc(c.label)}</option>`).join("");
  const seat = Math.min(Number($("pf-seat").value || 0), info.players - 1);
  const colours = game === "overcooked" || game === "overcooked_v2" ? ["blue", "green"] : [];
  $("pf-seat").innerHTML = Array.from({ length: info.players }, (_, i) =>
    `<option value="${i}" ${i === seat ? "selected" : ""}>player ${i}${colours[i] ? ` (${colours[i]})` : ""}</option>`).join("");
  fillOtherSeats();
  $("pf-v2").classList.toggle("hidden", game !== "overcooked_v2");
  $("pf-horizon").value = info.horizon || o.horizon;
}
// Games of three or more players: one choice per other seat.
function fillOtherSeats() {
  const info = layoutInfo($("pf-layout").value);
  const human = Number($("pf-seat").value);
  const many = info.players > 2;
  $("pf-partner-label").classList.toggle("hidden", many);
  $("pf-others").innerHTML = many
    ? Array.from({ length: info.players }, (_, i) => i).filter((i) => i !== human)
      .map((i) => `<label>Player ${i} ${partnerSelect(`pf-partner-${i}`, info, info.default_partner)}</label>`).join("")
    : "";
}
$("pf-layout").addEventListener("change", fillPartners);
$("pf-seat").addEventListener("change", fillOtherSeats);

function v2Settings() {
  if (gameOf($("pf-layout").value) !== "overcooked_v2") return undefined;
  const r = $("pf-radius").value.trim();
  return {
    view_radius: r === "" ? null : Number(r),
    sample_recipe_on_delivery: $("pf-resample").checked,
    negative_rewards: $("pf-negative").checked,
    random_agent_positions: $("pf-random").checked,
    start_cooking_interaction: $("pf-oninteract").checked,
  };
}

async function startGame() {
  say("");
  const spec = $("pf-spec").value.trim();
  const info = layoutInfo($("pf-layout").value);
  const human = Number($("pf-seat").value);
  const others = info.players > 2
    ? Array.from({ length: info.players }, (_, i) => i).filter((i) => i !== human).map((i) => $(`pf-partner-${i}`).value)
    : undefined;
  const body = {
    layout: $("pf-layout").value,
    partner: spec || $("pf-partner").value,
    partners: others,
    human_seat: human,
    horizon: Number($("pf-horizon").value),
    seed: Number($("pf-seed").value),
    step_ms: Number($("pf-step").value),
    turn_based: $("pf-turn").checked,
    llm: $("pf-llm").value,
    v2: v2Settings(),
  };
  try {
    const s = await api("/api/play", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    P.id = s.id;
    $("play-files").innerHTML = "";
    $("play-stop").disabled = false;
    showGame(s);
    $("play-board").focus();
    if (P.poll) clearInterval(P.poll);
    const every = Math.max(40, Math.min(250, Math.floor(body.step_ms / 2)));
    P.poll = setInterval(pollGame, every);
  } catch (e) { say(e.message); }
}

async function pollGame() {
  if (!P.id) return;
  try { showGame(await api(`/api/play/${P.id}`)); } catch (e) { say(e.message); clearInterval(P.poll); P.poll = null; }
}

function pressMove(token) {
  if (!P.id || (P.last && P.last.done)) return;
  send(`/api/play/${P.id}/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ action: token }) })
    .then(() => setTimeout(pollGame, 30))
    .catch((e) => say(e.message));
}

// The legal moves of a game not played with the arrow keys, as buttons (keys 1-9 pick the first nine).
function showMoves(s) {
  const box = $("play-moves");
  if (ARROW_GAMES.has(s.game) || s.done) { box.innerHTML = ""; return; }
  if (!s.moves.length) { box.innerHTML = `<div class="hint">waiting for the other player…</div>`; return; }
  box.innerHTML = s.moves.map((m, i) =>
    `<button class="move" data-token="${esc(m.token)}">${i < 9 ? `<b>${i + 1}</b> ` : ""}${esc(m.label)}</button>`).join("");
}
$("play-moves").addEventListener("click", (ev) => {
  const b = ev.target.closest("button[data-token]");
  if (b) pressMove(b.dataset.token);
});

function showGame(s) {
  P.last = s;
  $("play-board").innerHTML = s.svg;
  showMoves(s);
  const colour = ARROW_GAMES.has(s.game) ? (s.human_seat === 0 ? " (blue)" : " (green)") : "";
  const you = `${s.layout} · you are player ${s.human_seat}${colour}${s.partner ? `, with ${s.partner}` : ""}`;
  $("play-status").textContent = `${s.done ? "Game over" : s.thinking ? "Waiting for the other seat…" : "Playing"} · t = ${s.t} / ${s.horizon} · score ${s.score} · ${you}`;
  $("play-events").innerHTML = s.events.map((e) => `<div>t = ${e.t}: player ${e.player} ${esc(e.skill)} ${esc(e.outcome)}${e.reason ? " (" + esc(e.reason) + ")" : ""}</div>`).join("");
  if (s.done) {
    if (P.poll) { clearInterval(P.poll); P.poll = null; }
    $("play-stop").disabled = true;
    const f = s.files || {};
    const items = [];
    for (const k of ["trajectory", "human", "transcript"]) {
      if (f[k]) items.push(`<div>${esc(k)}: <a data-path="${esc(f[k])}" data-kind="file" class="saved-${k}">${esc(f[k])}</a></div>`);
    }
    $("play-files").innerHTML = `<b>Saved</b>${items.join("")}${s.error ? `<div class="hint">${esc(s.error)}</div>` : ""}`;
  }
}

const KEYS = { ArrowUp: "N", ArrowDown: "S", ArrowRight: "E", ArrowLeft: "W", " ": "I", Spacebar: "I" };
function playKey(ev) {
  if (ev.target.closest("input, select, textarea")) return;
  if (P.last && !ARROW_GAMES.has(P.last.game)) {
    const k = Number(ev.key);
    if (k >= 1 && k <= 9 && P.last.moves[k - 1]) { ev.preventDefault(); pressMove(P.last.moves[k - 1].token); }
    return;
  }
  const a = KEYS[ev.key];
  if (!a || !P.id || (P.last && P.last.done)) return;
  ev.preventDefault();
  send(`/api/play/${P.id}/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ action: a }) })
    .then(() => { if (P.last && P.last.t === 0 || $("pf-turn").checked) setTimeout(pollGame, 30); })
    .catch((e) => say(e.message));
}

// Space must not also press a focused button (e.g. Start) while playing.
document.addEventListener("keyup", (ev) => { if (tab === "play" && KEYS[ev.key] && P.id) ev.preventDefault(); });

$("play-start").onclick = startGame;
$("play-stop").onclick = () => { if (P.id) send(`/api/play/${P.id}/stop`, { method: "POST" }).then(pollGame); };
document.addEventListener("click", (ev) => {
  // A saved game's link opens it in the viewer.
  if (ev.target.closest("#play-files a[data-path]")) showTab("view");
}, true);

// ---------- start ----------
loadFiles();
(function fromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.get("open")) openPath(h.get("open"), Number(h.get("index") || 0)).then(() => { if (h.get("t")) seek(Number(h.get("t"))); });
  else if (h.get("eval")) openEval(h.get("eval"));
  if (h.get("tab") === "play") showTab("play");
})();
