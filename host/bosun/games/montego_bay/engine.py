"""Montego Bay's rules MB1-MB17 as a pure state machine: actions in, new state out."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping
from typing import Any

from bosun.games.base import EngineBase, Rejected, plural
from bosun.games.montego_bay import actions as act
from bosun.games.montego_bay import board, draws, harbour
from bosun.games.montego_bay.game_data import GameData, RoomSpec, ShipSpec, default_game_data
from bosun.games.montego_bay.state import (
    BARRELS_PER_PLAYER,
    CARD_VALUES,
    DOCKS,
    EAST_PUB,
    GAME_END_SHIPS,
    LAZY_JACK_SILVER,
    PILOT,
    WEST_PUB,
    WORKER_KINDS,
    LazyJack,
    MontegoBayState,
    Pending,
    Room,
    Ship,
    token,
    token_owner,
)
from bosun.games.montego_bay.view import build_timeline, build_view


class MontegoBay(EngineBase):
    """The Montego Bay engine (Queen Games, 2009), implementing the `Game` protocol."""

    name = "montego-bay"
    actions = act.ADAPTERS
    secret_fields = {"cards": ("big", "little", "jack")}  # MB6: revealed together
    build_view = staticmethod(build_view)
    build_timeline = staticmethod(build_timeline)

    # -- the Game protocol -------------------------------------------------------------

    def setup(self, action: Mapping[str, Any]) -> MontegoBayState:
        if isinstance(action, Mapping) and isinstance(action.get("data"), str):
            # The engine reads no files: a log must replay the same wherever it goes.
            raise Rejected(
                "setup: data must be the data file's content inline, not a path "
                "(bosun.games.montego_bay.load_game_data reads a file)"
            )
        a: act.Setup = self.parse_setup(action)
        players = list(a.players)
        for name in players:
            if not name.strip() or not name.isprintable():
                raise Rejected(f"player name {name!r} must be printable and not blank")
        if len(set(players)) != len(players):
            raise Rejected("two players have the same name")
        data = a.data if a.data is not None else default_game_data()
        rules = data.by_players[str(len(players))]
        warehouses = self._warehouses(a, data, rules.warehouses, len(players))
        deck = self._deck(a, data, rules.ships, len(players))
        tokens = [token(p, kind) for p in players for kind in WORKER_KINDS]
        order = self._order(a.order, tokens) if a.order is not None else None
        silver = {p: data.starting_silver for p in players}  # MB16
        for player, coins in (a.silver or {}).items():
            if player not in players:
                raise Rejected(f"silver: {player!r} is not playing")
            silver[player] = coins
        s = MontegoBayState(
            players=players,
            seed=a.seed,
            warehouses=warehouses,
            deck=deck,
            deck_size=len(deck),
            docks=[PILOT] + [None] * (DOCKS - 1),  # MB3: the pilot boat takes dock 1
            order=order if order is not None else draws.draw_order(a.seed, tokens),
            # MB2/MB12: Big workers wait in the west pub, Little workers in the east pub.
            positions={t: WEST_PUB if t.endswith(":big") else EAST_PUB for t in tokens},
            points={p: 0 for p in players},
            silver=silver,
            barrels={p: BARRELS_PER_PLAYER for p in players},
        )
        harbour.pack_and_refill(s)  # MB3: docks 2-4 from the deck
        s.drew_from_last_ships = False  # setup is not a round (MB17)
        return s

    def legal_actions(self, state: MontegoBayState, player: str) -> list[dict[str, Any]]:
        s = state
        if player not in s.players or s.phase == "over":
            return []
        if s.phase == "hire":
            if player in s.hires:
                return []
            choices: list[str | None] = [None]
            if s.silver[player] >= LAZY_JACK_SILVER:
                choices += list(WORKER_KINDS)
            return [{"type": "hire", "player": player, "worker": w} for w in choices]
        if s.phase == "cards":
            if player in s.hidden_cards:
                return []
            moves = []
            for big, little in itertools.product(CARD_VALUES, CARD_VALUES):
                base = {"type": "cards", "player": player, "big": big, "little": little}
                if s.jack is None or s.jack.player != player:
                    moves.append(base)
                    continue
                partner = big if s.jack.worker == "big" else little
                moves += [{**base, "jack": j} for j in CARD_VALUES if j != partner]  # MB13
            return moves
        pending = s.pending
        if pending is None or pending.player != player:
            return []
        return [
            {"type": pending.action, "player": player, "ships": ships}
            for ships in self._answers(s, pending)
        ]

    # -- setup ---------------------------------------------------------------------------

    def _warehouses(
        self, a: act.Setup, data: GameData, count: int, players: int
    ) -> list[tuple[Room, Room]]:
        if a.warehouses is None:
            laid = draws.draw_warehouses(a.seed, data.warehouse_tiles, count)  # MB1
        else:
            if len(a.warehouses) < players + 1:
                # Fewer stops than workers plus Lazy Jack would leave a bumped worker nowhere.
                raise Rejected(
                    f"warehouses: {players} players need at least {players + 1} warehouses, "
                    f"not {len(a.warehouses)}"
                )
            laid = [tuple(pair) for pair in a.warehouses]
        return [(_room(north), _room(south)) for north, south in laid]

    def _deck(self, a: act.Setup, data: GameData, count: int, players: int) -> list[Ship]:
        cards: list[ShipSpec]
        if a.ships is None:
            cards = draws.draw_deck(a.seed, data.deck_for(players), count)
        else:
            cards = list(a.ships)
        return [
            Ship(slots=card.slots, points=tuple(card.points), deck_index=i)
            for i, card in enumerate(cards)
        ]

    def _order(self, given: list[str], tokens: list[str]) -> list[str]:
        for t in given:
            if t not in tokens:
                raise Rejected(
                    f"order: {t!r} is not a worker (one token a worker, like {tokens[0]!r}; MB4)"
                )
            if given.count(t) > 1:
                raise Rejected(f"order: {t} appears more than once (MB4)")
        missing = [t for t in tokens if t not in given]
        if missing:
            raise Rejected(f"order: {', '.join(missing)} missing (one token a worker, MB4)")
        return list(given)

    # -- Lazy Jack (MB5, MB14) -------------------------------------------------------------

    def _apply_hire(self, s: MontegoBayState, a: act.Hire) -> None:
        self._seat(s, a.player)
        if s.phase != "hire":
            raise Rejected(f"Lazy Jack is hired at the start of a round; {self._now(s)}")
        if a.player in s.hires:
            raise Rejected(f"{a.player} has already declared for Lazy Jack this round")
        if a.worker is not None:
            if a.worker not in WORKER_KINDS:
                raise Rejected(
                    f"{a.worker!r} is not a worker: Lazy Jack goes with your big or little "
                    "worker (or pass with null)"
                )
            if s.silver[a.player] < LAZY_JACK_SILVER:
                raise Rejected(
                    f"{a.player} has {plural(s.silver[a.player], 'silver coin')}; "
                    f"Lazy Jack costs {LAZY_JACK_SILVER} (MB5)"
                )
        s.hires[a.player] = a.worker
        if len(s.hires) == len(s.players):
            self._settle_hire(s)

    def _settle_hire(self, s: MontegoBayState) -> None:
        """MB5/MB14: fewer points first, then the earlier first order token; only he pays."""
        wanting = [p for p in s.players if s.hires[p] is not None]
        if wanting:

            def priority(player: str) -> tuple[int, int]:
                first_token = min(s.order.index(token(player, k)) for k in WORKER_KINDS)
                return s.points[player], first_token

            hirer = min(wanting, key=priority)
            kind = s.hires[hirer]
            s.silver[hirer] -= LAZY_JACK_SILVER
            # MB14: he starts the round where the worker he is attached to stands.
            s.jack = LazyJack(player=hirer, worker=kind, at=s.positions[token(hirer, kind)])
        s.phase = "cards"

    # -- cards and movement (MB6, MB7, MB13, MB15a) ------------------------------------------

    def _apply_cards(self, s: MontegoBayState, a: act.Cards) -> None:
        self._seat(s, a.player)
        if s.phase != "cards":
            raise Rejected(
                f"cards are chosen once everyone has declared for Lazy Jack; {self._now(s)}"
            )
        if a.player in s.hidden_cards:
            raise Rejected(f"{a.player} has already chosen cards this round")
        for kind, value in (("big", a.big), ("little", a.little), ("jack", a.jack)):
            if value is not None and value not in CARD_VALUES:
                raise Rejected(f"{kind}: cards run from 1 to 5, there is no {value} (MB2)")
        hirer = s.jack.player if s.jack else None
        chosen = {"big": a.big, "little": a.little}
        if a.player == hirer:
            partner = s.jack.worker
            if a.jack is None:
                raise Rejected(
                    f'{a.player} hired Lazy Jack: choose his card too ("jack", from the '
                    f"{partner} hand, MB6)"
                )
            if a.jack == chosen[partner]:
                raise Rejected(
                    f"Lazy Jack's card must differ from the {partner} worker's card {a.jack} (MB13)"
                )
            chosen["jack"] = a.jack
        elif a.jack is not None:
            why = f"{hirer} hired him" if hirer else "nobody hired him this round"
            raise Rejected(f"only Lazy Jack's hirer plays a jack card (MB6); {why}")
        s.hidden_cards[a.player] = chosen
        if len(s.hidden_cards) == len(s.players):
            self._reveal_and_move(s)

    def _reveal_and_move(self, s: MontegoBayState) -> None:
        """MB6: all cards face up at once; MB7: Lazy Jack moves first, then token order."""
        s.round_cards, s.hidden_cards = s.hidden_cards, {}
        s.events = [{"kind": "reveal", "round": s.round, "cards": copy.deepcopy(s.round_cards)}]
        positions = dict(s.positions)
        movers = list(s.order)
        if s.jack is not None:
            positions[board.JACK] = s.jack.at
            movers.insert(0, board.JACK)
        for mover in movers:
            if mover == board.JACK:
                steps = s.round_cards[s.jack.player]["jack"]
            else:
                player, kind = token_owner(mover)
                steps = s.round_cards[player][kind]
            s.events.append(board.move(positions, mover, steps, s.warehouse_count))
        if s.jack is not None:
            s.jack.at = positions.pop(board.JACK)
        s.positions = positions
        s.phase = "resolve"
        s.resolve_queue = board.resolution_order(s.warehouse_count)
        self._resolve(s)

    # -- the warehouses (MB8, MB14, MB15) ----------------------------------------------------

    def _resolve(self, s: MontegoBayState) -> None:
        """Resolve stops in order until one needs a player's answer or the round ends."""
        while s.resolve_queue:
            stop = s.resolve_queue.pop(0)
            there = [t for t, at in s.positions.items() if at == stop]
            is_jack = s.jack is not None and s.jack.at == stop
            if not there and not is_jack:
                continue  # MB15: a stop with no worker is skipped
            player = s.jack.player if is_jack else token_owner(there[0])[0]
            room = self._room(s, stop)
            event: dict[str, Any] = {
                "kind": "room",
                "stop": board.stop_label(stop, s.warehouse_count),
                "worker": "jack" if is_jack else there[0],
                "player": player,
            }
            s.events.append(event)
            if room.silver:  # MB8: silver from the bank
                s.silver[player] += room.silver
                event["silver"] = room.silver
            if room.barrels:
                count = min(room.barrels, s.barrels[player], s.free_slots())  # MB15
                event["load"] = count
                if count:
                    s.pending = Pending(player=player, stop=stop, action="load", count=count)
                    return
            elif room.broken and not is_jack:  # MB8/MB14: Lazy Jack never unloads
                count = min(room.broken, s.aboard(player))  # MB15
                event["unload"] = count
                if count:
                    s.pending = Pending(player=player, stop=stop, action="unload", count=count)
                    return
        s.pending = None
        self._end_round(s)

    def _apply_load(self, s: MontegoBayState, a: act.Load) -> None:
        pending = self._pending_for(s, a.player, "load")
        moves = self._dock_counts(a.ships, "load")
        for dock, count in moves.items():
            ship = self._cargo_ship(s, dock, "load")
            if count > ship.free_slots:
                raise Rejected(
                    f"the ship at dock {dock} has {plural(ship.free_slots, 'free slot')}, "
                    f"not room for {count}"
                )
        self._exact(s, pending, sum(moves.values()))
        for dock, count in moves.items():
            ship = s.docks[dock - 1]
            ship.cargo[a.player] = ship.cargo.get(a.player, 0) + count
        s.barrels[a.player] -= pending.count
        s.events.append({"kind": "load", "player": a.player, "ships": _labels(moves)})
        # MB9/MB15: the load is applied whole; then every ship it filled sails, first dock
        # first, and the loader scores 1 point per ship filled.
        filled = [dock for dock, ship in s.ships_at_docks() if ship.free_slots == 0]
        s.points[a.player] += len(filled)
        for dock in filled:
            event = harbour.sail(s, dock, "filled")
            event["filled_by"] = a.player
            s.events.append(event)
        if filled:
            harbour.pack_and_refill(s)
        s.pending = None
        self._resolve(s)

    def _apply_unload(self, s: MontegoBayState, a: act.Unload) -> None:
        pending = self._pending_for(s, a.player, "unload")
        moves = self._dock_counts(a.ships, "unload")
        for dock, count in moves.items():
            ship = self._cargo_ship(s, dock, "unload")
            own = ship.cargo.get(a.player, 0)
            if count > own:
                raise Rejected(
                    f"{a.player} has {plural(own, 'barrel')} on the ship at dock {dock}, "
                    f"cannot take off {count}"
                )
        self._exact(s, pending, sum(moves.values()))
        for dock, count in moves.items():
            ship = s.docks[dock - 1]
            ship.cargo[a.player] -= count
            if not ship.cargo[a.player]:
                del ship.cargo[a.player]
        s.barrels[a.player] += pending.count
        s.events.append({"kind": "unload", "player": a.player, "ships": _labels(moves)})
        s.pending = None
        self._resolve(s)

    def _pending_for(self, s: MontegoBayState, player: str, action: str) -> Pending:
        self._seat(s, player)
        pending = s.pending
        if s.phase != "resolve" or pending is None:
            raise Rejected(f"nobody is asked to {action} barrels now; {self._now(s)}")
        if player != pending.player:
            raise Rejected(f"{self._now(s)}, not {player}")
        if action != pending.action:
            raise Rejected(f"{self._now(s)}: {action} is not the question")
        return pending

    def _dock_counts(self, ships: dict[str, int], action: str) -> dict[int, int]:
        moves: dict[int, int] = {}
        for key, count in ships.items():
            if key not in ("1", "2", "3", "4"):
                raise Rejected(f"ships: {key[:12]!r} is not a dock (docks are numbered 1-4)")
            if count < 0:
                raise Rejected(f"ships: cannot {action} {count} barrels at dock {key}")
            if count:
                moves[int(key)] = count
        return dict(sorted(moves.items()))

    def _cargo_ship(self, s: MontegoBayState, dock: int, action: str) -> Ship:
        ship = s.docks[dock - 1]
        if ship == PILOT:
            raise Rejected(f"the pilot boat at dock {dock} holds no cargo (MB3)")
        if ship is None:
            raise Rejected(f"dock {dock} is empty: there is no ship to {action}")
        return ship

    def _exact(self, s: MontegoBayState, pending: Pending, given: int) -> None:
        if given == pending.count:
            return
        room = self._room(s, pending.stop)
        if pending.action == "load":
            why = (
                f"the least of the room's {room.barrels}, {pending.player}'s "
                f"{s.barrels[pending.player]} in supply and {s.free_slots()} free slots"
            )
        else:
            why = (
                f"the least of the room's {room.broken} broken and {pending.player}'s "
                f"{s.aboard(pending.player)} aboard"
            )
        raise Rejected(
            f"{pending.player} must {pending.action} exactly "
            f"{plural(pending.count, 'barrel')}, not {given} ({why}; MB15)"
        )

    def _answers(self, s: MontegoBayState, pending: Pending) -> list[dict[str, int]]:
        """Every way to answer `pending`: barrels split over the docks that can take them."""
        if pending.action == "load":
            room = {dock: ship.free_slots for dock, ship in s.ships_at_docks()}
        else:
            room = {
                dock: ship.cargo[pending.player]
                for dock, ship in s.ships_at_docks()
                if ship.cargo.get(pending.player)
            }
        docks = list(room)

        def split(i: int, left: int) -> list[dict[str, int]]:
            if i == len(docks):
                return [{}] if left == 0 else []
            out = []
            for n in range(min(left, room[docks[i]]), -1, -1):
                for rest in split(i + 1, left - n):
                    out.append({str(docks[i]): n, **rest} if n else rest)
            return out

        return split(0, pending.count)

    # -- end of a round (MB10, MB11, MB15b, MB15c) ------------------------------------------

    def _end_round(self, s: MontegoBayState) -> None:
        docked = sum(d is not None for d in s.docks)  # MB16: the pilot boat counts
        if docked <= GAME_END_SHIPS:
            # MB10: every ship left is scored and the game ends. Nothing sails any more
            # (the seed: "score all ships", against "score the first dock's ship, then it
            # sails"), so the final state shows the harbour, cargo and all, as it ended.
            for dock, _ in s.ships_at_docks():
                s.events.append(harbour.score(s, dock, "game end"))
            top = max(s.points.values())
            s.winners = [p for p in s.players if s.points[p] == top]  # MB15b: ties all win
            s.phase = "over"
            return
        s.events.append(harbour.sail(s, 1, "first dock"))  # MB10
        harbour.pack_and_refill(s)
        if s.drew_from_last_ships:  # MB11/MB17
            s.order = draws.reshuffle_order(s.seed, s.round, s.order)
            s.events.append({"kind": "order", "reshuffled": True, "order": list(s.order)})
        else:  # MB11: the last token moves to the front
            s.order = [s.order[-1], *s.order[:-1]]
            s.events.append({"kind": "order", "reshuffled": False, "order": list(s.order)})
        s.jack = None  # MB11: back to the supply
        s.hires = {}
        s.round_cards = {}
        s.drew_from_last_ships = False
        s.round += 1
        s.phase = "hire"

    # -- checks shared by the actions ------------------------------------------------------

    def _room(self, s: MontegoBayState, stop: int) -> Room:
        index, side = board.warehouse_of(stop, s.warehouse_count)
        north, south = s.warehouses[index]
        return north if side == "north" else south

    def _now(self, s: MontegoBayState) -> str:
        if s.phase == "hire":
            waiting = [p for p in s.players if p not in s.hires]
            return f"round {s.round}: waiting for {', '.join(waiting)} to declare for Lazy Jack"
        if s.phase == "cards":
            waiting = [p for p in s.players if p not in s.hidden_cards]
            return f"round {s.round}: waiting for {', '.join(waiting)} to choose cards"
        p = s.pending
        room = board.stop_label(p.stop, s.warehouse_count)
        return f"{p.player} is to {p.action} {plural(p.count, 'barrel')} from {room}"


def _room(spec: RoomSpec) -> Room:
    return Room(barrels=spec.barrels or 0, broken=spec.broken or 0, silver=spec.silver)


def _labels(moves: dict[int, int]) -> dict[str, int]:
    return {str(dock): count for dock, count in moves.items()}
