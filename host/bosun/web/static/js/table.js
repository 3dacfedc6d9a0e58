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
    Bosun.render(el("feed"), Bosun.feedHtml(snapshot.feed, root.dataset.tv ? 8 : 14, { grams: grams }));
    document.body.dataset.phase = snapshot.state ? snapshot.state.phase : "none";
  }

  Bosun.live("/api/tables/" + encodeURIComponent(tableId) + "/stream", {
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
