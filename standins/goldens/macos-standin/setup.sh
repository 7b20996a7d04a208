#!/bin/sh
# macos-standin setup (root, in the image's root filesystem, after packages, user and files).
set -eu
# Host keys made once, at build: every container of this image shares them (a stand-in; the
# adapter pins the key it sees per lease). A real Mac has its own.
ssh-keygen -A
# Debian's sshd_config also names a Subsystem sftp; ours (the drop-in, read first) wins, so drop theirs.
sed -i 's/^Subsystem[[:space:]]\+sftp/#&/' /etc/ssh/sshd_config
# "*" is no password but not a locked account (sshd without PAM refuses "!"-locked accounts).
usermod -p '*' user
install -d -m 0700 -o user -g user /home/user/.ssh
install -m 0600 -o user -g user /dev/null /home/user/.ssh/authorized_keys
mkdir -p /run/sshd
