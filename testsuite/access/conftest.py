"""Fixtures of the access-analysis tests: every sample kernel, parsed once per session."""

from __future__ import annotations

import pytest
from conftest import sample_dirs, sample_meta

from s2s.analysis.kernel.access import analyze_unit
from s2s.frontend.extract import load


@pytest.fixture(scope="session")
def sample_kernels():
    """{kernel name: (KernelBody, device functions, KernelAccessModel, sample name)}."""
    found = {}
    for directory in sample_dirs("cuda"):
        for source in sample_meta(directory)["sources"]:
            if not source.endswith(".cu"):
                continue
            model = load(str(directory / source)).model
            functions = {b.name: b for b in model.kernel_bodies if not b.is_global}
            bodies = {b.name: b for b in model.kernel_bodies if b.is_global}
            for access in analyze_unit(model.kernel_bodies):
                key = f"{directory.name}/{access.kernel}"
                found[key] = (bodies[access.kernel], functions, access, directory.name)
    return found
