# vmhub file operations, run (perl -e, over the channel's exec) AS THE GUEST USER whose rights
# the file is written or read with: symlinks are resolved and permissions checked by the guest's
# kernel for that user, never by the engine as root. Only perl-base builtins.
#   put PATH MODE SIZE RAND
#                     stdin -> PATH, atomically: parents created (one at a time), the bytes written
#                     to ".<name>.vmhub-RAND" beside the file (a symlink at PATH is followed, 40
#                     deep at most), exactly SIZE of them or nothing, then renamed over it. MODE
#                     (octal, or empty: an existing file's permission bits) applied before the
#                     rename. The temporary file is removed on every failure this script sees.
#   get PATH MAX      PATH -> stdout, refused when larger than MAX bytes or not a regular file
# A failure prints one line on stderr and exits 3: "vmhub-file: ERRNO STAGE [WHERE|size N]".
$0 = 'vmhub-file';
use strict;
use warnings;
use Errno ();
use Fcntl qw(O_WRONLY O_CREAT O_EXCL O_RDONLY O_NONBLOCK S_ISREG S_ISDIR);

binmode STDIN; binmode STDOUT;
my ($op, $path, $arg) = @ARGV;

sub errname {
  my ($n) = @_;
  local $! = $n;
  for my $k (keys %!) { return $k if $!{$k} }
  return "E$n";
}

sub fail {
  my ($err, $stage, $extra) = @_;
  print STDERR "vmhub-file: $err $stage" . (defined $extra ? " $extra" : '') . "\n";
  exit 3;
}

sub parents {
  my @parts = grep { length } split m{/}, $path;
  pop @parts;
  my $dir = '';
  for my $p (@parts) {
    $dir .= "/$p";
    next if -d $dir;
    next if mkdir($dir, 0777);
    my $e = $! + 0;
    next if -d $dir;
    # It exists but is not a directory we can reach: say why (a loop, a dangling link, a file).
    if ($e == Errno::EEXIST) { fail(errname($! + 0), 'mkdir', $dir) unless stat($dir); fail('ENOTDIR', 'mkdir', $dir) }
    fail(errname($e), 'mkdir', $dir);
  }
}

# The file a write lands in: a symlink at PATH is followed, as opening it would.
sub resolve {
  my ($p) = @_;
  for (1 .. 40) {
    return $p unless -l $p;
    my $to = readlink($p);
    fail(errname($! + 0), 'open') unless defined $to;
    $p = $to =~ m{^/} ? $to : ($p =~ m{^(.*)/[^/]*$})[0] . "/$to";
  }
  fail('ELOOP', 'open');
}

our $TMP;
END { unlink($TMP) if defined $TMP }

if ($op eq 'put') {
  my ($size, $rand) = @ARGV[3, 4];
  my $mode = defined $arg && length $arg ? oct($arg) : undef;
  parents();
  my $target = resolve($path);
  fail('EISDIR', 'open') if -d $target;
  my ($dir, $name) = $target =~ m{^(.*)/([^/]*)$};
  # At most 32 bytes of the name, never half a UTF-8 character.
  my $k = length($name) > 32 ? 32 : length($name);
  $k-- while $k > 0 && $k < length($name) && (ord(substr($name, $k, 1)) & 0xC0) == 0x80;
  my $tmp = "$dir/." . substr($name, 0, $k) . ".vmhub-$rand";
  sysopen(my $fh, $tmp, O_WRONLY | O_CREAT | O_EXCL, defined $mode ? $mode & 07777 : 0666) or fail(errname($! + 0), 'open');
  $TMP = $tmp;
  my $got = 0;
  while (1) {
    my $n = sysread(STDIN, my $buf, 1 << 20);
    fail(errname($! + 0), 'read') unless defined $n;
    last unless $n;
    $got += $n;
    for (my $off = 0; $off < $n;) {
      my $w = syswrite($fh, $buf, $n - $off, $off);
      fail(errname($! + 0), 'write') unless defined $w;
      $off += $w;
    }
  }
  # Fewer bytes than were sent: the sender went away mid-write. The file is left as it was.
  fail('EIO', 'read', "got $got of $size bytes") unless $got == $size;
  if (defined $mode) { chmod($mode & 07777, $fh) or fail(errname($! + 0), 'chmod') }
  elsif (my @old = stat($target)) { chmod($old[2] & 0777, $fh) if S_ISREG($old[2]) }
  close($fh) or fail(errname($! + 0), 'close');
  rename($tmp, $target) or fail(errname($! + 0), 'rename');
  $TMP = undef;
  exit 0;
}

if ($op eq 'get') {
  my $max = $arg + 0;
  # O_NONBLOCK: opening a FIFO must not hang; it is refused below like any non-regular file.
  sysopen(my $fh, $path, O_RDONLY | O_NONBLOCK) or fail(errname($! + 0), 'open');
  my @st = stat($fh) or fail(errname($! + 0), 'stat');
  fail('EISDIR', 'open') if S_ISDIR($st[2]);
  fail('ENOTREG', 'open') unless S_ISREG($st[2]);
  fail('EFBIG', 'stat', "size $st[7]") if $st[7] > $max;
  my $left = $max + 1;
  while ($left > 0) {
    my $n = sysread($fh, my $buf, $left < (1 << 20) ? $left : 1 << 20);
    fail(errname($! + 0), 'read') unless defined $n;
    last unless $n;
    $left -= $n;
    for (my $off = 0; $off < $n;) {
      my $w = syswrite(STDOUT, $buf, $n - $off, $off);
      exit 4 unless defined $w;
      $off += $w;
    }
  }
  exit 0;
}

print STDERR "vmhub-file: EINVAL usage\n";
exit 2;
