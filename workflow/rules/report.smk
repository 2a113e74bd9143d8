# `snakemake --report report.zip`: one category per paper, subcategories Tables, Figures and
# Claims. Rules wrap each table (CSV), figure (PNG) and claims file in reported(); the caption
# (workflow/report/<caption>.rst) says what the output shows and where the paper's number
# comes from. Included before the rule files that use it.

_REPORT_LABEL = {"Tables": "table", "Figures": "figure", "Claims": "claims"}


def reported(path, paper, kind, caption=None):
    """``path`` marked for the report under category ``paper`` and subcategory ``kind``."""
    stem, ext = os.path.splitext(os.path.basename(path))
    return report(
        path,
        caption=f"../report/{caption or paper}.rst",
        category=paper,
        subcategory=kind,
        labels={_REPORT_LABEL[kind]: stem, "format": ext[1:].upper()},
    )
