"""A Gaze analyzer for Python projects, built on wirekit.

Gaze finds it on PATH as `gaze-analyzer-python`. It reads the project at the
`root_path` the host sends and answers with real measurements: cyclomatic
complexity from `ast`, side effects per function, per-function coverage from
running the project's tests under coverage.py, and assertions mapped to the
functions they check.
"""

__version__ = "0.1.0"
