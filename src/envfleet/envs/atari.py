"""Atari task ids (ALE via ale-py 0.12.1): registered by the Atari family."""
