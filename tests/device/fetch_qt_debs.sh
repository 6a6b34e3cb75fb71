#!/usr/bin/env bash
# Downloads the Debian 12 packages that tests/device/gui_on_gpu.sh carries to a GPU machine
# (which has no Qt): Qt 6 with its development files, the libraries Ubuntu 24.04 lacks, and a
# font. Run on a Debian 12 machine, in the repository root; writes .qt-debs/ (gitignored).
set -euo pipefail
mkdir -p .qt-debs
cd .qt-debs
apt-get download \
  libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6sql6 libqt6sql6-sqlite libqt6test6 libqt6opengl6 \
  libqt6openglwidgets6 libqt6dbus6 qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-qpa-plugins libqt6opengl6-dev \
  qmake6 qmake6-bin libicu72 libdouble-conversion3 libb2-1 libpcre2-16-0 libmd4c0 libxkbcommon0 libharfbuzz0b \
  libgraphite2-3 libfreetype6 libfontconfig1 fontconfig-config fonts-dejavu-core libpng16-16 libts0 libmtdev1 \
  libinput10 libevdev2 libwacom9 libgudev-1.0-0 libegl1 libgl1 libglx0 libglvnd0 libopengl0 libgles2 libxcb1 \
  libx11-6 libxau6 libxdmcp6 libbsd0 libmd0 mesa-common-dev libgl-dev libglx-dev libopengl-dev libegl-dev \
  libgles-dev libglvnd-dev libdrm-dev libxkbcommon-dev libvulkan-dev libvulkan1 libglib2.0-0 libdbus-1-3 \
  libbrotli1 libexpat1
du -sh .
