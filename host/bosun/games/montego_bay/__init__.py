"""Montego Bay (Queen Games, 2009): workers fetch barrels from warehouses onto ships."""

from bosun.games.montego_bay.engine import MontegoBay
from bosun.games.montego_bay.game_data import (
    GameData,
    GameDataError,
    default_game_data,
    load_game_data,
)

__all__ = ["GameData", "GameDataError", "MontegoBay", "default_game_data", "load_game_data"]
