// Montego Bay's board as SVG: the warehouses with their north and south rooms and the path
// of stops round them (MB1, MB12), the workers and Lazy Jack on it, the pubs, the order
// tokens (MB4), and the harbour: four docks, the pilot boat and the ships with their slots,
// points and cargo by player colour (MB3), with what each dock's load cell counts.
"use strict";

(function () {
  const esc = Bosun.esc;
  const KIND_LETTER = { big: "B", little: "L" };

  // Where things go: the table view's wide board (docks in a row), or a phone's narrow one
  // (docks two by two, rooms as counts).
  function layout(compact) {
    const L = compact
      ? { W: 480, PUB_W: 44, TOP: 56, TILE_Y: 80, ROOM_H: 54, STOP_R: 12, DOCK_H: 150, DOCK_COLS: 2, compact: true }
      : { W: 960, PUB_W: 78, TOP: 64, TILE_Y: 94, ROOM_H: 66, STOP_R: 17, DOCK_H: 190, DOCK_COLS: 4, compact: false };
    L.SOUTH_Y = L.TILE_Y + 2 * L.ROOM_H + (compact ? 24 : 30); // the south stops' row
    L.HARBOUR_Y = L.SOUTH_Y + (compact ? 34 : 44);
    L.GAP = compact ? 10 : 12;
    L.DOCK_W = (L.W - (L.DOCK_COLS + 1) * L.GAP) / L.DOCK_COLS;
    const rows = 4 / L.DOCK_COLS;
    L.H = L.HARBOUR_Y + rows * L.DOCK_H + (rows - 1) * L.GAP + 14;
    return L;
  }

  const colourOf = (snapshot, player) => (((snapshot.referee || {}).colours || {})[player]) || "#cccccc";
  const who = (snapshot, p) => '<span class="who" style="--c:' + esc(colourOf(snapshot, p)) + '">' + esc(p) + "</span>";
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

  // -- the path (MB12): stop labels, their index round the loop, where they are drawn ------

  function geometry(state, L) {
    const count = state.warehouses.length;
    const tileW = (L.W - 2 * L.PUB_W - 16) / count;
    const x0 = L.PUB_W + 8;
    const stops = {};
    for (let i = 0; i < count; i++) {
      const cx = x0 + tileW * (i + 0.5);
      stops["N" + (i + 1)] = { x: cx, y: L.TOP, room: [i, 0] };
      stops["S" + (i + 1)] = { x: cx, y: L.SOUTH_Y, room: [i, 1] };
    }
    return { count: count, tileW: tileW, x0: x0, stops: stops };
  }

  function barrelsSvg(n, x, y, size, symbol) {
    let out = "";
    for (let i = 0; i < n; i++) {
      out += '<use href="#' + symbol + '" x="' + (x + i * (size - 2)) + '" y="' + y + '" width="' + size + '" height="' + size + '"/>';
    }
    return out;
  }

  function roomSvg(room, label, box, pending, L) {
    const parts = [];
    const cls = ["room"];
    if (pending && pending.room === label) cls.push("asked");
    if (room.broken) cls.push("broken");
    const h = L.ROOM_H - 4;
    parts.push('<g class="' + cls.join(" ") + '" data-room="' + label + '"><title>' + label + ": " + roomText(room) + "</title>");
    parts.push('<rect class="room-box" x="' + (box.x + 3) + '" y="' + box.y + '" width="' + (box.w - 6) + '" height="' + h + '" rx="7"/>');
    parts.push('<text class="room-label" x="' + (box.x + 8) + '" y="' + (box.y + 14) + '">' + label + "</text>");
    const n = room.barrels || room.broken || 0;
    const symbol = room.broken ? "i-broken" : "i-barrel";
    if (L.compact) {
      // a phone: one barrel and its count, so the rooms stay readable
      if (n) {
        parts.push('<use href="#' + symbol + '" x="' + (box.x + box.w / 2 - 17) + '" y="' + (box.y + h - 27) + '" width="20" height="20"/>');
        parts.push('<text class="room-count" x="' + (box.x + box.w / 2 + 4) + '" y="' + (box.y + h - 11) + '">' + n + "</text>");
      }
      if (room.silver) parts.push('<use href="#i-silver" x="' + (box.x + box.w - 19) + '" y="' + (box.y + 4) + '" width="14" height="14"/>');
    } else {
      const size = Math.min(20, (box.w - 14) / 4 + 2);
      const width = n ? n * (size - 2) + 2 : 0;
      parts.push(barrelsSvg(n, box.x + box.w / 2 - width / 2, box.y + L.ROOM_H - size - 10, size, symbol));
      if (room.silver) parts.push('<use href="#i-silver" x="' + (box.x + box.w - 25) + '" y="' + (box.y + 4) + '" width="18" height="18"/>');
    }
    if (!n && !room.silver) parts.push('<text class="room-empty" x="' + (box.x + box.w / 2) + '" y="' + (box.y + L.ROOM_H - 18) + '" text-anchor="middle">empty</text>');
    parts.push("</g>");
    return parts.join("");
  }

  function roomText(room) {
    const parts = [];
    if (room.barrels) parts.push(plural(room.barrels, "barrel"));
    if (room.broken) parts.push(plural(room.broken, "broken barrel"));
    if (room.silver) parts.push("1 silver");
    return parts.join(", ") || "nothing";
  }

  function workerSvg(snapshot, token, x, y, title, L) {
    const [player, kind] = splitToken(token);
    const r = (kind === "big" ? 14 : 11) * (L.compact ? 0.8 : 1);
    return '<g class="worker" data-worker="' + esc(token) + '"><title>' + esc(title || token) + "</title>" +
      '<circle cx="' + x + '" cy="' + y + '" r="' + r + '" style="fill:' + esc(colourOf(snapshot, player)) + '"/>' +
      '<text x="' + x + '" y="' + (y + 4.5) + '" text-anchor="middle" class="worker-letter' + (kind === "little" ? " small" : "") + '">' + KIND_LETTER[kind] + "</text></g>";
  }

  function jackSvg(snapshot, jack, x, y, L) {
    return '<g class="worker jack" data-worker="jack"><title>Lazy Jack, hired by ' + esc(jack.player) + " with the " + esc(jack.worker) + " worker</title>" +
      '<circle cx="' + x + '" cy="' + y + '" r="' + (L.compact ? 10 : 13) + '" class="jack-body" style="stroke:' + esc(colourOf(snapshot, jack.player)) + '"/>' +
      '<text x="' + x + '" y="' + (y + 4.5) + '" text-anchor="middle" class="jack-letter">J</text></g>';
  }

  function splitToken(token) {
    const at = token.lastIndexOf(":");
    return [token.slice(0, at), token.slice(at + 1)];
  }

  function boardSvg(snapshot, g, L) {
    const s = snapshot.state;
    const parts = [];
    const right = L.W - L.PUB_W;
    const pubW = L.PUB_W - 10;
    const pubX = { west: 6, east: right + 4 };
    // the path round the warehouses, clockwise: along the north side west to east, back
    // along the south side (MB12)
    parts.push('<rect class="path" x="' + (L.PUB_W - 4) + '" y="' + L.TOP + '" width="' + (right - L.PUB_W + 8) + '" height="' + (L.SOUTH_Y - L.TOP) + '" rx="' + (L.compact ? 18 : 26) + '"/>');
    const ax = g.x0 + g.tileW; // arrows between the first two stops of each side
    parts.push('<path class="path-arrow" d="M' + (ax - 6) + " " + (L.TOP - 6) + ' l12 6 l-12 6z"/>');
    const bx = g.x0 + g.tileW * (g.count - 1);
    parts.push('<path class="path-arrow" d="M' + (bx + 6) + " " + (L.SOUTH_Y - 6) + ' l-12 6 l12 6z"/>');
    // pubs: Big workers start in the west, Little workers in the east (MB12)
    for (const name of ["west", "east"]) {
      parts.push('<g class="pub" data-pub="' + name + '"><rect x="' + pubX[name] + '" y="' + (L.TILE_Y - 6) + '" width="' + pubW + '" height="' + (2 * L.ROOM_H + 12) + '" rx="10"/>' +
        '<text x="' + (pubX[name] + pubW / 2) + '" y="' + (L.TILE_Y + 12) + '" text-anchor="middle" class="pub-label">' + name + "</text>" +
        (L.compact ? "" : '<text x="' + (pubX[name] + pubW / 2) + '" y="' + (L.TILE_Y + 25) + '" text-anchor="middle" class="pub-label">pub</text>') + "</g>");
    }
    // warehouses and their rooms
    s.warehouses.forEach((pair, i) => {
      const x = g.x0 + g.tileW * i;
      parts.push('<rect class="warehouse" x="' + (x + 1) + '" y="' + (L.TILE_Y - 2) + '" width="' + (g.tileW - 2) + '" height="' + (2 * L.ROOM_H + 4) + '" rx="9"/>');
      parts.push(roomSvg(pair[0], "N" + (i + 1), { x: x, y: L.TILE_Y, w: g.tileW }, s.pending, L));
      parts.push(roomSvg(pair[1], "S" + (i + 1), { x: x, y: L.TILE_Y + L.ROOM_H + 4, w: g.tileW }, s.pending, L));
    });
    // stops, each in front of its room
    for (const label of Object.keys(g.stops)) {
      const stop = g.stops[label];
      const asked = s.pending && s.pending.room === label;
      parts.push('<circle class="stop' + (asked ? " asked" : "") + '" data-stop="' + label + '" cx="' + stop.x + '" cy="' + stop.y + '" r="' + L.STOP_R + '"/>');
    }
    // workers: on their stops, or waiting in a pub
    const inPub = { west: [], east: [] };
    for (const token of s.order) {
      const at = s.workers[token];
      if (at === "west" || at === "east") {
        inPub[at].push(token);
        continue;
      }
      const stop = g.stops[at];
      if (stop) parts.push(workerSvg(snapshot, token, stop.x, stop.y, token + " on " + at, L));
    }
    const step = L.compact ? 16 : 28;
    for (const pub of ["west", "east"]) {
      const x = pubX[pub] + pubW / 2;
      inPub[pub].forEach((token, i) => {
        const col = i % 2;
        const row = Math.floor(i / 2);
        const y = L.TILE_Y + (L.compact ? 30 : 46) + row * (L.compact ? 24 : 30);
        parts.push(workerSvg(snapshot, token, x - step / 2 + col * step, y, token + " in the " + pub + " pub", L));
      });
    }
    if (s.jack) {
      const stop = g.stops[s.jack.at];
      if (stop) {
        const shared = Object.keys(s.workers).some((t) => s.workers[t] === s.jack.at);
        const dy = stop.y < L.TILE_Y ? -14 : 14;
        parts.push(jackSvg(snapshot, s.jack, stop.x + (shared ? 20 : 0), stop.y + (shared ? dy : 0), L));
      } else {
        parts.push(jackSvg(snapshot, s.jack, pubX[s.jack.at] + pubW / 2, L.TILE_Y + 2 * L.ROOM_H - 8, L));
      }
    }
    // order tokens: who moves first (MB4), Lazy Jack always before them
    const tokenH = L.compact ? 20 : 22;
    let ox = 8;
    if (!L.compact) {
      parts.push('<text class="order-label" x="' + ox + '" y="23">order</text>');
      ox += 52;
    }
    if (s.jack) {
      parts.push('<g class="order-token jack-token"><rect x="' + ox + '" y="8" width="' + (L.compact ? 26 : 46) + '" height="' + tokenH + '" rx="6"/><text x="' + (ox + (L.compact ? 13 : 23)) + '" y="' + (8 + tokenH - 7) + '" text-anchor="middle">' + (L.compact ? "J" : "Jack") + "</text></g>");
      ox += L.compact ? 30 : 52;
    }
    s.order.forEach((token, i) => {
      const [player, kind] = splitToken(token);
      const text = L.compact ? player.slice(0, 3) + " " + KIND_LETTER[kind] : player + " " + KIND_LETTER[kind];
      const w = L.compact ? 50 : Math.max(54, 9 * text.length + 10);
      parts.push('<g class="order-token" data-order="' + i + '"><rect x="' + ox + '" y="8" width="' + w + '" height="' + tokenH + '" rx="6" style="--c:' + esc(colourOf(snapshot, player)) + '"/>' +
        '<text x="' + (ox + w / 2) + '" y="' + (8 + tokenH - 7) + '" text-anchor="middle">' + esc(text) + "</text></g>");
      ox += w + (L.compact ? 4 : 6);
    });
    if (!L.compact) parts.push('<text class="deck-left" x="' + (L.W - 8) + '" y="23" text-anchor="end">' + plural(s.deck_left, "ship") + " left in the deck</text>");
    return parts.join("");
  }

  // -- the harbour (MB3, MB9): docks, ships, slots, cargo --------------------------------

  // MB9: a ship's points go to the most barrels aboard, the second most (and the third)
  const PLACES = ["1st", "2nd", "3rd", "4th"];
  function placesText(points) {
    return points.map((p, i) => PLACES[i] + " " + p).join(" · ");
  }
  function pointsMeaning(points) {
    return "When it sails: " + points.map((p, i) => p + " points for the " + ["most", "second most", "third most", "fourth most"][i] + " barrels aboard").join(", ") + " (MB9)";
  }

  function cargoSlots(snapshot, dock) {
    const players = Object.keys(snapshot.state.players);
    const out = [];
    for (const p of players) for (let i = 0; i < (dock.cargo[p] || 0); i++) out.push(p);
    while (out.length < dock.slots) out.push(null);
    return out;
  }

  function dockSvg(snapshot, dock, number, x, y, L) {
    const s = snapshot.state;
    const referee = snapshot.referee || {};
    const felt = (referee.harbour_felt || {})[String(number)];
    const off = (referee.harbour_off || {})[String(number)];
    const pending = s.pending;
    const w = L.DOCK_W;
    const H = L.DOCK_H;
    const parts = [];
    const aboard = dock && dock.cargo ? Object.values(dock.cargo).reduce((a, b) => a + b, 0) : 0;
    const canTake = pending && dock && dock.slots && (pending.action === "load" ? dock.slots > aboard : (dock.cargo[pending.player] || 0) > 0);
    const cls = ["dock"];
    if (canTake) cls.push("asked");
    if (off) cls.push("off");
    const style = pending ? ' style="--asked:' + esc(colourOf(snapshot, pending.player)) + '"' : "";
    parts.push('<g class="' + cls.join(" ") + '" data-dock="' + number + '"' + style + ">");
    parts.push('<rect class="dock-box" x="' + x + '" y="' + y + '" width="' + w + '" height="' + H + '" rx="12"/>');
    parts.push('<rect class="pier" x="' + x + '" y="' + (y + H - 16) + '" width="' + w + '" height="16" rx="4"/>');
    parts.push('<text class="dock-no" x="' + (x + 12) + '" y="' + (y + 22) + '">dock ' + number + "</text>");
    const cx = x + w / 2;
    const hullY = y + H - 70;
    if (dock === null) {
      parts.push('<text class="dock-empty" x="' + cx + '" y="' + (y + H / 2 + 4) + '" text-anchor="middle">empty</text>');
    } else if (dock.pilot) {
      parts.push('<g class="pilot-boat"><path class="hull" d="M' + (cx - 46) + " " + hullY + " h92 l-14 22 h-64 z" + '"/>' +
        '<rect class="cabin" x="' + (cx - 18) + '" y="' + (hullY - 24) + '" width="36" height="24" rx="4"/>' +
        '<text class="pilot-label" x="' + cx + '" y="' + (hullY - 36) + '" text-anchor="middle">pilot boat</text></g>');
    } else {
      const slots = cargoSlots(snapshot, dock);
      const size = Math.min(26, (w - 34) / slots.length - 4);
      const rowW = slots.length * (size + 4) - 4;
      parts.push('<rect class="mast" x="' + (cx - 2) + '" y="' + (y + 30) + '" width="4" height="' + (hullY - y - 30) + '"/>');
      parts.push('<path class="sail" d="M' + (cx + 4) + " " + (y + 34) + " q " + (L.compact ? 30 : 40) + " 20 0 " + (hullY - y - size - 50) + ' z"/>');
      parts.push('<path class="hull ship-hull" d="M' + (cx - rowW / 2 - 16) + " " + hullY + " h" + (rowW + 32) + " l-16 28 h" + -rowW + ' z"/>');
      slots.forEach((p, i) => {
        const sx = cx - rowW / 2 + i * (size + 4);
        const sy = hullY - size - 3;
        if (p) {
          parts.push('<rect class="slot full" data-player="' + esc(p) + '" x="' + sx + '" y="' + sy + '" width="' + size + '" height="' + size + '" rx="5" style="fill:' + esc(colourOf(snapshot, p)) + '"><title>' + esc(p) + "'s barrel</title></rect>");
        } else {
          parts.push('<rect class="slot" x="' + sx + '" y="' + sy + '" width="' + size + '" height="' + size + '" rx="5"/>');
        }
      });
      parts.push('<text class="ship-points" x="' + cx + '" y="' + (hullY + 19) + '" text-anchor="middle"><title>' + esc(pointsMeaning(dock.points)) + "</title>" + placesText(dock.points) + "</text>");
      parts.push('<text class="ship-slots" x="' + (x + w - 12) + '" y="' + (y + 22) + '" text-anchor="end">' + aboard + "/" + dock.slots + "</text>");
    }
    if (felt !== undefined && !L.compact && dock !== null && !dock.pilot) {
      const text = off ? "load cell: " + felt + " (" + (off > 0 ? "+" : "") + off + ")" : "load cell: " + felt;
      parts.push('<text class="cells' + (off ? " off" : "") + '" x="' + cx + '" y="' + (y + H - 4) + '" text-anchor="middle">' + esc(text) + "</text>");
    }
    parts.push("</g>");
    return parts.join("");
  }

  function harbourSvg(snapshot, L) {
    const s = snapshot.state;
    const parts = [];
    const top = L.HARBOUR_Y - 10;
    let wave = "M0 " + top;
    for (let x = 0; x < L.W; x += 120) wave += " Q " + (x + 60) + " " + (top - 10) + " " + (x + 120) + " " + top;
    parts.push('<path class="sea" d="' + wave + " V " + L.H + ' H 0 Z"/>');
    s.docks.forEach((dock, i) => {
      const col = i % L.DOCK_COLS;
      const row = Math.floor(i / L.DOCK_COLS);
      const x = L.GAP + col * (L.DOCK_W + L.GAP);
      const y = L.HARBOUR_Y + row * (L.DOCK_H + L.GAP);
      parts.push(dockSvg(snapshot, dock, i + 1, x, y, L));
    });
    return parts.join("");
  }

  // draw(snapshot, {compact}): the board with the harbour below it; compact for phones
  function draw(snapshot, options) {
    const opts = options || {};
    const s = snapshot.state;
    if (!s || !s.warehouses) return '<p class="muted">No game at this table.</p>';
    const L = layout(!!opts.compact);
    const g = geometry(s, L);
    const label = "the warehouses, the path with the workers, and the harbour with its four docks";
    return '<svg class="harbour' + (L.compact ? " compact" : "") + '" viewBox="0 0 ' + L.W + " " + L.H + '" role="img" aria-label="' + label + '">' +
      boardSvg(snapshot, g, L) + harbourSvg(snapshot, L) + "</svg>";
  }

  // -- the side panels -------------------------------------------------------------------

  function eventText(snapshot, e) {
    const w = (token) => {
      if (token === "jack") return "Lazy Jack";
      const [p, k] = splitToken(token);
      return who(snapshot, p) + "'s " + esc(k);
    };
    const ships = (o) => Object.keys(o).map((d) => plural(o[d], "barrel") + " on dock " + esc(d)).join(", ");
    const off = (o) => Object.keys(o).map((d) => plural(o[d], "barrel") + " off dock " + esc(d)).join(", ");
    switch (e.kind) {
      case "reveal":
        return "cards revealed " + Bosun.ruleChip("MB6");
      case "move": {
        let t = w(e.worker) + " " + esc(e.from) + " → " + esc(e.to) + " (" + e.steps + ")";
        if (e.bumped) t += ", pushing " + w(e.bumped.worker) + " to " + esc(e.bumped.to);
        if (e.pushed_back_from) t += ", back from " + esc(e.pushed_back_from) + " " + Bosun.ruleChip("MB7");
        return t;
      }
      case "room": {
        const got = [];
        if (e.silver) got.push("1 silver");
        if (e.load) got.push("loads " + plural(e.load, "barrel"));
        if (e.unload) got.push("unloads " + plural(e.unload, "barrel"));
        return esc(e.stop) + ": " + who(snapshot, e.player) + (got.length ? " " + got.join(", ") : " gets nothing");
      }
      case "load":
        return who(snapshot, e.player) + " put " + ships(e.ships);
      case "unload":
        return who(snapshot, e.player) + " took " + off(e.ships);
      case "sail":
      case "score": {
        if (e.pilot) return "the pilot boat left dock " + e.dock;
        const scores = Object.keys(e.scores || {}).map((p) => who(snapshot, p) + " +" + e.scores[p]).join(", ");
        const why = e.why === "filled" ? "full, sailed " + Bosun.ruleChip("MB9") : e.why === "game end" ? "scored at the end " + Bosun.ruleChip("MB10") : "sailed from the first dock " + Bosun.ruleChip("MB10");
        return "dock " + e.dock + " " + why + (scores ? ": " + scores : "");
      }
      case "order":
        return e.reshuffled ? "order tokens shuffled " + Bosun.ruleChip("MB11") : "last order token to the front " + Bosun.ruleChip("MB11");
      default:
        return esc(e.kind);
    }
  }

  function phaseHtml(snapshot) {
    const s = snapshot.state;
    if (!s) return "<h2>No game</h2>";
    const players = Object.keys(s.players);
    let body = "";
    if (s.phase === "hire") {
      const waiting = players.filter((p) => !(p in s.hires));
      const said = players.filter((p) => p in s.hires).map((p) => who(snapshot, p) + ": " + (s.hires[p] ? "wants him (" + esc(s.hires[p]) + ")" : "passes"));
      body = '<p class="phase-title">Lazy Jack?</p><p class="phase-sub">' + (waiting.length ? "waiting for " + waiting.map((p) => who(snapshot, p)).join(", ") : "") +
        "</p>" + (said.length ? '<p class="muted small">' + said.join(" · ") + " " + Bosun.ruleChip("MB5") + "</p>" : "");
    } else if (s.phase === "cards") {
      const waiting = players.filter((p) => s.chosen.indexOf(p) < 0);
      body = '<p class="phase-title">Choose your cards</p><p class="phase-sub">' +
        (waiting.length ? "waiting for " + waiting.map((p) => who(snapshot, p)).join(", ") : "all chosen") + "</p>" +
        (s.jack ? '<p class="muted small">' + who(snapshot, s.jack.player) + " hired Lazy Jack with the " + esc(s.jack.worker) + " worker " + Bosun.ruleChip("MB5") + "</p>" : "");
    } else if (s.phase === "resolve" && s.pending) {
      const p = s.pending;
      const verb = p.action === "load" ? "loads" : "takes off";
      body = '<p class="phase-title turn" style="--c:' + esc(colourOf(snapshot, p.player)) + '">' + esc(p.player) + " " + verb + " " + plural(p.count, "barrel") + "</p>" +
        '<p class="phase-sub">from <strong class="zone-call">' + esc(p.room) + "</strong> · " + (p.action === "load" ? "onto any ships at the docks" : "off their ships") + ' ' + Bosun.ruleChip("MB15") + '</p>';
    } else if (s.phase === "over") {
      body = '<p class="phase-title">' + (s.winners.length ? s.winners.map((p) => who(snapshot, p)).join(" and ") + (s.winners.length > 1 ? " win" : " wins") : "Game over") + "</p>" +
        '<p class="phase-sub">' + (snapshot.virtual ? "a new game starts in a moment" : "start a new game when you are ready") + "</p>";
    }
    const events = (s.events || []).filter((e) => e.kind !== "reveal").slice(-7);
    const recent = events.length ? '<ol class="events">' + events.map((e) => '<li data-event="' + esc(e.kind) + '">' + eventText(snapshot, e) + "</li>").join("") + "</ol>" : "";
    return '<div class="phase-head"><span>Round ' + s.round + '</span><span class="muted">Montego Bay</span></div>' + body + recent;
  }

  function cardChips(cards) {
    const out = [];
    for (const k of ["big", "little", "jack"]) {
      if (cards[k] !== undefined && cards[k] !== null) out.push('<span class="card-chip mb" data-kind="' + k + '" title="' + k + '"><small>' + (k === "jack" ? "J" : KIND_LETTER[k]) + "</small>" + cards[k] + "</span>");
    }
    return out.join("");
  }

  function playersHtml(snapshot) {
    const s = snapshot.state;
    if (!s) return "";
    const humans = snapshot.humans || [];
    const pendingPlayer = s.pending ? s.pending.player : null;
    const rows = Object.keys(s.players).map((p) => {
      const info = s.players[p];
      let cards;
      if (s.cards && s.cards[p]) cards = cardChips(s.cards[p]);
      else if (s.chosen.indexOf(p) >= 0) cards = '<span class="card-chip hidden-card" title="chosen, secret until all are in">✓</span>';
      else if (s.phase === "cards") cards = '<span class="card-chip empty" title="not chosen yet">…</span>';
      else cards = "";
      const tags = [];
      if (s.jack && s.jack.player === p) tags.push('<span class="tag jack">Lazy Jack</span>');
      else if (s.phase === "hire" && s.hires[p]) tags.push('<span class="tag">wants Jack</span>');
      if (snapshot.virtual) tags.push(humans.indexOf(p) >= 0 ? '<span class="tag human">person</span>' : '<span class="tag bot">bot</span>');
      return '<li class="player' + (pendingPlayer === p ? " active" : "") + '" data-player="' + esc(p) + '" style="--c:' + esc(colourOf(snapshot, p)) + '">' +
        '<div class="player-line"><span class="dot"></span><span class="name">' + esc(p) + "</span>" + tags.join("") + '<span class="mb-cards">' + cards + "</span></div>" +
        '<div class="player-line small stats"><span class="stat" data-points="' + info.points + '"><strong>' + info.points + "</strong> points</span>" +
        '<span class="stat" data-silver="' + info.silver + '"><svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true"><use href="#i-silver"/></svg> ' + info.silver + " silver</span>" +
        '<span class="stat" data-barrels="' + info.barrels + '"><svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true"><use href="#i-barrel"/></svg> ' + info.barrels + " in supply</span></div></li>";
    });
    return "<h2>Players</h2><ol class=\"player-list\">" + rows.join("") + "</ol>";
  }

  // One action of the game log in people's words (a finished game's steps, game-replay.js).
  function actionText(snapshot, a) {
    const docks = (o) => Object.keys(o || {}).map((d) => plural(o[d], "barrel") + " on dock " + esc(d)).join(", ");
    switch (a.type) {
      case "hire":
        return who(snapshot, a.player) + (a.worker ? " hires Lazy Jack with the " + esc(a.worker) + " worker " : " passes on Lazy Jack ") + Bosun.ruleChip("MB5");
      case "cards":
        return who(snapshot, a.player) + "'s cards are the last in: they are revealed and the workers move " + Bosun.ruleChip("MB6");
      case "load":
        return who(snapshot, a.player) + " puts " + docks(a.ships);
      case "unload":
        return who(snapshot, a.player) + " takes " + docks(a.ships).replace(/ on dock /g, " off dock ");
      default:
        return who(snapshot, a.player || "") + " " + esc(a.type);
    }
  }

  Bosun.boards["montego-bay"] = {
    actionText: actionText,
    draw: draw,
    phase: phaseHtml,
    players: playersHtml,
    eventText: eventText,
    placesText: placesText,
    pointsMeaning: pointsMeaning,
    cardChips: cardChips,
    colourOf: colourOf,
  };
})();
