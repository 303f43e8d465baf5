// The status panel: /health, and charts of /metrics drawn here (SVG, no library), sampled every few seconds.
import { fetchRaw, request } from './api.js';
import { byId, clear, el, size } from './dom.js';

const svg = 'http://www.w3.org/2000/svg';
const keep = 60;
let timer = null;
let previous = null;
const series = {
  rps: { title: 'Requests per second', format: (v) => v.toFixed(1), points: [] },
  p99: { title: 'p99 latency (since last sample)', format: (v) => (v * 1000).toFixed(1) + ' ms', points: [] },
  connections: { title: 'Open connections', format: (v) => String(Math.round(v)), points: [] },
  wal: { title: 'WAL size', format: (v) => size(v), points: [] },
  group: { title: 'Requests per group commit', format: (v) => v.toFixed(2), points: [] },
};

/** Prometheus text as samples: name, labels (text) and value. */
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match) samples.push({ name: match[1], labels: match[2] || '', value: Number(match[3]) });
  }
  return samples;
}

function total(samples, name) {
  return samples.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);
}

/** Cumulative bucket counts summed over every series, by upper bound. */
function buckets(samples, name) {
  const byBound = new Map();
  for (const s of samples.filter((x) => x.name === name)) {
    const le = /le="([^"]*)"/.exec(s.labels);
    if (!le) continue;
    const bound = le[1] === '+Inf' ? Infinity : Number(le[1]);
    byBound.set(bound, (byBound.get(bound) || 0) + s.value);
  }
  return [...byBound.entries()].sort((a, b) => a[0] - b[0]);
}

/** The upper bound of the bucket holding the 99th percentile of the requests between two samples. */
function p99(now, before) {
  const old = new Map(before);
  const delta = now.map(([bound, count]) => [bound, count - (old.get(bound) || 0)]);
  const all = delta.length ? delta[delta.length - 1][1] : 0;
  if (all <= 0) return 0;
  for (const [bound, count] of delta) if (count >= all * 0.99) return Number.isFinite(bound) ? bound : 0;
  return 0;
}

async function sample() {
  try {
    const health = await request('GET', '/health');
    facts({ Status: health.status, Version: health.version, SQLite: health.sqlite_version });
  } catch (error) {
    facts({ Status: error.code + ': ' + error.message });
  }
  const response = await fetchRaw('/metrics');
  if (!response.ok) {
    byId('status-note').textContent = response.status === 403 || response.status === 401
      ? 'The charts need an admin token (GET /metrics).'
      : 'The server serves no metrics (metrics.enabled is off).';
    return;
  }
  const samples = parseMetrics(await response.text());
  const now = {
    at: performance.now(),
    requests: total(samples, 'sqlited_http_requests_total'),
    latency: buckets(samples, 'sqlited_http_request_duration_seconds_bucket'),
    groups: total(samples, 'sqlited_group_commit_requests_count'),
    grouped: total(samples, 'sqlited_group_commit_requests_sum'),
  };
  const uptime = samples.find((s) => s.name === 'sqlited_uptime_seconds');
  if (uptime) addFact('Uptime', duration(uptime.value));
  byId('status-note').textContent = 'Sampled from /metrics every few seconds.';
  push('connections', total(samples, 'sqlited_http_open_connections'));
  push('wal', total(samples, 'sqlited_wal_size_bytes'));
  if (previous) {
    const seconds = (now.at - previous.at) / 1000;
    push('rps', seconds > 0 ? (now.requests - previous.requests) / seconds : 0);
    push('p99', p99(now.latency, previous.latency));
    const groups = now.groups - previous.groups;
    push('group', groups > 0 ? (now.grouped - previous.grouped) / groups : 0);
  }
  previous = now;
  draw();
}

function facts(values) {
  const list = clear(byId('status-facts'));
  for (const [name, value] of Object.entries(values)) addFact(name, value, list);
}

function addFact(name, value, list) {
  (list || byId('status-facts')).append(el('dt', {}, name), el('dd', { 'data-fact': name }, value ?? ''));
}

function duration(seconds) {
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return (d ? d + 'd ' : '') + (d || h ? h + 'h ' : '') + m + 'm ' + (s % 60) + 's';
}

function push(name, value) {
  const points = series[name].points;
  points.push(value);
  if (points.length > keep) points.shift();
}

function draw() {
  const charts = clear(byId('charts'));
  for (const [name, chart] of Object.entries(series)) {
    const points = chart.points;
    const last = points.length ? chart.format(points[points.length - 1]) : '–';
    const box = el('figure', { class: 'chart', 'data-chart': name },
      el('h3', {}, chart.title), el('div', { class: 'now' }, last));
    const picture = document.createElementNS(svg, 'svg');
    picture.setAttribute('viewBox', '0 0 ' + keep + ' 30');
    picture.setAttribute('preserveAspectRatio', 'none');
    picture.setAttribute('role', 'img');
    picture.setAttribute('aria-label', chart.title + ', last ' + points.length + ' samples');
    const base = document.createElementNS(svg, 'line');
    for (const [k, v] of Object.entries({ x1: 0, y1: 29.5, x2: keep, y2: 29.5 })) base.setAttribute(k, v);
    picture.append(base);
    const top = Math.max(...points, 1e-9);
    const line = document.createElementNS(svg, 'polyline');
    // The newest sample at the right edge; until the window is full, at least 15 samples (30 s) span the width.
    const step = keep / (Math.max(points.length, 15) - 1);
    const x = (i) => (keep - (points.length - 1 - i) * step).toFixed(2);
    line.setAttribute('points', points.map((v, i) => x(i) + ',' + (29 - (v / top) * 27).toFixed(2)).join(' '));
    line.setAttribute('vector-effect', 'non-scaling-stroke');
    picture.append(line);
    box.append(picture);
    charts.append(box);
  }
}

/** Starts sampling (every `seconds`), or stops it when `seconds` is 0. */
export function run(seconds) {
  if (timer) clearInterval(timer);
  timer = null;
  if (!seconds) return;
  sample().catch((error) => { byId('status-note').textContent = String(error); });
  timer = setInterval(() => sample().catch(() => {}), seconds * 1000);
}
