"""pidof: toybox's pidof finds Android apps by their process name, which is the package name.
The stand-in's apps are Python processes, so package names are looked up in the activity
stack first; anything else goes to the system's pidof."""
import os
import sys

import android


def main(args):
    names = [a for a in args if not a.startswith('-')]
    found, rest = [], []
    for n in names:
        pid = android.pid_of(n)
        (found.append(str(pid)) if pid else rest.append(n))
    if rest:
        for real in ('/usr/bin/pidof', '/bin/pidof', '/sbin/pidof', '/usr/sbin/pidof'):
            if os.path.exists(real):
                import subprocess
                r = subprocess.run([real, *rest], stdout=subprocess.PIPE)
                found += r.stdout.decode().split()
                break
    if not found:
        return 1
    print(' '.join(found))
    return 0
