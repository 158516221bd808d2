"""Measure: correctness against the torch reference, then timing, on a GPU."""
