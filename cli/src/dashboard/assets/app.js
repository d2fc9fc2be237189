// The dashboard page. Everything it shows is set as text (textContent), never as markup, so a
// payload like <script> is displayed, not run; the server's Content-Security-Policy also allows
// only this file to run. Actions are POSTs carrying the CSRF token from the page's meta tag.
"use strict";

const csrf = document.querySelector('meta[name="leaseq-csrf"]').content;
let selected = null;
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

// A button that runs `action` (a POST), reports its answer (`report` turns it into words) and
// refreshes the page.
function button(label, action, report) {
  const b = el("button", label);
  b.type = "button";
  b.addEventListener("click", async () => {
    try {
      const r = await action();
      status(report ? report(r) : label + ": " + JSON.stringify(r));
    } catch (e) {
      status(label + " failed: " + e.message, true);
    }
    refresh();
  });
  return b;
}

function chart(minutes) {
  const ns = "http://www.w3.org/2000/svg";
  const w = 600, h = 120, bw = w / 60;
  const max = Math.max(1, ...minutes.map((m) => m.completed + m.failed + m.dead));
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", w);
  svg.setAttribute("height", h);
  svg.setAttribute("role", "img");
  minutes.forEach((m, i) => {
    let y = h;
    for (const [k, cls] of [["completed", "done"], ["failed", "failed"], ["dead", "dead"]]) {
      const bh = (m[k] / max) * (h - 10);
      if (bh <= 0) continue;
      y -= bh;
      const r = document.createElementNS(ns, "rect");
      r.setAttribute("x", i * bw + 1);
      r.setAttribute("y", y);
      r.setAttribute("width", bw - 2);
      r.setAttribute("height", bh);
      r.setAttribute("class", cls);
      const t = document.createElementNS(ns, "title");
      t.textContent = k + ": " + m[k];
      r.append(t);
      svg.append(r);
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
  if (name !== selected) group = null;
  selected = name;
  document.getElementById("queue").hidden = false;
  document.getElementById("queue-name").textContent = name;
  const [stats, waiting, groups, dead, workers] = await Promise.all([
    api("/api/stats?" + q(name)),
    api("/api/items?" + q(name) + "&state=waiting&count=10"),
    api("/api/dead/errors?" + q(name)),
    api("/api/items?" + q(name) + "&state=dead&count=50"),
    api("/api/workers?" + q(name)),
  ]);
  fill(document.querySelector("#workers tbody"), workers.workers.map((w) => {
    const i = w.info || {};
    const running = (i.running || []).length + "/" + (i.concurrency ?? "?");
    return row([el("td", w.id, "payload"), el("td", i.language ?? "", "payload"), running,
      i.completed ?? "", i.failed ?? "", i.dead ?? "", i.lost ?? "", w.housekeeper ? "yes" : ""]);
  }));
  flow(name, stats);
  counters(name, stats);
  fill(document.querySelector("#waiting tbody"), waiting.items.map((e) =>
    row([el("td", e.id, "payload"), e.attempts])));
  await showGroup(name);
  fill(document.querySelector("#dead-groups tbody"), groups.groups.map((g) => {
    const td = el("td");
    td.append(button("Requeue " + g.ids.length, () => api("/api/requeue", { queue: name, ids: g.ids })));
    return row([el("td", g.error_type, "payload"), g.count, el("td", g.example, "payload"), td]);
  }));
  fill(document.querySelector("#dead tbody"), dead.items.map((e) => {
    const td = el("td");
    td.append(
      button("Requeue", () => api("/api/requeue", { queue: name, ids: [e.id] })),
      button("Cancel", () => api("/api/cancel", { queue: name, id: e.id })),
    );
    const tr = row([el("td", e.id, "payload"), time(e.at), e.attempts,
      el("td", (e.error_type || "") + (e.error ? ": " + e.error : ""), "payload"), td]);
    tr.dataset.id = e.id;
    return tr;
  }));
}

async function showJob(id) {
  const dl = document.getElementById("job");
  if (!selected) { status("choose a queue first", true); return; }
  try {
    const j = await api("/api/item?" + q(selected) + "&id=" + encodeURIComponent(id));
    const fields = [
      ["id", j.id], ["state", j.state],
      ["attempts", j.max_attempts == null ? j.attempts : j.attempts + " of " + j.max_attempts],
      ["priority", j.priority], ["group", j.group ?? "-"],
      ["added", time(j.added_at)], ["due", time(j.due_at)],
      ["leased", time(j.leased_at)], ["lease ends", time(j.lease_expires_at)],
      ["finished", time(j.finished_at)],
      ["error", j.error == null ? "-" : (j.error_type || "") + ": " + j.error],
      ["dead because", j.dead_reason || "-"], ["progress", j.progress ?? "-"],
      ["result", j.result ?? "-"], ["data (" + j.data_len + " bytes)", j.data_preview],
    ];
    dl.replaceChildren(...fields.flatMap(([k, v]) => [el("dt", k), el("dd", v)]));
  } catch (e) {
    dl.replaceChildren(el("dt", "error"), el("dd", e.message));
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
      tr.addEventListener("click", () => showQueue(s.queue).then(refresh));
      return tr;
    }));
    if (selected) await showQueue(selected);
    status("updated " + new Date().toLocaleTimeString());
  } catch (e) {
    status(e.message, true);
  }
}

document.getElementById("job-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  showJob(document.getElementById("job-id").value);
});
document.getElementById("group-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (!selected) { status("choose a queue first", true); return; }
  group = document.getElementById("group-name").value;
  showGroup(selected);
});
document.getElementById("purge-all").addEventListener("click", async () => {
  if (!selected || !confirm("Delete every dead letter of " + selected + "?")) return;
  try {
    status("purged " + (await api("/api/purge", { queue: selected, all: true })).purged);
  } catch (e) {
    status("purge failed: " + e.message, true);
  }
  refresh();
});
refresh();
setInterval(refresh, 2000);
