"""Growth of the diarization error rate in the number of files (issue 32: no cliff).

Times ``audeval.diarization_error_rate`` from the Series (validation included)
on ``benchmarks/_data.conversations`` (2-5 speakers per side, 20-100 turns a file,
the workload of ``bench_growth.py``) at n, 4n and 16n files (default n = 1,000),
as CPU seconds (``time.process_time``): every size once as a warm-up,
then the sizes in turn ``--repeat`` times (interleaved, so that a changing load
meets all sizes alike), and the median per size.
Prints the load average before and after, the time per size and per row,
and the growth exponents ``log(t_4n / t_n) / log 4``, ``log(t_16n / t_4n) / log 4``
and ``log(t_16n / t_n) / log 16`` (linear: 1).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/der_growth.py [--files 1000] [--repeat 7] \\
        [--tree PATH] [--detection]

``--tree``: the source tree whose ``audeval`` is timed (default: this checkout),
e.g. a ``git worktree`` of an older commit, to compare before and after.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="n (files of the smallest size)")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved runs per size")
    parser.add_argument("--tree", default=os.path.dirname(HERE), help="source tree of audeval")
    parser.add_argument("--detection", action="store_true", help="detection_error_rate instead")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.tree))
    sys.path.insert(0, HERE)
    import _data
    import _timing
    import audeval

    function = audeval.detection_error_rate if args.detection else audeval.diarization_error_rate
    sizes = [args.files, 4 * args.files, 16 * args.files]
    calls, rows = {}, {}
    for n in sizes:
        truth, prediction, durations = _data.conversations(n)
        rows[n] = len(truth) + len(prediction)
        calls[n] = (lambda t=truth, p=prediction, d=durations: function(t, p, files_duration=d))
    load_before = os.getloadavg()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        times, values = _timing.interleaved_with_results(calls, repeat=args.repeat)
    load_after = os.getloadavg()
    print(f"audeval from {os.path.dirname(os.path.dirname(audeval.__file__))}")
    print(f"{function.__name__}, conversations of 2-5 speakers, median of {args.repeat} interleaved runs")
    print(f"load average (1, 5, 15 min) before {load_before}, after {load_after}")
    for n in sizes:
        print(
            f"{n:>7,} files {rows[n]:>10,} rows  {times[n] * 1e3:9.1f} ms  "
            f"{times[n] / rows[n] * 1e9:6.0f} ns/row  value {values[n]:.6f}"
        )
    exponents = {
        "n -> 4n": math.log(times[sizes[1]] / times[sizes[0]]) / math.log(4),
        "4n -> 16n": math.log(times[sizes[2]] / times[sizes[1]]) / math.log(4),
        "n -> 16n": math.log(times[sizes[2]] / times[sizes[0]]) / math.log(16),
    }
    print("growth exponents: " + ", ".join(f"{k} {v:.2f}" for k, v in exponents.items()))
    return {"times": times, "rows": rows, "exponents": exponents, "values": values}


if __name__ == "__main__":
    main()
