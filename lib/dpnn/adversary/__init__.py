"""What the server really learns: the Bayes-optimal adversary and the exact privacy
of DP-TT transcripts.

===============  ================================================================
``grid``         the domain as a grid of cells; uniform and empirical priors
``turns``        DP-TT's turn probabilities at any location; the law of a path
``likelihoods``  each mechanism's release and its likelihood on the grid
``estimate``     posterior, Bayes-optimal guess, the adversary's expected error
``transcript``   the exact privacy curve of a whole basic DP-TT transcript
===============  ================================================================
"""

from dpnn.adversary.estimate import *  # noqa: F401,F403
from dpnn.adversary.estimate import __all__ as _estimate
from dpnn.adversary.grid import *  # noqa: F401,F403
from dpnn.adversary.grid import __all__ as _grid
from dpnn.adversary.likelihoods import *  # noqa: F401,F403
from dpnn.adversary.likelihoods import __all__ as _likelihoods
from dpnn.adversary.transcript import *  # noqa: F401,F403
from dpnn.adversary.transcript import __all__ as _transcript
from dpnn.adversary.turns import *  # noqa: F401,F403
from dpnn.adversary.turns import __all__ as _turns

__all__ = _grid + _turns + _likelihoods + _estimate + _transcript
