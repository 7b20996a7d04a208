/** /ui/ — the lease list. Rows are filled by /ui/list.js from GET /api/leases. */
import { page } from './page.ts';

export const LIST_HTML = page('vmhub — leases', '/ui/list.js', `<main class="list">
<div class="title-row">
<h1>Leases</h1>
<span class="muted" id="lease-count"></span>
</div>
<table id="leases" class="leases">
<thead>
<tr><th scope="col">Screen</th><th scope="col">Lease</th><th scope="col">Status</th><th scope="col">Template</th><th scope="col">Owner</th><th scope="col">Expires</th><th scope="col">Control</th></tr>
</thead>
<tbody id="lease-rows"></tbody>
</table>
<p id="empty" class="empty" hidden>No leases yet. An agent creates one with <code>vm_lease_create</code>; ended leases stay listed for an hour.</p>
</main>`);
