# vmhub exec helper: started once per channel (perl -e, as root, over one hijacked docker exec),
# it fork/execs argv requests multiplexed by id so an action pays a fork, not a runc exec.
# Only perl-base builtins. Frames both ways: u8 type, u32 id, u32 length, payload (big-endian).
#   in : S spawn (u32 nenv, u32 nargv, then u32-prefixed strings: user, cwd, env..., argv...)
#        I stdin chunk, E stdin eof, K kill (process group), Q quit
#   out: P ready (payload = pid), O stdout, R stderr, X exit (u8 kind 0=exit 1=signal, u8 value)
# The title replaces the (long) perl -e command line in ps and /proc/<pid>/cmdline.
$0 = 'vmhub-exec-helper';
use strict;
use warnings;
use IO::Select;
use POSIX qw(:sys_wait_h setsid);

$| = 1;
binmode STDIN; binmode STDOUT;
$SIG{PIPE} = 'IGNORE';
my $chld = 0;
$SIG{CHLD} = sub { $chld = 1 };

my (%job, %byfh);    # id -> job; fileno -> [id, stream]
my $in = '';
my $sel_r = IO::Select->new(\*STDIN);
my $sel_w = IO::Select->new();
my %users;

sub out {
  my ($type, $id, $data) = @_;
  my $buf = pack('CNN', ord($type), $id, length $data) . $data;
  while (length $buf) {
    my $n = syswrite(STDOUT, $buf);
    if (!defined $n) { next if $!{EINTR} || $!{EAGAIN}; exit 0 }
    substr($buf, 0, $n, '');
  }
}

sub user_info {
  my ($name) = @_;
  return $users{$name} if $users{$name};
  my @pw = $name =~ /^\d+$/ ? getpwuid($name) : getpwnam($name);
  return undef unless @pw;
  my @groups = ($pw[3]);
  setgrent();
  while (my @gr = getgrent()) { push @groups, $gr[2] if grep { $_ eq $pw[0] } split ' ', $gr[3] }
  endgrent();
  return $users{$name} = { name => $pw[0], uid => $pw[2], gid => $pw[3], home => $pw[7], groups => \@groups };
}

sub spawn {
  my ($id, $p) = @_;
  my ($nenv, $nargv) = unpack('NN', substr($p, 0, 8, ''));
  my @s;
  while (length $p) { my $l = unpack('N', substr($p, 0, 4, '')); push @s, substr($p, 0, $l, '') }
  my ($user, $cwd) = splice(@s, 0, 2);
  my @env = splice(@s, 0, $nenv);
  my @argv = @s;
  my $u = user_info($user);
  pipe(my $ir, my $iw) or die; pipe(my $or, my $ow) or die; pipe(my $er, my $ew) or die;
  my $pid = fork();
  if (!defined $pid) { out('R', $id, "vmhub-exec: fork failed: $!\n"); out('X', $id, pack('CC', 0, 126)); return }
  if ($pid == 0) {
    $SIG{CHLD} = 'DEFAULT'; $SIG{PIPE} = 'DEFAULT';
    close $iw; close $or; close $er;
    open(STDIN, '<&', $ir); open(STDOUT, '>&', $ow); open(STDERR, '>&', $ew);
    setsid();
    if (!$u) { print STDERR "vmhub-exec: no such user \"$user\" in the guest\n"; POSIX::_exit(126) }
    if ($u->{uid} != $> || $u->{gid} != $)) {
      $) = join(' ', $u->{gid}, @{ $u->{groups} });
      $( = $u->{gid};
      POSIX::setuid($u->{uid}) or do { print STDERR "vmhub-exec: cannot become $user: $!\n"; POSIX::_exit(126) };
    }
    %ENV = (%ENV, HOME => $u->{home}, USER => $u->{name}, LOGNAME => $u->{name});
    for (@env) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
    my $dir = length $cwd ? $cwd : $u->{home};
    chdir($dir) or do { print STDERR "vmhub-exec: cannot change to directory $dir: $!\n"; POSIX::_exit(126) };
    { no warnings 'exec'; exec { $argv[0] } @argv; }
    print STDERR "vmhub-exec: cannot run $argv[0]: $!\n";
    POSIX::_exit($!{ENOENT} ? 127 : 126);
  }
  close $ir; close $ow; close $ew;
  for ($iw, $or, $er) { my $fl = fcntl($_, POSIX::F_GETFL(), 0); fcntl($_, POSIX::F_SETFL(), $fl | POSIX::O_NONBLOCK()) }
  my $j = $job{$id} = { pid => $pid, in => $iw, inbuf => '', ineof => 0, open => 2, status => undef };
  $byfh{ fileno $or } = [$id, 'O']; $byfh{ fileno $er } = [$id, 'R'];
  $j->{fhs} = [$or, $er];
  $sel_r->add($or, $er);
}

sub close_stdin {
  my ($j) = @_;
  return unless $j->{in};
  $sel_w->remove($j->{in});
  close $j->{in};
  $j->{in} = undef;
}

sub finish {
  my ($id) = @_;
  my $j = $job{$id} or return;
  return unless defined $j->{status} && ($j->{open} == 0 || time() >= $j->{grace});
  for my $fh (@{ $j->{fhs} }) { if (defined fileno $fh) { delete $byfh{ fileno $fh }; $sel_r->remove($fh); close $fh } }
  close_stdin($j);
  my $st = $j->{status};
  out('X', $id, WIFSIGNALED($st) ? pack('CC', 1, WTERMSIG($st)) : pack('CC', 0, WEXITSTATUS($st)));
  delete $job{$id};
}

sub reap {
  $chld = 0;
  while ((my $pid = waitpid(-1, WNOHANG)) > 0) {
    for my $id (keys %job) {
      next unless $job{$id}{pid} == $pid;
      $job{$id}{status} = $?;
      # A grandchild may keep the pipes open: report the exit after a short drain.
      $job{$id}{grace} = time() + 1;
      finish($id);
    }
  }
}

sub handle {
  my ($type, $id, $p) = @_;
  if ($type eq 'S') { spawn($id, $p) }
  elsif ($type eq 'I') { my $j = $job{$id} or return; if ($j->{in}) { $j->{inbuf} .= $p; $sel_w->add($j->{in}) } }
  elsif ($type eq 'E') { my $j = $job{$id} or return; $j->{ineof} = 1; close_stdin($j) if $j->{in} && !length $j->{inbuf} }
  elsif ($type eq 'K') { my $j = $job{$id} or return; kill('KILL', -$j->{pid}); kill('KILL', $j->{pid}) }
  elsif ($type eq 'Q') { shutdown_all() }
}

# The connection is gone (the server died or closed the channel). Every job's stdin ends first,
# so a file writer sees its input cut short and removes its temporary file (file-ops.pl put);
# at most 200 ms later every job's process group is killed.
sub shutdown_all {
  my %left = map { $_->{pid} => 1 } grep { !defined $_->{status} } values %job;
  close_stdin($_) for values %job;
  for (1 .. 10) {
    while ((my $pid = waitpid(-1, WNOHANG)) > 0) { delete $left{$pid} }
    last unless %left;
    select(undef, undef, undef, 0.02);
  }
  kill('KILL', -$_->{pid}) for values %job;
  exit 0;
}

out('P', 0, "$$");
while (1) {
  reap() if $chld;
  my $timeout = (grep { defined $_->{status} } values %job) ? 0.05 : (%job ? 1 : undef);
  my ($r, $w) = IO::Select->select($sel_r, $sel_w->count ? $sel_w : undef, undef, $timeout);
  reap() if $chld;
  for my $fh (@{ $r || [] }) {
    if ($fh == \*STDIN || (defined fileno($fh) && fileno($fh) == 0)) {
      my $n = sysread(STDIN, my $buf, 65536);
      next if !defined $n && ($!{EINTR} || $!{EAGAIN});
      shutdown_all() if !$n;
      $in .= $buf;
      while (length $in >= 9) {
        my ($t, $id, $len) = unpack('CNN', $in);
        last if length $in < 9 + $len;
        my $p = substr($in, 9, $len);
        substr($in, 0, 9 + $len, '');
        handle(chr $t, $id, $p);
      }
      next;
    }
    my $ref = $byfh{ fileno $fh } or next;
    my ($id, $stream) = @$ref;
    my $n = sysread($fh, my $buf, 65536);
    next if !defined $n && ($!{EINTR} || $!{EAGAIN});
    if ($n) { out($stream, $id, $buf); next }
    delete $byfh{ fileno $fh }; $sel_r->remove($fh); close $fh;
    $job{$id}{open}-- if $job{$id};
    finish($id);
  }
  for my $fh (@{ $w || [] }) {
    my ($id) = grep { $job{$_}{in} && $job{$_}{in} == $fh } keys %job;
    next unless defined $id;
    my $j = $job{$id};
    my $n = syswrite($fh, $j->{inbuf});
    if (!defined $n) { next if $!{EAGAIN} || $!{EINTR}; $j->{inbuf} = ''; close_stdin($j); next }
    substr($j->{inbuf}, 0, $n, '');
    if (!length $j->{inbuf}) { $sel_w->remove($fh); close_stdin($j) if $j->{ineof} }
  }
  finish($_) for grep { defined $job{$_}{status} } keys %job;
}
