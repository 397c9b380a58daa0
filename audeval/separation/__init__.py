"""Source separation metrics (SPEC section 7).

Array functions take ``truth`` (references) and ``prediction`` (estimates)
of shape (sources, samples[, channels]):

* :func:`scale_invariant`, :func:`scale_invariant_matrix`, :func:`si_sdr`:
  nussl's scale-invariant family (SI-SDR, SI-SIR, SI-SAR, SD-SDR, SNR, SRR,
  SI-SDRi, SD-SDRi, SNRi);
* :func:`bss_eval_sources`: BSS Eval v3 SDR, SIR, SAR (mir_eval, the "SDR" of papers);
* :func:`bss_eval_v4`: museval's framewise BSS Eval v4 (SDR, ISR, SIR, SAR);
* :func:`sa_sdr`: source-aggregated SDR (SA-SDR);
* :func:`global_sdr`, :func:`chunked_sdr`: the MDX/SDX global SDR per song
  (uSDR) and its median over chunks (cSDR);
* :func:`ca_sdri`: class-aware SDR improvement (DCASE 2025 task 4);
* :func:`best_permutation`: Hungarian assignment on a pairwise score matrix;
* :func:`mask_scores`: precision, recall, F1 and accuracy of binary masks.

:func:`evaluate` scores tables of audio files
and :func:`aggregate` summarises its result as SiSEC does.
Only numpy and scipy are used for the metrics
(pandas, audformat and audiofile for the tables).
"""

from audeval.separation._bss_eval import bss_eval_v4
from audeval.separation._bss_sources import bss_eval_sources
from audeval.separation._class_aware import ca_sdri
from audeval.separation._global import chunked_sdr
from audeval.separation._global import global_sdr
from audeval.separation._global import sa_sdr
from audeval.separation._masks import mask_scores
from audeval.separation._permutation import best_permutation
from audeval.separation._scale_invariant import scale_invariant
from audeval.separation._scale_invariant import scale_invariant_matrix
from audeval.separation._scale_invariant import si_sdr
from audeval.separation._table import aggregate
from audeval.separation._table import evaluate


__all__ = [
    "aggregate",
    "best_permutation",
    "bss_eval_sources",
    "bss_eval_v4",
    "ca_sdri",
    "chunked_sdr",
    "evaluate",
    "global_sdr",
    "mask_scores",
    "sa_sdr",
    "scale_invariant",
    "scale_invariant_matrix",
    "si_sdr",
]
