# Uncertainty stage (paper 004): prepared arrays -> per-sample covariance estimates, one file per
# dataset and scheme, read by the NGEU/GEU fits. Helper functions in common_ngeu.smk.
