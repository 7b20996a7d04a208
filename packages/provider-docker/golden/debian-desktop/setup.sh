#!/bin/sh
# debian-desktop's own setup (run as root in the root filesystem after packages, user and files):
# sshd as debian-x11 has it (lib/sshd-setup.sh), then every first-run question answered before a
# lease asks it, and the session's runtime directory.
set -eu
# The manifest's files for this script are staged in /opt/vmhub-setup (not under /tmp: staging
# copies folder modes too, and /tmp must stay 1777), removed at the end.
staged=/opt/vmhub-setup
sh "$staged/sshd-setup.sh"

# The user's runtime directory, where the session bus listens (image env XDG_RUNTIME_DIR and
# DBUS_SESSION_BUS_ADDRESS): made here because the session runs as the user, who cannot make it
# under /run. A container's /run is the image's, not a tmpfs.
uid="$(id -u user)"
install -d -m 0700 -o user -g user "/run/user/$uid"

# XFCE: the panel asks "use default config / one empty panel" when its xfconf channel is empty; a
# system-wide channel (the panel's own default layout) answers it. xfwm4's compositor is off: no
# GPU, and every screenshot would pay for it.
channels=/etc/xdg/xfce4/xfconf/xfce-perchannel-xml
install -D -m 0644 /etc/xdg/xfce4/panel/default.xml "$channels/xfce4-panel.xml"
cat > "$channels/xfwm4.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfwm4" version="1.0">
  <property name="general" type="empty">
    <property name="use_compositing" type="bool" value="false"/>
  </property>
</channel>
XML

# Firefox ESR: enterprise policies (no default-browser question, no welcome or first-run page,
# telemetry off, homepage about:blank) and default preferences policies cannot set.
firefox=/usr/lib/firefox-esr
install -D -m 0644 "$staged/firefox-policies.json" "$(readlink -f "$firefox/distribution" || echo "$firefox/distribution")/policies.json"
install -D -m 0644 "$staged/firefox-prefs.js" "$(readlink -f "$firefox/defaults/pref")/vmhub.js"

# LibreOffice: a configuration layer read after main.xcd (no tip of the day, no what's-new,
# get-involved or donation infobar, no recovery dialog), for the installed version.
version="$(dpkg-query -W -f '${Version}' libreoffice-core | sed 's/^[0-9]*://; s/^\([0-9]*\.[0-9]*\).*/\1/')"
sed "s/@VERSION@/$version/" "$staged/libreoffice-vmhub.xcd" > /usr/lib/libreoffice/share/registry/vmhub.xcd
rm -rf "$staged"
