"""graphdr."""
