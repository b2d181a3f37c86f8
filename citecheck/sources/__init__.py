"""Adapters for the outside services; only this package and ``citecheck.http`` use the network."""
