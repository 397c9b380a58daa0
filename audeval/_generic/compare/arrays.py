"""Paired resamples on arrays: the counts every system's reduction reads, summed at once."""

from __future__ import annotations

from collections.abc import Callable
import warnings

import numpy as np
import pandas as pd

from audeval._generic.bootstrap import MIN_FILES, BootstrapWarning, resample_counts
from audeval._core.protocol import Counts
from audeval._generic.resample import _Arrays, _Lazy
from audeval._core.warnings import warn

CHUNK_CELLS = 2**22
"""Count-matrix cells (resamples x files) summed at once: memory independent of ``n_resamples``."""


class _Recorded(_Lazy):
    """A lazy mapping that records the keys a reduction reads."""

    def __init__(self, make: dict, read: set):
        super().__init__(make)
        self._read = read

    def __getitem__(self, key):
        self._read.add(key)
        return super().__getitem__(key)


def _reduced(arrays: _Arrays, position: int | None, summed: Callable) -> np.ndarray:
    """The family's ``reduce`` of the sums ``summed(key)`` (each computed when it is read)."""
    columns = _Lazy({k: (lambda k=k: summed(k)) for k in arrays.values if not isinstance(k, tuple)})
    blocks = _Lazy({k[1]: (lambda k=k: summed(k)) for k in arrays.values if isinstance(k, tuple)})
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = np.asarray(
            arrays.family.reduce(Counts(columns, arrays.labels, blocks, arrays.recorded), arrays.options),
            dtype=np.float64,
        )
    return out if position is None else out[:, position]


def _read_keys(arrays: _Arrays) -> list | None:
    """The columns and blocks the family's ``reduce`` reads for this metric (one probe call)."""
    columns_read: set = set()
    blocks_read: set = set()
    n_files = len(next(iter(arrays.values.values()))) if arrays.values else 0
    ones = np.ones((1, n_files))

    def summed(name):
        return (ones @ arrays.values[name]).reshape((1,) + arrays.shapes[name])

    columns = _Recorded(
        {n: (lambda n=n: summed(n)) for n in arrays.values if not isinstance(n, tuple)}, columns_read
    )
    blocks = _Recorded(
        {n[1]: (lambda n=n: summed(n)) for n in arrays.values if isinstance(n, tuple)}, blocks_read
    )
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            arrays.family.reduce(Counts(columns, arrays.labels, blocks, arrays.recorded), arrays.options)
    except Exception:  # (the resamples call it again and raise there, if at all)
        return None
    return sorted(columns_read, key=str) + [("block", prefix) for prefix in sorted(blocks_read, key=str)]


class _Stacked:
    """The per-file counts that the systems' reductions read, side by side in one
    ``(files, columns)`` matrix over the union of files: every chunk of resamples
    is summed for all systems in one matrix product, then each system's ``reduce`` runs."""

    def __init__(self, sources: dict, names: list, union: pd.Index):
        self.sources = sources
        self.members: dict = {}
        self.full: dict = {}
        parts, offset = [], 0
        for name in names:
            arrays = getattr(sources[name], "arrays", None)
            if not isinstance(arrays, _Arrays):
                continue
            read = _read_keys(arrays)
            if read is None or any(key not in arrays.values for key in read):
                continue
            where = union.get_indexer(sources[name].files)
            full = {}
            for key, values in arrays.values.items():  # on the union of files
                full[key] = np.zeros((len(union), values.shape[1]))
                full[key][where] = values
            entries = {}
            for key in read:
                parts.append(full[key])
                entries[key] = slice(offset, offset + full[key].shape[1])
                offset += full[key].shape[1]
            self.members[name] = entries
            self.full[name] = full
        self.matrix = np.hstack(parts) if parts else np.zeros((len(union), 0))

    def __call__(self, counts: np.ndarray) -> dict:
        """The compared number of every stacked system on every row of ``counts``."""
        sums = counts @ self.matrix
        out = {}
        for name, entries in self.members.items():
            source = self.sources[name]
            arrays = source.arrays
            full = self.full[name]

            def of(key, entries=entries, arrays=arrays, full=full):
                part = sums[:, entries[key]] if key in entries else counts @ full[key]  # (unread: computed)
                return part.reshape((len(counts),) + arrays.shapes[key])

            out[name] = _reduced(arrays, source.position, of)
        return out


def stratified_counts(strata: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``(size, files)`` counts drawing each stratum's files from that stratum only
    (as many as it has): ``strata`` holds a stratum code per file."""
    counts = np.zeros((size, len(strata)), dtype=np.int64)
    for code in np.unique(strata):  # (strata, not files)
        members = np.flatnonzero(strata == code)
        counts[:, members] = resample_counts(len(members), size, rng)
    return counts


def _resample(sources, names, union, n_resamples, interval, rng, strata=None):
    """Paired resamples ``(B, systems)`` (the same files for every system) and the jackknife;
    ``strata``: a stratum code per file of ``union`` (files resampled within their stratum)."""
    n_files = len(union)
    where = {name: union.get_indexer(sources[name].files) for name in names}
    identity = {
        name: len(w) == n_files and bool(np.array_equal(w, np.arange(n_files))) for name, w in where.items()
    }
    stacked = _Stacked(sources, names, union) if n_files >= MIN_FILES else None

    def evaluate(counts, out, rows):
        done = stacked(counts)
        for k, name in enumerate(names):
            if name in done:
                out[rows, k] = done[name]
            else:
                out[rows, k] = sources[name](counts if identity[name] else counts[:, where[name]])

    if n_files < MIN_FILES:
        warn(
            f"the bootstrap over files needs at least {MIN_FILES} files; got {n_files}: "
            "the intervals (and the bootstrap's p-values) are NaN.",
            BootstrapWarning,
        )
        return np.zeros((0, len(names))), None
    distribution = np.empty((n_resamples, len(names)))
    chunk = max(1, min(n_resamples, CHUNK_CELLS // n_files))
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        if strata is None:
            counts = resample_counts(n_files, size, rng).astype(np.float64)
        else:
            counts = stratified_counts(strata, size, rng).astype(np.float64)
        evaluate(counts, distribution, slice(done, done + size))
        done += size
    jackknife = None
    if interval == "bca":
        jackknife = np.empty((n_files, len(names)))
        chunk = max(1, min(n_files, CHUNK_CELLS // n_files))
        for first in range(0, n_files, chunk):
            rows = np.arange(first, min(n_files, first + chunk))
            counts = np.ones((len(rows), n_files))
            counts[np.arange(len(rows)), rows] = 0.0
            evaluate(counts, jackknife, rows)
    return distribution, jackknife


