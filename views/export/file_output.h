// Every file the application writes (CSV tables, chart PNGs, window screenshots) follows the
// command line's rules (engine/io/output_file.h): a read-only file, a folder, a dangling link or
// a missing folder is refused with the reason, never replaced; a regular file is replaced whole
// through a temporary beside it. Qt encodes; the engine's replace_file writes.
#pragma once

#include <QByteArray>
#include <QString>

class QImage;

namespace stepscope::views {

// A file the application reads (`what`: "--open-file", "the run history"), never to be written
// over: every output below is refused when it names it, in any spelling (./x, a link, a hard link).
void protect_input(const QString& what, const QString& path);

// Could `path` be written? False with `error` ("cannot write PATH: the file is read-only").
bool check_output_file(const QString& path, QString* error);
// Writes `bytes` to `path` as above; false with `error` set.
bool write_output_file(const QString& path, const QByteArray& bytes, QString* error);
// `image` as PNG to `path`, the same way.
bool write_png_file(const QImage& image, const QString& path, QString* error);
// A folder to export into: an existing folder that can be written, or a new one whose nearest
// existing parent is such a folder (it is created on export). False with `error`.
bool check_output_folder(const QString& dir, QString* error);

}  // namespace stepscope::views
