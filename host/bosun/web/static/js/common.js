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
  Bosun.readableColours(element);
  return true;
};

// -- player colours as text: a variant that reads at 4.5:1 on the panels (WCAG AA) -------

// a shade lighter than the lightest panel (--panel-2), as a player's highlighted row is
const PANEL_LUMINANCE = luminance([0x24, 0x46, 0x5e]);
const readableCache = {};

function luminance(rgb) {
  const channel = (c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(rgb[0]) + 0.7152 * channel(rgb[1]) + 0.0722 * channel(rgb[2]);
}

function parseHex(colour) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(colour).trim());
  if (!m) return null;
  const hex = m[1].length === 3 ? m[1].replace(/./g, "$&$&") : m[1];
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

// The colour itself when it reads well enough on the panels, else it mixed with white until
// it does (a red seat's name stays red, only lighter).
Bosun.readableColour = function (colour) {
  if (colour in readableCache) return readableCache[colour];
  const rgb = parseHex(colour);
  let out = colour;
  if (rgb) {
    for (let white = 0; white <= 1; white += 0.05) {
      const mixed = rgb.map((c) => Math.round(c + (255 - c) * white));
      if ((luminance(mixed) + 0.05) / (PANEL_LUMINANCE + 0.05) >= 4.6) {
        out = "#" + mixed.map((c) => c.toString(16).padStart(2, "0")).join("");
        break;
      }
    }
  }
  readableCache[colour] = out;
  return out;
};

// Every element under `root` painted with a player colour (`--c`, `--me`) gets its readable
// text variant (`--ct`, `--me-text`): the stylesheet writes text in those.
Bosun.readableColours = function (root) {
  const scope = root || document;
  const marked = scope.querySelectorAll ? scope.querySelectorAll('[style*="--c:"], [style*="--me:"]') : [];
  const all = root && root.matches && root.matches('[style*="--c:"], [style*="--me:"]') ? [root, ...marked] : marked;
  for (const node of all) {
    for (const [name, text] of [["--c", "--ct"], ["--me", "--me-text"]]) {
      const value = node.style.getPropertyValue(name).trim();
      if (value) node.style.setProperty(text, Bosun.readableColour(value));
    }
  }
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
    Bosun.reach(false);
    throw new Error("the service cannot be reached: is bosun still running?");
  }
  Bosun.reach(true);
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

// -- a cluster's referees (bosun run --cluster) --------------------------------------------
// Each referee serves the tables it holds. A page whose table moved (its referee gave it up,
// or died) finds where it went at /api/cluster, of its referee or of any other it knew, and
// goes there with the same path: a seat link's token is in the path, so the seat goes along.
Bosun.cluster = null; // the last /api/cluster answer; stays null outside a cluster
Bosun.tableId = null; // the table this page shows (from its snapshots)

Bosun.clusterMap = async function (origin) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 2000);
  try {
    const response = await fetch(origin + "/api/cluster", { signal: controller.signal, cache: "no-store" });
    return response.ok ? await response.json() : null;
  } catch (err) {
    return null; // that referee is away (or this is no cluster)
  } finally {
    clearTimeout(timer);
  }
};

// "here": reconnect here (or this is no cluster); "moved": the page is going to the
// table's referee; "unknown": no referee answered or none holds the table yet: wait, ask again.
Bosun.followTable = async function () {
  if (!Bosun.cluster || !Bosun.tableId) return "here";
  const others = Bosun.cluster.referees.filter((url) => url !== location.origin);
  for (const origin of [location.origin].concat(others)) {
    const map = await Bosun.clusterMap(origin);
    if (!map) continue;
    Bosun.cluster = map;
    const holder = map.tables[Bosun.tableId];
    if (!holder) return "unknown";
    if (holder === location.origin) return "here";
    location.replace(holder + location.pathname + location.search + location.hash);
    return "moved";
  }
  return "unknown";
};

// A live stream of snapshots (server-sent events) that reconnects by itself.
// handlers: snapshot(data), state("live" | "reconnecting" | "connecting"), ended(data)
Bosun.live = function (url, handlers) {
  let source = null;
  let closed = false;
  let retryMs = 500;
  Bosun.streams = (Bosun.streams || 0) + 1; // the service is watched: no heartbeat needed
  const setState = (s) => {
    if (s === "live") Bosun.reach(true);
    else if (s === "reconnecting") Bosun.reach(false);
    if (handlers.state) handlers.state(s);
  };
  function open() {
    if (closed) return;
    setState("connecting");
    source = new EventSource(url);
    source.addEventListener("open", () => {
      retryMs = 500;
      setState("live");
      if (!Bosun.cluster) Bosun.clusterMap(location.origin).then((map) => (Bosun.cluster = Bosun.cluster || map));
    });
    let last = null; // the stream's snapshot as it stands: a patch says what changed in it
    function arrived(snapshot, patched) {
      const at = Date.now();
      Bosun.lastSnapshotAt = at;
      last = snapshot;
      if (snapshot.table && snapshot.table.id) Bosun.tableId = snapshot.table.id;
      handlers.snapshot(snapshot, at);
      // for whoever listens (the browser tests time the table view with it); kept nowhere
      window.dispatchEvent(new CustomEvent("bosun:snapshot", { detail: { snapshot: snapshot, at: at, patched: patched } }));
    }
    source.addEventListener("snapshot", (event) => arrived(JSON.parse(event.data), false));
    source.addEventListener("patch", (event) => {
      if (!last) return; // cannot happen: a stream starts whole
      arrived(Bosun.applyPatch(last, JSON.parse(event.data)), true);
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
      reconnect();
    });
  }
  function reconnect() {
    const wait = retryMs;
    retryMs = Math.min(retryMs * 2, 3000);
    setTimeout(async () => {
      if (closed) return;
      const where = await Bosun.followTable();
      if (where === "moved") return;
      if (where === "unknown") return reconnect();
      if (handlers.check) {
        const goOn = await handlers.check();
        if (!goOn) return;
      }
      open();
    }, wait);
  }
  open();
  return {
    close() {
      closed = true;
      if (source) source.close();
    },
  };
};

// A JSON Patch (RFC 6902: add, remove, replace; what web/patches.py makes) applied to a
// copy of `doc`: the handlers may keep the snapshot they were given.
Bosun.applyPatch = function (doc, ops) {
  doc = structuredClone(doc);
  for (const op of ops) {
    const parts = op.path.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (!parts.length) {
      doc = op.value;
      continue;
    }
    let parent = doc;
    for (const part of parts.slice(0, -1)) parent = Array.isArray(parent) ? parent[parseInt(part, 10)] : parent[part];
    const name = parts[parts.length - 1];
    if (Array.isArray(parent)) {
      if (op.op === "add") parent.splice(name === "-" ? parent.length : parseInt(name, 10), 0, op.value);
      else if (op.op === "remove") parent.splice(parseInt(name, 10), 1);
      else parent[parseInt(name, 10)] = op.value;
    } else if (op.op === "remove") delete parent[name];
    else parent[name] = op.value;
  }
  return doc;
};

// -- honest when away: a banner on every page, the page's buttons off until it is back ---

Bosun.reachable = true;
let awayWatch = null;

function disableForAway(scope) {
  for (const control of scope.querySelectorAll("main button, main input, main select, main textarea")) {
    // this phone's own settings and the rules' texts need no service
    if (control.disabled || control.closest("[data-local]") || control.matches(".rule")) continue;
    control.disabled = true;
    control.dataset.away = "off";
  }
}

Bosun.reach = function (ok) {
  if (ok === Bosun.reachable) return;
  Bosun.reachable = ok;
  const banner = document.getElementById("away");
  if (banner) banner.hidden = ok;
  document.body.classList.toggle("away", !ok);
  if (!ok) {
    disableForAway(document);
    // a part of the page drawn again meanwhile gets its buttons off too
    awayWatch = new MutationObserver(() => disableForAway(document));
    awayWatch.observe(document.querySelector("main") || document.body, { childList: true, subtree: true });
  } else {
    if (awayWatch) awayWatch.disconnect();
    awayWatch = null;
    for (const control of document.querySelectorAll('[data-away="off"]')) {
      control.disabled = false;
      delete control.dataset.away;
    }
  }
};

// Pages without a live stream ask whether the service is there every few seconds.
setInterval(() => {
  if (!Bosun.streams && document.visibilityState === "visible") Bosun.api("/api/health").catch(() => {});
}, 4000);

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

Bosun.plural = function (n, word, many) {
  return n + " " + (n === 1 ? word : many || word + "s");
};

// The referee's lines in players' words: pieces, not grams (the operator sees the grams).
// Every rewrite applies in turn; a line none matches is shown as the referee wrote it.
const PLAIN_WORDS = [
  [/ \([0-9.]+ g\)/g, ""], // "ann loaded a chest (9.2 g)": the piece says it
  [/^[0-9.]+ g leaving the ship/, "cargo is slipping off the ship …"],
  [/^[0-9.]+ g fell off the ship/, "cargo fell off the ship"],
  [/^[0-9.]+ g moved from/, "cargo slid from"],
  [/^[0-9.]+ g taken off by hand/, "a piece was taken off by hand"],
  [/^(dock \d+) changed by [-+0-9.]+ g, not a whole number of barrels.*$/, "$1: the scale does not read a whole number of barrels"],
];
Bosun.plainWords = function (text) {
  return PLAIN_WORDS.reduce((line, [pattern, words]) => line.replace(pattern, words), text);
};

// options.grams: the operator's view, the referee's lines as they are
Bosun.feedHtml = function (feed, limit, options) {
  const grams = options && options.grams;
  const lines = (feed || []).filter((f) => f.level !== "debug").slice(-(limit || 12)).reverse();
  if (!lines.length) return '<li class="muted">nothing yet</li>';
  return lines
    .map(
      (f) =>
        '<li class="feed-' + Bosun.esc(f.level || "info") + '"><time>' + Bosun.clock(f.at_ms) + "</time> " +
        Bosun.ruleChips(Bosun.esc(grams ? f.text : Bosun.plainWords(f.text))) + (f.rule ? " " + Bosun.ruleChip(f.rule) : "") + "</li>"
    )
    .join("");
};

// -- rule chips: tap one to read its rule (the texts are in rules.js) --------------------

Bosun.ruleChip = function (rule) {
  const text = (Bosun.RULES || {})[rule];
  if (!text) return '<span class="rule">' + Bosun.esc(rule) + "</span>";
  return '<button type="button" class="rule" data-rule="' + Bosun.esc(rule) + '" aria-haspopup="dialog" aria-label="rule ' +
    Bosun.esc(rule) + ': what it says">' + Bosun.esc(rule) + "</button>";
};

// "(RR5)" in a sentence becomes its chip
Bosun.ruleChips = function (html) {
  return html.replace(/\b((?:RR|MB)\d+[a-c]?)\b/g, (m, rule) => ((Bosun.RULES || {})[rule] ? Bosun.ruleChip(rule) : m));
};

document.addEventListener("click", (event) => {
  const chip = event.target.closest("button.rule[data-rule]");
  if (!chip) return;
  const help = document.getElementById("rule-help");
  if (!help) return;
  document.getElementById("rule-help-id").textContent = chip.dataset.rule;
  document.getElementById("rule-help-text").textContent = Bosun.RULES[chip.dataset.rule];
  if (help.showPopover) {
    if (help.matches(":popover-open")) help.hidePopover();
    help.showPopover();
  } else {
    help.hidden = false;
  }
  help.querySelector("button").focus();
});

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
    out.push('<div class="alert flag big" data-alert="flag" data-flag-id="' + Bosun.esc(flag.id) + '"><strong>Check this</strong> — ' + Bosun.ruleChips(Bosun.esc(flag.text)) + buttons + "</div>");
  }
  return out.join("");
};

Bosun.optionLabel = function (option) {
  return { confirm: "Yes, that's right", count: "Count it", removed: "It was taken off", acknowledge: "OK", correct: "Correct it piece by piece", "nothing fell": "Nothing fell" }[option] || "It was a " + option;
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

// The table's clock between snapshots (ms), for the waiting times and the decision timer.
// People's seconds: a demo's faster clock is divided back by `scale`.
Bosun.tableClock = function (scale) {
  let anchor = null;
  return {
    set(snapshot) {
      if (snapshot.now_ms) anchor = { nowMs: snapshot.now_ms, at: performance.now() };
    },
    now() {
      return anchor ? anchor.nowMs + (performance.now() - anchor.at) * scale : 0;
    },
    seconds(fromMs, toMs) {
      return Math.max(0, (toMs - fromMs) / 1000 / scale);
    },
  };
};

Bosun.span = function (seconds) {
  seconds = Math.floor(seconds);
  if (seconds < 60) return seconds + " s";
  return Math.floor(seconds / 60) + " min " + String(seconds % 60).padStart(2, "0") + " s";
};

// the colours the page came with (a seat's own colour on its header and page)
Bosun.readableColours(document.body);
