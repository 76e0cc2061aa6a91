/*
 * s2s_fibers.h -- the threads of a CUDA block as fibers on one OS thread.
 *
 * Why fibers: __syncthreads() must suspend a thread in the middle of its
 * code until all threads of the block arrive.  One OS thread per CUDA
 * thread would cost a kernel-mode switch per barrier and per thread;
 * ucontext costs a syscall per switch (sigprocmask).  A hand-written
 * x86-64 switch saves the six callee-saved registers and the stack
 * pointer: a few nanoseconds.
 *
 * Scheduling: the live fibers of a block form a ring; a waiting fiber
 * yields to the next one.  Barriers count arrivals and bump a generation
 * number when the last live participant arrives; waiters spin-yield until
 * the generation changes.  A fiber that returns leaves the ring and
 * releases any barrier it was the last missing participant of (CUDA: exited
 * threads do not take part in barriers).  If a waiter is resumed after a
 * full round without any fiber having arrived anywhere or exited, every
 * live fiber is waiting on something that cannot happen: a deadlock
 * (barrier divergence); the block is abandoned and the launch fails.
 *
 * Warp operations (__shfl*_sync, __ballot_sync, __any/__all_sync,
 * __syncwarp) are warp-level barriers: each lane deposits its value in a
 * per-warp slot array (double-buffered by generation parity, so the last
 * arriver may run ahead into the next warp operation), waits, and reads the
 * source lane's slot.
 *
 * All state is in one constant-initialised thread_local struct: each OS
 * thread runs whole blocks, and a block never migrates.
 */
#ifndef S2S_FIBERS_H
#define S2S_FIBERS_H

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

#if !defined(__x86_64__)
#error "s2s cpu backend: the fiber context switch is written for x86-64 only"
#endif

extern "C" {
__attribute__((visibility("hidden"))) void s2s_switch(void **save_sp, void *to_sp);
__attribute__((visibility("hidden"))) void s2s_fiber_trampoline(void);
__attribute__((visibility("hidden"))) void s2s_fiber_main(void);
}

/* switch: push callee-saved registers, swap stack pointers, pop, return on the new stack */
asm(".text\n"
    ".globl s2s_switch\n.hidden s2s_switch\n.type s2s_switch,@function\n.p2align 4\n"
    "s2s_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size s2s_switch, .-s2s_switch\n"
    ".globl s2s_fiber_trampoline\n.hidden s2s_fiber_trampoline\n.type s2s_fiber_trampoline,@function\n"
    "s2s_fiber_trampoline:\n"
    "  call s2s_fiber_main\n"
    "  ud2\n"
    ".size s2s_fiber_trampoline, .-s2s_fiber_trampoline\n");

namespace s2s {

enum Error { OK = 0, DEADLOCK = 1, TRAP = 2, SYNC_OUTSIDE_FIBERS = 3, STACK_ALLOC = 4, SHARED_TOO_LARGE = 5 };

struct Fiber {
    void *sp;
    uint3 tid;
    int next, prev;
    unsigned warp, lane;
};

struct Barrier {
    unsigned arrived, gen, participants_mask;
    unsigned long long acc[2];      /* __syncthreads_count/and/or, __ballot */
};

struct Warp {
    Barrier bar;
    unsigned live;                  /* lanes that have not returned */
    unsigned mask;                  /* participants named by the first arriver */
    unsigned part[2];               /* lanes that deposited in slot[parity] */
    uint64_t slot[2][32];
};

struct State {
    /* CUDA built-in variables of the running thread */
    uint3 thread_idx, block_idx, block_dim, grid_dim;
    /* the block being run */
    bool in_fibers;
    int cur, live, nthreads;
    unsigned long long progress;
    Barrier block_bar;
    Fiber *fibers;
    Warp *warps;
    void *sched_sp;
    void (*body)(const void *);
    const void *body_arg;
    int error;
    /* per-OS-thread resources, kept across launches */
    char *stacks;
    size_t stack_size, stack_count;
    int fiber_cap, warp_cap;
    char *dyn_smem;
    size_t dyn_smem_size;
};

/* The state lives in one small shared library (libs2s_simt_state.so, loaded
   once, RTLD_GLOBAL) with the initial-exec TLS model: an access is one
   %fs-relative load instead of a __tls_get_addr call per function, which
   makes barrier-heavy kernels about twice as fast.  Each kernel module
   defining its own thread_local would need dynamic TLS (static TLS space
   for dlopen'ed objects is a few hundred bytes, shared by all modules). */
#ifdef S2S_STATE_DEFINITION
__thread State tls __attribute__((tls_model("initial-exec")));
#else
extern __thread State tls __attribute__((tls_model("initial-exec")));
#endif

static inline Fiber &current() { return tls.fibers[tls.cur]; }

/* switch from the running fiber to fiber `to` (the running one may be done) */
static inline void switch_to(int to, void **save)
{
    tls.cur = to;
    tls.thread_idx = tls.fibers[to].tid;
    s2s_switch(save, tls.fibers[to].sp);
}

static inline void yield()
{
    Fiber &f = current();
    if (f.next != tls.cur)
        switch_to(f.next, &f.sp);
}

[[noreturn]] static inline void abandon_block(int error)
{
    void *dummy;
    tls.error = error;
    s2s_switch(&dummy, tls.sched_sp);
    __builtin_unreachable();
}

/* spin-yield until *gen moves on; detect a full round without progress */
static inline void wait_generation(const unsigned *gen, unsigned seen_gen)
{
    unsigned long long seen = tls.progress;
    for (;;) {
        yield();
        if (*gen != seen_gen)
            return;
        if (tls.progress == seen)
            abandon_block(DEADLOCK);
        seen = tls.progress;
    }
}

/* arrive at a barrier with `need` participants; returns the parity whose data to read */
static inline unsigned arrive(Barrier &b, unsigned need)
{
    unsigned gen = b.gen;
    ++b.arrived;
    ++tls.progress;
    if (b.arrived >= need) {
        b.arrived = 0;
        ++b.gen;
        return gen & 1;
    }
    wait_generation(&b.gen, gen);
    return gen & 1;
}

static inline void require_fibers()
{
    if (!tls.in_fibers && tls.nthreads > 1) {
        tls.error = SYNC_OUTSIDE_FIBERS;
    }
}

static inline unsigned long long block_reduce(unsigned long long value, int op)
{
    require_fibers();
    if (!tls.in_fibers)
        return value;
    Barrier &b = tls.block_bar;
    unsigned parity = b.gen & 1;
    if (b.arrived == 0)
        b.acc[parity] = (op == 1) ? ~0ull : 0ull;
    if (op == 0) b.acc[parity] += value;
    else if (op == 1) b.acc[parity] &= value;
    else b.acc[parity] |= value;
    arrive(b, (unsigned)tls.live);
    return b.acc[parity];
}

/* a warp operation: deposit `bits`, wait for the participants, return the slot parity */
static inline unsigned warp_exchange(unsigned mask, uint64_t bits)
{
    require_fibers();
    Fiber &f = current();
    Warp &w = tls.warps[f.warp];
    unsigned parity = w.bar.gen & 1;
    if (w.bar.arrived == 0) {
        w.mask = mask;
        w.part[parity] = 0;
    }
    w.slot[parity][f.lane] = bits;
    w.part[parity] |= 1u << f.lane;
    arrive(w.bar, (unsigned)__builtin_popcount(w.mask & w.live));
    return parity;
}

/* a fiber returned from the kernel: leave the ring, release what waited for it */
static inline void fiber_exit()
{
    Fiber &f = current();
    Warp &w = tls.warps[f.warp];
    ++tls.progress;
    --tls.live;
    w.live &= ~(1u << f.lane);
    if (w.bar.arrived && w.bar.arrived >= (unsigned)__builtin_popcount(w.mask & w.live)) {
        w.bar.arrived = 0;
        ++w.bar.gen;
    }
    if (tls.block_bar.arrived && tls.block_bar.arrived >= (unsigned)tls.live) {
        tls.block_bar.arrived = 0;
        ++tls.block_bar.gen;
    }
    void *dummy;
    if (tls.live == 0) {
        s2s_switch(&dummy, tls.sched_sp);
    }
    tls.fibers[f.prev].next = f.next;
    tls.fibers[f.next].prev = f.prev;
    switch_to(f.next, &dummy);
}

struct Trap {};

}  // namespace s2s

extern "C" void s2s_fiber_main(void)
{
    try {
        s2s::tls.body(s2s::tls.body_arg);
    } catch (const s2s::Trap &) {
        s2s::abandon_block(s2s::TRAP);
    }
    s2s::fiber_exit();
    __builtin_unreachable();
}

namespace s2s {

static const size_t PAGE = 4096;

/* one mmap'd region per OS thread: fiber stacks with a guard page each */
static inline bool ensure_stacks(int count)
{
    if (tls.stacks && (size_t)count <= tls.stack_count)
        return true;
    if (tls.stacks)
        munmap(tls.stacks, tls.stack_size * tls.stack_count);
    size_t kb = 64;
    if (const char *env = getenv("S2S_CPU_STACK_KB"))
        kb = (size_t)atol(env) > 16 ? (size_t)atol(env) : 16;
    tls.stack_size = kb * 1024;
    tls.stack_count = (size_t)count < 32 ? 32 : (size_t)count;
    void *mem = mmap(nullptr, tls.stack_size * tls.stack_count, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        tls.stacks = nullptr;
        return false;
    }
    tls.stacks = (char *)mem;
    for (size_t i = 0; i < tls.stack_count; ++i)
        mprotect(tls.stacks + i * tls.stack_size, PAGE, PROT_NONE);
    return true;
}

static inline void *initial_stack(int i)
{
    /* stagger the tops so the fibers' hot frames do not alias in the cache */
    char *top = tls.stacks + (size_t)(i + 1) * tls.stack_size - (size_t)(i % 32) * 128;
    uintptr_t t = (uintptr_t)top & ~(uintptr_t)15;
    void **sp = (void **)t;
    *--sp = (void *)&s2s_fiber_trampoline;    /* ret target; trampoline starts 16-aligned */
    for (int r = 0; r < 6; ++r)
        *--sp = nullptr;                      /* rbp rbx r12 r13 r14 r15 */
    return sp;
}

static inline bool ensure_block_arrays(int nthreads)
{
    int nwarps = (nthreads + 31) / 32;
    if (nthreads > tls.fiber_cap) {
        free(tls.fibers);
        tls.fibers = (Fiber *)malloc(sizeof(Fiber) * (size_t)nthreads);
        tls.fiber_cap = nthreads;
    }
    if (nwarps > tls.warp_cap) {
        free(tls.warps);
        tls.warps = (Warp *)malloc(sizeof(Warp) * (size_t)nwarps);
        tls.warp_cap = nwarps;
    }
    return tls.fibers && tls.warps && ensure_stacks(nthreads);
}

/* run one block (tls.block_idx set) with every thread as a fiber */
static inline int run_block_fibers(uint3 bd)
{
    int n = (int)(bd.x * bd.y * bd.z);
    if (!ensure_block_arrays(n))
        return STACK_ALLOC;
    for (int i = 0; i < n; ++i) {
        Fiber &f = tls.fibers[i];
        f.sp = initial_stack(i);
        f.tid.x = (unsigned)i % bd.x;
        f.tid.y = ((unsigned)i / bd.x) % bd.y;
        f.tid.z = (unsigned)i / (bd.x * bd.y);
        f.next = (i + 1) % n;
        f.prev = (i + n - 1) % n;
        f.warp = (unsigned)i / 32;
        f.lane = (unsigned)i % 32;
    }
    int nwarps = (n + 31) / 32;
    for (int w = 0; w < nwarps; ++w) {
        memset(&tls.warps[w], 0, sizeof(Warp) - sizeof(tls.warps[w].slot));
        int lanes = (w == nwarps - 1) ? n - 32 * w : 32;
        tls.warps[w].live = lanes == 32 ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
    }
    memset(&tls.block_bar, 0, sizeof(Barrier));
    tls.live = n;
    tls.nthreads = n;
    tls.in_fibers = true;
    tls.error = OK;
    switch_to(0, &tls.sched_sp);
    tls.in_fibers = false;
    return tls.error;
}

/* run one block without barriers: a plain loop over its threads */
static inline int run_block_plain(uint3 bd)
{
    tls.in_fibers = false;
    tls.nthreads = (int)(bd.x * bd.y * bd.z);
    tls.error = OK;
    try {
        for (unsigned z = 0; z < bd.z; ++z)
            for (unsigned y = 0; y < bd.y; ++y)
                for (unsigned x = 0; x < bd.x; ++x) {
                    tls.thread_idx.x = x;
                    tls.thread_idx.y = y;
                    tls.thread_idx.z = z;
                    tls.body(tls.body_arg);
                }
    } catch (const Trap &) {
        return TRAP;
    }
    return tls.error;
}

}  // namespace s2s

#endif
