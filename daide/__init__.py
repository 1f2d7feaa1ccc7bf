"""Command-line entry points of the DAIDE server project (see daide.cli)."""
