// Every rule the referee names (RR1.., MB1..), one line each in RULES.md's words: the one
// place the pages take a rule chip's text from (common.js opens it when a chip is tapped).
"use strict";

(function () {
  const Bosun = (window.Bosun = window.Bosun || {});
  Bosun.RULES = {
    RR1: "The ship has 10 zones: 1-4 are the four quarters of the hull deck; 5-10 sit on three yards of the mast, two a yard (5-6 lowest, 7-8 middle, 9-10 top).",
    RR2: "Eight cargo pieces (boat, barrel, bottle, crate, chest, plank, sailor, rat), with no owner colour: one of each per player with 3-4 players, two of each with 2.",
    RR3: "The oldest player is captain before round 1.",
    RR4: "Each round everyone secretly chooses a card (1-10) not yet used this cycle; all are revealed together once everyone has chosen.",
    RR5: "The highest card makes its player captain at once; if several played it, the previous captain chooses the new one among them.",
    RR6: "The new captain goes first, then the others by descending card; where cards tie, the captain decides who goes next when it comes up.",
    RR7: "A round ends when everyone has had a turn. Each card is used once per cycle; only the last round's cards stay face up.",
    RR8: "The player loads one piece from their supply onto the zone equal to their card.",
    RR9: "If that zone is 5-10 and already held a piece, the player may load two pieces there: announce one or two before loading; if the first falls, the second is not loaded.",
    RR10: "Load with one or both hands; pieces already aboard and the ship must not be touched by hand, only pushed with the piece being loaded.",
    RR11: "If cargo falls off the ship, the turn ends at once.",
    RR12: "Pieces the active player catches leave the game (the box), except when the only piece caught is the one just loaded: it goes back to their supply.",
    RR13: "Every fallen piece not caught goes to the active player's supply, whoever loaded it; a piece that drops onto a lower zone and stays aboard has not fallen.",
    RR13a: "Pieces are told apart by where they lie: a fall or a catch names each piece by its zone and kind, and exactly that piece leaves the ship.",
    RR14: "Settle window, chosen before the game: 0 s or 3 s. The turn ends when the last piece rests and the window has passed; cargo that falls meanwhile is the active player's.",
    RR15: "A player whose supply is empty at the end of their turn wins at once.",
    RR16: "After round 10 (round 20 with 2 players) the player(s) with the fewest pieces win.",
    MB1: "Warehouses of two rooms each; a room holds good barrels or broken barrels, and maybe a silver coin. A path runs round them with a stop in front of each room.",
    MB2: "Each player has a Big and a Little worker, a card set 1-5 for each, and barrels in their colour.",
    MB3: "The harbour has 4 docks: the pilot boat at the first, ships at the others, each with 3+ slots and points for 1st, 2nd (and 3rd) place.",
    MB4: "Order tokens, one a worker, lie in a row: the order the workers move in.",
    MB5: "At the start of a round a player may pay 3 silver to hire Lazy Jack; if several want him, fewer points first. He moves first.",
    MB6: "Everyone secretly chooses one card per worker (and one for Lazy Jack); all are revealed together.",
    MB7: "Workers move clockwise by their card in token order; landing on an occupied stop pushes the worker there to the opposite stop.",
    MB8: "Rooms are resolved along the board: silver is taken from the bank, good barrels loaded onto ships, broken barrels take your barrels off ships.",
    MB9: "Filling a ship's last slot scores 1 point and it sails at once: most barrels aboard gets 1st place's points, then 2nd (and 3rd); ties share.",
    MB10: "At the end of a round, with 3 or fewer ships at the docks all ships score and the game ends; most points wins. Otherwise the first dock's ship scores and sails.",
    MB11: "If a ship came from the last 6 of the deck this round, the order tokens are shuffled; otherwise the last token moves to the front.",
    MB12: "The path runs N1 to the last N, then back along the south side to S1; Big workers start in the west pub, Little ones in the east; a card of k moves k stops.",
    MB13: "Each worker's hand is 1-5 and comes back every round; Lazy Jack's card must differ from the card of the worker he came with.",
    MB14: "Lazy Jack starts where his worker is, moves first, bumps and is bumped; his room pays silver and good barrels to his hirer.",
    MB15: "Rooms are resolved warehouse 1 onwards, north before south; you load (or take off) exactly as many barrels as the room, your supply and the free slots allow, on ships you choose.",
    MB15a: "Bumping never chains; a worker that cannot be pushed stays and the mover goes back to the nearest free stop behind.",
    MB15b: "When a ship sails the ships behind move up and a new one takes the last free dock; tied for most points at the end: all win.",
    MB15c: "The game ends when the ship deck runs out and the docks stop refilling (MB10).",
    MB16: "Each player has 16 barrels and starts with 1 silver; the pilot boat counts as a ship until it sails.",
    MB17: "A ship drawn from the last 6 of the deck this round reshuffles the order tokens (MB11).",
  };
})();
