"""Progress of a notebook's long loops, shown by the runner on its own terminal line.

A thesis-profile sweep runs for minutes inside one notebook cell. When the runner
(``.venv/bin/python -m companion.run``) executes a notebook it sets
``$DPNN_PROGRESS_FILE``;
:func:`progress` then writes a tqdm bar to that file and the runner shows the bar's
latest state after the notebook's name. Anywhere else (JupyterLab, nbval,
``make notebooks``) it returns the iterable unchanged and prints nothing, so stored
outputs never hold a bar.
"""

from __future__ import annotations

import os

__all__ = ["progress", "PROGRESS_FILE"]

#: The environment variable naming the file a bar is written to.
PROGRESS_FILE = "DPNN_PROGRESS_FILE"


def progress(iterable, *, total=None, desc=""):
    """``iterable``, with a tqdm bar written to ``$DPNN_PROGRESS_FILE`` when that is
    set."""
    path = os.environ.get(PROGRESS_FILE)
    if not path:
        return iterable
    return _bar(iterable, total, desc, path)


def _bar(iterable, total, desc, path):
    from tqdm import tqdm

    with (
        open(path, "a", buffering=1) as handle,
        tqdm(
            iterable,
            total=total,
            desc=desc,
            file=handle,
            mininterval=1.0,
            ncols=90,
            ascii=True,
        ) as bar,
    ):
        yield from bar
