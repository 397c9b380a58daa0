"""Source separation metrics (placeholder, filled below)."""
from audeval.separation._permutation import best_permutation
from audeval.separation._scale_invariant import scale_invariant, scale_invariant_matrix, si_sdr
from audeval.separation._bss_eval import bss_eval_v4
