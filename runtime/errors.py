"""Errors of the s2s runtime.

The runtime never imports the tool, so it has its own small hierarchy; messages that point into a kernel
source use the same ``file:line:col: error: message [id]`` shape as the tool's diagnostics so a user sees
one format whichever side found the problem.

Each class names the ``cudaError_t`` value real CUDA returns for the same failure (``cuda_error``), so the
C interface returns that code and a rewritten program's error checks see what they would see on CUDA.
"""

from __future__ import annotations

#: cudaError_t values the C interface returns (runtime/include/s2s_runtime.h, enum s2s_error)
CUDA_INVALID_VALUE, CUDA_MEMORY_ALLOCATION, CUDA_INVALID_MEMCPY_DIRECTION, CUDA_UNKNOWN = 1, 2, 21, 999


class RuntimeFailure(Exception):
    """Base class of every error the runtime raises on purpose."""

    cuda_error = CUDA_UNKNOWN


class ConfigError(RuntimeFailure):
    """Bad backend name, device count, environment variable or argument."""


class UnsupportedConstruct(RuntimeFailure):
    """Kernel source uses something the chosen backend cannot run; raised before compiling."""

    def __init__(self, file: str, line: int, column: int, construct: str, backend: str = "cpu"):
        self.file, self.line, self.column, self.construct = file, line, column, construct
        super().__init__(f"{file}:{line}:{column}: error: {construct} is not supported by the {backend} "
                         f"backend [runtime-unsupported]")


class CompileError(RuntimeFailure):
    """The compiler rejected the generated translation unit; carries the command and its output."""

    def __init__(self, message: str, command: list[str] | None = None, output: str = ""):
        self.command, self.output = command or [], output
        text = message
        if command:
            text += "\ncommand: " + " ".join(command)
        if output:
            text += "\n" + output.rstrip()
        super().__init__(text)


class LaunchError(RuntimeFailure):
    """A kernel launch was refused (bad configuration, bad arguments) or failed while running."""


class AddressError(RuntimeFailure):
    """An address that belongs to no (live) allocation, a copy that runs past the end of one, a byte count
    that is negative or wraps around, or a device address where host memory was expected."""

    cuda_error = CUDA_INVALID_VALUE


class SourceFileError(RuntimeFailure):
    """A kernel source file that is not a regular file (a FIFO, a device such as /dev/zero, a
    directory), is larger than the runtime reads, or cannot be read."""

    cuda_error = CUDA_INVALID_VALUE


class OutOfMemory(RuntimeFailure):
    """An allocation the devices cannot hold or the runtime's virtual address space cannot name."""

    cuda_error = CUDA_MEMORY_ALLOCATION


class MemcpyKindError(ConfigError):
    """A memcpy kind that is none of cudaMemcpyKind's values."""

    cuda_error = CUDA_INVALID_MEMCPY_DIRECTION


class BackendUnavailable(RuntimeFailure):
    """The requested backend cannot be used here (e.g. PyCUDA or a GPU driver is missing)."""
