"""Analyses over a model.Trace: gaps, op tables, comparisons. Imports model/ only."""
