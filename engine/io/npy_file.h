#pragma once
#include <stdexcept>
#include <string>
#include <ATen/core/Tensor.h>
namespace stepscope {
class NpyError : public std::runtime_error { public: using std::runtime_error::runtime_error; };
// Reads a .npy file (format 1.0/2.0/3.0), little-endian <i8 <i4 <i2 <i1 |u1 |b1 <f2 <f4 <f8; a fortran_order
// array is converted to a C-contiguous tensor. Throws NpyError for other dtypes, big-endian, object arrays,
// truncated data or a bad magic.
at::Tensor read_npy_file(const std::string& path);
// Writes a C-order .npy (format 1.0, 2.0 if the header is too long) that numpy.load reads; dtypes as above.
void write_npy_file(const at::Tensor& t, const std::string& path);
}
