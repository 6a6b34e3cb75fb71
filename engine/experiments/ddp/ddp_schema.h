// The DDP experiments' table, declared once for CSV, run records and the console:
// variant,bucket_mb,optimizer,nproc,rank (empty: all ranks),backend,model,context,batch,
// precision, then the per-step times (mean over the measured steps; the slowest rank's, or the
// rank's own) step_ms,forward_ms,backward_ms,comm_ms,exposed_comm_ms,optimizer_ms, then
// optimizer_state_bytes, max_param_diff (--check), status and a message.
#pragma once

#include "experiments/ddp/ddp_types.h"
#include "schema/schema.h"

namespace stepscope {

const schema::Schema<DdpResult>& ddp_schema();

}  // namespace stepscope
