"""Paper 004 (NGEU): the selection protocol of Tables I-II and Figure 3 (``protocol``) and its
tables, figures and results frame (``report``)."""
