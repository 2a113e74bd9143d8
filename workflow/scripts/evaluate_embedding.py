"""Rule evaluate_embedding: score one embedding with the experiment's classifiers.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/evaluate_embedding.py`): the example
job below is then rebuilt from the workflow (edit its wildcards to debug another job).
"""

import os
import sys
from pathlib import Path

if "snakemake" in globals():  # thread pools are sized when numpy/numba load: export first
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[_var] = str(snakemake.threads)
    _scripts = Path(snakemake.scriptdir)
else:
    _scripts = Path(__file__).parent
sys.path.insert(0, str(_scripts.resolve().parents[1] / "src"))  # this checkout's graphdr

from graphdr.pipeline import evaluate, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake(
        "evaluate_embedding", experiment="demo", dataset="wine", method="LDA_GE", seed=0, fold=0
    )

with runtime.job(snakemake):
    evaluate.evaluate_embedding(
        snakemake.input.embedding,
        snakemake.output.scores,
        classifiers=snakemake.params.classifiers,
        dims=snakemake.params.dims,
        labels=snakemake.params.labels,
    )
