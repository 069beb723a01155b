/* The one kernel source (docs/gpu.md).  Built into one text at build time
 * (src/gpu/amalgamate.cmake resolves these includes), which the OpenCL
 * driver compiles at run time and nvcc compiles to PTX when it exists. */
#include "cuzk_kernel.h"
#include "fields.cl"
#include "fp2.cl"
#include "groups.cl"
#include "ntt.cl"
#include "msm.cl"
#include "test_kernels.cl"
