/**
 * /ui/list.js — the lease list: GET /api/leases every 2 s, rows updated in place (so thumbnails
 * do not flicker), one live thumbnail per ready lease refreshed every 2 s; and the workspaces
 * (GET /api/workspaces), each with a Delete button while no lease holds it.
 */
import { $, api, controlBadge, el, errorText, fetchFrame, isEnded, relTime, say, shortId, statusBadge } from './common.ts';
import type { LeaseView } from './types.ts';

const POLL_MS = 2000;
const THUMB_MS = 2000;

interface Row {
  tr: HTMLElement;
  cells: { status: HTMLElement; template: HTMLElement; owner: HTMLElement; expires: HTMLElement; control: HTMLElement };
  thumb: HTMLImageElement;
  placeholder: HTMLElement;
  url: string | null;
  tag?: string;
  timer: number;
  busy: boolean;
  status: string;
}

const rows = new Map<string, Row>();

function leaseHref(id: string): string { return '/ui/leases/' + encodeURIComponent(id); }

function makeRow(lease: LeaseView): Row {
  const id = lease.lease_id;
  // The <img> joins the page only once it holds a frame: until then (starting, or an ended lease
  // that never showed one here) a placeholder says why there is no screen, never a broken image.
  const thumb = el('img', { className: 'thumb', alt: 'screen of lease ' + shortId(id), width: 160, height: 100 }) as HTMLImageElement;
  const placeholder = el('div', { className: 'thumb placeholder', role: 'img', 'aria-label': 'no screen for lease ' + shortId(id) });
  const slot = el('a', { href: leaseHref(id), tabindex: -1 }, [placeholder]);
  thumb.addEventListener('load', () => { if (placeholder.parentNode === slot) slot.replaceChild(thumb, placeholder); });
  const link = el('a', { href: leaseHref(id), className: 'lease-link', text: shortId(id) });
  const cells = {
    status: el('span'), template: el('td'), owner: el('td'), expires: el('td', { className: 'expires' }), control: el('span'),
  };
  const tr = el('tr', { 'data-lease-id': id }, [
    el('td', { className: 'thumb-cell' }, [slot]),
    el('td', null, [link]),
    el('td', null, [cells.status]),
    cells.template,
    cells.owner,
    cells.expires,
    el('td', null, [cells.control]),
  ]);
  // The whole row opens the lease; the link inside stays the keyboard-reachable target.
  tr.addEventListener('click', (e) => { if (!(e.target as Element).closest('a')) location.href = leaseHref(id); });
  return { tr, cells, thumb, placeholder, url: null, timer: 0, busy: false, status: '' };
}

function fillRow(row: Row, lease: LeaseView): void {
  const ended = isEnded(lease.status);
  statusBadge(row.cells.status, lease.status);
  row.cells.template.textContent = lease.template ?? null;
  row.cells.owner.textContent = lease.owner || '—';
  row.cells.expires.textContent = ended ? 'ended' : relTime(lease.expires_at);
  row.cells.expires.title = lease.expires_at ?? '';
  controlBadge(row.cells.control, lease.control);
  row.status = lease.status;
  row.placeholder.textContent = ended ? 'ended' : lease.status === 'ready' ? 'loading…' : (lease.status || '') + '…';
  row.tr.classList.toggle('ended', ended);
}

function refreshThumb(id: string): void {
  const row = rows.get(id);
  if (!row || row.busy) return;
  row.timer = 0;
  if (row.status !== 'ready' || document.hidden) { scheduleThumb(id); return; }
  row.busy = true;
  const since = row.url && row.tag ? '&since=' + encodeURIComponent(row.tag) : '';
  fetchFrame('/api/leases/' + encodeURIComponent(id) + '/screen?max_width=320&format=jpeg' + since).then((frame) => {
    if (!rows.has(id) || frame.unchanged) return;
    row.tag = frame.tag;
    const old = row.url;
    row.url = URL.createObjectURL(frame.blob);
    row.thumb.src = row.url;
    if (old) URL.revokeObjectURL(old);
  }).catch(() => { /* not ready yet or gone: the next list poll says which */ }).then(() => {
    row.busy = false;
    scheduleThumb(id);
  });
}

function scheduleThumb(id: string): void {
  const row = rows.get(id);
  if (row && !row.timer) row.timer = setTimeout(() => refreshThumb(id), THUMB_MS);
}

function dropRow(id: string): void {
  const row = rows.get(id);
  if (!row) return;
  clearTimeout(row.timer);
  if (row.url) URL.revokeObjectURL(row.url);
  row.tr.remove();
  rows.delete(id);
}

function render(leases: LeaseView[]): void {
  const body = $('lease-rows');
  const seen = new Set<string>();
  leases.forEach((lease, i) => {
    const id = lease.lease_id;
    seen.add(id);
    let row = rows.get(id);
    const fresh = !row;
    if (!row) rows.set(id, row = makeRow(lease));
    fillRow(row, lease);
    // Keep the server's order (newest first) without re-creating rows.
    if (body.children[i] !== row.tr) body.insertBefore(row.tr, body.children[i] || null);
    if (fresh) refreshThumb(id);
  });
  for (const id of [...rows.keys()]) if (!seen.has(id)) dropRow(id);
  $('empty').hidden = leases.length > 0;
  $('lease-count').textContent = leases.length === 1 ? '1 lease' : leases.length + ' leases';
}

interface WorkspaceView { name: string; principal: string; provider: string; holder_lease?: string; bytes: number; used_at: string }

/** The workspaces table: a Delete button per free workspace (a person's act; the server refuses a bearer token). */
function renderWorkspaces(list: WorkspaceView[]): void {
  const body = $('workspace-rows');
  body.replaceChildren(...list.map((w) => {
    const del = el('button', { type: 'button', className: 'danger', text: 'Delete', title: w.holder_lease ? 'attached to a lease: release it first' : 'delete this workspace and its files for good' }) as HTMLButtonElement;
    del.disabled = w.holder_lease !== undefined;
    del.addEventListener('click', () => {
      if (!confirm('Delete workspace "' + w.name + '" of ' + w.principal + ' and every file in it? This cannot be undone.')) return;
      del.disabled = true;
      api('POST', '/api/workspaces/' + encodeURIComponent(w.name) + '/delete').then(() => say('workspace ' + w.name + ' deleted')).catch((err) => { say(errorText(err), 'error'); del.disabled = false; });
    });
    return el('tr', { 'data-workspace': w.name }, [
      el('td', { text: w.name }), el('td', { text: w.principal }), el('td', { text: w.provider }),
      el('td', null, [w.holder_lease ? el('a', { href: leaseHref(w.holder_lease), text: shortId(w.holder_lease) }) : '—']),
      el('td', { text: (w.bytes / 1024 ** 2).toFixed(1) + ' MiB' }), el('td', { text: relTime(w.used_at), title: w.used_at }), el('td', null, [del]),
    ]);
  }));
  $('workspaces-empty').hidden = list.length > 0;
  $('workspace-count').textContent = list.length === 1 ? '1 workspace' : list.length + ' workspaces';
}

function poll(): void {
  api<{ workspaces?: WorkspaceView[] } | null>('GET', '/api/workspaces').then((data) => renderWorkspaces((data && data.workspaces) || [])).catch(() => { /* the lease list says what is wrong */ });
  api<{ leases?: LeaseView[] } | null>('GET', '/api/leases').then((data) => {
    render((data && data.leases) || []);
    say('');
  }).catch((err) => {
    say(errorText(err), 'error');
  }).then(() => {
    setTimeout(poll, POLL_MS);
  });
}

poll();
