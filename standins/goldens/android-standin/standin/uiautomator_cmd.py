"""uiautomator dump, after frameworks/base/cmds/uiautomator: DumpCommand.java (messages, exit 0
on failure, "UI hierchary dumped to: FILE") and AccessibilityNodeInfoDumper.java (one-line XML,
attribute order, bounds as Rect.toShortString()). The tree is the focused app's real widget tree,
asked over its UI socket.

Fault injection for tests: a file data/vmhub-standin/faults/uiautomator-null-root (or
…/uiautomator-idle) holding a count makes the next N dumps fail with AOSP's "ERROR: null root
node returned by UiTestAutomationBridge." (or "ERROR: could not get idle state."); the word
"always" instead of a count fails every dump until the file is removed.
"""
import os
import sys

import android

DEFAULT_FILE = '/sdcard/window_dump.xml'
FAULTS = {'uiautomator-null-root': 'ERROR: null root node returned by UiTestAutomationBridge.',
          'uiautomator-idle': 'ERROR: could not get idle state.'}


def injected_fault():
    for name, message in FAULTS.items():
        f = android.path('data/vmhub-standin/faults', name)
        try:
            with open(f) as fh:
                word = fh.read().strip()
        except FileNotFoundError:
            continue
        if word == 'always':
            return message
        n = int(word or '0')
        if n <= 1:
            os.unlink(f)
        else:
            with open(f, 'w') as fh:
                fh.write(str(n - 1))
        if n >= 1:
            return message
    return None


def esc(v):
    out = []
    for ch in str(v):
        o = ord(ch)
        if ch == '&':
            out.append('&amp;')
        elif ch == '<':
            out.append('&lt;')
        elif ch == '>':
            out.append('&gt;')
        elif ch == '"':
            out.append('&quot;')
        elif ch == "'":
            out.append('&apos;')
        elif o < 0x20:
            out.append(f'&#{o};')
        else:
            out.append(ch)
    return ''.join(out)


ATTRS = ['index', 'text', 'resource-id', 'class', 'package', 'content-desc', 'checkable', 'checked', 'clickable',
         'enabled', 'focusable', 'focused', 'scrollable', 'long-clickable', 'password', 'selected', 'bounds']


def node_xml(n, pkg, out):
    l, t, r, b = n['bounds']
    values = {'index': n.get('index', 0), 'text': n.get('text', ''), 'resource-id': n.get('resource-id', ''),
              'class': n['class'], 'package': pkg, 'content-desc': n.get('content-desc', ''), 'enabled': True,
              'bounds': f'[{l},{t}][{r},{b}]'}
    for k in ('checkable', 'checked', 'clickable', 'focusable', 'focused', 'scrollable', 'long-clickable',
              'password', 'selected'):
        values[k] = bool(n.get(k, False))
    attrs = ' '.join(f'{k}="{esc(str(values[k]).lower() if isinstance(values[k], bool) else values[k])}"' for k in ATTRS)
    kids = n.get('children') or []
    if not kids:
        out.append(f'<node {attrs} />')
        return
    out.append(f'<node {attrs}>')
    for k in kids:
        node_xml(k, pkg, out)
    out.append('</node>')


def dump(args):
    target = DEFAULT_FILE
    for a in args:
        if not a.startswith('-'):
            target = a
    fault = injected_fault()
    top = android.focused()
    tree = android.app_request(top, 'tree') if top and not fault else None
    if tree is None:
        sys.stderr.write((fault or FAULTS['uiautomator-null-root']) + '\n')
        return 0
    parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", f'<hierarchy rotation="{tree.get("rotation", 0)}">']
    node_xml(tree['root'], tree['package'], parts)
    parts.append('</hierarchy>')
    xml = ''.join(parts)
    if target == '/dev/tty':
        sys.stdout.write(xml)
    else:
        try:
            with open(target, 'w', encoding='utf-8') as f:
                f.write(xml)
        except OSError as e:
            sys.stderr.write(f'java.io.FileNotFoundException: {target}: open failed: {e.strerror}\n')
            return 1
    print(f'UI hierchary dumped to: {target}')
    return 0


def main(args):
    if args[:1] == ['dump']:
        return dump(args[1:])
    sys.stdout.write('Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n'
                     'help: displays help message\n\n'
                     'dump: creates an XML dump of current UI hierarchy\n'
                     '    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n'
                     f'      [file]: the location where the dumped XML should be stored, default is\n      {DEFAULT_FILE}\n')
    return 0 if args[:1] in ([], ['help']) else 1
