#!/bin/sh
# Runs INSIDE the target root filesystem (a debootstrap chroot or a Dockerfile RUN): installs the
# manifest's packages and configures locales, the desktop user and the session. Both build paths
# run this same script, so the two images differ only in their base layer.
# Arguments come from the manifest (written by the builder to /tmp/vmhub-setup.env).
set -eu
. /tmp/vmhub-setup.env

export DEBIAN_FRONTEND=noninteractive LC_ALL=C

# Keep the image lean: no docs, man pages or translations from the packages installed below.
cat > /etc/dpkg/dpkg.cfg.d/vmhub-lean <<'CFG'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
path-exclude=/usr/share/lintian/*
CFG
cat > /etc/apt/apt.conf.d/90vmhub <<'CFG'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Retries "3";
CFG

# Extra suites of the same mirror (e.g. bookworm-backports, for adbd); their packages are named pkg/suite.
: > /etc/apt/sources.list.d/vmhub.list
for suite in ${VMHUB_APT_SUITES:-}; do echo "deb $VMHUB_MIRROR $suite main" >> /etc/apt/sources.list.d/vmhub.list; done

apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $VMHUB_PACKAGES >/dev/null

# Prune hard dependencies a headless desktop never loads (the manifest says why).
if [ -n "${VMHUB_PRUNE_PACKAGES:-}" ]; then
  # shellcheck disable=SC2086
  dpkg --purge --force-depends $VMHUB_PRUNE_PACKAGES >/dev/null 2>&1 || true
fi
# shellcheck disable=SC2086
[ -z "${VMHUB_PRUNE_FILES:-}" ] || rm -f $VMHUB_PRUNE_FILES

# Locales: generate exactly what the manifest lists (C.UTF-8 is built into libc).
: > /etc/locale.gen
for l in $VMHUB_LOCALES; do
  case "$l" in C.UTF-8) ;; *) echo "$l ${l#*.}" >> /etc/locale.gen ;; esac
done
locale-gen >/dev/null
echo "LANG=$VMHUB_LANG" > /etc/default/locale

# The desktop user: non-root, passwordless sudo.
if ! id -u "$VMHUB_USER" >/dev/null 2>&1; then
  useradd --create-home --uid "$VMHUB_UID" --user-group --shell /bin/bash "$VMHUB_USER"
fi
if [ "$VMHUB_SUDO" = "true" ]; then
  echo "$VMHUB_USER ALL=(ALL) NOPASSWD:ALL" > "/etc/sudoers.d/90-$VMHUB_USER"
  chmod 0440 "/etc/sudoers.d/90-$VMHUB_USER"
fi
mkdir -p "/home/$VMHUB_USER/.config/openbox"
chown -R "$VMHUB_USER:$VMHUB_USER" "/home/$VMHUB_USER"

install -m 0755 /tmp/vmhub-session.sh /usr/local/sbin/vmhub-session

# The golden's own files (manifest "files", staged under /tmp/vmhub-files with their modes), then its own setup.
if [ -d /tmp/vmhub-files ]; then cp -a /tmp/vmhub-files/. / && rm -rf /tmp/vmhub-files; fi
if [ -f /tmp/vmhub-golden-setup.sh ]; then sh /tmp/vmhub-golden-setup.sh; rm -f /tmp/vmhub-golden-setup.sh; fi

# Verify what the adapters rely on before the image is tagged (manifest "verify").
for tool in $VMHUB_VERIFY_TOOLS; do
  command -v "$tool" >/dev/null || { echo "[vmhub] [golden] $tool missing after install" >&2; exit 1; }
done
# The docker provider's exec helper and guest-port bridge are perl with these modules.
perl -MIO::Select -MIO::Socket::INET -MPOSIX -e 1
# Fonts must cover what agents type: 粘贴 (U+7C98 U+8D34) and Привет (U+041F U+0440).
if command -v fc-list >/dev/null; then
  [ -n "$(fc-list ':charset=7c98 8d34 41f 440')" ] || { echo "[vmhub] [golden] no font covers CJK and Cyrillic" >&2; exit 1; }
fi

# The debootstrap path bind-mounts its .deb cache over the archives: keep it for the next build.
[ "${VMHUB_KEEP_APT_CACHE:-false}" = true ] || apt-get clean
# apt's package caches (~80 MB) are rebuilt by the next apt-get update: never ship them.
rm -f /var/cache/apt/*.bin
rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/*.log /var/log/apt/* \
  /usr/share/doc/*/changelog* /usr/share/man/* /usr/share/info/* /tmp/vmhub-setup.env /tmp/vmhub-session.sh
find /usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
