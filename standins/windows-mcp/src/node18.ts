// Debian bookworm's nodejs is 18.19, where globalThis.crypto needs a flag; the MCP SDK uses it.
import { webcrypto } from 'node:crypto';

const g = globalThis as { crypto?: unknown };
if (!g.crypto) g.crypto = webcrypto;
