"""Rule collect_table: aggregate an experiment's scores into one paper table.

Run by Snakemake, or by hand for debugging (`python workflow/scripts/collect_table.py`): the example
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

from graphdr.pipeline import report, runtime  # noqa: E402

if "snakemake" not in globals():
    snakemake = runtime.mock_snakemake("collect_table", paper="demo", table="demo_accuracy")

with runtime.job(snakemake):
    report.collect_table(
        snakemake.input.scores,
        Path(snakemake.output.csv).with_suffix(""),
        snakemake.output.long,
        spec=snakemake.params.spec,
        labels=snakemake.params.labels,
        reference=snakemake.input.get("reference"),
    )
