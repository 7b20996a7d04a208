#!/usr/bin/env bash
# Prepare a fresh Debian 12 machine (or a developer checkout) for vmhub's tests and demo:
# Debian packages, Node >= 22 + pnpm, dependencies, build, the Docker engine, golden images.
# Idempotent: each step is skipped when already done. Source of truth for what CI installs.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  # Docker provider: Debian's engine (no Docker Hub here: goldens are built with debootstrap)
  docker.io tini debootstrap
  # X11 adapter tests on the host and in the golden
  xvfb xdotool x11-utils x11-apps openbox xterm wmctrl xclip
  # the Android stand-in app (Tk) the device-pool tests run; zsh for the macOS quoting test (macOS's shell)
  python3-tk zsh
  # adapter-x11's accessibility (AT-SPI) tests against a GTK app on the host
  at-spi2-core python3-pyatspi python3-gi gir1.2-gtk-3.0 libatk-adaptor dbus
  # QEMU provider and console adapter: TCG, a Debian kernel and a busybox initramfs (with sshd:
  # openssh-server, below); genisoimage writes the per-lease cloud-init NoCloud seed (and isoinfo reads it back)
  qemu-system-x86 qemu-utils qemu-guest-agent busybox-static linux-image-amd64 cpio imagemagick genisoimage
  # OCR for the text tools (vm_find_text, vm_wait {for: text}, marks); the VGA console font for the OCR benchmark's corpus
  tesseract-ocr tesseract-ocr-eng console-setup-linux
  # SSH channel tests (a real sshd on loopback), clone tests, TLS for the Proxmox simulator
  openssh-server git ca-certificates openssl
  # Wayland adapter tests on the host: a real headless sway and its tools
  sway grim wtype wl-clipboard foot
  # RFB client and macOS adapter tests: real VNC servers over a live X desktop
  x11vnc tigervnc-standalone-server tigervnc-tools x11-xserver-utils
  # the Windows-MCP stand-in checks its Snapshot text against Python's tabulate
  python3-tabulate
  # the live view's browser tests: Debian's Chromium, driven by playwright-core (no browser download)
  chromium
  # the PostgreSQL store's tests: a real server (initdb in a temp dir, a loopback port), psql, iproute2 for the netns "hosts"
  postgresql postgresql-client iproute2
)
# From bookworm-backports: the real adbd (34.x) and a matching adb server, for the Android tests.
BACKPORTS_PACKAGES=(adbd adb)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${APT_PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
missing_bp=()
for p in "${BACKPORTS_PACKAGES[@]}"; do installed "$p" || missing_bp+=("$p"); done
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_bp[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then echo "[vmhub] missing Debian packages: ${missing[*]} ${missing_bp[*]} (run as root or install them)" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  if [ ${#missing_bp[@]} -gt 0 ] && ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "deb ${VMHUB_DEBIAN_MIRROR:-http://deb.debian.org/debian} bookworm-backports main" > /etc/apt/sources.list.d/vmhub-backports.list
  fi
  apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    echo "[vmhub] installing Debian packages: ${missing[*]}" >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if [ ${#missing_bp[@]} -gt 0 ]; then
    echo "[vmhub] installing from bookworm-backports: ${missing_bp[*]}" >&2
    apt-get install -y -qq --no-install-recommends -t bookworm-backports "${missing_bp[@]}" >/dev/null
  fi
fi

# shellcheck source=scripts/env.sh
source scripts/env.sh
echo "[vmhub] node $(node --version), pnpm $(pnpm --version)" >&2

if [ ! -d node_modules/.pnpm ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile --reporter=append-only >&2
fi
pnpm run build >&2
# npm's cache gets every third-party dependency of the packed packages, so the installed-package
# test installs the tarballs the way a user does (npm install) without itself touching the registry.
bash scripts/warm-npm-cache.sh

bash scripts/start-docker.sh

# Golden images, each rebuilt only when its manifest changes (VMHUB_GOLDENS picks a subset). The
# *-standin ones come from standins/goldens (@vmhub/standin-goldens, private: a checkout only).
for golden in ${VMHUB_GOLDENS:-debian-x11 debian-desktop tiny-console tiny-console-agent wayland-sway hyprland-standin android-standin windows-standin macos-standin}; do
  node apps/server/dist/bin.js golden build "$golden" >&2
done
