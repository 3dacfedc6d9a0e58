// The live table view: the ship, whose turn, cards, supplies, the referee's feed, alerts.
"use strict";

(function () {
  const root = document.getElementById("table-view");
  const tableId = root.dataset.table;
  const scale = parseFloat(root.dataset.scale || "1") || 1;
  const key = root.dataset.key || "";
  const esc = Bosun.esc;
  // the game's board module draws the board, the phase and the players (<game>-board.js)
  const board = Bosun.boards[root.dataset.game];
  const el = (id) => document.getElementById(id);
  const countdown = Bosun.countdown(el("countdown"), scale);
  const grams = !!key; // the operator sees the grams; the players, pieces

  function show(snapshot) {
    window.bosunLast = snapshot;
    Bosun.render(el("alerts"), Bosun.alertsHtml(snapshot, { answer: false }));
    Bosun.render(el("board"), board.draw(snapshot, { grams: grams }));
    Bosun.render(el("phase"), board.phase(snapshot));
    countdown.set(snapshot);
    Bosun.render(el("players"), board.players(snapshot));
    clock.set(snapshot);
    showPresence();
    Bosun.render(el("feed"), Bosun.feedHtml(snapshot.feed, root.dataset.tv ? 8 : 14, { grams: grams }));
    document.body.dataset.phase = snapshot.state ? snapshot.state.phase : "none";
  }

  // Who is at the table: each seat's phone, how long a decision has waited, the timer;
  // for the operator, a seat handed to its bot or a decision made by it now.
  const clock = Bosun.tableClock(scale);
  function presenceHtml(snapshot) {
    const presence = snapshot.presence;
    if (!presence || !snapshot.game_id) return "";
    const colours = (snapshot.referee || {}).colours || {};
    const now = clock.now();
    const rows = Object.keys(presence.seats).map((p) => {
      const seat = presence.seats[p];
      let phone;
      if (seat.bot) phone = '<span class="tag bot">bot</span>';
      else if (seat.online) phone = '<span class="tag online">phone on</span>';
      else phone = '<span class="tag offline">phone offline</span>' + (seat.left_ms ? ' <span class="muted small">for ' + Bosun.span(clock.seconds(seat.left_ms, now)) + "</span>" : "");
      let wait = "";
      if (seat.waiting_since_ms) {
        wait = '<span class="waiting">deciding for ' + Bosun.span(clock.seconds(seat.waiting_since_ms, now)) + "</span>";
        if (seat.deadline_ms) wait += ' <span class="decision-left" role="timer">bot decides in ' + Bosun.span(Math.ceil(clock.seconds(now, seat.deadline_ms))) + "</span>";
      }
      let tools = "";
      if (key && !root.dataset.tv) {
        if (seat.waiting_since_ms && !seat.bot) tools += '<button class="button small secondary" type="button" data-seat-do="skip" data-player="' + esc(p) + '">Bot decides now</button>';
        if (!seat.bot) tools += '<button class="button small secondary" type="button" data-seat-do="bot" data-player="' + esc(p) + '">Give seat to bot</button>';
        else if (!snapshot.virtual) tools += '<button class="button small secondary" type="button" data-seat-do="person" data-player="' + esc(p) + '">Give seat back</button>';
      }
      return '<li class="presence-seat" data-player="' + esc(p) + '" data-online="' + (seat.online ? "yes" : "no") + '"' + (seat.waiting_since_ms ? ' data-waiting="yes"' : "") + ">" +
        '<span class="dot" style="--c:' + esc(colours[p] || "#ccc") + '"></span> <strong>' + esc(p) + "</strong> " + phone + " " + wait +
        (tools ? '<span class="seat-tools">' + tools + "</span>" : "") + "</li>";
    });
    const timer = presence.decision_s ? "decision timer " + Bosun.span(presence.decision_s) : "no decision timer";
    return '<h2>At the table <span class="muted small">· ' + timer + '</span></h2><ul class="presence-list">' + rows.join("") + "</ul>";
  }
  function showPresence() {
    if (!window.bosunLast) return;
    Bosun.render(el("presence"), presenceHtml(window.bosunLast));
    const choice = el("decision-s");
    const presence = window.bosunLast.presence;
    if (choice && presence && document.activeElement !== choice) {
      const now = String(presence.decision_s);
      choice.value = [...choice.options].some((o) => o.value === now) ? now : "";
    }
  }
  setInterval(showPresence, 1000);

  if (key) {
    el("presence").addEventListener("click", async (event) => {
      const button = event.target.closest("button[data-seat-do]");
      if (!button || button.disabled) return;
      const what = button.dataset.seatDo;
      const path = "/api/tables/" + encodeURIComponent(tableId) + "/seats/" + encodeURIComponent(button.dataset.player) + "/" + (what === "skip" ? "skip" : "bot");
      try {
        await Bosun.api(Bosun.withKey(path, key), { json: what === "skip" ? {} : { bot: what === "bot" } });
      } catch (err) {
        alert(err.message);
      }
    });
    const timerChoice = el("decision-s");
    if (timerChoice) timerChoice.addEventListener("change", async () => {
      try {
        await Bosun.api(Bosun.withKey("/api/tables/" + encodeURIComponent(tableId) + "/decision-timer", key), { json: { decision_s: parseInt(timerChoice.value, 10) } });
      } catch (err) {
        alert(err.message);
      }
    });
  }

  // the operator's stream carries the grams (the players' leaves them out)
  Bosun.live(Bosun.withKey("/api/tables/" + encodeURIComponent(tableId) + "/stream", key), {
    snapshot: show,
    state: (s) => Bosun.linkState(el("link-state"), s),
  });

  // the TV view: the whole screen, once someone clicks (browsers allow it only then)
  const full = el("full-screen");
  if (full && document.fullscreenEnabled) {
    full.hidden = false;
    full.addEventListener("click", () => {
      if (document.fullscreenElement) document.exitFullscreen();
      else document.documentElement.requestFullscreen().catch(() => {});
    });
    document.addEventListener("fullscreenchange", () => {
      full.textContent = document.fullscreenElement ? "Leave full screen" : "Full screen";
    });
  }

  // -- operator: seat links with QR codes, a new game ------------------------------------
  if (key) {
    async function loadSeats() {
      try {
        const links = await Bosun.api(Bosun.withKey("/api/tables/" + encodeURIComponent(tableId) + "/seat-links", key));
        const note = el("reach-note");
        note.hidden = links.reachable_by_phones;
        note.textContent = "These codes point to " + location.host + ", which phones cannot reach. Start bosun with --host 0.0.0.0 and open this page by the computer's network address.";
        Bosun.render(el("seat-links"), links.seats.map((seat) =>
          '<figure class="seat-link" data-player="' + esc(seat.player) + '" style="--c:' + esc(seat.colour) + '">' +
          '<img src="' + esc(seat.qr) + '" alt="QR code of ' + esc(seat.player) + "'s seat link\" width=\"150\" height=\"150\">" +
          '<figcaption><span class="dot"></span><a href="' + esc(seat.path) + '" target="_blank" rel="noopener">' + esc(seat.player) + "</a>" +
          (seat.human ? ' <span class="tag human">person</span>' : "") + "</figcaption></figure>").join(""));
      } catch (err) {
        el("seat-links").textContent = err.message;
      }
    }
    let lastGame = null;
    setInterval(() => {
      const gameId = window.bosunLast && window.bosunLast.game_id;
      const humans = window.bosunLast ? (window.bosunLast.humans || []).join(",") : "";
      if (gameId + humans !== lastGame) {
        lastGame = gameId + humans;
        loadSeats();
      }
    }, 1000);
    el("new-game").addEventListener("click", async () => {
      if (!confirm("Start a new game at table " + tableId + "? The running game ends here.")) return;
      const body = {};
      const settle = el("new-settle") ? el("new-settle").value : "";
      if (settle !== "") body.settle_s = parseInt(settle, 10);
      const ownCatch = el("new-own-catch") ? el("new-own-catch").value : "";
      if (ownCatch !== "") body.own_catch = ownCatch;
      const seed = el("new-seed") ? el("new-seed").value.trim() : "";
      if (seed !== "") {
        if (!/^[0-9]+$/.test(seed) || Number(seed) > Number.MAX_SAFE_INTEGER) {
          alert("The seed is a whole number (or leave it empty for a random one).");
          return;
        }
        body.seed = Number(seed);
      }
      try {
        await Bosun.api(Bosun.withKey("/api/tables/" + encodeURIComponent(tableId) + "/games", key), { json: body });
      } catch (err) {
        alert(err.message);
      }
    });
  }
})();
