"""Riff Raff (Zoch, 2012): stack cargo on a swaying ship without letting it fall."""

from bosun.games.riffraff.engine import RiffRaff
from bosun.games.riffraff.state import ITEMS, ZONES

__all__ = ["ITEMS", "ZONES", "RiffRaff"]
