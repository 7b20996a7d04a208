/**
 * Core hands every adapter POSIX-style guest paths: absolute, normalised, relative ones already
 * joined to the channel's home — which, for a lease with no GuestChannel (this adapter's case), is
 * core's fallback "/root". Windows paths are written in that form as follows:
 *
 *   /root/…          → the desktop user's home (…\Users\<user>\…): where relative paths land
 *                      (likewise the home of a GuestChannel the lease has, which core then uses)
 *   /C:/Users/x/…    → C:\Users\x\…      (any drive letter)
 *   /c/Users/x/…     → C:\Users\x\…      (a one-letter first segment is a drive, as in Git Bash)
 *   /other/…         → C:\other\…        (the system drive)
 */
const HOME = '/root';

/**
 * `homes`: the POSIX homes core may have joined relative paths to — "/root", and the home of a
 * GuestChannel the provider offers beside Windows-MCP (a stand-in's container channel), if any.
 */
export function windowsPath(path: string, home: string, homes: readonly string[] = [HOME]): string {
  const rest = (p: string) => p.split('/').filter((s) => s.length > 0).join('\\');
  for (const h of homes) {
    if (path === h || path.startsWith(`${h}/`)) {
      const tail = rest(path.slice(h.length));
      return tail ? `${home.replace(/\\+$/, '')}\\${tail}` : home;
    }
  }
  const drive = /^\/([A-Za-z])(?::)?(?=\/|$)(.*)$/.exec(path);
  if (drive) return `${drive[1]!.toUpperCase()}:\\${rest(drive[2]!)}`;
  return `C:\\${rest(path)}`;
}
