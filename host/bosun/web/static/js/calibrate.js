// The calibration wizard: tare, a known weight on each zone, each piece weighed, stored.
"use strict";

(function () {
  const root = document.getElementById("wizard");
  const tableId = root.dataset.table;
  const key = root.dataset.key;
  const virtual = root.dataset.virtual === "yes";
  const zoneWord = root.dataset.zoneWord || "zone"; // a harbour's zones are its docks
  const esc = Bosun.esc;
  const el = (id) => document.getElementById(id);
  const base = "/api/tables/" + encodeURIComponent(tableId) + "/calibration";
  const url = (path) => Bosun.withKey(base + path, key);
  let state = null;

  async function post(path, body) {
    try {
      show(await Bosun.api(url(path), { json: body || {} }));
    } catch (err) {
      message({ level: "error", text: err.message });
    }
  }

  function message(m) {
    const box = el("wizard-message");
    if (!m) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    box.className = "alert " + (m.level === "error" ? "error" : m.level === "ok" ? "ok" : "info");
    box.textContent = m.text;
  }

  function reading(zone) {
    const w = state && state.ship.weights;
    if (!w) return null;
    if (zone === "mat") return w.table_g;
    const list = w.zones_g || [];
    return list[parseInt(zone, 10) - 1];
  }
  const fmt = (g) => (g === null || g === undefined ? "—" : g.toFixed(1));

  function hands(zone) {
    if (!virtual || !state.hands) return "";
    const holding = state.hands[zone];
    if (holding) return '<button class="button small secondary" type="button" data-hand="take" data-zone="' + zone + '">Take off ' + esc(holding) + ' <span class="hand-tag">hand</span></button>';
    return '<button class="button small secondary" type="button" data-hand="weight" data-zone="' + zone + '">Put the weight on <span class="hand-tag">hand</span></button>';
  }

  // crosstalk: the share of the weight other zones felt (the ship takes it in)
  function sharesText(shares) {
    const felt = Object.entries(shares || {}).map(([zone, share]) => zoneWord + " " + esc(zone) + " " + Math.round(share * 100) + " %");
    return felt.length ? ' · <span class="muted">also felt on ' + felt.join(", ") + "</span>" : "";
  }

  function zonesRows() {
    return state.zones_to_calibrate.map((zone) => {
      const done = state.zones[zone];
      const name = zone === "mat" ? "table mat" : zoneWord + " " + zone;
      return '<tr data-zone="' + zone + '"><td>' + name + '</td><td class="num reading" data-reading="' + zone + '"></td><td class="row">' + hands(zone) +
        ' <button class="button small" type="button" data-calibrate="' + zone + '">Calibrate</button></td><td class="result">' +
        (done ? '<span class="pill ok">done</span> ' + done.grams + " g · " + (done.counts_per_g ? done.counts_per_g.toFixed(1) + " counts/g" : "") + sharesText(done.shares) : "") + "</td></tr>";
    }).join("");
  }

  // what the virtual hand holds on the zone pieces are weighed on, and whether it is `item`
  function heldOnScale() {
    return (virtual && state.hands && state.hands[el("weigh-zone").value]) || null;
  }
  const isHeld = (holding, item) => !!holding && (holding === item || holding.endsWith(" " + item));

  // Something else (the known weight of step 2) on the zone: one button takes it off, once.
  function itemsHandHtml() {
    const holding = heldOnScale();
    if (!holding || state.items_to_weigh.some((item) => isHeld(holding, item))) return "";
    const zone = el("weigh-zone").value;
    return '<p class="muted">' + zoneWord + " " + esc(zone) + " still holds the " + esc(holding) + ": take it off first.</p>" +
      '<button class="button small secondary" type="button" data-hand="take" data-zone="' + esc(zone) + '">Take off the ' + esc(holding) + ' <span class="hand-tag">hand</span></button>';
  }

  function itemsRows() {
    const zone = el("weigh-zone").value;
    const holding = heldOnScale();
    return state.items_to_weigh.map((item) => {
      const weighed = state.items[item];
      let hand = "";
      if (isHeld(holding, item)) {
        hand = '<button class="button small secondary" type="button" data-hand="take" data-zone="' + zone + '">Take it off <span class="hand-tag">hand</span></button>';
      } else if (virtual && !holding) {
        hand = '<button class="button small secondary" type="button" data-hand="piece" data-item="' + item + '" data-zone="' + zone + '">Put a ' + item + ' on <span class="hand-tag">hand</span></button>';
      }
      return '<tr data-item="' + item + '"><td>' + Bosun.itemIcon(item, 22) + " " + item + '</td><td class="row">' + hand +
        ' <button class="button small" type="button" data-weigh="' + item + '">Weigh</button></td><td class="num weighed">' +
        (weighed !== undefined ? weighed.toFixed(2) + " g" : "") + '</td><td class="num muted">' + (state.table_items[item] ? state.table_items[item].toFixed(2) + " g" : "") + "</td></tr>";
    }).join("");
  }

  function readingsHtml() {
    const cells = [];
    for (const z of state.zones_to_calibrate.filter((z) => z !== "mat")) {
      cells.push('<div class="reading-cell"><span class="muted">' + zoneWord + " " + z + "</span><strong>" + fmt(reading(z)) + "</strong></div>");
    }
    if (state.has_mat) cells.push('<div class="reading-cell"><span class="muted">mat</span><strong>' + fmt(reading("mat")) + "</strong></div>");
    return cells.join("");
  }

  function show(s) {
    state = s;
    window.bosunWizard = s;
    el("step-start").hidden = s.active;
    el("steps").hidden = !s.active;
    root.dataset.pending = s.pending ? "yes" : "no";
    root.dataset.answers = String(s.answers);
    root.dataset.active = s.active ? "yes" : "no";
    message(s.message);
    if (!s.ship.online) message({ level: "error", text: "The ship is offline: it cannot measure." });
    Bosun.render(el("readings"), readingsHtml());
    el("tare-state").innerHTML = s.tared ? '<span class="pill ok">tared at ' + esc(Bosun.clock(s.tared.at_ms)) + "</span>" : "";
    Bosun.render(el("zones-table").querySelector("tbody"), zonesRows());
    for (const cell of root.querySelectorAll("[data-reading]")) cell.textContent = fmt(reading(cell.dataset.reading)) + " g";
    Bosun.render(el("items-table").querySelector("tbody"), itemsRows());
    Bosun.render(el("items-hand"), itemsHandHtml());
    for (const b of root.querySelectorAll("#steps button:not([data-hand])")) b.disabled = !!s.pending;
    const saved = el("saved");
    if (s.saved && !s.active) {
      saved.hidden = false;
      saved.innerHTML = "<h2>Stored</h2><p>" + esc(s.saved.problem || "Item weights stored in " + s.saved.where + ".") + '</p><table class="data compact"><tbody>' +
        Object.keys(s.saved.items).map((i) => "<tr><td>" + Bosun.itemIcon(i, 20) + " " + esc(i) + '</td><td class="num">' + s.saved.items[i].toFixed(2) + " g</td></tr>").join("") + "</tbody></table>";
    }
  }

  root.addEventListener("click", (event) => {
    const b = event.target.closest("button");
    if (!b || b.disabled) return;
    const d = b.dataset;
    if (b.id === "start") post("/start");
    else if (b.id === "tare") post("/tare");
    else if (b.id === "finish") post("/finish", { save: true, new_game: el("new-game-after").checked });
    else if (b.id === "cancel") post("/cancel");
    else if (d.calibrate) {
      const grams = parseFloat(el("known-g").value);
      post("/zone", { zone: d.calibrate === "mat" ? "mat" : parseInt(d.calibrate, 10), grams: grams });
    } else if (d.weigh) post("/item", { item: d.weigh, zone: parseInt(el("weigh-zone").value, 10) });
    else if (d.hand === "clear") post("/hands", { do: "clear" });
    else if (d.hand === "weight") post("/hands", { do: "weight", zone: d.zone === "mat" ? "mat" : parseInt(d.zone, 10), grams: parseFloat(el("known-g").value) });
    else if (d.hand === "piece") post("/hands", { do: "piece", item: d.item, zone: parseInt(d.zone, 10) });
    else if (d.hand === "take") post("/hands", { do: "take", zone: d.zone === "mat" ? "mat" : parseInt(d.zone, 10) });
  });
  el("weigh-zone").addEventListener("change", () => {
    if (!state) return;
    Bosun.render(el("items-table").querySelector("tbody"), itemsRows());
    Bosun.render(el("items-hand"), itemsHandHtml());
  });

  Bosun.live(url("/stream"), { snapshot: show, state: () => {} });
})();
