"""`python -m gaze_analyzer_python --stdio`."""

from .app import main

main()
