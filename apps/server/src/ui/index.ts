/**
 * The dashboard's files, served by the HTTP server's /ui routes (http.ts) behind the same token
 * as /mcp. The scripts are TypeScript modules under ui/browser/, bundled per page at build time
 * (build-ui.mjs) and kept with app.css as strings in assets.generated.ts: the bundled bin and the
 * library build carry them, and nothing under dist has to be found at run time. '/ui/lease' is
 * the lease page, served for /ui/leases/<id>; the page reads the id from its own address.
 */
import { APP_CSS, LEASE_JS, LIST_JS } from './assets.generated.ts';
import { LEASE_HTML } from './lease-page.ts';
import { LIST_HTML } from './list-page.ts';

export { MCP_APP_HTML } from './mcp-app-page.ts';

export interface UiFile {
  /** The Content-Type to answer with. */
  type: string;
  body: string;
}

export const UI_FILES: Record<string, UiFile> = {
  '/ui/': { type: 'text/html; charset=utf-8', body: LIST_HTML },
  '/ui/lease': { type: 'text/html; charset=utf-8', body: LEASE_HTML },
  '/ui/app.css': { type: 'text/css; charset=utf-8', body: APP_CSS },
  '/ui/list.js': { type: 'text/javascript; charset=utf-8', body: LIST_JS },
  '/ui/lease.js': { type: 'text/javascript; charset=utf-8', body: LEASE_JS },
};
