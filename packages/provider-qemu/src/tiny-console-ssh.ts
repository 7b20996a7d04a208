/**
 * The SSH part of the `tiny-console-agent` golden (tiny-console-recipe.ts adds it): Debian's
 * OpenSSH sshd and ssh-keygen from the host with the shared libraries ldd names, an sshd_config,
 * and `/sbin/vmhub-nocloud`, a minimal cloud-init NoCloud reader the init runs once at boot.
 *
 * Nothing secret is in the image: no host key and no authorized_keys. At boot vmhub-nocloud
 *   - looks for the block device labelled `cidata` (findfs; the per-lease seed nocloud-seed.ts
 *     writes) and, when there is none, stops: no network, no sshd — a lease without a seed has no
 *     way in by SSH at all;
 *   - reads `meta-data` (instance-id, local-hostname → hostname) and, from `user-data`, the
 *     `ssh_authorized_keys:` list of each `users:` entry that begins with `- name:` (block style,
 *     as vmhub writes it; flow-style lists, `ssh_import_id`, the top-level key list and every other
 *     cloud-config module are not read), and writes them to `~<name>/.ssh/authorized_keys` (0600,
 *     `.ssh` 0700, owned by the user) for names /etc/passwd knows;
 *   - brings up eth0 as 10.0.2.15/24 (QEMU user-mode networking's guest address, which hostfwd
 *     targets), makes a fresh ed25519 host key (so every lease has its own), starts sshd (port 22,
 *     public keys only: no passwords, no keyboard-interactive, no root, no forwarding) and waits until it
 *     listens; then prints `vmhub-nocloud: instance <id> …` on the serial port.
 * A real cloud-init image (a Debian cloud image) reads the same seed unchanged.
 */
import { existsSync } from 'node:fs';
import { VmhubError } from '@vmhub/core';

const SOURCE = 'provider-qemu';

/** The guest port this golden's sshd listens on. */
export const GUEST_SSH_PORT = 22;

/** Host binaries copied to the same path in the guest; the sshd-session/sshd-auth helpers exist from OpenSSH 9.8/10 on. */
export function sshBinaries(): { guest: string; host: string; mode: number }[] {
  const sshd = '/usr/sbin/sshd';
  if (!existsSync(sshd)) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${sshd} not found: \`apt-get install -y openssh-server\` (the tiny-console-agent golden copies sshd into the initramfs)`, { source: SOURCE });
  const optional = ['/usr/lib/openssh/sshd-session', '/usr/lib/openssh/sshd-auth'].filter((p) => existsSync(p));
  return [sshd, '/usr/bin/ssh-keygen', ...optional].map((host) => ({ guest: host.slice(1), host, mode: 0o755 }));
}

export const SSHD_CONFIG = `# vmhub tiny-console: per-lease public keys only (installed from the NoCloud seed at boot)
Port ${GUEST_SSH_PORT}
ListenAddress 0.0.0.0
HostKey /etc/ssh/ssh_host_ed25519_key
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin no
PermitEmptyPasswords no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
AllowStreamLocalForwarding no
PermitTunnel no
UsePAM no
UseDNS no
StrictModes yes
PrintMotd no
PrintLastLog no
PidFile /run/sshd.pid
`;

/**
 * users[].ssh_authorized_keys of a block-style #cloud-config, as `name<TAB>key` lines. Indentation
 * decides where a list ends, so items at the key's own indentation (`- ` under
 * `ssh_authorized_keys:` at the same column) are read too; quotes around a key are removed.
 */
export const NOCLOUD_KEYS_AWK = `function indent(s) { match(s, /^ */); return RLENGTH }
function unquote(s) {
  sub(/^[ \\t]+/, "", s); sub(/[ \\t\\r]+$/, "", s)
  if (s ~ /^".*"$/ || s ~ /^'.*'$/) s = substr(s, 2, length(s) - 2)
  return s
}
/^[ \\t]*(#|\\r?$)/ { next }
{ i = indent($0); t = substr($0, i + 1) }
i == 0 { top = t; name = ""; k = -1; next }
top !~ /^users:/ { next }
k >= 0 && t ~ /^- / && i >= k { if (name != "") print name "\\t" unquote(substr(t, 3)); next }
k >= 0 && i <= k { k = -1 }
t ~ /^- / { name = ""; t = substr(t, 3); i = i + 2 }
t ~ /^name:/ { name = unquote(substr(t, 6)); next }
t ~ /^ssh_authorized_keys:/ { k = i; next }
`;

export const NOCLOUD_SCRIPT = `#!/bin/sh
# vmhub's minimal NoCloud reader (provider-qemu tiny-console-ssh.ts): per-lease SSH keys from the
# cidata seed, then a fresh host key and sshd. Without a seed: nothing (no network, no sshd).
say() { echo "vmhub-nocloud: $*"; }
dev=$(findfs LABEL=cidata 2>/dev/null || findfs LABEL=CIDATA 2>/dev/null)
[ -n "$dev" ] || { say "no cidata seed: no sshd"; exit 0; }
mkdir -p /run/cidata
mount -o ro "$dev" /run/cidata || { say "cannot mount $dev"; exit 1; }
id=$(sed -n 's/^instance-id:[ ]*//p' /run/cidata/meta-data | tr -d '"\\r')
host=$(sed -n 's/^local-hostname:[ ]*//p' /run/cidata/meta-data | tr -d '"\\r')
awk -f /etc/vmhub/nocloud-keys.awk /run/cidata/user-data > /run/nocloud-keys
umount /run/cidata
[ -n "$host" ] && hostname "$host"
tab=$(printf '\\t')
for u in $(cut -f1 /run/nocloud-keys | sort -u); do
  ent=$(grep "^$u:" /etc/passwd) || { say "user $u is not in /etc/passwd: its keys are skipped"; continue; }
  uid=$(echo "$ent" | cut -d: -f3); gid=$(echo "$ent" | cut -d: -f4); home=$(echo "$ent" | cut -d: -f6)
  mkdir -p "$home/.ssh"
  grep "^$u$tab" /run/nocloud-keys | cut -f2- > "$home/.ssh/authorized_keys"
  chmod 700 "$home/.ssh"; chmod 600 "$home/.ssh/authorized_keys"; chown -R "$uid:$gid" "$home/.ssh"
  say "$(wc -l < "$home/.ssh/authorized_keys") key(s) for $u"
done
rm -f /run/nocloud-keys
[ -x /usr/sbin/sshd ] || { say "instance $id: no sshd in this image"; exit 0; }
ip link set lo up
if [ -e /sys/class/net/eth0 ]; then ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0; fi
grep -q '^sshd:' /etc/passwd || echo 'sshd:x:74:65534:sshd privilege separation:/run/sshd:/bin/false' >> /etc/passwd
grep -q '^nogroup:' /etc/group || echo 'nogroup:x:65534:' >> /etc/group
mkdir -p /run/sshd /var/log /dev/pts && chmod 755 /run/sshd
mount -t devpts devpts /dev/pts 2>/dev/null
rm -f /etc/ssh/ssh_host_*
/usr/bin/ssh-keygen -q -t ed25519 -N '' -C "$host" -f /etc/ssh/ssh_host_ed25519_key || { say "ssh-keygen failed"; exit 1; }
/usr/sbin/sshd -E /var/log/sshd.log || { say "sshd did not start:"; cat /var/log/sshd.log; exit 1; }
i=0
while [ $i -lt 100 ] && ! grep -q ':0016 00000000:0000 0A' /proc/net/tcp; do sleep 0.1; i=$((i+1)); done
grep -q ':0016 00000000:0000 0A' /proc/net/tcp || { say "sshd is not listening:"; cat /var/log/sshd.log; exit 1; }
say "instance $id: sshd listening on port ${GUEST_SSH_PORT}"
`;

export const NSSWITCH = 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n';

/** The guest files this module adds (besides the binaries), hashed into the golden's name. */
export function sshGuestFiles(): { guest: string; data: string; mode: number }[] {
  return [
    { guest: 'sbin/vmhub-nocloud', data: NOCLOUD_SCRIPT, mode: 0o755 },
    { guest: 'etc/vmhub/nocloud-keys.awk', data: NOCLOUD_KEYS_AWK, mode: 0o644 },
    { guest: 'etc/ssh/sshd_config', data: SSHD_CONFIG, mode: 0o644 },
    { guest: 'etc/nsswitch.conf', data: NSSWITCH, mode: 0o644 },
  ];
}
