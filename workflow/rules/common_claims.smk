# Helpers of the claims ledger's rules (workflow/rules/claims.smk; docs/claims.md).

LEDGER = config.get("ledger", {})
LEDGER_PAPERS = [p for p in LEDGER.get("papers", {}) if p in config.get("papers", {})]


def ledger_outputs():
    """The verdicts of every paper in the ledger, and the scorecard (default target)."""
    if not LEDGER_PAPERS:
        return []
    return [
        *expand(rules.judge_claims.output, paper=LEDGER_PAPERS),
        *rules.build_scorecard.output,
    ]
