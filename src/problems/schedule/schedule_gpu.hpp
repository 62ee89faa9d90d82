// What the scheduling problem's GPU evaluation can take, for its model to check before a run
// (ScheduleModel::not_on) and its kernel function to size its shared memory (schedule_device.cuh).
#pragma once

namespace degpu {

// The gpu engine keeps each group's machines' finish times in shared memory: at most this many machines.
inline constexpr int kScheduleGroupMachines = 64;

}  // namespace degpu
