"""The window of ``render_mode="human"``: frames drawn by the pool, shown with pygame.

Gymnasium's own envs show their human mode through pygame, so the same package serves here.
Where no display exists (a headless server, CI) making such a pool fails at once with the
reason, rather than when the first frame is due; ``SDL_VIDEODRIVER`` set explicitly (e.g.
``dummy`` or ``offscreen``) counts as a display, as SDL itself treats it.
"""

from __future__ import annotations

import os
import sys

import numpy as np


class HumanWindow:
    """One window showing the latest frames of a pool, side by side."""

    def __init__(self, title: str):
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            import pygame
        except ImportError as exc:
            raise RuntimeError(
                "render_mode='human' shows frames in a pygame window, and pygame is not "
                "installed: pip install pygame (or use render_mode='rgb_array')"
            ) from exc
        if sys.platform.startswith("linux") and not any(
            os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
        ):
            raise RuntimeError(
                "render_mode='human' needs a display, and this machine has none (DISPLAY and "
                "WAYLAND_DISPLAY are unset): use render_mode='rgb_array' to get the frames as "
                "arrays (examples/record_video.py writes them to a video), or run under a "
                "virtual display (xvfb-run)"
            )
        self._pygame = pygame
        self._title = title
        self._screen = None
        self._clock = None

    def show(self, frames: np.ndarray, fps: float) -> None:
        """Shows ``frames`` (B, H, W, 3) side by side, at most ``fps`` times a second."""
        pygame = self._pygame
        image = np.concatenate(list(frames), axis=1)  # (H, B * W, 3)
        size = (image.shape[1], image.shape[0])
        if self._screen is None or self._screen.get_size() != size:
            pygame.display.init()
            pygame.display.set_caption(self._title)
            self._screen = pygame.display.set_mode(size)
            self._clock = pygame.time.Clock()
        pygame.event.pump()
        pygame.surfarray.blit_array(self._screen, image.transpose(1, 0, 2))
        pygame.display.flip()
        if fps > 0:
            self._clock.tick(fps)

    def close(self) -> None:
        if self._screen is not None:
            self._pygame.display.quit()
            self._screen = None
