#!/bin/sh
# vmhub desktop session (PID 1's child under tini): Xvfb on $DISPLAY and the desktop, both as the
# desktop user. The desktop is openbox (debian-x11), or the command in $VMHUB_DESKTOP (debian-desktop:
# its XFCE session script, set in its image env). The screen is "WIDTHxHEIGHTxDEPTH" from $VMHUB_SCREEN (set at container start).
# With $VMHUB_FBDIR (a directory the provider shares with the host, on a tmpfs), Xvfb keeps its
# screen there (-fbdir: $VMHUB_FBDIR/screen/Xvfb_screen0, an XWD file), so the host can read the
# framebuffer without entering the container (the pointer is not drawn, as in `xwd`).
set -eu
: "${VMHUB_SCREEN:=1280x800x24}"
: "${DISPLAY:=:0}"
: "${VMHUB_USER:=user}"
export DISPLAY
. /usr/local/lib/vmhub/x-display.sh
home="$(getent passwd "$VMHUB_USER" | cut -d: -f6)"

as_user() { setpriv --reuid="$VMHUB_USER" --regid="$VMHUB_USER" --init-groups env HOME="$home" USER="$VMHUB_USER" "$@"; }

rm -f "/tmp/.X$num-lock" "/tmp/.X11-unix/X$num"
mkdir -p /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix

sshd=
stop() { kill -TERM $wm $xvfb $sshd 2>/dev/null || true; wait 2>/dev/null || true; exit 0; }
trap stop TERM INT

# sshd, in a golden that has it, for a lease the provider gave a key: the public half
# ($VMHUB_SSH_AUTHORIZED_KEY) becomes the lease user's ($VMHUB_SSH_USER) only authorized key,
# written as that user (0700 ~/.ssh, 0600 file). The host key is made here, at the container's
# first start, never in the image. sshd listens where the golden configured it (127.0.0.1:22).
if [ -n "${VMHUB_SSH_AUTHORIZED_KEY:-}" ] && [ -x /usr/sbin/sshd ]; then
  ssh_user="${VMHUB_SSH_USER:-$VMHUB_USER}"
  ssh_home="$(getent passwd "$ssh_user" | cut -d: -f6)"
  setpriv --reuid="$ssh_user" --regid="$ssh_user" --init-groups env HOME="$ssh_home" sh -c \
    'umask 077 && mkdir -p "$HOME/.ssh" && chmod 0700 "$HOME/.ssh" && printf "%s\n" "$VMHUB_SSH_AUTHORIZED_KEY" > "$HOME/.ssh/authorized_keys" && chmod 0600 "$HOME/.ssh/authorized_keys"'
  [ -s /etc/ssh/ssh_host_ed25519_key ] || ssh-keygen -q -t ed25519 -N '' -C '' -f /etc/ssh/ssh_host_ed25519_key
  mkdir -p /run/sshd && chmod 0755 /run/sshd
  /usr/sbin/sshd -D -e -o AllowUsers="$ssh_user" &
  sshd=$!
fi

set --
if [ -n "${VMHUB_FBDIR:-}" ] && [ -d "$VMHUB_FBDIR" ]; then
  if mkdir -p "$VMHUB_FBDIR/screen" && chown "$VMHUB_USER" "$VMHUB_FBDIR/screen" && chmod 0755 "$VMHUB_FBDIR/screen"; then
    # -nocursor: Xvfb draws the pointer into its framebuffer, where `xwd` (GetImage) never shows
    # it; without it the two capture paths would disagree, and the pointer would cover text.
    set -- -fbdir "$VMHUB_FBDIR/screen" -nocursor
  else
    echo "[vmhub] [session] $VMHUB_FBDIR is not usable: Xvfb keeps its screen in memory" >&2
  fi
fi
as_user Xvfb "$DISPLAY" -screen 0 "$VMHUB_SCREEN" -nolisten tcp -ac -noreset "$@" &
xvfb=$!
x_wait
cd "$home"
as_user "${VMHUB_DESKTOP:-openbox}" &
wm=$!
wait $xvfb
