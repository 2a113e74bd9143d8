# Memory of every job (resources: mem_mb): the rule's config entry (resources.<rule>, per
# experiment where one overrides it), plus a term growing with the job's kernel-matrix size for
# rules that give mem_mb_per_mega_entries, times the attempt: a job that failed (for instance
# killed for memory) is resubmitted with 2x, then 3x its memory (profiles/slurm: retries).
# Formula and tests: graphdr.pipeline.cluster. Included before the rule files.

cluster = _load_module("cluster")


def memory(rule_name, entries=None):
    """mem_mb of ``rule_name``'s jobs; ``entries(wildcards)``: the job's kernel-matrix entries."""

    def get(wildcards, attempt):
        spec = plan.resources_for(config, rule_name, wildcards.get("experiment"))
        return cluster.memory_mb(spec, attempt, entries(wildcards) if entries else 0)

    return get
