"""One re-evaluation timer at a time in Snakemake's job scheduler (a workaround, standard library).

The Snakefile loads this file by path at parse time (like :mod:`graphdr.pipeline.plan`) and calls
:func:`coalesce_reevaluations` on Snakemake's ``JobScheduler`` class. Scheduling decides when a job
runs, never what it computes, so nothing here is a code input of any job.

**The problem (Snakemake 9, every executor; measured with 9.27.1).** Snakemake's job-rate limiter
(``--max-jobs-per-timespan``, default ``100/1s``) is always on. At the end of *every* scheduling
round, ``JobScheduler.schedule`` arms a ``threading.Timer`` of the limiter's timespan that releases
the scheduler's semaphore, whether or not the limiter held a job back; the round that timer starts
arms the next one. Every event that starts a round (a job finishing) therefore starts one more
1-Hz chain of rounds that never ends: after n finished jobs the scheduler runs about n rounds per
second, each of which stats the input files of every ready job (``update_input_sizes``) and runs
the job selector. Measured in the full reproduction on 2 cores: thread ``Thread-167586`` alive
after 122 finished jobs (about 63 timer threads created per second), Snakemake's own process at
19% of a core and rising, on the same two cores as the jobs (docs/workflow.md, "Scheduling").
A longer timespan is no way out: the timers are not daemon threads, so Snakemake's exit waits
for the last one (a ``1000/1m`` limit makes every run end a minute late).

**The fix.** At most one re-evaluation is pending at any time, on a daemon thread: a request while
one is pending is dropped, because the pending one fires within its own delay and the round it
starts re-arms a timer if one is still needed (the limiter's own rule). So a round still follows
every request within the requested delay or sooner; what goes is the duplicate chains. The
limiter's counting, the job selection and everything else of Snakemake are unchanged.

The patch applies only to a ``JobScheduler`` that has the method it replaces with the signature
it expects; otherwise :func:`coalesce_reevaluations` changes nothing and says why (the
workflow then runs with Snakemake's own timers: slower, not wrong).
"""

from __future__ import annotations

import inspect
import threading

#: the JobScheduler method replaced (its name is misspelled upstream)
METHOD = "_schedule_reevalutation"


def _coalesced(self, delay) -> None:
    """Release ``self._open_jobs`` after ``delay`` seconds, unless a release is already pending."""
    lock = self.__dict__.setdefault("_graphdr_reevaluation_lock", threading.Lock())
    with lock:
        if self.__dict__.get("_graphdr_reevaluation_pending"):
            return
        self._graphdr_reevaluation_pending = True

    def fire() -> None:
        with lock:  # cleared before the release: a request from now on arms a new timer
            self._graphdr_reevaluation_pending = False
        self._open_jobs.release()

    timer = threading.Timer(delay, fire)
    timer.daemon = True  # never delays the exit of Snakemake
    timer.start()


_coalesced.graphdr_coalesced = True


def coalesce_reevaluations(scheduler_class) -> str | None:
    """Patch ``scheduler_class`` (Snakemake's ``JobScheduler``) in place; idempotent.

    Returns ``None`` when the class is (now) patched, else the reason it was left alone.
    """
    original = getattr(scheduler_class, METHOD, None)
    if original is None:
        return f"{scheduler_class.__name__} has no {METHOD} (another Snakemake version)"
    if getattr(original, "graphdr_coalesced", False):
        return None
    params = list(inspect.signature(original).parameters)
    if params != ["self", "delay"]:
        return f"{scheduler_class.__name__}.{METHOD}{tuple(params)} is not (self, delay)"
    setattr(scheduler_class, METHOD, _coalesced)
    return None
