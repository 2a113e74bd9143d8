"""graphdr benchmark suite: ``python -m benchmarks [--quick] [--only NAME ...]``.

Every module ``bench_<name>.py`` of this package is a benchmark. It exposes
``run(quick: bool) -> list[dict]`` and builds its rows with :func:`benchmarks._util.row`
(case, metric, value, target, PASS/FAIL status, details). The runner prints one table and writes
the rows and the environment to ``benchmarks/results/<name>.json`` (``<name>-quick.json`` with
``--quick``; git-ignored). Speed is measured here, never asserted in the unit tests. See
docs/benchmarks.md.
"""

import os as _os

# before numpy loads (this package is imported first): the workflow's OpenBLAS settings, unless
# the environment sets its own (graphdr.pipeline.plan imports the standard library only)
from graphdr.pipeline.plan import BLAS_ENVIRONMENT as _BLAS_ENVIRONMENT

for _var, _value in _BLAS_ENVIRONMENT.items():
    _os.environ.setdefault(_var, _value)
