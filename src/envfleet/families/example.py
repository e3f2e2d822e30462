"""Counting-v0: the annotated example env (cpp/families/example/counting.h, in envfleet._core)
that the pool tests use; docs/adding-an-environment.md walks through it."""

from envfleet.registry import register

register("Counting-v0", "Counting")
