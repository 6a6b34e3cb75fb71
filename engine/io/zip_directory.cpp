#include "io/zip_directory.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace stepscope {

namespace {

constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kEntrySignature = 0x02014b50;
constexpr size_t kEndBytes = 22, kZip64LocatorBytes = 20, kZip64EndBytes = 56, kEntryBytes = 46;
constexpr size_t kMaxCommentBytes = 0xffff;

[[noreturn]] void corrupt(const std::string& what) { throw ZipDirectoryError("corrupt zip directory: " + what); }

uint64_t le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

class File {
 public:
  explicit File(const std::string& path) : in_(path, std::ios::binary) {
    if (!in_) throw ZipDirectoryError("cannot open file (" + std::string(std::strerror(errno)) + ")");
    in_.seekg(0, std::ios::end);
    const std::streamoff end = in_.tellg();
    if (end < 0) throw ZipDirectoryError("cannot read the file's size (not a regular file?)");
    size_ = static_cast<uint64_t>(end);
  }
  uint64_t size() const { return size_; }
  // `bytes` at `offset`, which must lie inside the file.
  std::vector<unsigned char> read(uint64_t offset, uint64_t bytes, const char* what) {
    if (offset > size_ || bytes > size_ - offset) corrupt(std::string(what) + " lies past the end of the file");
    std::vector<unsigned char> out(static_cast<size_t>(bytes));
    in_.seekg(static_cast<std::streamoff>(offset));
    if (bytes > 0 && !in_.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(bytes)))
      corrupt(std::string("cannot read ") + what);
    return out;
  }

 private:
  std::ifstream in_;
  uint64_t size_ = 0;
};

struct Directory {
  uint64_t entries = 0, offset = 0, bytes = 0;
};

// The end record is the last of its signature within the final 64 KiB comment's reach.
Directory locate(File& file) {
  if (file.size() < kEndBytes) corrupt("the file is shorter than an end-of-directory record");
  const uint64_t tail_bytes = std::min<uint64_t>(file.size(), kEndBytes + kMaxCommentBytes);
  const uint64_t tail_start = file.size() - tail_bytes;
  const auto tail = file.read(tail_start, tail_bytes, "the end-of-directory record");
  size_t at = tail.size() - kEndBytes + 1;
  do {
    --at;
    if (le(&tail[at], 4) == kEndSignature) break;
    if (at == 0) corrupt("no end-of-directory record");
  } while (true);
  const unsigned char* e = &tail[at];
  Directory d{le(e + 10, 2), le(e + 16, 4), le(e + 12, 4)};
  if (le(e + 4, 2) != 0 || le(e + 6, 2) != 0) corrupt("multi-disk archives are not supported");
  if (d.entries == 0xffff || d.offset == 0xffffffff || d.bytes == 0xffffffff) {
    const uint64_t end_at = tail_start + at;
    if (end_at < kZip64LocatorBytes) corrupt("no zip64 locator before the end record");
    const auto locator = file.read(end_at - kZip64LocatorBytes, kZip64LocatorBytes, "the zip64 locator");
    if (le(locator.data(), 4) != kZip64LocatorSignature) corrupt("no zip64 locator before the end record");
    const auto end64 = file.read(le(locator.data() + 8, 8), kZip64EndBytes, "the zip64 end record");
    if (le(end64.data(), 4) != kZip64EndSignature) corrupt("bad zip64 end record signature");
    d = {le(end64.data() + 32, 8), le(end64.data() + 48, 8), le(end64.data() + 40, 8)};
  }
  if (d.entries > d.bytes / kEntryBytes) corrupt(std::to_string(d.entries) + " entries cannot fit the directory");
  return d;
}

// Sizes and offset stored as 0xffffffff live in the zip64 extra field, in this order.
void apply_zip64_extra(const unsigned char* extra, size_t bytes, ZipEntry& entry, bool uncompressed_wide,
                       bool compressed_wide, const std::string& name) {
  size_t at = 0;
  while (at + 4 <= bytes) {
    const uint64_t id = le(extra + at, 2), size = le(extra + at + 2, 2);
    if (at + 4 + size > bytes) corrupt("extra field of '" + name + "' runs past its entry");
    if (id == 0x0001) {
      size_t field = at + 4;
      const auto take = [&](uint64_t& value) {
        if (field + 8 > at + 4 + size) corrupt("zip64 field of '" + name + "' is too short");
        value = le(extra + field, 8);
        field += 8;
      };
      if (uncompressed_wide) take(entry.uncompressed_bytes);
      if (compressed_wide) take(entry.compressed_bytes);
      return;
    }
    at += 4 + size;
  }
  if (uncompressed_wide || compressed_wide) corrupt("'" + name + "' lacks its zip64 sizes");
}

}  // namespace

const ZipEntry* ZipDirectory::find(const std::string& record) const {
  const auto it = entries.find(prefix + record);
  return it == entries.end() ? nullptr : &it->second;
}

ZipDirectory read_zip_directory(const std::string& path) {
  File file(path);
  const Directory d = locate(file);
  const auto bytes = file.read(d.offset, d.bytes, "the central directory");
  ZipDirectory out;
  size_t at = 0;
  for (uint64_t n = 0; n < d.entries; ++n) {
    if (at + kEntryBytes > bytes.size() || le(&bytes[at], 4) != kEntrySignature)
      corrupt("entry " + std::to_string(n) + " is not where the directory says");
    const unsigned char* h = &bytes[at];
    const size_t name_bytes = le(h + 28, 2), extra_bytes = le(h + 30, 2), comment_bytes = le(h + 32, 2);
    if (at + kEntryBytes + name_bytes + extra_bytes + comment_bytes > bytes.size())
      corrupt("entry " + std::to_string(n) + " runs past the directory");
    const std::string name(reinterpret_cast<const char*>(h + kEntryBytes), name_bytes);
    ZipEntry entry;
    entry.method = static_cast<uint16_t>(le(h + 10, 2));
    entry.compressed_bytes = le(h + 20, 4);
    entry.uncompressed_bytes = le(h + 24, 4);
    apply_zip64_extra(h + kEntryBytes + name_bytes, extra_bytes, entry, entry.uncompressed_bytes == 0xffffffff,
                      entry.compressed_bytes == 0xffffffff, name);
    if (entry.method == 0 && entry.compressed_bytes != entry.uncompressed_bytes)
      corrupt("stored record '" + name + "' declares " + std::to_string(entry.uncompressed_bytes) + " bytes but holds " +
              std::to_string(entry.compressed_bytes));
    if (entry.compressed_bytes > file.size())
      corrupt("record '" + name + "' is larger than the file (" + std::to_string(entry.compressed_bytes) + " bytes)");
    if (n == 0) {
      const size_t slash = name.find('/');
      out.prefix = slash == std::string::npos ? "" : name.substr(0, slash + 1);
    }
    if (!out.entries.emplace(name, entry).second) corrupt("two records are named '" + name + "'");
    at += kEntryBytes + name_bytes + extra_bytes + comment_bytes;
  }
  return out;
}

}  // namespace stepscope
