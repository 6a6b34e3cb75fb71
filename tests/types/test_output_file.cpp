// Output paths mean what they name: device nodes and pipes are written through, links are
// followed and stay links, regular files are replaced whole, read-only files and folders are
// refused, and nothing half-written is ever left at the path.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <vector>

#include "io/output_file.h"
#include "support/temp_path.h"

namespace stepscope {
namespace {

using testing::temp_path;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) {
  replace_file(path, [&](std::ostream& out) { out << text; });
}

std::string refusal(const std::string& path) {
  try {
    write_text(path, "new");
  } catch (const FileWriteError& e) {
    return e.what();
  }
  return "written";
}

// Temporaries are named "<file>.XXXXXX.partial" beside the file.
bool temporaries_left(const std::string& path) {
  const std::string folder = path.substr(0, path.find_last_of('/'));
  const std::string stem = path.substr(path.find_last_of('/') + 1) + ".";
  DIR* dir = opendir(folder.c_str());
  if (!dir) return false;
  bool found = false;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind(stem, 0) == 0 && name.size() > 8 && name.compare(name.size() - 8, 8, ".partial") == 0) found = true;
  }
  closedir(dir);
  return found;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  lstat(path.c_str(), &st);
  return st.st_mode;
}

TEST(OutputFile, NewAndExistingRegularFilesAreReplacedWhole) {
  const std::string path = temp_path("table.csv");
  write_text(path, "first");
  write_text(path, "second");
  EXPECT_EQ(read(path), "second");
  EXPECT_FALSE(temporaries_left(path));
  std::remove(path.c_str());
}

// Two runs given one --csv rewrite it after every row at the same time: each has a temporary of
// its own, neither fails, and the file is always one writer's whole table.
TEST(OutputFile, ConcurrentWritersEachFinishAndTheFileIsAlwaysWhole) {
  const std::string path = temp_path("shared.csv");
  const auto table = [](char who, int rows) { return std::string(static_cast<size_t>(rows) * 100, who); };
  std::atomic<int> failures{0};
  std::atomic<bool> torn{false};
  std::vector<std::thread> writers;
  for (const char who : {'a', 'b'}) {
    writers.emplace_back([&, who] {
      for (int row = 1; row <= 200; ++row) {
        try {
          write_text(path, table(who, row));
        } catch (const std::exception&) {
          ++failures;
        }
        const std::string seen = read(path);
        if (seen.empty() || seen.find_first_not_of(seen.front()) != std::string::npos || seen.size() % 100 != 0) {
          torn = true;
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_FALSE(torn.load());
  const std::string last = read(path);
  EXPECT_TRUE(last == table('a', 200) || last == table('b', 200));
  EXPECT_FALSE(temporaries_left(path));
  std::remove(path.c_str());
}

TEST(OutputFile, AReplacedFileKeepsItsModeAndANewOneGetsTheUmasks) {
  const std::string path = temp_path("moded.csv");
  write_text(path, "first");
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  write_text(path, "second");
  EXPECT_EQ(mode_of(path) & 07777, 0640u);
  std::remove(path.c_str());
  const mode_t mask = umask(027);
  write_text(path, "new");
  umask(mask);
  EXPECT_EQ(mode_of(path) & 07777, 0640u);  // 0666 less 027
  std::remove(path.c_str());
}

TEST(OutputFile, ASymbolicLinkStaysALinkAndItsFileIsReplaced) {
  const std::string file = temp_path("target.csv"), link = temp_path("link.csv");
  write_text(file, "old");
  ASSERT_EQ(symlink(file.c_str(), link.c_str()), 0);
  write_text(link, "through the link");
  EXPECT_TRUE(S_ISLNK(mode_of(link)));
  EXPECT_EQ(read(file), "through the link");
  EXPECT_TRUE(same_output(link, file));
  std::remove(link.c_str());
  std::remove(file.c_str());
}

TEST(OutputFile, DeviceNodesAreWrittenThroughNotReplaced) {
  write_text("/dev/null", "discarded");
  EXPECT_TRUE(S_ISCHR(mode_of("/dev/null")));
  EXPECT_FALSE(temporaries_left("/dev/null"));
  EXPECT_FALSE(is_rewritable_output("/dev/null"));
  // A full device says so, and stays a device.
  const std::string full = refusal("/dev/full");
  EXPECT_NE(full.find("No space left on device"), std::string::npos) << full;
  EXPECT_TRUE(S_ISCHR(mode_of("/dev/full")));
}

TEST(OutputFile, APipeGetsTheContentOnce) {
  const std::string fifo = temp_path("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read(fifo); });
  write_text(fifo, "row 1\nrow 2\n");
  reader.join();
  EXPECT_EQ(received, "row 1\nrow 2\n");
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
  std::remove(fifo.c_str());
}

// The suite runs as root on CI, where access() says yes to everything: the mode decides.
TEST(OutputFile, ReadOnlyFilesAreRefusedEvenForRoot) {
  const std::string path = temp_path("kept.csv");
  write_text(path, "precious");
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  EXPECT_NE(refusal(path).find("the file is read-only"), std::string::npos);
  EXPECT_THROW(check_output_path(path), FileWriteError);
  EXPECT_EQ(read(path), "precious");
  std::remove(path.c_str());
}

TEST(OutputFile, FoldersAndMissingFoldersAreRefusedByName) {
  std::string folder = ::testing::TempDir();
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  EXPECT_NE(refusal(folder).find("is a folder"), std::string::npos);
  EXPECT_NE(refusal(temp_path("results") + "/").find("names a folder"), std::string::npos);
  const std::string missing = temp_path("no-such-folder") + "/out.csv";
  const std::string message = refusal(missing);
  EXPECT_NE(message.find("no-such-folder"), std::string::npos) << message;
  EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
  const std::string dangling = temp_path("dangling");
  ASSERT_EQ(symlink(temp_path("nowhere").c_str(), dangling.c_str()), 0);
  EXPECT_NE(refusal(dangling).find("symbolic link to a file that does not exist"), std::string::npos);
  std::remove(dangling.c_str());
}

TEST(OutputFile, AFailingWriterLeavesTheOldFileAndNoTemporary) {
  const std::string path = temp_path("survives.csv");
  write_text(path, "measured");
  EXPECT_THROW(replace_file(path,
                            [](std::ostream& out) {
                              out << "half";
                              throw std::runtime_error("disk full");
                            }),
               std::runtime_error);
  EXPECT_EQ(read(path), "measured");
  EXPECT_FALSE(temporaries_left(path));
  std::remove(path.c_str());
}

TEST(OutputFile, SameOutputSeesThroughSpellings) {
  const std::string path = temp_path("same.csv");
  const std::string name = path.substr(path.find_last_of('/') + 1);
  const std::string sibling = temp_path("folder");  // beside the file: sibling/.. is the file's folder
  ASSERT_EQ(mkdir(sibling.c_str(), 0700), 0);
  EXPECT_TRUE(same_output(path, sibling + "/../" + name));  // not created yet
  write_text(path, "x");
  EXPECT_TRUE(same_output(path, sibling + "/./../" + name));
  EXPECT_FALSE(same_output(path, path + "2"));
  EXPECT_TRUE(same_output("-", "-"));
  EXPECT_FALSE(same_output("-", path));
  std::remove(path.c_str());
  rmdir(sibling.c_str());
}

}  // namespace
}  // namespace stepscope
