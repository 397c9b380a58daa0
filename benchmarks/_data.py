"""Seeded data generators with realistic statistics for the benchmarks.

Every generator takes a ``seed`` and returns the same data for the same arguments.
Times are annotation-like (milliseconds for truth),
predictions are derived from the truth the way a model's output differs from it
(jittered boundaries, misses, false alarms, confusions).
Data generation is never timed.

* :func:`dcase` - DCASE-like sound event detection: 10 s clips, 10 classes,
  polyphonic events of class-specific lengths (0.3 s barks ... 8 s blenders).
* :func:`dense_one_label` - one long file of one class with an event every 40 ms,
  predicted almost perfectly (one huge connected component for optimal matching).
* :func:`broadcast` - broadcast-like monitoring: hour-long files with
  music, speech and noise segments (alternating on/off processes, overlapping).
* :func:`songs` - structural segmentation: songs of 3-5 min with 10-60 sections
  (or a fixed number), section labels that repeat (verse, chorus, ...).
* :func:`conversations` - diarization: conversations of 2-5 speakers with
  overlapping turns; a speaker never overlaps itself.
* :func:`separation` - source separation: speech-like modulated coloured noise
  sources and estimates with leakage, filtering and additive noise.

All segment generators return ``(truth, prediction, files_duration)``
with ``truth`` and ``prediction`` as ``pd.Series`` on an audformat segmented index.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


MS = 1_000_000  # ns per millisecond

DCASE_LABELS = [
    "Alarm_bell_ringing",
    "Blender",
    "Cat",
    "Dishes",
    "Dog",
    "Electric_shaver_toothbrush",
    "Frying",
    "Running_water",
    "Speech",
    "Vacuum_cleaner",
]
# mean event length (s) per class, roughly as in DESED
DCASE_MEAN_LENGTH = np.array([1.5, 4.0, 0.8, 0.5, 0.6, 5.0, 6.0, 4.0, 1.2, 6.0])

BROADCAST_LABELS = ["music", "speech", "noise"]
# alternating on/off process per class: mean on, mean off (s)
BROADCAST_ON_OFF = np.array([[60.0, 60.0], [8.0, 3.0], [3.0, 30.0]])

SECTION_LABELS = ["intro", "verse", "prechorus", "chorus", "bridge", "solo", "break", "outro", "interlude", "coda"]


def series(file_names: np.ndarray, start_ns: np.ndarray, end_ns: np.ndarray, labels) -> pd.Series:
    """Series on a segmented index from int64 ns times."""
    index = pd.MultiIndex.from_arrays(
        [
            np.asarray(file_names),
            pd.to_timedelta(np.asarray(start_ns, dtype=np.int64), unit="ns"),
            pd.to_timedelta(np.asarray(end_ns, dtype=np.int64), unit="ns"),
        ],
        names=["file", "start", "end"],
    )
    return pd.Series(labels, index=index)


def durations_series(names: np.ndarray, duration_ns: np.ndarray) -> pd.Series:
    return pd.Series(pd.to_timedelta(np.asarray(duration_ns, dtype=np.int64), unit="ns"), index=pd.Index(names))


def _names(prefix: str, n: int) -> np.ndarray:
    width = len(str(max(n - 1, 0)))
    return np.array([f"{prefix}{i:0{width}d}.wav" for i in range(n)])


def _categorical(codes: np.ndarray, labels: list[str]) -> pd.Categorical:
    return pd.Categorical.from_codes(np.asarray(codes, dtype=np.int64), categories=labels)


def _predict(rng, file, start, end, label, duration, *, jitter_ms, drop, insert, confuse, n_labels, insert_ms):
    """Model-like prediction (ns): jittered, some dropped, some inserted, some confused."""
    n = len(start)
    keep = rng.uniform(size=n) >= drop
    shift = rng.normal(0.0, 1.0, (2, n)) * np.asarray(jitter_ms, dtype=float).reshape(-1, 1) * MS
    p_start = np.clip(start + shift[0].astype(np.int64), 0, duration[file] - MS)
    p_end = np.minimum(np.maximum(end + shift[1].astype(np.int64), p_start + MS), duration[file])
    p_label = label.copy()
    wrong = rng.uniform(size=n) < confuse
    p_label[wrong] = (label[wrong] + rng.integers(1, n_labels, int(wrong.sum()))) % n_labels
    n_extra = int(round(n * insert))
    x_file = rng.integers(0, len(duration), n_extra)
    x_length = (rng.exponential(insert_ms, n_extra) * MS).astype(np.int64) + 20 * MS
    x_start = (rng.uniform(size=n_extra) * np.maximum(duration[x_file] - x_length, 1)).astype(np.int64)
    x_end = np.minimum(x_start + x_length, duration[x_file])
    x_label = rng.integers(0, n_labels, n_extra)
    return (
        np.concatenate([file[keep], x_file]),
        np.concatenate([p_start[keep], x_start]),
        np.concatenate([p_end[keep], x_end]),
        np.concatenate([p_label[keep], x_label]),
    )


def _merge_per_label(file, start, end, label):
    """Union of the intervals of each (file, label): no label overlaps itself."""
    order = np.lexsort((start, label, file))
    file, start, end, label = file[order], start[order], end[order], label[order]
    group = np.r_[True, (file[1:] != file[:-1]) | (label[1:] != label[:-1])]
    group_id = np.cumsum(group) - 1
    # running maximum of end within each group: offset by group so one cummax works
    offset = group_id.astype(np.int64) * (int(end.max()) + 1 if len(end) else 1)
    reach = np.maximum.accumulate(end + offset) - offset
    new = group | np.r_[True, start[1:] > reach[:-1]]
    first = np.flatnonzero(new)
    merged_end = np.maximum.reduceat(end, first) if len(first) else end[:0]
    return file[first], start[first], merged_end, label[first]


# -------------------------------------------------------------------------
# Sound event detection
# -------------------------------------------------------------------------


def dcase(n_events: int, *, events_per_file: float = 10.0, clip_seconds: float = 10.0, seed: int = 0):
    """DCASE-like clips: ``n_events`` truth events over ``n_events / events_per_file`` clips of 10 s.

    ``clip_seconds`` makes longer recordings with the same statistics
    (e.g. 1000 s with ``events_per_file=1000``).

    10 classes with class-specific event lengths (lognormal around
    :data:`DCASE_MEAN_LENGTH`), uniform onsets, events of any classes overlap.
    Prediction: onsets jittered by N(0, 80 ms), offsets by N(0, 200 ms),
    10 % missed, 10 % false alarms, 5 % confused labels.
    Labels are categorical in class order.
    """
    rng = np.random.default_rng(seed)
    n_files = max(int(round(n_events / events_per_file)), 1)
    clip = int(round(clip_seconds * 1000)) * MS
    duration = np.full(n_files, clip, dtype=np.int64)
    file = np.sort(rng.integers(0, n_files, n_events))
    label = rng.integers(0, len(DCASE_LABELS), n_events)
    length_ms = np.clip(rng.lognormal(np.log(DCASE_MEAN_LENGTH[label] * 1000), 0.5), 100, 10_000)
    length = length_ms.astype(np.int64) * MS
    start = (rng.uniform(size=n_events) * (clip - length) / MS).astype(np.int64) * MS
    end = start + length
    p_file, p_start, p_end, p_label = _predict(
        rng, file, start, end, label, duration,
        jitter_ms=[[80.0], [200.0]], drop=0.1, insert=0.1, confuse=0.05,
        n_labels=len(DCASE_LABELS), insert_ms=800.0,
    )
    names = _names("clip" if clip_seconds <= 60 else "recording", n_files)
    truth = _distinct(series(names[file], start, end, _categorical(label, DCASE_LABELS)))
    prediction = _distinct(series(names[p_file], p_start, p_end, _categorical(p_label, DCASE_LABELS)))
    return truth, prediction, durations_series(names, duration)


def _distinct(data: pd.Series) -> pd.Series:
    """Rows without exact repeats (same file, start, end and label):
    random times on a 1 ms grid repeat a row now and then, which audeval warns about."""
    repeated = data.reset_index().duplicated().to_numpy()
    return data[~repeated] if repeated.any() else data


def dense_one_label(n_events: int, *, seed: int = 0):
    """One file, one label, an event every 40 ms, predicted almost perfectly.

    Truth: 0.5 s events starting every 40 ms (so 12 overlap at any time);
    prediction: the same events with onsets jittered by N(0, 0.1 s) (offsets follow),
    in shuffled row order. With an onset tolerance of 0.2 s the candidate graph is
    one connected component of ``n_events`` truth events
    (a long polyphonic recording of one class; issue 20's "cliff").
    """
    rng = np.random.default_rng(seed)
    start = (np.arange(n_events) * 40 + 1000) * MS
    end = start + 500 * MS
    jitter = (rng.normal(0.0, 100.0, n_events) * MS).astype(np.int64)
    p_start = np.maximum(start + jitter, 0)
    order = rng.permutation(n_events)
    p_start = p_start[order]
    duration = int(end.max()) + 1000 * MS
    names = np.array(["recording.wav"] * n_events)
    labels = _categorical(np.zeros(n_events, dtype=np.int64), ["event"])
    truth = series(names, start, end, labels)
    prediction = series(names, p_start, p_start + 500 * MS, labels)
    return truth, prediction, durations_series(np.array(["recording.wav"]), np.array([duration]))


def shuffled(data: pd.Series, *, seed: int = 1) -> pd.Series:
    """Rows in a seeded random order (the input a user's concatenated tables give)."""
    return data.iloc[np.random.default_rng(seed).permutation(len(data))]


# -------------------------------------------------------------------------
# Broadcast monitoring
# -------------------------------------------------------------------------


def _on_off(rng, n_files: int, file_ns: int, mean_on: float, mean_off: float):
    """Alternating on/off renewal process per file: (file, start, end) of the on parts (ms grid)."""
    per = int(np.ceil(file_ns / MS / 1000 / (mean_on + mean_off) * 1.3)) + 5
    on = (rng.exponential(mean_on, (n_files, per)) * 1000).astype(np.int64) + 200
    off = (rng.exponential(mean_off, (n_files, per)) * 1000).astype(np.int64) + 100
    first = (rng.uniform(size=(n_files, 1)) * (mean_on + mean_off) * 1000).astype(np.int64)
    period = on + off
    start = np.cumsum(period, axis=1) - period + first - on[:, :1]  # may start before 0
    end = start + on
    start, end = np.maximum(start, 0) * MS, np.minimum(end * MS, file_ns)
    file = np.broadcast_to(np.arange(n_files)[:, None], start.shape)
    keep = end > start
    return file[keep], start[keep], end[keep]


def broadcast(hours: float, *, file_seconds: float = 3600.0, seed: int = 0):
    """Broadcast-like files (1 h by default) with music, speech and noise segments.

    Each class is an alternating on/off process (:data:`BROADCAST_ON_OFF`):
    music about half of the time in long pieces, speech turns of ~8 s most of the time,
    short noises; classes overlap (speech over music).
    About 470 truth segments per hour.
    Prediction: boundaries jittered by N(0, 300 ms), 10 % missed,
    10 % short false alarms, 5 % confused labels.
    """
    rng = np.random.default_rng(seed)
    n_files = max(int(round(hours * 3600 / file_seconds)), 1)
    file_ns = int(round(file_seconds * 1e9))
    duration = np.full(n_files, file_ns, dtype=np.int64)
    parts = [_on_off(rng, n_files, file_ns, on, off) for on, off in BROADCAST_ON_OFF]
    file = np.concatenate([p[0] for p in parts])
    start = np.concatenate([p[1] for p in parts])
    end = np.concatenate([p[2] for p in parts])
    label = np.concatenate([np.full(len(p[0]), k) for k, p in enumerate(parts)])
    order = np.lexsort((start, file))
    file, start, end, label = file[order], start[order], end[order], label[order]
    p_file, p_start, p_end, p_label = _predict(
        rng, file, start, end, label, duration,
        jitter_ms=300.0, drop=0.1, insert=0.1, confuse=0.05,
        n_labels=len(BROADCAST_LABELS), insert_ms=2000.0,
    )
    names = _names("show", n_files)
    truth = series(names[file], start, end, _categorical(label, BROADCAST_LABELS))
    prediction = series(names[p_file], p_start, p_end, _categorical(p_label, BROADCAST_LABELS))
    return truth, prediction, durations_series(names, duration)


# -------------------------------------------------------------------------
# Structural segmentation
# -------------------------------------------------------------------------


def songs(n_files: int, *, sections: int | tuple[int, int] = (10, 60),
          seconds: float | tuple[float, float] = (180.0, 300.0), seed: int = 0):
    """Songs: each file a partition of [0, duration] into labelled sections.

    ``sections``: a fixed number or a (low, high) range (uniform, inclusive);
    ``seconds``: a fixed duration or a (low, high) range.
    Section labels come from a song form: 4-10 distinct labels per song
    that repeat (a chorus returns), drawn from :data:`SECTION_LABELS`.
    Prediction: boundaries moved by N(0, 0.5 s), 20 % dropped, 20 % added,
    each predicted section labelled with the true label at its middle,
    20 % relabelled at random. Labels are strings.
    """
    rng = np.random.default_rng(seed)
    lo, hi = (sections, sections) if np.isscalar(sections) else sections
    n_sections = rng.integers(lo, hi + 1, n_files)
    s_lo, s_hi = (seconds, seconds) if np.isscalar(seconds) else seconds
    duration = (rng.uniform(s_lo, s_hi, n_files) * 1000).astype(np.int64) * MS
    n_labels = np.minimum(rng.integers(4, 11, n_files), len(SECTION_LABELS))
    names = _names("song", n_files)
    labels = np.array(SECTION_LABELS)
    t_rows, p_rows = [], []
    for f in range(n_files):  # data generation only
        k, d = int(n_sections[f]), int(duration[f])
        cuts = np.unique(np.sort(rng.integers(1, d // MS, k - 1)) * MS)
        bounds = np.r_[0, cuts, d]
        # song form: labels repeat, no two equal labels in a row
        step = rng.integers(1, n_labels[f], len(bounds) - 1)
        code = np.cumsum(step) % n_labels[f]
        t_rows.append((np.full(len(bounds) - 1, f), bounds[:-1], bounds[1:], code))
        inner = cuts + (rng.normal(0, 500, len(cuts)) * MS).astype(np.int64)
        inner = inner[rng.uniform(size=len(cuts)) >= 0.2]
        extra = rng.integers(1, d // MS, max(1, len(cuts) // 5)) * MS
        inner = np.clip(np.r_[inner, extra], MS, d - MS)
        p_bounds = np.unique(np.r_[0, inner, d])
        middle = (p_bounds[:-1] + p_bounds[1:]) // 2
        p_code = code[np.searchsorted(bounds, middle, side="right") - 1]
        noise = rng.uniform(size=len(p_code)) < 0.2
        p_code = np.where(noise, rng.integers(0, n_labels[f], len(p_code)), p_code)
        p_rows.append((np.full(len(p_bounds) - 1, f), p_bounds[:-1], p_bounds[1:], p_code))

    def build(rows):
        file, start, end, code = (np.concatenate([r[i] for r in rows]) for i in range(4))
        return series(names[file], start, end, labels[code])

    return build(t_rows), build(p_rows), durations_series(names, duration)


# -------------------------------------------------------------------------
# Diarization
# -------------------------------------------------------------------------


def conversations(n_files: int, *, turns: int | tuple[int, int] = (20, 100), speakers=(2, 5), seed: int = 0):
    """Conversations: turns of 2-5 speakers (1-5 min per file by default).

    Turn lengths exponential (mean 2.5 s, at least 0.6 s); 30 % of turns
    overlap the previous one by up to 0.3 s, the others follow after a pause;
    consecutive turns change speaker, so no speaker overlaps itself.
    Prediction: boundaries jittered by up to 0.25 s, speakers renamed by a
    random permutation, 10 % of turns given to a wrong speaker, 5 % missed,
    5 % false alarms, then merged per speaker (as a diarization system outputs).
    ``files_duration``: last end plus 1 s.
    """
    rng = np.random.default_rng(seed)
    lo, hi = (turns, turns) if np.isscalar(turns) else turns
    n_turns = rng.integers(lo, hi + 1, n_files)
    n_speakers = rng.integers(speakers[0], speakers[1] + 1, n_files)
    n = int(n_turns.sum())
    file = np.repeat(np.arange(n_files), n_turns)
    first = np.r_[True, file[1:] != file[:-1]]
    length = (np.maximum(rng.exponential(2.5, n), 0.6) * 1000).astype(np.int64)
    overlap = (rng.uniform(0, 300, n) * (rng.uniform(size=n) < 0.3)).astype(np.int64)
    pause = (rng.exponential(500, n) * (overlap == 0)).astype(np.int64)
    step = np.where(overlap > 0, -overlap, pause)
    # start[k + 1] = end[k] + step[k] within a file, 0 at the file's first turn
    advance = np.r_[0, (length + step)[:-1]]
    advance[first] = 0
    total = np.cumsum(advance)
    start = total - np.maximum.accumulate(np.where(first, total, 0))
    end = start + length
    shift = rng.integers(1, np.maximum(n_speakers[file], 2))
    shift[first] = 0
    group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    cum = np.cumsum(shift)
    speaker = (cum - cum[group_start]) % n_speakers[file]
    start, end = start * MS, end * MS
    duration = np.zeros(n_files, dtype=np.int64)
    np.maximum.at(duration, file, end)
    duration += 1000 * MS
    # prediction
    keep = rng.uniform(size=n) >= 0.05
    jitter = (rng.uniform(-250, 250, (2, n)) * MS).astype(np.int64)
    p_start = np.maximum(start + jitter[0], 0)
    p_end = np.maximum(end + jitter[1], p_start + 10 * MS)
    permutation = np.argsort(rng.uniform(size=(n_files, 5)), axis=1)
    p_speaker = permutation[file, speaker]
    wrong = rng.uniform(size=n) < 0.1
    p_speaker[wrong] = rng.integers(0, n_speakers[file[wrong]])
    n_extra = max(1, n // 20)
    x_file = rng.integers(0, n_files, n_extra)
    x_start = (rng.uniform(size=n_extra) * (duration[x_file] - 2000 * MS)).astype(np.int64)
    x_end = x_start + (rng.uniform(200, 1000, n_extra) * MS).astype(np.int64)
    x_speaker = rng.integers(0, n_speakers[x_file])
    p = _merge_per_label(
        np.r_[file[keep], x_file], np.r_[p_start[keep], x_start],
        np.r_[p_end[keep], x_end], np.r_[p_speaker[keep], x_speaker],
    )
    names = _names("meeting", n_files)
    truth = series(names[file], start, end, np.char.add("spk", speaker.astype(str)))
    prediction = series(names[p[0]], p[1], p[2], np.char.add("s", p[3].astype(str)))
    return truth, prediction, durations_series(names, duration)


# -------------------------------------------------------------------------
# Source separation
# -------------------------------------------------------------------------


def separation(n_sources: int, seconds: float, *, sampling_rate: int = 44100, channels: int = 2, seed: int = 0):
    """References and estimates, shape (sources, samples, channels).

    Sources: coloured noise (one-pole low-pass, pole 0.95) with a slow
    amplitude envelope (syllable-like modulation and pauses), independent per source.
    Estimates: each source plus 10-30 % leakage of the others, a short FIR
    filter (artifacts) and additive noise about 20 dB down.
    """
    import scipy.signal

    rng = np.random.default_rng(seed)
    n = int(round(seconds * sampling_rate))
    white = rng.standard_normal((n_sources, n, channels))
    refs = scipy.signal.lfilter([0.05], [1.0, -0.95], white, axis=1)
    # envelope: 4 Hz modulation and random pauses of ~0.5 s
    t = np.arange(n) / sampling_rate
    phase = rng.uniform(0, 2 * np.pi, (n_sources, 1))
    envelope = 0.6 + 0.4 * np.sin(2 * np.pi * 4.0 * t[None, :] + phase)
    blocks = rng.uniform(size=(n_sources, int(np.ceil(seconds * 2)) + 1)) > 0.15
    envelope = envelope * blocks[:, (t * 2).astype(int)]
    refs = refs * envelope[:, :, None]
    leak = rng.uniform(0.1, 0.3, (n_sources, n_sources))
    np.fill_diagonal(leak, 1.0)
    est = np.einsum("ij,jnc->inc", leak, refs)
    est = scipy.signal.lfilter([1.0, 0.25, -0.1], [1.0], est, axis=1)
    est = est + 0.1 * refs.std() * rng.standard_normal(est.shape)
    return refs, est
