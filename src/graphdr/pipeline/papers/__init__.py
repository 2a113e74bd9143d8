"""Paper-specific workflow stages (figure and table kinds that only one paper needs)."""
