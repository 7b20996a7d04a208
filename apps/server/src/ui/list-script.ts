/**
 * /ui/list.js — the lease list: GET /api/leases every 2 s, rows updated in place (so thumbnails
 * do not flicker), one live thumbnail per ready lease refreshed every 2 s.
 */
import { COMMON_SCRIPT } from './common-script.ts';

const LIST_SCRIPT = String.raw`
var POLL_MS = 2000;
var THUMB_MS = 2000;
var rows = {};      // lease id → {tr, cells, thumb, url, timer, busy}

function leaseHref(id) { return '/ui/leases/' + encodeURIComponent(id); }

function makeRow(lease) {
  var id = lease.lease_id;
  // The <img> joins the page only once it holds a frame: until then (starting, or an ended lease
  // that never showed one here) a placeholder says why there is no screen, never a broken image.
  var thumb = el('img', { className: 'thumb', alt: 'screen of lease ' + shortId(id), width: 160, height: 100 });
  var placeholder = el('div', { className: 'thumb placeholder', role: 'img', 'aria-label': 'no screen for lease ' + shortId(id) });
  var slot = el('a', { href: leaseHref(id), tabindex: -1 }, [placeholder]);
  thumb.addEventListener('load', function () { if (placeholder.parentNode === slot) slot.replaceChild(thumb, placeholder); });
  var link = el('a', { href: leaseHref(id), className: 'lease-link', text: shortId(id) });
  var cells = {
    status: el('span'), template: el('td'), owner: el('td'), expires: el('td', { className: 'expires' }), control: el('span')
  };
  var tr = el('tr', { 'data-lease-id': id }, [
    el('td', { className: 'thumb-cell' }, [slot]),
    el('td', null, [link]),
    el('td', null, [cells.status]),
    cells.template,
    cells.owner,
    cells.expires,
    el('td', null, [cells.control])
  ]);
  // The whole row opens the lease; the link inside stays the keyboard-reachable target.
  tr.addEventListener('click', function (e) { if (!e.target.closest('a')) location.href = leaseHref(id); });
  return { tr: tr, cells: cells, thumb: thumb, placeholder: placeholder, url: null, timer: 0, busy: false, status: '' };
}

function fillRow(row, lease) {
  statusBadge(row.cells.status, lease.status);
  row.cells.template.textContent = lease.template;
  row.cells.owner.textContent = lease.owner || '—';
  row.cells.expires.textContent = ENDED[lease.status] ? 'ended' : relTime(lease.expires_at);
  row.cells.expires.title = lease.expires_at;
  controlBadge(row.cells.control, lease.control);
  row.status = lease.status;
  row.placeholder.textContent = ENDED[lease.status] ? 'ended' : lease.status === 'ready' ? 'loading…' : (lease.status || '') + '…';
  row.tr.classList.toggle('ended', !!ENDED[lease.status]);
}

function refreshThumb(id) {
  var row = rows[id];
  if (!row || row.busy) return;
  row.timer = 0;
  if (row.status !== 'ready' || document.hidden) { scheduleThumb(id); return; }
  row.busy = true;
  var since = row.url && row.tag ? '&since=' + encodeURIComponent(row.tag) : '';
  fetchFrame('/api/leases/' + encodeURIComponent(id) + '/screen?max_width=320&format=jpeg' + since).then(function (frame) {
    if (!rows[id] || frame.unchanged) return;
    row.tag = frame.tag;
    var old = row.url;
    row.url = URL.createObjectURL(frame.blob);
    row.thumb.src = row.url;
    if (old) URL.revokeObjectURL(old);
  }).catch(function () { /* not ready yet or gone: the next list poll says which */ }).then(function () {
    row.busy = false;
    scheduleThumb(id);
  });
}

function scheduleThumb(id) {
  var row = rows[id];
  if (row && !row.timer) row.timer = setTimeout(function () { refreshThumb(id); }, THUMB_MS);
}

function dropRow(id) {
  var row = rows[id];
  if (!row) return;
  clearTimeout(row.timer);
  if (row.url) URL.revokeObjectURL(row.url);
  row.tr.remove();
  delete rows[id];
}

function render(leases) {
  var body = $('lease-rows');
  var seen = {};
  leases.forEach(function (lease, i) {
    var id = lease.lease_id;
    seen[id] = true;
    var row = rows[id];
    var fresh = !row;
    if (fresh) row = rows[id] = makeRow(lease);
    fillRow(row, lease);
    // Keep the server's order (newest first) without re-creating rows.
    if (body.children[i] !== row.tr) body.insertBefore(row.tr, body.children[i] || null);
    if (fresh) refreshThumb(id);
  });
  Object.keys(rows).forEach(function (id) { if (!seen[id]) dropRow(id); });
  $('empty').hidden = leases.length > 0;
  $('lease-count').textContent = leases.length === 1 ? '1 lease' : leases.length + ' leases';
}

function poll() {
  api('GET', '/api/leases').then(function (data) {
    render((data && data.leases) || []);
    say('');
  }).catch(function (err) {
    say(errorText(err), 'error');
  }).then(function () {
    setTimeout(poll, POLL_MS);
  });
}

poll();
`;

export const LIST_JS = `(function () {\n'use strict';\n${COMMON_SCRIPT}\n${LIST_SCRIPT}\n})();\n`;
