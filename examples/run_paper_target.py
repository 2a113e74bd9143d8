"""
Rebuild one paper's tables and figures
======================================

The Snakemake workflow at the root of the repository rebuilds every table and figure of the
four papers from the raw data into ``paper_figures/<paper>/``. Each paper has its own target,
``qmi``, ``akda``, ``dee``, ``ngeu`` (and ``demo``, the walking skeleton); the default target
builds them all. This example is shown, not run, when the documentation is built: a paper takes
minutes to hours.

From a fresh clone, with the offline data mirror (or internet access for the downloads):

.. code-block:: bash

   make test                                   # builds .venv from requirements.lock, runs the tests
   export GRAPHDR_DATA_MIRROR=/path/to/mirror  # optional: raw files from a local copy
   .venv/bin/snakemake -n qmi                  # dry run: the jobs of the QMI paper, and why
   .venv/bin/snakemake --cores 2 qmi           # build them: paper_figures/qmi/
   .venv/bin/snakemake --cores 2 --configfile config/quick.yaml qmi   # small stand-in, minutes

One output and the jobs it needs is a target too; the workflow's default profile supplies the
number of cores:

.. code-block:: bash

   .venv/bin/snakemake paper_figures/qmi/qmi_swiss_roll_kernel.pdf

The same from Python, for example in a notebook next to the checkout (``check=True`` raises if
a job fails; Snakemake's log names the job and its log file):
"""

import subprocess
import sys
from pathlib import Path

checkout = Path("graphdr")  # the root of the clone
snakemake = [sys.executable, "-m", "snakemake"]
subprocess.run([*snakemake, "--cores", "2", "qmi"], cwd=checkout, check=True)

# %%
# The tables land in ``paper_figures/qmi/`` as CSV, Markdown and LaTeX, each beside the paper's
# own numbers and the difference; the figures as PDF and PNG. ``snakemake --report report.zip``
# collects them into one HTML report. See :doc:`../workflow` for how the workflow decides what
# to re-run and :doc:`../qmi` for the paper's protocol.
