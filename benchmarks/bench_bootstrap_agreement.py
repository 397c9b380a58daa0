"""Bootstrap of the agreement family on arrays against one direct call (issue 31 item 3).

``bootstrap(fleiss_kappa | krippendorff_alpha, raters, n_boot=1000)`` sums all resamples
as one product of the ``(resamples, files)`` count matrix with the per-file coincidence
columns and reduces them in one call of the family's ``reduce``.
Timed side by side (medians of interleaved runs, CPU time):

* ``direct``: one call of the metric on the raters' annotations,
* ``bootstrap``: 1,000 resamples on arrays,
* ``tables``: the path before (the public metric on a statistics table per resample),
  forced by switching the array path off; ``--table-resamples`` of them,
  reported per 1,000 resamples.

Data: 5 raters x 1,000 files x 10 rows (labels a, b, c; overlaps make label sets).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_bootstrap_agreement.py [--runs 3] [--table-resamples 50]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout

import audformat  # noqa: E402

import audeval  # noqa: E402
from audeval._generic import resample as _resample
from _timing import interleaved_with_results  # noqa: E402


def raters(n_raters: int = 5, n_files: int = 1000, rows: int = 10, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    files = np.repeat([f"f{i:04d}" for i in range(n_files)], rows)
    out = {}
    for r in range(n_raters):
        start = np.round(rng.uniform(0, 55, len(files)), 2)
        end = np.round(start + rng.uniform(0.5, 5, len(files)), 2)
        out[f"r{r}"] = pd.Series(
            rng.choice(list("abc"), len(files)), index=audformat.segmented_index(files, start, end)
        )
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--table-resamples", type=int, default=50)
    args = parser.parse_args(argv)
    data = raters()
    print(f"load: {os.getloadavg()}")
    print("| metric | options | direct CPU s | bootstrap 1000 CPU s | ratio | tables per 1000 CPU s | speed-up |")
    print("|---|---|---|---|---|---|---|")
    of = _resample._Arrays.of
    cases = [
        (audeval.krippendorff_alpha, {}),
        (audeval.fleiss_kappa, {}),
        (audeval.krippendorff_alpha, {"per_label": True, "average": "macro"}),
    ]
    for metric, options in cases:

        def tables(metric=metric, options=options):
            _resample._Arrays.of = lambda *a, **k: None
            try:
                return audeval.bootstrap(metric, data, n_boot=args.table_resamples, seed=0, **options)
            finally:
                _resample._Arrays.of = of

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            times, results = interleaved_with_results(
                {
                    "direct": lambda: metric(data, **options),
                    "bootstrap": lambda: audeval.bootstrap(metric, data, n_boot=1000, seed=0, **options),
                    "tables": tables,
                },
                repeat=args.runs,
            )
        assert results["bootstrap"].value == results["direct"]
        assert results["tables"].value == results["direct"]
        np.testing.assert_allclose(
            results["bootstrap"].distribution[: args.table_resamples], results["tables"].distribution, rtol=1e-9
        )
        per_1000 = times["tables"] * 1000 / args.table_resamples
        print(
            f"| {metric.__name__} | {options} | {times['direct']:.3f} | {times['bootstrap']:.3f} "
            f"| {times['bootstrap'] / times['direct']:.1f} | {per_1000:.1f} "
            f"| {per_1000 / times['bootstrap']:.0f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
