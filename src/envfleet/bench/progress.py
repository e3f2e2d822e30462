"""A tiny progress bar on stderr (no dependency): done/total, elapsed, an estimate of what is left.

On a terminal it redraws one line in place; otherwise (a log file, a test capturing stderr)
it prints a plain line at every tenth of the way, so logs stay short and readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """Counts finished jobs out of ``total`` and shows what is running now."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True):
        self.total = max(total, 1)
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self.start = time.monotonic()
        self._last_decile = -1

    def show(self, label: str) -> None:
        """Announces the job about to run (redrawn in place on a terminal)."""
        if self.tty:
            self._draw(label)

    def advance(self, label: str = "") -> None:
        """Marks one job finished."""
        self.done = min(self.done + 1, self.total)
        if not self.enabled:
            return
        if self.tty:
            self._draw(label)
            return
        decile = self.done * 10 // self.total
        if decile != self._last_decile:
            self._last_decile = decile
            self.stream.write(self._line(label) + "\n")
            self.stream.flush()

    def finish(self) -> None:
        """Ends the bar's line so that what follows starts on a fresh one."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def _line(self, label: str) -> str:
        elapsed = time.monotonic() - self.start
        width = 24
        filled = width * self.done // self.total
        bar = "#" * filled + "-" * (width - filled)
        left = ""
        if 0 < self.done < self.total:
            left = f" ~{_clock(elapsed / self.done * (self.total - self.done))} left"
        return f"[{bar}] {self.done}/{self.total} {_clock(elapsed)}{left}  {label}"

    def _draw(self, label: str) -> None:
        line = self._line(label)[:119]
        self.stream.write("\r" + line.ljust(119))
        self.stream.flush()
