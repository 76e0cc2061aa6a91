"""Wrapper settings: command line over environment over the nearest configuration file."""

from __future__ import annotations

import pytest

from s2s.wrapper.config import (
    ConfigProblem,
    find_config_file,
    load_settings,
    parse_pass_list,
    split_wrapper_options,
)


def test_wrapper_options_are_taken_out_wherever_they_are():
    options, rest = split_wrapper_options(["-c", "--s2s-passes=omp,fuse", "k.cu",
                                           "--s2s-verbose"])
    assert options == {"passes": "omp,fuse", "verbose": True} and rest == ["-c", "k.cu"]


@pytest.mark.parametrize("arg, message", [("--s2s-pases=omp", "unknown wrapper option"),
                                          ("--s2s-passes", "needs a value")])
def test_bad_wrapper_options(arg, message):
    with pytest.raises(ConfigProblem, match=message):
        split_wrapper_options([arg])


def test_pass_lists():
    assert parse_pass_list(" omp, transfers ,omp") == ("omp", "transfers")
    assert parse_pass_list(["fuse"]) == ("fuse",)
    assert parse_pass_list("none") == () and parse_pass_list("") == ()
    with pytest.raises(ConfigProblem):
        parse_pass_list([1])


def test_precedence(tmp_path):
    (tmp_path / ".s2s.toml").write_text('passes = ["fuse"]\nnvcc = "bin/nvcc"\n')
    build = tmp_path / "build"
    build.mkdir()
    from_file = load_settings({}, {}, build)
    assert from_file.passes == ("fuse",) and from_file.passes_from.endswith(".s2s.toml")
    assert from_file.real_nvcc == str(tmp_path / "bin/nvcc")  # relative to the file
    from_env = load_settings({}, {"S2S_PASSES": "omp", "S2S_REAL_NVCC": "/x/nvcc"}, build)
    assert from_env.passes == ("omp",) and from_env.real_nvcc == "/x/nvcc"
    from_option = load_settings({"passes": "transfers"}, {"S2S_PASSES": "omp"}, build)
    assert from_option.passes == ("transfers",) and from_option.passes_from == "--s2s-passes"
    off = load_settings({}, {"S2S_PASSES": ""}, build)
    assert off.passes == ()  # an empty variable turns the passes off, the file is not read


def test_pyproject_without_tool_s2s_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.s2s]\npasses = "omp"\nsilence = ["x-*"]\n')
    inner = tmp_path / "sub"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "other"\n')
    path, table = find_config_file(inner)
    assert path == tmp_path / "pyproject.toml" and table["passes"] == "omp"
    settings = load_settings({}, {"S2S_SILENCE": "a,b"}, inner)
    assert settings.passes == ("omp",) and settings.silence == ("a", "b", "x-*")


def test_no_configuration_means_no_passes(tmp_path):
    if find_config_file(tmp_path) is not None:
        pytest.skip("a configuration file above the temporary directory")
    settings = load_settings({}, {}, tmp_path)
    assert settings.passes == () and settings.passes_from == "default"
    assert load_settings({}, {"S2S_PASSES": "none"}, tmp_path).passes == ()


def test_bad_files_and_keys(tmp_path):
    (tmp_path / ".s2s.toml").write_text("passes = [omp\n")
    with pytest.raises(ConfigProblem, match="not a valid TOML file"):
        load_settings({}, {}, tmp_path)
    (tmp_path / ".s2s.toml").write_text('pases = ["omp"]\nnvcc = 3\n')
    with pytest.raises(ConfigProblem, match="'nvcc' must be a non-empty string"):
        load_settings({}, {}, tmp_path)
    (tmp_path / ".s2s.toml").write_text('pases = ["omp"]\n[omp]\nx = 1\n')
    settings = load_settings({}, {}, tmp_path)
    assert settings.warnings == (f"{tmp_path / '.s2s.toml'}: unknown key 'pases' ignored "
                                 "(known: passes, nvcc, silence, flags, format, cuda-path, "
                                 "gpu-arch, nvcc-check)",)
