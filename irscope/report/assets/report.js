// irscope report: renders the session embedded in #irscope-data (no network, no eval: text only via textContent).
"use strict";
const DATA = JSON.parse(document.getElementById("irscope-data").textContent);
const $ = (sel) => document.querySelector(sel);
const state = { variant: 0, stage: DATA.stages.includes("ptx") ? "ptx" : DATA.stages[0] };

// One lexer per stage family: [class, regex] pairs tried at each position; sticky regexes.
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
  source: [["k-com", /#.*/y], ["k-str", /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/y], ["k-num", /\b\d+(?:\.\d+)?\b/y],
           ["k-op", /\b(?:def|for|in|range|return|if|else|import|from|as|and|or|not)\b|@\w+(?:\.\w+)*/y]],
};
const LEXER_OF = { ptx: "ptx", sass: "sass", ttir: "mlir", ttgir: "mlir", llir: "llir", source: "source" };

function highlight(parent, text, stage) {
  const rules = LEXERS[LEXER_OF[stage]] || COMMON;
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
  const head = table.createTHead().insertRow();
  for (const col of DATA.columns) {
    const th = document.createElement("th");
    th.textContent = col.title;
    if (!col.numeric) th.className = "text";
    head.appendChild(th);
  }
  const body = table.createTBody();
  DATA.variants.forEach((v, i) => {
    const row = body.insertRow();
    row.dataset.index = i;
    if (v.status !== "ok") row.className = "bad";
    DATA.columns.forEach((col, k) => {
      const td = row.insertCell();
      td.textContent = v.cells[k];
      if (!col.numeric) td.className = "text";
    });
    row.addEventListener("click", () => { state.variant = i; renderStage(); });
  });
}

function renderChart() {
  const rows = DATA.variants.map((v, i) => [i, v.median_us]).filter(([, t]) => t != null);
  const box = $("#chart");
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
    label.textContent = DATA.variants[i].label;
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
  note.textContent = DATA.runtime_note;
  box.appendChild(note);
}

function renderStageButtons() {
  const bar = $("#stage-buttons");
  for (const stage of DATA.stages) {
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

function link(pyLine) {
  document.querySelectorAll(".listing div.linked").forEach((d) => d.classList.remove("linked"));
  if (!pyLine) return;
  document.querySelectorAll(`#listing div[data-py="${pyLine}"]`).forEach((d) => d.classList.add("linked"));
  const src = document.querySelector(`#source div[data-line="${pyLine}"]`);
  if (src) { src.classList.add("linked"); src.scrollIntoView({ block: "nearest" }); }
}

function renderStage() {
  const v = DATA.variants[state.variant];
  document.querySelectorAll("#variants tbody tr").forEach((r) => r.classList.toggle("selected", +r.dataset.index === state.variant));
  document.querySelectorAll("#stage-buttons button").forEach((b) => b.classList.toggle("active", b.dataset.stage === state.stage));
  $("#stage-title").textContent = `${v.label} · ${state.stage.toUpperCase()}`;
  const listing = v.listings[state.stage];
  const box = $("#listing");
  if (listing == null) { box.textContent = `${state.stage} was not captured: ${v.errors[state.stage] || "not available"}`; }
  else { fill(box, listing, state.stage, ownLines(v.own[state.stage] || [])); }
  fill($("#source"), DATA.source, "source", null);
}

function wire() {
  $("#listing").addEventListener("click", (e) => { const d = e.target.closest("div[data-line]"); if (d) link(d.dataset.py); });
  $("#source").addEventListener("click", (e) => { const d = e.target.closest("div[data-line]"); if (d) link(d.dataset.line); });
}

function start() {
  const t0 = performance.now();
  renderTable();
  renderChart();
  renderStageButtons();
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.has("variant")) state.variant = Math.min(DATA.variants.length - 1, +hash.get("variant") || 0);
  if (hash.has("stage") && DATA.stages.includes(hash.get("stage"))) state.stage = hash.get("stage");
  renderStage();
  wire();
  document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
  document.body.dataset.ready = "1";
}
start();
