// The calibration wizard's "Pair the ship": its pairing state, and a button that makes (or,
// confirmed, rotates) its credentials and downloads its config.json, the password's only copy.
"use strict";

(function () {
  const root = document.getElementById("wizard");
  const panel = document.getElementById("pairing");
  if (!root || !panel) return; // a virtual table: its ship pairs itself
  const key = root.dataset.key;
  const tableId = root.dataset.table;
  const url = Bosun.withKey("/api/tables/" + encodeURIComponent(tableId) + "/ship/pairing", key);
  const stateLine = document.getElementById("pairing-state");
  const pairButton = document.getElementById("pair");
  const rotateButton = document.getElementById("rotate");

  function show(state) {
    stateLine.className = "";
    if (!state.available) {
      stateLine.textContent = "Pairing is not offered here: " + state.why;
    } else if (state.paired) {
      stateLine.textContent = "Paired: user " + state.user + ", password " + state.password + " (masked); broker " + state.broker + ".";
    } else {
      stateLine.textContent = "Not paired yet: the ship cannot log in to " + state.broker + ".";
    }
    pairButton.hidden = !state.available || state.paired;
    rotateButton.hidden = !state.available || !state.paired;
  }

  function failed(text) {
    stateLine.className = "alert error";
    stateLine.textContent = text;
  }

  async function load() {
    try {
      show(await Bosun.api(url));
    } catch (err) {
      failed(err.message);
    }
  }

  async function pair(rotate) {
    if (rotate && !window.confirm("Give the ship a new password? The old one stops working at once: the ship must be flashed with the new config.json.")) return;
    pairButton.disabled = rotateButton.disabled = true;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ rotate: rotate }),
        cache: "no-store",
      });
      if (!response.ok) {
        let body = null;
        try {
          body = await response.json();
        } catch (err) {
          body = null;
        }
        throw new Error((body && body.error) || "pairing failed (" + response.status + ")");
      }
      const file = URL.createObjectURL(await response.blob());
      const link = document.createElement("a");
      link.href = file;
      link.download = tableId + ".config.json";
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(file), 10000); // the password leaves memory
      await load();
    } catch (err) {
      failed(err.message);
    } finally {
      pairButton.disabled = rotateButton.disabled = false;
    }
  }

  pairButton.addEventListener("click", () => pair(false));
  rotateButton.addEventListener("click", () => pair(true));
  load();
})();
