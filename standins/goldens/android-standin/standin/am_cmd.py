"""am, monkey and cmd: the activity manager of the stand-in.

am after frameworks/base/services/core/java/com/android/server/am/ActivityManagerShellCommand.java:
  am start [-W] [-S] [-a ACTION] [-c CATEGORY] -n PKG/CLASS   "Starting: Intent { cmp=PKG/CLASS }";
      -W adds "Status: ok / LaunchState: COLD|HOT / Activity: … / TotalTime / WaitTime / Complete";
      an unknown component: "Error type 3" and "Error: Activity class {PKG/CLASS} does not exist."
      on stderr (am still exits 0 there, as Android does: read the text).
  am force-stop PKG   kills the package's process; silent, exit 0, also for unknown packages.
  am broadcast -a ACTION [-e|--es KEY VALUE]...   "Broadcasting: Intent { act=… flg=0x400000 (has
      extras) }" then "Broadcast completed: result=N[, data=\"…\"]". Receivers the stand-in has:
      clipper.set / clipper.get (the Clipper app's contract, while package ca.zgrs.clipper is
      installed: extra "text"; sets / reads the X CLIPBOARD that the app pastes from), ADB_INPUT_TEXT / ADB_INPUT_B64 (ADBKeyBoard's: extra
      "msg", typed into the focused field through the clipboard and a paste).
monkey after development/cmds/monkey/.../Monkey.java: `monkey -p PKG [-c CATEGORY] N` starts the
  package's launcher activity, prints the "args:" echo and "Events injected: N"; a package with no
  activity: "** No activities found to run, monkey aborted." and exit 252 (run() returns -4).
cmd SERVICE …: `cmd package` = pm, `cmd activity` = am, `cmd window` = wm, `cmd input` = input.
"""
import base64
import os
import subprocess
import sys
import time

import android


def resolve(component):
    """'pkg/.Main' or 'pkg/pkg.Main' → (pkg, class) when installed with that activity, else None."""
    if '/' not in component:
        return None
    pkg, cls = component.split('/', 1)
    p = android.packages().get(pkg)
    if not p:
        return None
    want = android.full_activity(pkg, cls)
    return (pkg, want) if want == android.full_activity(pkg, p['activity']) else None


def start(args):
    wait = stop_first = False
    component = action = category = pkg_arg = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == '-W':
            wait = True
        elif a == '-S':
            stop_first = True
        elif a == '-n':
            component, i = args[i + 1], i + 1
        elif a == '-a':
            action, i = args[i + 1], i + 1
        elif a == '-c':
            category, i = args[i + 1], i + 1
        elif a in ('--user', '--display', '-f', '-d', '-t', '--esn', '--windowingMode', '--activityType'):
            i += 1
        elif a in ('-e', '--es', '--ei', '--ez', '--el', '--ef', '--eu', '--ecn', '--eia', '--esa'):
            i += 2  # intent extras: the stand-in's activities take none
        elif not a.startswith('-'):
            pkg_arg = a
        i += 1
    if component is None and pkg_arg:
        p = android.packages().get(pkg_arg)
        component = f"{pkg_arg}/{p['activity']}" if p else pkg_arg
    if component is None:
        sys.stderr.write('Error: Intent does not match any activities: Intent { '
                         + (f'act={action} ' if action else '') + (f'cat=[{category}] ' if category else '') + '}\n')
        return 255
    print(f'Starting: Intent {{ cmp={component} }}')
    sys.stdout.flush()
    found = resolve(component)
    if not found:
        pkg, _, cls = component.partition('/')
        sys.stderr.write(f'Error type 3\nError: Activity class {{{pkg}/{android.full_activity(pkg, cls)}}} does not exist.\n')
        return 0
    pkg, cls = found
    if stop_first:
        android.force_stop(pkg)
    t0 = time.monotonic()
    state = android.bring_to_front(pkg)
    ms = int((time.monotonic() - t0) * 1000)
    if wait:
        print(f'Status: ok\nLaunchState: {state}\nActivity: {android.short_component(pkg, cls)}\n'
              f'TotalTime: {ms}\nWaitTime: {ms + 2}\nComplete')
    return 0


def x_clipboard(text=None):
    """Set (text given) or read the X CLIPBOARD. xclip keeps serving the selection in the background."""
    if text is None:
        r = subprocess.run(['xclip', '-selection', 'clipboard', '-o'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return r.stdout.decode('utf-8', 'replace') if r.returncode == 0 else ''
    subprocess.run(['xclip', '-selection', 'clipboard', '-i'], input=text.encode('utf-8'), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return text


def paste(text):
    x_clipboard(text)
    subprocess.run(['xdotool', 'key', '--clearmodifiers', 'ctrl+v'], check=True)


def broadcast(args):
    action, extras, i = None, {}, 0
    while i < len(args):
        a = args[i]
        if a == '-a':
            action, i = args[i + 1], i + 1
        elif a in ('-e', '--es', '--ei', '--ez', '--el', '--ef', '--eu'):
            if i + 2 >= len(args):
                sys.stderr.write(f'Error: No value specified for extra {a}\n')
                return 255
            extras[args[i + 1]] = args[i + 2]
            i += 2
        elif a in ('--user', '-n', '-p', '-f', '--receiver-permission'):
            i += 1
        i += 1
    flg = ' flg=0x400000' + (' (has extras)' if extras else '')
    print(f'Broadcasting: Intent {{ act={action}{flg} }}')
    result, data = 0, None
    clipper = 'ca.zgrs.clipper' in android.packages()
    if not clipper and action in ('clipper.set', 'clipper.get'):
        pass  # no receiver: the broadcast reaches nobody, result=0 as on Android
    elif action == 'clipper.set' and 'text' in extras:
        x_clipboard(extras['text'])
        result, data = -1, 'Text is copied into clipboard.'
    elif action == 'clipper.get':
        result, data = -1, x_clipboard()
    elif action == 'ADB_INPUT_TEXT' and 'msg' in extras:
        paste(extras['msg'])
    elif action == 'ADB_INPUT_B64' and 'msg' in extras:
        paste(base64.b64decode(extras['msg']).decode('utf-8'))
    print(f'Broadcast completed: result={result}' + (f', data="{data}"' if data is not None else ''))
    return 0


def am(args):
    if not args:
        sys.stdout.write('Activity manager (activity) commands:\n  help\n  start [-W] [-S] -n <COMPONENT>\n'
                         '  force-stop <PACKAGE>\n  broadcast -a <ACTION> [-e <KEY> <VALUE>]...\n')
        return 0
    cmd, rest = args[0], args[1:]
    if cmd in ('start', 'start-activity'):
        return start(rest)
    if cmd == 'force-stop':
        pkgs = [a for a in rest if not a.startswith('-')]
        if rest[:1] == ['--user']:
            pkgs = pkgs[1:]
        for p in pkgs:
            android.force_stop(p)
        return 0
    if cmd == 'broadcast':
        return broadcast(rest)
    if cmd == 'stack' or cmd == 'task':
        return 0
    sys.stderr.write(f'Unknown command: {cmd}\n')
    return 255


def monkey(args):
    # The monkey shell script echoes its arguments before the Java side parses them.
    for a in args:
        print(f'  bash arg: {a}')
    print('args: [' + ', '.join(args) + ']')
    for a in args:
        print(f' arg: "{a}"')
    pkg = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == '-p'), None)
    count = int(args[-1]) if args and args[-1].isdigit() else 0
    p = android.packages().get(pkg) if pkg else None
    if not p or not p.get('activity'):
        sys.stderr.write('** No activities found to run, monkey aborted.\n')
        return 252
    print(f'data="{pkg}"')
    t0 = time.monotonic()
    if count > 0:
        android.bring_to_front(pkg)
    ms = int((time.monotonic() - t0) * 1000)
    print(f'Events injected: {count}')
    print(f'## Network stats: elapsed time={ms}ms (0ms mobile, 0ms wifi, {ms}ms not connected)')
    return 0


def cmd(args):
    services = {'package': ('pm_cmd', 'main'), 'activity': ('am_cmd', 'am'), 'window': ('screen_cmd', 'wm'),
                'input': ('input_cmd', 'main')}
    if not args or args[0] == '-l':
        print('Currently running services:\n' + '\n'.join(f'  {s}' for s in sorted(services)))
        return 0
    if args[0] not in services:
        sys.stderr.write(f"Can't find service: {args[0]}\n")
        return 20
    module, fn = services[args[0]]
    return getattr(__import__(module), fn)(args[1:]) or 0
