"""Building blocks of a report page: the document, metric cards, option lists, data tables.

Every number a page shows is written by these helpers:
cards and option lists as HTML (with the value at full precision in ``data-value``),
data tables as JSON (``repr`` of every float, so the page holds the API's values bit for bit)
that the page's script renders, pages, sorts and filters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
import html
import json
import math

import numpy as np
import pandas as pd

from audeval._html.assets import CSS, JS


POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; media-src * data: blob:"
)
"""Content security policy of a page: nothing is loaded but the page itself (and audio)."""


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


def json_value(value: object) -> object:
    """A JSON-able value: non-finite floats as the strings ``NaN``, ``Infinity``."""
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if value is None or isinstance(value, (int, str, bool)):
        return value
    if isinstance(value, pd.Timedelta):
        return value.total_seconds()
    return str(value)


def column_values(values: Sequence | np.ndarray | pd.Series) -> list:
    """One table column as JSON-able values (floats at full precision)."""
    if isinstance(values, list):
        return [v if type(v) is str else json_value(v) for v in values]
    array = np.asarray(values)
    if array.dtype.kind in "fiub":
        out = array.tolist()
        if array.dtype.kind == "f":
            bad = np.flatnonzero(~np.isfinite(array))
            for i in bad.tolist():
                out[i] = json_value(array[i])
        return out
    return [json_value(v) for v in array.tolist()]


def json_block(identifier: str, data: object) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = text.replace("</", "<\\/").replace("<!--", "<\\!--")
    return f'<script type="application/json" id="{escape(identifier)}">{text}</script>'


@dataclasses.dataclass(frozen=True)
class Column:
    """A column of a data table: JSON key, title, ``num`` or ``text``, decimals, filter."""

    key: str
    title: str
    type: str = "num"
    digits: int = 3
    filter: str | None = None  # "text" (by name) or "labels" (a list per row)
    link: bool = False  # a link to the anchor of the value (its timeline)
    help: str | None = None

    def spec(self) -> dict:
        out = {"key": self.key, "title": self.title, "type": self.type, "digits": self.digits}
        for name in ("filter", "help"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.link:
            out["link"] = True
        return out


def data_table(
    identifier: str,
    columns: Sequence[Column],
    values: Mapping[str, Sequence],
    *,
    labels: Sequence[str] | None = None,
    anchors: Mapping[str, str] | None = None,
    page_size: int = 50,
    total_rows: Sequence[str] = (),
    range_column: str | None = None,
) -> str:
    """A paged, sortable, filterable table: an empty host and its JSON rows."""
    lists = [column_values(values[c.key]) for c in columns]
    rows = [list(row) for row in zip(*lists)]
    spec: dict = {
        "columns": [c.spec() for c in columns],
        "rows": rows,
        "page_size": int(page_size),
    }
    if labels is not None:
        spec["labels"] = [str(label) for label in labels]
    if anchors:
        spec["anchors"] = {str(k): v for k, v in anchors.items()}
    if total_rows:
        spec["total_rows"] = list(total_rows)
    if range_column is not None:
        spec["range_column"] = [c.key for c in columns].index(range_column)
    source = f"{identifier}-data"
    return (
        f'<div class="dtable" id="{escape(identifier)}" data-source="{escape(source)}"></div>\n'
        + json_block(source, spec)
    )


def number_text(value: float, digits: int = 3) -> str:
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


@dataclasses.dataclass(frozen=True)
class Headline:
    """A headline number: key, name, value and its bootstrap interval (or NaN)."""

    key: str
    name: str
    value: float
    low: float = math.nan
    high: float = math.nan
    help: str = ""


def cards(headlines: Sequence[Headline], confidence: float | None) -> str:
    """The headline numbers as cards; the value at full precision in ``data-value``."""
    out = ['<div class="cards">']
    for h in headlines:
        interval = ""
        if confidence is not None and not (math.isnan(h.low) and math.isnan(h.high)):
            interval = (
                f'<div class="ci" data-low="{float(h.low)!r}" data-high="{float(h.high)!r}">'
                f"{confidence:.0%} CI [{number_text(h.low)}, {number_text(h.high)}]</div>"
            )
        out.append(
            f'<div class="card" data-metric="{escape(h.key)}" data-value="{float(h.value)!r}" '
            f'title="{escape(h.help)}"><div class="name">{escape(h.name)}</div>'
            f'<div class="value">{number_text(h.value)}</div>{interval}</div>'
        )
    out.append("</div>")
    return "\n".join(out)


def option_text(value: object) -> str:
    if isinstance(value, pd.Timedelta):
        return f"{value.total_seconds():g} s"
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def options_table(options: Mapping[str, object]) -> str:
    rows = "".join(
        f'<tr data-option="{escape(k)}"><th>{escape(k)}</th><td>{escape(option_text(v))}</td></tr>'
        for k, v in options.items()
    )
    return f'<table class="options">{rows}</table>'


def static_table(frame: pd.DataFrame, identifier: str, digits: int = 3) -> str:
    """A small table (a few rows) written out as HTML, index as the first column."""
    head = "".join(
        f'<th class="text">{escape(n or "")}</th>' for n in frame.index.names
    ) + "".join(f"<th>{escape(c)}</th>" for c in frame.columns)
    body = []
    keys = frame.index.tolist()
    columns = []
    for name in frame.columns:  # cells per column: integers without decimals
        values = frame[name]
        integer = pd.api.types.is_integer_dtype(values.dtype)
        numeric = pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)
        columns.append([
            f'<td data-value="{float(v)!r}">{number_text(v, 0 if integer else digits)}</td>'
            if numeric else f'<td class="text">{escape(v)}</td>'
            for v in values.tolist()
        ])
    for position, key in enumerate(keys):
        key = key if isinstance(key, tuple) else (key,)
        cells = "".join(f'<td class="text">{escape(k)}</td>' for k in key)
        cells += "".join(column[position] for column in columns)
        body.append(f"<tr>{cells}</tr>")
    return (
        f'<div class="scroll"><table id="{escape(identifier)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def section(identifier: str, title: str, body: str, note: str = "") -> str:
    note = f'<p class="note">{note}</p>' if note else ""
    return f'<section id="{escape(identifier)}"><h2>{escape(title)}</h2>{note}\n{body}\n</section>'


def document(title: str, lines: Sequence[str], sections: Sequence[tuple[str, str, str]]) -> str:
    """The whole page: ``sections`` are ``(identifier, title, html)``; a menu links them."""
    menu = "".join(f'<a href="#{escape(i)}">{escape(t)}</a>' for i, t, _ in sections)
    intro = "".join(f"<p>{line}</p>" for line in lines)
    body = "\n".join(html_ for _, _, html_ in sections)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="audeval">\n'
        f"<title>{escape(title)}</title>\n<style>{CSS}</style></head>\n"
        f"<body><header><h1>{escape(title)}</h1>{intro}<nav>{menu}</nav></header>\n"
        f"<main>\n{body}\n</main>\n<script>{JS}</script>\n</body></html>\n"
    )
