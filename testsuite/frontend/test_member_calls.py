"""Member function calls that reach a class's vector storage from the host
(frontend.cxx.member_calls) and the host accesses the plan makes of them
(omp.accessor_accesses): ``double *l = d.lists();`` then ``d.list(k) = x`` writes ``l[k]``."""

from __future__ import annotations

from s2s.analysis.omp.accessor_accesses import with_accessor_accesses

DECK = """
#include <vector>
class Deck {
public:
    void load(int n) { n_ = n; list_.resize(n); out_.resize(n); }
    int size() const { return n_; }
    double *lists() { return list_.data(); }
    double *outs() { return out_.data(); }
    double &list(int r) { return list_[r]; }
    double result(int r) const { return out_[r]; }
    double sum() const { double s = 0; for (double v : list_) s += v; return s; }
    double both() const { return sum() + out_[0]; }
    double remote() const;
private:
    int n_ = 0;
    std::vector<double> list_, out_;
};

double run(int n, int k)
{
    Deck d;
    d.load(n);
    d.list(0) = 1.0;
    double *l = d.lists();
    double *o = d.outs();
#pragma omp target teams distribute parallel for map(tofrom: l[0:n], o[0:n])
    for (int i = 0; i < n; i++)
        o[i] = 2.0 * l[i];
    d.list(k) = -1.0;
    d.list(k + 1) += 2.0;
    double s = d.result(k) + d.list(2) + d.sum() + d.both() + d.remote();
    return s + d.size();
}
"""


def test_member_calls_after_an_accessor_value_are_host_accesses_of_its_pointer(load_source):
    loaded = load_source(DECK, "deck.cpp")
    assert loaded.ok, [d.message for d in loaded.diagnostics if d.is_error]
    calls = {(f.names[2], f.names[4]): f.names[3:] for f in loaded.model.classes
             if f.kind == "member_call"}
    assert calls["list(int)", "k"] == ("element", "k", "write", "list_")
    assert calls["list(int)", "k + 1"] == ("element", "k + 1", "readwrite", "list_")
    assert calls["list(int)", "2"] == ("element", "2", "read", "list_")
    assert calls["result(int)", "k"] == ("element", "k", "read", "out_")
    assert calls["sum()", ""] == ("call", "", "read", "list_")
    # a method calling another member function may touch every member
    assert calls["both()", ""] == ("call", "", "read", "list_", "n_", "out_")
    assert calls["remote()", ""] == ("unknown", "", "read")

    before = {id(r) for r in loaded.model.array_refs}
    added = [r for r in with_accessor_accesses(loaded.model).array_refs if id(r) not in before]
    seen = sorted((r.array, r.mode, tuple(s.text for s in r.subscripts), r.call or "")
                  for r in added)
    # d.list(0) comes before l takes its value: no access of l
    assert seen == sorted([
        ("l", "write", ("k",), ""), ("l", "readwrite", ("k + 1",), ""),
        ("o", "read", ("k",), ""), ("l", "read", ("2",), ""),
        ("l", "read", (), "d.sum()"), ("l", "read", (), "d.both()"),
        ("o", "read", (), "d.both()"), ("l", "read", (), "d.remote()"),
        ("o", "read", (), "d.remote()")])
