#include "export/file_output.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>

#include <mutex>
#include <string>
#include <vector>

#include "io/output_file.h"

namespace stepscope::views {

namespace {
void set_error(QString* error, const QString& text) {
  if (error) *error = text;
}

struct ProtectedInput {
  QString what;
  std::string path;
};

std::mutex& inputs_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<ProtectedInput>& protected_inputs() {
  static std::vector<ProtectedInput> inputs;
  return inputs;
}

// False with `error` when `path` names a protected input.
bool spares_inputs(const QString& path, QString* error) {
  std::lock_guard<std::mutex> lock(inputs_mutex());
  for (const auto& input : protected_inputs()) {
    if (same_output(path.toStdString(), input.path)) {
      set_error(error, QStringLiteral("%1 is the file given as %2; it would be written over").arg(path, input.what));
      return false;
    }
  }
  return true;
}
}  // namespace

void protect_input(const QString& what, const QString& path) {
  if (path.isEmpty()) return;
  std::lock_guard<std::mutex> lock(inputs_mutex());
  protected_inputs().push_back({what, path.toStdString()});
}

bool check_output_file(const QString& path, QString* error) {
  if (!spares_inputs(path, error)) return false;
  try {
    check_output_path(path.toStdString());
    return true;
  } catch (const FileWriteError& e) {
    set_error(error, QString::fromStdString(e.what()));
    return false;
  }
}

bool write_output_file(const QString& path, const QByteArray& bytes, QString* error) {
  if (!spares_inputs(path, error)) return false;
  try {
    replace_file(path.toStdString(), [&](std::ostream& out) { out.write(bytes.constData(), bytes.size()); });
    return true;
  } catch (const FileWriteError& e) {
    set_error(error, QString::fromStdString(e.what()));
    return false;
  }
}

bool write_png_file(const QImage& image, const QString& path, QString* error) {
  if (!check_output_file(path, error)) return false;  // before encoding a large image
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QImageWriter writer(&buffer, "png");
  if (!writer.write(image)) {
    set_error(error, QStringLiteral("cannot write %1: %2").arg(path, writer.errorString()));
    return false;
  }
  return write_output_file(path, bytes, error);
}

bool check_output_folder(const QString& dir, QString* error) {
  if (dir.isEmpty()) {
    set_error(error, QStringLiteral("an output folder cannot be empty"));
    return false;
  }
  QFileInfo info(dir);
  // The folder itself, else the nearest parent that exists (mkpath makes the rest).
  while (!info.exists() && !info.isSymLink()) {
    const QString parent = info.absolutePath();
    if (parent == info.absoluteFilePath()) break;
    info = QFileInfo(parent);
  }
  if (info.isSymLink() && !info.exists()) {
    set_error(error, QStringLiteral("cannot write into %1: %2 is a symbolic link to a folder that does not exist")
                         .arg(dir, info.filePath()));
    return false;
  }
  if (!info.isDir()) {
    set_error(error, QStringLiteral("cannot write into %1: %2 is not a folder").arg(dir, info.filePath()));
    return false;
  }
  if (!info.isWritable()) {
    set_error(error, QStringLiteral("cannot write into %1: the folder %2 is read-only").arg(dir, info.absoluteFilePath()));
    return false;
  }
  return true;
}

}  // namespace stepscope::views
