// The studio page: shows the phone and the panels, turns the mouse and keyboard into canonical
// actions, and follows the server's changes over /api/live.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const studio = { panels: null, version: 0, hovered: null };
window.studio = studio;

async function api(method, path, body) {
  if (!token) throw new Error("open the URL the studio printed: it carries the token (?token=...)");
  const response = await fetch(path, {
    method,
    headers: { "x-studio-token": token, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function deskMessage(text, bad) {
  $("desk-message").textContent = text;
  $("desk-message").className = bad ? "bad" : "";
}

async function run(work) {
  try {
    return await work();
  } catch (err) {
    deskMessage(String(err.message || err), true);
    return null;
  }
}

// ------------------------------------------------------------------ the phone

function size() {
  return studio.panels ? studio.panels.size : { width: 1080, height: 2400 };
}

// Page coordinates of a pointer event → the phone's pixels (on the screen, edges included).
function devicePoint(event) {
  const rect = $("screen").getBoundingClientRect();
  const { width, height } = size();
  const clamp = (v, most) => Math.min(Math.max(Math.round(v), 0), most - 1);
  return {
    x: clamp(((event.clientX - rect.left) / rect.width) * width, width),
    y: clamp(((event.clientY - rect.top) / rect.height) * height, height),
  };
}

// Actions go one at a time, in the order done: keys typed quickly must arrive as typed.
let queue = Promise.resolve();
function act(action) {
  queue = queue.then(() => run(() => api("POST", "/api/action", action)));
  return queue;
}

let press = null;
$("screen").addEventListener("pointerdown", (event) => {
  event.preventDefault();
  $("phone").focus();
  // A drag released off the phone still ends here.
  $("screen").setPointerCapture(event.pointerId);
  press = { at: devicePoint(event), time: performance.now() };
});
$("screen").addEventListener("pointercancel", () => {
  press = null;
});
$("screen").addEventListener("pointerup", (event) => {
  if (!press) return;
  const end = devicePoint(event);
  const ms = Math.round(performance.now() - press.time);
  const moved = Math.hypot(end.x - press.at.x, end.y - press.at.y);
  const slop = size().width / 40;
  const start = press.at;
  press = null;
  if (moved < slop) {
    act(ms >= 500 ? { type: "long_press", x: start.x, y: start.y, ms: Math.min(ms, 5000) } : { type: "tap", x: start.x, y: start.y });
  } else {
    act({ type: "swipe", x1: start.x, y1: start.y, x2: end.x, y2: end.y, ms: Math.max(100, Math.min(ms, 2000)) });
  }
});
$("screen").addEventListener("pointermove", (event) => {
  const { x, y } = devicePoint(event);
  const found = elementAt(x, y);
  if (found !== null) hover(found);
});
$("screen").addEventListener("pointerleave", () => hover(null));

$("phone").addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const keys = { Enter: "enter", Backspace: "delete", Escape: "back" };
  if (keys[event.key]) {
    event.preventDefault();
    act({ type: "key", key: keys[event.key] });
  } else if (event.key.length === 1) {
    event.preventDefault();
    act({ type: "type_text", text: event.key });
  }
});

$("back").onclick = () => act({ type: "key", key: "back" });
$("home").onclick = () => act({ type: "key", key: "home" });
$("recents").onclick = () => act({ type: "key", key: "recents" });
$("reset").onclick = () => run(() => api("POST", "/api/reset"));
$("appearance").onchange = () => run(() => api("POST", "/api/appearance", { name: $("appearance").value }));

// ------------------------------------------------------------------ the inspector

function box(element) {
  return element.bbox_pixels || null;
}

// The smallest element under a point of the phone, by its index.
function elementAt(x, y) {
  const elements = studio.panels ? studio.panels.elements : [];
  let best = null;
  let bestArea = Infinity;
  elements.forEach((element, index) => {
    const b = box(element);
    if (!b || x < b.x_min || x > b.x_max || y < b.y_min || y > b.y_max) return;
    const area = (b.x_max - b.x_min) * (b.y_max - b.y_min);
    if (area < bestArea) {
      best = index;
      bestArea = area;
    }
  });
  return best;
}

function hover(index) {
  studio.hovered = index;
  document.querySelectorAll("#elements li.hover").forEach((li) => li.classList.remove("hover"));
  const highlight = $("highlight");
  const element = index === null || !studio.panels ? null : studio.panels.elements[index];
  if (!element) {
    highlight.hidden = true;
    return;
  }
  const li = $("elements").children[index];
  if (li) {
    li.classList.add("hover");
    li.scrollIntoView({ block: "nearest" });
  }
  const b = box(element);
  if (b) {
    const { width, height } = size();
    Object.assign(highlight.style, {
      left: `${(b.x_min / width) * 100}%`,
      top: `${(b.y_min / height) * 100}%`,
      width: `${((b.x_max - b.x_min) / width) * 100}%`,
      height: `${((b.y_max - b.y_min) / height) * 100}%`,
    });
    highlight.hidden = false;
  }
  // `bbox` is `bbox_pixels` over the screen's size: one of the two is enough to read.
  const rows = Object.entries(element).filter(([k, v]) => v !== null && v !== undefined && k !== "bbox");
  $("element-fields").replaceChildren(
    ...rows.map(([k, v]) => {
      const tr = document.createElement("tr");
      const key = document.createElement("td");
      const value = document.createElement("td");
      key.textContent = k;
      value.textContent = typeof v === "object" ? JSON.stringify(v) : String(v);
      tr.append(key, value);
      return tr;
    }),
  );
}

function describe(element) {
  const id = element.resource_id ? element.resource_id.split(":id/").pop() : "";
  const words = [element.text, element.content_description, id && `#${id}`].filter(Boolean).join("  ");
  const flags = ["clickable", "checked", "editable", "scrollable", "focused", "selected"].filter((f) => element[`is_${f}`]).join(" ");
  return { cls: (element.class_name || "").split(".").pop(), words, flags };
}

function showElements(elements) {
  $("elements").replaceChildren(
    ...elements.map((element, index) => {
      const li = document.createElement("li");
      const { cls, words, flags } = describe(element);
      const kind = document.createElement("span");
      kind.className = "cls";
      kind.textContent = `${cls} `;
      li.append(kind, document.createTextNode(words + (flags ? `  [${flags}]` : "")));
      li.onmouseenter = () => hover(index);
      li.onmouseleave = () => hover(null);
      return li;
    }),
  );
}

// ------------------------------------------------------------------ problems

function problemText(p) {
  return [p.file, p.line, p.column].filter((x) => x !== null && x !== undefined).join(":") + `: ${p.message}`;
}

async function showSource(file, line) {
  const response = await fetch(`/api/file?path=${encodeURIComponent(file)}`, { headers: { "x-studio-token": token } });
  if (!response.ok) return;
  const lines = (await response.text()).split("\n");
  const from = Math.max(0, (line || 1) - 6);
  const pre = $("source");
  pre.replaceChildren(
    ...lines.slice(from, from + 12).map((text, i) => {
      const span = document.createElement("span");
      span.textContent = `${String(from + i + 1).padStart(4)}  ${text}\n`;
      if (from + i + 1 === line) span.className = "hit";
      return span;
    }),
  );
  pre.hidden = false;
}

function showProblems(panels) {
  const items = [];
  for (const p of panels.problems) {
    const li = document.createElement("li");
    li.textContent = problemText(p);
    li.onclick = () => showSource(p.file, p.line);
    items.push(li);
  }
  for (const text of panels.script_errors.concat(panels.view_problems)) {
    const li = document.createElement("li");
    li.className = "script";
    li.textContent = text;
    const place = /^(.*\.lua):(\d+):/.exec(text);
    if (place) li.onclick = () => showSource(place[1], Number(place[2]));
    items.push(li);
  }
  $("problems").replaceChildren(...items);
  $("problem-count").textContent = String(items.length);
  $("problem-count").classList.toggle("bad", items.length > 0);
  if (items.length === 0) $("source").hidden = true;
}

// ------------------------------------------------------------------ tasks

function showDesk(desk) {
  const playing = desk.playing;
  $("playing").textContent = playing
    ? `${playing.template} (seed ${playing.seed}): ${playing.instruction} — ${playing.actions.length} action(s)${playing.ended ? `; ${playing.ended}` : ""}`
    : "";
  const recording = desk.recording;
  $("recording").textContent = recording ? `recording: ${recording.steps.length} step(s)` : "";
  $("recorded-steps").replaceChildren(
    ...(recording ? recording.steps.concat(recording.unsaid.map((u) => `not in the task: ${u}`)) : []).map((s) => {
      const li = document.createElement("li");
      li.textContent = s;
      return li;
    }),
  );
  const offered = desk.offered || [];
  const shown = [...$("offers").querySelectorAll("label")].map((l) => l.textContent.trim());
  if (shown.join("\n") !== offered.map((o) => o.check).join("\n")) {
    $("offers").replaceChildren(
      ...offered.map((offer, i) => {
        const li = document.createElement("li");
        const label = document.createElement("label");
        const box = document.createElement("input");
        box.type = "checkbox";
        box.value = String(i);
        box.className = "offer";
        label.append(box, document.createTextNode(` ${offer.check}`));
        li.append(label);
        return li;
      }),
    );
  }
  if (desk.verified) $("verify-result").textContent = JSON.stringify(desk.verified, null, 2);
}

function showChecks(answer) {
  $("checks").replaceChildren(
    ...answer.checks.map((c) => {
      const li = document.createElement("li");
      li.className = c.holds ? "held" : "failed";
      li.textContent = `${c.holds ? "✔" : "✘"} ${c.check}${c.error ? ` (${c.error})` : ""}`;
      return li;
    }),
  );
  deskMessage(answer.success ? "the task's checks hold: success" : `not yet: ${answer.reason || ""}`, false);
}

async function loadTemplates(select) {
  const answer = await run(() => api("GET", "/api/tasks"));
  if (!answer) return;
  $("templates").replaceChildren(
    ...answer.templates.map((t) => {
      const option = document.createElement("option");
      option.value = t.id;
      option.textContent = `${t.id} — ${t.instruction}`;
      return option;
    }),
  );
  if (select) $("templates").value = select;
  if (answer.errors.length) deskMessage(answer.errors.join("\n"), true);
}

$("play").onclick = () => run(async () => {
  await api("POST", "/api/play", { template: $("templates").value, seed: Number($("seed").value) || 0 });
  $("checks").replaceChildren();
  deskMessage("set up: press Next step to play the reference solution", false);
});
$("play-step").onclick = () => run(async () => showChecks(await api("POST", "/api/play/step")));
$("verify").onclick = () => run(async () => {
  deskMessage("verifying…", false);
  const answer = await api("POST", "/api/verify", { template: $("templates").value });
  deskMessage(answer.ok ? `verified on ${answer.seeds} seeds` : "verify found problems", !answer.ok);
});
$("reload-templates").onclick = () => loadTemplates($("templates").value);
$("record-start").onclick = () => run(async () => {
  await api("POST", "/api/record/start");
  $("offers").replaceChildren();
  deskMessage("recording: do the task on the phone, then Stop", false);
});
$("record-stop").onclick = () => run(async () => {
  const answer = await api("POST", "/api/record/stop");
  deskMessage(`${answer.offered.length} check(s) from what changed: keep the ones the task is about`, false);
});
$("record-save").onclick = () => run(async () => {
  const keep = [...document.querySelectorAll("input.offer:checked")].map((b) => Number(b.value));
  const id = $("task-id").value.trim();
  const answer = await api("POST", "/api/record/save", { id, instruction: $("task-instruction").value, keep });
  deskMessage(`saved ${answer.file}`, false);
  await loadTemplates(id);
});

// ------------------------------------------------------------------ following the server

function showJson(id, value) {
  const text = JSON.stringify(value, null, 2);
  if ($(id).textContent !== text) $(id).textContent = text;
}

async function refresh(version) {
  const panels = await run(() => api("GET", "/api/panels"));
  // An answer overtaken by a newer one is not shown.
  if (!panels || panels.version < studio.version) return;
  studio.panels = panels;
  $("screen").src = `/api/frame.png?v=${panels.version}&token=${encodeURIComponent(token)}`;
  $("apps").textContent = panels.apps.map((a) => `${a.label} (${a.dir})`).join(", ");
  $("foreground").textContent = `${panels.foreground.package} / ${panels.foreground.screen}`;
  if ($("appearance").childElementCount === 0) {
    $("appearance").replaceChildren(
      ...panels.appearances.map((name) => {
        const option = document.createElement("option");
        option.value = option.textContent = name;
        return option;
      }),
    );
  }
  $("appearance").value = panels.appearance;
  $("notice").hidden = !panels.notice;
  $("notice").textContent = panels.notice || "";
  showProblems(panels);
  showElements(panels.elements);
  showJson("state", panels.state);
  showJson("screen-state", panels.screen_state);
  showJson("vm", panels.vm);
  showDesk(panels.desk);
  studio.version = panels.version;
  document.body.dataset.version = String(Math.max(version, panels.version));
}

let failedConnections = 0;
function follow() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/live?token=${encodeURIComponent(token)}`);
  socket.onopen = () => {
    failedConnections = 0;
    $("connection").textContent = "live";
    $("connection").className = "on";
  };
  socket.onmessage = (message) => {
    const { version } = JSON.parse(message.data);
    if (version !== studio.version) refresh(version);
  };
  socket.onclose = () => {
    failedConnections += 1;
    // A studio started again has a new token: this page's will not do.
    $("connection").textContent =
      failedConnections > 3 ? "disconnected: if the studio was restarted, open the URL it printed" : "disconnected: retrying…";
    $("connection").className = "off";
    setTimeout(follow, 1000);
  };
}

loadTemplates();
refresh(0);
follow();
