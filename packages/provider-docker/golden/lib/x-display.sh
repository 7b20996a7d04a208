# Sourced by golden sessions (installed as /usr/local/lib/vmhub/x-display.sh by the manifests that
# name it): the number of $DISPLAY (":0.0" → 0) in $num, and x_wait, which returns once the X
# server (Xvfb, started just before) listens on its socket, or ends the session after 10 s.
num="${DISPLAY#:}"; num="${num%%.*}"
x_wait() {
  i=0
  while [ ! -S "/tmp/.X11-unix/X$num" ]; do
    i=$((i + 1)); [ $i -gt 200 ] && { echo "[vmhub] Xvfb did not start" >&2; exit 1; }
    sleep 0.05
  done
}
