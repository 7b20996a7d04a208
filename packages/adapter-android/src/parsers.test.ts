/**
 * Parsers against Android's own output formats. Samples follow AOSP 14 (API 34) as printed by
 * WindowManagerShellCommand (`wm size`), WindowState/WindowFrames dumps (`dumpsys window
 * windows`, trimmed: real dumps carry many more lines per window, which the parser ignores),
 * InputReader (`dumpsys input` viewports) and uiautomator's DumpCommand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { currentSize, parseRotation, parseWmSize } from './screen-parse.ts';
import { fullComponent, parseWindowDump } from './dumpsys-window.ts';
import { decodeXml, extractXml, parseUiDump } from './uiautomator.ts';
import { pngSize } from './png.ts';
import { clipMiddle } from './errors.ts';

const DUMPSYS_WINDOWS_34 = `WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #0 Window{829de41 u0 ScreenDecorOverlayBottom}:
    mDisplayId=0 rootTaskId=1 mSession=Session{f1a0c2 1290:u0a10120} mClient=android.os.BinderProxy@6e1d1d9
    mOwnerUid=10120 showForAllUsers=true package=com.android.systemui appop=NONE
    mAttrs={(0,0)(fillx126) gr=BOTTOM CENTER_VERTICAL sim={adjust=pan} ty=NAVIGATION_BAR_PANEL fmt=TRANSLUCENT
      fl=NOT_FOCUSABLE NOT_TOUCHABLE LAYOUT_IN_SCREEN HARDWARE_ACCELERATED
      pfl=SHOW_FOR_ALL_USERS IS_ROUNDED_CORNERS_OVERLAY USE_BLAST TRUSTED_OVERLAY
      bhv=DEFAULT
      fitTypes=STATUS_BARS NAVIGATION_BARS CAPTION_BAR}
    Requested w=1080 h=126 mLayoutSeq=151
    mBaseLayer=231000 mSubLayer=0    mToken=WindowToken{d5a0b2e type=2024 android.os.BinderProxy@3b0f8f5}
    mViewVisibility=0x0 mHaveFrame=true mObscured=false
    mGivenContentInsets=[0,0][0,0] mGivenVisibleInsets=[0,0][0,0]
    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false
    Frames: parent=[0,2274][1080,2400] display=[0,2274][1080,2400] frame=[0,2274][1080,2400] last=[0,2274][1080,2400] insetsChanged=false
     surface=[0,0][0,0]
    WindowStateAnimator{a71bb7c ScreenDecorOverlayBottom}:
      mSurface=Surface(name=ScreenDecorOverlayBottom)/@0x5d6c205
      Surface: shown=true layer=0 alpha=1.0 rect=(0.0,0.0)  transform=(1.0, 0.0, 0.0, 1.0)
    mForceSeamlesslyRotate=false seamlesslyRotate: pending=null    isOnScreen=true
    isVisible=true
  Window #1 Window{9ef7b58 u0 StatusBar}:
    mDisplayId=0 rootTaskId=1 mSession=Session{f1a0c2 1290:u0a10120} mClient=android.os.BinderProxy@82a4e4a
    mOwnerUid=10120 showForAllUsers=true package=com.android.systemui appop=NONE
    mViewVisibility=0x0 mHaveFrame=true mObscured=false
    Frames: parent=[0,0][1080,128] display=[0,0][1080,128] frame=[0,0][1080,128] last=[0,0][1080,128] insetsChanged=false
    isOnScreen=true
    isVisible=true
  Window #2 Window{ee4ee0c u0 InputMethod}:
    mOwnerUid=10133 showForAllUsers=false package=com.google.android.inputmethod.latin appop=NONE
    mViewVisibility=0x8 mHaveFrame=true mObscured=false
    Frames: parent=[0,1517][1080,2400] display=[0,1517][1080,2400] frame=[0,1517][1080,2400] last=[0,1517][1080,2400] insetsChanged=false
    isOnScreen=false
    isVisible=false
  Window #3 Window{3a9bb36 u0 com.example.notes/com.example.notes.MainActivity}:
    mDisplayId=0 rootTaskId=23 mSession=Session{5c1a2b1 4536:u0a10160} mClient=android.os.BinderProxy@d2b3c61
    mOwnerUid=10160 showForAllUsers=false package=com.example.notes appop=NONE
    mAttrs={(0,0)(fillxfill) sim={adjust=resize forwardNavigation} ty=BASE_APPLICATION wanim=0x10302fe
    mActivityRecord=ActivityRecord{8d0c2d5 u0 com.example.notes/.MainActivity t23}
    mViewVisibility=0x0 mHaveFrame=true mObscured=false
    Frames: parent=[0,0][1080,2400] display=[0,0][1080,2400] frame=[0,0][1080,2400] last=[0,0][1080,2400] insetsChanged=false
    isOnScreen=true
    isVisible=true
  Window #4 Window{4d0ddca u0 EnviousWispr recording controls}:
    mOwnerUid=10567 showForAllUsers=false package=com.envi.wispr appop=CREATE_ACCESSIBILITY_OVERLAY
    Frames: parent=[0,0][1080,2340] frame=[33,138][1046,305] last=[33,138][1046,305]
    isOnScreen=true
    isVisible=true
  Window #5 Window{11aa22b u0 com.example.old/com.example.old.Main EXITING}:
    mOwnerUid=10161 showForAllUsers=false package=com.example.old appop=NONE
    Frames: parent=[0,0][1080,2400] display=[0,0][1080,2400] frame=[0,0][1080,2400] last=[0,0][1080,2400] insetsChanged=false
    isVisible=true

  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h890dp 420dpi nrml long port finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - 0, 0) mAppBounds=Rect(0, 0 - 1080, 2400) mMaxBounds=Rect(0, 0 - 0, 0) mDisplayRotation=ROTATION_0 mWindowingMode=fullscreen mActivityType=undefined mAlwaysOnTop=undefined mRotation=ROTATION_0} s.6 fontWeightAdjustment=0}
  mHasPermanentDpad=false
  mTopFocusedDisplayId=0
  mInputMethodWindow=Window{ee4ee0c u0 InputMethod}
  mCurrentFocus=Window{3a9bb36 u0 com.example.notes/com.example.notes.MainActivity}
  mFocusedApp=ActivityRecord{8d0c2d5 u0 com.example.notes/.MainActivity t23}
`;

// Android 9 style: no Frames: frame=, mFrame= instead; no isVisible lines.
const DUMPSYS_WINDOWS_28 = `WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #1 Window{5d1c0e4 u0 com.android.launcher3/com.android.launcher3.Launcher}:
    mDisplayId=0 stackId=0 mSession=Session{1d4c2f0 1603:u0a10033} mClient=android.os.BinderProxy@9a3b2d7
    mOwnerUid=10033 mShowToOwnerOnly=true package=com.android.launcher3 appop=NONE
    mViewVisibility=0x0 mHaveFrame=true mObscured=false
    Frames: containing=[0,0][1080,1920] parent=[0,0][1080,1920]
    mFrame=[0,0][1080,1920] last=[0,0][1080,1920]
  Window #0 Window{7f0a1b2 u0 com.android.systemui.ImageWallpaper}:
    mOwnerUid=10024 mShowToOwnerOnly=true package=com.android.systemui appop=NONE
    mViewVisibility=0x8 mHaveFrame=true mObscured=false
    mFrame=[0,0][1080,1920] last=[0,0][1080,1920]

  mCurrentFocus=Window{5d1c0e4 u0 com.android.launcher3/com.android.launcher3.Launcher}
  mFocusedApp=AppWindowToken{b4e1c9f token=Token{5f7b17e ActivityRecord{9c1e3f9 u0 com.android.launcher3/.Launcher t2}}}
`;

describe('wm size', () => {
  it('Physical only, and Override winning', () => {
    assert.deepEqual(parseWmSize('Physical size: 1080x2400\n').effective, { width: 1080, height: 2400 });
    const both = parseWmSize('Physical size: 1080x2400\nOverride size: 720x1600\n');
    assert.deepEqual(both.physical, { width: 1080, height: 2400 });
    assert.deepEqual(both.effective, { width: 720, height: 1600 });
    assert.equal(parseWmSize('Remote exception: android.os.DeadObjectException').effective, undefined);
  });
});

describe('rotation from dumpsys input', () => {
  it('reads the internal viewport (Android 10+) and SurfaceOrientation (older)', () => {
    const viewports = `  Viewports:
    Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation=1, logicalFrame=[0, 0, 2400, 1080], physicalFrame=[0, 0, 2400, 1080], deviceSize=[1080, 2400], isActive=[1]
    Viewport VIRTUAL: displayId=2, uniqueId=virtual:com.android.systemui:1, port=-1, orientation=0, logicalFrame=[0, 0, 800, 600], physicalFrame=[0, 0, 800, 600], deviceSize=[800, 600], isActive=[1]`;
    assert.equal(parseRotation(viewports), 1);
    assert.equal(parseRotation('      SurfaceOrientation: 3\n'), 3);
    assert.equal(parseRotation(''), 0);
    assert.deepEqual(currentSize({ width: 1080, height: 2400 }, 1), { width: 2400, height: 1080 });
    assert.deepEqual(currentSize({ width: 1080, height: 2400 }, 2), { width: 1080, height: 2400 });
  });
});

describe('dumpsys window windows', () => {
  it('Android 14: ids, titles with spaces, packages, frames, visibility, focus, exiting', () => {
    const d = parseWindowDump(DUMPSYS_WINDOWS_34);
    assert.equal(d.windows.length, 6);
    assert.deepEqual(d.windows.map((w) => w.id), ['829de41', '9ef7b58', 'ee4ee0c', '3a9bb36', '4d0ddca', '11aa22b']);
    const app = d.windows[3]!;
    assert.deepEqual(app, { id: '3a9bb36', title: 'com.example.notes/com.example.notes.MainActivity', package: 'com.example.notes', x: 0, y: 0, width: 1080, height: 2400, visible: true, exiting: false });
    assert.deepEqual(d.windows[0]!.y, 2274);
    assert.equal(d.windows[0]!.height, 126);
    assert.equal(d.windows[2]!.visible, false);
    assert.deepEqual(d.windows[4], { id: '4d0ddca', title: 'EnviousWispr recording controls', package: 'com.envi.wispr', x: 33, y: 138, width: 1013, height: 167, visible: true, exiting: false });
    assert.equal(d.windows[5]!.exiting, true);
    assert.equal(d.windows[5]!.title, 'com.example.old/com.example.old.Main');
    assert.equal(d.focusedId, '3a9bb36');
    assert.equal(d.focusedApp, 'com.example.notes/.MainActivity');
  });

  it('Android 9: mFrame= and mViewVisibility when isVisible is absent; AppWindowToken focus', () => {
    const d = parseWindowDump(DUMPSYS_WINDOWS_28);
    assert.equal(d.windows.length, 2);
    assert.deepEqual(d.windows[0], { id: '5d1c0e4', title: 'com.android.launcher3/com.android.launcher3.Launcher', package: 'com.android.launcher3', x: 0, y: 0, width: 1080, height: 1920, visible: true, exiting: false });
    assert.equal(d.windows[1]!.visible, false);
    assert.equal(d.focusedId, '5d1c0e4');
    assert.equal(d.focusedApp, 'com.android.launcher3/.Launcher');
  });

  it('expands am short components', () => {
    assert.equal(fullComponent('com.example.notes/.MainActivity'), 'com.example.notes/com.example.notes.MainActivity');
    assert.equal(fullComponent('com.a/org.b.C'), 'com.a/org.b.C');
  });
});

// uiautomator's DumpCommand writes the document on one line; this one is pretty-split only where
// a real dump has no whitespace (between tags), which the parser must not care about either way.
const UI_DUMP = `UI hierchary dumped to: /data/local/tmp/vmhub-ui-0a1b2c.xml
<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="Notes &amp; &quot;ideas&quot; &lt;1&gt;" resource-id="com.example.notes:id/title" class="android.widget.TextView" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[42,160][1038,262]" /><node index="1" text="héllo wörld&#10;2nd line" resource-id="com.example.notes:id/editor" class="android.widget.EditText" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[42,300][1038,900]" /><node index="2" text="" resource-id="" class="android.widget.ImageButton" package="com.example.notes" content-desc="Save" checkable="false" checked="false" clickable="true" enabled="false" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[900,2200][1038,2338]"><node index="0" text="" resource-id="" class="android.view.View" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[920,2220][1018,2318]" /></node></node></hierarchy>`;

describe('uiautomator dump', () => {
  it('extracts the document after the "UI hierchary dumped to" line and builds the tree', () => {
    const xml = extractXml(UI_DUMP)!;
    assert.ok(xml.startsWith('<?xml'));
    const tree = parseUiDump(xml, 50);
    assert.equal(tree.role, 'hierarchy');
    assert.deepEqual(tree.states, ['rotation-0']);
    const frame = tree.children![0]!;
    assert.deepEqual({ role: frame.role, x: frame.x, y: frame.y, width: frame.width, height: frame.height }, { role: 'FrameLayout', x: 0, y: 0, width: 1080, height: 2400 });
    assert.equal(frame.children!.length, 3);
    const [title, editor, save] = frame.children!;
    assert.equal(title!.name, 'Notes & "ideas" <1>');
    assert.equal(title!.states, undefined);
    assert.deepEqual(editor, { role: 'EditText', name: 'héllo wörld\n2nd line', x: 42, y: 300, width: 996, height: 600, states: ['clickable', 'focused', 'focusable', 'long-clickable'] });
    assert.equal(save!.name, 'Save');
    assert.deepEqual(save!.states, ['clickable', 'focusable', 'disabled']);
    assert.equal(save!.children!.length, 1);
  });

  it('max_depth drops deeper nodes; failures are recognised', () => {
    const tree = parseUiDump(extractXml(UI_DUMP)!, 1);
    assert.equal(tree.children!.length, 1);
    assert.equal(tree.children![0]!.children, undefined);
    assert.equal(extractXml('ERROR: null root node returned by UiTestAutomationBridge.\n'), undefined);
    assert.throws(() => parseUiDump('<foo/>', 5), /hierarchy/);
    assert.equal(decodeXml('&#x1F600;&apos;'), "😀'");
  });
});

describe('png header', () => {
  it('reads IHDR width and height, refuses non-PNG output', () => {
    const png = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
    png.writeUInt32BE(13, 8);
    png.write('IHDR', 12, 'latin1');
    png.writeUInt32BE(1080, 16);
    png.writeUInt32BE(2400, 20);
    assert.deepEqual(pngSize(png), { width: 1080, height: 2400 });
    assert.throws(() => pngSize(Buffer.from('/system/bin/sh: screencap: inaccessible or not found')), /did not return a PNG/);
  });
});

describe('android: command output in error messages', () => {
  it('a long output keeps its start and its end (a traceback\'s last line names the exception)', () => {
    const traceback = `Traceback (most recent call last):\n${'  File "/system/bin/x", line 1, in <module>\n'.repeat(40)}ConnectionRefusedError: [Errno 111] Connection refused`;
    const cut = clipMiddle(traceback);
    assert.ok(cut.length <= 603, `${cut.length}`);
    assert.ok(cut.startsWith('Traceback (most recent call last):'));
    assert.ok(cut.endsWith('ConnectionRefusedError: [Errno 111] Connection refused'));
    assert.equal(clipMiddle('short'), 'short');
  });
});
