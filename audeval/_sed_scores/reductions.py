"""PSDS of bootstrap resamples from the per-file threshold deltas (the score family's ``resample``).

A score table holds, per file and label, the changes (deltas) of the counts
at the thresholds where they change.
The counts of a resample at every threshold are the deltas of its files,
each weighted by how often the file was drawn, summed per (label, threshold)
and accumulated from the highest threshold down:
for all resamples at once one sparse product ``(cells x files) @ (files x resamples)``
(no table per resample), then the PSD-ROC of each resample
with the functions of the direct call (:func:`audeval._sed_scores.psd.class_rocs`,
:func:`~audeval._sed_scores.psd.combine`, :func:`~audeval._sed_scores.psd.staircase_area`).
Thresholds at which none of a resample's files changes repeat the previous counts,
which changes neither the staircase's values nor the area.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from audeval._sed_scores import deltas as _deltas
from audeval._sed_scores.psd import class_rocs, combine, staircase_area
from audeval._sed_scores.statistics import TOTALS, Accumulated, _threshold_ranks, label_codes

NS = 1e9
SECONDS_PER_HOUR = 3600.0
CHUNK_BYTES = 2**27
"""Memory of the resampled counts of one chunk of resamples."""


class PsdsResamples:
    """PSDS of resamples (rows of a ``(resamples, files)`` count matrix) of a score table."""

    def __init__(self, table: pd.DataFrame, files: pd.Index, options: Mapping[str, Any]):
        self.alpha_ct = float(options.get("alpha_ct", 0.0))
        self.alpha_st = float(options.get("alpha_st", 1.0))
        self.max_efpr = float(options.get("max_efpr", 100.0))
        index = table.index
        labels, label = label_codes(index)
        self.labels = labels
        n_labels = len(labels)
        file_code = _level_codes(index, "file", files)
        if (file_code < 0).any():
            raise NotImplementedError("files of the table missing from the resampled files")
        levels, rank = _threshold_ranks(index)
        group, out_rank, inverse = _cells(label, rank, len(levels), n_labels)
        self.n_cells = len(group)
        self.threshold = levels[out_rank] if len(levels) else np.zeros(0)
        self.offsets = np.searchsorted(group, np.arange(n_labels + 1))
        columns = ["tp", "fp"]
        if self.alpha_ct != 0.0:
            columns += [f"ct_{name}" for name in labels if f"ct_{name}" in table.columns]
        self.columns = [c for c in columns if c in table.columns]
        n_files = len(files)
        self.cell_label = np.repeat(np.arange(n_labels), np.diff(self.offsets))
        self.deltas = {}
        by_cell = np.argsort(inverse, kind="stable")
        for c in self.columns:
            values = np.asarray(table[c].to_numpy(), dtype=np.float64)
            rows = by_cell[values[by_cell] != 0]
            cell = inverse[rows]
            # per cell: the prefix of rows up to its end; per label: up to its start
            end = np.searchsorted(cell, np.arange(self.n_cells), side="right")
            start = np.searchsorted(cell, self.offsets[:-1], side="left")
            self.deltas[c] = (file_code[rows], values[rows], end, start)
            if c == "fp":
                self.fp_cells = cell
        self.bounds = _fp_bounds(
            np.asarray(table["fp"].to_numpy(), dtype=np.int64), file_code, label, inverse,
            self.offsets, n_files,
        )
        self.totals = {}
        for c in TOTALS:
            if c in table.columns:
                grid = np.zeros((n_files, n_labels))
                np.add.at(grid, (file_code, label), np.asarray(table[c].to_numpy(), dtype=np.float64))
                self.totals[c] = grid
        bound = sum(float(np.abs(d[1]).sum()) for d in self.deltas.values())
        if bound * max(n_files, 1) >= 2.0**53:
            raise NotImplementedError("counts beyond exact float sums")

    def _summed(self, block: np.ndarray, columns, cells: np.ndarray | None = None) -> dict:
        """Counts of every resample (rows of ``block``) at the cells: ``(resamples, cells)``.

        The weighted deltas of each column's nonzero rows (sorted by cell)
        are summed cumulatively; a cell's count is the sum up to its last row
        minus the sum before its label's first row (exact: integers below 2**53).
        """
        cells = np.arange(self.n_cells) if cells is None else cells
        sums = {}
        for c in columns:
            file, value, end, start = self.deltas[c]
            # the rows up to the last cell asked for in each label (rows are sorted by cell)
            label_end = np.full(len(self.labels), -1)
            np.maximum.at(label_end, self.cell_label[cells], cells)
            stop = np.where(label_end >= 0, end[np.maximum(label_end, 0)], start)
            rows = np.concatenate(
                [np.arange(a, b) for a, b in zip(start, stop)] or [np.zeros(0, dtype=np.int64)]
            )
            before = np.cumsum(np.append(0, (stop - start)[:-1]))  # kept rows of earlier labels
            shift = start - before  # row position -> position among the kept rows
            running = np.zeros((len(block), len(rows) + 1))
            np.multiply(block[:, file[rows]], value[rows], out=running[:, 1:])
            np.cumsum(running[:, 1:], axis=1, out=running[:, 1:])
            label = self.cell_label[cells]
            sums[c] = running[:, end[cells] - shift[label]] - running[:, (start - shift)[label]]
        return sums

    def _budget(self, duration: np.ndarray) -> np.ndarray:
        """Per resample and label, the largest fp within ``max_efpr`` (with a margin)."""
        seconds = duration / NS  # (resamples, labels)
        return np.where(seconds > 0, self.max_efpr * (1 + 1e-6) * seconds / SECONDS_PER_HOUR, np.inf)

    def _reachable(self, fp: np.ndarray, duration: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """Positions in ``cells`` whose eFPR is within ``max_efpr`` in some resample
        (a superset: cross triggers only add to the eFPR, and the bound has a margin);
        class_rocs leaves every other cell out first."""
        budget = self._budget(duration)[:, self.cell_label[cells]]
        return np.flatnonzero((fp <= budget).any(axis=0))

    def _below_bounds(self, block: np.ndarray, duration: np.ndarray) -> np.ndarray:
        """Cells before, in every label, the first grid cell at which the lower bound
        of fp (of all cells from there on) exceeds the budget in every resample."""
        grid_cell, grid_label, floor = self.bounds
        budget = self._budget(duration)[:, grid_label]
        over = (block @ floor) > budget  # (resamples, grid)
        cut = self.offsets[1:].copy()
        for k, (s, e) in enumerate(zip(self.offsets[:-1], self.offsets[1:])):
            at = np.flatnonzero(grid_label == k)
            if not len(at):
                continue
            blocked = over[:, at]
            # per resample the first grid cell from which nothing counts (else the label's end)
            first = np.where(blocked.any(axis=1), grid_cell[at][np.argmax(blocked, axis=1)], e)
            cut[k] = first.max()
        keep = np.arange(self.n_cells) < cut[self.cell_label]
        return np.flatnonzero(keep)

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.float64)
        out = np.empty(len(counts))
        rows = max([len(d[1]) for d in self.deltas.values()] + [self.n_cells, 1])
        width = max(1, CHUNK_BYTES // (8 * rows))
        for at in range(0, len(counts), width):
            block = counts[at : at + width]
            totals = {c: block @ grid for c, grid in self.totals.items()}
            # cells beyond the lower bound of fp of every resample cannot count: the rest
            candidates = self._below_bounds(block, totals["duration"])
            fp = self._summed(block, ["fp"], candidates)["fp"]
            cells = candidates[self._reachable(fp, totals["duration"], candidates)]
            sums = self._summed(block, [c for c in self.columns if c != "fp"], cells)
            sums["fp"] = fp[:, np.searchsorted(candidates, cells)]
            kept = {c: np.rint(v).astype(np.int64) for c, v in sums.items()}
            cell_label = self.cell_label[cells]
            offsets = np.searchsorted(cell_label, np.arange(len(self.labels) + 1))
            threshold = self.threshold[cells]
            for r in range(len(block)):
                acc = Accumulated(
                    self.labels, offsets, threshold,
                    {c: kept[c][r] for c in self.columns}, {c: t[r] for c, t in totals.items()},
                )
                rocs = class_rocs(acc, self.alpha_ct, self.max_efpr)
                etpr, efpr = combine(rocs, len(self.labels), self.alpha_st, self.max_efpr)
                out[at + r] = (
                    staircase_area(etpr, efpr, self.max_efpr) / self.max_efpr if len(etpr) else 0.0
                )
        return out


def _level_codes(index: pd.Index, name: str, target: pd.Index) -> np.ndarray:
    """Position in ``target`` of every row's value of level ``name`` (-1: not there),
    through the level's codes (no per-row values)."""
    if isinstance(index, pd.MultiIndex):
        position = index.names.index(name)
        values = pd.Index(np.asarray(index.levels[position], dtype=object), dtype=object)
        mapping = np.append(target.get_indexer(values), -1)
        return mapping[np.asarray(index.codes[position], dtype=np.int64)]
    return target.get_indexer(pd.Index(np.asarray(index, dtype=object), dtype=object))


def _cells(label, rank, n_levels: int, n_labels: int):
    """Distinct (label, threshold) cells by label, threshold descending, and each row's cell
    (as :func:`audeval._sed_scores.statistics.accumulate`: a counting sort where the grid is small)."""
    n_levels = max(int(n_levels), 1)
    n_grid = n_labels * n_levels
    if n_grid > 16 * len(rank) + 2**20:
        return _deltas.level_keys(label, rank, n_levels)
    key = label.astype(np.int64) * n_levels + (n_levels - 1 - rank.astype(np.int64))
    used = np.zeros(n_grid, dtype=bool)
    used[key] = True
    cells = np.flatnonzero(used)
    inverse = np.cumsum(used, dtype=np.int64)[key] - 1
    return cells // n_levels, n_levels - 1 - cells % n_levels, inverse


def _fp_bounds(fp, file_code, label, inverse, offsets, n_files, per_label: int = 64):
    """Per file and grid cell ``k``: the least fp of the file at ``k`` or any later cell
    of the label (a lower bound of the fp of every later cell; the fp of a resample
    at those cells is at least the drawn files' bounds summed).

    Returns the grid cells, their labels and the ``(files, grid)`` bounds.
    """
    n_labels = len(offsets) - 1
    grid_cell: list | np.ndarray
    grid_label: list | np.ndarray
    grid_cell, grid_label = [], []
    for k in range(n_labels):
        s, e = int(offsets[k]), int(offsets[k + 1])
        if e > s:
            cells = np.unique(np.linspace(s, e - 1, min(per_label, e - s)).astype(np.int64))
            grid_cell.append(cells)
            grid_label.append(np.full(len(cells), k))
    grid_cell = np.concatenate(grid_cell) if grid_cell else np.zeros(0, dtype=np.int64)
    grid_label = np.concatenate(grid_label) if grid_label else np.zeros(0, dtype=np.int64)
    n_cells = int(offsets[-1])
    group = file_code * n_labels + label
    key = group * n_cells + inverse
    if len(key) > 1 and not (key[1:] >= key[:-1]).all():  # tables are made in this order
        order = np.argsort(key, kind="stable")
        group, cell, delta, key = group[order], inverse[order], fp[order], key[order]
    else:
        cell, delta = inverse, fp
    first = np.ones(len(group), dtype=bool)
    first[1:] = group[1:] != group[:-1]
    total = np.cumsum(delta)
    start = np.flatnonzero(first)
    running = total - np.repeat(total[start] - delta[start], np.diff(np.append(start, len(group))))
    # the least running value from each row to the end of its group
    span = int(np.abs(running).max(initial=0)) * 2 + 1
    shifted = running + group * span
    least = np.minimum.accumulate(shifted[::-1])[::-1] - group * span
    # per (file, grid cell): the value at the cell, and the least of the rows after it
    files = np.arange(n_files)
    query_group = files[:, None] * n_labels + grid_label[None, :]
    query = query_group * n_cells + grid_cell[None, :]
    at = np.searchsorted(key, query.ravel(), side="right").reshape(query.shape) - 1
    same = (at >= 0) & (group[np.maximum(at, 0)] == query_group)
    value = np.where(same, running[np.maximum(at, 0)], 0)
    nxt = at + 1
    later = (nxt < len(group)) & (group[np.minimum(nxt, len(group) - 1)] == query_group)
    bound = np.where(later, np.minimum(value, least[np.minimum(nxt, len(group) - 1)]), value)
    return grid_cell, grid_label, bound.astype(np.float64)


def resample(table: pd.DataFrame, files: pd.Index, options: Mapping[str, Any]):
    """The resampled values of a metric of a score table (``None``: no array path for it)."""
    if options["metric"] != "psds":
        return None
    return PsdsResamples(table, files, options)


__all__ = ["PsdsResamples", "resample"]
