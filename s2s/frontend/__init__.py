"""The front end: libclang -> the frozen model (``s2s.model``), one package per kind of fact.

``core`` (toolchain, parse, the main-file walk), ``cuda``, ``host`` (the host tree and what is
read from it), ``access``, ``openmp``, ``cxx``; ``extract.load`` is the front door, ``headers``
hands a file's device headers to the CUDA passes. Layers and import rules:
docs/ARCHITECTURE-brief.md, checked by testsuite/test_import_rules.py. Nothing is imported here
(``s2s --version`` and a file with nothing to do must start lean).
"""
