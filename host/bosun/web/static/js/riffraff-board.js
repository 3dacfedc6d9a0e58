// Riff Raff's ship as SVG (RR1): hull quarters 1-4, yards 5-6 (lowest), 7-8, 9-10 (top).
// Seen from astern: port (odd yard zones, hull 1 and 3) on the left, starboard on the right;
// on the hull deck the fore quarters (1, 2) lie beyond the aft ones (3, 4).
"use strict";

(function () {
  const esc = Bosun.esc;
  const W = 420;
  const H = 470;
  // x, y, width, height of each zone's platform; where it is on the ship
  const ZONES = {
    9: { x: 108, y: 40, w: 94, h: 54, where: "top yard · port" },
    10: { x: 218, y: 40, w: 94, h: 54, where: "top yard · starboard" },
    7: { x: 72, y: 116, w: 130, h: 54, where: "middle yard · port" },
    8: { x: 218, y: 116, w: 130, h: 54, where: "middle yard · starboard" },
    5: { x: 38, y: 192, w: 164, h: 54, where: "lowest yard · port" },
    6: { x: 218, y: 192, w: 164, h: 54, where: "lowest yard · starboard" },
    1: { x: 92, y: 290, w: 112, h: 50, where: "hull · fore-port" },
    2: { x: 216, y: 290, w: 112, h: 50, where: "hull · fore-starboard" },
    3: { x: 66, y: 346, w: 138, h: 54, where: "hull · aft-port" },
    4: { x: 216, y: 346, w: 138, h: 54, where: "hull · aft-starboard" },
  };
  const YARDS = [
    { y: 94, x1: 100, x2: 320 },
    { y: 170, x1: 64, x2: 356 },
    { y: 246, x1: 30, x2: 390 },
  ];

  function grams(weights, zone) {
    if (!weights) return null;
    const list = weights.settled_g || weights.zones_g;
    if (!list || list.length < zone) return null;
    return list[zone - 1];
  }

  function piecesSvg(items, box) {
    const size = 19;
    const gap = 3;
    const perRow = Math.max(1, Math.floor((box.w - 10) / (size + gap)));
    return items
      .map((item, i) => {
        const col = i % perRow;
        const row = Math.floor(i / perRow);
        const x = box.x + 6 + col * (size + gap);
        const y = box.y + box.h - 6 - size - row * (size + 1);
        return '<use href="#i-' + esc(item) + '" x="' + x + '" y="' + y + '" width="' + size + '" height="' + size + '"><title>' + esc(item) + "</title></use>";
      })
      .join("");
  }

  // snapshot: the table's (or a seat's) snapshot; options.compact for phones, options.grams
  // for the operator (players see pieces, not grams)
  function ship(snapshot, options) {
    const opts = options || {};
    const state = snapshot.state || {};
    const referee = snapshot.referee || {};
    const colours = referee.colours || {};
    const weights = (snapshot.ship || {}).weights;
    const faults = (weights && weights.faults) || [];
    const target = state.phase === "turn" ? state.target_zone : null;
    const active = state.turn;
    const colour = active ? colours[active] || "#f4a261" : "#f4a261";
    const shipItems = state.ship || {};
    const parts = [];
    parts.push('<svg class="ship" viewBox="0 0 ' + W + " " + H + '" role="img" aria-label="the ship and its ten zones" style="--active:' + esc(colour) + '">');
    // sea
    parts.push('<path class="sea" d="M0 448 Q 35 438 70 448 T 140 448 T 210 448 T 280 448 T 350 448 T 420 448 V470 H0Z"/>');
    // hull body, seen from astern
    parts.push('<path class="hull" d="M40 280 H380 L352 420 Q210 452 68 420 Z"/>');
    parts.push('<path class="hull-rail" d="M40 280 H380"/>');
    // mast and yards
    parts.push('<rect class="mast" x="203" y="16" width="14" height="270" rx="3"/>');
    parts.push('<path class="pennant" d="M217 18 L246 25 L217 32 Z" fill="' + esc(colour) + '"/>');
    for (const yard of YARDS) {
      parts.push('<rect class="yard" x="' + yard.x1 + '" y="' + yard.y + '" width="' + (yard.x2 - yard.x1) + '" height="7" rx="3"/>');
    }
    // ball joint under the hull (the ship sways on it)
    parts.push('<circle class="joint" cx="210" cy="436" r="9"/>');
    if (!opts.compact) {
      parts.push('<text class="side-label" x="16" y="462">port</text><text class="side-label" x="404" y="462" text-anchor="end">starboard</text>');
      parts.push('<text class="side-label" x="370" y="320" text-anchor="end">fore</text><text class="side-label" x="344" y="416" text-anchor="end">aft</text>');
    }
    for (let zone = 1; zone <= 10; zone++) {
      const box = ZONES[zone];
      const items = shipItems[String(zone)] || [];
      const g = grams(weights, zone);
      const classes = ["zone"];
      if (zone === target) classes.push("target");
      if (faults.indexOf(zone) >= 0) classes.push("fault");
      if (zone >= 5) classes.push("yard-zone");
      parts.push(
        '<g class="' + classes.join(" ") + '" data-zone="' + zone + '" data-items="' + esc(items.join(",")) + '"><title>zone ' + zone + " — " + esc(box.where) + "</title>"
      );
      parts.push('<rect class="zone-box" x="' + box.x + '" y="' + box.y + '" width="' + box.w + '" height="' + box.h + '" rx="9"/>');
      if (faults.indexOf(zone) >= 0) {
        parts.push('<rect x="' + box.x + '" y="' + box.y + '" width="' + box.w + '" height="' + box.h + '" rx="9" fill="url(#fault-hatch)"/>');
      }
      parts.push('<circle class="zone-badge" cx="' + (box.x + 14) + '" cy="' + (box.y + 14) + '" r="11.5"/>');
      // two digits are set narrower, so "10" stays inside its circle
      parts.push('<text class="zone-no' + (zone >= 10 ? " two-digits" : "") + '" x="' + (box.x + 14) + '" y="' + (box.y + 18.5) + '" text-anchor="middle">' + zone + "</text>");
      if (opts.grams && g !== null && g !== undefined) {
        parts.push('<text class="zone-g" x="' + (box.x + box.w - 8) + '" y="' + (box.y + 18) + '" text-anchor="end">' + Math.max(0, g).toFixed(1) + " g</text>");
      }
      parts.push(piecesSvg(items, box));
      parts.push("</g>");
    }
    if (target && active && ZONES[target]) {
      const box = ZONES[target];
      const labelY = box.y - 6;
      parts.push('<text class="target-label" x="' + (box.x + box.w / 2) + '" y="' + labelY + '" text-anchor="middle">' + esc(active) + "</text>");
    }
    // the table mat
    const tableG = weights && weights.table_g;
    if (opts.grams && tableG !== null && tableG !== undefined && !opts.compact) {
      parts.push('<text class="mat-g" x="210" y="466" text-anchor="middle">table mat ' + Math.max(0, tableG).toFixed(1) + " g</text>");
    }
    parts.push("</svg>");
    return parts.join("");
  }

  // The table view's phase: round, whose turn and where, the captain's decision, winners.
  function phaseHtml(snapshot) {
    const s = snapshot.state;
    if (!s) return "<h2>No game</h2>";
    const colours = (snapshot.referee || {}).colours || {};
    const who = (p) => '<span class="who" style="--c:' + esc(colours[p] || "#ccc") + '">' + esc(p) + "</span>";
    const roundText = s.cycle === 2 ? "Round " + s.round + " of 20 (second pass)" : "Round " + s.round + (Object.keys(s.players).length === 2 ? " of 20" : " of 10");
    const settle = (s.settle_s ? "three-second rule" : "settles immediately") + (s.own_catch === "box" ? " · every catch boxed" : "");
    let body = "";
    if (s.phase === "choose") {
      const waiting = Object.keys(s.players).filter((p) => !s.players[p].chosen);
      body = '<p class="phase-title">Choose your cards</p><p class="phase-sub">' +
        (waiting.length ? "waiting for " + waiting.map(who).join(", ") : "all chosen") + "</p>";
    } else if (s.phase === "decide") {
      const what = s.pending.decision === "captain" ? "who becomes captain " + Bosun.ruleChip("RR5") : "who goes next " + Bosun.ruleChip("RR6");
      body = '<p class="phase-title">' + who(s.pending.by) + " decides</p><p class=\"phase-sub\">" + what + " among " + s.pending.among.map(who).join(", ") + "</p>";
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

  // The table view's players: colour, captain, person or bot, card, supply, played cards.
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
        // RR7: only the most recent round's card lies face up; earlier ones are memory
        '<div class="played muted" title="only the last round\'s cards stay face up (RR7)">last card: ' + (info.played.length ? info.played.join(" · ") : "—") + "</div></li>";
    });
    const boxed = s.boxed ? '<p class="muted">' + Bosun.plural(s.boxed, "piece") + " in the box " + Bosun.ruleChip("RR12") + "</p>" : "";
    return "<h2>Players</h2><ol class=\"player-list\">" + rows.join("") + "</ol>" + boxed;
  }

  // every board module: draw(snapshot, {compact}), phase(snapshot), players(snapshot)
  Bosun.boards.riffraff = { draw: ship, ship: ship, phase: phaseHtml, players: playersHtml, zones: ZONES };
})();
