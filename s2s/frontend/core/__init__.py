"""The core of the front end: libclang set up, one file parsed, its main file walked.

Public modules (``__all__``), used by every package of the front end and by the passes:
``toolchain`` (compilers, headers, libclang configured once), ``parse`` (``parse_file``,
``parse_source``, ``ParseOptions``: a file parsed per language and CUDA side, libclang's
diagnostics as s2s diagnostics), ``flags`` and ``allowed_flags`` (user flags:
``compile_commands.json``, the allow-list), ``walk`` and ``context`` (``ExtractContext``: the
one main-file walk of a translation unit, cursor -> ``SourceSpan``), ``fast_cursor`` (cursor
facts read through libclang's C API) and ``token_text`` (token spellings that survive bytes
that are not UTF-8). ``include_guard`` is parse's own; ``parse_reuse`` (a chain's checked
parse handed to the next load, the files a run's parses read) is parse's and the caches'.
"""

__all__ = ["allowed_flags", "context", "fast_cursor", "flags", "parse", "parse_reuse", "token_text",
           "toolchain", "walk"]
