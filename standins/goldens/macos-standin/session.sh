#!/bin/sh
# macos-standin session (PID 1's child under tini, as root): Xvfb + openbox as the desktop user,
# x11vnc on 127.0.0.1:5901 over that display, the ARD stand-in on 0.0.0.0:5900 relaying to it
# (RFB 003.889, type 30, user vmhub, password $VMHUB_VNC_PASSWORD: the lease's), and sshd in the foreground's company.
# Keys in $VMHUB_SSH_AUTHORIZED_KEYS (container env, one per line) are authorized at start.
set -eu
: "${VMHUB_SCREEN:=1280x800x24}"
: "${DISPLAY:=:0}"
u=user
home=/home/$u
export DISPLAY
. /usr/local/lib/vmhub/x-display.sh
as_user() { setpriv --reuid="$u" --regid="$u" --init-groups env HOME="$home" USER="$u" "$@"; }

# The lease's own credentials, made by the provider at create (template lease_secrets): nothing
# of the kind is baked into the image.
if [ -n "${VMHUB_SSH_PASSWORD:-}" ]; then printf 'user:%s\n' "$VMHUB_SSH_PASSWORD" | chpasswd; fi
if [ -n "${VMHUB_SSH_AUTHORIZED_KEYS:-}" ]; then
  printf '%s\n' "$VMHUB_SSH_AUTHORIZED_KEYS" >> "$home/.ssh/authorized_keys"
fi
mkdir -p /run/sshd
rm -f "/tmp/.X$num-lock" "/tmp/.X11-unix/X$num"
mkdir -p /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix

pids=""
stop() { kill -TERM $pids 2>/dev/null || true; wait 2>/dev/null || true; exit 0; }
trap stop TERM INT

/usr/sbin/sshd -D -e &
pids="$pids $!"
as_user Xvfb "$DISPLAY" -screen 0 "$VMHUB_SCREEN" -nolisten tcp -ac -noreset &
xvfb=$!
pids="$pids $xvfb"
x_wait
cd "$home"
as_user openbox &
pids="$pids $!"
as_user x11vnc -display "$DISPLAY" -rfbport 5901 -localhost -nopw -forever -shared -noncache -quiet -norc -nolookup &
pids="$pids $!"
as_user node /opt/vmhub/ard-standin.mjs --listen 0.0.0.0:5900 --upstream 127.0.0.1:5901 --username vmhub --password "${VMHUB_VNC_PASSWORD:-standin}" &
pids="$pids $!"
wait $xvfb
