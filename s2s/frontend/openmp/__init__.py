"""OpenMP directives of a C/C++ file, read from libclang's raw tokens (the file is parsed
without ``-fopenmp``), directives written through ``_Pragma`` macros, and clang-16's second
opinion on a rewritten file.

Public modules (``__all__``): ``directives`` (``extract_directives``), ``macros``
(``extract_macro_directives``, the macro-directive diagnostic id), ``clang_check`` (the driver's
``clang-16 -fsyntax-only`` check). ``clauses`` (the directive and clause parser) and
``file_tokens`` (the main file's tokens in one piece) serve ``directives``.
"""

__all__ = ["clang_check", "directives", "macros"]
