"""Host variable facts from the libclang AST (issue 19, item 1): every mention of a variable
in a host function with its role and the call argument it sits in."""

from __future__ import annotations

SOURCE = """#include <cuda_runtime.h>
#include <cstdlib>
#define CHECK(x) do { if ((x) != cudaSuccess) exit(1); } while (0)
struct Dim { int x; };
void take(float *p, int n);
int main()
{
    int n = 100, x = 3;
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));
    float *p = NULL, *q;
    float *h[2];
    Dim block;
    block.x = n;
    if ((p = (float *)malloc(n * sizeof(float))) == 0)
        return 1;
    CHECK(cudaMalloc((void **)&q, n * sizeof(float)));
    cudaMemcpy(q, h[0], n * sizeof(float), cudaMemcpyHostToDevice);
    a[0] = b[1] + x;
    take(a, n);
    if (!b)
        return 2;
    x++;
    free(a);
    return 0;
}
"""


def _uses(load_source):
    loaded = load_source(SOURCE, "facts.cu")
    assert loaded.model is not None
    return loaded.model.in_function("var_uses", "main")


def _roles(uses, line: int) -> list[tuple]:
    return [(u.name, u.role, u.call, u.position) for u in uses if u.span.line == line]


def test_every_declarator_of_a_declaration(load_source):
    uses = _uses(load_source)
    assert _roles(uses, 9)[0] == ("a", "init", None, None)
    assert ("b", "init", None, None) in _roles(uses, 9)
    assert _roles(uses, 10) == [("p", "null-init", None, None), ("q", "declare", None, None)]


def test_members_are_not_variables(load_source):
    roles = _roles(_uses(load_source), 13)
    assert ("block", "member", None, None) in roles
    assert not any(name == "x" for name, *_ in roles)


def test_assignment_inside_a_condition(load_source):
    assert ("p", "assign", None, None) in _roles(_uses(load_source), 14)


def test_call_arguments_also_inside_macros(load_source):
    uses = _uses(load_source)
    assert _roles(uses, 16) == [("q", "address", "cudaMalloc", 0), ("n", "read", "cudaMalloc", 1)]
    assert _roles(uses, 17)[:2] == [("q", "argument", "cudaMemcpy", 0),
                                    ("h", "subscript", "cudaMemcpy", 1)]
    assert _roles(uses, 19) == [("a", "argument", "take", 0), ("n", "argument", "take", 1)]


def test_null_tests_and_increments(load_source):
    uses = _uses(load_source)
    assert _roles(uses, 20) == [("b", "null-test", None, None)]
    assert _roles(uses, 22) == [("x", "assign", None, None)]
    assert all(u.pointer for u in uses if u.name in ("a", "b", "h", "p", "q"))
    assert not any(u.pointer for u in uses if u.name in ("n", "x"))


def test_the_operand_of_delete(load_source):
    loaded = load_source("int main()\n{\n    float *a = new float[8];\n    a[0] = 1.0f;\n"
                         "    delete[] a;\n    return 0;\n}\n", "del.cu")
    uses = loaded.model.in_function("var_uses", "main")
    assert _roles(uses, 3) == [("a", "init", None, None)]
    assert _roles(uses, 5) == [("a", "delete", None, None)]
