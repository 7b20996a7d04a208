#!/bin/sh
# Started by vmhub-session (wayland-sway's session.sh) as the desktop user once sway answers, with
# XDG_RUNTIME_DIR, WAYLAND_DISPLAY and SWAYSOCK set: the Hyprland IPC stand-in, playing the
# Hyprland version VMHUB_HYPRLAND_VERSION (0.41.2: hyprlang dispatchers; 0.55.4: Lua dispatchers).
exec /usr/local/bin/hyprland-ipc-standin --version "${VMHUB_HYPRLAND_VERSION:-0.41.2}" --signature "${VMHUB_HYPRLAND_SIGNATURE:-vmhub-standin}"
