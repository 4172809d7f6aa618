// wf ui: the page's script. It keeps nothing of its own about the workflow: what it
// draws is what /api/ answered, and the events of /api/stream as they come. Every
// text from a plan or a log is put in the page as text (textContent), never as HTML.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const STATUSES = ['pending', 'blocked', 'in_progress', 'completed', 'skipped', 'failed'];
// Events that change the state (docs/events.md "folded").
const FOLDED = new Set(['workflow.status_changed', 'task.status_changed', 'gate.result', 'task.verified']);
const NODE_W = 180, NODE_H = 46, GAP_X = 36, GAP_Y = 12, HEAD_H = 48, PHASE_GAP = 56, BOX_W = 200, BOX_H = 130;

const token = (() => {
  const fromUrl = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromUrl) sessionStorage.setItem('wf-token', fromUrl);
  return fromUrl || sessionStorage.getItem('wf-token') || '';
})();

const $ = (id) => document.getElementById(id);

// An element with attributes and children; a string child is a text node.
function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'on') for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.append(typeof kid === 'string' || typeof kid === 'number' ? document.createTextNode(String(kid)) : kid);
  }
  return e;
}

function s(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function clip(text, n) {
  text = String(text ?? '');
  return text.length > n ? text.slice(0, n - 1) + '\u2026' : text;
}

async function api(path, body) {
  const opts = { headers: { 'X-WF-Token': token } };
  if (body !== undefined) {
    opts.method = 'POST';
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((data.error && data.error.message) || res.status + ' ' + res.statusText);
  return data;
}

// One call of `f` at most every `ms`, after the last request for it.
function later(f, ms) {
  let timer = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => { timer = null; f(); }, ms);
  };
}

function toast(text, kind) {
  const t = h('div', { class: 'toast ' + (kind || '') }, text);
  $('toasts').append(t);
  setTimeout(() => t.remove(), kind === 'bad' ? 12000 : 6000);
}

// ---- what the server said ----
const page = {
  summary: null,
  graph: null,            // {phases, total, collapsed}
  tasks: new Map(),       // id -> the canvas's task
  open: new Set(),        // indexes of the phases shown task by task
  events: [],             // the timeline's events
  eventTasks: {},         // id -> {name, phase, status, failure_reason, log_tail}
  phaseNames: [],
  seq: 0,
  selected: null,
  probeDismissed: false,
};

// ---- summary, the probe and the buttons ----
async function loadSummary() {
  const sm = await api('/api/summary');
  page.summary = sm;
  const wf = sm.workflow;
  $('wf-name').textContent = wf ? wf.name : 'no workflow';
  document.title = 'wf ui \u2014 ' + (wf ? wf.name : 'no workflow');
  $('wf-status').textContent = wf ? wf.status + (wf.reason ? ': ' + clip(wf.reason, 80) : '') : '';
  $('wf-status').dataset.status = wf ? wf.status : '';
  $('wf-mode').textContent = wf ? 'mode ' + wf.mode + (sm.writer_alive ? ' \u00b7 a wf process holds the lock' : '') : '';
  $('read-only').hidden = !sm.read_only;
  const counts = $('counts');
  counts.replaceChildren();
  if (sm.counts) {
    counts.append(h('span', {}, h('span', { class: 'n' }, sm.counts.percent + '%'), ' done'));
    for (const st of STATUSES) {
      if (sm.counts[st]) counts.append(h('span', {}, h('span', { class: 'n' }, sm.counts[st]), ' ' + st.replace('_', ' ')));
    }
  }
  $('next-message').textContent = sm.next ? sm.next.message : (sm.message || '');
  const offered = sm.offered || [];
  const probe = offered.find((a) => a.probe);
  $('probe').hidden = !probe || page.probeDismissed;
  $('probe-text').textContent = probe && sm.next ? sm.next.message : '';
  const bar = $('actions');
  bar.replaceChildren();
  for (const a of offered.filter((a) => !a.probe)) bar.append(actionButton(a));
}

function actionLabel(a) {
  switch (a.action) {
    case 'retry': return 'Retry ' + a.task;
    case 'skip': return 'Skip ' + a.task + '\u2026';
    case 'unblock': return 'Unblock ' + a.kind;
    case 'continue': return 'Continue';
    case 'resume': return 'Resume';
    case 'verify': return 'Verify';
    default: return a.action;
  }
}

function actionButton(a) {
  return h('button', {
    type: 'button',
    class: a.action === 'skip' ? 'danger' : '',
    'data-action': a.action,
    'data-task': a.task,
    'data-kind': a.kind,
    on: { click: () => (a.action === 'skip' ? askSkip(a.task) : act(a)) },
  }, actionLabel(a));
}

async function act(body) {
  try {
    const r = await api('/api/actions', body);
    showOutcome(r);
  } catch (e) {
    toast(e.message, 'bad');
  }
}

// An action's outcome, once: the answer to the click and the stream both bring it.
const shown = new Set();

function showOutcome(r) {
  if (!r || !r.command) return;
  if (r.state === 'running') {
    toast('Running: ' + r.command);
    return;
  }
  if (shown.has(r.id)) return;
  shown.add(r.id);
  const said = r.message || (r.result && (r.result.reason || r.result.stop)) || '';
  if (r.exit_code === 0) toast(r.command + ': done' + (said ? ' \u2014 ' + said : ''), 'good');
  else toast(r.command + ' (exit ' + r.exit_code + ')' + (said ? ': ' + said : ''), r.result && !r.result.error ? '' : 'bad');
  refreshSummary();
}

function askSkip(task) {
  $('skip-task').textContent = task;
  $('skip-reason').value = '';
  $('skip-box').hidden = false;
  $('skip-box').dataset.task = task;
  $('skip-reason').focus();
}

// ---- the canvas ----
const view = { x: 20, y: 20, k: 1 };

function applyView() {
  $('world').setAttribute('transform', `translate(${view.x},${view.y}) scale(${view.k})`);
}

async function loadGraph() {
  const g = await api('/api/graph');
  page.graph = g;
  page.tasks.clear();
  for (const t of g.tasks) page.tasks.set(t.id, t);
  if (!g.collapsed) g.phases.forEach((_, i) => page.open.add(i));
  else for (const i of page.open) await loadPhase(i);
  $('canvas-note').textContent = g.total + ' tasks in ' + g.phases.length + ' phase(s)' +
    (g.collapsed ? ' \u00b7 large plan: click a phase to open it' : '');
  drawCanvas();
}

async function loadPhase(i) {
  const g = await api('/api/phase?i=' + i);
  for (const t of g.tasks) page.tasks.set(t.id, t);
  page.graph.phases[i] = g.phases[i];
  page.open.add(i);
}

async function togglePhase(i) {
  if (page.open.has(i)) {
    page.open.delete(i);
    if (page.graph.collapsed) for (const [id, t] of page.tasks) if (t.phase === i) page.tasks.delete(id);
  } else if (page.graph.collapsed) {
    await loadPhase(i);
  } else {
    page.open.add(i);
  }
  drawCanvas();
}

// Where each phase column starts, and its width.
function columns() {
  let x = 0;
  return page.graph.phases.map((p, i) => {
    const open = page.open.has(i);
    const w = open ? Math.max(BOX_W, p.depths * (NODE_W + GAP_X) - GAP_X) : BOX_W;
    const col = { x, w, open };
    x += w + PHASE_GAP;
    return col;
  });
}

function place(t, cols) {
  const c = cols[t.phase];
  return { x: c.x + t.depth * (NODE_W + GAP_X), y: HEAD_H + t.row * (NODE_H + GAP_Y) };
}

const nodeEls = new Map();

function drawCanvas() {
  const cols = columns();
  const phasesG = $('phases'), nodesG = $('nodes'), edgesG = $('edges');
  phasesG.replaceChildren();
  nodesG.replaceChildren();
  edgesG.replaceChildren();
  nodeEls.clear();
  page.graph.phases.forEach((p, i) => {
    const c = cols[i];
    const head = s('g', { class: 'phase-head', 'data-phase': i, transform: `translate(${c.x},0)` });
    head.append(s('rect', { width: c.w, height: 36, rx: 5 }));
    head.append(s('text', { x: 10, y: 15 }, (c.open ? '\u25BE ' : '\u25B8 ') + clip(p.name || '(no phase)', Math.floor(c.w / 8))));
    head.append(s('text', { class: 'count', x: 10, y: 30 }, phaseCounts(p)));
    head.append(s('title', {}, p.name || '(no phase)'));
    head.addEventListener('click', () => togglePhase(i));
    phasesG.append(head);
    if (!c.open) phasesG.append(phaseBox(p, i, c));
  });
  const frag = document.createDocumentFragment();
  const edges = document.createDocumentFragment();
  for (const t of page.tasks.values()) {
    if (!page.open.has(t.phase)) continue;
    const at = place(t, cols);
    frag.append(nodeEl(t, at));
    for (const d of t.deps) {
      const from = page.tasks.get(d);
      let sx, sy;
      if (from && page.open.has(from.phase)) {
        const a = place(from, cols);
        sx = a.x + NODE_W; sy = a.y + NODE_H / 2;
      } else continue;
      const tx = at.x, ty = at.y + NODE_H / 2;
      const mx = (sx + tx) / 2;
      edges.append(s('path', { class: 'edge', d: `M${sx},${sy} C${mx},${sy} ${mx},${ty} ${tx},${ty}` }));
    }
  }
  edgesG.append(edges);
  nodesG.append(frag);
  if (page.selected && nodeEls.has(page.selected)) nodeEls.get(page.selected).classList.add('selected');
}

function phaseCounts(p) {
  return p.total + ' task(s) \u00b7 ' + STATUSES.filter((st) => p.counts[st]).map((st) => p.counts[st] + ' ' + st.replace('_', ' ')).join(', ');
}

// A collapsed phase: a box with a bar per status.
function phaseBox(p, i, c) {
  const g = s('g', { class: 'phase-box', 'data-phase': i, transform: `translate(${c.x},${HEAD_H})` });
  g.append(s('rect', { class: 'frame', width: c.w, height: BOX_H, rx: 6 }));
  let y = 10;
  for (const st of STATUSES) {
    const n = p.counts[st] || 0;
    if (!n) continue;
    const w = Math.max(2, Math.round((c.w - 90) * n / Math.max(1, p.total)));
    g.append(s('rect', { class: 'bar', 'data-status': st, x: 8, y, width: w, height: 12, rx: 2 }));
    g.append(s('text', { x: w + 14, y: y + 10 }, n + ' ' + st.replace('_', ' ')));
    y += 18;
  }
  g.addEventListener('click', () => togglePhase(i));
  return g;
}

function nodeEl(t, at) {
  const g = s('g', { class: 'node', 'data-id': t.id, 'data-status': t.status, transform: `translate(${at.x},${at.y})` });
  g.append(s('rect', { class: 'box', width: NODE_W, height: NODE_H, rx: 6 }));
  g.append(s('text', { class: 'nid', x: 8, y: 16 }, clip(t.id, 22)));
  g.append(s('text', { class: 'nname', x: 8, y: 31 }, clip(t.name, 26)));
  g.append(s('text', { class: 'nexec', x: 8, y: 42 }, holder(t)));
  g.append(s('title', {}, t.id + ': ' + t.name + ' (' + t.status + ')'));
  g.addEventListener('click', (e) => { e.stopPropagation(); openDetail(t.id); });
  nodeEls.set(t.id, g);
  return g;
}

function holder(t) {
  if (t.status !== 'in_progress') return t.attempts > 1 ? 'attempt ' + t.attempts : '';
  if (t.executor) return '\u25B6 ' + clip(t.executor, 24);
  return t.handed_off ? '\u25B6 handed off to an agent' : '\u25B6 wf';
}

function redrawNode(t) {
  const old = nodeEls.get(t.id);
  if (!old) return;
  const at = place(t, columns());
  const fresh = nodeEl(t, at);
  if (page.selected === t.id) fresh.classList.add('selected');
  old.replaceWith(fresh);
}

function fit() {
  const box = $('world').getBBox();
  const svg = $('canvas').getBoundingClientRect();
  if (!box.width || !box.height) return;
  view.k = Math.min(2, Math.max(0.05, Math.min((svg.width - 40) / box.width, (svg.height - 40) / box.height)));
  view.x = 20 - box.x * view.k;
  view.y = 20 - box.y * view.k;
  applyView();
}

function zoomAt(factor, cx, cy) {
  const k = Math.min(4, Math.max(0.03, view.k * factor));
  view.x = cx - (cx - view.x) * (k / view.k);
  view.y = cy - (cy - view.y) * (k / view.k);
  view.k = k;
  applyView();
}

function setUpPanZoom() {
  const svg = $('canvas');
  svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = svg.getBoundingClientRect();
    zoomAt(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  let drag = null;
  svg.addEventListener('pointerdown', (e) => {
    if (e.target.closest('.node, .phase-head, .phase-box')) return;
    drag = { x: e.clientX - view.x, y: e.clientY - view.y };
    svg.classList.add('dragging');
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener('pointermove', (e) => {
    if (!drag) return;
    view.x = e.clientX - drag.x;
    view.y = e.clientY - drag.y;
    applyView();
  });
  const stop = () => { drag = null; svg.classList.remove('dragging'); };
  svg.addEventListener('pointerup', stop);
  svg.addEventListener('pointercancel', stop);
  const mid = () => { const r = svg.getBoundingClientRect(); return [r.width / 2, r.height / 2]; };
  $('zoom-in').addEventListener('click', () => zoomAt(1.25, ...mid()));
  $('zoom-out').addEventListener('click', () => zoomAt(1 / 1.25, ...mid()));
  $('zoom-fit').addEventListener('click', fit);
}

// ---- a task's detail ----
let logPoll = null;

async function openDetail(id) {
  if (page.selected && nodeEls.has(page.selected)) nodeEls.get(page.selected).classList.remove('selected');
  page.selected = id;
  if (nodeEls.has(id)) nodeEls.get(id).classList.add('selected');
  $('detail').hidden = false;
  $('detail-title').textContent = id;
  const body = $('detail-body');
  let d;
  try {
    d = await api('/api/task?id=' + encodeURIComponent(id));
  } catch (e) {
    body.replaceChildren(h('p', {}, e.message));
    return;
  }
  if (page.selected !== id) return;
  const t = d.brief.task;
  $('detail-title').textContent = t.id + ': ' + t.name;
  const parts = [h('p', {}, h('span', { class: 'badge', 'data-status': t.status }, t.status),
    ' phase ', t.phase || '(none)', ' \u00b7 attempts ', String(t.attempts || 0),
    t.executor ? ' \u00b7 executor ' + t.executor : '')];
  const buttons = h('div', { class: 'line' });
  if (page.summary && !page.summary.read_only) {
    if (t.status === 'failed' || t.status === 'completed') buttons.append(actionButton({ action: 'retry', task: t.id }));
    if (t.status !== 'completed' && t.status !== 'skipped') buttons.append(actionButton({ action: 'skip', task: t.id }));
  }
  parts.push(buttons);
  if (t.failure_reason) parts.push(h('h3', {}, 'Failure'), h('pre', { class: 'tail' }, t.failure_reason));
  parts.push(h('h3', {}, 'Checks'));
  const checks = d.brief.check_commands || [];
  parts.push(checks.length ? h('ul', {}, checks.map((c) => h('li', {}, h('code', {}, c)))) : h('p', { class: 'muted' }, 'no check command'));
  parts.push(h('h3', {}, 'Evidence'));
  if (t.evidence) {
    parts.push(h('p', {}, d.show.up_to_date ? 'up to date: its inputs are as they were when it passed'
      : 'changed since it passed: ' + (d.show.changed || []).join(', ')));
    parts.push(h('pre', {}, JSON.stringify(t.evidence, null, 2)));
  } else parts.push(h('p', { class: 'muted' }, 'none recorded'));
  parts.push(h('h3', {}, 'Log'), h('pre', { id: 'detail-log' }, ''));
  parts.push(h('h3', {}, 'Brief'), h('pre', {}, d.brief.markdown));
  body.replaceChildren(...parts);
  followLog(id, t.attempts || 0);
}

function followLog(id, attempt) {
  if (logPoll) clearTimeout(logPoll);
  const pre = $('detail-log');
  if (!attempt) { pre.textContent = 'not run yet'; return; }
  let offset = null;
  const step = async () => {
    if (page.selected !== id || !document.body.contains(pre)) return;
    let r;
    try {
      r = await api('/api/log?id=' + encodeURIComponent(id) + '&attempt=' + attempt + (offset === null ? '' : '&offset=' + offset));
    } catch (e) { pre.textContent = e.message; return; }
    if (offset === null) pre.textContent = r.exists ? '' : (r.running ? '(no output yet)' : 'no log: a log is kept only when a check prints something or fails');
    if (r.text) { pre.textContent += r.text; pre.scrollTop = pre.scrollHeight; }
    offset = r.offset;
    if (r.running) logPoll = setTimeout(step, 300);
  };
  step();
}

// ---- the timeline ----
function filters() {
  return { type: $('filter-type').value, task: $('filter-task').value.trim(), status: $('filter-status').value };
}

async function loadTimeline() {
  const f = filters();
  const q = new URLSearchParams({ last: '2000', type: f.type, task: f.task, status: f.status });
  const r = await api('/api/events?' + q);
  page.events = r.events;
  page.eventTasks = r.tasks;
  page.phaseNames = r.phases;
  $('timeline-note').textContent = r.matched > r.events.length ? 'the last ' + r.events.length + ' of ' + r.matched + ' events' : r.events.length + ' events';
  const types = $('filter-type');
  if (types.options.length === 1) for (const t of r.types || []) types.append(h('option', {}, t));
  drawTimeline();
}

function passes(ev) {
  const f = filters();
  if (f.type && ev.type !== f.type) return false;
  if (f.task && ev.task_id !== f.task) return false;
  if (f.status) {
    const info = page.eventTasks[ev.task_id];
    if (!info || info.status !== f.status) return false;
  }
  return true;
}

// What an event says, in a few words.
function what(ev) {
  const d = ev.data || {};
  switch (ev.type) {
    case 'task.status_changed':
    case 'workflow.status_changed':
      return (d.from || '?') + ' \u2192 ' + (d.to || '?') + (d.reason ? ': ' + d.reason : '') + (d.retry ? ' (retry)' : '');
    case 'task.dispatch_requested': return 'dispatch ' + (d.dispatch_id || d.dispatchId || '') + ' to ' + ev.actor;
    case 'task.dispatch_ack': return 'accepted';
    case 'task.dispatch_nack': return 'dispatch failed: ' + (d.reason || '');
    case 'task.execution_started': return 'started' + (d.attempt ? ' attempt ' + d.attempt : '');
    case 'task.execution_result':
      return (d.success === false ? 'failed' : 'succeeded') + (d.reason ? ': ' + d.reason : '') + (d.summary ? ': ' + d.summary : '');
    case 'task.review_result':
      return (d.passed ? 'approved' : 'rejected') + (d.score !== undefined ? ' (score ' + d.score + '/' + (d.threshold ?? '') + ')' : '') + (d.reason ? ': ' + d.reason : '');
    case 'resource.allocated': return 'allocated (level ' + (d.level ?? '?') + (d.escalated ? ', escalated' : '') + ')';
    case 'resource.released': return 'released: ' + (d.reason || '');
    case 'resource.missing': return 'missing: ' + (d.capability || '') + (d.reason ? ' \u2014 ' + d.reason : '');
    case 'gate.result': return 'gate ' + (d.passed ? 'passed' : 'failed') + ' (score ' + (d.score ?? '?') + ')';
    default: {
      const keys = Object.keys(d).slice(0, 4);
      return keys.map((k) => k + '=' + clip(typeof d[k] === 'string' ? d[k] : JSON.stringify(d[k]), 60)).join(' ');
    }
  }
}

function isBad(ev) {
  const d = ev.data || {};
  return ev.type === 'task.dispatch_nack' || ev.type === 'resource.missing' || d.to === 'failed' ||
    d.success === false || (ev.type === 'task.review_result' && d.passed === false) || (ev.type === 'gate.result' && d.passed === false);
}

function drawTimeline() {
  // Phase -> task -> events, each in the order they first appear in the log.
  const phases = new Map();
  for (const ev of page.events) {
    const info = ev.task_id ? page.eventTasks[ev.task_id] : null;
    const phase = info ? page.phaseNames[info.phase] ?? '' : (ev.task_id ? '(tasks not in the plan now)' : '(workflow)');
    const key = info ? 'p' + info.phase : phase;
    if (!phases.has(key)) phases.set(key, { name: phase || '(no phase)', tasks: new Map() });
    const group = phases.get(key).tasks;
    const tkey = ev.task_id || '';
    if (!group.has(tkey)) group.set(tkey, []);
    group.get(tkey).push(ev);
  }
  const root = document.createDocumentFragment();
  for (const p of phases.values()) {
    const det = h('details', { class: 'tl-phase', open: true }, h('summary', {}, p.name + ' \u00b7 ' + p.tasks.size + ' group(s)'));
    for (const [id, evs] of p.tasks) {
      const info = id ? page.eventTasks[id] : null;
      const box = h('div', { class: 'tl-task', 'data-task': id, 'data-status': info ? info.status : '' },
        h('div', { class: 'tl-task-head' }, id ? id : 'workflow', info ? h('span', { class: 'muted' }, ' ' + clip(info.name, 80) + ' \u00b7 ' + info.status) : ''));
      for (const ev of evs) {
        box.append(h('div', { class: 'ev' + (isBad(ev) ? ' bad' : ''), 'data-type': ev.type, 'data-seq': ev.seq },
          h('span', { class: 'seq' }, '#' + ev.seq),
          h('span', { class: 'ts' }, String(ev.ts || '').slice(11, 19)),
          h('span', { class: 'type' }, ev.type),
          h('span', { class: 'actor' }, ev.actor || ''),
          h('span', { class: 'what' }, what(ev))));
      }
      if (info && info.status === 'failed') {
        if (info.failure_reason) box.append(h('div', { class: 'ev bad' }, h('span'), h('span'), h('span', { class: 'type' }, 'failure'), h('span'), h('span', { class: 'what' }, info.failure_reason)));
        if (info.log_tail) box.append(h('pre', { class: 'tail' }, info.log_tail));
      }
      det.append(box);
    }
    root.append(det);
  }
  $('timeline').replaceChildren(root);
}

// ---- resources ----
async function loadResources() {
  const r = await api('/api/resources');
  const alerts = $('resource-alerts');
  alerts.replaceChildren();
  if (r.missing.length) {
    alerts.append(h('div', { class: 'alert', id: 'missing' }, h('h3', {}, 'Missing resources'),
      h('ul', {}, r.missing.map((m) => h('li', {}, (m.task || '') + ': no executor offers ' + (m.data.capability || '?') + (m.data.reason ? ' \u2014 ' + m.data.reason : ''))))));
  }
  if (r.dispatch_failures.length) {
    alerts.append(h('div', { class: 'alert', id: 'dispatch-failures' }, h('h3', {}, 'Dispatch failures'),
      h('ul', {}, r.dispatch_failures.map((n) => h('li', {}, (n.task || '') + ' \u2192 ' + (n.actor || '') + ': ' + (n.data.reason || ''))))));
  }
  const list = $('resources');
  list.replaceChildren();
  if (!r.executors.length) list.append(h('p', { class: 'muted res-card' }, 'No executors configured: agent tasks are handed off (wf.executors in the project config).'));
  for (const e of r.executors) {
    const card = h('div', { class: 'res-card', 'data-executor': e.name, 'data-status': e.status },
      h('h3', {}, e.name, h('span', { class: 'badge status-' + e.status }, e.status),
        h('span', { class: 'muted' }, (e.role || '') + (e.level !== undefined ? ' \u00b7 level ' + e.level : '') + (e.configured ? '' : ' \u00b7 not in the config'))));
    if (e.capabilities.length) card.append(h('div', {}, 'can: ', e.capabilities.join(', ')));
    if (e.error) card.append(h('div', { class: 'alert' }, e.error));
    card.append(h('div', { class: 'holding' }, 'holds now: ', e.holding.length ? e.holding.join(', ') : 'nothing'));
    if (e.left_held.length) card.append(h('div', { class: 'muted' }, 'left held by a run that is gone: ', e.left_held.join(', ')));
    if (e.dispatch_failures) card.append(h('div', { class: 'alert' }, e.dispatch_failures + ' dispatch failure(s); last: ' + (e.last_failure || '')));
    if (e.history.length) {
      const rows = e.history.slice(-12).reverse().map((x) => h('tr', {},
        h('td', {}, x.task || ''), h('td', {}, String(x.allocated.ts || '').slice(11, 19)),
        h('td', {}, x.released ? 'released ' + String(x.released.ts || '').slice(11, 19) + ' (' + (x.released.reason || '') + ')' : 'held')));
      card.append(h('table', { class: 'res' }, h('tr', {}, h('th', {}, 'task'), h('th', {}, 'allocated'), h('th', {}, 'released')), rows));
    }
    list.append(card);
  }
}

// ---- live ----
const refreshSummary = later(() => loadSummary().catch((e) => toast(e.message, 'bad')), 150);
const refreshResources = later(() => loadResources().catch(() => {}), 300);
const refreshTimeline = later(() => loadTimeline().catch(() => {}), 500);
const refreshGraph = later(() => loadGraph().catch(() => {}), 1000);
const refreshDetail = later(() => { if (page.selected) openDetail(page.selected); }, 400);

function onEvent(ev) {
  page.seq = Math.max(page.seq, ev.seq);
  if (ev.type === 'task.status_changed' && ev.task_id) {
    const t = page.tasks.get(ev.task_id);
    const to = ev.data && ev.data.to;
    if (t && to) {
      const p = page.graph.phases[t.phase];
      if (p && p.counts) {
        p.counts[t.status] = Math.max(0, (p.counts[t.status] || 0) - 1);
        p.counts[to] = (p.counts[to] || 0) + 1;
      }
      t.status = to;
      t.executor = to === 'in_progress' ? ev.executor || null : null;
      if (to === 'in_progress') { t.attempts = ev.data.attempt || t.attempts + 1; t.handed_off = !!ev.data.handoff; }
      redrawNode(t);
      const head = document.querySelector(`.phase-head[data-phase="${t.phase}"] text.count`);
      if (head && p) head.textContent = phaseCounts(p);
    } else if (!t && page.graph && page.graph.collapsed) {
      refreshGraph();
    }
    if (page.eventTasks[ev.task_id] && to) page.eventTasks[ev.task_id].status = to;
  }
  if (ev.type === 'plan.imported') refreshGraph();
  if (ev.task_id && !page.eventTasks[ev.task_id]) refreshTimeline();
  else if (passes(ev)) {
    page.events.push(ev);
    if (page.events.length > 5000) page.events.splice(0, page.events.length - 5000);
    drawTimelineSoon();
  }
  if (ev.type.startsWith('resource.') || ev.type.startsWith('task.dispatch_')) refreshResources();
  if (FOLDED.has(ev.type)) {
    refreshSummary();
    if (ev.type === 'task.status_changed' && ev.data && (ev.data.to === 'failed' || ev.data.to === 'completed')) refreshResources();
    if (ev.data && ev.data.to === 'failed') refreshTimeline();
  }
  if (ev.task_id && ev.task_id === page.selected && FOLDED.has(ev.type)) refreshDetail();
}

const drawTimelineSoon = later(drawTimeline, 100);

function follow() {
  const es = new EventSource('/api/stream?token=' + encodeURIComponent(token) + '&after=' + page.seq);
  es.addEventListener('open', () => $('live').classList.add('on'));
  es.addEventListener('error', () => $('live').classList.remove('on'));
  es.addEventListener('wf', (m) => {
    try { onEvent(JSON.parse(m.data)); } catch (e) { /* a line that is not JSON is skipped, as wf events skips it */ }
  });
  es.addEventListener('action', (m) => showOutcome(JSON.parse(m.data)));
  es.addEventListener('reload', () => { loadAll().catch((e) => toast(e.message, 'bad')); });
}

async function loadAll() {
  await loadSummary();
  page.seq = page.summary.seq || 0;
  await loadGraph();
  document.documentElement.dataset.graphReady = '1';
  requestAnimationFrame(() => {
    fit();
    requestAnimationFrame(() => {
      performance.mark('wf-first-paint');
      document.documentElement.dataset.painted = String(Math.round(performance.now()));
    });
  });
  await Promise.all([loadTimeline(), loadResources()]);
  document.documentElement.dataset.ready = '1';
}

function setUp() {
  setUpPanZoom();
  applyView();
  const legend = $('legend');
  for (const st of STATUSES) legend.append(h('span', {}, h('i', { 'data-status': st }), st.replace('_', ' ')));
  $('detail-close').addEventListener('click', () => {
    $('detail').hidden = true;
    if (page.selected && nodeEls.has(page.selected)) nodeEls.get(page.selected).classList.remove('selected');
    page.selected = null;
  });
  $('probe-yes').addEventListener('click', () => { $('probe').hidden = true; act({ action: 'resume' }); });
  $('probe-no').addEventListener('click', () => { page.probeDismissed = true; $('probe').hidden = true; });
  $('skip-cancel').addEventListener('click', () => { $('skip-box').hidden = true; });
  $('skip-ok').addEventListener('click', () => {
    const reason = $('skip-reason').value.trim();
    if (!reason) { $('skip-reason').focus(); return; }
    $('skip-box').hidden = true;
    act({ action: 'skip', task: $('skip-box').dataset.task, reason });
  });
  $('skip-reason').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('skip-ok').click(); });
  for (const id of ['filter-type', 'filter-status']) $(id).addEventListener('change', () => loadTimeline().catch((e) => toast(e.message, 'bad')));
  $('filter-task').addEventListener('change', () => loadTimeline().catch((e) => toast(e.message, 'bad')));
  loadAll().then(follow).catch((e) => {
    $('next-message').textContent = e.message;
    toast(e.message, 'bad');
  });
}

setUp();
