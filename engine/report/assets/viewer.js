// The step viewer: picks an episode from the table (or `#episode=N&step=M` in the address),
// shows each step's frame with the action drawn over it, and moves with the buttons, the
// slider and the arrow keys.
"use strict";
(function () {
  const run = JSON.parse(document.getElementById("run-data").textContent);
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const viewer = $("viewer");
  const state = { episode: -1, step: 0 };

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A label in a box, in device pixels, kept on screen.
  function label(layer, w, h, x, y, text) {
    const size = Math.round(w / 24);
    const width = Math.min(w - 8, size * 0.62 * text.length + size);
    const left = Math.max(4, Math.min(w - width - 4, x - width / 2));
    const top = Math.max(4, Math.min(h - size * 1.8 - 4, y));
    layer.appendChild(svg("rect", { x: left, y: top, width: width, height: size * 1.8, rx: size * 0.4, fill: "rgba(20,20,28,0.82)" }));
    layer.appendChild(svg("text", { x: left + size / 2, y: top + size * 1.25, fill: "#fff", "font-size": size, "font-family": "sans-serif" }, text));
  }

  function arrow(layer, w, x1, y1, x2, y2, color) {
    const stroke = Math.max(4, w / 120);
    layer.appendChild(svg("line", { x1: x1, y1: y1, x2: x2, y2: y2, stroke: color, "stroke-width": stroke, "stroke-linecap": "round" }));
    const angle = Math.atan2(y2 - y1, x2 - x1), head = stroke * 5;
    const points = [0.45, -0.45].map((d) => [x2 - head * Math.cos(angle + d), y2 - head * Math.sin(angle + d)]);
    layer.appendChild(svg("polygon", { points: [[x2, y2], ...points].map((p) => p.join(",")).join(" "), fill: color }));
  }

  function ring(layer, w, x, y, radius, color) {
    layer.appendChild(svg("circle", { cx: x, cy: y, r: radius, fill: "none", stroke: color, "stroke-width": Math.max(4, w / 120) }));
    layer.appendChild(svg("circle", { cx: x, cy: y, r: radius / 5, fill: color }));
  }

  // Draws the action over the frame, in the device's pixel space (the overlay's viewBox).
  function drawAction(layer, action, w, h) {
    const color = "#ff3b30", r = w / 18;
    switch (action.type) {
      case "tap": ring(layer, w, action.x, action.y, r, color); break;
      case "double_tap": ring(layer, w, action.x, action.y, r, color); ring(layer, w, action.x, action.y, r * 1.5, color); break;
      case "long_press":
        ring(layer, w, action.x, action.y, r, color);
        label(layer, w, h, action.x, action.y + r * 1.3, "long press " + action.ms + " ms");
        break;
      case "swipe": case "drag": arrow(layer, w, action.x1, action.y1, action.x2, action.y2, color); break;
      case "type_text": label(layer, w, h, w / 2, h * 0.45, (action.clear ? "replace with: " : "type: ") + JSON.stringify(action.text)); break;
      case "key": label(layer, w, h, w / 2, h * 0.9, "key: " + action.key); break;
      case "open_app": case "close_app": label(layer, w, h, w / 2, h * 0.45, action.type.replace("_", " ") + ": " + action.app); break;
      case "wait": label(layer, w, h, w / 2, h * 0.45, "wait " + action.ms + " ms"); break;
      case "answer": label(layer, w, h, w / 2, h * 0.45, "answer: " + JSON.stringify(action.text)); break;
      case "finish": label(layer, w, h, w / 2, h * 0.45, "finish: " + action.status); break;
      default: label(layer, w, h, w / 2, h * 0.45, JSON.stringify(action));
    }
  }

  function describe(action) {
    const { type, ...rest } = action;
    const value = (v) => (typeof v === "number" ? String(Math.round(v * 10) / 10) : JSON.stringify(v));
    return type + " " + Object.entries(rest).map(([k, v]) => k + "=" + value(v)).join(" ");
  }

  function show(episode, step) {
    const ep = run.episodes[episode];
    if (!ep) return;
    const count = ep.frames.length;
    step = Math.max(0, Math.min(step, Math.max(0, count - 1)));
    state.episode = episode;
    state.step = step;
    viewer.hidden = false;
    document.querySelectorAll("tr.episode").forEach((row) => row.classList.toggle("current", Number(row.dataset.episode) === episode));
    $("v-title").textContent = ep.template + " · seed " + ep.seed + (ep.appearance ? " · " + ep.appearance : "");
    $("v-instruction").textContent = ep.instruction;
    const verdict = $("v-verdict");
    verdict.textContent = ep.success ? "passed in " + ep.steps + " steps" : "failed at step " + (ep.failure ? ep.failure.step : ep.steps);
    verdict.className = ep.success ? "verdict-passed" : "verdict-failed";
    $("v-failing").textContent = ep.failure ? ep.failure.reason : "none";
    const img = $("v-frame"), overlay = $("v-overlay"), empty = $("v-empty");
    overlay.replaceChildren();
    const frame = ep.frames[step];
    if (!frame) {
      img.hidden = true;
      empty.hidden = false;
      $("v-step").textContent = "no trajectory recorded";
      $("v-action").textContent = "";
      $("v-screen").textContent = "";
    } else {
      empty.hidden = true;
      img.hidden = frame.image === null;
      if (frame.image !== null) img.src = run.images[frame.image];
      const [w, h] = ep.device;
      overlay.setAttribute("viewBox", "0 0 " + w + " " + h);
      drawAction(overlay, frame.action, w, h);
      const failing = ep.failure && ep.failure.step === step + 1;
      const stepText = $("v-step");
      stepText.textContent = "step " + (step + 1) + " of " + count;
      stepText.className = failing ? "at-failure" : "";
      $("v-action").textContent = describe(frame.action) + (frame.ok ? "" : " (refused" + (frame.note ? ": " + frame.note : "") + ")");
      $("v-screen").textContent = frame.package + (frame.screen ? " / " + frame.screen : "");
    }
    const slider = $("v-slider");
    slider.max = String(Math.max(0, count - 1));
    slider.value = String(step);
    $("v-prev").disabled = step <= 0;
    $("v-next").disabled = step >= count - 1;
    const hash = "#episode=" + episode + "&step=" + step;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    if (!params.has("episode")) return false;
    show(Number(params.get("episode")) || 0, Number(params.get("step")) || 0);
    // A link to a step is a link to the viewer.
    viewer.scrollIntoView({ block: "start" });
    return true;
  }

  document.querySelectorAll("tr.episode").forEach((row) =>
    row.addEventListener("click", () => {
      show(Number(row.dataset.episode), 0);
      viewer.scrollIntoView({ block: "start" });
    }),
  );
  $("v-prev").addEventListener("click", () => show(state.episode, state.step - 1));
  $("v-next").addEventListener("click", () => show(state.episode, state.step + 1));
  $("v-slider").addEventListener("input", (e) => show(state.episode, Number(e.target.value)));
  document.addEventListener("keydown", (e) => {
    if (state.episode < 0 || e.target instanceof HTMLInputElement) return;
    if (e.key === "ArrowRight") show(state.episode, state.step + 1);
    if (e.key === "ArrowLeft") show(state.episode, state.step - 1);
  });
  window.addEventListener("hashchange", fromHash);
  if (!fromHash() && run.episodes.length > 0) {
    // Open on the first failure: that is what a reader comes for.
    const first = run.episodes.findIndex((ep) => !ep.success);
    show(first >= 0 ? first : 0, 0);
  }
})();
