// The gpu engine for every built-in family in double: one unit a precision, the default layout
// (DEGPU_GPU_UNITS=precision; builtin_gpu_unit.cuh says what the other layout, a unit a family, changes).
#include "cuda/families/builtin_gpu_unit.cuh"

DEGPU_GPU_UNIT(f64, double)
