"""Rule fit_embed: fit one method on one fold, write model, embedding and info.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/fit_embed.py`): the example
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

from graphdr.pipeline import fit, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake(
        "fit_embed", experiment="demo", dataset="wine", method="LDA_GE", seed=0, fold=0
    )

with runtime.job(snakemake) as log:
    info = fit.fit_embed(
        snakemake.input.prepared,
        snakemake.input.splits,
        fold=snakemake.params.fold,
        method=snakemake.params.method,
        preprocessing=snakemake.params.preprocessing,
        selection=snakemake.params.selection,
        model_path=snakemake.output.model,
        embedding_path=snakemake.output.embedding,
        info_path=snakemake.output.info,
    )
    log.info("fitted: %s", info)
