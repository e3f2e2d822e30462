"""Adapters between envfleet's pools and training libraries.

Each adapter is a submodule named after its library (``envfleet.integrations.sb3``: Stable-
Baselines3's ``VecEnv``; ``tianshou``; ``torchrl``). A submodule imports its library when it
is imported, never before, so ``import envfleet`` stays free of them. Recipes for every
library: ``docs/integrations/``.
"""
