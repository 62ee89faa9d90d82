// The gpu engine for every built-in family in double: one unit a precision, the layout of
// DEGPU_GPU_UNITS=precision (the default is a unit a family: builtin_gpu_unit.cuh says why).
#include "cuda/families/builtin_gpu_unit.cuh"

DEGPU_GPU_UNIT(f64, double)
