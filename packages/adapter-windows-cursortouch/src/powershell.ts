/**
 * The PowerShell scripts the adapter sends through Windows-MCP's PowerShell tool, and the
 * parsers for what comes back. Rules:
 * - Agent data never appears in a script as text. Every argument, path, byte and stdin travels
 *   as base64 of its bytes and is decoded inside the script: no quoting to get wrong (PowerShell
 *   also treats the typographic quotes ‘ ’ ‚ ‛ as string delimiters, which defeats '' doubling).
 * - Each script starts with a marker line (`# vmhub:<kind>`) and prints one marker line back
 *   (`vmhub-<kind> …`), so its answer is found in whatever else PowerShell prints.
 * - Windows-MCP runs a script as `powershell -EncodedCommand <base64 of UTF-16LE>`, on a
 *   32 767-character command line: a script must stay under MAX_SCRIPT characters.
 * - Written for Windows PowerShell 5.1 and PowerShell 7 alike (no ProcessStartInfo.ArgumentList,
 *   which 5.1 lacks: argv is joined with the MSVCRT quoting rules instead).
 */
import { winError } from './errors.ts';

export const MAX_SCRIPT = 12_000;

const b64 = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s).toString('base64');

const PRELUDE = String.raw`$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
function vmText([string]$b) { [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($b)) }`;

/** Prints the desktop user's home. */
export function homeScript(): string {
  return `# vmhub:home\n${PRELUDE}\n'vmhub-home ' + $HOME`;
}

/** Prints the virtual screen (all monitors) in pixels. */
export function screenScript(): string {
  return `# vmhub:screen
${PRELUDE}
Add-Type -AssemblyName System.Windows.Forms
$v = [System.Windows.Forms.SystemInformation]::VirtualScreen
'vmhub-screen ' + (@{ x = $v.X; y = $v.Y; width = $v.Width; height = $v.Height } | ConvertTo-Json -Compress)`;
}

/** Prints the clipboard's text (for releases without a Clipboard tool). */
export function clipGetScript(): string {
  return `# vmhub:clip-get
${PRELUDE}
$t = Get-Clipboard -Raw
if ($null -eq $t) { $t = '' }
'vmhub-clip-get ' + (@{ text = [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes([string]$t)) } | ConvertTo-Json -Compress)`;
}

/** Sets the clipboard's text. */
export function clipSetScript(text: string): string {
  return `# vmhub:clip-set
$vmText = '${b64(text)}'
${PRELUDE}
$t = vmText $vmText
# Set-Clipboard refuses an empty string; $null empties the clipboard.
if ($t.Length -eq 0) { Set-Clipboard -Value $null } else { Set-Clipboard -Value $t }
'vmhub-clip-set ok'`;
}

export interface ExecScript {
  argv: string[];
  cwd?: string;
  stdin?: Buffer;
  /** A guest file holding stdin, for stdin too big for the command line. */
  stdinFile?: string;
  timeoutMs: number;
  maxOutputBytes: number;
}

const EXEC_BODY = String.raw`
$argv = @($vmArgv | ForEach-Object { vmText $_ })
function vmQuote([string]$a) {
  if ($a.Length -gt 0 -and $a -notmatch '[\s"]') { return $a }
  $r = '"'; $bs = 0
  foreach ($ch in $a.ToCharArray()) {
    if ($ch -eq '\') { $bs++; continue }
    if ($ch -eq '"') { $r += ('\' * (2 * $bs + 1)) + '"' } else { $r += ('\' * $bs) + $ch }
    $bs = 0
  }
  return $r + ('\' * (2 * $bs)) + '"'
}
function vmCap([IO.MemoryStream]$ms) {
  $b = $ms.ToArray()
  if ($b.Length -gt $vmMax) { $script:vmTrunc = $true; $c = New-Object byte[] $vmMax; [Array]::Copy($b, $c, $vmMax); $b = $c }
  [Convert]::ToBase64String($b)
}
$vmTrunc = $false
$psi = New-Object System.Diagnostics.ProcessStartInfo
$psi.FileName = $argv[0]
$psi.Arguments = (@($argv | Select-Object -Skip 1 | ForEach-Object { vmQuote $_ }) -join ' ')
$psi.UseShellExecute = $false
$psi.RedirectStandardInput = $true
$psi.RedirectStandardOutput = $true
$psi.RedirectStandardError = $true
$psi.WorkingDirectory = $(if ($vmCwd) { vmText $vmCwd } else { $HOME })
try { $p = [Diagnostics.Process]::Start($psi) } catch {
  $msg = [Text.Encoding]::UTF8.GetBytes("$($argv[0]): $($_.Exception.Message)")
  'vmhub-exec ' + (@{ exit = 127; timed_out = $false; truncated = $false; stdout = ''; stderr = [Convert]::ToBase64String($msg) } | ConvertTo-Json -Compress)
  exit 0
}
$out = New-Object IO.MemoryStream; $err = New-Object IO.MemoryStream
$outTask = $p.StandardOutput.BaseStream.CopyToAsync($out)
$errTask = $p.StandardError.BaseStream.CopyToAsync($err)
if ($vmStdinFile) { $in = [IO.File]::ReadAllBytes((vmText $vmStdinFile)) } elseif ($vmStdin) { $in = [Convert]::FromBase64String($vmStdin) } else { $in = $null }
try { if ($in) { $p.StandardInput.BaseStream.Write($in, 0, $in.Length) }; $p.StandardInput.Close() } catch {}
$done = $p.WaitForExit($vmTimeoutMs)
if (-not $done) { try { $p.Kill() } catch {}; [void]$p.WaitForExit(5000) }
try { [void]$outTask.Wait(5000); [void]$errTask.Wait(5000) } catch {}
$o = [ordered]@{ exit = $(if ($done) { $p.ExitCode } else { $null }); timed_out = (-not $done); truncated = $false; stdout = (vmCap $out); stderr = (vmCap $err) }
$o.truncated = $vmTrunc
'vmhub-exec ' + ($o | ConvertTo-Json -Compress)`;

/** Runs argv (no shell) in cwd with stdin, bounded; prints `vmhub-exec {exit, timed_out, truncated, stdout, stderr}`. */
export function execScript(e: ExecScript): string {
  const lines = [
    '# vmhub:exec',
    `$vmArgv = @(${e.argv.map((a) => `'${b64(a)}'`).join(', ')})`,
    `$vmCwd = '${e.cwd === undefined ? '' : b64(e.cwd)}'`,
    e.stdinFile === undefined ? `$vmStdin = '${e.stdin ? b64(e.stdin) : ''}'` : `$vmStdinFile = '${b64(e.stdinFile)}'`,
    `$vmTimeoutMs = ${Math.max(1, Math.floor(e.timeoutMs))}`,
    `$vmMax = ${Math.max(1, Math.floor(e.maxOutputBytes))}`,
  ];
  return `${lines.join('\n')}\n${PRELUDE}${EXEC_BODY}`;
}

/** Writes one chunk: `create` makes parent directories and truncates, `append` adds. Prints `vmhub-put <size>`. */
export function putScript(path: string, data: Buffer, mode: 'create' | 'append'): string {
  return `# vmhub:put
$vmPath = '${b64(path)}'
$vmData = '${data.toString('base64')}'
$vmMode = '${mode}'
${PRELUDE}
$path = vmText $vmPath
$bytes = [Convert]::FromBase64String($vmData)
if ($vmMode -eq 'create') {
  $dir = [IO.Path]::GetDirectoryName($path)
  if ($dir) { [void][IO.Directory]::CreateDirectory($dir) }
  $f = [IO.File]::Open($path, [IO.FileMode]::Create, [IO.FileAccess]::Write)
} else { $f = [IO.File]::Open($path, [IO.FileMode]::Append, [IO.FileAccess]::Write) }
try { $f.Write($bytes, 0, $bytes.Length); $size = $f.Length } finally { $f.Close() }
'vmhub-put ' + $size`;
}

/** Replaces `to` with `from` (the finished upload). Prints `vmhub-rename ok`. */
export function renameScript(from: string, to: string): string {
  return `# vmhub:rename
$vmFrom = '${b64(from)}'
$vmTo = '${b64(to)}'
${PRELUDE}
$from = vmText $vmFrom; $to = vmText $vmTo
if ([IO.File]::Exists($to)) { [IO.File]::Delete($to) }
[IO.File]::Move($from, $to)
'vmhub-rename ok'`;
}

/** Deletes a file if it exists. Prints `vmhub-remove ok`. */
export function removeScript(path: string): string {
  return `# vmhub:remove
$vmPath = '${b64(path)}'
${PRELUDE}
$path = vmText $vmPath
if ([IO.File]::Exists($path)) { [IO.File]::Delete($path) }
'vmhub-remove ok'`;
}

/** Reads up to `length` bytes at `offset`. Prints `vmhub-get {size, data}`, `{missing}` or `{directory}`. */
export function getScript(path: string, offset: number, length: number): string {
  return `# vmhub:get
$vmPath = '${b64(path)}'
$vmOffset = ${offset}
$vmLength = ${length}
${PRELUDE}
$path = vmText $vmPath
if ([IO.Directory]::Exists($path)) { 'vmhub-get {"directory":true}'; exit 0 }
if (-not [IO.File]::Exists($path)) { 'vmhub-get {"missing":true}'; exit 0 }
$f = [IO.File]::Open($path, [IO.FileMode]::Open, [IO.FileAccess]::Read, [IO.FileShare]::ReadWrite)
try {
  $size = $f.Length
  [void]$f.Seek([Math]::Min($vmOffset, $size), [IO.SeekOrigin]::Begin)
  $buf = New-Object byte[] ([Math]::Max(0, [Math]::Min($vmLength, $size - $vmOffset)))
  $n = 0
  while ($n -lt $buf.Length) { $r = $f.Read($buf, $n, $buf.Length - $n); if ($r -le 0) { break }; $n += $r }
} finally { $f.Close() }
'vmhub-get {"size":' + $size + ',"data":"' + [Convert]::ToBase64String($buf, 0, $n) + '"}'`;
}

/** Windows-MCP's PowerShell answer: `Response: …\nStatus Code: N` (newer) or `Status Code: N\nResponse: …` (v0.1). */
export function parsePowerShellReply(text: string): { response: string; status?: number } {
  const newer = /^\s*Response: ?([\s\S]*?)\r?\nStatus Code: ?(-?\d+)\s*$/.exec(text);
  if (newer) return { response: newer[1]!, status: Number(newer[2]) };
  const older = /^\s*Status Code: ?(-?\d+)\r?\nResponse: ?([\s\S]*)$/.exec(text);
  if (older) return { response: older[2]!, status: Number(older[1]) };
  return { response: text };
}

/** The payload of the script's marker line, or a typed error carrying what PowerShell said instead. */
export function markerPayload(kind: string, text: string): string {
  const { response, status } = parsePowerShellReply(text);
  const line = new RegExp(`^vmhub-${kind} (.*)$`, 'm').exec(response);
  if (line) return line[1]!.trim();
  const said = response.trim().slice(0, 1500) || '(no output)';
  const code = /denied|unauthori[sz]ed/i.test(said) ? 'INVALID_REQUEST' : 'INTERNAL';
  throw winError(code, `the PowerShell ${kind} script failed in the guest${status === undefined ? '' : ` (status ${status})`}: ${said}`);
}

export interface ExecOutcome {
  exit_code: number | null;
  timed_out: boolean;
  truncated: boolean;
  stdout: Buffer;
  stderr: Buffer;
}

export function parseExec(text: string): ExecOutcome {
  const raw = markerPayload('exec', text);
  let o: { exit?: unknown; timed_out?: unknown; truncated?: unknown; stdout?: unknown; stderr?: unknown };
  try { o = JSON.parse(raw); } catch { throw winError('INTERNAL', `the exec script printed an unreadable result: ${raw.slice(0, 200)}`); }
  return {
    exit_code: typeof o.exit === 'number' ? o.exit : null,
    timed_out: o.timed_out === true,
    truncated: o.truncated === true,
    stdout: Buffer.from(typeof o.stdout === 'string' ? o.stdout : '', 'base64'),
    stderr: Buffer.from(typeof o.stderr === 'string' ? o.stderr : '', 'base64'),
  };
}

export function parseGet(text: string): { missing: true } | { directory: true } | { size: number; data: Buffer } {
  const raw = markerPayload('get', text);
  let o: { missing?: unknown; directory?: unknown; size?: unknown; data?: unknown };
  try { o = JSON.parse(raw); } catch { throw winError('INTERNAL', `the read script printed an unreadable result: ${raw.slice(0, 200)}`); }
  if (o.missing === true) return { missing: true };
  if (o.directory === true) return { directory: true };
  return { size: Number(o.size), data: Buffer.from(typeof o.data === 'string' ? o.data : '', 'base64') };
}
