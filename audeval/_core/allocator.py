"""The allocator warmed once at import: arrays of a metric call come from the heap.

glibc's ``malloc`` serves a request above its *mmap threshold* (128 KiB when a
process starts) with a fresh ``mmap``, returned to the system at ``free``;
the threshold rises to the size of the largest such block freed so far.
A metric call on a few thousand rows makes temporaries of a few hundred KiB:
in a process that has not freed a larger block yet, each of them is mapped,
faulted in page by page and unmapped again, hundreds of page faults per call
(1.4-1.7x the CPU time of a millisecond call, measured on the segment and DER
workloads of ``benchmarks/run.py --quick``).
A process that imports scipy, reads a large file or trains a model has usually
freed such a block already; :func:`raise_mmap_threshold` frees one at import,
so the first calls behave as the later ones.
It costs one untouched allocation (no page is written) and lets the process keep
up to twice the block size of freed heap memory. Other allocators ignore it.
"""

from __future__ import annotations

import numpy as np


WARM_BYTES = 1 << 23
"""8 MiB: temporaries of up to a million int64 values come from the heap."""


def raise_mmap_threshold(nbytes: int = WARM_BYTES) -> None:
    """Allocate and free one block of ``nbytes`` (glibc raises its mmap threshold to it).

    Examples:
        >>> raise_mmap_threshold(1 << 20)

    """
    block = np.empty(nbytes, dtype=np.uint8)
    del block
