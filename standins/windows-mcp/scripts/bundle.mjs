// Builds dist/windows-mcp-standin.mjs: the CLI with the MCP SDK inside, one file, for Debian
// bookworm's nodejs 18 in the windows-standin golden (provider-docker copies it by module name).
import { build } from 'esbuild';

await build({
  entryPoints: [new URL('../src/cli.ts', import.meta.url).pathname],
  outfile: new URL('../dist/windows-mcp-standin.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node18',
  legalComments: 'none',
  // CommonJS dependencies (ajv) call require(); give the ESM bundle one
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});
