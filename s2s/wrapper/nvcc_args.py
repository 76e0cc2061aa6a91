"""nvcc's options, classified for the wrapper (checked against ``nvcc --help`` of CUDA 13.0).

nvcc spells every option long (``--output-file``) and short (``-o``); an option with a value
takes it as the next argument or after ``=`` in both spellings, and the one-letter options
``-I -D -U -l -L -O -t`` also glued (``-Iinclude``). Rows marked UNSUPPORTED make the wrapper
run nvcc on the original command: their inputs or outputs are not what the wrapper can see
(``--options-file``), or they run the program (``--run``), or they name files by the input's
directory (``--input-drive-prefix``). An option missing from this table is unsupported too.
"""

from __future__ import annotations

from s2s.wrapper.args import Option, Phase, Role, Table, Value

N, S, J, JS = Value.NONE, Value.SEPARATE, Value.JOINED, Value.JOINED_OR_SEPARATE


def _o(long: str, short: str | None, value: Value, role: Role, phase: Phase | None = None,
       why: str = "") -> Option:
    names = (long,) if short is None or short == long else (long, short)
    return Option(names, value, role, phase, why)


_PHASES = (
    _o("--cuda", "-cuda", N, Role.PHASE, Phase.DEVICE_CODE),
    _o("--cubin", "-cubin", N, Role.PHASE, Phase.DEVICE_CODE),
    _o("--fatbin", "-fatbin", N, Role.PHASE, Phase.DEVICE_CODE),
    _o("--ptx", "-ptx", N, Role.PHASE, Phase.DEVICE_CODE),
    _o("--optix-ir", "-optix-ir", N, Role.PHASE, Phase.DEVICE_CODE),
    _o("--ltoir", "-ltoir", N, Role.PHASE, Phase.DEVICE_CODE),
    _o("--preprocess", "-E", N, Role.PHASE, Phase.PREPROCESS),
    _o("--generate-dependencies", "-M", N, Role.PHASE, Phase.DEPS),
    _o("--generate-nonsystem-dependencies", "-MM", N, Role.PHASE, Phase.DEPS),
    _o("--compile", "-c", N, Role.PHASE, Phase.COMPILE),
    _o("--device-c", "-dc", N, Role.PHASE, Phase.COMPILE),
    _o("--device-w", "-dw", N, Role.PHASE, Phase.COMPILE),
    _o("--device-link", "-dlink", N, Role.PHASE, Phase.DEVICE_LINK),
    _o("--link", "-link", N, Role.PHASE, Phase.LINK),
    _o("--lib", "-lib", N, Role.PHASE, Phase.LIB),
    _o("--run", "-run", N, Role.UNSUPPORTED, why="runs the program it builds"),
    _o("--fdevice-syntax-only", "-fdevice-syntax-only", N, Role.PHASE, Phase.SYNTAX),
)

_DEPENDENCIES = (
    _o("--generate-dependencies-with-compile", "-MD", N, Role.DEPS),
    _o("--generate-nonsystem-dependencies-with-compile", "-MMD", N, Role.DEPS),
    _o("--dependency-output", "-MF", S, Role.DEPS),
    _o("--generate-dependency-targets", "-MP", N, Role.DEPS),
    _o("--dependency-target-name", "-MT", S, Role.DEPS),
)

_FILES_AND_PATHS = (
    _o("--output-file", "-o", S, Role.OUTPUT),
    _o("--pre-include", "-include", S, Role.PREPROCESS),
    _o("--define-macro", "-D", JS, Role.PREPROCESS),
    _o("--undefine-macro", "-U", JS, Role.PREPROCESS),
    _o("--include-path", "-I", JS, Role.PREPROCESS),
    _o("--system-include", "-isystem", S, Role.PREPROCESS),
    _o("--std", "-std", S, Role.PREPROCESS),
    _o("--x", "-x", S, Role.LANGUAGE),
    _o("--library", "-l", JS, Role.LINK),
    _o("--library-path", "-L", JS, Role.LINK),
    _o("--output-directory", "-odir", S, Role.CODEGEN),
    _o("--objdir-as-tempdir", "-objtemp", N, Role.CODEGEN),
    _o("--compiler-bindir", "-ccbin", S, Role.CODEGEN),
    _o("--allow-unsupported-compiler", "-allow-unsupported-compiler", N, Role.CODEGEN),
    _o("--archiver-binary", "-arbin", S, Role.LINK),
    _o("--cudart", "-cudart", S, Role.LINK),
    _o("--cudadevrt", "-cudadevrt", S, Role.LINK),
    _o("--libdevice-directory", "-ldir", S, Role.CODEGEN),
    _o("--target-directory", "-target-dir", S, Role.CODEGEN),
    _o("--use-local-env", "-use-local-env", N, Role.CODEGEN),
    _o("--force-cl-env-setup", "-force-cl-env-setup", N, Role.CODEGEN),
    _o("--options-file", "-optf", S, Role.UNSUPPORTED,
       why="options read from a file are not visible to the wrapper"),
    _o("--input-drive-prefix", "-idp", S, Role.UNSUPPORTED, why="Windows drive prefixes"),
    _o("--dependency-drive-prefix", "-ddp", S, Role.UNSUPPORTED, why="Windows drive prefixes"),
    _o("--drive-prefix", "-dp", S, Role.UNSUPPORTED, why="Windows drive prefixes"),
)

_PASSTHROUGH = (
    _o("--compiler-options", "-Xcompiler", S, Role.HOST),
    _o("--linker-options", "-Xlinker", S, Role.LINK),
    _o("--archive-options", "-Xarchive", S, Role.LINK),
    _o("--ptxas-options", "-Xptxas", S, Role.CODEGEN),
    _o("--nvlink-options", "-Xnvlink", S, Role.LINK),
    # With these, an unknown option is one host compiler argument (nvcc --help): the table
    # then reads it as a -Xcompiler value instead of giving up.
    _o("--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler", N, Role.HOST),
    _o("--forward-unknown-to-host-linker", "-forward-unknown-to-host-linker", N, Role.LINK),
    _o("--forward-unknown-opts", "-forward-unknown-opts", N, Role.HOST),
)

_ARCH = (
    _o("--gpu-architecture", "-arch", S, Role.ARCH),
    _o("--gpu-code", "-code", S, Role.CODEGEN),
    _o("--generate-code", "-gencode", S, Role.CODEGEN),
    _o("--relocatable-device-code", "-rdc", S, Role.CODEGEN),
    _o("--entries", "-e", S, Role.CODEGEN),
    _o("--maxrregcount", "-maxrregcount", S, Role.CODEGEN),
    _o("--machine", "-m", S, Role.CODEGEN),
    _o("--m64", "-m64", N, Role.CODEGEN),
)

_CODEGEN_FLAGS = tuple(_o(long, short, N, Role.CODEGEN) for long, short in (
    ("--profile", "-pg"), ("--debug", "-g"), ("--device-debug", "-G"),
    ("--generate-line-info", "-lineinfo"), ("--dlink-time-opt", "-dlto"), ("--lto", "-lto"),
    ("--gen-opt-lto", "-gen-opt-lto"), ("--no-exceptions", "-noeh"), ("--shared", "-shared"),
    ("--no-host-device-initializer-list", "-nohdinitlist"),
    ("--no-host-device-move-forward", "-nohdmoveforward"),
    ("--expt-relaxed-constexpr", "-expt-relaxed-constexpr"),
    ("--extended-lambda", "-extended-lambda"), ("--expt-extended-lambda", "-expt-extended-lambda"),
    ("--dont-use-profile", "-noprof"), ("--verbose", "-v"), ("--keep", "-keep"),
    ("--save-temps", "-save-temps"), ("--clean-targets", "-clean"),
    ("--no-align-double", None), ("--no-device-link", "-nodlink"),
    ("--use_fast_math", "-use_fast_math"),
    ("--extra-device-vectorization", "-extra-device-vectorization"),
    ("--disable-warnings", "-w"), ("--keep-device-functions", "-keep-device-functions"),
    ("--source-in-ptx", "-src-in-ptx"), ("--restrict", "-restrict"), ("--Wreorder", "-Wreorder"),
    ("--Wdefault-stream-launch", "-Wdefault-stream-launch"),
    ("--Wmissing-launch-bounds", "-Wmissing-launch-bounds"),
    ("--Wext-lambda-captures-this", "-Wext-lambda-captures-this"),
    ("--Wno-deprecated-declarations", "-Wno-deprecated-declarations"),
    ("--Wno-deprecated-gpu-targets", "-Wno-deprecated-gpu-targets"),
    ("--resource-usage", "-res-usage"), ("--extensible-whole-program", "-ewp"),
    ("--no-compress", "-no-compress"), ("--qpp-config", "-qpp-config"),
    ("--compile-as-tools-patch", "-astoolspatch"), ("--display-error-number", "-err-no"),
    ("--no-display-error-number", "-no-err-no"), ("--augment-host-linker-script", "-aug-hls"),
    ("--relocatable-link", "-r"), ("--relocatable-ptx", "-reloc-ptx"),
    ("--jobserver", "-jobserver"),
))

_CODEGEN_VALUES = tuple(_o(long, short, S, Role.CODEGEN) for long, short in (
    ("--optimization-info", "-opt-info"), ("--Ofast-compile", "-Ofc"), ("--dopt", "-dopt"),
    ("--ftemplate-backtrace-limit", "-ftemplate-backtrace-limit"),
    ("--ftemplate-depth", "-ftemplate-depth"),
    ("--static-global-template-stub", "-static-global-template-stub"),
    ("--device-entity-has-hidden-visibility", "-device-entity-has-hidden-visibility"),
    ("--split-compile", "-split-compile"), ("--split-compile-extended", "-split-compile-extended"),
    ("--fdevice-time-trace", "-fdevice-time-trace"), ("--keep-dir", "-keep-dir"),
    ("--time", "-time"), ("--ftz", "-ftz"), ("--prec-div", "-prec-div"),
    ("--prec-sqrt", "-prec-sqrt"), ("--fmad", "-fmad"), ("--default-stream", "-default-stream"),
    ("--Werror", "-Werror"), ("--diag-error", "-diag-error"), ("--diag-suppress", "-diag-suppress"),
    ("--diag-warn", "-diag-warn"), ("--host-linker-script", "-hls"),
    ("--brief-diagnostics", "-brief-diag"), ("--jump-table-density", "-jtd"),
    ("--device-stack-protector", "-device-stack-protector"), ("--compress-mode", "-compress-mode"),
    ("--frandom-seed", "-frandom-seed"), ("--sanitize", "-sanitize"),
)) + (
    _o("--optimize", "-O", JS, Role.CODEGEN),
    _o("--threads", "-t", JS, Role.CODEGEN),
    _o("--run-args", "-run-args", S, Role.UNSUPPORTED, why="runs the program it builds"),
)

_INFO = tuple(_o(long, short, N, Role.INFO) for long, short in (
    ("--help", "-h"), ("--version", "-V"), ("--dryrun", "-dryrun"),
    ("--list-gpu-code", "-code-ls"), ("--list-gpu-arch", "-arch-ls"),
))

NVCC_OPTIONS: tuple[Option, ...] = (_PHASES + _DEPENDENCIES + _FILES_AND_PATHS + _PASSTHROUGH
                                    + _ARCH + _CODEGEN_FLAGS + _CODEGEN_VALUES + _INFO)

NVCC = Table(
    name="nvcc",
    options=NVCC_OPTIONS,
    # nvcc --help: ".c/.cc/.cpp/.cxx: preprocess, compile, link"; ".cu: ... cuda frontend".
    source_suffixes={".cu": "cuda", ".c": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++"},
    equals_for_all=True,
    language_is_global=True,
    x_languages={"cu": "cuda", "c": "c", "c++": "c++"},
    forward_unknown=("--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler",
                     "--forward-unknown-opts", "-forward-unknown-opts"),
)
