"""Counting-v0: the annotated example env (cpp/envs/example/counting.h)."""

from envfleet.registry import register

register("Counting-v0", "Counting")
