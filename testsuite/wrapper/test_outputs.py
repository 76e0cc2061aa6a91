"""Dependency files and messages name the user's sources, not the temporary copies."""

from __future__ import annotations

from s2s.wrapper.outputs import fix_dependencies, make_escape, substitute

# As nvcc writes them (one prerequisite per line), with the #line file gcc adds and -MP rules.
NVCC_WRAPPED = (b"k.o : /tmp/s2s-wrap-1/0/k.cu \\\n"
                b"    /usr/include/stdio.h \\\n"
                b"    src/k.cu \\\n"
                b"    src/k.h\n"
                b"\n/usr/include/stdio.h:\n"
                b"\nsrc/k.cu:\n"
                b"\nsrc/k.h:\n")
NVCC_PLAIN = (b"k.o : src/k.cu \\\n"
              b"    /usr/include/stdio.h \\\n"
              b"    src/k.h\n"
              b"\n/usr/include/stdio.h:\n"
              b"\nsrc/k.h:\n")
TEMP = {b"/tmp/s2s-wrap-1/0/k.cu": b"src/k.cu"}


def test_nvcc_layout_matches_plain_nvcc():
    assert fix_dependencies(NVCC_WRAPPED, TEMP) == NVCC_PLAIN


def test_repeat_on_the_last_line_ends_the_rule_one_line_earlier():
    wrapped = b"k.o : /tmp/s2s-wrap-1/0/k.cu \\\n    src/k.h \\\n    src/k.cu\n"
    assert fix_dependencies(wrapped, TEMP) == b"k.o : src/k.cu \\\n    src/k.h\n"


def test_gcc_layout_several_per_line():
    wrapped = b"k.o: /tmp/s2s-wrap-1/0/k.cu /usr/include/stdio.h src/k.cu \\\n src/k.h\n"
    assert fix_dependencies(wrapped, TEMP) == \
        b"k.o: src/k.cu /usr/include/stdio.h \\\n src/k.h\n"


def test_a_target_named_like_the_source_is_left_alone():
    text = b"src/k.cu.o : /tmp/s2s-wrap-1/0/k.cu\n"
    assert fix_dependencies(text, TEMP) == b"src/k.cu.o : src/k.cu\n"


def test_paths_with_blanks_are_escaped_as_make_wants():
    temp = {b"/tmp/w/0/a b.cu": b"my dir/a b.cu"}
    text = b"a.o : /tmp/w/0/a\\ b.cu \\\n    my\\ dir/a\\ b.cu\n"
    assert fix_dependencies(text, temp) == b"a.o : my\\ dir/a\\ b.cu\n"
    assert make_escape(b"$x #y") == b"$$x\\ \\#y"


def test_messages():
    message = b'1 error detected in the compilation of "/tmp/s2s-wrap-1/0/k.cu".\n'
    assert substitute(message, TEMP) == b'1 error detected in the compilation of "src/k.cu".\n'
