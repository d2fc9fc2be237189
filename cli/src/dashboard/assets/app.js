// The dashboard page. Everything it shows is set as text (textContent), never as markup, so a
// payload like <script> is displayed, not run; the server's Content-Security-Policy also allows
// only this file to run. Actions are POSTs carrying the CSRF token from the page's meta tag.
"use strict";

const csrf = document.querySelector('meta[name="leaseq-csrf"]').content;
let selected = null;
// The queue whose view was last drawn (its group lookup is forgotten when another is chosen).
let shown = null;
// The job whose view was last opened from the address.
let shownJob = null;
const STATES = ["waiting", "delayed", "leased", "dead", "done", "blocked"];
const PAGE = 50;

// Where the page is: its address's fragment, so that a queue, a state's list (its filter and
// page) and a job each have a link that can be shared and reloaded:
// #queue=Q&state=dead&error_type=T&name=N&start=50&job=ID.
function route() {
  const p = new URLSearchParams(location.hash.slice(1));
  return {
    queue: p.get("queue"), state: STATES.includes(p.get("state")) ? p.get("state") : "waiting",
    name: p.get("name") || "", error_type: p.get("error_type") || "",
    start: Math.max(0, parseInt(p.get("start") || "0", 10) || 0), job: p.get("job"),
  };
}

function link(changes) {
  const r = Object.assign(route(), changes);
  const p = new URLSearchParams();
  for (const k of ["queue", "state", "name", "error_type", "start", "job"]) {
    if (r[k] !== null && r[k] !== undefined && r[k] !== "" && !(k === "start" && r[k] === 0)) p.set(k, r[k]);
  }
  return "#" + p.toString();
}

function a(text, href, cls) {
  const e = el("a", text, cls);
  e.href = href;
  return e;
}

// What an action did, kept in a list the refresh leaves alone, newest first.
function logAction(text, error) {
  const li = el("li", new Date().toLocaleTimeString() + " " + text, error ? "error" : "");
  document.getElementById("action-log").prepend(li);
  document.getElementById("actions").hidden = false;
}
// The group looked up in the selected queue (by name: the protocol keeps no list of groups).
let group = null;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function row(cells) {
  const tr = el("tr");
  for (const c of cells) tr.append(c instanceof Node ? c : el("td", c));
  return tr;
}

function fill(tbody, rows) {
  tbody.replaceChildren(...rows);
}

function time(ms) {
  return ms == null ? "-" : new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

function age(s) {
  if (s == null) return "-";
  if (s < 60) return s.toFixed(1) + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + String(Math.floor(s % 60)).padStart(2, "0") + "s";
  return Math.floor(s / 3600) + "h" + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + "m";
}

function status(text, error) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.className = error ? "error" : "";
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json", "x-leaseq-csrf": csrf },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, init);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

const q = (name) => "queue=" + encodeURIComponent(name);

// A button that runs `action` (a POST), after `confirm` when given (the question to ask),
// keeps its answer in the actions' list (`report` turns it into words) and refreshes the page.
function button(label, action, report, ask) {
  const b = el("button", label);
  b.type = "button";
  b.addEventListener("click", async () => {
    if (ask && !confirm(ask)) return;
    try {
      const r = await action();
      logAction(report ? report(r) : label + ": " + JSON.stringify(r));
    } catch (e) {
      logAction(label + " failed: " + e.message, true);
    }
    refresh();
  });
  return b;
}

// The actions an item's state allows, each confirmed first.
function itemActions(name, state, id) {
  const out = [];
  const shown = JSON.stringify(id);
  if (state === "delayed") {
    out.push(button("Promote", () => api("/api/promote", { queue: name, id }),
      (r) => "promoted " + r.id + ": it waits now", "Make " + shown + " wait now, before its due time?"));
  }
  if (state === "dead") {
    out.push(button("Requeue", () => api("/api/requeue", { queue: name, ids: [id] }),
      (r) => "requeued " + r.requeued + " (" + id + ")", "Requeue the dead letter " + shown + "?"));
  }
  if (state !== "done") {
    out.push(button("Cancel", () => api("/api/cancel", { queue: name, id }),
      (r) => "cancelled " + r.id + " (was " + r.was + ")", "Cancel " + shown + "? This cannot be undone."));
  }
  return out;
}

// The list of one state, as the address says: a page, or a filter's matches.
async function showList(name) {
  const r = route();
  document.getElementById("states").replaceChildren(...STATES.map((st) =>
    a(st, link({ queue: name, state: st, start: 0, job: null }), st === r.state ? "current" : "")));
  const nameInput = document.getElementById("filter-name");
  const typeInput = document.getElementById("filter-type");
  if (document.activeElement !== nameInput) nameInput.value = r.name;
  if (document.activeElement !== typeInput) typeInput.value = r.error_type;
  document.getElementById("filter-clear").href = link({ name: "", error_type: "", start: 0 });
  let page;
  try {
    page = await api("/api/items?" + q(name) + "&state=" + r.state + "&start=" + r.start +
      "&count=" + PAGE + "&name=" + encodeURIComponent(r.name) +
      "&error_type=" + encodeURIComponent(r.error_type));
  } catch (e) {
    document.getElementById("pager").replaceChildren(el("span", e.message, "error"));
    fill(document.querySelector("#list tbody"), []);
    return;
  }
  const pager = [];
  if (page.examined == null) {
    // The positions the page covers: up to the next page's start, else as far as it listed.
    // A position whose item is gone (cancelled, finished, its result expired) lists nothing.
    const last = page.next_start ?? r.start + page.items.length;
    let text = last === r.start ? "none of " + page.total
      : (r.start + 1) + "–" + last + " of " + page.total;
    const gone = last - r.start - page.items.length;
    if (gone > 0) text += " (" + gone + " not listed: gone since, cancelled, finished or expired)";
    const uncounted = page.total - last;
    if (page.next_start == null && r.state === "waiting" && uncounted > 0) {
      text += " (" + uncounted + " more counted as waiting: items waiting in groups, and ids " +
        "of cancelled or finished items until a lease drops them)";
    }
    pager.push(el("span", text, "count"));
  } else {
    pager.push(el("span", page.items.length + " matching among positions " + (r.start + 1) + "–" +
      (r.start + page.examined) + " of " + page.total, "count"));
  }
  if (r.start > 0) pager.push(a("previous", link({ start: Math.max(0, r.start - PAGE) }), "prev"));
  if (page.next_start != null) pager.push(a("next", link({ start: page.next_start }), "next"));
  document.getElementById("pager").replaceChildren(...pager.flatMap((x) => [x, document.createTextNode(" ")]));
  document.getElementById("list-time").textContent =
    { waiting: "", delayed: "due", leased: "lease ends", dead: "died", done: "finished" }[r.state];
  fill(document.querySelector("#list tbody"), page.items.map((e) => {
    const id = el("td", null, "payload");
    id.append(a(e.id, link({ job: e.id })));
    inPartition(id, e);
    const td = el("td");
    td.append(...itemActions(name, r.state, e.id));
    // The last error; for a dead item without one (an expiry, a dependency's death), why it died.
    const error = (e.error_type || "") + (e.error ? ": " + e.error : "");
    const tr = row([id, el("td", e.name ?? "", "payload"), time(e.at), e.attempts,
      el("td", error || e.reason || "", "payload"), td]);
    tr.dataset.id = e.id;
    return tr;
  }));
}

// A round scale for `max` items a minute: 1, 2, 5, 10, 20, 50...
function scale(max) {
  for (let m = 1; ; m *= 10) {
    for (const f of [1, 2, 5]) if (f * m >= max) return f * m;
  }
}

// Items per minute over the last 60 minutes, stacked: an items/min axis with its scale, a time
// axis in minutes before now, and their labels.
function chart(minutes) {
  const ns = "http://www.w3.org/2000/svg";
  const left = 48, bottom = 34, top = 10, pw = 600, ph = 120;
  const w = left + pw + 10, h = top + ph + bottom, bw = pw / 60;
  const top_ = scale(Math.max(2, ...minutes.map((m) => m.completed + m.failed + m.dead)));
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", w);
  svg.setAttribute("height", h);
  svg.setAttribute("role", "img");
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  for (const v of [0, top_ / 2, top_]) {
    const y = top + ph - (v / top_) * ph;
    add("line", { x1: left - 4, x2: left + pw, y1: y, y2: y, class: v === 0 ? "axis" : "grid" });
    add("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "y-tick" }, String(v));
  }
  add("line", { x1: left, x2: left, y1: top, y2: top + ph, class: "axis" });
  add("text", { x: 12, y: top + ph / 2, "text-anchor": "middle", class: "y-label",
    transform: "rotate(-90 12 " + (top + ph / 2) + ")" }, "items/min");
  for (const ago of [60, 45, 30, 15, 0]) {
    const x = left + pw - (ago / 60) * pw;
    add("line", { x1: x, x2: x, y1: top + ph, y2: top + ph + 4, class: "axis" });
    add("text", { x, y: top + ph + 16, "text-anchor": "middle", class: "x-tick" },
      ago === 0 ? "now" : "-" + ago);
  }
  add("text", { x: left + pw / 2, y: h - 3, "text-anchor": "middle", class: "x-label" },
    "minutes ago");
  minutes.forEach((m, i) => {
    let y = top + ph;
    for (const [k, cls] of [["completed", "done"], ["failed", "failed"], ["dead", "dead"]]) {
      const bh = (m[k] / top_) * ph;
      if (bh <= 0) continue;
      y -= bh;
      const r = add("rect", { x: left + i * bw + 1, y, width: bw - 2, height: bh, class: cls });
      const t = document.createElementNS(ns, "title");
      t.textContent = k + ": " + m[k] + " (" + (59 - i) + " min ago)";
      r.append(t);
    }
  });
  document.getElementById("chart").replaceChildren(svg);
}

// The throughput chart when the queue counts; when it does not, a plain "off" instead of an empty
// chart that would read as an idle queue. Either way, the switch.
function counters(name, stats) {
  document.getElementById("legend").hidden = !stats.counters;
  if (stats.counters) {
    chart(stats.minutes);
  } else {
    document.getElementById("chart").replaceChildren(
      el("p", "Counters are off for this queue: completed, failed, dead and expired items are " +
        "not counted, so there is no throughput to show.", "counters-off"));
  }
  const on = !stats.counters;
  document.getElementById("counters-switch").replaceChildren(
    button(on ? "Turn counters on" : "Turn counters off",
      () => api("/api/config", { queue: name, stats: on }),
      (r) => "counters " + (r.effective.stats ? "on" : "off") + " for " + r.queue),
    el("span", on
      ? "Counting keeps a Redis key per minute, for an hour after the last event."
      : "Turning them off keeps no new counts; those kept expire within the hour.", "hint"));
}

// "120 / 1000": what counts against a bounded queue's capacity (waiting and delayed items).
function capacity(stats) {
  return stats.capacity == null ? "-" : (stats.waiting + stats.delayed) + " / " + stats.capacity;
}

// A whole duration as the command writes it: 500ms, 30s, 5m, 1h, 1d.
function duration(ms) {
  if (ms < 1000 || ms % 1000 !== 0) return ms + "ms";
  const s = ms / 1000;
  for (const [unit, n] of [["d", 86400], ["h", 3600], ["m", 60]]) {
    if (s % n === 0) return s / n + unit;
  }
  return s + "s";
}

// "1000/1s", "1000/1s, held off" while leases are held off, "held off" for a hold without a
// limit, "-" otherwise: the queue list's cell.
function rateLimit(stats) {
  const limit = stats.rate_limit == null ? null
    : stats.rate_limit.max + "/" + duration(stats.rate_limit.per_ms);
  const held = stats.rate_limited_for_ms == null ? null : "held off";
  return [limit, held].filter((x) => x != null).join(", ") || "-";
}

// The queue view's line on the rate limit, and whether leases are held off now (by the limit
// or by a hold: `leaseq hold`, or a runner whose handler was rate limited).
function rateLine(stats) {
  const limit = stats.rate_limit == null
    ? "Rate limit: none."
    : "Rate limit: " + stats.rate_limit.max + " leases per " + duration(stats.rate_limit.per_ms) + ".";
  const held = stats.rate_limited_for_ms == null
    ? " Leases are not held off."
    : " Leases are held off for " + age(stats.rate_limited_for_ms / 1000) + ", for every client.";
  const line = el("span", limit + held, stats.rate_limited_for_ms == null ? "rate" : "rate held");
  line.id = "rate-limit";
  return line;
}

// Whether the queue leases: a badge that says "paused" or "running", and the action that
// changes it (a POST like every action). Then the capacity, when the queue is bounded, and the
// rate limit.
function flow(name, stats) {
  const badge = document.getElementById("queue-state");
  badge.textContent = stats.paused ? "paused" : "running";
  badge.className = "badge " + (stats.paused ? "paused" : "running");
  const action = stats.paused
    ? button("Resume", () => api("/api/resume", { queue: name }),
      (r) => r.queue + (r.changed ? " resumed" : " was not paused"))
    : button("Pause", () => api("/api/pause", { queue: name }),
      (r) => r.queue + (r.changed ? " paused" : " was already paused"));
  action.id = "pause-resume";
  const hint = el("span", stats.paused
    ? "Nothing is leased from this queue, by any client, until it is resumed; adds go on."
    : "Pausing stops every client leasing from this queue; adds go on, leased items finish.",
    "hint");
  const bound = el("span", stats.capacity == null
    ? "Capacity: no bound."
    : "Capacity: " + capacity(stats) + " (waiting and delayed).", "capacity");
  bound.id = "capacity";
  document.getElementById("flow").replaceChildren(action, hint, el("br"), bound, el("br"),
    rateLine(stats));
}

// The group looked up by name: its counts, its limit, whether it is paused, and the action that
// changes that (a POST like every action), and how long it is held off while it is at the groups'
// rate limit or held (`leaseq hold --group`, or a runner whose handler was rate limited for it).
// Its limits are the command's (`leaseq group limit`, `leaseq config set`), not the page's.
async function showGroup(name) {
  const table = document.getElementById("group");
  table.hidden = group == null;
  if (group == null) return;
  const tbody = table.querySelector("tbody");
  try {
    const g = await api("/api/group?" + q(name) + "&group=" + encodeURIComponent(group));
    const action = g.paused
      ? button("Resume group", () => api("/api/group/resume", { queue: name, group: g.group }),
        (r) => "group " + r.group + (r.changed ? " resumed" : " was not paused"))
      : button("Pause group", () => api("/api/group/pause", { queue: name, group: g.group }),
        (r) => "group " + r.group + (r.changed ? " paused" : " was already paused"));
    action.id = "group-pause-resume";
    const td = el("td");
    td.append(action);
    const held = g.rate_limited_for_ms == null
      ? el("td", "-")
      : el("td", "held off for " + age(g.rate_limited_for_ms / 1000), "rate held");
    held.id = "group-rate";
    fill(tbody, [row([el("td", g.group, "payload"), g.waiting, g.leased, g.limit,
      el("td", g.paused ? "paused" : "running", g.paused ? "paused" : ""), held, td])]);
  } catch (e) {
    const td = el("td", e.message, "error");
    td.colSpan = 7;
    fill(tbody, [row([td])]);
  }
}

async function showQueue(name) {
  if (name !== shown) group = null;
  shown = name;
  document.getElementById("queue").hidden = false;
  document.getElementById("queue-name").textContent = name;
  const [stats, waiting, groups, dead, workers, schedules] = await Promise.all([
    api("/api/stats?" + q(name)),
    api("/api/items?" + q(name) + "&state=waiting&count=10"),
    api("/api/dead/errors?" + q(name)),
    api("/api/items?" + q(name) + "&state=dead&count=50"),
    api("/api/workers?" + q(name)),
    api("/api/schedules?" + q(name)),
  ]);
  // Recurring jobs, by next fire time (names and expressions are text, never markup).
  fill(document.querySelector("#schedules tbody"), schedules.schedules.map((s) => {
    const when = s.cron != null
      ? s.cron + (s.tz ? " (" + s.tz + ")" : "")
      : "every " + age(s.every_ms / 1000);
    const next = s.next_ms == null ? "-"
      : time(s.next_ms) + " (in " + age(Math.max(0, s.next_ms - schedules.now_ms) / 1000) + ")";
    return row([el("td", s.name, "payload"), el("td", when, "payload"), next, s.missed ?? "",
      s.fired, s.skipped, s.last_tick_ms == null ? "-" : time(s.last_tick_ms)]);
  }));
  fill(document.querySelector("#workers tbody"), workers.workers.map((w) => {
    const i = w.info || {};
    const running = (i.running || []).length + "/" + (i.concurrency ?? "?");
    return row([el("td", w.id, "payload"), el("td", i.language ?? "", "payload"), running,
      i.completed ?? "", i.failed ?? "", i.dead ?? "", i.lost ?? "", w.housekeeper ? "yes" : ""]);
  }));
  flow(name, stats);
  counters(name, stats);
  fill(document.querySelector("#waiting tbody"), waiting.items.map((e) => {
    const id = el("td", null, "payload");
    id.append(a(e.id, link({ queue: name, job: e.id })));
    inPartition(id, e);
    return row([id, e.attempts]);
  }));
  await showList(name);
  await showGroup(name);
  fill(document.querySelector("#dead-groups tbody"), groups.groups.map((g) => {
    const td = el("td");
    td.append(button("Requeue " + g.ids.length, () => api("/api/requeue", { queue: name, ids: g.ids }),
      (r) => "requeued " + r.requeued + " dead letters of type " + g.error_type,
      "Requeue " + g.ids.length + " dead letters of type " + JSON.stringify(g.error_type) + "?"));
    return row([el("td", g.error_type, "payload"), g.count, el("td", g.example, "payload"), td]);
  }));
  fill(document.querySelector("#dead tbody"), dead.items.map((e) => {
    const td = el("td");
    td.append(...itemActions(name, "dead", e.id));
    const id = el("td", null, "payload");
    id.append(a(e.id, link({ queue: name, job: e.id })));
    inPartition(id, e);
    const tr = row([id, time(e.at), e.attempts,
      el("td", (e.error_type || "") + (e.error ? ": " + e.error : ""), "payload"), td]);
    tr.dataset.id = e.id;
    return tr;
  }));
}

// On a partitioned queue's base: the partition an entry was listed from, after its id (as text).
function inPartition(cell, e) {
  if (e.partition != null) cell.append(" ", el("span", "in " + e.partition, "hint"));
}

// A list of item ids, each a link that shows that item (its text set as text, never markup).
function jobLinks(ids, after) {
  const dd = el("dd", ids.length ? null : "-");
  ids.forEach((id, i) => {
    if (i > 0) dd.append(", ");
    const a = el("a", id, "payload job-link");
    a.href = "#";
    a.addEventListener("click", (ev) => { ev.preventDefault(); showJob(id); });
    dd.append(a);
  });
  if (after) dd.append(after);
  return dd;
}

async function showJob(id) {
  const dl = document.getElementById("job");
  const actions = document.getElementById("job-actions");
  const trace = document.getElementById("job-trace");
  if (!selected) { status("choose a queue first", true); return; }
  try {
    const j = await api("/api/item?" + q(selected) + "&id=" + encodeURIComponent(id));
    const fields = [
      ["id", j.id], ["queue", selected], ["state", j.state], ["name", j.name ?? "-"],
      ["attempts", j.max_attempts == null ? j.attempts : j.attempts + " of " + j.max_attempts],
      ["priority", j.priority], ["group", j.group ?? "-"],
      ["added", time(j.added_at)], ["due", time(j.due_at)],
      ["leased", time(j.leased_at)], ["lease ends", time(j.lease_expires_at)],
      ["finished", time(j.finished_at)],
      ["error", j.error == null ? "-" : (j.error_type || "") + ": " + j.error],
      ["dead because", j.dead_reason || "-"], ["progress", j.progress ?? "-"],
      ["result", j.result ?? "-"], ["data (" + j.data_len + " bytes)", j.data_preview],
    ];
    // On a partitioned queue's base: the partition that holds it, after the queue.
    if (j.partition != null) fields.splice(2, 0, ["partition", j.partition]);
    dl.replaceChildren(...fields.flatMap(([k, v]) => [el("dt", k), el("dd", v)]));
    // What it waits for and what waits for it (spec 5.24), each id a link to its own view.
    const d = await api("/api/dependencies?" + q(selected) + "&id=" + encodeURIComponent(id));
    const more = d.dependants_count > d.dependants.length
      ? " (" + d.dependants_count + " in all)" : "";
    dl.append(el("dt", "depends on"), jobLinks(d.depends_on, j.on_dependency_failure
      ? " (if one fails: " + j.on_dependency_failure + ")" : ""),
      el("dt", "waits for"), jobLinks(d.pending, ""),
      el("dt", "waited for by"), jobLinks(d.dependants, more));
    actions.replaceChildren(...itemActions(selected, j.state, j.id));
    // A failed attempt's trace, when the job carries one: text in a <pre>, never markup.
    trace.hidden = j.trace == null;
    trace.textContent = j.trace ?? "";
  } catch (e) {
    dl.replaceChildren(el("dt", "error"), el("dd", e.message));
    actions.replaceChildren();
    trace.hidden = true;
  }
}

async function refresh() {
  try {
    const queues = await api("/api/queues");
    fill(document.querySelector("#queues tbody"), queues.map((s) => {
      const tr = row([el("td", s.queue, "payload"), s.waiting, s.delayed, s.leased, s.dead,
        s.processing, age(s.oldest_waiting_seconds),
        s.counters ? s.last_hour.completed : "off", s.counters ? s.last_hour.failed : "off",
        el("td", s.paused ? "paused" : "running", s.paused ? "paused" : ""), capacity(s),
        el("td", rateLimit(s), s.rate_limited_for_ms == null ? "" : "paused")]);
      tr.className = "q" + (s.queue === selected ? " selected" : "");
      tr.dataset.queue = s.queue;
      tr.addEventListener("click", () => { location.hash = link({ queue: s.queue, state: "waiting", name: "", error_type: "", start: 0, job: null }); });
      return tr;
    }));
    const r = route();
    selected = r.queue;
    document.getElementById("queue").hidden = !selected;
    if (selected) await showQueue(selected);
    if (selected && r.job != null) {
      await showJob(r.job);
      // A job just opened (a link, a search): bring its view into sight, once.
      if (r.job !== shownJob) document.getElementById("job-section").scrollIntoView();
    }
    shownJob = r.job;
    document.getElementById("down").hidden = true;
    status("updated " + new Date().toLocaleTimeString());
  } catch (e) {
    // Redis down, or the server gone: say so, keep what was shown, and try again.
    const down = document.getElementById("down");
    down.textContent = "Cannot read the queues: " + e.message + " (trying again every 2 s)";
    down.hidden = false;
    status("not updated", true);
  }
}

document.getElementById("job-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  location.hash = link({ job: document.getElementById("job-id").value });
});
document.getElementById("search-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  location.hash = link({ job: document.getElementById("search-id").value });
});
document.getElementById("filter-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  location.hash = link({ name: document.getElementById("filter-name").value,
    error_type: document.getElementById("filter-type").value, start: 0 });
});
document.getElementById("actions-clear").addEventListener("click", () => {
  document.getElementById("action-log").replaceChildren();
  document.getElementById("actions").hidden = true;
});
window.addEventListener("hashchange", refresh);
document.getElementById("group-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (!selected) { status("choose a queue first", true); return; }
  group = document.getElementById("group-name").value;
  showGroup(selected);
});
document.getElementById("purge-all").addEventListener("click", async () => {
  if (!selected || !confirm("Delete every dead letter of " + selected + "?")) return;
  try {
    logAction("purged " + (await api("/api/purge", { queue: selected, all: true })).purged +
      " dead letters of " + selected);
  } catch (e) {
    logAction("purge failed: " + e.message, true);
  }
  refresh();
});
// The selected queue's event stream (GET /api/events, server-sent events): each entry is
// shown in the live log (as text) and redraws the page soon after, so that what other clients
// do shows at once; the 2 s refresh goes on beside it. The browser reconnects by itself, and
// the server resumes after the last entry it sent (Last-Event-ID). A partitioned queue's page
// follows every partition's stream, each entry showing its partition (p<i>).
let live = null;
let liveQueue = null;
let liveRedraw = null;
const LIVE_KEPT = 100;

function liveState(text) {
  document.getElementById("events-state").textContent = text;
}

function follow(name) {
  if (name === liveQueue) return;
  if (live) live.close();
  live = null;
  liveQueue = name;
  document.getElementById("event-log").replaceChildren();
  if (!name) return;
  liveState("connecting to the event stream...");
  live = new EventSource("/api/events?" + q(name));
  live.addEventListener("status", (m) => {
    const on = JSON.parse(m.data).on;
    liveState(on ? "events on: entries show here as they happen"
      : "events are off for this queue: nothing is recorded (leaseq config set -q " + name + " --events on)");
  });
  live.addEventListener("entry", (m) => {
    const e = JSON.parse(m.data);
    const parts = [time(e.time_ms), e.event, e.job_id, "attempt " + e.attempt];
    if (e.partition != null) parts.splice(1, 0, "p" + e.partition);
    if (e.name != null) parts.push("name " + e.name);
    if (e.error != null) parts.push("error " + e.error);
    if (e.reason != null) parts.push("(" + e.reason + ")");
    const li = el("li", parts.join("  "), "payload event-" + e.event);
    li.dataset.event = e.event;
    li.dataset.id = e.job_id;
    const log = document.getElementById("event-log");
    log.prepend(li);
    while (log.children.length > LIVE_KEPT) log.lastElementChild.remove();
    if (liveRedraw === null) {
      liveRedraw = setTimeout(() => { liveRedraw = null; refresh(); }, 200);
    }
  });
  live.addEventListener("error", () => {
    if (live && live.readyState === EventSource.CONNECTING) liveState("event stream lost: reconnecting...");
    // Refused (a queue this dashboard does not show, a key of another type), not lost.
    if (live && live.readyState === EventSource.CLOSED) liveState("no event stream for this queue");
  });
}

window.addEventListener("hashchange", () => follow(route().queue));
follow(route().queue);
refresh();
setInterval(refresh, 2000);
