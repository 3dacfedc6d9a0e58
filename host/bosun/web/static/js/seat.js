// What every game's player page shares: sending the seat's requests (one at a time), errors
// shown for a while, the undo form, and the live stream that follows the table into its
// next game. The token in the address is the seat: reloading or reconnecting keeps it.
"use strict";

// `show(snapshot)` draws the game's part of the page; `act(data)` handles the game's buttons
// (`data-do`: their dataset). Flags, taking the seat and giving it back are handled here; a
// flag's "correct" answer goes to `correct(flagId)` when the game brings an editor for it.
Bosun.seat = function (root, show, act, correct) {
  const token = root.dataset.token;
  const me = root.dataset.player;
  const base = "/api/seat/" + encodeURIComponent(token);
  const el = (id) => document.getElementById(id);
  let busy = false;
  let stream = null;
  let errorTimer = null;

  function showError(text) {
    const box = el("error");
    box.textContent = text;
    box.hidden = false;
    clearTimeout(errorTimer);
    errorTimer = setTimeout(() => (box.hidden = true), 6000);
  }

  // POST `body` to `path`; true when the referee took it (the page shows the answer).
  async function send(path, body) {
    if (busy) return false;
    busy = true;
    root.classList.add("busy");
    try {
      const snapshot = await Bosun.api(path, { json: body });
      el("error").hidden = true;
      if (snapshot && snapshot.state !== undefined) show(snapshot);
      return true;
    } catch (err) {
      if (err.status === 404) followNextGame();
      else showError(err.message);
    } finally {
      busy = false;
      root.classList.remove("busy");
    }
    return false;
  }

  async function followNextGame() {
    if (stream) stream.close();
    try {
      const next = await Bosun.api(base + "/next");
      if (next.token !== token) {
        location.replace(next.url);
        return;
      }
      start();
    } catch (err) {
      Bosun.linkState(el("link-state"), "ended");
      el("status").innerHTML = '<p class="big-line">This game is over</p><p class="muted">' + Bosun.esc(err.message) + "</p>";
      el("actions").innerHTML = "";
      el("hands").hidden = true;
      el("join").hidden = true;
    }
  }

  function start() {
    stream = Bosun.live(base + "/stream", {
      snapshot: show,
      state: (s) => Bosun.linkState(el("link-state"), s),
      ended: () => followNextGame(),
      check: async () => {
        try {
          await Bosun.api(base);
          return true;
        } catch (err) {
          if (err.status === 404) {
            followNextGame();
            return false;
          }
          return true; // the service is away: keep trying
        }
      },
    });
  }

  // A person plays the seat (at a virtual table, only once they took it from its bot).
  const isHuman = (s) => !s.virtual || (s.humans || []).indexOf(me) >= 0;

  // The seat's own part of a snapshot: who plays it, and the alerts (flags to answer).
  function showSeat(s) {
    const human = isHuman(s);
    el("join").hidden = human;
    if (!human) {
      Bosun.render(
        el("join"),
        '<h2>A bot is playing this seat</h2><p>Take the seat to play <strong>' + Bosun.esc(me) + "</strong> yourself, from this page.</p>" +
          '<button class="button big" type="button" data-do="claim">Take my seat</button>'
      );
    }
    el("leave").hidden = !(s.virtual && human);
    Bosun.render(el("alerts"), Bosun.alertsHtml(s, { answer: human }));
    clock.set(s);
    timed = human && s.presence && s.presence.seats[me] ? s.presence.seats[me] : null;
    botTakes = s.virtual ? "then your seat goes back to its bot" : "then a bot decides for you";
    showTimer();
  }

  // The decision timer: how long this seat may still think before its bot decides.
  const clock = Bosun.tableClock(parseFloat(root.dataset.scale || "1") || 1);
  let timed = null;
  let botTakes = "";
  function showTimer() {
    const box = el("decision-timer");
    if (!box) return;
    const deadline = timed && timed.deadline_ms;
    box.hidden = !deadline;
    if (!deadline) return;
    const left = clock.seconds(clock.now(), deadline);
    box.textContent = Bosun.span(Math.ceil(left)) + " left to decide, " + botTakes;
    box.classList.toggle("urgent", left <= 10);
  }
  setInterval(showTimer, 500);

  root.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-do], button[data-flag]");
    if (!button || button.disabled) return;
    if (button.dataset.flag && button.dataset.option === "correct" && correct) {
      correct(button.dataset.flag);
    } else if (button.dataset.flag) {
      send(base, { type: "confirm", flag: button.dataset.flag, option: button.dataset.option });
    } else if (button.dataset.do === "claim") {
      send(base + "/claim", { human: true });
    } else {
      act(button.dataset);
    }
  });
  el("leave").addEventListener("click", () => send(base + "/claim", { human: false }));
  el("undo-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const reason = el("undo-reason").value.trim();
    if (!reason) {
      showError("say why you undo it");
      return;
    }
    send(base, { type: "undo", reason: reason }).then((ok) => ok && (el("undo-reason").value = ""));
  });

  return { token: token, base: base, send: send, showError: showError, start: start, isHuman: isHuman, showSeat: showSeat };
};
