/**
 * Browser JavaScript both pages share: the API client (same-origin, the HttpOnly cookie rides
 * along), the message line, the principal in the header, relative times and frame fetching.
 * Each page script wraps it with its own code in one IIFE, so nothing leaks into window.
 */
export const COMMON_SCRIPT = String.raw`
var LEASE_ID = /^[0-9a-f-]{36}$/;
var ENDED = { released: 1, failed: 1, expired: 1, reaped: 1 };

function $(id) { return document.getElementById(id); }

function el(tag, props, children) {
  var node = document.createElement(tag);
  if (props) {
    for (var k in props) {
      if (k === 'text') node.textContent = props[k];
      else if (k === 'className') node.className = props[k];
      else if (props[k] !== undefined && props[k] !== null) node.setAttribute(k, String(props[k]));
    }
  }
  (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
  return node;
}

// One line at the top of the page for what went wrong (or right); errors stay until replaced.
function say(text, kind) {
  var box = $('message');
  if (!box) return;
  box.textContent = text || '';
  box.className = 'message' + (kind ? ' ' + kind : '');
  box.hidden = !text;
}

function apiError(res, body) {
  var e = (body && body.error) || {};
  var err = new Error(e.message || (res.status + ' ' + res.statusText));
  err.status = res.status;
  err.code = e.code || '';
  err.hint = e.hint || '';
  return err;
}

function errorText(err) {
  if (err && err.status === 401) return 'Signed out (the sign-in ended, or its token was revoked): reload the page to sign in again.';
  var text = (err && err.message) || String(err);
  if (err && err.code) text = err.code + ': ' + text;
  if (err && err.hint) text += ' ' + err.hint;
  return text;
}

// The server may name the signed-in principal in X-Vmhub-Principal (any API answer) or in a
// principal field of GET /api/leases; the header of the page shows it when it does.
function notePrincipal(res, body) {
  var who = res.headers.get('X-Vmhub-Principal') || (body && typeof body.principal === 'string' ? body.principal : '');
  var slot = $('principal');
  if (who && slot && slot.textContent !== who) { slot.textContent = who; slot.hidden = false; }
}

function api(method, path, body) {
  var init = { method: method, credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return fetch(path, init).then(function (res) {
    return res.text().then(function (text) {
      var data = null;
      try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
      if (!res.ok) throw apiError(res, data);
      notePrincipal(res, data);
      return data;
    });
  });
}

// A screen frame with the geometry headers an <img src> could not read.
function fetchFrame(path) {
  return fetch(path, { credentials: 'same-origin', cache: 'no-store' }).then(function (res) {
    if (!res.ok) {
      return res.text().then(function (text) {
        var data = null;
        try { data = JSON.parse(text); } catch (e) { data = null; }
        throw apiError(res, data);
      });
    }
    var tag = res.headers.get('X-Frame') || '';
    // 204: the screen is what the image on display shows (the request's ?since= named it).
    if (res.status === 204) return { unchanged: true, tag: tag };
    var geometry = {
      screenWidth: Number(res.headers.get('X-Screen-Width')) || 0,
      screenHeight: Number(res.headers.get('X-Screen-Height')) || 0,
      scale: Number(res.headers.get('X-Image-Scale')) || 0
    };
    return res.blob().then(function (blob) { return { blob: blob, geometry: geometry, tag: tag }; });
  });
}

function shortId(id) { return String(id).slice(0, 8); }

function relTime(iso, now) {
  var t = Date.parse(iso);
  if (!isFinite(t)) return '';
  var s = Math.round((t - (now === undefined ? Date.now() : now)) / 1000);
  var a = Math.abs(s);
  var text;
  if (a < 45) return s >= 0 ? 'in a few seconds' : 'just now';
  if (a < 3600) text = Math.round(a / 60) + ' min';
  else if (a < 86400) text = Math.floor(a / 3600) + ' h ' + Math.round((a % 3600) / 60) + ' min';
  else text = Math.round(a / 86400) + ' d';
  return s >= 0 ? 'in ' + text : text + ' ago';
}

function clockTime(iso) {
  var d = new Date(iso);
  return isNaN(d.getTime()) ? '' : d.toLocaleTimeString();
}

function statusBadge(node, status) {
  node.textContent = status || '…';
  node.className = 'badge status-' + (status || 'unknown');
}

function controlBadge(node, control) {
  node.textContent = control || '…';
  node.className = 'badge control-' + (control || 'unknown');
}
`;
