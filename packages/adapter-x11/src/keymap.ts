/**
 * Keyboard-map access for vm_type without xmodmap: a tiny Perl program (perl-base is in every
 * Debian image) that speaks just enough X11 protocol over the display's unix socket —
 * connection setup, GetKeyboardMapping, ChangeKeyboardMapping — to list free keycodes and bind
 * characters to them. It needs a server that accepts the connection without a cookie (Xvfb -ac,
 * or no -auth); otherwise it fails and vm_type falls back to xdotool's own remapping.
 *
 *   perl -e KEYMAP_PL dump            → "keycode N = 0x61 0x41 ..." per keycode (free ones empty)
 *   perl -e KEYMAP_PL bind N:HEX ...  → binds keysym HEX to keycode N (all levels), then syncs
 *   perl -e KEYMAP_PL unbind N:HEX ...→ unbinds keycode N only while it still carries keysym HEX
 *                                       (a keycode someone re-bound since is left alone), then
 *                                       syncs; prints "unbound N..."
 *   perl -e KEYMAP_PL release         → releases (XTEST) every key and pointer button the server
 *                                       holds down (QueryKeymap, QueryPointer), then syncs; prints
 *                                       "released keys N... buttons N..."
 */

export const KEYMAP_PL = String.raw`
use strict; use warnings; use Socket;
my ($cmd, @args) = @ARGV;
my $d = defined $ENV{DISPLAY} ? $ENV{DISPLAY} : '';
$d =~ /^[^:]*:(\d+)/ or die "DISPLAY \"$d\" is not a local display\n";
my $path = "/tmp/.X11-unix/X$1";
my $s;
for my $addr ($path, "\0$path") {
  socket(my $try, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n";
  if (connect($try, pack_sockaddr_un($addr))) { $s = $try; last; }
}
die "cannot connect to $path\n" unless $s;
sub rd { my ($len) = @_; my $buf = ''; while (length($buf) < $len) { my $r = sysread($s, $buf, $len - length($buf), length($buf)); die "X server closed the connection\n" unless $r; } return $buf; }
sub wr { my ($b) = @_; my $o = 0; while ($o < length $b) { my $w = syswrite($s, $b, length($b) - $o, $o); die "write: $!\n" unless defined $w; $o += $w; } }
sub reply { while (1) { my $p = rd(32); my $t = unpack('C', $p); die sprintf("X error %d (request %d)\n", unpack('x C x8 C', $p)) if $t == 0; if ($t == 1) { my $len = unpack('x4 L', $p); return $p . rd($len * 4); } } }
wr(pack('a1 x S S S S x2', 'l', 11, 0, 0, 0));
my $h = rd(8);
my ($ok, $rlen, $extra) = unpack('C C x4 S', $h);
my $data = rd($extra * 4);
die "X server refused the connection: " . substr($data, 0, $rlen) . "\n" unless $ok == 1;
my ($min, $max) = unpack('x26 C C', $data);
my $count = $max - $min + 1;
wr(pack('C x S C C x2', 101, 2, $min, $count));
my $r = reply();
my $per = unpack('x C', $r);
my @ks = unpack('L*', substr($r, 32));
if ($cmd eq 'dump') {
  for my $i (0 .. $count - 1) {
    my @row = @ks[$i * $per .. $i * $per + $per - 1];
    pop @row while @row && !$row[-1];
    print 'keycode ', $min + $i, ' =', join('', map { sprintf(' 0x%x', $_) } @row), "\n";
  }
} elsif ($cmd eq 'bind') {
  for my $a (@args) {
    my ($code, $hex) = $a =~ /^(\d+):([0-9a-f]+)$/ or die "bad binding $a\n";
    die "keycode $code outside $min..$max\n" if $code < $min || $code > $max;
    my $sym = hex $hex;
    my @row = map { $_ < 4 ? $sym : 0 } 0 .. $per - 1;
    wr(pack('C C S C C x2 L*', 100, 1, 2 + $per, $code, $per, @row));
  }
  wr(pack('C x S', 43, 1));
  reply();
  print "ok\n";
} elsif ($cmd eq 'unbind') {
  my @done;
  for my $a (@args) {
    my ($code, $hex) = $a =~ /^(\d+):([0-9a-f]+)$/ or die "bad binding $a\n";
    next if $code < $min || $code > $max || $ks[($code - $min) * $per] != hex $hex;
    wr(pack('C C S C C x2 L*', 100, 1, 2 + $per, $code, $per, (0) x $per));
    push @done, $code;
  }
  wr(pack('C x S', 43, 1));
  reply();
  print "unbound @done\n";
} elsif ($cmd eq 'release') {
  my ($vlen, $nfmt) = unpack('x16 S x3 C', $data);
  my $root = unpack('L', substr($data, 32 + (($vlen + 3) & ~3) + 8 * $nfmt, 4));
  wr(pack('C x S S x2 a8', 98, 4, 5, 'XTEST'));
  my ($present, $major) = unpack('x8 C C', reply());
  die "the X server has no XTEST extension\n" unless $present;
  wr(pack('C x S', 44, 1));
  my $keys = substr(reply(), 8, 32);
  wr(pack('C x S L', 38, 2, $root));
  my $mask = unpack('x24 S', reply());
  my @down = grep { vec($keys, $_, 1) } $min .. $max;
  my @buttons = grep { $mask & (1 << (7 + $_)) } 1 .. 5;
  wr(pack('C C S C C x2 L L x8 s s x4 x3 C', $major, 2, 9, 3, $_, 0, 0, 0, 0, 0)) for @down;
  wr(pack('C C S C C x2 L L x8 s s x4 x3 C', $major, 2, 9, 5, $_, 0, 0, 0, 0, 0)) for @buttons;
  wr(pack('C x S', 43, 1));
  reply();
  print "released keys @down buttons @buttons\n";
} else { die "usage: dump | bind N:HEX... | unbind N:HEX... | release\n"; }
`;
