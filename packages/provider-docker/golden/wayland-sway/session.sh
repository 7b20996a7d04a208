#!/bin/sh
# vmhub Wayland session (PID 1's child under tini): sway 1.7 headless, as the desktop user.
#   VMHUB_SCREEN        "WIDTHxHEIGHT[xDEPTH]" in physical pixels (set at container start); default 1280x800
#   VMHUB_OUTPUT_SCALE  output scale (e.g. 2: the logical layout is half the pixels); default 1
# sway renders with pixman into one headless output, HEADLESS-1, so no GPU, DRM or input device
# is needed. Its sockets are sway's defaults, which the adapter discovers:
# $XDG_RUNTIME_DIR/wayland-1 and $XDG_RUNTIME_DIR/sway-ipc.<uid>.<pid>.sock (also linked as
# $XDG_RUNTIME_DIR/sway-ipc.sock, the image's SWAYSOCK, for commands an agent runs by hand).
# Executables in /etc/vmhub/session.d/ start afterwards as the user, with the session's env (the
# hyprland-standin golden starts its IPC stand-in there).
set -eu
: "${VMHUB_SCREEN:=1280x800x24}"
: "${VMHUB_OUTPUT_SCALE:=1}"
: "${VMHUB_USER:=user}"
uid="$(id -u "$VMHUB_USER")"
home="$(getent passwd "$VMHUB_USER" | cut -d: -f6)"
run="/run/user/$uid"
size="$(echo "$VMHUB_SCREEN" | cut -dx -f1-2)"
case "$size" in *[!0-9x]* | x* | *x) echo "[vmhub] [session] VMHUB_SCREEN \"$VMHUB_SCREEN\" is not WIDTHxHEIGHT[xDEPTH]" >&2; exit 1 ;; esac
case "$VMHUB_OUTPUT_SCALE" in '' | *[!0-9.]*) echo "[vmhub] [session] VMHUB_OUTPUT_SCALE \"$VMHUB_OUTPUT_SCALE\" is not a number" >&2; exit 1 ;; esac

# sway refuses root and needs XDG_RUNTIME_DIR private to the user (wayland clients check 0700).
rm -rf "$run"
mkdir -p "$run"
chown "$VMHUB_USER:$VMHUB_USER" "$run"
chmod 0700 "$run"

conf="$run/sway.conf"
cat > "$conf" <<EOF
# Written by vmhub-session at start.
output HEADLESS-1 mode $size scale $VMHUB_OUTPUT_SCALE position 0 0
# no wallpaper process, no bar, no Xwayland: the layout is exactly the output
swaybg_command -
xwayland disable
default_border pixel 2
# a click, not a pointer passing over, decides focus (the tests check what a click does)
focus_follows_mouse no
EOF
chown "$VMHUB_USER:$VMHUB_USER" "$conf"

# Not a shell function: a backgrounded function is a subshell, and $! would not be sway's pid.
set -- setpriv --reuid="$VMHUB_USER" --regid="$VMHUB_USER" --init-groups \
  env -u WAYLAND_DISPLAY -u SWAYSOCK HOME="$home" USER="$VMHUB_USER" LOGNAME="$VMHUB_USER" XDG_RUNTIME_DIR="$run"

hooks=""
stop() { kill -TERM $hooks $sway 2>/dev/null || true; wait 2>/dev/null || true; exit 0; }
trap stop TERM INT

cd "$home"
"$@" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 WLR_HEADLESS_OUTPUTS=1 \
  sway -c "$conf" &
sway=$!

# Wait for both sockets (sway creates the IPC one before the Wayland one).
i=0
while [ ! -S "$run/sway-ipc.$uid.$sway.sock" ] || [ ! -S "$run/wayland-1" ]; do
  i=$((i + 1))
  if [ $i -gt 400 ] || ! kill -0 $sway 2>/dev/null; then echo "[vmhub] [session] sway did not start (pid $sway)" >&2; exit 1; fi
  sleep 0.05
done
# setpriv keeps the pid (it execs), so the socket carries $sway.
ln -sf "sway-ipc.$uid.$sway.sock" "$run/sway-ipc.sock"

for hook in /etc/vmhub/session.d/*; do
  [ -x "$hook" ] || continue
  "$@" WAYLAND_DISPLAY=wayland-1 SWAYSOCK="$run/sway-ipc.$uid.$sway.sock" "$hook" &
  hooks="$hooks $!"
done
wait $sway
