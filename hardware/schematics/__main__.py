"""`python -m hardware.schematics`: regenerate the artefacts (see build.py)."""

from .build import main

raise SystemExit(main())
