#include "export/file_output.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>

#include "io/output_file.h"

namespace stepscope::views {

namespace {
void set_error(QString* error, const QString& text) {
  if (error) *error = text;
}
}  // namespace

bool check_output_file(const QString& path, QString* error) {
  try {
    check_output_path(path.toStdString());
    return true;
  } catch (const FileWriteError& e) {
    set_error(error, QString::fromStdString(e.what()));
    return false;
  }
}

bool write_output_file(const QString& path, const QByteArray& bytes, QString* error) {
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
