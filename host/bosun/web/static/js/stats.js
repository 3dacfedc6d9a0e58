// Statistics: falls by zone and by item, win rates by seat and by player, turn times.
"use strict";

(function () {
  const root = document.getElementById("stats");
  const filter = document.getElementById("table-filter");
  const esc = Bosun.esc;

  function bars(rows, label, value, total) {
    const max = Math.max(1, ...rows.map(value));
    return '<table class="data bars"><tbody>' + rows.map((r) =>
      "<tr><th>" + label(r) + '</th><td class="bar-cell"><span class="bar" style="width:' + (100 * value(r) / max).toFixed(1) + '%"></span></td><td class="num">' + total(r) + "</td></tr>").join("") +
      "</tbody></table>";
  }
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");
  const pct = (rate) => (rate === null ? "—" : Math.round(rate * 100) + " %");

  function html(s) {
    if (!s.games) return '<section class="panel"><h2>No games yet</h2><p class="muted">Play a game and come back.</p></section>';
    const zones = bars(s.falls_by_zone, (r) => "zone " + r.zone, (r) => r.pieces, (r) => plural(r.pieces, "piece") + " · " + plural(r.falls, "fall"));
    const items = bars(s.falls_by_item, (r) => Bosun.itemIcon(r.item, 18) + " " + esc(r.item), (r) => r.total, (r) => r.fallen + " fell · " + r.caught + " caught");
    const seats = s.wins_by_seat.length
      ? bars(s.wins_by_seat, (r) => "seat " + r.seat, (r) => r.rate || 0, (r) => pct(r.rate) + " (" + r.wins + " of " + r.games + ")")
      : '<p class="muted">No finished games yet.</p>';
    const players = s.wins_by_player.length
      ? bars(s.wins_by_player, (r) => esc(r.player), (r) => r.rate || 0, (r) => pct(r.rate) + " (" + r.wins + " of " + r.games + ")")
      : '<p class="muted">No finished games yet.</p>';
    const tt = s.turn_time;
    const turns = tt.turns
      ? '<p><span class="stat-big">' + esc(Bosun.duration(tt.mean_ms)) + '</span> <span class="muted">on average · median ' + esc(Bosun.duration(tt.median_ms)) + " · " + tt.turns + " turns</span></p>" +
        bars(tt.by_player, (r) => esc(r.player), (r) => r.mean_ms, (r) => Bosun.duration(r.mean_ms) + " · " + plural(r.turns, "turn"))
      : '<p class="muted">No finished turns yet.</p>';
    return '<section class="panel summary-strip"><div><span class="stat-big">' + s.games + '</span> games</div><div><span class="stat-big">' + s.finished +
      '</span> finished with a winner</div><div><span class="stat-big">' + s.falls + "</span> falls</div></section>" +
      '<section class="panel" id="falls-by-zone"><h2>Falls by zone</h2>' + zones + "</section>" +
      '<section class="panel" id="falls-by-item"><h2>Falls by piece</h2>' + items + "</section>" +
      '<section class="panel" id="wins-by-seat"><h2>Win rate by seat</h2>' + seats + "</section>" +
      '<section class="panel" id="wins-by-player"><h2>Win rate by player</h2>' + players + "</section>" +
      '<section class="panel" id="turn-time"><h2>Turn time</h2>' + turns + "</section>";
  }

  async function load() {
    try {
      const s = await Bosun.api("/api/stats" + (filter.value ? "?table=" + encodeURIComponent(filter.value) : ""));
      Bosun.render(root, html(s));
    } catch (err) {
      Bosun.render(root, '<section class="panel"><p>' + esc(err.message) + "</p></section>");
    }
  }
  filter.addEventListener("change", load);
  load();
  setInterval(load, 15000);
})();
