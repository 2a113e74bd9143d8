# The claims ledger (docs/claims.md): each paper's claims file and tidy results frame ->
# its verdicts; every paper's verdicts -> the scorecard. A paper joins the ledger when it is
# listed under `ledger.papers` in the config and its rules write <figures>/<paper>/<paper>_results.csv
# (plus <paper>_results_timing.csv, its measured rows, when `timing: true`). Verdicts of
# rate claims quote measured times, so verdict files and the scorecard change run to run.


rule judge_claims:
    """Every claim of one paper judged by the ledger's rules on the paper's results frame."""
    input:
        claims=lambda w: LEDGER["papers"][w.paper]["claims"],
        results=figures("{paper}/{paper}_results.csv"),
        timing=lambda w: (
            [figures(f"{w.paper}/{w.paper}_results_timing.csv")]
            if LEDGER["papers"][w.paper].get("timing")
            else []
        ),
        code=code("graphdr.pipeline.claims"),
    output:
        csv=figures("{paper}/{paper}_verdicts.csv"),
        md=reported(
            figures("{paper}/{paper}_verdicts.md"), "{paper}", "Claims", "verdicts"
        ),
    log:
        logs("judge_claims/{paper}.log"),
    benchmark:
        results("benchmarks/judge_claims/{paper}.tsv")
    wildcard_constraints:
        paper=_alternatives(LEDGER_PAPERS),
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("judge_claims", "threads")
    resources:
        mem_mb=resource("judge_claims", "mem_mb"),
        runtime=resource("judge_claims", "runtime"),
    params:
        title=lambda w: LEDGER["papers"][w.paper]["title"],
        alpha=LEDGER.get("alpha", 0.05),
    script:
        "../scripts/judge_claims.py"


rule build_scorecard:
    """CLAIMS.csv / CLAIMS.md: every claim of every paper, verdict, evidence, flips."""
    input:
        verdicts=expand(rules.judge_claims.output.csv, paper=LEDGER_PAPERS),
        code=code("graphdr.pipeline.claims"),
    output:
        csv=figures("CLAIMS.csv"),
        md=reported(figures("CLAIMS.md"), "scorecard", "Claims", "verdicts"),
    log:
        logs("build_scorecard/scorecard.log"),
    benchmark:
        results("benchmarks/build_scorecard/scorecard.tsv")
    localrule: True
    conda:
        "../../envs/plot.yaml"
    threads: resource("build_scorecard", "threads")
    resources:
        mem_mb=resource("build_scorecard", "mem_mb"),
        runtime=resource("build_scorecard", "runtime"),
    params:
        titles={p: LEDGER["papers"][p]["title"] for p in LEDGER_PAPERS},
    script:
        "../scripts/build_scorecard.py"
