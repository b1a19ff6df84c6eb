"""Headless RMSNorm captures: implementations, backends, a child-process worker and its launcher."""
