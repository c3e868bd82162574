"""Each source's evaluation, one module or package per source, named by its authors
or its method: :mod:`.thesis` (the thesis's §6), :mod:`.gursoy` (Gursoy et al. §5),
:mod:`.cormode` (Cormode et al. §VIII), :mod:`.liang_yi` (Liang and Yi §5) and
:mod:`.simrand` (the SimRand post's recall experiments); :mod:`.followup` compares
DP-TT with the newer local mechanisms and :mod:`.synthesis` sets every method side by
side. Each returns tables that do not depend on how many processes ran them.
"""

__all__ = []
