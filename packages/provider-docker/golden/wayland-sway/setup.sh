#!/bin/sh
# wayland-sway's own setup (run as root in the root filesystem after packages, user and files).
set -eu
# Hooks the session starts once sway answers (empty here; hyprland-standin adds its IPC stand-in).
mkdir -p /etc/vmhub/session.d
# apt's binary package caches (80 MB) are rebuilt by the next apt-get update; nothing here needs them.
rm -f /var/cache/apt/pkgcache.bin /var/cache/apt/srcpkgcache.bin
