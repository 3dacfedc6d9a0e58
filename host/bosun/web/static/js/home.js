// The tables page: each table's state, refreshed; for the operator, seat links and codes.
"use strict";

(function () {
  const grid = document.getElementById("tables");
  const key = grid.dataset.key || "";
  const esc = Bosun.esc;
  const link = (path) => Bosun.withKey(path, key);
  const phaseText = {
    choose: "choosing cards",
    decide: "captain decides",
    turn: "playing",
    over: "game over",
    hire: "Lazy Jack?", // Montego Bay's phases
    cards: "choosing cards",
    resolve: "loading barrels",
  };
  const gameTitles = { riffraff: "Riff Raff", "montego-bay": "Montego Bay" };
  const seatsSeen = {};

  // `since`: the service is away; what the table was doing is not known now
  function card(t, since) {
    let state = t.ship_online ? '<span class="pill ok">ship online</span>' : '<span class="pill bad">ship offline</span>';
    let phase = t.phase ? (phaseText[t.phase] || t.phase) + (t.round ? " · round " + t.round : "") : "no game";
    if (since) {
      state = '<span class="pill unknown">not known</span>';
      phase = "no news since " + Bosun.clock(since);
    }
    return '<article class="panel table-card" data-table="' + esc(t.id) + '">' +
      '<div class="table-card-head"><h2><a href="' + esc(link("/tables/" + t.id)) + '">' + esc(t.id) + "</a></h2>" + state + "</div>" +
      '<p class="muted">' + esc(gameTitles[t.game] || t.game) + " · " + esc(phase) + "</p>" +
      '<p class="players-line">' + t.players.map(esc).join(" · ") + "</p>" +
      '<p class="row"><a class="button" href="' + esc(link("/tables/" + t.id)) + '">Watch the table</a>' +
      (key ? ' <a class="button secondary" href="' + esc(link("/tables/" + t.id + "/calibrate")) + '">Calibrate</a>' : "") + "</p>" +
      (key ? '<div class="seat-links small" data-seats-for="' + esc(t.id) + '"></div>' : "") + "</article>";
  }

  async function seats(t) {
    const box = grid.querySelector('[data-seats-for="' + CSS.escape(t.id) + '"]');
    if (!box) return;
    try {
      const links = await Bosun.api(Bosun.withKey("/api/tables/" + encodeURIComponent(t.id) + "/seat-links", key));
      const warning = links.reachable_by_phones ? "" : '<p class="reach-note">These codes point to ' + esc(location.host) +
        ", which phones cannot reach. Start bosun with --host 0.0.0.0 and open this page by the computer's network address.</p>";
      box.innerHTML = warning + '<p class="row"><a class="button secondary small" href="' + esc(link("/tables/" + t.id + "/seat-cards")) + '">Seat cards to print</a></p>' +
        '<div class="seat-link-grid">' + links.seats.map((seat) =>
        '<figure class="seat-link" data-player="' + esc(seat.player) + '" style="--c:' + esc(seat.colour) + '">' +
        '<img src="' + esc(seat.qr) + '" alt="QR code of ' + esc(seat.player) + "'s seat\" width=\"104\" height=\"104\">" +
        '<figcaption><span class="dot"></span><a href="' + esc(seat.path) + '" target="_blank" rel="noopener">join as ' + esc(seat.player) + "</a>" +
        (seat.human ? ' <span class="tag human">person</span>' : "") + "</figcaption></figure>").join("") + "</div>";
    } catch (err) {
      box.textContent = err.message;
    }
  }

  // In a cluster (bosun run --cluster) the other referees' tables are listed too, with a link
  // to the referee that holds each now; outside one, /api/cluster is not there: asked once.
  let inCluster = true;
  let elsewhere = []; // [table id, its referee's address or null while it moves]
  async function otherReferees() {
    if (!inCluster) return;
    try {
      const map = await Bosun.api("/api/cluster");
      elsewhere = Object.entries(map.tables).filter((entry) => entry[1] !== map.here);
    } catch (err) {
      if (err.status === 404) inCluster = false;
    }
  }

  function elsewhereCard(entry) {
    const id = entry[0];
    const url = entry[1];
    const where = url
      ? 'refereed at <a href="' + esc(url + link("/tables/" + id)) + '">' + esc(url) + "</a>"
      : "moving to another referee …";
    return '<article class="panel table-card elsewhere" data-table="' + esc(id) + '"><div class="table-card-head"><h2>' + esc(id) + "</h2></div>" +
      '<p class="muted">' + where + "</p></article>";
  }

  let lastTables = null;
  let lastHeardAt = null;
  async function refresh() {
    await otherReferees();
    let tables;
    try {
      tables = await Bosun.api("/api/tables");
    } catch (err) {
      // away: the last answer is stale, so no "ship online" and no round from it
      if (lastTables) Bosun.render(grid, lastTables.map((t) => card(t, lastHeardAt)).join(""));
      for (const id of Object.keys(seatsSeen)) delete seatsSeen[id];
      return;
    }
    lastTables = tables;
    lastHeardAt = Date.now();
    if (!tables.length && !elsewhere.length) return;
    const html = tables.map((t) => card(t)).join("") + elsewhere.map(elsewhereCard).join("");
    if (grid.__html !== html) {
      Bosun.render(grid, html);
      for (const t of tables) delete seatsSeen[t.id];
    }
    for (const t of tables) {
      if (key && seatsSeen[t.id] !== t.game_id) {
        seatsSeen[t.id] = t.game_id;
        seats(t);
      }
    }
  }
  refresh();
  setInterval(refresh, 2000);
})();
