// The live table view: the ship, whose turn, cards, supplies, the referee's feed, alerts.
"use strict";

(function () {
  const root = document.getElementById("table-view");
  const tableId = root.dataset.table;
  const scale = parseFloat(root.dataset.scale || "1") || 1;
  const key = root.dataset.key || "";
  const esc = Bosun.esc;
  const board = Bosun.boards[root.dataset.game] || Bosun.boards.riffraff;
  const el = (id) => document.getElementById(id);
  const countdown = Bosun.countdown(el("countdown"), scale);
  // every snapshot's arrival (ms since epoch) with the feed it brought: tests read this
  window.bosunReceived = [];

  function phaseHtml(snapshot) {
    const s = snapshot.state;
    if (!s) return "<h2>No game</h2>";
    const colours = (snapshot.referee || {}).colours || {};
    const who = (p) => '<span class="who" style="--c:' + esc(colours[p] || "#ccc") + '">' + esc(p) + "</span>";
    const roundText = s.cycle === 2 ? "Round " + s.round + " of 20 (second pass)" : "Round " + s.round + (Object.keys(s.players).length === 2 ? " of 20" : " of 10");
    const settle = s.settle_s ? "three-second rule" : "settles immediately";
    let body = "";
    if (s.phase === "choose") {
      const waiting = Object.keys(s.players).filter((p) => !s.players[p].chosen);
      body = '<p class="phase-title">Choose your cards</p><p class="phase-sub">' +
        (waiting.length ? "waiting for " + waiting.map(who).join(", ") : "all chosen") + "</p>";
    } else if (s.phase === "decide") {
      const what = s.pending.decision === "captain" ? "who becomes captain (RR5)" : "who goes next (RR6)";
      body = '<p class="phase-title">' + who(s.pending.by) + " decides</p><p class=\"phase-sub\">" + esc(what) + " among " + s.pending.among.map(who).join(", ") + "</p>";
    } else if (s.phase === "turn") {
      const pieces = s.pieces_announced === 2 ? "two pieces" : "one piece";
      body = '<p class="phase-title turn" style="--c:' + esc(colours[s.turn] || "#f4a261") + '">' + esc(s.turn) + "'s turn</p>" +
        '<p class="phase-sub">load ' + pieces + ' on <strong class="zone-call" data-zone="' + s.target_zone + '">zone ' + s.target_zone + "</strong>" +
        (s.pieces_loaded ? " · " + s.pieces_loaded + " loaded" : "") + "</p>";
    } else if (s.phase === "over") {
      body = '<p class="phase-title">' + (s.winners.length ? s.winners.map(who).join(" and ") + (s.winners.length > 1 ? " win" : " wins") : "Game over") + "</p>" +
        '<p class="phase-sub">' + (snapshot.virtual ? "a new game starts in a moment" : "start a new game when you are ready") + "</p>";
    }
    return '<div class="phase-head"><span>' + esc(roundText) + '</span><span class="muted">' + esc(settle) + "</span></div>" + body;
  }

  function playersHtml(snapshot) {
    const s = snapshot.state;
    if (!s) return "";
    const colours = (snapshot.referee || {}).colours || {};
    const humans = snapshot.humans || [];
    const rows = Object.keys(s.players).map((p) => {
      const info = s.players[p];
      let card;
      if (info.card !== null && info.card !== undefined) card = '<span class="card-chip" data-card="' + info.card + '">' + info.card + "</span>";
      else if (info.chosen) card = '<span class="card-chip hidden-card" title="chosen, secret until all have chosen">✓</span>';
      else card = '<span class="card-chip empty" title="not chosen yet">…</span>';
      const items = Bosun.ITEMS.filter((i) => info.items[i] > 0)
        .map((i) => '<span class="supply-item">' + Bosun.itemIcon(i, 22) + (info.items[i] > 1 ? "<sub>" + info.items[i] + "</sub>" : "") + "</span>")
        .join("");
      const tags = [];
      if (s.captain === p) tags.push('<span class="tag captain">captain</span>');
      if (snapshot.virtual) tags.push(humans.indexOf(p) >= 0 ? '<span class="tag human">person</span>' : '<span class="tag bot">bot</span>');
      const active = s.turn === p ? " active" : "";
      return '<li class="player' + active + '" data-player="' + esc(p) + '" style="--c:' + esc(colours[p] || "#ccc") + '">' +
        '<div class="player-line"><span class="dot"></span><span class="name">' + esc(p) + "</span>" + tags.join("") + card + "</div>" +
        '<div class="player-line small"><span class="supply-count" data-supply="' + info.supply + '">' + info.supply + " pieces</span>" + items + "</div>" +
        '<div class="played muted">played: ' + (info.played.length ? info.played.join(" · ") : "—") + "</div></li>";
    });
    const boxed = s.boxed ? '<p class="muted">' + s.boxed + " piece" + (s.boxed > 1 ? "s" : "") + " in the box (RR12)</p>" : "";
    return "<h2>Players</h2><ol class=\"player-list\">" + rows.join("") + "</ol>" + boxed;
  }

  function show(snapshot, receivedAt) {
    window.bosunLast = snapshot;
    window.bosunReceived.push({ at: receivedAt, feed: (snapshot.feed || []).map((f) => f.at_ms + "|" + f.text) });
    if (window.bosunReceived.length > 500) window.bosunReceived.shift();
    Bosun.render(el("alerts"), Bosun.alertsHtml(snapshot, { answer: false }));
    Bosun.render(el("board"), board.ship(snapshot));
    Bosun.render(el("phase"), phaseHtml(snapshot));
    countdown.set(snapshot);
    Bosun.render(el("players"), playersHtml(snapshot));
    Bosun.render(el("feed"), Bosun.feedHtml(snapshot.feed, 14));
    document.body.dataset.phase = snapshot.state ? snapshot.state.phase : "none";
  }

  Bosun.live("/api/tables/" + encodeURIComponent(tableId) + "/stream", {
    snapshot: show,
    state: (s) => Bosun.linkState(el("link-state"), s),
  });

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
      const settle = el("new-settle").value;
      const body = settle === "" ? {} : { settle_s: parseInt(settle, 10) };
      try {
        await Bosun.api(Bosun.withKey("/api/tables/" + encodeURIComponent(tableId) + "/games", key), { json: body });
      } catch (err) {
        alert(err.message);
      }
    });
  }
})();
