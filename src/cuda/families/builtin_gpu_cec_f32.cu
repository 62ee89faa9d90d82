// The gpu engine for the CEC 2017 / 2014 functions in float: a unit a family and precision (builtin_gpu_unit.cuh says why).
#define DEGPU_FAMILY_CLASSIC 0
#define DEGPU_FAMILY_CEC2010 0
#define DEGPU_FAMILY_SCHEDULE 0
#include "cuda/families/builtin_gpu_unit.cuh"

DEGPU_GPU_UNIT(cec_f32, float)
