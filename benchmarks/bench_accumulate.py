"""Accumulator over many small batches against one direct call (issue 32 item 2, issue 31).

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_accumulate.py [--quick] [--repeat N]

Data (``benchmarks/_data.py``, seeded): DCASE-like recordings of 1,000 s
with 1,000 events each (1,000 files, 1M truth events; ``--quick``: 100 files),
DCASE tolerances (0.2 s onset and offset, 50 % of the length).
The batches are built before timing, as a validation loop receives them:
one file per batch, each a fresh Series.

Printed: CPU time (``time.process_time``, median of interleaved runs) of

* ``event_fscore`` on all files at once (the direct call),
* an :class:`audeval.Accumulator` fed one batch per file, then ``compute()``,
  without and with ``files_duration`` (the durations of all files),

and the ratios to the direct call (target <= 3x).
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the audeval of this checkout

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import _data  # noqa: E402
from _timing import interleaved_with_results as interleaved  # noqa: E402
import audeval  # noqa: E402


OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)


def fresh(series: pd.Series) -> pd.Series:
    """A copy on its own index (as a data loader makes it), not a view of the big one."""
    index = series.index
    levels = [np.asarray(index.get_level_values(0), dtype=object), index.get_level_values(1), index.get_level_values(2)]
    return pd.Series(
        series.to_numpy(), index=pd.MultiIndex.from_arrays(levels, names=index.names), dtype=series.dtype
    )


def one_file_batches(truth: pd.Series, prediction: pd.Series) -> list[tuple[pd.Series, pd.Series]]:
    """One (truth, prediction) batch per file."""
    truth, prediction = truth.sort_index(), prediction.sort_index()
    out = []
    sides = []
    for series in (truth, prediction):
        codes, names = pd.factorize(series.index.get_level_values("file"), sort=True)
        sides.append((np.searchsorted(codes, np.arange(len(names) + 1)), names))
    (t_bounds, t_names), (p_bounds, p_names) = sides
    p_position = {name: k for k, name in enumerate(p_names)}
    for k, name in enumerate(t_names):
        j = p_position.get(name)
        t = truth.iloc[t_bounds[k]:t_bounds[k + 1]]
        p = prediction.iloc[p_bounds[j]:p_bounds[j + 1]] if j is not None else prediction.iloc[:0]
        out.append((fresh(t), fresh(p)))
    return out




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 files instead of 1,000")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs (median)")
    args = parser.parse_args()
    n_files = 100 if args.quick else 1000
    truth, prediction, durations = _data.dcase(
        n_files * 1000, events_per_file=1000, clip_seconds=1000
    )
    batches = one_file_batches(truth, prediction)

    def direct():
        return audeval.event_fscore(truth, prediction, **OPTIONS)

    def accumulate(files_duration=None):
        accumulator = audeval.Accumulator(audeval.event_fscore, files_duration=files_duration, **OPTIONS)
        for t, p in batches:
            accumulator.update(t, p)
        return accumulator.compute()

    times, values = interleaved(
        {
            "direct event_fscore": direct,
            "Accumulator": accumulate,
            "Accumulator, files_duration": lambda: accumulate(durations),
        },
        repeat=args.repeat,
    )
    assert len(set(values.values())) == 1, values  # every path gives the direct number
    print(f"{n_files} files of 1,000 s, {len(truth):,} truth and {len(prediction):,} predicted events, "
          f"{len(batches)} batches of one file; load {os.getloadavg()[0]:.1f}")
    base = times["direct event_fscore"]
    for name, seconds in times.items():
        print(f"  {name:32s} {seconds:8.3f} s CPU  {seconds / base:5.2f}x")


if __name__ == "__main__":
    main()
