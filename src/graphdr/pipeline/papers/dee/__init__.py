"""Paper 003 (DEE): the method comparisons (``protocol``: recognition and embedding runs), the
optimiser comparison (``optimisers``: one fit per dataset and optimiser) and every table, figure and
the results frame (``report``)."""
