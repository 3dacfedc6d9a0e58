"""Rules tests: an action the rules refuse changes nothing anybody sees."""

from __future__ import annotations

from typing import Any

import pytest

from bosun.games import Rejected
from bosun.games.match import Match


def refused(match: Match, kind: str, reason: str, **fields: Any) -> str:
    """Submit an action that must be rejected with `reason` and change nothing: not the
    public view, not any player's own view (their cards), not the log."""
    before, log_length = match.view(), len(match.log)
    private = {p: match.view(p) for p in (before or {}).get("players", [])}
    with pytest.raises(Rejected, match=reason) as err:
        match.submit({"type": kind, **fields})
    assert match.view() == before
    assert {p: match.view(p) for p in private} == private
    assert len(match.log) == log_length
    return str(err.value)
