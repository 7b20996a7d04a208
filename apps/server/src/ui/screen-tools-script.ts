/**
 * The lease page's remote-desktop comforts, part of /ui/lease.js after the page's own script
 * (same scope: `base`, `screen`, `shown`, `ended`, `lease`, `inputs`, `inControl`, `flushText`,
 * `scheduleFrame`, `refreshLease`, `say`): fullscreen and a 1:1 scale, the pointer and the agent's last click drawn over the
 * screen (polled from GET …/pointer), and the clipboard — paste into the machine (the box, or
 * Ctrl+V on the screen) and copy its clipboard out (GET …/clipboard), only while in control.
 */
export const SCREEN_TOOLS_SCRIPT = String.raw`
var POINTER_MS = 1000;
var CLICK_FRESH_MS = 10000;   // the agent's click marker fades after this
var PASTE_CHORDS = { 'ctrl+v': 1, 'ctrl+shift+v': 1, 'shift+Insert': 1, 'super+v': 1 };
var actualSize = false;
var marks = { pointer: null, agentClick: null };
var SOURCES = {
  machine: 'the machine\'s pointer',
  agent: 'where the agent last moved the pointer (this machine cannot report its pointer)',
  human: 'where you last moved the pointer (this machine cannot report its pointer)'
};

// ---- fullscreen and 1:1 ----

function fullscreenNow() { return document.fullscreenElement === $('screen-box'); }

// The image's CSS size: the column's width (fit), the screen's own pixels (1:1), or in fullscreen
// as large as the display allows at the screen's aspect. Clicks map through the image's box, so
// the box is always exactly the image (never letterboxed).
function layoutScreen() {
  var box = $('screen-box');
  box.classList.toggle('actual', actualSize);
  if (actualSize && shown && shown.screenWidth > 0) {
    screen.style.width = shown.screenWidth + 'px';
  } else if (fullscreenNow() && shown && shown.screenWidth > 0 && shown.screenHeight > 0) {
    var fit = Math.min(box.clientWidth / shown.screenWidth, box.clientHeight / shown.screenHeight);
    screen.style.width = Math.floor(shown.screenWidth * fit) + 'px';
  } else {
    screen.style.width = '';
  }
  drawMarks();
}

$('actual-size').addEventListener('click', function () {
  actualSize = !actualSize;
  $('actual-size').setAttribute('aria-pressed', String(actualSize));
  $('actual-size').textContent = actualSize ? 'Fit' : '1:1';
  $('actual-size').title = actualSize ? 'Fit the screen to the page' : 'Show the screen at its actual pixels (scroll when it is larger than the page)';
  layoutScreen();
  scheduleFrame(0);   // a frame at the new size (1:1 asks for the screen's full width)
});

$('fullscreen').addEventListener('click', function () {
  var box = $('screen-box');
  if (fullscreenNow()) { document.exitFullscreen(); return; }
  if (!box.requestFullscreen) { say('This browser cannot show an element fullscreen.', 'error'); return; }
  box.requestFullscreen().then(function () { screen.focus(); }).catch(function (err) { say('Fullscreen refused: ' + err.message, 'error'); });
});

document.addEventListener('fullscreenchange', function () {
  $('fullscreen').textContent = fullscreenNow() ? 'Exit fullscreen' : 'Fullscreen';
  layoutScreen();
  scheduleFrame(0);
});
window.addEventListener('resize', layoutScreen);

// ---- the pointer and the agent's last click ----

function place(node, x, y) {
  var at = boxPoint(x, y, shown, { left: screen.offsetLeft, top: screen.offsetTop, width: screen.offsetWidth, height: screen.offsetHeight });
  node.hidden = !at;
  if (!at) return;
  node.style.left = at.left + 'px';
  node.style.top = at.top + 'px';
  node.setAttribute('data-x', String(x));
  node.setAttribute('data-y', String(y));
}

function drawMarks() {
  var p = marks.pointer;
  if (p) {
    place($('pointer'), p.x, p.y);
    $('pointer').setAttribute('data-source', p.source);
    $('pointer').title = SOURCES[p.source] || '';
    $('pointer-note').textContent = p.source === 'machine' ? 'pointer: the machine\'s' : 'pointer: last moved by ' + (p.source === 'agent' ? 'the agent' : 'you') + ' (the machine cannot report it)';
  } else {
    $('pointer').hidden = true;
  }
  var c = marks.agentClick;
  if (c) {
    place($('agent-click'), c.x, c.y);
    var age = Date.now() - Date.parse(c.at);
    $('agent-click').classList.toggle('stale', !(age < CLICK_FRESH_MS));
    $('agent-click').setAttribute('data-at', c.at);
    $('agent-click-label').textContent = 'agent clicked ' + clockTime(c.at);
    $('agent-click').title = 'the agent\'s last click, at ' + c.x + ', ' + c.y + ' (' + relTime(c.at) + ')';
  } else {
    $('agent-click').hidden = true;
  }
}

function pollPointer() {
  if (document.hidden || ended || !lease || lease.status !== 'ready' || !shown) { setTimeout(pollPointer, POINTER_MS); return; }
  api('GET', base + '/pointer').then(function (r) {
    marks.pointer = r && r.pointer ? r.pointer : null;
    marks.agentClick = r && r.agent_click ? r.agent_click : null;
    drawMarks();
  }).catch(function () { /* the lease poll reports what is wrong */ }).then(function () {
    setTimeout(pollPointer, POINTER_MS);
  });
}

// ---- the clipboard (only while in control, like other input) ----

// In order with the typed text and clicks before it; unlike send(), the caller sees a failure.
function pasteText(text) {
  flushText();
  var done = inputs.then(function () { return api('POST', base + '/input', { type: 'paste', text: text }); });
  inputs = done.catch(function () { /* reported by the caller */ });
  return done;
}

// A button's work: disabled meanwhile, a failure said on the message line (kept, unlike act()).
function busy(button, work) {
  button.disabled = true;
  return work().catch(function (err) {
    say(errorText(err), 'error');
    if (err.code === 'NOT_IN_CONTROL') refreshLease();
  }).then(function () { button.disabled = false; });
}

$('paste').addEventListener('click', function () {
  var text = $('paste-text').value;
  if (!text) { say('Nothing to paste: put the text in the box first.', 'error'); return; }
  busy($('paste'), function () {
    return pasteText(text).then(function () { $('paste-text').value = ''; say('Pasted ' + text.length + ' characters into the machine.'); screen.focus(); });
  });
});

// Ctrl+V on the screen (the keydown lets the browser's paste through): the person's clipboard.
// A paste outside an editable field targets the selection or the body, so it is caught on the document.
document.addEventListener('paste', function (e) {
  if (!inControl() || document.activeElement !== screen) return;
  e.preventDefault();
  var text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
  if (!text) { say('Your clipboard holds no text to paste.', 'error'); return; }
  pasteText(text).catch(function (err) { say(errorText(err), 'error'); });
});

$('copy-out').addEventListener('click', function () {
  busy($('copy-out'), function () {
    return api('GET', base + '/clipboard').then(function (r) {
      var text = (r && typeof r.text === 'string') ? r.text : '';
      var out = $('clipboard-text');
      out.value = text;
      out.hidden = false;
      out.focus();
      out.select();
      if (!text) return say('The machine\'s clipboard is empty.');
      // Straight into this computer's clipboard where the browser allows it (https or localhost).
      if (navigator.clipboard && navigator.clipboard.writeText) {
        return navigator.clipboard.writeText(text).then(function () { say('Copied the machine\'s clipboard (' + text.length + ' characters).'); },
          function () { say('The machine\'s clipboard is in the box, selected: press Ctrl+C to copy it.'); });
      }
      say('The machine\'s clipboard is in the box, selected: press Ctrl+C to copy it.');
    });
  });
});

pollPointer();
`;
