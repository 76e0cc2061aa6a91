"""Target directives written through ``_Pragma`` macros (PRK's ``OMP_TARGET(...)``).

The front end makes a directive of each use of such a macro that stands before a statement
(:func:`s2s.frontend.openmp.directives.macro_pragmas`): its span is the macro use, flagged as
a macro expansion, and its associated statement lies after the use, in the function's own
text. The plan treats it like any other construct; nothing is ever edited inside the use, but
a line before it or after its statement is the function's own text (s2s.transform.omp_macro).
"""

from __future__ import annotations

from s2s.model import SourceSpan


def written_through_macro(directive) -> bool:
    """Whether the directive is a macro use whose statement lies outside the macro (a
    ``#pragma`` line is never in a macro span)."""
    stmt = directive.stmt_span
    return directive.span.macro is not None and stmt is not None and stmt.macro is None \
        and stmt.start >= directive.span.end


def macro_spans(model) -> frozenset[SourceSpan]:
    """The spans of the model's directives written through macros."""
    return frozenset(d.span for d in model.directives if written_through_macro(d))
