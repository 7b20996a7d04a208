"""Shared state of the Android stand-in: where props, packages and the activity stack live.

Every path sits under $VMHUB_STANDIN_ROOT (default "/"), so the same tools run in the golden
image (root "/") and in tests that spawn adbd on a host with a private root.

Layout (mirrors the Android paths the tools stand in for):
  system/etc/vmhub-standin/build.prop      static ro.* properties (key=value)
  system/etc/vmhub-standin/packages/*.json system packages (the launcher, settings)
  data/property/vmhub.prop                 runtime properties (setprop, sys.boot_completed)
  data/system/vmhub-packages/*.json        third-party packages (pm install)
  data/system/vmhub-am/stack               task stack, top first, one package per line
  data/system/vmhub-am/<pkg>.pid           the process of a running package
  data/data/<pkg>/ui.sock                  the app's UI socket (tree, state, show, hide)
  data/vmhub-standin/faults/               fault injection (see uiautomator.py)
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

ROOT = os.environ.get('VMHUB_STANDIN_ROOT', '/')
LIB = os.path.dirname(os.path.realpath(__file__))


def path(*parts):
    return os.path.join(ROOT, *[p.lstrip('/') for p in parts])


def die(message, code=1):
    sys.stderr.write(message + '\n')
    sys.exit(code)


# ---- properties --------------------------------------------------------------------------

def _read_props(file, into):
    try:
        with open(file, encoding='utf-8') as f:
            for line in f:
                line = line.rstrip('\n')
                if not line or line.startswith('#') or '=' not in line:
                    continue
                k, v = line.split('=', 1)
                into[k] = v
    except FileNotFoundError:
        pass


def props():
    out = {}
    _read_props(path('system/etc/vmhub-standin/build.prop'), out)
    _read_props(path('data/property/vmhub.prop'), out)
    return out


def setprop(key, value):
    file = path('data/property/vmhub.prop')
    os.makedirs(os.path.dirname(file), exist_ok=True)
    current = {}
    _read_props(file, current)
    current[key] = value
    tmp = f'{file}.{os.getpid()}'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.writelines(f'{k}={v}\n' for k, v in current.items())
    os.replace(tmp, file)


# ---- packages ----------------------------------------------------------------------------

def _package_dirs():
    return [(path('system/etc/vmhub-standin/packages'), True), (path('data/system/vmhub-packages'), False)]


def packages():
    """All installed packages by name: {package, activity, label, system, code_path, argv?}."""
    out = {}
    for d, system in _package_dirs():
        try:
            names = sorted(os.listdir(d))
        except FileNotFoundError:
            continue
        for n in names:
            if not n.endswith('.json'):
                continue
            with open(os.path.join(d, n), encoding='utf-8') as f:
                p = json.load(f)
            p['system'] = system
            out[p['package']] = p
    return out


def full_activity(pkg, activity):
    """'.MainActivity' → 'com.x/.MainActivity' long form 'com.x.MainActivity'."""
    return pkg + activity if activity.startswith('.') else activity


def short_component(pkg, activity):
    cls = full_activity(pkg, activity)
    return f'{pkg}/{cls[len(pkg):]}' if cls.startswith(pkg + '.') else f'{pkg}/{cls}'


# ---- activity stack and processes ----------------------------------------------------------

LAUNCHER = 'com.android.launcher3'


def _am(*parts):
    return path('data/system/vmhub-am', *parts)


def pid_of(pkg):
    try:
        with open(_am(f'{pkg}.pid')) as f:
            pid = int(f.read().strip())
        os.kill(pid, 0)
        return pid
    except (FileNotFoundError, ValueError, ProcessLookupError, PermissionError):
        return None


def stack():
    """Running packages, top first (dead ones dropped)."""
    try:
        with open(_am('stack')) as f:
            names = [l.strip() for l in f if l.strip()]
    except FileNotFoundError:
        names = []
    return [n for n in names if pid_of(n)]


def write_stack(names):
    os.makedirs(_am(), exist_ok=True)
    tmp = _am(f'stack.{os.getpid()}')
    with open(tmp, 'w') as f:
        f.writelines(n + '\n' for n in dict.fromkeys(names))
    os.replace(tmp, _am('stack'))


def app_request(pkg, request, timeout=3.0):
    """One request line to the app's UI socket; its JSON answer, or None when it does not answer."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path('data/data', pkg, 'ui.sock'))
            s.sendall(request.encode() + b'\n')
            chunks = []
            while True:
                b = s.recv(65536)
                if not b:
                    break
                chunks.append(b)
        return json.loads(b''.join(chunks).decode('utf-8'))
    except (OSError, ValueError):
        return None


def spawn(pkg):
    """Start a package's process (the stand-in Tk app with that package's label) and wait until its UI answers."""
    p = packages()[pkg]
    data = path('data/data', pkg)
    os.makedirs(os.path.join(data, 'files'), exist_ok=True)
    argv = p.get('argv') or [sys.executable, os.path.join(LIB, 'app.py')]
    argv = argv + ['--package', pkg, '--activity', full_activity(pkg, p['activity']), '--label', p.get('label', pkg)]
    if pkg == LAUNCHER:
        argv.append('--launcher')
    log = open(os.path.join(data, 'app.log'), 'ab')
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, cwd=data)
    os.makedirs(_am(), exist_ok=True)
    with open(_am(f'{pkg}.pid'), 'w') as f:
        f.write(str(proc.pid))
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            die(f'Error: {pkg} died on start (exit {proc.returncode}); see {data}/app.log', 255)
        if app_request(pkg, 'state', 0.5) is not None:
            return proc.pid
        time.sleep(0.05)
    die(f'Error: {pkg} did not start in 15 s', 255)


def bring_to_front(pkg):
    """Start the package if needed, show its window on top and hide the one it covers. 'COLD' or 'HOT'."""
    state = 'HOT'
    if not pid_of(pkg):
        spawn(pkg)
        state = 'COLD'
    old = stack()
    app_request(pkg, 'show')
    for other in old:
        if other != pkg:
            app_request(other, 'hide')
    write_stack([pkg] + old)
    return state


def move_to_back():
    """BACK on a task root (Android 12+): the top task goes behind the next one; home stays home."""
    s = stack()
    if not s or s[0] == LAUNCHER:
        return
    top, rest = s[0], s[1:]
    if rest:
        app_request(rest[0], 'show')
    app_request(top, 'hide')
    write_stack(rest + [top])


def go_home():
    if not pid_of(LAUNCHER):
        spawn(LAUNCHER)
    bring_to_front(LAUNCHER)


def force_stop(pkg):
    pid = pid_of(pkg)
    was_top = bool(stack()[:1] == [pkg])
    if pid:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for _ in range(100):
            if not os.path.exists(f'/proc/{pid}') or _zombie(pid):
                break
            time.sleep(0.02)
    try:
        os.unlink(_am(f'{pkg}.pid'))
    except FileNotFoundError:
        pass
    try:
        os.unlink(path('data/data', pkg, 'ui.sock'))
    except FileNotFoundError:
        pass
    rest = [n for n in stack() if n != pkg]
    write_stack(rest)
    if was_top and rest:
        app_request(rest[0], 'show')
    elif was_top and pkg != LAUNCHER:
        # The last task gone: Android shows the home screen, starting the launcher if needed.
        try:
            go_home()
        except SystemExit:
            pass  # no display to start it on (a display-less test device): nothing to show


def _zombie(pid):
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().split(') ', 1)[1].startswith('Z')
    except (FileNotFoundError, ProcessLookupError, IndexError):
        # ESRCH (ProcessLookupError) while the task is being reaped: as good as gone.
        return True


def focused():
    """The package whose window has focus (the stack's top), or None."""
    s = stack()
    return s[0] if s else None
