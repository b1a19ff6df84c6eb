"""Runs arriving while the app is open: the watcher posts, the app reacts (notices, follow mode, reloads).

`react()` is the decision, pure and testable; `LiveRuns` owns the watcher and the state that
the app's message handlers change (which run is open, follow mode, the last catalog update).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message
from textual.notifications import SeverityLevel

from neurontui.catalog import CatalogUpdate, Run
from neurontui.tui.widgets.runlist import RunList, run_label
from neurontui.tui.widgets.timeline import Timeline
from neurontui.watch import RunWatcher

if TYPE_CHECKING:
    from neurontui.tui.app import NeuronTUI

# More new runs than this in one refresh give a single summary notice instead of one each.
MAX_NOTICES = 3


class RunsChanged(Message):
    """The watcher refreshed the catalog and something changed (posted from its thread)."""

    def __init__(self, update: CatalogUpdate) -> None:
        super().__init__()
        self.update = update


@dataclass(frozen=True)
class Notice:
    text: str
    severity: SeverityLevel = "information"


@dataclass(frozen=True)
class Reaction:
    """What the app should do about one update."""

    notices: tuple[Notice, ...] = ()
    open_run: Run | None = None  # follow mode: show this newly complete run
    reload_run: Run | None = None  # the open run changed on disk and is complete again


def react(previous: dict[str, Run] | None, update: CatalogUpdate, open_key: str | None, follow: bool) -> Reaction:
    """Decide notices, follow-mode opening and reloads; previous is None for the first update (no notices)."""
    if previous is None:
        return Reaction()
    notices: list[Notice] = []
    ready: list[Run] = []
    troubled: list[Run] = []
    for run in update.runs:
        before = previous.get(run.key)
        if before is not None and before.status == run.status:
            continue
        if run.status == "complete" and run.key != open_key:
            ready.append(run)
        elif run.status in ("failed", "cancelled", "timeout", "unreadable") and run.key != open_key:
            troubled.append(run)
    if len(ready) + len(troubled) > MAX_NOTICES:
        notices.append(Notice(f"{len(ready)} new run(s) ready, {len(troubled)} failed or unreadable"))
    else:
        notices += [Notice(f"New run ready: {run_label(r)}") for r in ready]
        notices += [Notice(f"{run_label(r)}: {r.status.replace('_', ' ')} — {r.reason}", "warning") for r in troubled]
    reload_run = None
    if open_key is not None and open_key in update.removed:
        notices.append(Notice(f"{open_key} was deleted; its last loaded data stays on screen", "warning"))
    elif open_key is not None and open_key in update.changed and (current := update.run(open_key)) is not None:
        if current.status == "complete":
            reload_run = current
        elif current.status == "unreadable":
            notices.append(Notice(f"{run_label(current)} can no longer be read ({current.reason}); "
                                  "the last good data stays on screen", "warning"))
    open_run = ready[0] if follow and ready else None  # update.runs is newest first
    return Reaction(tuple(notices), open_run, reload_run)


def watch_root(path: str | None, out_dir: str | None) -> str | None:
    """The directory to watch: PATH when it is a directory, else the capture output directory."""
    if path is not None and os.path.isdir(path):
        return path
    return out_dir


class LiveRuns:
    """Owned by the app; every method runs on the UI thread except the watcher's callback, which only posts."""

    def __init__(self, app: NeuronTUI, root: str | None, poll: bool = False) -> None:
        self.app = app
        self.root = root
        self.poll = poll
        self.follow = False
        self.panel_hidden = False  # the person hid the panel: new runs do not bring it back
        self.open_key: str | None = None
        self.runs: dict[str, Run] | None = None  # None until the first update
        self.updates = 0
        self._watcher: RunWatcher | None = None

    def start(self) -> None:
        if self.root is not None:
            self._watcher = RunWatcher(self.root, lambda u: self.app.post_message(RunsChanged(u)), poll=self.poll)
            self._watcher.start()

    def stop(self) -> bool:
        """Stop the watcher thread; True when it is gone."""
        return self._watcher.stop(timeout=1.0) if self._watcher is not None else True

    def apply(self, update: CatalogUpdate) -> None:
        """Show the update, then notify, follow or reload as react() decides."""
        self.updates += 1
        runs = {run.key: run for run in update.runs}
        if self.open_key is None:
            self.open_key = self._key_for_open_trace(runs)
        reaction = react(self.runs, update, self.open_key, self.follow)
        self.runs = runs
        if self.open_key in update.removed:
            self.open_key = None
        for notice in reaction.notices:
            self.app.notify(notice.text, severity=notice.severity)
        if reaction.open_run is not None:
            self.open(reaction.open_run)
        elif reaction.reload_run is not None:
            self.app.open_path(reaction.reload_run.path, keep_view=True)
        self.show()

    def open(self, run: Run) -> None:
        """Open a run from the list or by follow mode; a run not yet complete says why it cannot be opened."""
        if run.status != "complete":
            reason = f" — {run.reason}" if run.reason else ""
            self.app.notify(f"{run_label(run)} cannot be opened: {run.status.replace('_', ' ')}{reason}", severity="warning")
            return
        self.open_key = run.key
        self.app.open_path(run.path)
        self.show()

    def trace_opened(self) -> None:
        """The explorer finished loading a trace: mark its run, which the first update may have arrived too early to know."""
        if self.runs is not None:
            self.open_key = self._key_for_open_trace(self.runs)
            self.show()

    def toggle_follow(self) -> None:
        self.follow = not self.follow
        self.app.notify("Follow mode on: each new complete run opens" if self.follow else "Follow mode off")
        self.show()

    def toggle_panel(self) -> None:
        """`r`: show and focus the run list; pressed in the list, hide it and go back to the timeline."""
        panel = self.panel()
        if panel.display and panel.has_focus:
            self.panel_hidden = True
            panel.display = False
            self.leave_panel()
            return
        self.panel_hidden = False
        panel.display = True
        panel.focus()

    def leave_panel(self) -> None:
        self.app.explorer.query_one(Timeline).focus()

    def show(self) -> None:
        """Redraw the run list panel; it appears by itself once there is something to list."""
        if self.runs is None:
            return
        panel = self.panel()
        runs = tuple(self.runs.values())
        panel.show_runs(runs, self.open_key, self.follow, self.root or "")
        if runs and not self.panel_hidden:
            panel.display = True

    def panel(self) -> RunList:
        return self.app.explorer.query_one(RunList)

    def _key_for_open_trace(self, runs: dict[str, Run]) -> str | None:
        """The run the explorer shows when it was opened some other way (PATH, or the newest capture at start)."""
        state = self.app.explorer.state
        if state is None:
            return None
        target = os.path.abspath(state.trace.path)
        for run in runs.values():
            if target == run.path or target.startswith(run.path + os.sep):
                return run.key
        return None
