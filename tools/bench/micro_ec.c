#include "bench.h"

const struct micro_op micro_ops_ec[] = {
    {0, 0, 0},
};
