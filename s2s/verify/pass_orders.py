"""What the CUDA passes reach in each order (issue 31, item 2: passes compose without loss).

For one CUDA file: the kernel launches and ``cudaMemcpy`` calls of the program (counted in the
model of the rewritten text, as written in the source) after ``transfers`` alone, ``fuse``
alone, and both in either order, each pass on the previous one's output. The default pipeline
must reach what the best order reaches: as few launches as ``fuse`` reaches by itself and as
few copies as ``transfers`` reaches by itself. ``scripts/compare_pass_orders.py`` prints the
table over the samples and the corpus; the tests check it.
"""

from __future__ import annotations

from dataclasses import dataclass

from s2s.driver import Failed, RunOptions, Success, process_file
from s2s.transform import registry

#: the orders compared; the key is what the report shows
ORDERS = {"transfers": ("transfers",), "fuse": ("fuse",),
          "transfers,fuse": ("transfers", "fuse"), "fuse,transfers": ("fuse", "transfers")}


@dataclass(frozen=True)
class Counts:
    """Kernel launches and cudaMemcpy calls written in one version of a file."""

    launches: int
    copies: int


def counts_of(path: str, source: bytes, options: RunOptions) -> Counts:
    """The launches and copies of ``source`` (parsed under ``path``'s name)."""
    result = process_file(path, options, None, source=source)
    if not isinstance(result, Success):
        raise RuntimeError(f"{path}: the rewritten text does not load: {result.diagnostics}")
    model = result.loaded.model
    return Counts(len(model.launches), sum(c.category == "memcpy" for c in model.api_calls))


def order_counts(path: str, options: RunOptions, orders: dict[str, tuple[str, ...]] = ORDERS
                 ) -> dict[str, Counts]:
    """``original`` and each order's counts; a chain's prefix is run once (``transfers,fuse``
    starts from ``transfers``'s output)."""
    with open(path, "rb") as handle:
        original = handle.read()
    texts: dict[tuple[str, ...], bytes] = {(): original}
    for order in orders.values():
        for length in range(1, len(order) + 1):
            prefix = order[:length]
            if prefix not in texts:
                texts[prefix] = _run(path, texts[prefix[:-1]], prefix[-1], options)
    found = {"original": counts_of(path, original, options)}
    for name, order in orders.items():
        found[name] = counts_of(path, texts[order], options)
    return found


def _run(path: str, source: bytes, name: str, options: RunOptions) -> bytes:
    result = process_file(path, options, registry.get(name), source=source)
    if isinstance(result, Failed):
        return source            # a pass that fails on a file leaves it as it was
    return result.change.after if isinstance(result, Success) and result.change else source
