"""Start-up cost: ``import audeval`` and ``audeval --help`` against ``import pandas``.

Run::

    python benchmarks/bench_import.py [--repeat 15] [--baseline PATH]

Each command runs in a fresh interpreter; its CPU time (user + system) is read from
``resource.getrusage(RUSAGE_CHILDREN)``, the commands run in turn ``repeat`` times
(after one warm-up each), so that a busy machine slows them alike; printed are the medians
and the extra CPU time over ``import pandas`` (target of SPEC section 9: <= 0.2 s).
The modules' bytecode is cached (in a temporary ``PYTHONPYCACHEPREFIX``, written by the
warm-up), as in an installed package, also where ``PYTHONDONTWRITEBYTECODE`` is set;
``--no-bytecode`` times the compilation of every module on every run instead.
``--baseline PATH`` adds the same commands with another copy of the package on
``PYTHONPATH`` (e.g. an older commit unpacked by ``git archive``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HELP = (
    "import contextlib, io\n"
    "from audeval._cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try:\n"
    "        main(['--help'])\n"
    "    except SystemExit:\n"
    "        pass\n"
)


def cpu_seconds(code: str, path: str, cache: str | None) -> float:
    """CPU seconds (user + system) of one fresh interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": path, "OPENBLAS_NUM_THREADS": "1"}
    if cache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    subprocess.run([sys.executable, "-c", code], env=env, cwd=path, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--baseline", help="another copy of the package to compare")
    parser.add_argument("--no-bytecode", action="store_true", help="compile the modules on every run")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        run(args, None if args.no_bytecode else folder)


def run(args: argparse.Namespace, cache: str | None) -> None:
    commands = {
        "python (empty)": ("pass", ROOT),
        "import pandas": ("import pandas", ROOT),
        "import audeval": ("import audeval", ROOT),
        "audeval --help": (HELP, ROOT),
    }
    if args.baseline:
        commands["import audeval (baseline)"] = ("import audeval", args.baseline)
        commands["audeval --help (baseline)"] = (HELP, args.baseline)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for code, path in commands.values():
        cpu_seconds(code, path, cache)
    for _ in range(args.repeat):
        for name, (code, path) in commands.items():
            times[name].append(cpu_seconds(code, path, cache))
    pandas = statistics.median(times["import pandas"])
    how = "compiled every run" if cache is None else "bytecode cached"
    print(f"CPU seconds, median of {args.repeat} interleaved runs, {how} (load {os.getloadavg()[0]:.2f})")
    print(f"{'command':28s} {'median':>8s} {'min':>8s} {'max':>8s} {'- pandas':>9s}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:28s} {median:8.3f} {min(values):8.3f} {max(values):8.3f} {median - pandas:9.3f}")


if __name__ == "__main__":
    main()
