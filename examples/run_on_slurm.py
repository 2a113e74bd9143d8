"""
Send a paper to a SLURM cluster
===============================

The same targets run on a SLURM cluster through Snakemake's executor plugin and the workflow
profile ``profiles/slurm``: each job becomes an ``sbatch`` submission that asks for the
threads, memory and wall time configured for its rule. This example is shown, not run, when
the documentation is built.

Once per cluster, set the partition and the account in ``profiles/slurm/config.yaml`` (its two
``EDIT_ME`` placeholders; :doc:`../hpc` explains how to find the values). Then, on the login
node, from the checkout on a shared file system:

.. code-block:: bash

   export GRAPHDR_DATA_MIRROR=/shared/path/to/mirror    # the jobs inherit the environment
   .venv/bin/snakemake -n --workflow-profile profiles/slurm dee   # dry run: jobs and groups
   .venv/bin/snakemake --workflow-profile profiles/slurm dee      # submit the DEE paper

Snakemake stays in the foreground and submits the jobs as their inputs appear, so start it in a
terminal multiplexer (``tmux``, ``screen``) or from a small batch job of its own. Downloads,
tables and figures run on the login node (``localrule``); everything else is submitted.

The equivalent from Python:
"""

import subprocess
import sys

command = [sys.executable, "-m", "snakemake", "--workflow-profile", "profiles/slurm", "dee"]
subprocess.run(command, cwd="graphdr", check=True)
