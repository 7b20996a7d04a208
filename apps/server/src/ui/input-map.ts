/**
 * The pure part of the lease page's input handling, as browser JavaScript: which vm_* input a
 * browser event becomes. Kept apart from the DOM code so test/ui-files.test.ts can run exactly
 * the code the page ships (there is no browser in that test).
 *
 *   keyAction(event)                      → {type: "type", text} | {type: "key", keys} | null
 *   screenPoint(rect, clientX, clientY, frame) → {x, y} in SCREEN pixels, or null off the image
 *   scrollAction(deltaX, deltaY, deltaMode) → {direction, amount} | null
 *
 * Key names are the ones vm_key takes (X keysym names and its aliases), so the same chord works
 * on every adapter: Enter → Return, Backspace → BackSpace, ArrowLeft → Left, ctrl+a → ctrl+a.
 */
export const INPUT_MAP_SCRIPT = String.raw`
// DOM KeyboardEvent.key values → vm_key names; keys not listed keep their DOM name (F1…F24).
var KEY_NAMES = {
  Enter: 'Return', Backspace: 'BackSpace', Tab: 'Tab', Escape: 'Escape', Delete: 'Delete',
  Insert: 'Insert', Home: 'Home', End: 'End', PageUp: 'Page_Up', PageDown: 'Page_Down',
  ArrowLeft: 'Left', ArrowRight: 'Right', ArrowUp: 'Up', ArrowDown: 'Down',
  ContextMenu: 'Menu', PrintScreen: 'Print', Pause: 'Pause', ' ': 'space'
};
// Pressed alone these only modify the next key; the chord carries them (ctrl+a).
var MODIFIER_KEYS = { Control: 1, Shift: 1, Alt: 1, AltGraph: 1, Meta: 1, OS: 1, Super: 1, Hyper: 1, CapsLock: 1, NumLock: 1, ScrollLock: 1, Fn: 1, FnLock: 1 };

function keyAction(e) {
  var key = e.key;
  if (!key || key === 'Unidentified' || key === 'Dead' || key === 'Process' || MODIFIER_KEYS[key]) return null;
  var altGraph = typeof e.getModifierState === 'function' && e.getModifierState('AltGraph');
  var chord = (e.ctrlKey || e.altKey || e.metaKey) && !altGraph;
  // A character typed without a chord modifier (shift and AltGr already shaped it) is text.
  if (!chord && key.length === 1) return { type: 'type', text: key };
  var name = KEY_NAMES[key];
  if (!name) {
    if (key.length === 1) {
      // With a modifier the browser may report a shifted or composed character (ctrl+shift+A,
      // alt+a = "å" on a Mac layout); the physical key is what the chord means.
      var code = /^Key([A-Z])$/.exec(e.code || '') || /^Digit([0-9])$/.exec(e.code || '');
      name = code ? code[1].toLowerCase() : key.toLowerCase();
    } else if (/^F[0-9]{1,2}$/.test(key)) {
      name = key;
    } else {
      return null;
    }
  }
  var mods = [];
  if (e.ctrlKey && !altGraph) mods.push('ctrl');
  if (e.altKey && !altGraph) mods.push('alt');
  // Shift is part of a chord only where it is not already in the character (shift+Tab, ctrl+shift+t).
  if (e.shiftKey && (name.length > 1 || chord)) mods.push('shift');
  if (e.metaKey) mods.push('super');
  mods.push(name);
  return { type: 'key', keys: mods.join('+') };
}

// frame: {naturalWidth, naturalHeight, scale, screenWidth, screenHeight} of the frame on display.
// X-Image-Scale is image pixels per screen pixel (core's shapeScreenshot), so a point on the
// image maps to (image pixel / scale); without it the screen size does the same job.
function screenPoint(rect, clientX, clientY, frame) {
  if (!frame || !rect || rect.width <= 0 || rect.height <= 0) return null;
  var fx = (clientX - rect.left) / rect.width;
  var fy = (clientY - rect.top) / rect.height;
  if (fx < 0 || fy < 0 || fx > 1 || fy > 1) return null;
  var x, y;
  if (frame.scale > 0 && frame.naturalWidth > 0 && frame.naturalHeight > 0) {
    x = fx * frame.naturalWidth / frame.scale;
    y = fy * frame.naturalHeight / frame.scale;
  } else if (frame.screenWidth > 0 && frame.screenHeight > 0) {
    x = fx * frame.screenWidth;
    y = fy * frame.screenHeight;
  } else {
    return null;
  }
  var maxX = frame.screenWidth > 0 ? frame.screenWidth - 1 : Infinity;
  var maxY = frame.screenHeight > 0 ? frame.screenHeight - 1 : Infinity;
  return { x: Math.max(0, Math.min(maxX, Math.floor(x))), y: Math.max(0, Math.min(maxY, Math.floor(y))) };
}

// One wheel notch is ~100 px (deltaMode 0) or 3 lines (deltaMode 1); a page counts as 10 notches.
function scrollAction(deltaX, deltaY, deltaMode) {
  var unit = deltaMode === 1 ? 3 : deltaMode === 2 ? 0.1 : 100;
  var vertical = Math.abs(deltaY) >= Math.abs(deltaX);
  var delta = vertical ? deltaY : deltaX;
  if (delta === 0) return null;
  var amount = Math.max(1, Math.min(10, Math.round(Math.abs(delta) / unit)));
  var direction = vertical ? (delta > 0 ? 'down' : 'up') : (delta > 0 ? 'right' : 'left');
  return { direction: direction, amount: amount };
}
`;
