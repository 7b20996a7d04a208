#!/bin/sh
# The Android stand-in's session (PID 1's child under tini, as root): Xvfb as the display (its
# framebuffer also mapped as an XWD file for screencap), the home screen and the stand-in app,
# then the real adbd on TCP $ADBD_PORT with /system/bin first on its PATH. The device says it has
# booted (sys.boot_completed=1) once the app answers, as Android does once the launcher is up.
set -eu
: "${VMHUB_SCREEN:=1080x2400x24}"
: "${DISPLAY:=:0}"
: "${ADBD_PORT:=5555}"
: "${VMHUB_FBDIR:=/run/vmhub-fb}"
export DISPLAY ADBD_PORT VMHUB_FBDIR
export PATH="/system/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
. /usr/local/lib/vmhub/x-display.sh

rm -f "/tmp/.X$num-lock" "/tmp/.X11-unix/X$num" /data/system/vmhub-am/*.pid /data/data/*/ui.sock
mkdir -p /tmp/.X11-unix "$VMHUB_FBDIR" && chmod 1777 /tmp/.X11-unix
setprop sys.boot_completed 0
# A serial per device, kept across restarts of the container (like ro.serialno from the bootloader).
[ -n "$(getprop ro.serialno)" ] || setprop ro.serialno "standin-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"

stop() { kill -TERM $adbd $xvfb 2>/dev/null || true; wait 2>/dev/null || true; exit 0; }
trap stop TERM INT

# -nocursor: Android screenshots show no pointer.
Xvfb "$DISPLAY" -screen 0 "$VMHUB_SCREEN" -fbdir "$VMHUB_FBDIR" -nocursor -nolisten tcp -ac -noreset &
xvfb=$!
x_wait

cd /
# Home first (the bottom of the task stack), then the app a fresh device was left on.
am start -n com.android.launcher3/.uioverrides.QuickstepLauncher >/dev/null
am start -n com.vmhub.standin/.MainActivity >/dev/null
setprop sys.boot_completed 1

# adbd reads ADBD_PORT; with no auth socket it disables prompts and asks for no key.
HOME=/data/local/tmp adbd &
adbd=$!
wait $xvfb
