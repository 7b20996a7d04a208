#!/bin/sh
# debian-desktop's desktop command (lib/session.sh runs it as the desktop user once Xvfb listens,
# named by the image env VMHUB_DESKTOP): the user's D-Bus session bus at the image env's fixed
# address ($DBUS_SESSION_BUS_ADDRESS, in $XDG_RUNTIME_DIR, made by setup.sh), so every `vm_exec`
# and the apps it starts share the session's bus; then XFCE's session manager, which starts
# xfwm4, the panel, xfdesktop and the autostart entries (at-spi-bus-launcher, which publishes the
# accessibility bus on the root window's AT_SPI_BUS property, where python3-pyatspi finds it).
set -eu
rm -f "$XDG_RUNTIME_DIR/bus"
dbus-daemon --session --address="$DBUS_SESSION_BUS_ADDRESS" --fork --nopidfile
exec xfce4-session
