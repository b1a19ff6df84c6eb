"""Keep a Catalog current from file-system events in a background thread, so the UI never stats or parses.

`RunWatcher(root, on_update).start()` runs `watchfiles.watch` over the output directory
(recursively; `poll=True` forces polling for network file systems), debounced, ignoring
temporary names, and calls `on_update(CatalogUpdate)` from its thread after each refresh that
changed something (and once at start). While an entry waits to settle, the loop wakes every
`tick_ms` to re-judge it without any new event. A missing output directory is polled for,
never created. `stop()` ends the thread promptly through watchfiles' stop event.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import watchfiles

from neurontui.catalog import Catalog, CatalogUpdate, is_temporary_name

UpdateCallback = Callable[[CatalogUpdate], None]


class TemporaryNameFilter:
    """Drops changes to files any of whose path parts below the root look temporary (`*.tmp`, `.x`, `x~`, ...)."""

    def __init__(self, root: str) -> None:
        self.root = root

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        rel = os.path.relpath(path, self.root)
        return not any(is_temporary_name(part) for part in rel.split(os.sep) if part not in (".", ".."))


class RunWatcher:
    """One daemon thread: watch the output directory, refresh the catalog, report changes."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        on_update: UpdateCallback,
        *,
        poll: bool = False,
        debounce_ms: int = 300,
        step_ms: int = 50,
        tick_ms: int = 250,
        settle_s: float = 1.0,
        catalog: Catalog | None = None,
    ) -> None:
        self.catalog = catalog or Catalog(root, settle_s=settle_s)
        self.root = self.catalog.root
        self.on_update = on_update
        self.poll = poll
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.tick_ms = tick_ms
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- control (any thread) ---------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("RunWatcher.start() called twice")
        self._thread = threading.Thread(target=self._run, name=f"neurontui-watch:{self.root}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 1.0) -> bool:
        """Ask the loop to end and wait up to timeout; True when the thread is gone."""
        self._stop.set()
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ---- the loop (watcher thread) ---------------------------------------------------------
    def _run(self) -> None:
        self._publish(force=True)
        while not self._stop.is_set():
            if not os.path.isdir(self.root):
                if self._stop.wait(self.tick_ms / 1000):
                    return
                self._publish(force=False)
                continue
            try:
                self._watch()
            except (OSError, RuntimeError):  # the root vanished or the OS refused to watch it: try again
                self._stop.wait(self.tick_ms / 1000)

    def _watch(self) -> None:
        first = True
        for changes in watchfiles.watch(
            self.root,
            watch_filter=TemporaryNameFilter(self.root),
            debounce=self.debounce_ms,
            step=self.step_ms,
            stop_event=self._stop,
            rust_timeout=self.tick_ms,
            yield_on_timeout=True,
            raise_interrupt=False,
            force_polling=self.poll,
            ignore_permission_denied=True,
        ):
            if self._stop.is_set():
                return
            # The first wake-up also covers files created between the first walk and the watch start.
            if changes or first or self.catalog.recheck_due():
                self._publish(force=False)
            first = False
            if not os.path.isdir(self.root):
                return

    def _publish(self, force: bool) -> None:
        update = self.catalog.refresh()
        if force or update.has_changes:
            self.on_update(update)
