"""pm, after frameworks/base/services/core/java/com/android/server/pm/PackageManagerShellCommand.java:
  pm list packages [-3|-s] [-f] [FILTER]   one "package:NAME" (or "package:PATH=NAME" with -f) per line
  pm path PKG                              "package:/data/app/…/base.apk"; unknown → exit 1, no output
  pm install [-r] [-t] [-g] PATH           "Success", or "Failure [INSTALL_FAILED_…: reason]" and exit 1
  pm uninstall [-k] [--user N] PKG         "Success", or "Failure [DELETE_FAILED_INTERNAL_ERROR]" and exit 1
  pm clear PKG                             "Success" (the app is stopped and its data dir emptied)
  pm resolve-activity --brief [-c CAT] PKG  the priority line, then "PKG/ACTIVITY"
A stand-in "APK" is a zip holding vmhub-standin.json ({"package", "activity", "label"}); the
package then runs the stand-in app under its own name. Real APKs are refused as invalid.
"""
import json
import os
import shutil
import sys
import zipfile

import android


def code_path(p):
    return p.get('code_path') or (f"/system/app/{p['package']}/{p['package']}.apk" if p['system'] else f"/data/app/{p['package']}-1/base.apk")


def list_packages(args):
    flags = {a for a in args if a.startswith('-')}
    words = [a for a in args if not a.startswith('-') and a != 'packages']
    if '--user' in args:
        i = args.index('--user')
        words = [w for w in words if w != (args[i + 1] if i + 1 < len(args) else None)]
    filt = words[0] if words else ''
    for name, p in sorted(android.packages().items()):
        if ('-3' in flags and p['system']) or ('-s' in flags and not p['system']) or filt not in name:
            continue
        print(f'package:{code_path(p)}={name}' if '-f' in flags else f'package:{name}')
    return 0


def install(args):
    paths = [a for a in args if not a.startswith('-')]
    if not paths:
        sys.stderr.write('Error: must either specify a package size or an APK file\n')
        return 1
    apk = paths[-1]
    try:
        with zipfile.ZipFile(apk) as z:
            meta = json.loads(z.read('vmhub-standin.json').decode('utf-8'))
        pkg, activity = meta['package'], meta['activity']
    except FileNotFoundError:
        print(f'Failure [INSTALL_FAILED_INVALID_URI: Invalid URI: {apk}]')
        return 1
    except (zipfile.BadZipFile, KeyError, ValueError):
        print(f'Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse {apk}: the vmhub stand-in installs only '
              'stand-in packages (a zip with vmhub-standin.json)]')
        return 1
    existing = android.packages().get(pkg)
    if existing and existing['system']:
        print(f'Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package {pkg} is a system package]')
        return 1
    if existing and '-r' not in args:
        android.force_stop(pkg)
    app_dir = android.path('data/app', f'{pkg}-1')
    os.makedirs(app_dir, exist_ok=True)
    shutil.copyfile(apk, os.path.join(app_dir, 'base.apk'))
    reg = android.path('data/system/vmhub-packages')
    os.makedirs(reg, exist_ok=True)
    with open(os.path.join(reg, f'{pkg}.json'), 'w', encoding='utf-8') as f:
        json.dump({'package': pkg, 'activity': activity, 'label': meta.get('label', pkg),
                   'code_path': f'/data/app/{pkg}-1/base.apk'}, f)
    print('Success')
    return 0


def uninstall(args):
    words = [a for a in args if not a.startswith('-')]
    if '--user' in args:
        words = words[1:]
    if not words:
        sys.stderr.write('Error: package name not specified\n')
        return 1
    pkg = words[-1]
    p = android.packages().get(pkg)
    if not p or p['system']:
        print('Failure [DELETE_FAILED_INTERNAL_ERROR]')
        return 1
    android.force_stop(pkg)
    os.unlink(android.path('data/system/vmhub-packages', f'{pkg}.json'))
    shutil.rmtree(android.path('data/app', f'{pkg}-1'), ignore_errors=True)
    if '-k' not in args:
        shutil.rmtree(android.path('data/data', pkg), ignore_errors=True)
    print('Success')
    return 0


def clear(args):
    pkg = next((a for a in reversed(args) if not a.startswith('-')), None)
    if not pkg or pkg not in android.packages():
        print('Failed')
        return 1
    android.force_stop(pkg)
    shutil.rmtree(android.path('data/data', pkg), ignore_errors=True)
    print('Success')
    return 0


def resolve_activity(args):
    pkg = next((a for a in reversed(args) if not a.startswith('-') and '.' in a and not a.startswith('android.')), None)
    p = android.packages().get(pkg) if pkg else None
    if not p:
        print('No activity found')
        return 0
    print('priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true')
    print(android.short_component(pkg, p['activity']))
    return 0


def path_of(args):
    pkg = next((a for a in reversed(args) if not a.startswith('-')), None)
    p = android.packages().get(pkg) if pkg else None
    if not p:
        return 1
    print(f'package:{code_path(p)}')
    return 0


def main(args):
    if not args:
        sys.stdout.write('Package manager (package) commands:\n  list packages [-3|-s] [-f] [FILTER]\n'
                         '  path PACKAGE\n  install [-r] PATH\n  uninstall [-k] PACKAGE\n  clear PACKAGE\n')
        return 0
    cmd, rest = args[0], args[1:]
    handlers = {'list': list_packages, 'install': install, 'uninstall': uninstall, 'clear': clear,
                'resolve-activity': resolve_activity, 'path': path_of}
    if cmd not in handlers:
        sys.stderr.write(f'Unknown command: {cmd}\n')
        return 255
    if cmd == 'list' and rest[:1] != ['packages']:
        sys.stderr.write(f"Error: unknown list type '{rest[0] if rest else ''}'\n")
        return 255
    return handlers[cmd](rest)
