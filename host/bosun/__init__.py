"""bosun: a referee for physical tabletop games."""

from importlib.metadata import PackageNotFoundError, version


def bosun_version() -> str:
    """The installed package's version (pyproject.toml says it, once)."""
    try:
        return version("bosun")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


__version__ = bosun_version()
