/* The one header that lets the kernel source compile as OpenCL C (1.2, the
 * level pocl and every GPU vendor accept) and as CUDA C++ (nvcc), so that
 * every kernel is written once (docs/gpu.md "Kernel source rules").
 *
 * Kernel code uses only what this header maps, never a dialect's own word:
 *   CZ_KERNEL            a kernel entry point (returns void)
 *   CZ_GLOBAL            device-memory pointer qualifier (kernel parameters)
 *   CZ_LOCAL             work-group memory for a variable declared in a kernel
 *   CZ_LOCAL_PARAM(T, n) a dynamic work-group array as the LAST parameter,
 *                        written after the one before it WITHOUT a comma
 *                        (the macro brings its own), and
 *   CZ_LOCAL_DECL(T, n)  its declaration, first in the kernel's body (CUDA
 *                        has one `extern __shared__` array per launch, not a
 *                        parameter; the host passes CUZK_GPU_ARG_L(bytes))
 *   CZ_FN                a device function (static, inlined)
 *   CZ_FN_CALL           a device function kept out of line unless
 *                        CZ_INLINE_ALL is defined: the field multiplication,
 *                        which inlined into every point formula made nvcc
 *                        take 78 s and 6.2 MB of PTX for this file (4.6 s,
 *                        1.3 MB out of line; nvcc 13, Dec 2026).  Whether
 *                        inlining pays on a GPU is for the device check.
 *   CZ_GID() CZ_LID() CZ_GROUP() CZ_LSIZE()   1-D ids and sizes (u64 / u32)
 *   CZ_BARRIER()         work-group barrier with a work-group memory fence
 *   CZ_ATOMIC_ADD_U32(p, v)  returns the old value; p a CZ_GLOBAL u32 pointer
 *   cz_mulhi(a, b)       high 64 bits of the 128-bit product of two u64
 *   CZ_PREFETCH(p)       a hint that *p (global memory) is read soon: a
 *                        prefetch on a CPU device (CZ_INT128), else nothing
 *   u64, u32             unsigned integer types; CZ_U64(lit) a 64-bit literal
 * Device functions take and return values (structs by value), not pointers,
 * except to the caller's own local variables: OpenCL C 1.2 has no generic
 * address space, so a pointer parameter is private memory.
 *
 * CZ_PTX_CARRY (CUDA only, off by default) selects inline-PTX carry chains
 * for the limb adds; the portable path is the one every test runs. */
#ifndef CUZK_KERNEL_H
#define CUZK_KERNEL_H

#if defined(__CUDACC__)
typedef unsigned long long u64;
typedef unsigned int u32;
#define CZ_KERNEL extern "C" __global__
#define CZ_GLOBAL
#define CZ_LOCAL __shared__
#define CZ_LOCAL_PARAM(T, n)
#define CZ_LOCAL_DECL(T, n) extern __shared__ T n[]
#define CZ_FN static __device__ __forceinline__
#ifdef CZ_INLINE_ALL
#define CZ_FN_CALL CZ_FN
#else
#define CZ_FN_CALL static __device__ __noinline__
#endif
#define CZ_GID() ((u64)blockIdx.x * blockDim.x + threadIdx.x)
#define CZ_LID() ((u32)threadIdx.x)
#define CZ_GROUP() ((u32)blockIdx.x)
#define CZ_LSIZE() ((u32)blockDim.x)
#define CZ_BARRIER() __syncthreads()
#define CZ_ATOMIC_ADD_U32(p, v) atomicAdd((p), (v))
#define cz_mulhi(a, b) __umul64hi((a), (b))
#else /* OpenCL C */
typedef ulong u64;
typedef uint u32;
#define CZ_KERNEL __kernel
#define CZ_GLOBAL __global
#define CZ_LOCAL __local
#define CZ_LOCAL_PARAM(T, n) , __local T *n
#define CZ_LOCAL_DECL(T, n)
#define CZ_FN static inline
#ifdef CZ_INLINE_ALL
#define CZ_FN_CALL CZ_FN
#else
#define CZ_FN_CALL static __attribute__((noinline))
#endif
#define CZ_GID() ((u64)get_global_id(0))
#define CZ_LID() ((u32)get_local_id(0))
#define CZ_GROUP() ((u32)get_group_id(0))
#define CZ_LSIZE() ((u32)get_local_size(0))
#define CZ_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define CZ_ATOMIC_ADD_U32(p, v) atomic_add((p), (v))
#if defined(CZ_INT128) && !defined(CZ_NO_INT128)
/* A CPU device (pocl): its mul_hi(ulong) is a four-multiply emulation; the
 * target's 128-bit integer is one mulq (see CZ_INT128 below). */
#define cz_mulhi(a, b) ((u64)(((unsigned __int128)(u64)(a) * (u64)(b)) >> 64))
#else
#define cz_mulhi(a, b) mul_hi((u64)(a), (u64)(b))
#endif
#endif

#if !defined(__CUDACC__) && defined(CZ_INT128)
/* A CPU device runs a work item's loop as one thread: a random read that
 * misses the cache stalls it for the whole miss (in-order retirement), as an
 * early plain load would too; a prefetch retires at once.  A GPU hides the
 * miss with other warps: nothing there. */
/* through an integer: OpenCL C 1.2 cannot convert a __global pointer to the
 * builtin's void * (and pocl's own prefetch() compiles to nothing); a CPU
 * device's address spaces are one.  Both lines of a point that spans two. */
#define CZ_PREFETCH_AT(a) __builtin_prefetch((const void *)(a))
#define CZ_PREFETCH(p) (CZ_PREFETCH_AT((size_t)(p)), CZ_PREFETCH_AT((size_t)(p) + sizeof(*(p)) - 1))
#else
#define CZ_PREFETCH(p) ((void)0)
#endif

/* CZ_X86_ADX: a CPU device on an x86-64 host with ADX and BMI2 (the OpenCL
 * driver defines it, with CZ_INT128): the field multiplications are the CPU
 * library's MULX/ADCX/ADOX rows (src/ff/limbs_x86.h) instead of field.cl's
 * C, which pocl's clang compiles to twice the instructions: G1 MSM 2^18
 * 4.7 -> 3.65 CPU-s, a PoRep 2 KiB proof 54.5 -> 41.7 s, bytes unchanged
 * (docs/perf-notes.md "pocl: the CPU library's field rows").  Never on a
 * GPU or CUDA; test_gpu_ff runs the C on pocl too (CZ_NO_INT128). */
#if defined(CZ_X86_ADX) && (defined(__CUDACC__) || !defined(CZ_INT128) || defined(CZ_NO_INT128))
#undef CZ_X86_ADX
#endif
#ifdef CZ_X86_ADX
typedef ulong uint64_t;
#include "../../ff/limbs_x86.h"
#endif

#define CZ_U64(x) x##UL /* 64 bits in both: OpenCL long, LP64 unsigned long */

/* Name pasting for the templates (field.cl, group.cl). */
#define CZ_CAT_(a, b) a##_##b
#define CZ_CAT(a, b) CZ_CAT_(a, b)

/* ---- 64-bit limb primitives ------------------------------------------------------ */

#if !defined(__CUDACC__) && defined(CZ_INT128) && !defined(CZ_NO_INT128)
/* CZ_INT128: the OpenCL driver defines it for a CPU device (pocl), whose
 * compiler has the target's 128-bit integers: the three primitives below as
 * 128-bit sums become mulq/adc instead of compares (pocl's MSM 2.1x faster
 * from mulq alone).  Same results limb for limb; GPUs and CUDA never take
 * this path, and test_gpu_ff runs the portable one on pocl too
 * (CZ_NO_INT128). */
typedef unsigned __int128 cz_u128;
CZ_FN u64 cz_addc(u64 a, u64 b, u64 *carry)
{
    cz_u128 s = (cz_u128)a + b + *carry;
    *carry = (u64)(s >> 64);
    return (u64)s;
}
CZ_FN u64 cz_subb(u64 a, u64 b, u64 *borrow)
{
    cz_u128 d = (cz_u128)a - b - *borrow;
    *borrow = (u64)(d >> 64) & 1;
    return (u64)d;
}
CZ_FN u64 cz_mac(u64 a, u64 b, u64 c, u64 *carry)
{
    cz_u128 t = (cz_u128)a * b + c + *carry;
    *carry = (u64)(t >> 64);
    return (u64)t;
}
#else
/* a + b + *carry (carry 0 or 1); *carry = the carry out. */
CZ_FN u64 cz_addc(u64 a, u64 b, u64 *carry)
{
    u64 s = a + b;
    u64 c1 = s < a;
    u64 t = s + *carry;
    u64 c2 = t < s;
    *carry = c1 | c2;
    return t;
}

/* a - b - *borrow (borrow 0 or 1); *borrow = the borrow out. */
CZ_FN u64 cz_subb(u64 a, u64 b, u64 *borrow)
{
    u64 d = a - b;
    u64 b1 = a < b;
    u64 t = d - *borrow;
    u64 b2 = d < *borrow;
    *borrow = b1 | b2;
    return t;
}

/* lo(a*b + c + *carry); *carry = hi.  Never overflows:
 * (2^64-1)^2 + 2(2^64-1) = 2^128 - 1. */
CZ_FN u64 cz_mac(u64 a, u64 b, u64 c, u64 *carry)
{
    u64 lo = a * b;
    u64 hi = cz_mulhi(a, b);
    lo += c;
    hi += lo < c;
    lo += *carry;
    hi += lo < *carry;
    *carry = hi;
    return lo;
}
#endif /* CZ_INT128 */

/* The NVIDIA fast path (CZ_PTX_CARRY): whole-vector adds and subtracts as
 * one PTX carry chain (add.cc / addc.cc), returning the carry (borrow) out.
 * Compiled by the CUDA compile check; never run by the tests here. */
#if defined(__CUDACC__) && defined(CZ_PTX_CARRY)
CZ_FN u64 cz_ptx_add_4(u64 *r, const u64 *a, const u64 *b)
{
    u64 c;
    asm("add.cc.u64 %0, %5, %9;\n\t"
        "addc.cc.u64 %1, %6, %10;\n\t"
        "addc.cc.u64 %2, %7, %11;\n\t"
        "addc.cc.u64 %3, %8, %12;\n\t"
        "addc.u64 %4, 0, 0;"
        : "=l"(r[0]), "=l"(r[1]), "=l"(r[2]), "=l"(r[3]), "=l"(c)
        : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(b[0]), "l"(b[1]), "l"(b[2]), "l"(b[3]));
    return c;
}

CZ_FN u64 cz_ptx_sub_4(u64 *r, const u64 *a, const u64 *b)
{
    u64 c;
    asm("sub.cc.u64 %0, %5, %9;\n\t"
        "subc.cc.u64 %1, %6, %10;\n\t"
        "subc.cc.u64 %2, %7, %11;\n\t"
        "subc.cc.u64 %3, %8, %12;\n\t"
        "subc.u64 %4, 0, 0;"
        : "=l"(r[0]), "=l"(r[1]), "=l"(r[2]), "=l"(r[3]), "=l"(c)
        : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(b[0]), "l"(b[1]), "l"(b[2]), "l"(b[3]));
    return c & 1;
}

CZ_FN u64 cz_ptx_add_6(u64 *r, const u64 *a, const u64 *b)
{
    u64 c;
    asm("add.cc.u64 %0, %7, %13;\n\t"
        "addc.cc.u64 %1, %8, %14;\n\t"
        "addc.cc.u64 %2, %9, %15;\n\t"
        "addc.cc.u64 %3, %10, %16;\n\t"
        "addc.cc.u64 %4, %11, %17;\n\t"
        "addc.cc.u64 %5, %12, %18;\n\t"
        "addc.u64 %6, 0, 0;"
        : "=l"(r[0]), "=l"(r[1]), "=l"(r[2]), "=l"(r[3]), "=l"(r[4]), "=l"(r[5]), "=l"(c)
        : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(a[4]), "l"(a[5]), "l"(b[0]), "l"(b[1]), "l"(b[2]), "l"(b[3]), "l"(b[4]), "l"(b[5]));
    return c;
}

CZ_FN u64 cz_ptx_sub_6(u64 *r, const u64 *a, const u64 *b)
{
    u64 c;
    asm("sub.cc.u64 %0, %7, %13;\n\t"
        "subc.cc.u64 %1, %8, %14;\n\t"
        "subc.cc.u64 %2, %9, %15;\n\t"
        "subc.cc.u64 %3, %10, %16;\n\t"
        "subc.cc.u64 %4, %11, %17;\n\t"
        "subc.cc.u64 %5, %12, %18;\n\t"
        "subc.u64 %6, 0, 0;"
        : "=l"(r[0]), "=l"(r[1]), "=l"(r[2]), "=l"(r[3]), "=l"(r[4]), "=l"(r[5]), "=l"(c)
        : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(a[4]), "l"(a[5]), "l"(b[0]), "l"(b[1]), "l"(b[2]), "l"(b[3]), "l"(b[4]), "l"(b[5]));
    return c & 1;
}
#endif

#endif
