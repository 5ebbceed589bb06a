"""Plots (matplotlib, imported lazily, Agg backend: no screen needed)."""
