/** /ui/ — the lease list and the workspaces. Rows are filled by /ui/list.js from GET /api/leases and /api/workspaces. */
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
<div class="title-row">
<h2>Workspaces</h2>
<span class="muted" id="workspace-count"></span>
</div>
<table id="workspaces" class="leases">
<thead>
<tr><th scope="col">Name</th><th scope="col">Principal</th><th scope="col">Provider</th><th scope="col">Attached to</th><th scope="col">Size</th><th scope="col">Last used</th><th scope="col">Delete</th></tr>
</thead>
<tbody id="workspace-rows"></tbody>
</table>
<p id="workspaces-empty" class="empty" hidden>No workspaces. <code>vm_lease_create {workspace}</code> makes one; only a person deletes it (here, or <code>vmhub-server workspaces rm</code>).</p>
</main>`);
