// The collective benchmark's table, declared once for CSV, run records, the console and the app:
// op,backend,nproc,size_bytes,count,type,time_us,algbw_gbps,busbw_gbps,wrong (nccl-tests' row),
// then status, whether the backend has the collective natively, the device and a message.
#pragma once

#include "experiments/collectives/collective_types.h"
#include "schema/schema.h"

namespace stepscope {

const schema::Schema<CollectiveResult>& collective_schema();

}  // namespace stepscope
