"""Trace CSV reading with validation, in the common subset of MicroPython and CPython.

A trace is DESIGN.md's CSV: header `t_ms,z1,...,z10,table_g,impact`, one row a sample.
`read_trace(lines)` yields `(line_no, t_ms, zones_g, table_g, impact)` one row at a time
(bounded memory) and raises `TraceError` naming the line and column of the first problem.

Numbers are parsed by `parse_decimal` with integer arithmetic, so CPython and MicroPython get
bit-identical floats from the same text (and NaN, inf or "1_000" are refused, not read).
"""

from shipsense.protocol import TRACE_COLUMNS
from shipsense.ship_messages import MAX_T_MS

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

HEADER = TRACE_COLUMNS
ZONE_COLUMNS = TRACE_COLUMNS[1:-2]
# Load-cell grams beyond this are a broken channel or a corrupt file, not a game piece.
MAX_ABS_GRAMS = 1000000.0


class TraceError(ValueError):
    """A trace file is malformed: `line` (1-based), `column` (name or None) and what was wrong."""

    def __init__(self, line: int, column: "str | None", problem: str) -> None:
        self.line = line
        self.column = column
        self.problem = problem
        text = f"line {line}, column {column}: {problem}" if column else f"line {line}: {problem}"
        super().__init__(text)


def parse_decimal(text: str) -> "float | None":
    """A float from decimal text like `-12.5` or `1.2e3`, or None if it is not one.

    Digits are gathered as an integer and scaled once, so the result is the correctly
    rounded double on both CPython and MicroPython (digits past the 15th are dropped).
    """
    n = len(text)
    i = 0
    negative = False
    if i < n and text[i] in "+-":
        negative = text[i] == "-"
        i += 1
    mantissa = 0
    digits = 0
    scale = 0
    seen_point = False
    while i < n:
        c = text[i]
        if "0" <= c <= "9":
            if digits < 15:
                mantissa = mantissa * 10 + (ord(c) - 48)
                if mantissa:
                    digits += 1
                if seen_point:
                    scale -= 1
            elif not seen_point:
                scale += 1
            i += 1
        elif c == "." and not seen_point:
            seen_point = True
            i += 1
        else:
            break
    start_digits = i
    # there must be at least one digit somewhere before an exponent
    body = text[1 if text[:1] in ("+", "-") else 0 : start_digits]
    if body in ("", "."):
        return None
    if i < n and text[i] in "eE":
        i += 1
        exp_negative = False
        if i < n and text[i] in "+-":
            exp_negative = text[i] == "-"
            i += 1
        exp_start = i
        exponent = 0
        while i < n and "0" <= text[i] <= "9":
            if exponent < 10000:
                exponent = exponent * 10 + (ord(text[i]) - 48)
            i += 1
        if i == exp_start:
            return None
        scale += -exponent if exp_negative else exponent
    if i != n:
        return None
    if mantissa == 0:
        value = 0.0
    elif scale > 300 or scale < -300:
        return None
    elif scale >= 0:
        value = float(mantissa * 10**scale)
    else:
        value = mantissa / 10**-scale
    return -value if negative else value


def _number(text: str, line_no: int, column: str) -> float:
    value = parse_decimal(text)
    if value is None:
        if text == "":
            raise TraceError(line_no, column, "is empty, a number is needed")
        low = text.lower()
        if "nan" in low or "inf" in low:
            raise TraceError(line_no, column, f"{text!r} is not a finite number")
        raise TraceError(line_no, column, f"{text!r} is not a number")
    return value


def check_header(text: str, line_no: int = 1) -> None:
    """Raise TraceError unless `text` is exactly the trace header (whitespace aside)."""
    names = [name.strip() for name in text.strip().split(",")]
    if names == list(HEADER):
        return
    if not text.strip():
        raise TraceError(line_no, None, "empty file: expected the header " + ",".join(HEADER))
    missing = [name for name in HEADER if name not in names]
    unknown = [name for name in names if name not in HEADER]
    problems = []
    if missing:
        problems.append("missing column(s) " + ", ".join(missing))
    if unknown:
        problems.append("unknown column(s) " + ", ".join(repr(u) for u in unknown))
    if not problems:
        problems.append("columns out of order")
    raise TraceError(
        line_no, None, "bad header: {}; expected {}".format("; ".join(problems), ",".join(HEADER))
    )


def read_trace(
    lines: "Iterable[str | bytes]",
) -> "Iterator[tuple[int, float, list[float], float | None, int | None]]":
    """Yield validated rows `(line_no, t_ms, zones_g, table_g, impact)` from CSV lines.

    `table_g` and `impact` are None when that column is empty; a column must be empty on
    every row or on none (a mat or piezo is fitted for the whole trace or not at all).
    """
    line_no = 0
    header_seen = False
    previous_t = None
    table_fitted = None
    piezo_fitted = None
    n_fields = len(HEADER)
    for raw in lines:
        line_no += 1
        if isinstance(raw, bytes):
            try:
                raw = raw.decode()
            except UnicodeError:
                raise TraceError(line_no, None, "is not UTF-8 text") from None
        text = raw.strip()
        if not header_seen:
            if line_no == 1 and text.startswith("\ufeff"):
                text = text[1:]
            check_header(text, line_no)
            header_seen = True
            continue
        if not text:
            continue  # a blank line (often the last) carries no sample
        fields = text.split(",")
        if len(fields) != n_fields:
            raise TraceError(line_no, None, f"has {len(fields)} fields, the header has {n_fields}")
        t_ms = _number(fields[0].strip(), line_no, "t_ms")
        if t_ms < 0 or t_ms > MAX_T_MS:
            raise TraceError(line_no, "t_ms", f"{fields[0].strip()} ms is out of range")
        if previous_t is not None and not t_ms > previous_t:
            raise TraceError(
                line_no,
                "t_ms",
                f"time {fields[0].strip()} is not after the previous row's "
                f"{_short(previous_t)} (time must increase)",
            )
        previous_t = t_ms
        zones_g = []
        for k in range(10):
            value = _number(fields[k + 1].strip(), line_no, ZONE_COLUMNS[k])
            if value > MAX_ABS_GRAMS or value < -MAX_ABS_GRAMS:
                raise TraceError(line_no, ZONE_COLUMNS[k], f"{fields[k + 1]!r} g is out of range")
            zones_g.append(value)
        table_text = fields[11].strip()
        if table_fitted is None:
            table_fitted = table_text != ""
        if table_fitted:
            if table_text == "":
                raise TraceError(line_no, "table_g", "is empty but earlier rows had a mat value")
            table_g = _number(table_text, line_no, "table_g")
            if table_g > MAX_ABS_GRAMS or table_g < -MAX_ABS_GRAMS:
                raise TraceError(line_no, "table_g", f"{table_text!r} g is out of range")
        else:
            if table_text != "":
                raise TraceError(line_no, "table_g", "has a value but earlier rows had none")
            table_g = None
        impact_text = fields[12].strip()
        if piezo_fitted is None:
            piezo_fitted = impact_text != ""
        if piezo_fitted:
            if impact_text == "0":
                impact = 0
            elif impact_text == "1":
                impact = 1
            elif impact_text == "":
                raise TraceError(line_no, "impact", "is empty but earlier rows had a piezo value")
            else:
                raise TraceError(line_no, "impact", f"{impact_text!r} is not 0 or 1")
        else:
            if impact_text != "":
                raise TraceError(line_no, "impact", "has a value but earlier rows had none")
            impact = None
        yield line_no, t_ms, zones_g, table_g, impact
    if not header_seen:
        raise TraceError(1, None, "empty file: expected the header " + ",".join(HEADER))


def _short(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return repr(value)


def table_mode(table_g: "float | None", impact: "int | None") -> str:
    """The Detector's `table` setting for a row's mat and piezo columns."""
    if table_g is not None and impact is not None:
        return "both"
    if table_g is not None:
        return "mat"
    if impact is not None:
        return "piezo"
    return "none"
