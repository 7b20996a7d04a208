"""getprop / setprop, after system/core/toolbox/getprop.cpp: no argument lists every property as
`[key]: [value]` sorted by key; `getprop KEY [DEFAULT]` prints the value (or DEFAULT, or an empty
line). setprop KEY VALUE stores a runtime property (ro.* cannot be set twice, as on Android)."""
import sys

import android


def getprop(args):
    p = android.props()
    if not args:
        sys.stdout.write(''.join(f'[{k}]: [{p[k]}]\n' for k in sorted(p)))
        return 0
    sys.stdout.write(p.get(args[0], args[1] if len(args) > 1 else '') + '\n')
    return 0


def setprop(args):
    if len(args) != 2:
        sys.stderr.write('usage: setprop NAME VALUE\n\nSets an Android system property.\n')
        return 1
    key, value = args
    if key.startswith('ro.') and key in android.props():
        sys.stderr.write(f'Failed to set property \'{key}\' to \'{value}\'.\nSee dmesg for error reason.\n')
        return 1
    android.setprop(key, value)
    return 0
