"""Riff Raff's rules RR1-RR16 as a pure state machine: actions in, new state out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bosun.games.base import EngineBase, Rejected, plural
from bosun.games.riffraff import actions as act
from bosun.games.riffraff.pieces import (
    describe_zone,
    known_item,
    known_zone,
    newest_on_zone,
    piece_refs,
    resolve,
)
from bosun.games.riffraff.state import (
    CARD_VALUES,
    ITEMS,
    OWN_CATCH,
    ROUNDS_PER_CYCLE,
    RULES_EDITIONS,
    SETTLE_WINDOWS_S,
    YARD_ZONES,
    ZONES,
    Decision,
    Piece,
    RiffRaffState,
    Turn,
)
from bosun.games.riffraff.view import build_timeline, build_view


class RiffRaff(EngineBase):
    """The Riff Raff engine (Zoch, 2012), implementing the `Game` protocol."""

    name = "riffraff"
    actions = act.ADAPTERS
    secret_fields = {"card": ("value",)}  # RR4: revealed together, in the state
    build_view = staticmethod(build_view)
    build_timeline = staticmethod(build_timeline)

    # -- the Game protocol -------------------------------------------------------------

    def setup(self, action: Mapping[str, Any]) -> RiffRaffState:
        a: act.Setup = self.parse_setup(action)
        players = list(a.players)
        for name in players:
            if not name.strip() or not name.isprintable():
                raise Rejected(f"player name {name!r} must be printable and not blank")
        if len(set(players)) != len(players):
            raise Rejected("two players have the same name")
        captain = a.captain if a.captain is not None else players[0]
        if captain not in players:
            raise Rejected(f"the captain {captain!r} is not one of the players (RR3)")
        if a.settle_s not in SETTLE_WINDOWS_S:
            raise Rejected(
                f"settle_s must be 0 (immediately) or 3 (three-second rule), not {a.settle_s}"
            )
        if a.own_catch not in OWN_CATCH:
            raise Rejected(
                f'own_catch must be "back" (a lone caught piece just loaded goes back to the '
                f'supply) or "box" (every caught piece is boxed), not {a.own_catch!r} (RR12)'
            )
        if a.rules_edition not in RULES_EDITIONS:
            editions = " or ".join(str(e) for e in RULES_EDITIONS)
            raise Rejected(f"rules_edition must be {editions}, not {a.rules_edition}")
        per_item = 2 if len(players) == 2 else 1  # RR2
        return RiffRaffState(
            players=players,
            settle_s=a.settle_s,
            captain=captain,
            supply={p: {item: per_item for item in ITEMS} for p in players},
            own_catch=a.own_catch,
            rules_edition=a.rules_edition,
            played={p: [] for p in players},
        )

    def legal_actions(self, state: RiffRaffState, player: str) -> list[dict[str, Any]]:
        if player not in state.players or state.phase == "over":
            return []
        if state.phase == "choose":
            if player in state.hidden_cards:
                return []
            return [
                {"type": "card", "player": player, "value": v}
                for v in CARD_VALUES
                if v not in state.played[player]
            ]
        if state.phase == "decide":
            d = state.decision
            if player != d.by:
                return []
            return [{"type": d.kind, "by": player, "player": q} for q in d.among]
        turn = state.turn
        if player != turn.player:
            return []
        moves: list[dict[str, Any]] = []
        if turn.announced is None and not turn.loaded_ids:
            moves += [
                {"type": "announce", "player": player, "pieces": n}
                for n in (1, 2)
                if n == 1 or self._two_pieces_refusal(state, turn) is None
            ]
        if len(turn.loaded_ids) < (turn.announced or 1):
            moves += [
                {"type": "load", "player": player, "zone": turn.target_zone, "item": item}
                for item in ITEMS
                if state.supply[player][item] > 0
            ]
        if self._end_turn_refusal(state, turn) is None:
            moves.append({"type": "end_turn", "player": player})
        return moves

    # -- choosing cards and the captain (RR3-RR7) --------------------------------------

    def _apply_card(self, s: RiffRaffState, a: act.Card) -> None:
        self._seat(s, a.player)
        if s.phase != "choose":
            raise Rejected(f"cards are chosen at the start of a round; {self._now(s)}")
        if a.value not in CARD_VALUES:
            raise Rejected(f"cards run from 1 to 10, there is no {a.value}")
        if a.value in s.played[a.player]:
            raise Rejected(f"{a.player} already played the {a.value} this cycle (RR7)")
        if a.player in s.hidden_cards:
            raise Rejected(f"{a.player} has already chosen a card this round")
        s.hidden_cards[a.player] = a.value
        if len(s.hidden_cards) == len(s.players):
            self._reveal(s)

    def _reveal(self, s: RiffRaffState) -> None:
        """RR4/RR5: all cards face up at once; the highest makes the captain."""
        s.round_cards = dict(s.hidden_cards)
        s.shown_cards = dict(s.round_cards)  # RR7: only the newest round stays face up
        s.hidden_cards = {}
        for player, value in s.round_cards.items():
            s.played[player].append(value)
        top = max(s.round_cards.values())
        tied = [p for p in s.players if s.round_cards[p] == top]
        if len(tied) == 1:
            self._make_captain(s, tied[0])
        else:
            s.phase = "decide"
            s.decision = Decision(kind="captain", by=s.captain, among=tied)

    def _make_captain(self, s: RiffRaffState, captain: str) -> None:
        """RR6: the new captain goes first, then the others by descending card."""
        s.captain = captain
        others = [p for p in s.players if p != captain]
        s.still_to_go = sorted(others, key=lambda p: -s.round_cards[p])
        self._start_turn(s, captain)

    def _apply_captain(self, s: RiffRaffState, a: act.Captain) -> None:
        self._seat(s, a.by)
        self._seat(s, a.player)
        d = self._decision(s, "captain", a.by)
        if a.player not in d.among:
            raise Rejected(
                f"{a.player} did not play the highest card; choose among {', '.join(d.among)} (RR5)"
            )
        self._make_captain(s, a.player)

    def _apply_next(self, s: RiffRaffState, a: act.Next) -> None:
        self._seat(s, a.by)
        self._seat(s, a.player)
        d = self._decision(s, "next", a.by)
        if a.player not in d.among:
            raise Rejected(
                f"{a.player} is not among the tied players; choose among {', '.join(d.among)} (RR6)"
            )
        s.still_to_go.remove(a.player)
        self._start_turn(s, a.player)

    def _decision(self, s: RiffRaffState, kind: str, by: str) -> Decision:
        d = s.decision
        if s.phase != "decide" or d.kind != kind:
            raise Rejected(f"there is no such decision to take; {self._now(s)}")
        if by != d.by:
            rule = "RR5" if kind == "captain" else "RR6"
            raise Rejected(f"only {d.by}, the captain, takes this decision ({rule})")
        return d

    # -- a turn (RR8-RR10) ---------------------------------------------------------------

    def _start_turn(self, s: RiffRaffState, player: str) -> None:
        zone = s.round_cards[player]  # RR8: the zone equals the card
        s.phase = "turn"
        s.decision = None
        s.turn = Turn(player=player, target_zone=zone)

    def _apply_announce(self, s: RiffRaffState, a: act.Announce) -> None:
        turn = self._open_turn(s, a.player)
        if turn.announced is not None or turn.loaded_ids:
            said = turn.announced or 1
            raise Rejected(
                f"{a.player} is loading {plural(said, 'piece')} this turn and cannot change it "
                "(RR9: announce before loading)"
            )
        if a.pieces not in (1, 2):
            raise Rejected(f"a player announces 1 or 2 pieces, not {a.pieces}")
        if a.pieces == 2 and (refusal := self._two_pieces_refusal(s, turn)):
            raise Rejected(refusal)
        turn.announced = a.pieces

    def _two_pieces_refusal(self, s: RiffRaffState, turn: Turn) -> str | None:
        if turn.target_zone not in YARD_ZONES:
            return f"zone {turn.target_zone} is on the hull: only one piece (RR9)"
        # RR9, RR13: judged on the pieces lying there now (none loaded yet: announcing comes
        # first), so a piece that slid onto the zone counts and one that slid away does not
        if not any(p.id not in turn.loaded_ids for p in s.ship[turn.target_zone]):
            return f"zone {turn.target_zone} was empty before this turn: only one piece (RR9)"
        if s.pieces_left(turn.player) < 2:
            return f"{turn.player} has only one piece left"
        return None

    def _apply_load(self, s: RiffRaffState, a: act.Load) -> None:
        turn = self._open_turn(s, a.player)
        if a.zone not in ZONES:
            raise Rejected(f"there is no zone {a.zone}: the ship has zones 1-10 (RR1)")
        if a.zone != turn.target_zone:
            raise Rejected(
                f"{a.player} played the {turn.target_zone}: the piece goes on zone "
                f"{turn.target_zone}, not {a.zone} (RR8)"
            )
        known_item(a.item)
        if s.supply[a.player][a.item] == 0:
            raise Rejected(f"{a.player} has no {a.item} left to load")
        allowed = turn.announced or 1
        if len(turn.loaded_ids) >= allowed:
            if turn.announced == 2:
                raise Rejected(f"{a.player} has loaded both announced pieces (RR9)")
            raise Rejected(f"{a.player} loads one piece this turn and has loaded it (RR9)")
        turn.announced = allowed  # loading without announcing means one piece, fixed now
        piece = Piece(id=s.next_piece_id, item=a.item)
        s.next_piece_id += 1
        s.ship[a.zone].append(piece)
        s.supply[a.player][a.item] -= 1
        turn.loaded_ids.append(piece.id)

    def _apply_end_turn(self, s: RiffRaffState, a: act.EndTurn) -> None:
        turn = self._open_turn(s, a.player)
        if refusal := self._end_turn_refusal(s, turn):
            raise Rejected(refusal)
        self._finish_turn(s)

    def _end_turn_refusal(self, s: RiffRaffState, turn: Turn) -> str | None:
        missing = (turn.announced or 1) - len(turn.loaded_ids)
        if missing > 0 and s.pieces_left(turn.player) > 0:
            return (
                f"{turn.player} still has to load {plural(missing, 'piece')} "
                f"onto zone {turn.target_zone}"
            )
        return None

    def _finish_turn(self, s: RiffRaffState) -> None:
        player = s.turn.player
        s.last_turn_player = player
        s.last_turn_loaded_ids = list(s.turn.loaded_ids)
        s.turn = None
        if s.pieces_left(player) == 0:  # RR15: wins at once, the round is not finished
            self._game_over(s, [player])
            return
        self._next_turn(s)

    def _next_turn(self, s: RiffRaffState) -> None:
        if not s.still_to_go:
            self._end_round(s)
            return
        value = s.round_cards[s.still_to_go[0]]
        tied = [p for p in s.still_to_go if s.round_cards[p] == value]
        if len(tied) == 1:
            self._start_turn(s, s.still_to_go.pop(0))
        else:  # RR6: the captain picks among them now that their turn has come
            s.phase = "decide"
            s.decision = Decision(kind="next", by=s.captain, among=tied)

    def _end_round(self, s: RiffRaffState) -> None:
        cycles = 2 if len(s.players) == 2 else 1  # RR16
        s.round_cards = {}
        if s.round >= ROUNDS_PER_CYCLE * cycles:
            fewest = min(s.pieces_left(p) for p in s.players)
            self._game_over(s, [p for p in s.players if s.pieces_left(p) == fewest])
            return
        if s.round == ROUNDS_PER_CYCLE * s.cycle:  # RR16: two players take their cards back
            s.cycle += 1
            s.played = {p: [] for p in s.players}
            s.shown_cards = {}
        s.round += 1
        s.phase = "choose"

    def _game_over(self, s: RiffRaffState, winners: list[str]) -> None:
        s.phase = "over"
        s.turn = None
        s.decision = None
        s.still_to_go = []
        s.winners = winners

    # -- falling and sliding cargo (RR11-RR14) ---------------------------------------------

    def _apply_fall(self, s: RiffRaffState, a: act.Fall) -> None:
        self._seat(s, a.player)
        caught_refs = piece_refs(a.caught, "caught")
        fallen_refs = piece_refs(a.fallen, "fallen")
        if not caught_refs and not fallen_refs:
            raise Rejected("a fall names at least one piece that fell or was caught")
        late = s.late_fall()
        owner = s.falls_to()
        if owner is None:
            raise Rejected("no turn has been played yet, so no cargo can fall")
        if a.player != owner:
            if not late:
                raise Rejected(f"cargo that falls during {owner}'s turn is {owner}'s (RR14)")
            when = "no turn is open" if s.turn is None else f"{s.turn.player} has loaded nothing"
            raise Rejected(
                f"{when}: cargo that falls now goes to {owner}, whose turn ended last (RR14)"
            )
        found = resolve(s, [*caught_refs, *fallen_refs])
        caught = [piece for _, piece in found[: len(caught_refs)]]
        fallen = [piece for _, piece in found[len(caught_refs) :]]
        for zone, piece in found:
            s.ship[zone].remove(piece)
        supply = s.supply[owner]
        if len(caught) == 1 and caught[0].id == self._just_loaded(s, late):
            supply[caught[0].item] += 1  # RR12's exception: back to the supply
        else:  # RR12: caught pieces leave the game
            s.boxed += len(caught)
        for piece in fallen:  # RR13: the player it falls to takes what reached the table
            supply[piece.item] += 1
        if not late:  # RR11: the turn ends at once; a late fall leaves the open turn going
            self._finish_turn(s)

    def _just_loaded(self, s: RiffRaffState, late: bool) -> int | None:
        """The piece RR12's exception may give back: the one just loaded in this turn."""
        if s.own_catch == "box":
            return None  # the Korean text: every caught piece leaves the game
        if not late:
            return s.turn.loaded_ids[-1] if s.turn.loaded_ids else None
        if s.rules_edition == 1 and s.last_turn_loaded_ids:
            return s.last_turn_loaded_ids[-1]
        return None  # pinned: pieces caught in a late fall are boxed

    def _apply_shift(self, s: RiffRaffState, a: act.Shift) -> None:
        """RR13: a piece dropped or slid onto another zone and stayed aboard. No player, no
        turn ends; exactly that piece moves, and RR9 counts it where it now lies."""
        known_item(a.item, "item")
        start = known_zone(a.from_zone, "from")
        end = known_zone(a.to_zone, "to")
        if start == end:
            raise Rejected(f"a shift moves a piece to another zone, not from {start} to {end}")
        piece = newest_on_zone(s, a.item, start, set())
        if piece is None:
            raise Rejected(f"no {a.item} lies on zone {start} ({describe_zone(s, start)}; RR13a)")
        s.ship[start].remove(piece)
        s.ship[end].append(piece)

    # -- checks shared by the actions ------------------------------------------------------

    def _open_turn(self, s: RiffRaffState, player: str) -> Turn:
        self._seat(s, player)
        if s.phase != "turn":
            raise Rejected(f"no turn is open; {self._now(s)}")
        if player != s.turn.player:
            raise Rejected(f"it is {s.turn.player}'s turn, not {player}'s")
        return s.turn

    def _now(self, s: RiffRaffState) -> str:
        if s.phase == "choose":
            waiting = [p for p in s.players if p not in s.hidden_cards]
            return f"round {s.round}: waiting for {', '.join(waiting)} to choose a card"
        if s.phase == "decide":
            d = s.decision
            what = "the new captain" if d.kind == "captain" else "who goes next"
            return f"waiting for {d.by} to choose {what} among {', '.join(d.among)}"
        return f"it is {s.turn.player}'s turn on zone {s.turn.target_zone}"
