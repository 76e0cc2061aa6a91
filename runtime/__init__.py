"""s2s runtime: virtual buffers over several devices (emulated CPU devices or CUDA GPUs), see
runtime.api; kernel access enumerators in runtime.access. It never imports the s2s tool.

The package installs under the unique name ``s2s_runtime``; in the source tree its folder is
``runtime/``. Whichever name imports it first, the other name is registered for the same
modules (``runtime.api is s2s_runtime.api``), so code, tests and generated programs that say
``import runtime`` keep working in both places.
"""

import importlib
import importlib.abc
import importlib.util
import sys

#: the name pip installs the package under, and the name of its folder in the source tree
INSTALLED_NAME, SOURCE_NAME = "s2s_runtime", "runtime"


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``alias`` and ``alias.X`` as the modules ``real`` and ``real.X`` themselves
    (one module object under two names, never a second copy of a module's state)."""

    def __init__(self, alias: str, real: str):
        self.alias, self.real = alias, real

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.alias or fullname.startswith(self.alias + "."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(self.real + spec.name[len(self.alias):])
        self._specs = getattr(self, "_specs", {})
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # the import system set the alias's spec on the module: give it its own back
        module.__spec__ = self._specs.pop(module.__spec__.name, module.__spec__)


def _register_other_name() -> None:
    other = SOURCE_NAME if __name__ == INSTALLED_NAME else INSTALLED_NAME
    if other in sys.modules or any(isinstance(f, _Alias) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Alias(other, __name__))


_register_other_name()
