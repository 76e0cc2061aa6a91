/* s2s shim omp.h: declarations of the OpenMP 5.2 runtime API, used to parse OpenMP programs
 * when no clang omp.h is installed.  Parsing only: nothing here is ever compiled or linked. */
#ifndef S2S_SHIM_OMP_H
#define S2S_SHIM_OMP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct omp_lock_s { void *impl; } omp_lock_t;
typedef struct omp_nest_lock_s { void *impl; } omp_nest_lock_t;
typedef enum omp_sched_t {
    omp_sched_static = 1, omp_sched_dynamic = 2, omp_sched_guided = 3, omp_sched_auto = 4,
    omp_sched_monotonic = (int)0x80000000u
} omp_sched_t;
typedef enum omp_proc_bind_t {
    omp_proc_bind_false = 0, omp_proc_bind_true = 1, omp_proc_bind_primary = 2,
    omp_proc_bind_master = 2, omp_proc_bind_close = 3, omp_proc_bind_spread = 4
} omp_proc_bind_t;
typedef enum omp_sync_hint_t {
    omp_sync_hint_none = 0, omp_sync_hint_uncontended = 1, omp_sync_hint_contended = 2,
    omp_sync_hint_nonspeculative = 4, omp_sync_hint_speculative = 8
} omp_sync_hint_t;
typedef omp_sync_hint_t omp_lock_hint_t;
typedef void *omp_depend_t;
typedef void *omp_event_handle_t;
typedef void *omp_interop_t;
typedef size_t omp_uintptr_t;
typedef size_t omp_allocator_handle_t;
typedef size_t omp_memspace_handle_t;
#define omp_null_allocator ((omp_allocator_handle_t)0)
#define omp_default_mem_alloc ((omp_allocator_handle_t)1)
#define omp_large_cap_mem_alloc ((omp_allocator_handle_t)2)
#define omp_const_mem_alloc ((omp_allocator_handle_t)3)
#define omp_high_bw_mem_alloc ((omp_allocator_handle_t)4)
#define omp_low_lat_mem_alloc ((omp_allocator_handle_t)5)
#define omp_cgroup_mem_alloc ((omp_allocator_handle_t)6)
#define omp_pteam_mem_alloc ((omp_allocator_handle_t)7)
#define omp_thread_mem_alloc ((omp_allocator_handle_t)8)
#define omp_default_mem_space ((omp_memspace_handle_t)0)
#define omp_initial_device (-1)
#define omp_invalid_device (-2)

/* execution environment */
void omp_set_num_threads(int);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
void omp_set_dynamic(int);
int omp_get_dynamic(void);
int omp_get_cancellation(void);
void omp_set_nested(int);
int omp_get_nested(void);
void omp_set_schedule(omp_sched_t, int);
void omp_get_schedule(omp_sched_t *, int *);
int omp_get_thread_limit(void);
int omp_get_supported_active_levels(void);
void omp_set_max_active_levels(int);
int omp_get_max_active_levels(void);
int omp_get_level(void);
int omp_get_ancestor_thread_num(int);
int omp_get_team_size(int);
int omp_get_active_level(void);
int omp_in_final(void);
omp_proc_bind_t omp_get_proc_bind(void);
int omp_get_num_places(void);
int omp_get_place_num(void);
void omp_set_default_device(int);
int omp_get_default_device(void);
int omp_get_num_devices(void);
int omp_get_device_num(void);
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_is_initial_device(void);
int omp_get_initial_device(void);
int omp_get_max_task_priority(void);
void omp_set_num_teams(int);
int omp_get_max_teams(void);
void omp_set_teams_thread_limit(int);
int omp_get_teams_thread_limit(void);

/* locks */
void omp_init_lock(omp_lock_t *);
void omp_init_lock_with_hint(omp_lock_t *, omp_sync_hint_t);
void omp_destroy_lock(omp_lock_t *);
void omp_set_lock(omp_lock_t *);
void omp_unset_lock(omp_lock_t *);
int omp_test_lock(omp_lock_t *);
void omp_init_nest_lock(omp_nest_lock_t *);
void omp_init_nest_lock_with_hint(omp_nest_lock_t *, omp_sync_hint_t);
void omp_destroy_nest_lock(omp_nest_lock_t *);
void omp_set_nest_lock(omp_nest_lock_t *);
void omp_unset_nest_lock(omp_nest_lock_t *);
int omp_test_nest_lock(omp_nest_lock_t *);

/* timing */
double omp_get_wtime(void);
double omp_get_wtick(void);

/* events */
void omp_fulfill_event(omp_event_handle_t);

/* device memory */
void *omp_target_alloc(size_t, int);
void omp_target_free(void *, int);
int omp_target_is_present(const void *, int);
int omp_target_is_accessible(const void *, size_t, int);
int omp_target_memcpy(void *, const void *, size_t, size_t, size_t, int, int);
int omp_target_memcpy_rect(void *, const void *, size_t, int, const size_t *, const size_t *,
                           const size_t *, const size_t *, const size_t *, int, int);
int omp_target_memcpy_async(void *, const void *, size_t, size_t, size_t, int, int, int,
                            omp_depend_t *);
int omp_target_associate_ptr(const void *, const void *, size_t, size_t, int);
int omp_target_disassociate_ptr(const void *, int);
void *omp_get_mapped_ptr(const void *, int);

/* memory management */
omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t, int, const void *);
void omp_destroy_allocator(omp_allocator_handle_t);
void omp_set_default_allocator(omp_allocator_handle_t);
omp_allocator_handle_t omp_get_default_allocator(void);
void *omp_alloc(size_t, omp_allocator_handle_t);
void *omp_aligned_alloc(size_t, size_t, omp_allocator_handle_t);
void *omp_calloc(size_t, size_t, omp_allocator_handle_t);
void omp_free(void *, omp_allocator_handle_t);

/* tool and display */
int omp_control_tool(int, int, void *);
void omp_display_env(int);
void omp_display_affinity(const char *);
void omp_set_affinity_format(const char *);
size_t omp_get_affinity_format(char *, size_t);
int omp_pause_resource(int, int);
int omp_pause_resource_all(int);

#ifdef __cplusplus
}
#endif

#endif /* S2S_SHIM_OMP_H */
