/*
 * s2s_runtime.c -- the C interface of the s2s runtime, by embedding CPython.
 *
 * Design: every function forwards to runtime/capi.py in an embedded (or,
 * when the host process is already Python, the running) interpreter.  The
 * runtime's state -- virtual buffers, trackers, access models (isl), the
 * compile cache, PyCUDA contexts -- lives in Python once; a C++ copy of it
 * would have to be kept in step with the Python one.  The calls a rewritten
 * host program makes are coarse (an allocation, a whole-buffer copy, a
 * launch) and each does far more work than the few microseconds of call
 * overhead, so the interpreter is not on any per-element path.
 *
 * Build-time settings (see runtime/capi_build.py): S2S_PYTHONPATH, the
 * sys.path entries of the Python that built the library (repository root
 * and site-packages with numpy), and S2S_PYTHON_HOME.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "s2s_runtime.h"

#ifndef S2S_PYTHONPATH
#define S2S_PYTHONPATH ""
#endif

/* the runtime's package is s2s_runtime when installed, runtime/ in the source tree */
#ifndef S2S_BRIDGE_MODULE
#define S2S_BRIDGE_MODULE "runtime.capi"
#endif
static PyObject *bridge;                 /* the runtime.capi module */
static char last_error[4096];
static int initialised;

static void set_error(const char *message)
{
    snprintf(last_error, sizeof last_error, "%s", message);
}

/* the code of a failure: runtime.capi.error_code(exception) -- a cudaError_t value (enum s2s_error) --
   or S2S_ERROR_UNKNOWN when the bridge is not loaded or cannot tell */
static int error_code(PyObject *value)
{
    if (!bridge || !value)
        return S2S_ERROR_UNKNOWN;
    PyObject *code = PyObject_CallMethod(bridge, "error_code", "(O)", value);
    long rc = code ? PyLong_AsLong(code) : -1;
    Py_XDECREF(code);
    PyErr_Clear();
    return rc > 0 ? (int)rc : S2S_ERROR_UNKNOWN;
}

/* store the pending Python exception as the last error; return its code */
static int fail_from_python(void)
{
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);
    PyErr_NormalizeException(&type, &value, &trace);
    PyObject *text = value ? PyObject_Str(value) : NULL;
    const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
    const char *kind = type ? ((PyTypeObject *)type)->tp_name : "error";
    snprintf(last_error, sizeof last_error, "%s: %s", kind, msg ? msg : "(no message)");
    Py_XDECREF(text);
    PyErr_Clear();
    int rc = error_code(value);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    return rc;
}

static void add_paths(void)
{
    PyObject *sys_path = PySys_GetObject("path");        /* borrowed */
    const char *env = getenv("S2S_RUNTIME_PYTHONPATH");
    const char *lists[2] = {env ? env : "", S2S_PYTHONPATH};
    Py_ssize_t at = 0;
    for (int k = 0; k < 2; ++k) {
        char *copy = strdup(lists[k]);
        for (char *part = strtok(copy, ":"); part; part = strtok(NULL, ":")) {
            PyObject *entry = PyUnicode_FromString(part);
            PyList_Insert(sys_path, at++, entry);
            Py_DECREF(entry);
        }
        free(copy);
    }
}

static int ensure_started(void)
{
    if (initialised)
        return 0;
    int own = !Py_IsInitialized();
    if (own)
        Py_InitializeEx(0);
    PyGILState_STATE gil = PyGILState_Ensure();
    add_paths();
    bridge = PyImport_ImportModule(S2S_BRIDGE_MODULE);
    int rc = bridge ? 0 : fail_from_python();
    PyGILState_Release(gil);
    if (own)
        PyEval_SaveThread();           /* let any thread take the GIL from now on */
    initialised = rc == 0;
    return rc;
}

/* call runtime.capi.<name>(*args built from fmt); store an integer result in *out */
static int call(const char *name, long long *out, const char *fmt, ...)
{
    int started = ensure_started();
    if (started != 0)
        return started;
    PyGILState_STATE gil = PyGILState_Ensure();
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    PyObject *fn = args ? PyObject_GetAttrString(bridge, name) : NULL;
    PyObject *result = fn ? PyObject_CallObject(fn, args) : NULL;
    int rc = 0;
    if (!result) {
        rc = fail_from_python();
    } else if (out) {
        *out = PyLong_AsLongLong(result);
        if (PyErr_Occurred())
            rc = fail_from_python();
    }
    Py_XDECREF(result);
    Py_XDECREF(fn);
    Py_XDECREF(args);
    PyGILState_Release(gil);
    return rc;
}

#define ADDR(p) ((unsigned long long)(size_t)(p))

/* a pointer argument the call cannot do without is NULL: S2S_ERROR_INVALID_VALUE, as CUDA returns
   cudaErrorInvalidValue, with a message naming the function and the argument; nothing is called */
static int null_argument(const char *function, const char *argument)
{
    snprintf(last_error, sizeof last_error, "%s: %s is NULL", function, argument);
    return S2S_ERROR_INVALID_VALUE;
}

#define REQUIRE(cond, fn, arg) do { if (!(cond)) return null_argument(fn, arg); } while (0)

int s2s_get_device_count(int *count)
{
    REQUIRE(count, "s2s_get_device_count", "count");
    long long n = 0;
    int rc = call("device_count", &n, "()");
    if (rc == 0)
        *count = (int)n;
    return rc;
}

int s2s_device_properties(char *name, size_t name_len, long long *values, int count, int *own)
{
    REQUIRE(own, "s2s_device_properties", "own");
    REQUIRE(name || name_len == 0, "s2s_device_properties", "name (with name_len > 0)");
    REQUIRE(values || count <= 0, "s2s_device_properties", "values (with count > 0)");
    if (count < 0) {
        snprintf(last_error, sizeof last_error, "s2s_device_properties: count %d is negative", count);
        return S2S_ERROR_INVALID_VALUE;
    }
    long long filled = 0;
    int rc = call("device_properties", &filled, "(KKKi)", ADDR(name), (unsigned long long)name_len,
                  ADDR(values), count);
    if (rc == 0)
        *own = (int)filled;
    return rc;
}

int s2s_malloc(void **ptr, size_t bytes)
{
    REQUIRE(ptr, "s2s_malloc", "ptr");
    long long addr = 0;
    int rc = call("malloc", &addr, "(K)", (unsigned long long)bytes);
    if (rc == 0)
        *ptr = (void *)(size_t)addr;
    return rc;
}

int s2s_free(void *ptr) { return call("free", NULL, "(K)", ADDR(ptr)); }

int s2s_memcpy(void *dst, const void *src, size_t bytes, int kind)
{
    REQUIRE(dst || bytes == 0, "s2s_memcpy", "dst");
    REQUIRE(src || bytes == 0, "s2s_memcpy", "src");
    return call("memcpy", NULL, "(KKKi)", ADDR(dst), ADDR(src), (unsigned long long)bytes, kind);
}

int s2s_memset(void *ptr, int value, size_t bytes)
{
    REQUIRE(ptr || bytes == 0, "s2s_memset", "ptr");
    return call("memset", NULL, "(KiK)", ADDR(ptr), value, (unsigned long long)bytes);
}

int s2s_synchronize(void) { return call("synchronize", NULL, "()"); }

int s2s_device_reset(void) { return call("device_reset", NULL, "()"); }

int s2s_memcpy_symbol(s2s_module_t module, const char *symbol, void *ptr, size_t bytes, size_t offset,
                      int to_symbol)
{
    REQUIRE(symbol, "s2s_memcpy_symbol", "symbol");
    REQUIRE(ptr || bytes == 0, "s2s_memcpy_symbol", "ptr");
    return call("memcpy_symbol", NULL, "(isKKKi)", module, symbol, ADDR(ptr), (unsigned long long)bytes,
                (unsigned long long)offset, to_symbol);
}

int s2s_module_load(s2s_module_t *module, const char *path, const char *instantiate)
{
    REQUIRE(module, "s2s_module_load", "module");
    REQUIRE(path, "s2s_module_load", "path");
    long long handle = 0;
    int rc = call("module_load", &handle, "(sz)", path, instantiate);
    if (rc == 0)
        *module = (s2s_module_t)handle;
    return rc;
}

int s2s_module_load_source(s2s_module_t *module, const char *name, const char *source, const char *instantiate)
{
    REQUIRE(module && name && source, "s2s_module_load_source", !module ? "module" : !name ? "name" : "source");
    long long handle = 0;
    int rc = call("module_load_source", &handle, "(syz)", name, source, instantiate);
    if (rc == 0)
        *module = (s2s_module_t)handle;
    return rc;
}

int s2s_module_load_source_dirs(s2s_module_t *module, const char *name, const char *source,
                                const char *instantiate, const char *include_dirs)
{
    REQUIRE(module && name && source, "s2s_module_load_source_dirs",
            !module ? "module" : !name ? "name" : "source");
    long long handle = 0;
    int rc = call("module_load_source", &handle, "(syzz)", name, source, instantiate, include_dirs);
    if (rc == 0)
        *module = (s2s_module_t)handle;
    return rc;
}

int s2s_module_load_source_flags(s2s_module_t *module, const char *name, const char *source,
                                 const char *instantiate, const char *include_dirs, const char *flags)
{
    REQUIRE(module && name && source, "s2s_module_load_source_flags",
            !module ? "module" : !name ? "name" : "source");
    long long handle = 0;
    int rc = call("module_load_source", &handle, "(syzzz)", name, source, instantiate, include_dirs, flags);
    if (rc == 0)
        *module = (s2s_module_t)handle;
    return rc;
}

int s2s_set_access(s2s_module_t module, const char *kernel, const char *access_json)
{
    REQUIRE(kernel, "s2s_set_access", "kernel");
    REQUIRE(access_json, "s2s_set_access", "access_json");
    return call("set_access", NULL, "(iss)", module, kernel, access_json);
}

int s2s_launch(s2s_module_t module, const char *kernel, s2s_dim3 grid, s2s_dim3 block, size_t shared_bytes,
               void **args)
{
    REQUIRE(kernel, "s2s_launch", "kernel");
    /* args may be NULL for a kernel without parameters; runtime.capi.launch checks that */
    return call("launch", NULL, "(is(III)(III)KK)", module, kernel, grid.x, grid.y, grid.z, block.x, block.y,
                block.z, (unsigned long long)shared_bytes, ADDR(args));
}

/* Under an MPI launcher (mpirun -np N ./prog; runtime/mpi, docs/mpi.md) the runtime starts before main:
   rank 0 goes on to run the program, every other rank serves rank 0's runtime calls here and exits
   without running main.  S2S_MPI=0 ignores the launcher. */
static int mpi_session;

__attribute__((constructor)) static void s2s_mpi_start_before_main(void)
{
    const char *off = getenv("S2S_MPI");
    if ((!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE")) || (off && strcmp(off, "0") == 0))
        return;
    long long code = -2;
    if (call("mpi_start", &code, "()") != 0) {
        fprintf(stderr, "s2s-runtime: error: cannot start under MPI: %s\n", last_error);
        fflush(NULL);
        _exit(2);
    }
    if (code >= 0) {                    /* a rank that served rank 0, or a job that could not start */
        fflush(NULL);
        _exit((int)code);
    }
    mpi_session = code == -1;
}

/* S2S_STATS=FILE: the runtime's statistics, written when the program exits (under MPI by mpi_stop,
   after the other ranks stopped and sent their counters) */
__attribute__((destructor)) static void s2s_write_stats_at_exit(void)
{
    if (initialised && mpi_session)
        call("mpi_stop", NULL, "()");
    else if (initialised && getenv("S2S_STATS"))
        call("write_stats", NULL, "()");
}

const char *s2s_last_error(void)
{
    if (!initialised && !last_error[0])
        return "runtime not started";
    return last_error;
}
