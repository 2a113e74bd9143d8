"""Paper 001 (QMI): the protocol as data (``settings``, standard library only: the workflow reads
it), the cross-validated sweep (``protocol``), the 2-D projections of Figures 1-4 (``visualise``)
and the tables, curves and results frame (``report``)."""
