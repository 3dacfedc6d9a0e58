// A Montego Bay player's page (phone first): declare for Lazy Jack or pass (MB5), choose the
// Big and Little cards (and Lazy Jack's) secretly until all are in (MB6, MB13), answer the
// harbour's question with the exact count of barrels (MB15), confirm flags, undo. At a
// virtual harbour the page's hands put barrels on the docks or take them off. The token in
// the address is the seat (seat.js keeps it through reloads and reconnects).
"use strict";

(function () {
  const root = document.getElementById("seat");
  const me = root.dataset.player;
  const esc = Bosun.esc;
  const el = (id) => document.getElementById(id);
  const board = Bosun.boards["montego-bay"];
  const KINDS = ["big", "little"];
  const LABEL = { big: "Big worker", little: "Little worker", jack: "Lazy Jack" };
  let snap = null;
  let cardDraft = { round: null, big: null, little: null, jack: null };
  let shipDraft = { key: null, ships: {} };

  const page = Bosun.seat(root, (snapshot) => show(snapshot), (d) => act(d)); // seat.js
  const base = page.base;
  const send = page.send;
  const showError = page.showError;

  const colourOf = (p) => board.colourOf(snap || {}, p);
  const who = (p) => '<span class="who" style="--c:' + esc(colourOf(p)) + '">' + esc(p === me ? "you" : p) + "</span>";
  const isHuman = page.isHuman;
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");
  const questionKey = (st) => (st && st.pending ? [st.round, st.pending.room, st.pending.action, st.pending.player].join("|") : null);

  // -- what is going on ------------------------------------------------------------------

  function statusHtml(s) {
    const st = s.state;
    if (!st) return "<p>No game at this table right now.</p>";
    const players = Object.keys(st.players);
    const round = '<p class="round muted">Round ' + st.round + " · Montego Bay</p>";
    let line = "";
    if (st.phase === "hire") {
      const waiting = players.filter((p) => !(p in st.hires) && p !== me);
      if (!(me in st.hires)) line = '<p class="big-line">Hire Lazy Jack?</p><p class="muted">3 silver; he moves first and works for you this round ' + Bosun.ruleChip("MB5") + '.</p>';
      else line = '<p class="big-line">' + (st.hires[me] ? "You want Lazy Jack" : "You pass") + "</p>" +
        (waiting.length ? '<p class="muted">Waiting for ' + waiting.map(who).join(", ") + ".</p>" : "");
    } else if (st.phase === "cards") {
      const mine = st.my_cards || {};
      const waiting = players.filter((p) => st.chosen.indexOf(p) < 0 && p !== me);
      if (st.chosen.indexOf(me) < 0) line = '<p class="big-line">Choose your cards</p><p class="muted">One for each worker' + (st.jack && st.jack.player === me ? ", and one for Lazy Jack" : "") + ": nobody sees them until all are in " + Bosun.ruleChip("MB6") + ".</p>";
      else line = '<p class="big-line">Your cards: <span class="my-cards" data-my-cards="' + esc(JSON.stringify(mine)) + '">' + board.cardChips(mine) + "</span></p>" +
        '<p class="muted">Secret until everyone has chosen' + (waiting.length ? " — waiting for " + waiting.map(who).join(", ") : "") + ".</p>";
    } else if (st.phase === "resolve" && st.pending) {
      const p = st.pending;
      const what = p.action === "load" ? "Load " + plural(p.count, "barrel") : "Take " + plural(p.count, "barrel") + " off";
      if (p.player === me) {
        line = '<p class="big-line my-turn">' + what + ' <span class="muted">from ' + esc(p.room) + "</span></p>" +
          '<p class="muted">' + (p.action === "load" ? "Put them on any ships at the docks (not the pilot boat)" : "Take them off your ships") +
          ": choose below, or just move the barrels — the harbour answers for you " + Bosun.ruleChip("MB15") + ".</p>";
      } else {
        line = '<p class="big-line">' + who(p.player) + (p.action === "load" ? " loads " : " takes off ") + plural(p.count, "barrel") + "</p>" +
          '<p class="muted">from ' + esc(p.room) + "</p>";
      }
    } else if (st.phase === "over") {
      const won = st.winners.indexOf(me) >= 0;
      line = '<p class="big-line">' + (won ? "You won!" : st.winners.map(who).join(" and ") + (st.winners.length > 1 ? " win" : " wins")) + "</p>" +
        '<p class="muted">' + (s.virtual ? "The next game starts in a moment; this page follows you there." : "Ask for a new seat link to play again.") + "</p>";
    }
    return round + line;
  }

  // -- what I can do ---------------------------------------------------------------------

  // MB12: the path runs N1..NW, then SW..S1; a pub is one step before its side's first stop
  function landing(st, from, steps) {
    const w = st.warehouses.length;
    const stops = [];
    for (let i = 1; i <= w; i++) stops.push("N" + i);
    for (let i = w; i >= 1; i--) stops.push("S" + i);
    let start;
    if (from === "west") start = -1;
    else if (from === "east") start = w - 1;
    else start = stops.indexOf(from);
    return stops[(((start + steps) % stops.length) + stops.length) % stops.length];
  }

  const where = (at) => (at === "west" || at === "east" ? "in the " + at + " pub" : "at " + at);

  function hireHtml(s, legal) {
    const silver = s.state.players[me].silver;
    const buttons = KINDS.map((k) => {
      const ok = legal.some((a) => a.worker === k);
      return '<button class="button big" type="button" data-do="hire" data-worker="' + k + '"' + (ok ? "" : " disabled") + ">Hire him with my " + k + " worker</button>";
    });
    const note = silver < 3 ? '<p class="muted">He costs 3 silver; you have ' + silver + ".</p>" : '<p class="muted">Only the player who gets him pays; with fewer points you come first ' + Bosun.ruleChip("MB5") + '.</p>';
    return '<div class="panel"><h2>Lazy Jack ' + Bosun.ruleChip("MB5") + '</h2>' + note +
      '<div class="choice-row">' + buttons.join("") + '<button class="button big secondary" type="button" data-do="hire" data-worker="">No, pass</button></div></div>';
  }

  function cardsHtml(s, legal) {
    const st = s.state;
    if (cardDraft.round !== st.round) cardDraft = { round: st.round, big: null, little: null, jack: null };
    const jack = legal.some((a) => a.jack !== undefined) ? st.jack : null;
    const rows = [...KINDS, ...(jack ? ["jack"] : [])].map((kind) => {
      let buttons = "";
      for (let v = 1; v <= 5; v++) {
        const chosen = cardDraft[kind] === v;
        // MB13: Lazy Jack's card differs from the card of the worker he came with
        const clash = kind === "jack" && cardDraft[jack.worker] === v;
        const from = kind === "jack" ? jack.at : st.workers[me + ":" + kind];
        buttons += '<button class="card-button small-card' + (chosen ? " chosen" : "") + '" type="button" data-do="pick" data-kind="' + kind + '" data-value="' + v + '"' +
          (clash ? ' disabled title="must differ from your ' + jack.worker + ' card (MB13)"' : "") + (chosen ? ' aria-pressed="true"' : ' aria-pressed="false"') + ">" + v +
          '<small class="lands" title="where it lands, if nobody is there">' + esc(landing(st, from, v)) + "</small></button>";
      }
      const at = kind === "jack" ? jack.at : st.workers[me + ":" + kind];
      const label = (kind === "jack" ? "Lazy Jack <span class=\"muted small\">(" + jack.worker + " hand, " : LABEL[kind] + ' <span class="muted small">(') + esc(where(at)) + ")</span>";
      return '<div class="card-row" data-kind="' + kind + '"><span class="card-row-label">' + label + '</span><div class="card-grid">' + buttons + "</div></div>";
    });
    const ready = legal.some((a) => a.big === cardDraft.big && a.little === cardDraft.little && (a.jack === undefined || a.jack === cardDraft.jack));
    return '<div class="panel"><h2>Your cards ' + Bosun.ruleChip("MB6") + '</h2><p class="help-line">A card moves its worker that many stops clockwise ' + Bosun.ruleChip("MB7") +
      "; the small label is the stop it lands on if nobody is in the way " + Bosun.ruleChip("MB12") + ".</p>" + rows.join("") +
      '<button class="button big wide" type="button" data-do="cards"' + (ready ? "" : " disabled") + ">Play these cards</button></div>";
  }

  function answerHtml(s, legal) {
    const st = s.state;
    const p = st.pending;
    const key = questionKey(st);
    if (shipDraft.key !== key) shipDraft = { key: key, ships: {} };
    const total = Object.values(shipDraft.ships).reduce((a, b) => a + b, 0);
    const rows = st.docks.map((dock, i) => {
      const n = i + 1;
      if (!dock || dock.pilot) return "";
      const aboard = Object.values(dock.cargo).reduce((a, b) => a + b, 0);
      const room = p.action === "load" ? dock.slots - aboard : dock.cargo[me] || 0;
      if (room <= 0) return "";
      const chosen = shipDraft.ships[n] || 0;
      const what = p.action === "load" ? plural(room, "free slot") : plural(room, "barrel") + " of yours";
      return '<div class="ship-row" data-dock="' + n + '"><span class="ship-row-label"><strong>Dock ' + n + "</strong> " + '<span class="muted small">' + what + '</span><span class="muted small" title="' + esc(board.pointsMeaning(dock.points)) + '">pays ' + board.placesText(dock.points) + "</span></span>" +
        '<span class="stepper"><button class="button small secondary" type="button" data-do="less" data-dock="' + n + '"' + (chosen > 0 ? "" : " disabled") + ' aria-label="one barrel fewer at dock ' + n + '">−</button>' +
        '<span class="step-count" data-count="' + chosen + '">' + chosen + "</span>" +
        '<button class="button small secondary" type="button" data-do="more" data-dock="' + n + '"' + (chosen < room && total < p.count ? "" : " disabled") + ' aria-label="one barrel more at dock ' + n + '">+</button></span></div>';
    });
    const answer = {};
    for (const d of Object.keys(shipDraft.ships)) if (shipDraft.ships[d]) answer[d] = shipDraft.ships[d];
    const ready = legal.some((a) => sameShips(a.ships, answer));
    const verb = p.action === "load" ? "Load" : "Take off";
    const why = p.action === "load"
      ? "A ship whose last slot you fill sails at once: 1 point for you, and its points go to the most barrels aboard, then the second most " + Bosun.ruleChip("MB9") + "."
      : "Broken barrels: take this many of your barrels off the ships you choose.";
    return '<div class="panel answer"><h2>' + verb + " " + plural(p.count, "barrel") + ' ' + Bosun.ruleChip("MB15") + '</h2><p class="help-line">' + why + "</p>" + rows.join("") +
      '<p class="muted small answer-total" data-total="' + total + '">' + total + " of " + p.count + " chosen · exactly " + p.count + " (the room, your supply and the free slots allow no other)</p>" +
      '<button class="button big wide" type="button" data-do="answer"' + (ready ? "" : " disabled") + ">" + verb + " these</button></div>";
  }

  function sameShips(a, b) {
    const ka = Object.keys(a).filter((k) => a[k]).sort();
    const kb = Object.keys(b).filter((k) => b[k]).sort();
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
  }

  function actionsHtml(s) {
    const st = s.state;
    if (!st || !isHuman(s)) return "";
    const legal = s.legal || [];
    if (!legal.length) return "";
    const kind = legal[0].type;
    if (kind === "hire") return hireHtml(s, legal);
    if (kind === "cards") return cardsHtml(s, legal);
    if (kind === "load" || kind === "unload") return answerHtml(s, legal);
    return "";
  }

  // At a virtual harbour the page is the player's hands on the docks.
  function handsHtml(s) {
    const st = s.state;
    if (!s.virtual || !isHuman(s) || !st || !st.pending || st.pending.player !== me) return "";
    const load = st.pending.action === "load";
    const rows = st.docks.map((dock, i) => {
      if (!dock || dock.pilot) return "";
      const n = i + 1;
      return '<div class="hand-row"><strong>Dock ' + n + "</strong>" +
        '<button class="button small secondary" type="button" data-do="hand" data-hand="put" data-dock="' + n + '" aria-label="put a barrel on dock ' + n + '">+ put one on</button>' +
        '<button class="button small secondary" type="button" data-do="hand" data-hand="take" data-dock="' + n + '" aria-label="take a barrel off dock ' + n + '">− take one off</button></div>';
    });
    return '<h2>Your hands <span class="muted">(virtual harbour)</span></h2><p class="muted small">' +
      (load ? "Put the barrels on the ships" : "Take your barrels off") + " and wait a moment: the harbour counts them and answers for you, or answer above and then move them.</p>" + rows.join("");
  }

  function mineHtml(s) {
    const st = s.state;
    if (!st) return "";
    const info = st.players[me];
    const jack = st.jack && st.jack.player === me ? '<p class="muted">Lazy Jack works for you this round (' + esc(st.jack.worker) + " hand, at " + esc(st.jack.at) + ").</p>" : "";
    return '<h2>You</h2><div class="player-line stats mine-stats">' +
      '<span class="stat" data-points="' + info.points + '"><strong>' + info.points + "</strong> points</span>" +
      '<span class="stat" data-silver="' + info.silver + '"><strong>' + info.silver + "</strong> silver</span>" +
      '<span class="stat" data-barrels="' + info.barrels + '"><strong>' + info.barrels + "</strong> barrels in supply</span></div>" +
      '<p class="muted">Your Big worker is ' + esc(where(st.workers[me + ":big"])) + ", your Little one " + esc(where(st.workers[me + ":little"])) + ".</p>" + jack;
  }

  function roundCardsHtml(s) {
    const st = s.state;
    if (!st) return "";
    if (st.phase === "hire") return '<h2>Cards this round</h2><p class="muted">Chosen once everyone has declared for Lazy Jack.</p>';
    const chips = Object.keys(st.players).map((p) => {
      let value;
      if (st.cards && st.cards[p]) value = board.cardChips(st.cards[p]);
      else if (p === me && st.my_cards && Object.keys(st.my_cards).length) value = '<span class="mine-cards" title="only you see them">' + board.cardChips(st.my_cards) + "</span>";
      else if (st.chosen.indexOf(p) >= 0) value = '<span class="card-chip hidden-card">✓</span>';
      else value = '<span class="card-chip empty">…</span>';
      return '<li data-player="' + esc(p) + '" style="--c:' + esc(colourOf(p)) + '"><span class="dot"></span>' + esc(p === me ? "you" : p) + value + "</li>";
    });
    return "<h2>Cards this round</h2><ul class=\"round-cards\">" + chips.join("") + "</ul>";
  }

  // the decision that is mine now, named so that a new one alerts once (turn-alerts.js)
  function myDecision(s) {
    const st = s.state;
    if (!st || !isHuman(s)) return null;
    if ((s.legal || []).length || (st.pending && st.pending.player === me)) return st.phase + ":" + st.round + ":" + (questionKey(st) || "");
    return null;
  }
  const turn = Bosun.turnAlerts();

  function show(s) {
    snap = s;
    window.bosunLast = s;
    page.showSeat(s);
    Bosun.render(el("status"), statusHtml(s));
    Bosun.render(el("actions"), actionsHtml(s));
    const hands = handsHtml(s);
    el("hands").hidden = !hands;
    Bosun.render(el("hands"), hands);
    Bosun.render(el("mine"), mineHtml(s));
    Bosun.render(el("mini-board"), board.draw(s, { compact: true }));
    turn.update(myDecision(s), !!s.state && s.state.phase !== "over" && isHuman(s));
    Bosun.render(el("round-cards"), roundCardsHtml(s));
    Bosun.render(el("feed"), Bosun.feedHtml(s.feed, 6));
    const undo = (s.state && s.state.phase) || "none";
    el("undo-what").textContent = undo === "over" ? "The game is over." : "Takes back the last decision the game accepted; everyone sees why.";
    document.body.dataset.phase = s.state ? s.state.phase : "none";
    document.body.dataset.myTurn = s.state && s.state.pending && s.state.pending.player === me ? "yes" : "no";
  }

  // the game's buttons (seat.js handles flags and taking the seat)
  function act(d) {
    switch (d.do) {
      case "hire":
        send(base, { type: "hire", worker: d.worker || null });
        break;
      case "pick":
        cardDraft[d.kind] = cardDraft[d.kind] === parseInt(d.value, 10) ? null : parseInt(d.value, 10);
        if (snap && snap.state.jack && cardDraft.jack !== null && cardDraft.jack === cardDraft[snap.state.jack.worker]) cardDraft.jack = null;
        show(snap);
        break;
      case "cards": {
        const body = { type: "cards", big: cardDraft.big, little: cardDraft.little };
        if (cardDraft.jack !== null) body.jack = cardDraft.jack;
        send(base, body);
        break;
      }
      case "more":
      case "less": {
        const n = parseInt(d.dock, 10);
        shipDraft.ships[n] = Math.max(0, (shipDraft.ships[n] || 0) + (d.do === "more" ? 1 : -1));
        show(snap);
        break;
      }
      case "answer": {
        const ships = {};
        for (const dock of Object.keys(shipDraft.ships)) if (shipDraft.ships[dock]) ships[dock] = shipDraft.ships[dock];
        send(base, { type: snap.state.pending.action, ships: ships });
        break;
      }
      case "hand":
        send(base + "/virtual", { do: d.hand, dock: parseInt(d.dock, 10), count: 1 });
        break;
    }
  }
  page.start();
})();
