# The precision lab through the real binary: the accumulation table holds what PyTorch prints
# for the handout's four loops (10.0001335, 9.953125, 10.0021362, 10.0021362); autocast on the
# CPU gives the tiny Transformer's dtypes; --json writes a run record with the table.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${CLI} precision accumulate --csv ${WORKDIR}/acc.csv --json ${WORKDIR}/acc.json
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "precision accumulate exited ${rc}: ${err}")
endif()
file(STRINGS ${WORKDIR}/acc.csv rows)
list(GET rows 0 header)
if(NOT header STREQUAL "case,accumulator,addend,method,additions,result,exact,abs_error,explanation")
  message(FATAL_ERROR "unexpected header: ${header}")
endif()
foreach(expected "fp32\\+=fp32,float32,float32,naive,1000,10.0001335," "fp16\\+=fp16,float16,float16,naive,1000,9.953125,"
                 "fp32\\+=fp16,float32,float16,naive,1000,10.0021362,"
                 "fp32\\+=fp16->fp32,float32,float16->float32,naive,1000,10.0021362,")
  if(NOT "${rows}" MATCHES "${expected}")
    message(FATAL_ERROR "no row matching ${expected} in:\n${rows}")
  endif()
endforeach()
if(NOT err MATCHES "Kahan")
  message(FATAL_ERROR "no plain-language reading on stderr: ${err}")
endif()
file(READ ${WORKDIR}/acc.json json)
string(JSON schema GET "${json}" tables 0 schema)
string(JSON first GET "${json}" tables 0 rows 0 result)
if(NOT schema STREQUAL "precision.accumulate" OR NOT first MATCHES "^10.000133514")
  message(FATAL_ERROR "the run record holds ${schema}, first result ${first}")
endif()

# bf16 autocast is what every LibTorch autocasts to on the CPU.
execute_process(COMMAND ${CLI} precision autocast --model tiny --precision bf16 --device cpu --csv ${WORKDIR}/tiny.csv
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "precision autocast exited ${rc}: ${err}")
endif()
file(STRINGS ${WORKDIR}/tiny.csv rows)
# PyTorch's autocast op lists: matrix multiplies lower, norms and the loss stay float32, and
# parameters and gradients keep their float32.
foreach(expected "tensor,kind,dtype" "token_embeddings.weight,parameter,float32" "layers.0.attn output,activation,bfloat16"
                 "layers.0.ln1 output,activation,float32" "logits,logits,bfloat16" "loss,loss,float32"
                 "lm_head.weight.grad,gradient,float32")
  list(FIND rows "${expected}" at)
  if(at LESS 0)
    message(FATAL_ERROR "no row '${expected}' in:\n${rows}")
  endif()
endforeach()
