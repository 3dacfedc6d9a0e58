"""bosun: a referee for physical tabletop games."""

__version__ = "0.1.0"
