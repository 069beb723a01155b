/* Backend selection for the field layer: the x86-64 MULX/ADCX/ADOX path is
 * compiled in with CUZK_HAVE_ASM (in optimized builds: unoptimized code
 * cannot find registers for the asm) and switched on at load time only if CPUID
 * reports both BMI2 (MULX) and ADX (ADCX/ADOX). */
#include "ff/field_internal.h"

#if CUZK_FF_HAVE_ADX
#include <cpuid.h>

static int cpu_has_adx_bmi2(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    /* leaf 7 EBX: bit 8 = BMI2, bit 19 = ADX */
    return (b >> 8 & 1) && (b >> 19 & 1);
}
#else
static int cpu_has_adx_bmi2(void) { return 0; }
#endif

int cuzk_ff_adx_active;
static int adx_available = -1;

static void detect(void)
{
    if (adx_available < 0) adx_available = cpu_has_adx_bmi2();
}

/* Runs before main so that the flag is settled before any thread starts. */
__attribute__((constructor)) static void ff_backend_init(void)
{
    detect();
    cuzk_ff_adx_active = adx_available;
}

const char *cuzk_ff_backend(void)
{
    return cuzk_ff_adx_active ? "adx" : "portable";
}

void cuzk_ff_force_portable(int force)
{
    detect();
    cuzk_ff_adx_active = force ? 0 : adx_available;
}
