# One target rule per paper: `snakemake --cores 2 qmi` builds every table and figure of paper
# 001 (likewise akda, dee, ngeu and demo). A paper is a folder of the figures root
# (<output.figures>/<paper>/), so its target is the part of the default target (rule all) that
# lies in that folder: the config's tables and figures, the optimiser studies (paper 003's live
# in optimizer_studies, outside papers.dee) and the paper-specific stages. Included last: the
# output lists read the other rules' outputs; the functions are in common_targets.smk.


# the folders under the figures root that the default target writes to
PAPERS = sorted(
    {
        os.path.relpath(f, ROOTS["figures"]).split(os.sep)[0]
        for f in every_output()
        if f.startswith(figures("")) and os.sep in os.path.relpath(f, ROOTS["figures"])
    }
)


for _paper in PAPERS:

    rule:
        name:
            _paper
        input:
            outputs_of(_paper),
        localrule: True
