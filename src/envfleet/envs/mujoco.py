"""MuJoCo task ids (Gymnasium 1.4.0 v4/v5): registered by the MuJoCo family."""
