#!/usr/bin/python3 -IB
"""Android command-line tools of the stand-in, one entry: /system/bin/<tool> links here and the
link's name picks the tool (as toybox does). Each tool answers in Android's own output format;
the module of each tool cites the AOSP source it follows."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

TOOLS = {
    'input': ('input_cmd', 'main'),
    'screencap': ('screen_cmd', 'screencap'),
    'wm': ('screen_cmd', 'wm'),
    'getprop': ('props_cmd', 'getprop'),
    'setprop': ('props_cmd', 'setprop'),
    'am': ('am_cmd', 'am'),
    'monkey': ('am_cmd', 'monkey'),
    'cmd': ('am_cmd', 'cmd'),
    'pm': ('pm_cmd', 'main'),
    'dumpsys': ('dumpsys_cmd', 'main'),
    'uiautomator': ('uiautomator_cmd', 'main'),
    'pidof': ('pidof_cmd', 'main'),
}


def run(name, args):
    if name not in TOOLS:
        sys.stderr.write(f'{name}: not a stand-in tool; known: {", ".join(sorted(TOOLS))}\n')
        return 127
    module, fn = TOOLS[name]
    return getattr(__import__(module), fn)(args) or 0


if __name__ == '__main__':
    name = os.path.basename(sys.argv[0])
    args = sys.argv[1:]
    if name in ('tool.py', 'tool'):
        name, args = (args[0], args[1:]) if args else ('', [])
    try:
        sys.exit(run(name, args))
    except BrokenPipeError:
        sys.exit(141)
