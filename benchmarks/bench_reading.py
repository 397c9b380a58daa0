"""Reading annotations: :func:`audeval.read_annotations` against what a user writes by hand.

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_reading.py [--rows 1000000] [--repeat 5]

Data: DCASE-like 10 s clips (:func:`_data.dcase`, 10 events per clip) written as a DCASE tsv
(``filename``, ``onset``, ``offset``, ``event_label``, seconds with 3 decimals),
and the same events as a headerless MIREX list (``onset``, ``offset``, ``label``).
Timed (CPU seconds, median of ``repeat`` interleaved runs after a warm-up):

* ``by hand``: ``pandas.read_csv`` + ``audformat.segmented_index`` + ``pandas.Series``
  (no checks; SPEC section 9 target: ``read_annotations`` <= 1.5x this);
* ``read_annotations``: the reader (checks, ``file:line`` messages, files without events);
* ``line parser``: the same reader with the ``read_csv`` path switched off
  (``audeval._io.table.MIN_BYTES``), as before issue 32;
* ``read_csv alone``: ``pandas.read_csv`` with default options.

``--quick`` uses 100k rows and 3 runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout

import audformat  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import _data  # noqa: E402
from _timing import interleaved  # noqa: E402
import audeval  # noqa: E402
from audeval._io import table as _read_table


def write_lists(folder: str, n_rows: int) -> dict[str, str]:
    truth, _, _ = _data.dcase(n_rows)
    index = truth.index
    table = pd.DataFrame({
        "filename": index.get_level_values("file"),
        "onset": index.get_level_values("start").total_seconds().round(3),
        "offset": index.get_level_values("end").total_seconds().round(3),
        "event_label": truth.astype(str).to_numpy(),
    })
    paths = {"dcase": os.path.join(folder, "truth.tsv"), "mirex": os.path.join(folder, "truth.txt")}
    table.to_csv(paths["dcase"], sep="\t", index=False)
    table[["onset", "offset", "event_label"]].to_csv(paths["mirex"], sep="\t", index=False, header=False)
    return paths


def by_hand(path: str, header: bool) -> pd.Series:
    if header:
        table = pd.read_csv(path, sep="\t")
        files = table["filename"]
    else:
        table = pd.read_csv(path, sep="\t", header=None, names=["onset", "offset", "event_label"])
        files = np.full(len(table), os.path.splitext(os.path.basename(path))[0], dtype=object)
    index = audformat.segmented_index(files, table["onset"], table["offset"])
    return pd.Series(table["event_label"].to_numpy(), index=index)


def line_parser(path: str) -> pd.Series:
    keep = _read_table.MIN_BYTES
    _read_table.MIN_BYTES = float("inf")
    try:
        return audeval.read_annotations(path)
    finally:
        _read_table.MIN_BYTES = keep




def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-line-parser", action="store_true", help="skip the slow line parser")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.repeat = 100_000, 3
    with tempfile.TemporaryDirectory() as folder:
        paths = write_lists(folder, args.rows)
        print(f"{args.rows:,} rows, CPU seconds, median of {args.repeat} interleaved runs "
              f"(load {os.getloadavg()[0]:.2f})")
        for kind, path in paths.items():
            header = kind == "dcase"
            reference = by_hand(path, header)
            result = audeval.read_annotations(path)
            assert result.index.equals(reference.index) and (result.to_numpy() == reference.to_numpy()).all()
            functions = {
                "by hand": lambda: by_hand(path, header),
                "read_annotations": lambda: audeval.read_annotations(path),
                "read_csv alone": lambda: pd.read_csv(path, sep="\t", header=0 if header else None),
            }
            if not args.no_line_parser:
                functions["line parser"] = lambda: line_parser(path)
            times = interleaved(functions, repeat=args.repeat)
            print(f"\n{kind} ({os.path.getsize(path) / 1e6:.1f} MB)")
            for name, seconds in times.items():
                print(f"  {name:18s} {seconds:7.3f} s  {seconds / times['by hand']:5.2f}x by hand")


if __name__ == "__main__":
    main()
