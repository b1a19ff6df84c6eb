"""Widgets of the explorer: the timeline, its ruler, the detail pane and the search bar."""
