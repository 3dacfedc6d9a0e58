// The games list: table, players, winner, length, falls; newest first.
"use strict";

(function () {
  const body = document.querySelector("#games tbody");
  const filter = document.getElementById("table-filter");
  const esc = Bosun.esc;
  const params = new URLSearchParams(location.search);
  const key = params.get("key") || "";

  async function load() {
    const table = filter.value;
    let games;
    try {
      games = await Bosun.api("/api/games" + (table ? "?table=" + encodeURIComponent(table) : ""));
    } catch (err) {
      body.innerHTML = '<tr><td colspan="8">' + esc(err.message) + "</td></tr>";
      return;
    }
    if (!games.length) {
      body.innerHTML = '<tr><td colspan="8" class="muted">No games yet.</td></tr>';
      return;
    }
    body.innerHTML = games.map((g) => {
      let winner;
      if (g.running) winner = '<span class="pill ok">running</span>';
      else if (g.abandoned) winner = '<span class="muted">abandoned</span>';
      else winner = (g.winners || []).map(esc).join(", ");
      const href = Bosun.withKey("/games/" + encodeURIComponent(g.game_id), key);
      // each cell says what it is: on a phone the row is a card of labelled lines
      const cell = (label, html) => '<td data-label="' + label + '">' + html + "</td>";
      return '<tr data-game="' + esc(g.game_id) + '">' + cell("Started", esc(Bosun.dateTime(g.started_at_ms))) + cell("Table", esc(g.table)) +
        cell("Players", g.players.map(esc).join(", ")) + cell("Winner", winner) + cell("Length", esc(g.running ? "" : Bosun.duration(g.length_ms))) +
        cell("Rounds", esc(g.rounds || "")) + cell("Falls", g.falls) +
        cell("", '<a href="' + esc(href) + '">open<span class="sr-only"> the game of ' + esc(Bosun.dateTime(g.started_at_ms)) + "</span></a>") + "</tr>";
    }).join("");
  }
  filter.addEventListener("change", load);
  load();
  setInterval(load, 10000);
})();
