// The printable seat cards: the print button (a file of its own: the Content Security
// Policy refuses inline scripts).
"use strict";
document.getElementById("print").addEventListener("click", () => window.print());
