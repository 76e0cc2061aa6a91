// status_check.h: how this project checks runtime calls, in the style of vendor samples:
// every call goes through CHECK_STATUS, which hands the status to a reporting template.
#pragma once
#include <cstdio>
#include <cstdlib>

static const char *status_text(cudaError_t status)
{
    return cudaGetErrorName(status);
}

template <typename Status>
void report_failure(Status status, const char *what, const char *file, int line)
{
    if (status) {
        fprintf(stderr, "%s(%d): %s failed with %d (%s)\n", file, line, what,
                static_cast<int>(status), status_text(status));
        exit(EXIT_FAILURE);
    }
}

#define CHECK_STATUS(call) report_failure((call), #call, __FILE__, __LINE__)
#define CHECK_LAUNCH(name) report_failure(cudaGetLastError(), name, __FILE__, __LINE__)
