"""Test-session set-up shared by the unit tests and nbval.

Notebooks executed under test write their figures to a temporary folder, so a
test run never rewrites the committed figures/.
"""

import os
import tempfile


def pytest_configure(config):
    os.environ.setdefault("DPNN_FIGURES_DIR", tempfile.mkdtemp(prefix="dpnn-test-figures-"))
