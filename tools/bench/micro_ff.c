#include "bench.h"

const struct micro_op micro_ops_ff[] = {
    {0, 0, 0},
};
