// bosun pages: small shared helpers (no framework, nothing from the internet).
"use strict";

const Bosun = (window.Bosun = window.Bosun || {});
Bosun.boards = Bosun.boards || {};

Bosun.esc = function (value) {
  return String(value === null || value === undefined ? "" : value)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
};

// Replace an element's content only when it changed: buttons under a finger stay put.
Bosun.render = function (element, html) {
  if (!element) return false;
  if (element.__html === html) return false;
  element.__html = html;
  element.innerHTML = html;
  return true;
};

Bosun.api = async function (path, options) {
  const opts = Object.assign({ headers: {} }, options || {});
  if (opts.json !== undefined) {
    opts.method = opts.method || "POST";
    opts.body = JSON.stringify(opts.json);
    opts.headers["content-type"] = "application/json";
    delete opts.json;
  }
  let response;
  try {
    response = await fetch(path, opts);
  } catch (err) {
    throw new Error("the service cannot be reached: is bosun still running?");
  }
  let body = null;
  try {
    body = await response.json();
  } catch (err) {
    body = null;
  }
  if (!response.ok) {
    const error = new Error((body && body.error) || "request failed (" + response.status + ")");
    error.status = response.status;
    throw error;
  }
  return body;
};

Bosun.withKey = function (path, key) {
  if (!key) return path;
  return path + (path.indexOf("?") >= 0 ? "&" : "?") + "key=" + encodeURIComponent(key);
};

// A live stream of snapshots (server-sent events) that reconnects by itself.
// handlers: snapshot(data), state("live" | "reconnecting" | "connecting"), ended(data)
Bosun.live = function (url, handlers) {
  let source = null;
  let closed = false;
  let retryMs = 500;
  const setState = (s) => handlers.state && handlers.state(s);
  function open() {
    if (closed) return;
    setState("connecting");
    source = new EventSource(url);
    source.addEventListener("open", () => {
      retryMs = 500;
      setState("live");
    });
    source.addEventListener("snapshot", (event) => {
      Bosun.lastSnapshotAt = Date.now();
      handlers.snapshot(JSON.parse(event.data), Date.now());
    });
    source.addEventListener("ended", (event) => {
      closed = true;
      source.close();
      if (handlers.ended) handlers.ended(JSON.parse(event.data));
    });
    source.addEventListener("error", () => {
      source.close();
      if (closed) return;
      setState("reconnecting");
      const wait = retryMs;
      retryMs = Math.min(retryMs * 2, 3000);
      setTimeout(async () => {
        if (handlers.check) {
          const goOn = await handlers.check();
          if (!goOn) return;
        }
        open();
      }, wait);
    });
  }
  open();
  return {
    close() {
      closed = true;
      if (source) source.close();
    },
  };
};

Bosun.linkState = function (element, state) {
  if (!element) return;
  element.dataset.state = state;
  element.textContent = { live: "live", connecting: "connecting …", reconnecting: "reconnecting …", ended: "ended" }[state] || state;
};

Bosun.clock = function (ms) {
  if (!ms) return "";
  const d = new Date(ms);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
};

Bosun.dateTime = function (ms) {
  if (!ms) return "";
  const d = new Date(ms);
  return d.toLocaleDateString([], { day: "numeric", month: "short" }) + " " + d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
};

Bosun.duration = function (ms) {
  if (ms === null || ms === undefined) return "";
  const s = Math.round(ms / 1000);
  if (s < 60) return s + " s";
  const m = Math.floor(s / 60);
  if (m < 60) return m + " min " + String(s % 60).padStart(2, "0") + " s";
  return Math.floor(m / 60) + " h " + String(m % 60).padStart(2, "0") + " min";
};

Bosun.itemIcon = function (item, size) {
  const px = size || 18;
  return '<svg class="item-icon" width="' + px + '" height="' + px + '" viewBox="0 0 20 20" role="img" aria-label="' +
    Bosun.esc(item) + '"><title>' + Bosun.esc(item) + '</title><use href="#i-' + Bosun.esc(item) + '"/></svg>';
};

Bosun.ITEMS = ["boat", "barrel", "bottle", "crate", "chest", "plank", "sailor", "rat"];

Bosun.feedHtml = function (feed, limit) {
  const lines = (feed || []).filter((f) => f.level !== "debug").slice(-(limit || 12)).reverse();
  if (!lines.length) return '<li class="muted">nothing yet</li>';
  return lines
    .map(
      (f) =>
        '<li class="feed-' + Bosun.esc(f.level || "info") + '"><time>' + Bosun.clock(f.at_ms) + "</time> " +
        Bosun.esc(f.text) + (f.rule ? ' <span class="rule">' + Bosun.esc(f.rule) + "</span>" : "") + "</li>"
    )
    .join("");
};

// The alerts nobody may miss: ship offline, sensor faults, flagged decisions, calibration.
Bosun.alertsHtml = function (snapshot, options) {
  const out = [];
  const ship = snapshot.ship || {};
  const referee = snapshot.referee || {};
  if (!ship.online) {
    out.push('<div class="alert error big" data-alert="offline"><strong>Ship offline</strong> — the table is paused until the ship is back. Check its power and WiFi.</div>');
  }
  if (snapshot.calibrating) {
    out.push('<div class="alert info big" data-alert="calibrating"><strong>Calibrating</strong> — the referee ignores the ship until the wizard is finished.</div>');
  }
  const problems = (ship.status && ship.status.problems) || [];
  const faults = (ship.weights && ship.weights.faults) || [];
  if (problems.length || faults.length) {
    const zones = faults.length ? " Faulted: " + faults.map((z) => (z === "mat" || z === 11 ? "mat" : "zone " + z)).join(", ") + "." : "";
    out.push('<div class="alert error big" data-alert="fault"><strong>Sensor fault</strong> — ' + Bosun.esc(problems.join("; ")) + Bosun.esc(zones) + "</div>");
  }
  const recentErrors = (snapshot.feed || []).filter((f) => f.level === "error" && f.text.indexOf("sensor fault") === 0 && snapshot.now_ms - f.at_ms < 60000);
  if (recentErrors.length && !faults.length && !problems.length) {
    out.push('<div class="alert error" data-alert="fault-event"><strong>Sensor fault</strong> — ' + Bosun.esc(recentErrors[recentErrors.length - 1].text) + "</div>");
  }
  if (referee.fall_in_progress) {
    out.push('<div class="alert warn flash" data-alert="falling"><strong>Cargo is falling</strong> — the referee is watching where it lands.</div>');
  }
  for (const flag of referee.flags || []) {
    let buttons = "";
    if (options && options.answer) {
      buttons = '<div class="flag-options">' + flag.options
        .map((o) => '<button class="button ' + (o === "confirm" || o === "count" ? "" : "secondary") + '" type="button" data-flag="' + Bosun.esc(flag.id) + '" data-option="' + Bosun.esc(o) + '">' + Bosun.esc(Bosun.optionLabel(o)) + "</button>")
        .join("") + "</div>";
    } else {
      buttons = '<div class="muted">Answer on any player\'s page.</div>';
    }
    out.push('<div class="alert flag big" data-alert="flag" data-flag-id="' + Bosun.esc(flag.id) + '"><strong>Check this</strong> — ' + Bosun.esc(flag.text) + buttons + "</div>");
  }
  return out.join("");
};

Bosun.optionLabel = function (option) {
  return { confirm: "Yes, that's right", count: "Count it", removed: "It was taken off", acknowledge: "OK", correct: "Correct it piece by piece" }[option] || "It was a " + option;
};

// Countdown of the settle window (RR14): the snapshot's deadline, counted down locally.
Bosun.countdown = function (element, scale) {
  let anchor = null;
  function tick() {
    if (!anchor) return;
    const left = anchor.leftMs - (performance.now() - anchor.at) * scale;
    const seconds = Math.max(0, left / 1000);
    element.textContent = seconds.toFixed(1) + " s";
    element.style.setProperty("--left", String(Math.max(0, Math.min(1, left / anchor.totalMs))));
  }
  setInterval(tick, 100);
  return {
    set(snapshot) {
      const referee = snapshot.referee || {};
      if (referee.settle_deadline_ms && snapshot.now_ms) {
        const totalMs = Math.max(1, (referee.settle_s || 3) * 1000);
        anchor = { leftMs: referee.settle_deadline_ms - snapshot.now_ms, at: performance.now(), totalMs };
        element.hidden = false;
        tick();
      } else {
        anchor = null;
        element.hidden = true;
      }
    },
  };
};
