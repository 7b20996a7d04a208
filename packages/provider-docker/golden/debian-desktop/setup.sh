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

# XFCE: a panel whose xfconf channel is empty may ask "use default config / one empty panel"
# (panel 4.18 built its default without asking when we tried); a system-wide channel holding the
# panel's own default layout settles it. xfwm4's compositor is off: there is no GPU.
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
# Debian links distribution/ to /usr/share/firefox-esr/distribution: write through the link.
firefox=/usr/lib/firefox-esr
install -D -m 0644 "$staged/firefox-policies.json" "$(readlink -f "$firefox/distribution")/policies.json"
install -D -m 0644 "$staged/firefox-prefs.js" "$firefox/defaults/pref/vmhub.js"
test -s "$firefox/distribution/policies.json"

# LibreOffice: a configuration layer read after main.xcd (no tip of the day, no what's-new,
# get-involved or donation infobar, no recovery dialog), for the installed version.
# The package version is e.g. 4:7.4.7-1+deb12u8: LibreOffice compares major.minor, 7.4.
version="$(dpkg-query -W -f '${Version}' libreoffice-core | sed 's/^[0-9]*://; s/^\([0-9]*\.[0-9]*\).*/\1/')"
case "$version" in [0-9]*.[0-9]*) ;; *) echo "[vmhub] [golden] no LibreOffice version: $version" >&2; exit 1 ;; esac
sed "s/@VERSION@/$version/" "$staged/libreoffice-vmhub.xcd" > /usr/lib/libreoffice/share/registry/vmhub.xcd
rm -rf "$staged"
