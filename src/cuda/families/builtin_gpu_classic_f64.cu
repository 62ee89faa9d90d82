// The gpu engine for the classic functions in double: a unit a family and precision (builtin_gpu_unit.cuh says why).
#define DEGPU_FAMILY_CEC 0
#define DEGPU_FAMILY_CEC2010 0
#define DEGPU_FAMILY_SCHEDULE 0
#include "cuda/families/builtin_gpu_unit.cuh"

DEGPU_GPU_UNIT(classic_f64, double)
