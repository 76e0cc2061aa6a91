/* device_functions.h for the s2s cpu backend: everything lives in s2s_simt.h */
#include "s2s_simt.h"
#include "s2s_host_api.h"
