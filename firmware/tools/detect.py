"""Run the shipsense detector over a trace under MicroPython (or CPython), one event a line.

    micropython firmware/tools/detect.py TRACE.csv [ITEMS.json]

Prints exactly what `bosun detect TRACE.csv --items ITEMS.json` prints. Exit status 0 on
success, 2 for a bad trace or items file (the error names the line and column).
"""

import sys

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from typing import NoReturn


def _library_path() -> str:
    # the script lives in firmware/tools; shipsense lives next door in firmware/lib
    here = __file__.replace("\\", "/")
    cut = here.rfind("/")
    folder = here[:cut] if cut >= 0 else "."
    return folder + "/../lib"


sys.path.insert(0, _library_path())

import json  # noqa: E402

from shipsense.offline import detect_trace, items_from_json  # noqa: E402
from shipsense.trace import TraceError  # noqa: E402

USAGE = "usage: detect.py TRACE.csv [ITEMS.json]"


def _fail(message: str) -> "NoReturn":
    sys.stderr.write("detect: " + message + "\n")
    sys.exit(2)


def _write(text: str) -> None:
    sys.stdout.write(text + "\n")


def main(argv: "list[str]") -> None:
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        _fail(USAGE)
    items = None
    if len(argv) == 3:
        try:
            with open(argv[2]) as f:
                obj = json.load(f)
        except OSError:
            _fail(f"cannot read items file {argv[2]}")
        except ValueError:
            _fail(f"{argv[2]}: items file is not valid JSON")
        try:
            items = items_from_json(obj)
        except ValueError as error:
            _fail(f"{argv[2]}: {error}")
    try:
        trace = open(argv[1])  # noqa: SIM115 (closed below; `with` would also catch our exit)
    except OSError:
        _fail(f"cannot read trace file {argv[1]}")
    try:
        detect_trace(trace, items, _write)
    except TraceError as error:
        trace.close()
        _fail(f"{argv[1]}: {error}")
    trace.close()


main(sys.argv)
