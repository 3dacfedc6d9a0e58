// Telling a player it is their turn, on a phone lying on the table: a vibration where the
// phone has one, a short sound (only if they asked for it on this phone: remembered), the
// page's title ("● Your turn"), and the screen kept awake while the game runs.
"use strict";

Bosun.turnAlerts = function () {
  const SOUND_KEY = "bosun.turnSound";
  const baseTitle = document.title;
  const soundBox = document.getElementById("turn-sound");
  const wakeNote = document.getElementById("wake-note");
  let lastKey = null;
  let lock = null; // the screen wake lock, while held
  let wantAwake = false;
  let audio = null;

  function remembered() {
    try {
      return localStorage.getItem(SOUND_KEY) === "on";
    } catch (err) {
      return false; // storage off (private mode): no sound unless ticked again
    }
  }

  // Browsers start sound only after a tap: the tick on the box is one, and any later tap
  // wakes the audio of a page reloaded with the sound on.
  function audioContext() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }

  function chime() {
    const ctx = audioContext();
    if (!ctx) return;
    const now = ctx.currentTime;
    [880, 1175].forEach((hz, i) => {
      const tone = ctx.createOscillator();
      const gain = ctx.createGain();
      tone.frequency.value = hz;
      gain.gain.setValueAtTime(0.0001, now + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.25, now + i * 0.16 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.15);
      tone.connect(gain).connect(ctx.destination);
      tone.start(now + i * 0.16);
      tone.stop(now + i * 0.16 + 0.16);
    });
  }

  function buzz() {
    if (!navigator.vibrate) return;
    try {
      navigator.vibrate([180, 90, 180]);
    } catch (err) {
      // no vibration without a tap on the page first: the title and the sound still tell
    }
  }

  async function keepAwake() {
    if (!wantAwake || lock || document.visibilityState !== "visible") return;
    if (!("wakeLock" in navigator)) {
      wakeNote.textContent = "This phone may go to sleep: its browser keeps the screen on only for pages on https or on this computer. Set its screen timeout longer while you play.";
      return;
    }
    try {
      lock = await navigator.wakeLock.request("screen");
      wakeNote.textContent = "The screen stays on while the game runs.";
      lock.addEventListener("release", () => {
        lock = null; // the phone let go (page hidden): taken again when it is back
      });
      if (!wantAwake) release();
    } catch (err) {
      lock = null;
      wakeNote.textContent = "This phone may go to sleep (" + err.message + ").";
    }
  }

  function release() {
    if (lock) lock.release().catch(() => {});
    lock = null;
  }

  document.addEventListener("visibilitychange", keepAwake);
  soundBox.checked = remembered();
  soundBox.addEventListener("change", () => {
    try {
      localStorage.setItem(SOUND_KEY, soundBox.checked ? "on" : "off");
    } catch (err) {
      // not remembered, but on for now
    }
    if (soundBox.checked) chime(); // what it sounds like (and the tap that allows sound)
  });
  document.addEventListener("pointerdown", () => soundBox.checked && audioContext(), { once: true });

  return {
    // `key` names the decision that is the player's now (null: none); `running`: a game is on
    update(key, running) {
      if (key && key !== lastKey) {
        buzz();
        if (soundBox.checked) chime();
      }
      lastKey = key;
      document.title = key ? "● Your turn · " + baseTitle : baseTitle;
      document.body.dataset.yourTurn = key ? "yes" : "no";
      wantAwake = !!running;
      if (wantAwake) keepAwake();
      else release();
    },
  };
};
