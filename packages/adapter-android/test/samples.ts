/** Android output samples (AOSP 13/14 formats) the fake device answers with. */

/** InputShellCommand.onHelp of Android 13 (API 33), as `input` with no arguments prints it. */
export const INPUT_USAGE_13 = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad
      keyboard
      mouse
      touchpad
      gamepad
      touchnavigation
      joystick
      touchscreen
      stylus
      trackball

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
`;

/** The same before keycombination existed (Android 12). */
export const INPUT_USAGE_12 = INPUT_USAGE_13.split('\n').filter((l) => !l.includes('keycombination')).join('\n');

export const VIEWPORT_ROT0 = `    Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation=0, logicalFrame=[0, 0, 1080, 2400], physicalFrame=[0, 0, 1080, 2400], deviceSize=[1080, 2400], isActive=[1]
`;

export const DUMPSYS_WINDOWS = `WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #0 Window{9ef7b58 u0 StatusBar}:
    mDisplayId=0 rootTaskId=1 mSession=Session{f1a0c2 1290:u0a10120} mClient=android.os.BinderProxy@82a4e4a
    mOwnerUid=10120 showForAllUsers=true package=com.android.systemui appop=NONE
    mViewVisibility=0x0 mHaveFrame=true mObscured=false
    Frames: parent=[0,0][1080,128] display=[0,0][1080,128] frame=[0,0][1080,128] last=[0,0][1080,128] insetsChanged=false
    isOnScreen=true
    isVisible=true
  Window #1 Window{ee4ee0c u0 InputMethod}:
    mOwnerUid=10133 showForAllUsers=false package=com.google.android.inputmethod.latin appop=NONE
    mViewVisibility=0x8 mHaveFrame=true mObscured=false
    Frames: parent=[0,1517][1080,2400] display=[0,1517][1080,2400] frame=[0,1517][1080,2400] last=[0,1517][1080,2400] insetsChanged=false
    isOnScreen=false
    isVisible=false
  Window #2 Window{3a9bb36 u0 com.example.notes/com.example.notes.MainActivity}:
    mDisplayId=0 rootTaskId=23 mSession=Session{5c1a2b1 4536:u0a10160} mClient=android.os.BinderProxy@d2b3c61
    mOwnerUid=10160 showForAllUsers=false package=com.example.notes appop=NONE
    mActivityRecord=ActivityRecord{8d0c2d5 u0 com.example.notes/.MainActivity t23}
    mViewVisibility=0x0 mHaveFrame=true mObscured=false
    Frames: parent=[0,0][1080,2400] display=[0,0][1080,2400] frame=[0,0][1080,2400] last=[0,0][1080,2400] insetsChanged=false
    isOnScreen=true
    isVisible=true

  mTopFocusedDisplayId=0
  mCurrentFocus=Window{3a9bb36 u0 com.example.notes/com.example.notes.MainActivity}
  mFocusedApp=ActivityRecord{8d0c2d5 u0 com.example.notes/.MainActivity t23}
`;

export const UI_XML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="Tap me" resource-id="com.example.notes:id/button" class="android.widget.Button" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[40,200][1040,340]" /></node></hierarchy>`;
