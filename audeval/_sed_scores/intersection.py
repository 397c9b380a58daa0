"""Intersection-based statistics at every threshold (DTC, GTC, CTTC; Bilen et al., ICASSP 2020).

For a detection :math:`d` of class :math:`c` and the truth events :math:`G_c` of its file:

* DTC: :math:`d` is relevant if :math:`\\sum_{g \\in G_c} |d \\cap g| \\ge \\rho_{dtc} |d|`,
  else it is a false positive;
* GTC: a truth event :math:`g` is detected (a true positive) if the relevant
  detections cover :math:`|g \\cap \\bigcup d| \\ge \\rho_{gtc} |g|`;
* CTTC: a false positive :math:`d` is a cross trigger on class :math:`c'`
  (whose file has truth of :math:`c'`) if :math:`\\sum_{g \\in G_{c'}} |d \\cap g| \\ge \\rho_{cttc} |d|`.

The detection tree is built a block of labels at a time (about :data:`CELLS` score cells),
so its memory is a block's, whatever the length of the files.
Intersections with a class's truth come from its covered length before the frame
boundaries: per block, for every frame when the detections are many
(one search of sorted queries), else two searches per detection;
with cross triggers, for every (file, class) with truth (:class:`Coverage`).
A PSD-ROC (``max_efpr``) needs only the thresholds outside each label's band
of thresholds beyond ``max_efpr`` (:mod:`audeval._sed_scores.prune`):
the tree of the scores at or above the band, the tree of the scores clipped
at the band's lowest level (a run at or above it is one element), and the rows above
the band summed into that level.
GTC needs the pairs (relevant detection, truth event) that overlap,
found as contiguous runs of the sorted truth events of the class.
Counts that are sums over detections change at births (+) and deaths (-);
a death is the parent's birth, so where parent and child agree
(both relevant, both on the same truth event, both cross triggers on a class)
the two changes are added before sorting and chains of runs give one row or none.
The cost is linear in frames, truth events and those pairs
plus one sort of the remaining change points,
never unique scores x candidate events.
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import expand_ranges, group_keys
from audeval._sed_scores import deltas as _deltas
from audeval._sed_scores.deltas import Nodes, sum_into
from audeval._sed_scores.inputs import ScoreInputs
from audeval._sed_scores.deltas import label_blocks
from audeval._sed_scores.prune import fp_budget, fp_floor, touched_ranges

NS = 1e9


class Truth:
    """Truth events sorted by ``(group, start)`` with cumulative lengths per group."""

    def __init__(self, inputs: ScoreInputs):
        n_groups = inputs.n_labels * inputs.n_files
        group = inputs.truth_label * inputs.n_files + inputs.truth_file
        keep = inputs.truth_end > inputs.truth_start
        order = np.lexsort((inputs.truth_start[keep], group[keep]))
        self.group = group[keep][order]
        self.start = inputs.truth_start[keep][order]
        self.end = inputs.truth_end[keep][order]
        self.length = self.end - self.start
        self.cumulative = np.cumsum(self.length)
        self.n_groups = n_groups
        self.present = np.zeros(n_groups, dtype=bool)
        self.present[self.group] = True
        # keys ``group * width + time`` where they fit in int64 (else :func:`group_keys`)
        latest = max(int(self.end.max(initial=0)), int(inputs.frame_end.max(initial=0)),
                     int(inputs.durations.max(initial=0)))
        self.width = latest + 1 if float(n_groups) * (latest + 1) < 2.0**62 else None

    def keys(self, *pairs: tuple[np.ndarray, np.ndarray]) -> list[np.ndarray]:
        """int64 keys that order ``(group, time)`` pairs (as :func:`group_keys`)."""
        if self.width is None:  # pragma: no cover - centuries of audio
            return group_keys(self.n_groups, *pairs)
        return [group.astype(np.int64) * self.width + time for group, time in pairs]

    def check_disjoint(self, inputs: ScoreInputs) -> None:
        same = self.group[1:] == self.group[:-1]
        bad = same & (self.start[1:] < self.end[:-1])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            file = inputs.files[self.group[i] % inputs.n_files]
            label = inputs.labels[self.group[i] // inputs.n_files]
            raise ValueError(
                f"truth has overlapping events of one class ({np.count_nonzero(bad)} pairs), "
                f"first in file {file!r}, label {label!r}: "
                f"[{self.start[i] / NS:g}, {self.end[i] / NS:g}) s and "
                f"[{self.start[i + 1] / NS:g}, {self.end[i + 1] / NS:g}) s; "
                "score-based criteria need disjoint events per class (join them first)."
            )

    def covered(self, group: np.ndarray, time: np.ndarray) -> np.ndarray:
        """Truth length of ``group`` before ``time``, offset by all earlier groups (ns)."""
        if len(self.group) == 0:
            return np.zeros(len(group), dtype=np.int64)
        truth_key, query_key = self.keys((self.group, self.start), (group, time))
        j = np.searchsorted(truth_key, query_key, side="right") - 1
        valid = j >= 0
        jj = np.maximum(j, 0)
        same = valid & (self.group[jj] == group)
        partial = np.minimum(time - self.start[jj], self.length[jj])
        value = self.cumulative[jj] - self.length[jj] + np.where(same, partial, self.length[jj])
        return np.where(valid, value, 0)

    def within(self, group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """Truth length of ``group`` within ``[start, end)`` (ns)."""
        both = self.covered(np.concatenate([group, group]), np.concatenate([start, end]))
        return both[len(group):] - both[: len(group)]

    def overlapping(self, group, start, end) -> tuple[np.ndarray, np.ndarray]:
        """Pairs ``(query, truth event)`` that overlap with positive length."""
        end_key, start_key, q_start, q_end = self.keys(
            (self.group, self.end), (self.group, self.start), (group, start), (group, end)
        )
        left = np.searchsorted(end_key, q_start, side="right")
        right = np.searchsorted(start_key, q_end, side="left")
        query, item = expand_ranges(left, right)
        keep = self.group[item] == group[query]
        return query[keep], item[keep]


class Coverage:
    """Truth length of a (file, class) before every frame boundary of its file.

    Kept for the groups with truth only; a run of frames ``first..last`` of such a group
    intersects its truth by the difference of two entries (no search per run).
    """

    def __init__(self, truth: Truth, inputs: ScoreInputs):
        n_files, n = inputs.n_files, len(inputs.frame_start)
        counts = np.bincount(inputs.frame_file, minlength=n_files)  # frames per file
        self.row0 = np.cumsum(counts) - counts  # first row of each file
        self.n_files = n_files
        # boundaries of every file: its frame starts, then the end of its last frame
        bound = np.zeros(n + n_files, dtype=np.int64)
        bound[np.arange(n) + inputs.frame_file] = inputs.frame_start
        has = counts > 0
        final = (self.row0 + counts)[has]  # one past each file's last row
        bound[final + np.flatnonzero(has)] = inputs.frame_end[final - 1]
        groups = np.flatnonzero(truth.present)
        file = groups % n_files
        size = counts[file] + 1
        self.base = np.full(truth.n_groups, -1, dtype=np.int64)
        self.base[groups] = np.cumsum(size) - size
        at = np.repeat(self.row0[file] + file - self.base[groups], size)
        at += np.arange(len(at))
        time = bound[at]
        del bound
        self.value = _covered_sorted(truth, groups, size, time)
        del time
        # rows that truth of any class overlaps, as a running count per row
        inner = np.diff(self.value) > 0  # the truth in the frame from this boundary to the next
        inner[(self.base[groups] + size - 1)[:-1]] = False  # a group's last boundary ends no frame
        touched = np.zeros(n + n_files, dtype=bool)
        touched[at[:-1][inner]] = True
        del at, inner
        self.touched = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(touched[np.arange(n) + inputs.frame_file], out=self.touched[1:])

    def touches(self, first: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Whether truth of any class overlaps frames ``first..last``."""
        return self.touched[last + 1] > self.touched[first]

    def between(self, group: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Truth of ``group`` within frames ``first..last`` (rows of one file), ns."""
        base = self.base[group]
        known = base >= 0
        if not known.any():
            return np.zeros(len(group), dtype=np.int64)
        at = np.where(known, base + first - self.row0[group % self.n_files], 0)
        out = self.value[at + np.where(known, last - first + 1, 0)] - self.value[at]
        return np.where(known, out, 0)


def _frame_coverage(truth: Truth, inputs: ScoreInputs, labels, found: Nodes) -> np.ndarray:
    """Truth of each node's group within its frames, from the truth before every frame
    of the labels ``range(*labels)`` (one search of sorted queries)."""
    c0, c1 = labels
    n_files, n = inputs.n_files, len(inputs.frame_file)
    if len(truth.group) == 0 or n == 0:
        return np.zeros(len(found.group), dtype=np.int64)
    counts = np.bincount(inputs.frame_file, minlength=n_files)
    groups = (np.arange(c0, c1)[:, None] * n_files + np.arange(n_files)[None, :]).ravel()
    before = _covered_sorted(truth, groups, np.tile(counts, c1 - c0), np.tile(inputs.frame_start, c1 - c0))
    before = before.reshape(c1 - c0, n)
    after = np.empty_like(before)  # the truth before every frame's end: the next frame's start
    after[:, :-1] = before[:, 1:]
    last = np.flatnonzero(np.append(inputs.frame_file[1:] != inputs.frame_file[:-1], True))
    label = np.repeat(np.arange(c0, c1), len(last))
    file_last = np.tile(last, c1 - c0)
    after[label - c0, file_last] = truth.covered(label * n_files + inputs.frame_file[file_last],
                                                 inputs.frame_end[file_last])
    label = found.group // n_files - c0
    return after[label, found.last] - before[label, found.first]


def _covered_sorted(truth: Truth, groups, size, time) -> np.ndarray:
    """:meth:`Truth.covered` for queries sorted by group (``size`` times each) and time."""
    width = int(max(time.max(initial=0), truth.end.max(initial=0))) + 1
    if truth.n_groups * width >= 2**62:  # pragma: no cover - centuries of audio
        return truth.covered(np.repeat(groups, size), time)
    key = truth.start + truth.group * width  # sorted: events by (group, start)
    query = np.repeat(groups * width, size)
    query += time
    j = np.searchsorted(key, query, side="right") - 1
    valid = j >= 0
    np.maximum(j, 0, out=j)
    query -= time  # the group's own offset
    same = valid & (key[j] >= query) if len(key) else valid
    del query
    length = truth.length[j]
    value = truth.cumulative[j] - length
    value += np.where(same, np.minimum(time - truth.start[j], length), length)
    value[~valid] = 0
    return value


def meets(amount_ns: np.ndarray, ratio: float, length_ns: np.ndarray, decimals: int | None) -> np.ndarray:
    """``amount >= ratio * length``: exact ns, or sed_scores_eval's rounded seconds."""
    if decimals is None:
        return amount_ns.astype(np.float64) >= ratio * length_ns.astype(np.float64)
    return np.round(amount_ns / NS, decimals) >= np.round(ratio * (length_ns / NS), decimals)


CELLS = 2**20
"""Score cells per block of labels that go through the detection tree at once."""


def intersection_deltas(
    inputs: ScoreInputs,
    *,
    dtc: float,
    gtc: float,
    cttc: float | None,
    decimals: int | None,
    max_efpr: float | None = None,
    cells: int | None = None,
    shared: dict | None = None,
    pruned: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Deltas of ``tp``, ``fp`` (and ``ct`` per label) per ``(group, level)`` (as :func:`_collect`).

    ``max_efpr`` (for a PSD-ROC only): leave out the levels of a label below its
    :func:`audeval._sed_scores.prune.fp_floor` (the rows at and above it are unchanged).

    ``fp`` is the number of detections (:func:`audeval._sed_scores.deltas.run_changes`,
    every group at once) less the relevant ones.
    ``shared``: a dict kept between calls on inputs that differ in their scores only
    (median filtered, :mod:`audeval._sed_scores.medfilt`): the frames each truth event
    touches are computed once.
    ``pruned`` (with ``max_efpr``): per label, a level below which no threshold is on the
    curve and the scores are not exact (:mod:`audeval._sed_scores.medfilt_floor`).
    Only groups (file, label) with truth of the label, or with truth of other labels
    when cross triggers are counted, can have relevant detections or cross triggers
    (every detection is relevant if ``dtc == 0``):
    those go through the detection tree, a block of labels at a time
    (about ``cells`` score cells, :data:`CELLS` by default), so that the memory
    of the tree is bounded by a block's.
    """
    cells = CELLS if cells is None else int(cells)
    truth = Truth(inputs)
    truth.check_disjoint(inputs)
    n_files, n_labels = inputs.n_files, inputs.n_labels
    present = truth.present.reshape(n_labels, n_files)
    tree = present.copy()
    if cttc is not None:
        tree |= present.sum(axis=0)[None, :] - present > 0
    if dtc <= 0:
        tree[:] = True
    cuts = floor = None
    found: dict = {}  # the detection counts' change points of blocks of labels, found by the floor
    if max_efpr is not None:
        cuts = _cuts(inputs, truth, dtc, decimals, max_efpr, cells, shared, found, pruned)
        if (cuts.high > -np.inf).any():
            floor = cuts.high
        else:
            cuts = None
            found.clear()
    coverage = Coverage(truth, inputs) if cttc is not None else None
    columns: dict = {"fp": [], "tp": []}
    if cttc is not None:
        columns.update({("ct", c): [] for c in range(n_labels)})
    keep = tree.ravel()
    for c0, c1 in label_blocks(len(inputs.frame_file), n_labels, cells):
        if not tree[c0:c1].any():
            continue
        flat = _deltas.flatten_runs(inputs.scores, inputs.frame_file, n_files, keep, floor, (c0, c1))
        top = _tree_parts(inputs, truth, coverage, _deltas.nodes(*flat), dtc, gtc, cttc, decimals, (c0, c1))
        del flat
        bottom = {}
        if cuts is not None and (cuts.bottom[c0:c1] & tree[c0:c1].any(axis=1)).any():
            # below the band: the tree of the scores clipped at the band's lowest level,
            # less the rows above the band summed into that level
            flat = _deltas.flatten_clipped(  # flat is reused for the clipped scores (one more column)
                inputs.scores, inputs.frame_file, n_files, keep, cuts.low, cuts.level, (c0, c1)
            )
            bottom = _tree_parts(inputs, truth, coverage, _deltas.nodes(*flat), dtc, gtc, cttc, decimals, (c0, c1))
            del flat
            for name, parts in top.items():
                bottom[name] = bottom[name] + [_moved(parts, cuts, n_files, c0, c1)]
        for name, parts in top.items():
            columns[name] += parts + bottom.get(name, [])
        del top, bottom
    del coverage
    # computed last: the tree's arrays are freed by then
    columns["fp"].append(_deltas.block_run_changes(inputs.scores, inputs.frame_file, n_files, cuts, cells, found))
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64))
    for parts in columns.values():
        if not parts:
            parts.append(empty)
    return _collect(columns, n_labels * n_files)


def _moved(parts: list, cuts, n_files: int, c0: int, c1: int) -> tuple:
    """Minus the sums of the rows ``parts`` per group of the labels ``c0 .. c1 - 1``
    with levels below the band, at the band's lowest level."""
    group = np.concatenate([p[0] for p in parts])
    change = np.concatenate([p[2] for p in parts])
    mine = cuts.bottom[group // n_files]
    return _deltas.group_sums(group[mine], -change[mine], c0 * n_files, (c1 - c0) * n_files, cuts.level, n_files)


def _tree_parts(inputs, truth, coverage, found: Nodes, dtc, gtc, cttc, decimals, labels) -> dict:
    """Deltas of the detection tree ``found`` of the labels ``range(*labels)``:
    relevant detections (``fp``), ``tp``, cross triggers."""
    start = inputs.frame_start[found.first]
    end = inputs.frame_end[found.last]
    length = end - start
    n_cells = (labels[1] - labels[0]) * len(inputs.frame_file)
    if coverage is None and 4 * len(found.group) > n_cells:  # many nodes: a table per frame
        inter = _frame_coverage(truth, inputs, labels, found)
    elif coverage is None:
        inter = truth.within(found.group, start, end)
    else:
        inter = coverage.between(found.group, found.first, found.last)
    relevant = meets(inter, dtc, length, decimals)
    del inter
    out = {"fp": [_relevant_changes(found, relevant)]}
    out["tp"] = _tp_parts(truth, found, np.flatnonzero(relevant), start, end, gtc, decimals)
    if cttc is not None:
        false = np.flatnonzero(~relevant)
        out.update(_ct_columns(truth, coverage, inputs, found, false, length, cttc, decimals))
    return out


def _overlap_needed(inputs: ScoreInputs, dtc: float, decimals) -> bool:
    """Whether a relevant detection must overlap truth of its class
    (a detection without truth can be relevant only if the criterion rounds to 0 for a frame)."""
    overlap_needed = dtc > 0
    if overlap_needed and decimals is not None and len(inputs.frame_start):
        shortest = np.min(inputs.frame_end - inputs.frame_start)
        overlap_needed = not meets(np.zeros(1, dtype=np.int64), dtc, np.array([shortest]), decimals)[0]
    return bool(overlap_needed)


def curve_budget(inputs: ScoreInputs, dtc: float, decimals, max_efpr: float) -> float | None:
    """The false positives beyond which a threshold is off a PSD-ROC cut at ``max_efpr``
    (:func:`audeval._sed_scores.prune.fp_budget`; ``None``: no floor)."""
    seconds = float(inputs.durations.sum()) / NS
    return fp_budget(max_efpr, seconds, _overlap_needed(inputs, dtc, decimals), len(inputs.frame_file))


def _cuts(inputs: ScoreInputs, truth: Truth, dtc: float, decimals, max_efpr: float, cells: int, shared=None,
          found: dict | None = None, pruned: np.ndarray | None = None):
    """Per label, the thresholds a PSD-ROC cut at ``max_efpr`` can use (:func:`fp_floor`)."""
    overlap_needed = _overlap_needed(inputs, dtc, decimals)
    if shared is not None and "touched" in shared:
        first, stop = shared["touched"]
    else:
        file = truth.group % inputs.n_files
        first, stop = touched_ranges(
            inputs.frame_file, inputs.frame_start, inputs.frame_end, inputs.n_files,
            file, truth.start, truth.end,
        )
        if shared is not None:
            shared["touched"] = first, stop
    seconds = float(inputs.durations.sum()) / NS
    return fp_floor(
        inputs.scores, inputs.frame_file, truth.group // inputs.n_files, first, stop,
        truth.present.reshape(inputs.n_labels, inputs.n_files), seconds, max_efpr, overlap_needed=overlap_needed, cells=cells,
        found=found, pruned=pruned,
    )


def _collect(columns: dict, n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Sum the per-column (group, level, delta) parts into one table of distinct (group, level).

    Returns groups, level ranks, the sorted distinct levels and the summed columns,
    rows sorted by group, then level descending.
    """
    names = list(columns)
    parts = [(name, part) for name in names for part in columns[name]]
    group = np.concatenate([g for _, (g, _, _) in parts]).astype(np.int64)
    level = np.concatenate([lv for _, (_, lv, _) in parts]).astype(np.float64)
    if len(group) == 0:
        return group, group.copy(), level, {n: np.zeros(0, np.int64) for n in names}
    out_group, out_rank, levels, inverse = _deltas.float_level_keys(group, level, n_groups)
    bounds = np.cumsum([0] + [len(g) for _, (g, _, _) in parts])
    out = {}
    for name in names:  # the columns (tp, fp, one per label for cross triggers)
        mine = [i for i, (n, _) in enumerate(parts) if n == name]
        rows = np.concatenate([inverse[bounds[i] : bounds[i + 1]] for i in mine])
        delta = np.concatenate([parts[i][1][2] for i in mine])
        out[name] = sum_into(rows, delta, len(out_group))
    return out_group, out_rank, levels, out


def _relevant_changes(nodes: Nodes, relevant: np.ndarray) -> tuple:
    """Changes of minus the number of relevant detections, per node's birth level.

    A relevant node adds -1 at its birth and +1 at its death, which is its parent's birth:
    the net change at a node's birth is its relevant children less itself if relevant,
    so chains of relevant runs give no rows.
    """
    dying = relevant & (nodes.parent >= 0)
    net = np.bincount(nodes.parent[dying], minlength=len(relevant)) - relevant
    rows = np.flatnonzero(net)
    return nodes.group[rows], nodes.birth[rows], net[rows].astype(np.int64)


def _tp_parts(truth: Truth, nodes: Nodes, k, start, end, gtc, decimals) -> list:
    """GTC: truth events covered enough by the relevant detections ``k``, as deltas per level."""
    query, item = truth.overlapping(nodes.group[k], start[k], end[k])
    node = k[query]
    if len(node) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return [(empty, np.zeros(0), empty)]
    amount = np.minimum(end[node], truth.end[item]) - np.maximum(start[node], truth.start[item])
    change, left = _fold_into_parents(nodes, node, item, amount)
    keep = change != 0
    event = np.concatenate([item[keep], item[left]])
    level = np.concatenate([nodes.birth[node[keep]], nodes.death[node[left]]])
    change = np.concatenate([change[keep], -amount[left]])
    event, rank, levels, inverse = _deltas.float_level_keys(event, level, len(truth.group))
    summed = {"change": sum_into(inverse, change, len(event))}
    total = np.cumsum(summed["change"])
    first = np.ones(len(event), dtype=bool)
    first[1:] = event[1:] != event[:-1]
    base = np.maximum.accumulate(np.where(first, np.arange(len(event)), 0))
    covered = total - (total[base] - summed["change"][base])
    status = meets(covered, gtc, truth.length[event], decimals).astype(np.int64)
    previous = np.concatenate([[0], status[:-1]])
    previous[first] = 0
    delta = status - previous
    changed = delta != 0
    return [(truth.group[event][changed], levels[rank[changed]], delta[changed])]


def _fold_into_parents(nodes: Nodes, node, item, amount) -> tuple[np.ndarray, np.ndarray]:
    """Coverage changes of the pairs (relevant ``node``, truth ``item``) at the nodes' births.

    A pair adds ``+amount`` at its node's birth and ``-amount`` at its death,
    which is its parent's birth: where the pair (parent, item) exists
    (the parent is relevant), the ``-amount`` is added to that pair's change,
    so relevant chains give one row per pair, not two.
    Pairs come sorted by node, each node's items a contiguous range.
    Returns the change per pair and the dying pairs whose ``-amount`` stays at their death.
    """
    n_pairs = len(node)
    first = np.ones(n_pairs, dtype=bool)
    first[1:] = node[1:] != node[:-1]
    block = np.full(len(nodes.group), -1, dtype=np.int64)  # first pair of each node
    block[node[first]] = np.flatnonzero(first)
    parent = nodes.parent[node]
    home = np.where(parent >= 0, block[np.maximum(parent, 0)], -1)
    target = home + (item - item[np.maximum(home, 0)])
    found = (home >= 0) & (target >= home) & (target < n_pairs)
    found[found] &= (node[target[found]] == parent[found]) & (item[target[found]] == item[found])
    change = amount - _deltas.sum_into(target[found], amount[found], n_pairs)
    left = np.flatnonzero(~found & (parent >= 0))
    return change, left


def _ct_columns(truth, coverage, inputs, nodes, false, length, cttc, decimals) -> dict:
    """CTTC: the false detections ``false`` mostly on the truth of another class, as deltas.

    Every false detection is paired with each other class that has truth in its file
    (one expansion over all classes at once); returns the parts per column ``("ct", class)``.
    """
    n_files, n_labels = inputs.n_files, inputs.n_labels
    if n_labels == 0:
        return {}
    # a detection that no truth overlaps is no cross trigger (unless the criterion rounds to 0)
    criterion = cttc * length[false].astype(np.float64)
    if decimals is not None:
        criterion = np.round(criterion / NS, decimals)
    false = false[(criterion <= 0) | coverage.touches(nodes.first[false], nodes.last[false])]
    del criterion
    file = nodes.group[false] % n_files
    present_file, present_label = np.nonzero(truth.present.reshape(n_labels, n_files).T)
    bounds = np.searchsorted(present_file, np.arange(n_files + 1))
    query, j = expand_ranges(bounds[file], bounds[file + 1])
    other = present_label[j]
    keep = other != nodes.group[false[query]] // n_files
    k, other = false[query[keep]], other[keep]
    del query, j, keep
    other_group = other * n_files + nodes.group[k] % n_files
    inter = coverage.between(other_group, nodes.first[k], nodes.last[k])
    hit = meets(inter, cttc, length[k], decimals)
    k, other = k[hit], other[hit]
    # +1 at a hit's birth, -1 at its death (its parent's birth): where the parent is a hit
    # on the same class, the -1 joins the parent's row (hits come sorted by node, class)
    key = k * n_labels + other
    parent = nodes.parent[k]
    target = np.searchsorted(key, parent * n_labels + other)
    target = np.minimum(target, max(len(key) - 1, 0))
    joined = (parent >= 0) & (key[target] == parent * n_labels + other) if len(key) else parent >= 0
    net = 1 - np.bincount(target[joined], minlength=len(key))
    rows, left = np.flatnonzero(net), np.flatnonzero(~joined & (parent >= 0))
    group = np.concatenate([nodes.group[k[rows]], nodes.group[k[left]]])
    level = np.concatenate([nodes.birth[k[rows]], nodes.death[k[left]]])
    change = np.concatenate([net[rows], -np.ones(len(left), np.int64)]).astype(np.int64)
    other = np.concatenate([other[rows], other[left]])
    order = _deltas.stable_group_order(other, n_labels)
    cut = np.searchsorted(other[order], np.arange(n_labels + 1))
    return {
        ("ct", c): [(group[rows], level[rows], change[rows])]
        for c, rows in enumerate(np.split(order, cut[1:-1]))
    }
