"""All isl work of the runtime's access enumerators: instantiate maps, plan row-wise
enumeration, enumerate with isl, check write injectivity.

Row-wise enumeration (paper 002, section 6): the image of an access map over a box of blocks
is a set of 1-D element offsets. It is cut into rows of width ``W`` (``q = floor(i / W)``);
for each convex piece and each row, the lexmin and lexmax of ``i`` bound a range. That is
exact only if every row slice of every piece is an interval, so :func:`plan_rows` tries widths
and *checks* exactness symbolically for all boxes: first one row for everything (a 1-D
contiguous image), then the coefficients found in the map (``width``, ``bdx``...) from the
largest down, and finally ``W = 1`` (one element per row, always exact). The same plan feeds
the isl enumerator here and the llvmlite JIT (``jit.py``) through an isl AST, so both produce
identical ranges. Unbounded images (reads of unknown offsets) are capped at ``UNBOUNDED``. A plan can be made for
the boxes that span chosen axes of the grid completely (``full``, see :func:`plan_rows`): the
runtime picks the plan by the box's pattern.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from runtime.access.maptext import instantiate

BOX_PARAMS = ("lx", "ly", "lz", "hx", "hy", "hz")
THREAD_DIMS = ("bx", "by", "bz", "tx", "ty", "tz")
#: Exclusive end used for an image without upper bound (the runtime clips to the buffer).
UNBOUNDED = 1 << 62
_CTX = isl.DEFAULT_CONTEXT


def instantiate_map(text: str, values: dict[str, int]) -> isl.Map:
    """The isl map of ``text`` with the launch values substituted (no parameters left)."""
    return isl.Map(instantiate(text, values))


@dataclass
class RowPiece:
    """One convex piece: for each row ``q`` of ``domain``, elements ``lo(q) .. hi(q)``."""

    domain: isl.Set   # { S_k[q] } over the box parameters
    lo: isl.PwAff     # { S_k[q] -> [first element] }
    hi: isl.PwAff     # { S_k[q] -> [last element] }


@dataclass
class RowPlan:
    """How to enumerate one instantiated access map over any box of blocks."""

    width: int | None  # None: the whole image is one row
    pieces: list[RowPiece]
    context: isl.Set   # valid boxes: 0 <= lo <= hi <= grid


#: A box pattern: per axis (x, y, z), whether the box spans the whole grid along it.
NO_FULL_AXES = (False, False, False)


def box_pattern(box, grid: tuple[int, int, int]) -> tuple[bool, bool, bool]:
    """Which axes ``box`` spans completely (a row band of a 2-D grid: x and z)."""
    lo, hi = box.lo, box.hi
    return (lo[0] == 0 and hi[0] == grid[0], lo[1] == 0 and hi[1] == grid[1], lo[2] == 0 and hi[2] == grid[2])


def box_set(grid: tuple[int, int, int], full=NO_FULL_AXES) -> tuple[isl.Set, isl.Set]:
    """(the threads of a box, the valid boxes) with the box bounds as parameters; along the axes
    marked in ``full`` the valid boxes span the whole grid."""
    params = ", ".join(BOX_PARAMS)
    gx, gy, gz = grid
    threads = isl.Set(f"[{params}] -> {{ [{', '.join(THREAD_DIMS)}] : lx <= bx < hx and "
                      f"ly <= by < hy and lz <= bz < hz }}")
    spans = "".join(f" and l{a} = 0 and h{a} = {g}" for a, g, f in zip("xyz", grid, full, strict=True) if f)
    context = isl.Set(f"[{params}] -> {{ : 0 <= lx <= hx <= {gx} and 0 <= ly <= hy <= {gy} and "
                      f"0 <= lz <= hz <= {gz}{spans} }}")
    return threads, context


def image_over_box(access: isl.Map, grid: tuple[int, int, int], full=NO_FULL_AXES) -> tuple[isl.Set, isl.Set]:
    """The accessed offsets of a box (parametric in the box), capped, and the box context."""
    threads, context = box_set(grid, full)
    access = access.align_params(threads.get_space())
    image = access.intersect_domain(threads).range().intersect_params(context)
    cap = isl.Set(f"{{ [i] : {-UNBOUNDED} <= i < {UNBOUNDED} }}").align_params(image.get_space())
    image = image.reset_tuple_id()
    return image.intersect(cap).coalesce(), context


def candidate_widths(access: isl.Map) -> list[int]:
    """Row widths worth trying: coefficients of the map's equalities, largest first."""
    found = set()
    for bmap in access.get_basic_maps():
        for constraint in bmap.get_constraints():
            if not constraint.is_equality():
                continue
            for kind in (isl.dim_type.in_, isl.dim_type.div, isl.dim_type.out):
                for pos in range(bmap.dim(kind)):
                    value = abs(constraint.get_coefficient_val(kind, pos).to_python())
                    if value > 1:
                        found.add(value)
    return sorted(found, reverse=True)


def _rows(image: isl.Set, width: int | None) -> isl.Set:
    """``{ [q, i] }``: each offset with its row number."""
    if width is None:
        rows = isl.Map("{ [i] -> [q, j] : q = 0 and j = i }")
    else:
        rows = isl.Map(f"{{ [i] -> [q, j] : j = i and {width}q <= i < {width}q + {width} }}")
    return image.apply(rows.align_params(image.get_space())).coalesce()


def _piece(name: str, piece: isl.Map, whole: isl.Map, context: isl.Set) -> RowPiece | None:
    """Row ``q`` -> [lexmin, lexmax] of ``piece``; None unless every row between the two
    bounds lies in ``whole`` (the exactness check, for all boxes at once)."""
    lo, hi = piece.lexmin(), piece.lexmax()
    above = lo.apply_range(isl.Map("{ [a] -> [r] : r >= a }").align_params(lo.get_space()))
    below = hi.apply_range(isl.Map("{ [a] -> [r] : r <= a }").align_params(hi.get_space()))
    if not (above & below).intersect_params(context).is_subset(whole):
        return None
    lo_pw = isl.PwMultiAff.from_map(lo.set_tuple_name(isl.dim_type.in_, name)).get_pw_aff(0)
    hi_pw = isl.PwMultiAff.from_map(hi.set_tuple_name(isl.dim_type.in_, name)).get_pw_aff(0)
    domain = piece.domain().set_tuple_name(name).intersect_params(context)
    return RowPiece(domain.coalesce(), lo_pw.coalesce(), hi_pw.coalesce())


def _pieces(rows: isl.Set, context: isl.Set) -> list[RowPiece] | None:
    """One piece for the whole image when each row of it is one interval (one range per
    row), else one per basic set; None when even that is not exact."""
    whole = isl.Map.from_range(rows).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, 1)
    single = _piece("S_0", whole, whole, context)
    if single is not None:
        return [single]
    pieces = []
    for k, bset in enumerate(rows.get_basic_sets()):
        part = isl.Map.from_range(isl.Set.from_basic_set(bset)).move_dims(
            isl.dim_type.in_, 0, isl.dim_type.out, 0, 1)
        piece = _piece(f"S_{k}", part, whole, context)
        if piece is None:
            return None
        pieces.append(piece)
    return pieces


def plan_rows(access: isl.Map, grid: tuple[int, int, int], full=NO_FULL_AXES) -> RowPlan:
    """The coarsest exact row decomposition of ``access`` for every box of ``grid`` (every box that
    spans the axes marked in ``full``).

    Why the ``full`` variant: the usual partition is a band of rows (``split_grid`` cuts along one
    axis), and over such boxes a stencil's image is one contiguous interval, so the plan needs no row
    loop at all (``W = None``, a constant number of operations per box) where the plan for all boxes
    walks every row of the band."""
    image, context = image_over_box(access, grid, full)
    for width in [None, *candidate_widths(access), 1]:
        if width is not None and width < 1:
            continue
        pieces = _pieces(_rows(image, width), context)
        if pieces is not None:
            return RowPlan(width, pieces, context)
    raise AssertionError("width 1 is always exact")  # pragma: no cover


def ast_of_plan(plan: RowPlan):
    """An isl AST over the box parameters: a loop over rows, ``emit(k, first, last)`` per piece.

    All pieces share the row loop (schedule ``S_k[q] -> [q, k]``), so ranges come out in row
    order and the JIT can merge neighbours as they arrive. None when nothing is accessed.
    """
    if not plan.pieces:
        return None
    schedule = None
    for k, piece in enumerate(plan.pieces):
        name = piece.domain.get_tuple_name()
        part = isl.Map(f"{{ {name}[q] -> [q, {k}] }}").align_params(piece.domain.get_space())
        part = isl.UnionMap.from_map(part.intersect_domain(piece.domain))
        schedule = part if schedule is None else schedule.union(part)
    by_name = {p.domain.get_tuple_name(): (k, p) for k, p in enumerate(plan.pieces)}

    def at_domain(node, build):
        call = node.user_get_expr()
        name = call.get_op_arg(0).get_id().get_name()
        k, piece = by_name[name]
        iterators = isl.PwMultiAff.from_map(isl.Map.from_union_map(build.get_schedule()).reverse())
        first = build.expr_from_pw_aff(piece.lo.pullback_pw_multi_aff(iterators))
        last = build.expr_from_pw_aff(piece.hi.pullback_pw_multi_aff(iterators))
        args = isl.AstExprList.alloc(_CTX, 3).add(isl.AstExpr.from_val(
            isl.Val.int_from_si(_CTX, k))).add(first).add(last)
        return isl.AstNode.user_from_expr(isl.AstExpr.from_id(isl.Id("emit", context=_CTX)).call(args))

    build, _callback = isl.AstBuild.from_context(plan.context).set_at_each_domain(at_domain)
    return build.node_from_schedule_map(schedule)


def merge_ranges(ranges) -> list[tuple[int, int]]:
    """Sorted, disjoint, maximal half-open ranges covering ``ranges``."""
    out: list[list[int]] = []
    for start, end in sorted(ranges):
        if start >= end:
            continue
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def isl_ranges(plan: RowPlan, box) -> list[tuple[int, int]]:
    """Enumerate with isl alone: the rows of every piece for one box (slow, but no JIT)."""
    values = dict(zip(BOX_PARAMS, (*box.lo, *box.hi), strict=True))
    ranges = []
    for piece in plan.pieces:
        domain = piece.domain
        for name, value in values.items():
            pos = domain.find_dim_by_name(isl.dim_type.param, name)
            domain = domain.fix_val(isl.dim_type.param, pos, isl.Val.int_from_si(_CTX, value))
        points: list[isl.Point] = []
        domain.foreach_point(points.append)
        for point in points:
            start = piece.lo.eval(point).to_python()
            end = piece.hi.eval(point).to_python() + 1
            ranges.append((start, end))
    return merge_ranges(ranges)


def write_conflict(access: isl.Map) -> tuple[str, int] | None:
    """Whether two threads write one element: ``('blocks', i)`` for threads of different blocks,
    ``('threads', i)`` for threads of one block only, None when the map is injective.

    Decided on the per-thread map (before threads are projected away): the pairs of distinct
    threads that reach the same element, split by whether their blocks differ."""
    pairs = access.apply_range(access.reverse())
    a, b = [f"{d}0" for d in THREAD_DIMS], [f"{d}1" for d in THREAD_DIMS]
    other_block = " or ".join(f"{x} != {y}" for x, y in zip(a[:3], b[:3], strict=True))
    same_block = " and ".join(f"{x} = {y}" for x, y in zip(a[:3], b[:3], strict=True))
    other_thread = " or ".join(f"{x} != {y}" for x, y in zip(a[3:], b[3:], strict=True))
    head = f"{{ [{', '.join(a)}] -> [{', '.join(b)}] : "
    for kind, cond in (("blocks", other_block), ("threads", f"{same_block} and ({other_thread})")):
        filt = isl.Map(head + cond + " }").align_params(pairs.get_space())
        filt = filt.set_tuple_id(isl.dim_type.in_, pairs.get_tuple_id(isl.dim_type.in_)) if (
            pairs.has_tuple_id(isl.dim_type.in_)) else filt
        clash = pairs.intersect(filt)
        if not clash.is_empty():
            met = _met_element(access, clash)
            inside = met.lower_bound_val(isl.dim_type.set, 0, isl.Val.int_from_si(met.get_ctx(), 0))
            point = (met if inside.is_empty() else inside).lexmin().sample_point()
            return kind, point.get_coordinate_val(isl.dim_type.set, 0).to_python()
    return None


def _met_element(access: isl.Map, clash: isl.Map) -> isl.Set:
    """The elements both threads of a pair of ``clash`` write: the element a conflict names
    (not any element of a clashing thread: a column walk ``od[x + y * w]`` would name
    ``od[0]``, which thread 0 alone writes; issue 29, cuda-samples boxFilter). The smallest
    element at or above 0 is named where there is one (sample sizes can put a loop's writes
    before the array's start)."""
    by_element = access.reverse()
    both = by_element.range_product(by_element).intersect_range(clash.wrap())
    return both.domain()
