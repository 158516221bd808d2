// irscope report: renders the data embedded in #irscope-data (no network, no eval: text only via textContent).
// The data is one session (or one variant: no table), or a run's sessions ({sessions: [...]}), one shown at a time.
"use strict";
const DATA = JSON.parse(document.getElementById("irscope-data").textContent);
const EMPTY = { kernel: "", source: "", stages: [], columns: [], variants: [], runtime_note: "" };
const SESSIONS = DATA.sessions ? (DATA.sessions.length ? DATA.sessions : [EMPTY]) : [DATA];
const $ = (sel) => document.querySelector(sel);
let S = SESSIONS[0];
const state = { session: 0, variant: 0, stage: "ptx" };

// One lexer per dialect (ir/dialects.py: Dialect.web_lexer names the key here; tests/test_stages.py checks
// every dialect's is one): [class, regex] pairs tried at each position; sticky regexes.
const COMMON = [["k-com", /\/\/.*|;.*$/y], ["k-str", /"(?:[^"\\]|\\.)*"/y], ["k-num", /-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/y]];
const LEXERS = {
  ptx: [["k-com", /\/\/.*/y], ["k-dir", /\.[a-z][\w.]*/y], ["k-reg", /%[a-z]+\d*(?:\.[xyz])?/y], ["k-lab", /\$L\w+/y],
        ["k-num", /-?0[xXfFdD][0-9a-fA-F]+|-?\d+(?:\.\d+)?/y], ["k-op", /@?!?[a-z_][\w.:]*/y]],
  sass: [["k-com", /\/\/.*|\/\*[0-9a-f]+\*\//y], ["k-reg", /\b(?:U?R\d+|RZ|U?P[T\d]|URZ|SR_\w+)\b/y], ["k-lab", /\.L_x_\d+/y],
         ["k-num", /-?0x[0-9a-f]+|-?\d+(?:\.\d+)?/y], ["k-op", /@?!?[A-Z][A-Z0-9_.]*/y]],
  mlir: [["k-com", /\/\/.*|loc\([^)]*\)|#loc\d*/y], ["k-reg", /%[\w.$-]+|\^bb\d+/y], ["k-dir", /#[a-z_]+\d*/y],
         ["k-str", /"(?:[^"\\]|\\.)*"/y], ["k-num", /-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/y], ["k-op", /[a-z_]+\.[\w.]+/y]],
  llir: [["k-com", /;.*/y], ["k-reg", /%[\w.$-]+|@[\w.$-]+|![\w.]+/y], ["k-str", /"(?:[^"\\]|\\.)*"/y],
         ["k-num", /-?\d+(?:\.\d+)?/y], ["k-op", /\b(?:define|declare|call|ret|br|load|store|getelementptr|add|sub|mul|fadd|fmul|icmp|fcmp|select|phi|and|or|xor|shl|lshr|ashr|zext|sext|trunc|bitcast|tail)\b/y]],
  amdgcn: [["k-com", /;.*/y], ["k-lab", /\.L\w+/y], ["k-dir", /\.[a-z_][\w.]*/y],
           ["k-reg", /\b(?:[vsa]\[\d+:\d+\]|[vsa]\d+|vcc(?:_lo|_hi)?|exec(?:_lo|_hi)?|m0|scc)\b/y],
           ["k-num", /-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?/y], ["k-op", /[a-z][a-z0-9]*_[a-z0-9_]+/y]],
  cuda: [["k-com", /\/\/.*|\/\*.*?\*\//y], ["k-str", /"(?:[^"\\]|\\.)*"/y], ["k-num", /\b\d+(?:\.\d+)?[fFuUlL]*\b/y],
         ["k-op", /\b(?:__global__|__device__|__shared__|__restrict__|const|int|float|double|half|void|for|if|else|return|template|typename|unsigned|auto|extern)\b|#\s*\w+/y]],
  source: [["k-com", /#.*/y], ["k-str", /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/y], ["k-num", /\b\d+(?:\.\d+)?\b/y],
           ["k-op", /\b(?:def|for|in|range|return|if|else|import|from|as|and|or|not)\b|@\w+(?:\.\w+)*/y]],
};

function highlight(parent, text, stage) {
  const rules = LEXERS[(S.lexers || {})[stage]] || COMMON;  // the page's data says each stage's dialect
  let i = 0, plain = "";
  const flush = () => { if (plain) { parent.appendChild(document.createTextNode(plain)); plain = ""; } };
  while (i < text.length) {
    let hit = null;
    for (const [cls, re] of rules) {
      re.lastIndex = i;
      const m = re.exec(text);
      if (m && m[0].length) { hit = [cls, m[0]]; break; }
    }
    if (hit) {
      flush();
      const span = document.createElement("span");
      span.className = hit[0];
      span.textContent = hit[1];
      parent.appendChild(span);
      i += hit[1].length;
    } else {
      const ch = text[i];
      // a word that is not a token is passed over whole, so a name's tail is not read as a number
      const word = /[\w$]/.test(ch) ? /[\w$.]+/y : null;
      if (word) { word.lastIndex = i; const m = word.exec(text); plain += m[0]; i += m[0].length; }
      else { plain += ch; i += 1; }
    }
  }
  flush();
}

function ownLines(runs) {  // [[python line or 0, count], ...] -> one entry per listing line
  const out = [];
  for (const [line, count] of runs) for (let k = 0; k < count; k++) out.push(line);
  return out;
}

function renderTable() {
  const table = $("#variants");
  if (!table) return;
  table.textContent = "";
  const head = table.createTHead().insertRow();
  for (const col of S.columns) {
    const th = document.createElement("th");
    th.textContent = col.title;
    if (!col.numeric) th.className = "text";
    head.appendChild(th);
  }
  const body = table.createTBody();
  S.variants.forEach((v, i) => {
    const row = body.insertRow();
    row.dataset.index = i;
    if (v.status !== "ok") row.className = "bad";
    S.columns.forEach((col, k) => {
      const td = row.insertCell();
      td.textContent = v.cells[k];
      if (!col.numeric) td.className = "text";
    });
    row.addEventListener("click", () => { state.variant = i; renderStage(); });
  });
}

function renderChart() {
  const box = $("#chart");
  if (!box) return;
  box.textContent = "";
  const rows = S.variants.map((v, i) => [i, v.median_us]).filter(([, t]) => t != null);
  if (!rows.length) { box.textContent = "No runtimes: bench the session on a GPU (irscope sweep --bench)."; return; }
  const NS = "http://www.w3.org/2000/svg", barH = 16, gap = 4, left = 300, width = 820;
  const max = Math.max(...rows.map(([, t]) => t)), best = Math.min(...rows.map(([, t]) => t));
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", rows.length * (barH + gap) + 8);
  rows.forEach(([i, t], k) => {
    const y = k * (barH + gap) + 4;
    const label = document.createElementNS(NS, "text");
    label.setAttribute("x", 0); label.setAttribute("y", y + barH - 4);
    label.textContent = S.variants[i].label;
    const bar = document.createElementNS(NS, "rect");
    bar.setAttribute("x", left); bar.setAttribute("y", y); bar.setAttribute("height", barH);
    bar.setAttribute("width", Math.max(1, (width - left - 80) * t / max));
    bar.setAttribute("class", t === best ? "bar best" : "bar");
    const value = document.createElementNS(NS, "text");
    value.setAttribute("x", left + (width - left - 80) * t / max + 4); value.setAttribute("y", y + barH - 4);
    value.textContent = `${t.toPrecision(3)} us`;
    svg.append(label, bar, value);
  });
  box.appendChild(svg);
  const note = document.createElement("p");
  note.className = "note";
  note.textContent = S.runtime_note;
  box.appendChild(note);
}

function renderStageButtons() {
  const bar = $("#stage-buttons");
  if (!bar) return;
  bar.textContent = "";
  for (const stage of S.stages) {
    const b = document.createElement("button");
    b.textContent = stage.toUpperCase();
    b.dataset.stage = stage;
    b.addEventListener("click", () => { state.stage = stage; renderStage(); });
    bar.appendChild(b);
  }
}

function fill(box, text, stage, own) {
  box.textContent = "";
  const frag = document.createDocumentFragment();
  text.replace(/\n$/, "").split("\n").forEach((line, i) => {
    const div = document.createElement("div");
    div.dataset.line = i + 1;
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = i + 1;
    div.appendChild(n);
    highlight(div, line, stage);
    if (own && own[i]) div.dataset.py = own[i];
    frag.appendChild(div);
  });
  box.appendChild(frag);
}

function link(pyLine, showListing = false) {  // showListing: scroll the stage to its first line too
  document.querySelectorAll(".listing div.linked").forEach((d) => d.classList.remove("linked"));
  if (!pyLine) return;
  const lit = document.querySelectorAll(`#listing div[data-py="${pyLine}"]`);
  lit.forEach((d) => d.classList.add("linked"));
  if (lit.length && showListing) reveal($("#listing"), lit[0]);
  const src = document.querySelector(`#source div[data-line="${pyLine}"]`);
  if (src) { src.classList.add("linked"); reveal($("#source"), src); }
}

// Scrolls only the pane: scrollIntoView would scroll the notebook around a display's frame too.
function reveal(box, line) {
  if (line.offsetTop < box.scrollTop || line.offsetTop > box.scrollTop + box.clientHeight - line.offsetHeight) {
    box.scrollTop = Math.max(0, line.offsetTop - box.clientHeight / 3);
  }
}

function cite(stage, lines) {  // a finding's lines (0-based) of a stage: shown, marked, the first in view
  if (state.stage !== stage && S.stages.includes(stage)) { state.stage = stage; renderStage(); }
  document.querySelectorAll("#listing div.cited").forEach((d) => d.classList.remove("cited"));
  let first = null;
  for (const n of lines) {
    const d = document.querySelector(`#listing div[data-line="${n + 1}"]`);
    if (d) { d.classList.add("cited"); first = first || d; }
  }
  if (first) reveal($("#listing"), first);
}

function renderFindings() {
  const box = $("#findings");
  if (!box) return;
  box.textContent = "";
  const v = S.variants[state.variant];
  const found = v ? v.findings || [] : S.findings || [];
  const title = $("#findings-title");
  if (title) title.textContent = v ? `Findings · ${v.label}` : "Findings";
  if (v && v.errors && v.errors.findings) { box.textContent = v.errors.findings; return; }
  if (!found.length) { box.textContent = "No findings."; return; }
  for (const f of found) {
    const item = document.createElement("div");
    item.className = `finding ${f.severity === "warn" ? "warn" : "info"}`;
    const head = document.createElement("div");
    head.className = "finding-title";
    const tag = document.createElement("span");
    tag.className = "tag";
    tag.textContent = `${f.severity} · ${f.kind} · ${String(f.stage).toUpperCase()}`;
    const t = document.createElement("strong");
    t.textContent = f.title;
    head.append(tag, t);
    const detail = document.createElement("p");
    detail.textContent = f.detail;
    item.append(head, detail);
    if (f.evidence && f.evidence.length) {
      const ul = document.createElement("ul");
      for (const e of f.evidence) { const li = document.createElement("li"); li.textContent = e; ul.appendChild(li); }
      item.appendChild(ul);
    }
    if (f.lines && f.lines.length) {
      const cites = document.createElement("p");
      cites.className = "cites";
      cites.appendChild(document.createTextNode(`${String(f.stage).toUpperCase()} lines: `));
      for (const n of f.lines) {
        const b = document.createElement(v ? "button" : "span");
        b.textContent = n + 1;
        if (v) b.addEventListener("click", () => cite(f.stage, [n]));
        cites.appendChild(b);
      }
      if (v) {
        const all = document.createElement("button");
        all.textContent = "all";
        all.addEventListener("click", () => cite(f.stage, f.lines));
        cites.appendChild(all);
      }
      if (f.more_lines) cites.appendChild(document.createTextNode(` (+${f.more_lines} more)`));
      item.appendChild(cites);
    }
    box.appendChild(item);
  }
}

function renderStage() {
  renderFindings();
  const v = S.variants[state.variant];
  if (!v || !$("#listing")) return;
  document.querySelectorAll("#variants tbody tr").forEach((r) => r.classList.toggle("selected", +r.dataset.index === state.variant));
  document.querySelectorAll("#stage-buttons button").forEach((b) => b.classList.toggle("active", b.dataset.stage === state.stage));
  $("#stage-title").textContent = `${v.label} · ${state.stage.toUpperCase()}`;
  const listing = v.listings[state.stage];
  const box = $("#listing");
  if (listing == null) { box.textContent = `${state.stage} was not captured: ${v.errors[state.stage] || "not available"}`; }
  else { fill(box, listing, state.stage, ownLines(v.own[state.stage] || [])); }
  fill($("#source"), S.source, "source", null);
}

function wire() {
  document.querySelectorAll(".diff-views").forEach((views) => {
    views.querySelectorAll(".diff-toggle button").forEach((b) => b.addEventListener("click", () => {
      views.dataset.view = b.dataset.view;
      views.querySelectorAll(".diff-toggle button").forEach((o) => o.classList.toggle("active", o === b));
    }));
  });
  window.addEventListener("hashchange", () => { choose(); renderAll(); });
  if (!$("#listing")) return;
  $("#listing").addEventListener("click", (e) => { const d = e.target.closest("div[data-line]"); if (d) link(d.dataset.py); });
  $("#source").addEventListener("click", (e) => { const d = e.target.closest("div[data-line]"); if (d) link(d.dataset.line); });
}

function choose() {  // the session, variant and stage the address names (#kernel=1&variant=2&stage=sass)
  const hash = new URLSearchParams(location.hash.slice(1));
  const session = Math.max(0, Math.min(SESSIONS.length - 1, +hash.get("kernel") || 0));
  if (session !== state.session || S !== SESSIONS[session]) { state.session = session; S = SESSIONS[session]; state.variant = 0; }
  if (hash.has("variant")) state.variant = Math.max(0, Math.min(S.variants.length - 1, +hash.get("variant") || 0));
  if (hash.has("stage") && S.stages.includes(hash.get("stage"))) state.stage = hash.get("stage");
  if (!S.stages.includes(state.stage)) state.stage = S.stages.includes("ptx") ? "ptx" : S.stages[0];
}

function renderAll() {
  const title = $("#session-title");
  if (title) title.textContent = S.kernel;
  renderTable();
  renderChart();
  renderStageButtons();
  renderStage();
}

function start() {
  const t0 = performance.now();
  choose();
  renderAll();
  wire();
  const py = new URLSearchParams(location.hash.slice(1)).get("py");  // #py=10: Python line 10 and what it became
  if (py && /^[0-9]+$/.test(py)) link(py, true);
  document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
  document.body.dataset.ready = "1";
}
start();
