#!/bin/sh
# sshd for a person's way in (`vmhub-server leases ssh`), as a manifest's "ssh" fact says: the setup
# of debian-x11 ("setup": "../lib/sshd-setup.sh") and part of debian-desktop's (its setup.sh runs it).
# Run as root in the root filesystem after packages, user and files. Nothing of a
# key is left in the image: the host keys openssh-server's install made are removed (the session
# makes the container's own at its first start) and no authorized key is installed (the provider
# gives each lease its own at create, as VMHUB_SSH_AUTHORIZED_KEY).
set -eu
rm -f /etc/ssh/ssh_host_*
# Loopback only (the container keeps networking off: the provider's guest-port bridge reaches it),
# the lease's key only (the session adds AllowUsers <lease user>), nothing forwarded.
cat > /etc/ssh/sshd_config.d/vmhub.conf <<'CFG'
ListenAddress 127.0.0.1
Port 22
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
PrintLastLog no
CFG
# No message of the day: a command's output is the command's alone (`leases ssh <id> -- cmd`).
sed -i '/pam_motd\.so/d' /etc/pam.d/sshd
# sshd is started by the session (vmhub-session), never by an init system.
test -x /usr/sbin/sshd
command -v ssh-keygen >/dev/null
