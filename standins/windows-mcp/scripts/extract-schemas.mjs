#!/usr/bin/env node
// Regenerates src/schemas/<version>.json from Windows-MCP's own Python source, applying the rules
// FastMCP + pydantic use to turn a tool function into a `tools/list` entry. pip is not reachable
// here, so the rules are read from the generators' sources (pinned in each version's uv.lock):
//  - pydantic 2.12.5 json_schema.py: kw_arguments_schema (properties, required, additionalProperties
//    false), default_schema (`default`), nullable/union → flattened `anyOf`, literal → `enum`/`const`
//    + `type`, list → `items` + `type: array`, Field(description) → `description`.
//  - fastmcp 2.14.2 tools/tool.py + utilities/json_schema.py: titles pruned, additionalProperties
//    false pruned (compress_schema default), `_meta: {_fastmcp: {tags: []}}`.
//  - fastmcp 3.4.2 tools/function_parsing.py + utilities/json_schema.py: titles pruned,
//    additionalProperties false KEPT (compress_schema default changed), `_meta: {fastmcp: {tags: []}}`.
//  - both: Context parameters dropped; a non-object return type (str) is wrapped as
//    {type: object, properties: {result}, required: [result], x-fastmcp-wrap-result: true};
//    no return annotation → no outputSchema; `title` = annotations.title.
// Usage: node scripts/extract-schemas.mjs <git-dir> <commit> <fastmcp-major 2|3> <out.json> <file.py>...
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [gitDir, commit, fastmcpMajor, out, ...files] = process.argv.slice(2);
if (!files.length) throw new Error('usage: extract-schemas.mjs <git-dir> <commit> <2|3> <out.json> <file.py>...');

const show = (f) => execFileSync('git', ['--git-dir', gitDir, 'show', `${commit}:${f}`], { encoding: 'utf8' });

// --- a tiny Python literal reader ---------------------------------------------------------------
function readString(src, i) {
  // returns [value, nextIndex]; handles '', "", triple quotes and the escapes the sources use
  let prefix = '';
  while (/[rRbBuU]/.test(src[i])) prefix += src[i++];
  const q = src.startsWith("'''", i) || src.startsWith('"""', i) ? src.slice(i, i + 3) : src[i];
  i += q.length;
  let s = '';
  const raw = /r/i.test(prefix);
  while (!src.startsWith(q, i)) {
    const c = src[i];
    if (c === '\\' && !raw) {
      const n = src[i + 1];
      const map = { n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"', r: '\r', '\n': '' };
      if (!(n in map)) throw new Error(`escape \\${n} at ${i}`);
      s += map[n]; i += 2; continue;
    }
    s += c; i++;
  }
  return [s, i + q.length];
}
const skipWs = (src, i) => { while (/\s/.test(src[i]) || src[i] === '#') { if (src[i] === '#') { while (src[i] !== '\n') i++; } else i++; } return i; };

// an expression up to a top-level `,` or `)`; returns [text, next]
function readExpr(src, i) {
  let depth = 0; const start = i;
  while (i < src.length) {
    const c = src[i];
    if (c === "'" || c === '"') { i = readString(src, i)[1]; continue; }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) { if (depth === 0) break; depth--; }
    else if (c === ',' && depth === 0) break;
    i++;
  }
  return [src.slice(start, i).trim(), i];
}
// everything up to the matching close paren; returns [text, indexAfterParen]
function readParens(src, i) {
  let depth = 0; const start = i;
  for (; ; i++) {
    const c = src[i];
    if (c === "'" || c === '"') { i = readString(src, i)[1] - 1; continue; }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) { if (depth === 0) return [src.slice(start, i), i + 1]; depth--; }
  }
}
// concatenated string literals, optionally parenthesised
function stringValue(expr) {
  let e = expr.trim();
  if (e.startsWith('(') && e.endsWith(')')) e = e.slice(1, -1);
  let i = skipWs(e, 0), s = '';
  while (i < e.length) { const [v, n] = readString(e, i); s += v; i = skipWs(e, n); }
  return s;
}
function kwargs(text) { // "a=1, b='x'" → {a: '1', b: "'x'"}
  const r = {}; let i = 0;
  while (i < text.length) {
    i = skipWs(text, i); if (i >= text.length) break;
    const m = /^(\w+)\s*=/.exec(text.slice(i)); if (!m) throw new Error(`kwarg at: ${text.slice(i, i + 40)}`);
    i += m[0].length; const [v, n] = readExpr(text, i); r[m[1]] = v; i = n + 1;
  }
  return r;
}
function literal(v) {
  v = v.trim();
  if (v === 'None') return null; if (v === 'True') return true; if (v === 'False') return false;
  if (/^-?\d+$/.test(v)) return Number(v);
  if (/^-?\d+\.\d*$/.test(v)) return { float: Number(v) };
  if (v[0] === "'" || v[0] === '"') return stringValue(v);
  throw new Error(`literal ${v}`);
}

// --- Python annotation → pydantic JSON schema ---------------------------------------------------
function splitTop(s, sep) {
  const parts = []; let depth = 0, cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') { const [, n] = readString(s, i); cur += s.slice(i, n); i = n - 1; continue; }
    if ('([{'.includes(c)) depth++; if (')]}'.includes(c)) depth--;
    if (depth === 0 && s.startsWith(sep, i)) { parts.push(cur.trim()); cur = ''; i += sep.length - 1; continue; }
    cur += c;
  }
  parts.push(cur.trim()); return parts;
}
function typeSchema(t, aliases) {
  t = t.trim();
  if (aliases[t]) return typeSchema(aliases[t], aliases);
  const members = splitTop(t, '|');
  if (members.length > 1) {
    const nullable = members.includes('None');
    const rest = members.filter((m) => m !== 'None').map((m) => typeSchema(m, aliases));
    const flat = [];
    for (const s of [...rest, ...(nullable ? [{ type: 'null' }] : [])]) {
      if (Object.keys(s).length === 1 && s.anyOf) flat.push(...s.anyOf); else flat.push(s);
    }
    return flat.length === 1 ? flat[0] : { anyOf: flat };
  }
  if (t === 'str') return { type: 'string' };
  if (t === 'int') return { type: 'integer' };
  if (t === 'float') return { type: 'number' };
  if (t === 'bool') return { type: 'boolean' };
  if (t === 'None') return { type: 'null' };
  if (t === 'list') return { items: {}, type: 'array' };
  let m = /^list\[(.*)\]$/s.exec(t);
  if (m) return { items: typeSchema(m[1], aliases), type: 'array' };
  m = /^Literal\[(.*)\]$/s.exec(t);
  if (m) {
    const values = splitTop(m[1], ',').filter(Boolean).map(literal);
    const r = values.length === 1 ? { const: values[0] } : { enum: values };
    if (values.every((v) => typeof v === 'string')) r.type = 'string';
    return r;
  }
  m = /^Annotated\[(.*)\]$/s.exec(t);
  if (m) {
    const [inner, ...meta] = splitTop(m[1], ',').filter(Boolean);
    const s = typeSchema(inner, aliases);
    for (const x of meta) {
      const f = /^Field\((.*)\)$/s.exec(x.trim());
      if (!f) throw new Error(`Annotated metadata ${x}`);
      const kw = kwargs(f[1]);
      if (kw.description) s.description = stringValue(kw.description);
      for (const k of Object.keys(kw)) if (k !== 'description') throw new Error(`Field(${k}) not handled`);
    }
    return s;
  }
  throw new Error(`type ${t}`);
}

function paramsSchema(sig, aliases) {
  const properties = {}; const required = [];
  for (const p of splitTop(sig, ',').filter(Boolean)) {
    const [head, ...dflts] = splitTop(p, '='); // top level only: Field(description=…) stays whole
    const [name, type] = splitTop(head, ':');
    const dflt = dflts.length ? dflts.join('=') : undefined;
    if (/^Context\b/.test(type ?? '')) continue; // injected, never in the schema
    const s = typeSchema(type, aliases);
    if (dflt !== undefined) {
      const v = literal(dflt);
      s.default = v && typeof v === 'object' ? v.float : v;
    } else required.push(name);
    properties[name] = s;
  }
  const schema = { type: 'object', properties };
  if (required.length) schema.required = required;
  if (fastmcpMajor === '3') schema.additionalProperties = false; // 2.x prunes it, 3.x keeps it
  return schema;
}

// --- find every @mcp.tool(...) + the def it decorates -------------------------------------------
const tools = [];
const read = [...files];
for (const file of files) {
  const src = show(file);
  const aliases = {};
  for (const m of src.matchAll(/^(\w+)\s*=\s*(Literal\[[\s\S]*?\])\s*$/gm)) aliases[m[1]] = m[2];
  if (/RegistryType/.test(src) && !aliases.RegistryType) {
    const views = file.replace(/tools\/registry\.py$/, 'registry/views.py');
    read.push(views);
    const v = show(views);
    const m = /^RegistryType\s*=\s*(Literal\[[\s\S]*?\])/m.exec(v); aliases.RegistryType = m[1];
  }
  let at = 0;
  for (;;) {
    const k = src.indexOf('@mcp.tool(', at); if (k < 0) break;
    const [args, end] = readParens(src, k + '@mcp.tool('.length);
    const kw = kwargs(args);
    const d = /(?:async\s+)?def\s+\w+\s*\(/g; d.lastIndex = end; const dm = d.exec(src);
    const [sig, sigEnd] = readParens(src, dm.index + dm[0].length);
    const ret = /^\s*(->\s*([^:]+))?:/.exec(src.slice(sigEnd))?.[2]?.trim();
    const ann = kwargs(/^ToolAnnotations\(([\s\S]*)\)$/.exec(kw.annotations.trim())[1]);
    const annotations = {};
    for (const [key, v] of Object.entries(ann)) annotations[key] = literal(v);
    const tool = { name: stringValue(kw.name), title: annotations.title, description: stringValue(kw.description),
      inputSchema: paramsSchema(sig, aliases) };
    if (ret && ret !== 'None') {
      if (ret !== 'str') throw new Error(`return type ${ret} not handled`);
      tool.outputSchema = { type: 'object', properties: { result: { type: 'string' } }, required: ['result'], 'x-fastmcp-wrap-result': true };
    }
    tool.annotations = annotations;
    tool._meta = fastmcpMajor === '3' ? { fastmcp: { tags: [] } } : { _fastmcp: { tags: [] } };
    tools.push(tool);
    at = sigEnd;
  }
}
// where the list comes from, kept beside it (JSON has no comments)
const source = { repository: 'CursorTouch/Windows-MCP', commit, files: read, rules: fastmcpMajor === '3' ? 'fastmcp 3.4.2 + pydantic 2.12.5' : 'fastmcp 2.14.2 + pydantic 2.12.5', generator: 'scripts/extract-schemas.mjs' };
writeFileSync(out, JSON.stringify({ source, tools }, null, 2) + '\n');
console.log(`${out}: ${tools.map((t) => t.name).join(', ')}`);
