// The central directory of a zip archive (a torch.save checkpoint): each record's name and
// declared sizes, read without inflating anything. The checkpoint reader checks these sizes
// against what the pickle's storages need before a record is allocated or inflated: LibTorch's
// reader allocates (and inflates) whatever size the directory declares.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace stepscope {

class ZipDirectoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ZipEntry {
  uint16_t method = 0;               // 0 stored (what torch.save writes), 8 deflated
  uint64_t compressed_bytes = 0;
  uint64_t uncompressed_bytes = 0;   // what a reader allocates for the record
};

struct ZipDirectory {
  std::string prefix;  // "archive/": the folder every record of a torch.save file sits in
  std::unordered_map<std::string, ZipEntry> entries;  // by full name

  // The entry of `record` under the prefix ("data/0" -> "archive/data/0"), or nullptr.
  const ZipEntry* find(const std::string& record) const;
};

// Reads the end-of-central-directory record (zip64 too) and every entry of the directory.
// Throws ZipDirectoryError for a malformed directory, one that points past the file, two
// records of one name (readers would disagree on which one a name means), or a stored record
// whose two sizes differ.
ZipDirectory read_zip_directory(const std::string& path);

}  // namespace stepscope
