// A finished Riff Raff game stepped through on the board, turn by turn, from the timeline the
// game page already has (its turns' loads and the falls with the zones they left): the ship
// as it stood after each turn, whose turn it was, their card and what happened.
"use strict";

Bosun.gameReplay = function (box, data, colours) {
  const esc = Bosun.esc;
  const board = Bosun.boards.riffraff;
  const turns = data.turns;
  if (!turns.length || !board) return false;

  // every load and every fall in the order they happened
  const happenings = [];
  for (const t of turns) for (const l of t.loads) happenings.push({ at_ms: l.at_ms, load: l });
  for (const f of data.falls) happenings.push({ at_ms: f.at_ms, fall: f });
  happenings.sort((a, b) => a.at_ms - b.at_ms);

  // the ship after each turn: every load and fall up to the turn's end
  const ships = [];
  const ship = {};
  let next = 0;
  for (const t of turns) {
    const until = t.end_ms === null ? Infinity : t.end_ms;
    for (; next < happenings.length && happenings[next].at_ms <= until; next++) {
      const h = happenings[next];
      if (h.load) (ship[h.load.zone] = ship[h.load.zone] || []).push(h.load.item);
      else for (const zone of Object.keys(h.fall.zones)) {
        for (const item of h.fall.zones[zone]) {
          const at = (ship[zone] || []).lastIndexOf(item);
          if (at >= 0) ship[zone].splice(at, 1);
        }
      }
    }
    const copy = {};
    for (const zone of Object.keys(ship)) copy[zone] = ship[zone].slice();
    ships.push(copy);
  }

  const cardsOf = {};
  for (const r of data.rounds) cardsOf[r.round] = r.cards || [];
  const who = (p) => '<span class="who" style="--c:' + esc(colours[p] || "#ccc") + '">' + esc(p) + "</span>";

  function caption(i) {
    const t = turns[i];
    const loads = t.loads.map((l) => "a " + esc(l.item)).join(" and ");
    const falls = t.falls.map((f) => {
      const parts = [];
      if (f.fallen.length) parts.push(esc(f.fallen.join(", ")) + " fell");
      if (f.caught.length) parts.push(esc(f.caught.join(", ")) + " caught");
      return parts.join(", ");
    });
    const cards = (cardsOf[t.round] || []).map((c) => esc(c.player) + " " + esc(c.value)).join(" · ");
    return '<p class="replay-turn"><strong>Round ' + esc(t.round) + "</strong> · " + who(t.player) + (t.card ? " played " + esc(t.card) : "") + ", zone " + esc(t.zone) +
      ": " + (loads ? "loaded " + loads : "loaded nothing") + (falls.length ? "; " + falls.join("; ") : "") + ".</p>" +
      (cards ? '<p class="muted small">Cards this round: ' + cards + "</p>" : "");
  }

  box.hidden = false;
  box.innerHTML = '<h2>Turn by turn</h2><div class="replay-controls" role="group" aria-label="step through the turns">' +
    '<button class="button small secondary" type="button" data-step="first">First</button>' +
    '<button class="button small secondary" type="button" data-step="back" aria-label="previous turn">◀</button>' +
    '<input id="replay-turn" type="range" min="1" max="' + turns.length + '" value="' + turns.length + '" aria-label="turn">' +
    '<button class="button small secondary" type="button" data-step="on" aria-label="next turn">▶</button>' +
    '<button class="button small secondary" type="button" data-step="last">Last</button>' +
    '<span class="replay-count" aria-hidden="true"></span></div>' +
    '<div class="replay-caption" aria-live="polite"></div><div class="board-svg replay-board"></div>';
  const slider = box.querySelector("#replay-turn");

  function show(i) {
    const t = turns[i];
    slider.value = String(i + 1);
    slider.setAttribute("aria-valuetext", "turn " + (i + 1) + " of " + turns.length + ", round " + t.round + ", " + t.player);
    box.querySelector(".replay-count").textContent = "turn " + (i + 1) + " of " + turns.length;
    Bosun.render(box.querySelector(".replay-caption"), caption(i));
    const snapshot = { state: { phase: "turn", turn: t.player, target_zone: t.zone, ship: ships[i] }, referee: { colours: colours } };
    Bosun.render(box.querySelector(".replay-board"), board.ship(snapshot, { compact: window.innerWidth < 700 }));
    box.dataset.turn = String(i + 1);
  }

  stepThrough(box, slider, turns.length, show);
  return true;
};

// A finished game of any board stepped through from the service's steps (the public state
// after every action that changed the board: /api/games/<id>/steps). Montego Bay uses it:
// the harbour, its ships and workers as they stood, and what happened at that step.
Bosun.stepsReplay = function (box, steps, boardName, colours) {
  const esc = Bosun.esc;
  const board = Bosun.boards[boardName];
  if (!steps.length || !board) return false;
  box.hidden = false;
  box.innerHTML = '<h2>Step by step</h2><div class="replay-controls" role="group" aria-label="step through the game">' +
    '<button class="button small secondary" type="button" data-step="first">First</button>' +
    '<button class="button small secondary" type="button" data-step="back" aria-label="previous step">◀</button>' +
    '<input id="replay-step" type="range" min="1" max="' + steps.length + '" value="' + steps.length + '" aria-label="step">' +
    '<button class="button small secondary" type="button" data-step="on" aria-label="next step">▶</button>' +
    '<button class="button small secondary" type="button" data-step="last">Last</button>' +
    '<span class="replay-count" aria-hidden="true"></span></div>' +
    '<div class="replay-caption" aria-live="polite"></div><div class="board-svg replay-board"></div>';
  const slider = box.querySelector("#replay-step");

  function caption(snapshot, step) {
    const a = step.action;
    const events = step.events.filter((e) => e.kind !== "reveal").map((e) => "<li>" + board.eventText(snapshot, e) + "</li>");
    const said = board.actionText ? board.actionText(snapshot, a) : esc(a.player || a.by || "") + " " + esc(a.type);
    const head = '<p class="replay-turn"><strong>Round ' + esc(step.state.round) + "</strong> · " + said + "</p>";
    return head + (events.length ? '<ol class="events">' + events.join("") + "</ol>" : "");
  }

  function show(i) {
    const step = steps[i];
    slider.value = String(i + 1);
    slider.setAttribute("aria-valuetext", "step " + (i + 1) + " of " + steps.length + ", round " + step.state.round);
    box.querySelector(".replay-count").textContent = "step " + (i + 1) + " of " + steps.length;
    const snapshot = { state: step.state, referee: { colours: colours }, virtual: false };
    Bosun.render(box.querySelector(".replay-caption"), caption(snapshot, step));
    Bosun.render(box.querySelector(".replay-board"), board.draw(snapshot, { compact: window.innerWidth < 700 }));
    box.dataset.step = String(i + 1);
  }

  stepThrough(box, slider, steps.length, show);
  return true;
};

// The first / back / on / last buttons and the slider of a stepper over `count` positions
// (0-based), showing the last one first.
function stepThrough(box, slider, count, show) {
  box.addEventListener("click", (event) => {
    const b = event.target.closest("button[data-step]");
    if (!b) return;
    const now = parseInt(slider.value, 10) - 1;
    const to = { first: 0, back: now - 1, on: now + 1, last: count - 1 }[b.dataset.step];
    show(Math.max(0, Math.min(count - 1, to)));
  });
  slider.addEventListener("input", () => show(parseInt(slider.value, 10) - 1));
  show(count - 1);
}
