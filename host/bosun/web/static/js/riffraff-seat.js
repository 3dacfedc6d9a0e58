// A player's page (phone first): their secret card, their decisions, their hands at a virtual
// table. The token in the address is the seat (seat.js keeps it through reloads and reconnects).
"use strict";

(function () {
  const root = document.getElementById("seat");
  const me = root.dataset.player;
  const scale = parseFloat(root.dataset.scale || "1") || 1;
  const esc = Bosun.esc;
  const el = (id) => document.getElementById(id);
  const board = Bosun.boards.riffraff;
  let snap = null;
  let placing = null; // a piece set down and not yet refereed: no second tap meanwhile

  const page = Bosun.seat(root, (snapshot) => show(snapshot), (d) => act(d), (id) => startCorrection(id)); // seat.js
  const base = page.base;
  const send = page.send;
  const showError = page.showError;

  const colourOf = (p) => ((snap && snap.referee && snap.referee.colours) || {})[p] || "#ccc";
  const who = (p) => (p === me ? '<span class="who" style="--c:' + esc(colourOf(p)) + '">you</span>' : '<span class="who" style="--c:' + esc(colourOf(p)) + '">' + esc(p) + "</span>");
  const isHuman = page.isHuman;

  function statusHtml(s) {
    const st = s.state;
    if (!st) return "<p>No game at this table right now.</p>";
    const round = '<p class="round muted">Round ' + st.round + (st.cycle === 2 ? " (second pass)" : "") + " · captain " + who(st.captain) + "</p>";
    let line = "";
    if (st.phase === "choose") {
      const waiting = Object.keys(st.players).filter((p) => !st.players[p].chosen && p !== me);
      if (st.my_card === null || st.my_card === undefined) line = "<p class=\"big-line\">Choose a card</p>";
      else line = '<p class="big-line">Your card: <span class="my-card" data-my-card="' + st.my_card + '">' + st.my_card + "</span></p>" +
        '<p class="muted">Secret until everyone has chosen' + (waiting.length ? " — waiting for " + waiting.map(who).join(", ") : "") + ".</p>";
    } else if (st.phase === "decide") {
      const what = st.pending.decision === "captain" ? "who becomes captain" : "who goes next";
      line = st.pending.by === me
        ? '<p class="big-line">You decide ' + what + "</p>"
        : '<p class="big-line">' + who(st.pending.by) + " decides " + what + "</p>";
    } else if (st.phase === "turn") {
      if (st.turn === me && (s.legal || []).some((a) => a.type === "announce" && a.pieces === 2)) {
        // RR9: one or two is said before loading
        line = '<p class="big-line my-turn">Your turn on <span class="zone-call">zone ' + st.target_zone + "</span></p>" +
          '<p class="muted">First say how many pieces you load: one or two.</p>';
      } else if (st.turn === me) {
        const n = st.pieces_announced === 2 ? "two pieces" : "one piece";
        const left = (st.pieces_announced || 1) - (st.pieces_loaded || 0);
        line = '<p class="big-line my-turn">Your turn: ' + (left > 0 ? "load " + n + " on" : "wait on") + ' <span class="zone-call">zone ' + st.target_zone + "</span></p>" +
          (left > 0 ? (s.virtual ? '<p class="muted">Pick a piece below.</p>' : '<p class="muted">Put it on the zone that is lit; the referee sees it land.</p>') : '<p class="muted">Let it settle …</p>');
      } else {
        line = '<p class="big-line">' + who(st.turn) + "'s turn · zone " + st.target_zone + "</p>";
      }
    } else if (st.phase === "over") {
      const won = st.winners.indexOf(me) >= 0;
      line = '<p class="big-line">' + (won ? "You won!" : st.winners.map(who).join(" and ") + (st.winners.length > 1 ? " win" : " wins")) + "</p>" +
        '<p class="muted">' + (s.virtual ? "The next game starts in a moment; this page follows you there." : "Ask for a new seat link to play again.") + "</p>";
    }
    return round + line;
  }

  function actionsHtml(s) {
    const st = s.state;
    if (!st || !isHuman(s)) return "";
    const legal = s.legal || [];
    const out = [];
    if (st.phase === "choose") {
      const values = legal.filter((a) => a.type === "card").map((a) => a.value);
      if (values.length) {
        const played = st.players[me].played;
        let cards = "";
        for (let v = 1; v <= 10; v++) {
          const used = played.indexOf(v) >= 0;
          cards += '<button class="card-button" type="button" data-do="card" data-value="' + v + '"' + (values.indexOf(v) < 0 ? " disabled" : "") + (used ? ' data-used="yes"' : "") + ">" +
            (used ? "<s>" + v + '</s><span class="used-word">played</span>' : v) + "</button>";
        }
        out.push('<div class="panel"><h2>Your cards</h2><p class="help-line">Your card is the zone you load onto this round ' + Bosun.ruleChip("RR8") +
          "; the highest card makes you captain " + Bosun.ruleChip("RR5") + ". Each card once a cycle " + Bosun.ruleChip("RR7") + '.</p><div class="card-grid">' + cards + "</div></div>");
      }
    }
    const decisions = legal.filter((a) => a.type === "captain" || a.type === "next");
    if (decisions.length) {
      const what = decisions[0].type === "captain" ? "The new captain is" : "Next to go is";
      out.push('<div class="panel"><h2>' + what + '</h2><div class="choice-row">' +
        decisions.map((a) => '<button class="button big" type="button" data-do="' + a.type + '" data-player="' + esc(a.player) + '" style="--c:' + esc(colourOf(a.player)) + '">' + esc(a.player === me ? me + " (you)" : a.player) + "</button>").join("") +
        "</div></div>");
    }
    const announce = legal.filter((a) => a.type === "announce");
    if (announce.some((a) => a.pieces === 2)) {
      out.push('<div class="panel"><h2>How many pieces? ' + Bosun.ruleChip("RR9") + '</h2><p class="help-line">Zone ' + st.target_zone +
        " already holds cargo, so you may load two pieces there, one after the other. Say it before you load: it cannot be changed, and if the first falls the second is not loaded.</p><div class=\"choice-row\">" +
        '<button class="button big secondary" type="button" data-do="announce" data-pieces="1">One piece</button>' +
        '<button class="button big" type="button" data-do="announce" data-pieces="2">Two pieces</button></div></div>');
    }
    return out.join("");
  }

  // below the game, beside the undo: what the ship did not feel, a fall or a load (riffraff_report)
  function reportHtml(s) {
    const st = s.state;
    if (!st || !isHuman(s) || st.phase === "over" || correcting || !(aboardCount(st) || loadingNow(st))) return "";
    return '<button class="link-button" type="button" data-do="report-start">The ship missed a piece falling, or one loaded? Report it</button> ' + Bosun.ruleChip("RR10");
  }

  const aboardCount = (st) => Object.values(st.ship || {}).reduce((n, items) => n + items.length, 0);
  // the open turn's player still has a piece to load: it may have toppled off unseen
  const loadingNow = (st) => st.phase === "turn" && (st.pieces_loaded || 0) < (st.pieces_announced || 1);

  function handsHtml(s) {
    const st = s.state;
    if (!s.virtual || !isHuman(s) || !st || st.phase !== "turn" || st.turn !== me) return "";
    const mine = st.players[me];
    const left = (st.pieces_announced || 1) - (st.pieces_loaded || 0);
    if (placing && (placing.loaded !== st.pieces_loaded || performance.now() - placing.at > 8000)) placing = null;
    if (placing) {
      return '<h2>Your hands <span class="muted">(virtual ship)</span></h2><p class="placing">Setting the ' + esc(placing.item) +
        " down on zone " + st.target_zone + " … the referee watches it come to rest.</p>";
    }
    const aboard = Object.values(st.ship || {}).some((items) => items.length);
    let html = '<h2>Your hands <span class="muted">(virtual ship)</span></h2>';
    if (left > 0) {
      html += '<p class="muted">Load onto zone ' + st.target_zone + ":</p><div class=\"item-grid\">" +
        Bosun.ITEMS.filter((i) => mine.items[i] > 0)
          .map((i) => '<button class="item-button" type="button" data-do="place" data-item="' + i + '">' + Bosun.itemIcon(i, 30) + '<span class="item-name">' + i + "</span>" + (mine.items[i] > 1 ? '<span class="count">×' + mine.items[i] + "</span>" : "") + "</button>")
          .join("") + "</div>";
    }
    if (aboard) {
      html += '<p class="muted">Oops — the newest piece falls off the ship:</p><div class="choice-row">' +
        '<button class="button secondary" type="button" data-do="tip" data-outcome="landed">It lands on the table</button>' +
        '<button class="button secondary" type="button" data-do="tip" data-outcome="caught">I catch it</button>' +
        '<button class="button secondary" type="button" data-do="tip" data-outcome="bounced">It bounces off</button></div>';
    }
    return html;
  }

  function mineHtml(s) {
    const st = s.state;
    if (!st) return "";
    const info = st.players[me];
    const items = Bosun.ITEMS.filter((i) => info.items[i] > 0)
      .map((i) => '<span class="supply-item">' + Bosun.itemIcon(i, 24) + (info.items[i] > 1 ? "<sub>" + info.items[i] + "</sub>" : "") + "</span>")
      .join("");
    return '<h2>Your pieces <span class="supply-count" data-supply="' + info.supply + '">' + info.supply + "</span></h2>" +
      '<div class="supply-row">' + (items || '<span class="muted">none left</span>') + "</div>" +
      '<p class="muted" data-played="' + esc(info.played.join(",")) + '">Your cards played this cycle: ' + (info.played.length ? info.played.join(" · ") : "—") + "</p>";
  }

  // A flagged fall corrected piece by piece, with zones (RR13a): where each piece went, and
  // any other piece that left the ship too. Drawn from its own state so that a new snapshot
  // does not reset the choices being made.
  const FATES = [["table", "reached the table"], ["caught", "was caught"], ["aboard", "is still aboard"]];
  const TOPPLED_FATES = [["table", "reached the table"], ["caught", "was caught"], ["aboard", "did not fall"]];
  // {flag, rows: [{item, zone, fate, added | toppled}], aboard: {zone: [items]}}; a report has
  // no flag, and the kinds the open turn's player may be loading (toppled), its turn and zone
  let correcting = null;
  const correctBox = document.createElement("section");
  correctBox.id = "correct-fall";
  correctBox.className = "panel correct-fall";
  correctBox.hidden = true;
  el("alerts").after(correctBox);
  const reportEntry = document.createElement("section");
  reportEntry.id = "report-fall";
  reportEntry.className = "panel report-entry";
  reportEntry.hidden = true;
  root.querySelector("details.undo").before(reportEntry);
  correctBox.addEventListener("change", (event) => {
    const row = event.target.dataset.row;
    if (correcting && row !== undefined) correcting.rows[Number(row)].fate = event.target.value;
  });

  // What no sensor felt, reported by people (riffraff_report): a fall on the same list, started
  // empty, where the open turn's piece being loaded can be named too (it toppled off before it
  // rested); or that piece loaded, when it rests and the ship never counted it.
  function startReport() {
    const st = snap && snap.state;
    if (!st) return;
    const toppled = loadingNow(st) ? Bosun.ITEMS.filter((i) => st.players[st.turn].items[i] > 0) : [];
    correcting = { flag: null, rows: [], aboard: st.ship || {}, toppled: toppled, turn: st.turn, zone: st.target_zone };
    drawCorrection();
  }

  function startCorrection(flagId) {
    const flag = ((snap && snap.referee && snap.referee.flags) || []).find((f) => f.id === flagId);
    if (!flag || !flag.detail) return;
    const rows = flag.detail.fallen.map((p) => ({ item: p.item, zone: p.zone, fate: "table" }))
      .concat(flag.detail.caught.map((p) => ({ item: p.item, zone: p.zone, fate: "caught" })));
    correcting = { flag: flagId, rows: rows, aboard: flag.detail.aboard || {} };
    drawCorrection();
  }

  function stillAboard() {
    const left = [];
    for (const zone of Object.keys(correcting.aboard)) {
      const counts = {};
      for (const item of correcting.aboard[zone]) counts[item] = (counts[item] || 0) + 1;
      for (const r of correcting.rows) if (r.added && String(r.zone) === zone) counts[r.item] -= 1;
      for (const item of Object.keys(counts)) if (counts[item] > 0) left.push({ zone: Number(zone), item: item });
    }
    return left;
  }

  function drawCorrection() {
    correctBox.hidden = !correcting;
    if (!correcting) return Bosun.render(correctBox, "");
    const rows = correcting.rows.map((r, i) =>
      '<li class="correct-row" data-item="' + esc(r.item) + '" data-zone="' + r.zone + '"><span>' + Bosun.itemIcon(r.item, 20) + " " + esc(r.item) + (r.toppled ? " being loaded on zone " : " from zone ") + r.zone + "</span> " +
      '<select data-row="' + i + '" aria-label="where the ' + esc(r.item) + " from zone " + r.zone + ' went">' +
      (r.toppled ? TOPPLED_FATES : FATES).map((f) => '<option value="' + f[0] + '"' + (r.fate === f[0] ? " selected" : "") + ">" + f[1] + "</option>").join("") + "</select></li>").join("");
    const more = stillAboard();
    const toppled = correcting.rows.some((r) => r.toppled) ? [] : correcting.toppled || [];
    const options = more.map((p) => '<option value="' + p.zone + ":" + esc(p.item) + '">' + esc(p.item) + " from zone " + p.zone + "</option>")
      .concat(toppled.map((i) => '<option value="toppled:' + esc(i) + '">' + esc(correcting.turn === me ? "your " : correcting.turn + "'s ") + esc(i) + ", toppled off zone " + correcting.zone + " as it was let go</option>"));
    const add = options.length
      ? '<p><label>' + (correcting.flag ? "Another piece left the ship" : "A piece left the ship") + ': <select id="correct-more">' + options.join("") +
        '</select></label> <button class="button secondary" type="button" data-do="correct-add">Add it</button></p>'
      : "";
    const whose = correcting.turn === me ? "Your" : esc(correcting.turn) + "'s";
    const loaded = !correcting.flag && correcting.toppled.length && !correcting.rows.length
      ? '<p><label>' + whose + ' piece rests on zone ' + correcting.zone + ', not counted ' + Bosun.ruleChip("RR8") + ': <select id="report-load-item">' +
        correcting.toppled.map((i) => '<option value="' + esc(i) + '">' + esc(i) + "</option>").join("") +
        '</select></label> <button class="button secondary" type="button" data-do="report-load">Report the load</button></p><h3>Or what fell</h3>'
      : "";
    const title = correcting.flag
      ? '<h2>What really fell? ' + Bosun.ruleChip("RR13a") + '</h2><p class="muted">Each piece by the zone it left. Everyone sees the correction.</p>'
      : '<h2>What did the ship miss? ' + Bosun.ruleChip("RR10") + '</h2><p class="muted">The referee decides it as if the ship had felt it; everyone sees it. A fall: each piece by the zone it left (whose it is, RR14; the turn ends, RR11).</p>' + loaded;
    Bosun.render(correctBox, title +
      '<ol class="correct-list">' + (rows || '<li class="muted">no piece</li>') + "</ol>" + add +
      '<div class="choice-row"><button class="button" type="button" data-do="correct-send">' + (correcting.flag ? "Send the correction" : "Report it") + "</button>" +
      '<button class="button secondary" type="button" data-do="correct-cancel">Cancel</button></div>');
  }

  function sendCorrection() {
    const named = (fate) => correcting.rows.filter((r) => r.fate === fate && !r.toppled).map((r) => ({ item: r.item, zone: r.zone }));
    let body = { type: "confirm", flag: correcting.flag, option: "correct", fallen: named("table"), caught: named("caught") };
    if (!correcting.flag) {
      body = { type: "report_fall", fallen: body.fallen, caught: body.caught };
      const toppled = correcting.rows.find((r) => r.toppled && r.fate !== "aboard");
      if (toppled) body.toppled = { item: toppled.item, fate: toppled.fate === "caught" ? "caught" : "fallen" };
    }
    send(base, body).then((ok) => {
      if (ok) {
        correcting = null;
        drawCorrection();
      }
    });
  }

  function roundCardsHtml(s) {
    const st = s.state;
    if (!st) return "";
    const chips = Object.keys(st.players).map((p) => {
      const info = st.players[p];
      let value;
      if (info.card !== null && info.card !== undefined) value = '<span class="card-chip">' + info.card + "</span>";
      else if (p === me && st.my_card !== null && st.my_card !== undefined) value = '<span class="card-chip mine" title="only you see it">' + st.my_card + "</span>";
      else if (info.chosen) value = '<span class="card-chip hidden-card">✓</span>';
      else value = '<span class="card-chip empty">…</span>';
      return '<li data-player="' + esc(p) + '" style="--c:' + esc(colourOf(p)) + '"><span class="dot"></span>' + esc(p === me ? "you" : p) + value + "</li>";
    });
    return "<h2>Cards this round</h2><ul class=\"round-cards\">" + chips.join("") + "</ul>";
  }

  // the decision that is mine now, named so that a new one alerts once (turn-alerts.js)
  function myDecision(s) {
    const st = s.state;
    if (!st || !isHuman(s)) return null;
    const when = st.cycle + ":" + st.round;
    if (st.phase === "choose" && (st.my_card === null || st.my_card === undefined)) return "card:" + when;
    if (st.phase === "decide" && st.pending.by === me) return st.pending.decision + ":" + when;
    if (st.phase === "turn" && st.turn === me) return "turn:" + when;
    return null;
  }

  const turn = Bosun.turnAlerts();
  const countdown = Bosun.countdown(el("countdown"), scale);
  function show(s) {
    snap = s;
    window.bosunLast = s;
    const over = !s.state || s.state.phase === "over";
    if (correcting && (correcting.flag ? !((s.referee && s.referee.flags) || []).some((f) => f.id === correcting.flag) : over)) {
      correcting = null; // answered from another page, or undone
      drawCorrection();
    }
    page.showSeat(s);
    Bosun.render(el("status"), statusHtml(s));
    countdown.set(s);
    Bosun.render(el("actions"), actionsHtml(s));
    const report = reportHtml(s);
    reportEntry.hidden = !report;
    Bosun.render(reportEntry, report);
    const hands = handsHtml(s);
    el("hands").hidden = !hands;
    Bosun.render(el("hands"), hands);
    Bosun.render(el("mine"), mineHtml(s));
    Bosun.render(el("mini-board"), board.ship(s, { compact: true }));
    turn.update(myDecision(s), !!s.state && s.state.phase !== "over" && isHuman(s));
    Bosun.render(el("round-cards"), roundCardsHtml(s));
    Bosun.render(el("feed"), Bosun.feedHtml(s.feed, 6));
    document.body.dataset.phase = s.state ? s.state.phase : "none";
    document.body.dataset.myTurn = s.state && s.state.turn === me ? "yes" : "no";
  }

  // the game's buttons (seat.js handles flags and taking the seat)
  function act(d) {
    switch (d.do) {
      case "card":
        send(base, { type: "card", value: parseInt(d.value, 10) });
        break;
      case "captain":
      case "next":
        send(base, { type: d.do, player: d.player });
        break;
      case "announce":
        send(base, { type: "announce", pieces: parseInt(d.pieces, 10) });
        break;
      case "place": {
        const placed = { item: d.item, loaded: snap.state.pieces_loaded, at: performance.now() };
        send(base + "/virtual", { do: "place", item: d.item, zone: snap.state.target_zone }).then((ok) => {
          if (ok) {
            placing = placed;
            if (snap) show(snap);
          }
        });
        break;
      }
      case "tip":
        send(base + "/virtual", { do: "tip", outcome: d.outcome });
        break;
      case "correct-add": {
        const [zone, item] = el("correct-more").value.split(":");
        if (zone === "toppled") correcting.rows.push({ item: item, zone: correcting.zone, fate: "table", toppled: true });
        else correcting.rows.push({ item: item, zone: Number(zone), fate: "table", added: true });
        drawCorrection();
        break;
      }
      case "report-load":
        send(base, { type: "report_load", item: el("report-load-item").value }).then((ok) => {
          if (ok) {
            correcting = null;
            drawCorrection();
          }
        });
        break;
      case "report-start":
        startReport();
        if (snap) show(snap);
        break;
      case "correct-send":
        sendCorrection();
        break;
      case "correct-cancel":
        correcting = null;
        drawCorrection();
        if (snap) show(snap);
        break;
    }
  }
  page.start();
})();
