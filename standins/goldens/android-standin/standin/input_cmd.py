"""input, after frameworks/base/services/core/java/com/android/server/input/InputShellCommand.java:
  input [<source>] [-d DISPLAY_ID] <command> [<arg>...]
  text <string> | keyevent [--longpress|--doubletap|--async|--delay ms] <code|name>... |
  tap x y | swipe x1 y1 x2 y2 [ms] | draganddrop x1 y1 x2 y2 [ms] | motionevent DOWN|UP|MOVE x y |
  keycombination [-t ms] <code> <code>...
Touches become real X pointer events (xdotool) on the Xvfb display; keys become X key events,
except HOME / BACK / APP_SWITCH, which the stand-in's activity stack handles as the system does.
Like Android: key names resolve as KeyEvent.keyCodeFromString does (KEYCODE_X, X or a number;
anything else is KEYCODE_UNKNOWN and injects nothing), and `input text` decodes %s as a space
and fails on characters the virtual keyboard's key map lacks (anything outside printable ASCII).
"""
import subprocess
import sys
import time

import android

SOURCES = {'keyboard', 'dpad', 'gamepad', 'touchscreen', 'mouse', 'stylus', 'trackball', 'touchpad',
           'touchnavigation', 'joystick'}

# KeyEvent.KEYCODE_* numbers (frameworks/base/core/java/android/view/KeyEvent.java).
KEYCODES = {
    'HOME': 3, 'BACK': 4, 'CALL': 5, 'ENDCALL': 6, 'STAR': 17, 'POUND': 18, 'DPAD_UP': 19, 'DPAD_DOWN': 20,
    'DPAD_LEFT': 21, 'DPAD_RIGHT': 22, 'DPAD_CENTER': 23, 'VOLUME_UP': 24, 'VOLUME_DOWN': 25, 'POWER': 26,
    'CAMERA': 27, 'CLEAR': 28, 'COMMA': 55, 'PERIOD': 56, 'ALT_LEFT': 57, 'ALT_RIGHT': 58, 'SHIFT_LEFT': 59,
    'SHIFT_RIGHT': 60, 'TAB': 61, 'SPACE': 62, 'SYM': 63, 'EXPLORER': 64, 'ENVELOPE': 65, 'ENTER': 66, 'DEL': 67,
    'GRAVE': 68, 'MINUS': 69, 'EQUALS': 70, 'LEFT_BRACKET': 71, 'RIGHT_BRACKET': 72, 'BACKSLASH': 73,
    'SEMICOLON': 74, 'APOSTROPHE': 75, 'SLASH': 76, 'AT': 77, 'NUM': 78, 'HEADSETHOOK': 79, 'FOCUS': 80,
    'PLUS': 81, 'MENU': 82, 'NOTIFICATION': 83, 'SEARCH': 84, 'MEDIA_PLAY_PAUSE': 85, 'PAGE_UP': 92,
    'PAGE_DOWN': 93, 'ESCAPE': 111, 'FORWARD_DEL': 112, 'CTRL_LEFT': 113, 'CTRL_RIGHT': 114, 'CAPS_LOCK': 115,
    'SCROLL_LOCK': 116, 'META_LEFT': 117, 'META_RIGHT': 118, 'FUNCTION': 119, 'SYSRQ': 120, 'BREAK': 121,
    'MOVE_HOME': 122, 'MOVE_END': 123, 'INSERT': 124, 'APP_SWITCH': 187, 'SLEEP': 223, 'WAKEUP': 224,
    'CUT': 277, 'COPY': 278, 'PASTE': 279,
}
KEYCODES.update({str(d): 7 + d for d in range(10)})
KEYCODES.update({chr(c): 29 + c - ord('A') for c in range(ord('A'), ord('Z') + 1)})
KEYCODES.update({f'F{n}': 130 + n for n in range(1, 13)})
NUMBERS = {v: k for k, v in KEYCODES.items()}

# Android keycode → X keysym (xdotool), for keys that reach the focused window.
XKEYS = {
    'DPAD_UP': 'Up', 'DPAD_DOWN': 'Down', 'DPAD_LEFT': 'Left', 'DPAD_RIGHT': 'Right', 'DPAD_CENTER': 'Return',
    'ENTER': 'Return', 'DEL': 'BackSpace', 'FORWARD_DEL': 'Delete', 'TAB': 'Tab', 'SPACE': 'space',
    'ESCAPE': 'Escape', 'MOVE_HOME': 'Home', 'MOVE_END': 'End', 'PAGE_UP': 'Prior', 'PAGE_DOWN': 'Next',
    'INSERT': 'Insert', 'COMMA': 'comma', 'PERIOD': 'period', 'MINUS': 'minus', 'EQUALS': 'equal',
    'LEFT_BRACKET': 'bracketleft', 'RIGHT_BRACKET': 'bracketright', 'BACKSLASH': 'backslash',
    'SEMICOLON': 'semicolon', 'APOSTROPHE': 'apostrophe', 'SLASH': 'slash', 'AT': 'at', 'GRAVE': 'grave',
    'PLUS': 'plus', 'STAR': 'asterisk', 'POUND': 'numbersign', 'CTRL_LEFT': 'Control_L', 'CTRL_RIGHT': 'Control_R',
    'SHIFT_LEFT': 'Shift_L', 'SHIFT_RIGHT': 'Shift_R', 'ALT_LEFT': 'Alt_L', 'ALT_RIGHT': 'Alt_R',
    'META_LEFT': 'Super_L', 'META_RIGHT': 'Super_R', 'CAPS_LOCK': 'Caps_Lock', 'MENU': 'Menu',
    'CUT': 'ctrl+x', 'COPY': 'ctrl+c', 'PASTE': 'ctrl+v',
}
XKEYS.update({str(d): str(d) for d in range(10)})
XKEYS.update({chr(c): chr(c).lower() for c in range(ord('A'), ord('Z') + 1)})
XKEYS.update({f'F{n}': f'F{n}' for n in range(1, 13)})
MODIFIERS = {'CTRL_LEFT': 'ctrl', 'CTRL_RIGHT': 'ctrl', 'SHIFT_LEFT': 'shift', 'SHIFT_RIGHT': 'shift',
             'ALT_LEFT': 'alt', 'ALT_RIGHT': 'alt', 'META_LEFT': 'super', 'META_RIGHT': 'super'}
SYSTEM_KEYS = {'HOME', 'BACK', 'APP_SWITCH', 'POWER', 'WAKEUP', 'SLEEP', 'VOLUME_UP', 'VOLUME_DOWN', 'CAMERA',
               'CALL', 'ENDCALL', 'NOTIFICATION', 'SEARCH', 'MEDIA_PLAY_PAUSE', 'HEADSETHOOK', 'FOCUS'}

USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are: 
      keyboard
      dpad
      gamepad
      touchscreen
      mouse
      stylus
      trackball
      touchpad
      touchnavigation
      joystick

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
"""


class Invalid(Exception):
    pass


def key_code(arg):
    """KeyEvent.keyCodeFromString: 'KEYCODE_HOME', 'HOME' or '3' → 3; anything else → 0 (UNKNOWN)."""
    name = arg[len('KEYCODE_'):] if arg.startswith('KEYCODE_') else arg
    if name in KEYCODES:
        return KEYCODES[name]
    try:
        return int(arg)
    except ValueError:
        return 0


def xdotool(*argv):
    subprocess.run(['xdotool', *argv], check=True, stdin=subprocess.DEVNULL)


def num(s, cmd):
    try:
        return int(round(float(s)))
    except ValueError:
        raise Invalid(cmd)


def press_key(code, longpress=False):
    name = NUMBERS.get(code)
    if name is None:
        return  # KEYCODE_UNKNOWN and codes the stand-in has no key for inject nothing, as on Android
    if name == 'HOME':
        android.go_home()
    elif name == 'BACK':
        android.move_to_back()
    elif name in SYSTEM_KEYS:
        return
    elif longpress:
        xdotool('keydown', XKEYS[name], 'sleep', '0.5', 'keyup', XKEYS[name])
    else:
        xdotool('key', '--clearmodifiers', XKEYS[name])


def run_keyevent(args):
    longpress = doubletap = False
    delay = 0
    while args and args[0].startswith('--'):
        flag = args.pop(0)
        longpress |= flag == '--longpress'
        doubletap |= flag == '--doubletap'
        if flag == '--delay':
            delay = num(args.pop(0), 'keyevent') if args else 0
    if not args:
        raise Invalid('keyevent')
    for i, arg in enumerate(args):
        if i and delay:
            time.sleep(delay / 1000)
        code = key_code(arg)
        press_key(code, longpress)
        if doubletap:
            time.sleep(0.04)
            press_key(code, longpress)


def run_keycombination(args):
    hold = 0
    if args[:1] == ['-t']:
        hold = num(args[1], 'keycombination') if len(args) > 1 else 0
        args = args[2:]
    if len(args) < 2:
        raise Invalid('keycombination')
    names = [NUMBERS.get(key_code(a)) for a in args]
    if any(n is None or (n not in XKEYS and n not in SYSTEM_KEYS) for n in names):
        return
    mods = [MODIFIERS[n] for n in names[:-1] if n in MODIFIERS]
    last = XKEYS.get(names[-1])
    if last is None:
        return
    chord = '+'.join(mods + [last])
    if hold:
        xdotool('keydown', chord, 'sleep', str(hold / 1000), 'keyup', chord)
    else:
        xdotool('key', '--clearmodifiers', chord)


def run_text(args):
    if not args:
        raise Invalid('text')
    text = args[0].replace('%s', ' ')  # sendText turns the two characters "%s" into one space
    bad = next((c for c in text if not (0x20 <= ord(c) < 0x7f or c in '\n\t')), None)
    if bad is not None:
        # KeyCharacterMap.getEvents() returns null for a character the virtual keyboard cannot
        # type; sendText then dereferences it and the shell command dies with this exception.
        sys.stderr.write("Exception occurred while executing 'text':\n"
                         "java.lang.NullPointerException: Attempt to get length of null array\n"
                         "\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:282)\n")
        return 255
    if text:
        xdotool('type', '--delay', '2', '--', text)
    return 0


def run_swipe(args, cmd):
    if len(args) < 4:
        raise Invalid(cmd)
    x1, y1, x2, y2 = (num(a, cmd) for a in args[:4])
    ms = num(args[4], cmd) if len(args) > 4 else -1
    if ms < 0:
        ms = 300  # swipe's default duration
    steps = max(1, min(60, ms // 10))
    argv = ['mousemove', str(x1), str(y1), 'mousedown', '1']
    for i in range(1, steps + 1):
        t = i / steps
        argv += ['sleep', f'{ms / steps / 1000:.4f}', 'mousemove', str(round(x1 + (x2 - x1) * t)), str(round(y1 + (y2 - y1) * t))]
    xdotool(*argv, 'mouseup', '1')


def main(args):
    args = list(args)
    if args and args[0] in SOURCES:
        args.pop(0)
    if args[:1] == ['-d']:
        args = args[2:]
    if not args or args[0] in ('help', '-h'):
        sys.stdout.write(USAGE)
        return 0 if args else 1
    cmd, rest = args[0], args[1:]
    try:
        if cmd == 'text':
            return run_text(rest)
        if cmd == 'keyevent':
            run_keyevent(rest)
        elif cmd == 'tap':
            if len(rest) < 2:
                raise Invalid(cmd)
            xdotool('mousemove', str(num(rest[0], cmd)), str(num(rest[1], cmd)), 'click', '1')
        elif cmd in ('swipe', 'draganddrop'):
            run_swipe(rest, cmd)
        elif cmd == 'motionevent':
            if len(rest) < 3 or rest[0].upper() not in ('DOWN', 'UP', 'MOVE', 'CANCEL'):
                raise Invalid(cmd)
            action = {'DOWN': ['mousedown', '1'], 'UP': ['mouseup', '1'], 'MOVE': [], 'CANCEL': ['mouseup', '1']}
            xdotool('mousemove', str(num(rest[1], cmd)), str(num(rest[2], cmd)), *action[rest[0].upper()])
        elif cmd == 'keycombination':
            run_keycombination(rest)
        elif cmd in ('press', 'roll'):
            pass  # trackball events: nothing to drive on the stand-in's display
        else:
            sys.stderr.write(f"Unknown command: {cmd}\n")
            return 255
    except Invalid as e:
        # ShellCommand prints an escaped IllegalArgumentException this way and exits 255.
        sys.stderr.write(f"Exception occurred while executing '{cmd}':\n"
                         f'java.lang.IllegalArgumentException: Error: Invalid arguments for command: {e}\n')
        return 255
    return 0
