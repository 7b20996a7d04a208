// The recorded tools/list of each version, generated from Windows-MCP's source by
// scripts/extract-schemas.mjs (see README "Where the schemas come from").
import s058 from './schemas/0.5.8.json' with { type: 'json' };
import s062 from './schemas/0.6.2.json' with { type: 'json' };
import s082 from './schemas/0.8.2.json' with { type: 'json' };
import type { StandinVersion } from './types.ts';

export interface RecordedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface VersionInfo {
  tools: RecordedTool[];
  /** Windows-MCP commit the schemas were read from. */
  commit: string;
  /** The FastMCP its uv.lock pins, whose rules generated the schemas (and FastMCP's serverInfo.version). */
  fastmcp: string;
  instructions: string;
}

export const VERSION_INFO: Record<StandinVersion, VersionInfo> = {
  '0.5.8': {
    tools: (s058 as { tools: RecordedTool[] }).tools,
    commit: 'f2d8aa7566f1d035485b4c3ba416200544e2d673',
    fastmcp: '2.14.2',
    // {windows_version} is filled at start-up from the OS; "Windows 11" here
    instructions: "\nWindows MCP server provides tools to interact directly with the Windows 11 desktop, \nthus enabling to operate the desktop on the user's behalf.\n",
  },
  '0.6.2': {
    tools: (s062 as { tools: RecordedTool[] }).tools,
    commit: '653229f6ffd992163f757ee5cd4c52c7cd15c743',
    fastmcp: '2.14.2',
    instructions: "\nWindows MCP server provides tools to interact directly with the Windows desktop, \nthus enabling to operate the desktop on the user's behalf.\n",
  },
  '0.8.2': {
    tools: (s082 as { tools: RecordedTool[] }).tools,
    commit: 'cba57698164adf9a48f09b411ffb646151fee833',
    fastmcp: '3.4.2',
    instructions: "\nWindows MCP server provides tools to interact directly with the Windows desktop,\nthus enabling to operate the desktop on the user's behalf.\n",
  },
};
