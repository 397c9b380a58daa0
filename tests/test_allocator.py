"""``import audeval`` warms glibc's allocator: a call's temporaries come from the heap.

Counted in minor page faults of a fresh interpreter (no timing): temporaries of
a few hundred KiB, allocated and freed in a loop, fault their pages in anew at
every turn when glibc maps them or trims the heap they came from (its thresholds
still near their start values, 128 KiB and twice that), and not at all when the
heap keeps them.
"""

import platform
import subprocess
import sys

import pytest


LOOP = """
import resource
import numpy as np
{setup}
def call():  # a metric call's temporaries: ten of 320 KiB alive at once, then freed
    return sum(float(a[0]) for a in [np.ones(40_000) for _ in range(10)])
for _ in range(5):
    call()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(100):
    call()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

glibc = pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc only"
)


def faults(setup: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", LOOP.format(setup=setup)], capture_output=True, text=True, check=True
    )
    return int(out.stdout.split()[-1])


@glibc
def test_without_warming_every_temporary_faults_its_pages():
    assert faults("") >= 100 * 10 * 40_000 * 8 // 4096 // 2  # the loop's pages, at least half of them


@glibc
def test_after_import_audeval_temporaries_do_not_fault():
    assert faults("import audeval") < 50

