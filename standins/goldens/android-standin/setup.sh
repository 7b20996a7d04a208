#!/bin/sh
# Lays out the stand-in's Android side: /system/bin tools (links to one Python entry, named like
# the tools), static ro.* properties, the installed packages and the Android data directories.
# Run as root in the image (the golden's setup step) and, with VMHUB_STANDIN_ROOT pointing at a
# private root, by tests that make a device out of a plain adbd on the host.
set -eu
root="${VMHUB_STANDIN_ROOT:-/}"
lib="${VMHUB_STANDIN_LIB:-/system/lib/vmhub-standin}"
r() { printf '%s/%s' "${root%/}" "$1"; }

mkdir -p "$(r system/bin)" "$(r system/etc/vmhub-standin/packages)" "$(r data/local/tmp)" "$(r data/property)" \
  "$(r data/system/vmhub-packages)" "$(r data/system/vmhub-am)" "$(r data/data)" "$(r data/app)" \
  "$(r data/vmhub-standin/faults)" "$(r data/media/0)"
chmod 1777 "$(r data/local/tmp)"
[ -e "$(r sdcard)" ] || ln -s /data/media/0 "$(r sdcard)"
for t in input screencap wm getprop setprop am monkey cmd pm dumpsys uiautomator pidof; do
  ln -sf "$lib/tool.py" "$(r system/bin/$t)"
done
# The shell every device has at /system/bin/sh (mksh there; Debian's sh here). A device has no
# /bin/sh: the android adapter runs vm_exec {shell} as /system/bin/sh -c.
ln -sf /bin/sh "$(r system/bin/sh)"

# Static properties: what a Pixel-class Android 14 (API 34) x86_64 build reports for the keys
# tools and adapters read. ro.serialno is per device, written at boot by the session.
cat > "$(r system/etc/vmhub-standin/build.prop)" <<'PROPS'
ro.build.version.release=14
ro.build.version.sdk=34
ro.build.version.codename=REL
ro.build.id=UQ1A.240205.004
ro.build.type=userdebug
ro.build.tags=test-keys
ro.build.characteristics=default
ro.product.brand=vmhub
ro.product.manufacturer=vmhub
ro.product.model=vmhub Android stand-in
ro.product.name=vmhub_standin_x86_64
ro.product.device=standin_x86_64
ro.product.cpu.abi=x86_64
ro.product.cpu.abilist=x86_64
ro.kernel.qemu=0
ro.debuggable=1
ro.secure=0
ro.sf.lcd_density=420
ro.vmhub.standin=1
persist.sys.locale=en-US
PROPS

pkg() { # name activity label dir
  printf '{"package": "%s", "activity": "%s", "label": "%s"}\n' "$1" "$2" "$3" > "$4/$1.json"
}
pkg com.android.launcher3 .uioverrides.QuickstepLauncher "Home" "$(r system/etc/vmhub-standin/packages)"
# The stand-in app is a user app (listed by pm list packages -3), like an app under test.
pkg com.vmhub.standin .MainActivity "vmhub stand-in" "$(r data/system/vmhub-packages)"
# Clipper (github.com/majido/clipper): the clipboard receiver the android adapter types Unicode
# through; its broadcasts are answered by am only while this package is installed.
pkg ca.zgrs.clipper .Main "Clipper" "$(r data/system/vmhub-packages)"
