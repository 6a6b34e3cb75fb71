// The attention sweep's table, declared once for CSV, run records, the console and the app:
// impl,batch,heads,d,seq,precision,causal,status,fwd_ms,bwd_ms,fwd_bwd_ms,fwd_tflops,bwd_tflops,
// mem_before_bwd_bytes,peak_bytes,max_abs_err, then spreads, the checked length and a message.
#pragma once

#include "attention/attention_types.h"
#include "schema/schema.h"

namespace stepscope {

const schema::Schema<AttentionResult>& attention_schema();

}  // namespace stepscope
