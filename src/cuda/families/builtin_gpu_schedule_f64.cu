// The gpu engine for the schedules in double: a unit a family and precision (builtin_gpu_unit.cuh says why).
#define DEGPU_FAMILY_CLASSIC 0
#define DEGPU_FAMILY_CEC 0
#define DEGPU_FAMILY_CEC2010 0
#include "cuda/families/builtin_gpu_unit.cuh"

DEGPU_GPU_UNIT(schedule_f64, double)
