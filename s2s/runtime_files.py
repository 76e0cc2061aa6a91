"""Where the files of the runtime s2s works with are: found from the imported package
(``runtime`` is bound by :mod:`s2s` to this copy's runtime, the folder ``runtime/`` in the
source tree or the installed package ``s2s_runtime``), never from the layout of a checkout,
so a wheel or ``pip install .`` finds them as the editable tree does."""

from __future__ import annotations

import os

import runtime

#: the folder of the runtime package (runtime/ in the tree, site-packages/s2s_runtime installed)
RUNTIME_PACKAGE_DIR = os.path.dirname(os.path.abspath(runtime.__file__))
#: s2s_mgpu.h and s2s_runtime.h: what a rewritten file includes; s2s parses and checks its
#: own mgpu output against them without the user adding -I
RUNTIME_INCLUDE = os.path.join(RUNTIME_PACKAGE_DIR, "include")
