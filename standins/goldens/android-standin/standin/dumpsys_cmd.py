"""dumpsys window / activity / input for the stand-in's activity stack, in the shapes AOSP prints:
- window: WindowState.dump() (frameworks/base/services/core/java/com/android/server/wm/WindowState.java)
  per window under "WINDOW MANAGER WINDOWS (dumpsys window windows)", then mCurrentFocus and
  mFocusedApp (DisplayContent / WindowManagerService.dumpWindowsNoHeader);
- activity activities: ActivityTaskManagerService's "ACTIVITY MANAGER ACTIVITIES" with
  mResumedActivity / topResumedActivity;
- input: InputReader's "Viewports:" block (frameworks/native/services/inputflinger) — the display
  never rotates here, so orientation=0.
Window ids are stable per package (crc32), task ids follow the package's pid.
"""
import sys
import zlib

import android
import screen_cmd

STATUS_BAR_HEIGHT = 63


def hexid(*parts):
    return format(zlib.crc32('/'.join(parts).encode()) & 0xfffffff, '07x')


def app_windows():
    """[(pkg, component, pid, visible)] top first, from the stack."""
    out = []
    pkgs = android.packages()
    for i, pkg in enumerate(android.stack()):
        p = pkgs.get(pkg)
        if not p:
            continue
        out.append((pkg, android.full_activity(pkg, p['activity']), android.pid_of(pkg), i == 0))
    return out


def window_block(n, title, pkg, pid, uid, frame, visible, kind, record=None):
    l, t, r, b = frame
    fr = f'[{l},{t}][{r},{b}]'
    lines = [
        f'  Window #{n} Window{{{hexid("w", title)} u0 {title}}}:',
        f'    mDisplayId=0 rootTaskId={pid or 1} mSession=Session{{{hexid("s", title)} {pid or 0}:u0a{uid - 10000}}} '
        f'mClient=android.os.BinderProxy@{hexid("c", title)}',
        f'    mOwnerUid={uid} showForAllUsers={"true" if kind == "STATUS_BAR" else "false"} package={pkg} appop=NONE',
        f'    mAttrs={{(0,0)(fillx{"fill" if kind != "STATUS_BAR" else b}) ty={kind}',
    ]
    if record:
        lines.append(f'    mActivityRecord={record}')
    lines += [
        f'    mViewVisibility={"0x0" if visible else "0x8"} mHaveFrame=true mObscured=false',
        f'    mHasSurface={str(visible).lower()} isReadyForDisplay()={str(visible).lower()} mWindowRemovalAllowed=false',
        f'    Frames: parent={fr} display={fr} frame={fr} last={fr} insetsChanged=false',
        f'    isOnScreen={str(visible).lower()}',
        f'    isVisible={str(visible).lower()}',
    ]
    return lines


def activity_record(pkg, component, pid):
    return f'ActivityRecord{{{hexid("a", pkg)} u0 {android.short_component(pkg, component)} t{pid or 1}}}'


def windows():
    w, h = screen_cmd.screen_size()
    apps = app_windows()
    out = ['WINDOW MANAGER WINDOWS (dumpsys window windows)']
    out += window_block(0, 'StatusBar', 'com.android.systemui', 0, 10143, (0, 0, w, STATUS_BAR_HEIGHT), True, 'STATUS_BAR')
    for i, (pkg, comp, pid, visible) in enumerate(apps, start=1):
        out += window_block(i, f'{pkg}/{comp}', pkg, pid, 10160 + i, (0, 0, w, h), visible, 'BASE_APPLICATION',
                            activity_record(pkg, comp, pid))
    out.append('')
    if apps:
        pkg, comp, pid, _ = apps[0]
        out.append(f'  mCurrentFocus=Window{{{hexid("w", f"{pkg}/{comp}")} u0 {pkg}/{comp}}}')
        out.append(f'  mFocusedApp={activity_record(pkg, comp, pid)}')
    else:
        out.append('  mCurrentFocus=null')
        out.append('  mFocusedApp=null')
    return out


def activities():
    apps = app_windows()
    out = ['ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)', 'Display #0 (activities from top to bottom):']
    for pkg, comp, pid, _visible in apps:
        out += [f'  * Task{{{hexid("t", pkg)} #{pid} type=standard A=10160:{pkg}}}',
                f'    * Hist  #0: {activity_record(pkg, comp, pid)}']
    out.append('')
    if apps:
        pkg, comp, pid, _ = apps[0]
        out.append(f'  ResumedActivity: {activity_record(pkg, comp, pid)}')
        out.append(f'  mResumedActivity: {activity_record(pkg, comp, pid)}')
        out.append(f'  topResumedActivity={activity_record(pkg, comp, pid)}')
    return out


def input_viewports():
    w, h = screen_cmd.screen_size()
    return ['INPUT MANAGER (dumpsys input)', '', 'Input Reader State (Nums of device: 1):', '  Viewports:',
            f'    Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation=0, '
            f'logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {w}, {h}], deviceSize=[{w}, {h}], isActive=[1]']


def main(args):
    service = args[0] if args else ''
    if service == 'window':
        sub = args[1] if len(args) > 1 else ''
        if sub in ('', 'windows', '-a'):
            lines = windows()
        elif sub == 'displays':
            w, h = screen_cmd.screen_size()
            lines = ['WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)',
                     f'  Display: mDisplayId=0 rootTasks={len(android.stack())}',
                     f'    init={w}x{h} {screen_cmd.density()}dpi cur={w}x{h} app={w}x{h} rng={w}x{h}-{h}x{w}',
                     '    mCurrentRotation=ROTATION_0']
        else:
            lines = windows()
    elif service == 'activity':
        lines = activities()
    elif service == 'input':
        lines = input_viewports()
    elif service == '-l':
        lines = ['Currently running services:', '  activity', '  input', '  window']
    else:
        sys.stderr.write(f"Can't find service: {service}\n")
        return 0
    sys.stdout.write('\n'.join(lines) + '\n')
    return 0
