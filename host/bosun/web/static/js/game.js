// One game: its turns round by round, and plots of the zone weights around every fall and
// placement (what the sensors saw, for disputes).
"use strict";

(function () {
  const root = document.getElementById("game");
  const gameId = root.dataset.gameId;
  const esc = Bosun.esc;
  const el = (id) => document.getElementById(id);
  const ZONE_COLOURS = ["#e63946", "#f4a261", "#e9c46a", "#2a9d8f", "#8ecae6", "#219ebc", "#b5179e", "#7bd389", "#ff8fab", "#c0c0c0"];
  const MAT_COLOUR = "#ffffff";

  function cardsLine(round) {
    return (round.cards || [])
      .map((c) => '<span class="card-line" data-player="' + esc(c.player) + '">' + esc(c.player) + " " +
        (c.hidden ? '<span class="card-chip hidden-card" title="face down: not revealed yet, or an earlier round (RR7)">?</span>' : '<span class="card-chip">' + esc(c.value) + "</span>") + "</span>")
      .join("");
  }

  function turnHtml(t) {
    const loads = t.loads.map((l) => '<span class="load">' + Bosun.itemIcon(l.item, 18) + esc(l.item) + "</span>").join("");
    const falls = t.falls.map((f) => {
      const parts = [];
      if (f.fallen.length) parts.push(esc(f.fallen.join(", ")) + " fell");
      if (f.caught.length) parts.push(esc(f.caught.join(", ")) + " caught");
      const zones = Object.keys(f.zones).map((z) => "zone " + z).join(", ");
      const late = f.late ? ' <span class="tag" title="after the turn (RR14)">late</span>' : "";
      return '<span class="fall-line">' + parts.join("; ") + (zones ? " (from " + esc(zones) + ")" : "") + late + "</span>";
    }).join("");
    return '<li class="turn-item" data-player="' + esc(t.player) + '"><div class="turn-head"><strong>' + esc(t.player) + "</strong>" +
      (t.card ? ' <span class="card-chip">' + esc(t.card) + "</span>" : "") +
      (t.zone !== null ? " → zone " + esc(t.zone) : ' <span class="muted" title="the zone is the card: face down (RR7)">→ zone ?</span>') +
      (t.announced === 2 ? ' <span class="tag">two pieces</span>' : "") +
      '<span class="muted right">' + esc(Bosun.clock(t.start_ms)) + (t.length_ms !== null ? " · " + esc(Bosun.duration(t.length_ms)) : " · now") + "</span></div>" +
      '<div class="turn-body">' + (loads || '<span class="muted">nothing loaded</span>') + falls + "</div></li>";
  }

  function timelineHtml(data) {
    // rounds count on through the 2-player second pass (11-20): the number alone is a key
    const byRound = {};
    const group = (n) => (byRound[n] = byRound[n] || { round: { round: n }, turns: [] });
    for (const r of data.rounds) group(r.round).round = r;
    for (const t of data.turns) group(t.round).turns.push(t);
    const rounds = Object.keys(byRound).map(Number).sort((a, b) => a - b);
    const events = data.events.slice().sort((a, b) => a.at_ms - b.at_ms);
    if (!rounds.length) return '<p class="muted">No turns yet.</p>';
    return rounds.map((k) => {
      const block = byRound[k];
      const first = block.turns.length ? block.turns[0].start_ms : null;
      const last = block.turns.length ? block.turns[block.turns.length - 1].end_ms || Infinity : null;
      const inside = first === null ? [] : events.filter((e) => e.at_ms >= first - 1 && e.at_ms <= last);
      return '<section class="round-block" data-round="' + block.round.round + '"><h3>Round ' + esc(block.round.round) +
        (block.round.cycle === 2 ? " (second pass)" : "") + '<span class="cards-line">' + cardsLine(block.round) + "</span></h3>" +
        '<ol class="turns">' + block.turns.map(turnHtml).join("") + "</ol>" +
        (inside.length ? '<ul class="notes">' + inside.map((e) => '<li class="note-' + esc(e.kind) + '"><time>' + esc(Bosun.clock(e.at_ms)) + "</time> " + esc(e.text) + "</li>").join("") + "</ul>" : "") +
        "</section>";
    }).join("");
  }

  function momentsHtml(moments) {
    if (!moments.length) return '<p class="muted">No recorded placements or falls with sensor data.</p>';
    return moments.slice().reverse().map((m) =>
      '<details class="moment ' + esc(m.kind) + '" data-moment="' + m.id + '"' + (m.kind === "fall" ? " open" : "") + ">" +
      "<summary><span class=\"tag " + esc(m.kind) + '">' + esc(m.kind === "fall" ? "fall" : "load") + "</span> " + esc(m.text) +
      ' <span class="muted">round ' + esc(m.round) + " · " + esc(Bosun.clock(m.at_ms)) + "</span></summary>" +
      '<div class="plot" id="plot-' + m.id + '"><p class="muted">loading the trace …</p></div></details>').join("");
  }

  async function plot(moment) {
    const box = el("plot-" + moment.id);
    if (!box || box.dataset.done) return;
    box.dataset.done = "yes";
    let trace;
    try {
      const q = "?boot=" + encodeURIComponent(moment.boot) + "&from_t_ms=" + moment.from_t_ms + "&to_t_ms=" + moment.to_t_ms;
      trace = await Bosun.api("/api/games/" + encodeURIComponent(gameId) + "/trace" + q);
    } catch (err) {
      box.innerHTML = '<p class="muted">' + esc(err.message) + "</p>";
      return;
    }
    const cols = trace.columns;
    if (!cols.t_ms.length) {
      box.innerHTML = '<p class="muted">No raw samples were stored for this moment (the ship sends them only while tracing).</p>';
      return;
    }
    const x = cols.t_ms.map((t) => (t - moment.t_ms) / 1000);
    const series = [{ label: "s" }];
    const data = [x];
    for (let z = 1; z <= 10; z++) {
      const ys = cols["z" + z];
      const lo = Math.min.apply(null, ys);
      const hi = Math.max.apply(null, ys);
      const involved = moment.zones.indexOf(z) >= 0;
      if (!involved && hi - lo < 0.5 && Math.abs(hi) < 0.5) continue; // empty and quiet: leave out
      series.push({ label: "zone " + z, stroke: ZONE_COLOURS[z - 1], width: involved ? 2.4 : 1, value: (u, v) => (v === null ? "" : v.toFixed(1) + " g") });
      data.push(ys);
    }
    if (cols.table_g.some((v) => v !== null)) {
      series.push({ label: "table mat", stroke: MAT_COLOUR, width: 1.6, dash: [6, 4], value: (u, v) => (v === null ? "" : v.toFixed(1) + " g") });
      data.push(cols.table_g);
    }
    box.innerHTML = "";
    const width = Math.max(200, box.clientWidth || 520);
    const axis = { stroke: "#9fb6c8", grid: { stroke: "rgba(255,255,255,.07)" }, ticks: { stroke: "rgba(255,255,255,.15)" } };
    const marker = {
      hooks: {
        draw: (u) => {
          const ctx = u.ctx;
          const px = u.valToPos(0, "x", true);
          ctx.save();
          ctx.strokeStyle = "rgba(244,162,97,.9)";
          ctx.setLineDash([4, 4]);
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(px, u.bbox.top);
          ctx.lineTo(px, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
        },
      },
    };
    new uPlot(
      {
        width: width,
        height: 240,
        scales: { x: { time: false } },
        series: series,
        axes: [Object.assign({ label: "seconds from the event" }, axis), Object.assign({ label: "grams" }, axis)],
        plugins: [marker],
        legend: { live: true },
      },
      data,
      box
    );
  }

  // the players' colours: their table's, or the seats' defaults for a table gone since
  const SEAT_COLOURS = ["#e63946", "#2a9df4", "#f4d35e", "#7bd389"]; // bosun.tables' default
  async function coloursOf(g) {
    let colours = {};
    g.players.forEach((p, i) => (colours[p] = SEAT_COLOURS[i % SEAT_COLOURS.length]));
    try {
      const table = await Bosun.api("/api/tables/" + encodeURIComponent(g.table));
      if (table.referee) colours = Object.assign(colours, table.referee.colours);
    } catch (err) {
      // a table no longer configured: its seats' default colours
    }
    return colours;
  }

  // Montego Bay: the harbour and the points as they stand, or as the game ended
  async function harbourHtml(data) {
    const colours = await coloursOf(data.game);
    const board = Bosun.boards["montego-bay"];
    const snapshot = { state: data.state, referee: { colours: colours }, virtual: false };
    const ranked = Object.keys(data.state.players).sort((a, b) => data.state.players[b].points - data.state.players[a].points);
    const rows = ranked.map((p) => {
      const info = data.state.players[p];
      return '<tr data-player="' + esc(p) + '"><td><span class="dot" style="--c:' + esc(colours[p] || "#ccc") + '"></span> ' + esc(p) +
        (data.state.winners.indexOf(p) >= 0 ? ' <span class="tag captain">won</span>' : "") + '</td><td class="num">' + info.points + ' points</td><td class="num">' +
        info.silver + ' silver</td><td class="num">' + info.barrels + " barrels in supply</td></tr>";
    });
    return board.draw(snapshot, { compact: window.innerWidth < 700 }) + '<table class="data compact mb-scores"><tbody>' + rows.join("") + "</tbody></table>" +
      (data.state.events.length ? '<h3>The last round</h3><ol class="events">' + data.state.events.filter((e) => e.kind !== "reveal").map((e) => "<li>" + board.eventText(snapshot, e) + "</li>").join("") + "</ol>" : "");
  }

  async function load() {
    let data;
    try {
      data = await Bosun.api("/api/games/" + encodeURIComponent(gameId));
    } catch (err) {
      el("game-title").textContent = "Game not found";
      el("game-summary").textContent = err.message;
      return;
    }
    const g = data.game;
    el("game-title").textContent = "Table " + g.table + " · " + Bosun.dateTime(g.started_at_ms);
    let outcome;
    if (g.running) outcome = "running, round " + (g.rounds || 1);
    else if (g.abandoned) outcome = "abandoned after " + Bosun.duration(g.length_ms);
    else outcome = (g.winners || []).join(" and ") + " won after " + g.rounds + " rounds, " + Bosun.duration(g.length_ms);
    const harbour = data.state && data.state.game === "montego-bay";
    el("game-summary").textContent = g.players.join(", ") + " — " + outcome + (harbour ? " · Montego Bay" : " · " + Bosun.plural(g.falls, "fall"));
    const exportLog = el("export-log");
    if (g.running && !root.dataset.key) {
      // a running game's log holds cards not revealed yet: it is exported once it is over
      exportLog.removeAttribute("href");
      exportLog.classList.add("disabled");
      exportLog.textContent = "The game's record: when the game is over";
    }
    if (harbour) {
      el("timeline-title").textContent = g.running ? "The harbour now" : "How it ended";
      Bosun.render(el("timeline"), await harbourHtml(data));
      if (!g.running && !el("replay").dataset.step) {
        try {
          const steps = await Bosun.api("/api/games/" + encodeURIComponent(gameId) + "/steps");
          Bosun.stepsReplay(el("replay"), steps.steps, "montego-bay", await coloursOf(g));
        } catch (err) {
          // the steps are extra: the game's page shows everything else without them
        }
      }
    } else {
      Bosun.render(el("timeline"), timelineHtml(data));
      if (!g.running && !el("replay").dataset.turn) Bosun.gameReplay(el("replay"), data, await coloursOf(g));
    }
    const momentsChanged = Bosun.render(el("moments"), momentsHtml(data.moments));
    window.bosunGame = data;
    if (g.running) setTimeout(load, 5000); // a running game: look again in a moment
    if (!momentsChanged) return;
    for (const m of data.moments) {
      const details = document.querySelector('[data-moment="' + m.id + '"]');
      if (details.open) plot(m);
      details.addEventListener("toggle", () => details.open && plot(m));
    }
  }
  load();
})();
