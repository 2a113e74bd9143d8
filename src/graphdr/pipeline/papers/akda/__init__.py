"""Paper 002 (AKDA / AKSDA): the protocol (``protocol``: CV, fits, timings, the toy example), the
subclass stand-in's calibration (``calibrate``) and the tables, figures and results frame
(``report``)."""
