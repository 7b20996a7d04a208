"""screencap and wm, backed by the real Xvfb framebuffer.

screencap after frameworks/base/cmds/screencap/screencap.cpp: `screencap -p` writes a PNG (RGBA,
8 bits per channel, as Skia encodes the RGBA_8888 capture) to stdout or FILE; without -p (and a
FILE not ending in .png) the raw form: little-endian u32 width, height, format (1 =
PIXEL_FORMAT_RGBA_8888) and dataspace (1 = sRGB, written since Android 9), then the pixels row
by row. Pixels come from Xvfb's -fbdir file (the live framebuffer as an XWD image) or,
without it, from `xwd -root`: what is on the display when the command runs.

wm after frameworks/base/services/core/java/com/android/server/wm/WindowManagerShellCommand.java:
`wm size` → "Physical size: WxH", `wm density` → "Physical density: N". The stand-in's display
cannot change size: setting a size or density is refused.
"""
import os
import struct
import subprocess
import sys
import zlib

import android

FB = os.environ.get('VMHUB_FBDIR', '/run/vmhub-fb')


def xwd_image():
    """(width, height, rgba bytes) of the display, from the XWD framebuffer file or xwd -root."""
    fb = os.path.join(FB, 'Xvfb_screen0')
    if os.path.exists(fb):
        with open(fb, 'rb') as f:
            data = f.read()
    else:
        data = subprocess.run(['xwd', '-root', '-silent'], check=True, stdout=subprocess.PIPE).stdout
    (header_size, _ver, _fmt, _depth, width, height, _xoff, byte_order, _unit, _bo, _pad, bpp, bpl,
     _vc, red_mask, green_mask, blue_mask, _bits, _entries, ncolors) = struct.unpack('>20I', data[:80])
    if bpp != 32:
        android.die(f'screencap: unsupported framebuffer depth {bpp} bpp (the stand-in runs Xvfb at 24 bits)')
    start = header_size + ncolors * 12
    pixels = memoryview(data)[start:start + bpl * height]
    if bpl != width * 4:
        pixels = b''.join(pixels[r * bpl:r * bpl + width * 4] for r in range(height))

    def byte_of(mask):  # which byte of a 32-bit pixel holds this channel
        shift = (mask & -mask).bit_length() - 1
        return shift // 8 if byte_order == 0 else 3 - shift // 8

    n = width * height
    rgba = bytearray(n * 4)
    rgba[0::4] = pixels[byte_of(red_mask)::4]
    rgba[1::4] = pixels[byte_of(green_mask)::4]
    rgba[2::4] = pixels[byte_of(blue_mask)::4]
    rgba[3::4] = b'\xff' * n
    return width, height, rgba


def png(width, height, rgba):
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)

    stride = width * 4
    raw = b''.join(b'\x00' + rgba[r * stride:(r + 1) * stride] for r in range(height))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 6, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b''))


def screencap(args):
    want_png, target, i = False, None, 0
    while i < len(args):
        a = args[i]
        if a == '-p':
            want_png = True
        elif a in ('-d', '-a'):
            i += 1  # display id / all displays: one display here
        elif a in ('-h', '--help') or a.startswith('-'):
            sys.stderr.write('usage: screencap [-hp] [-d display-id] [FILENAME]\n'
                             '   -h: this message\n   -p: save the file as a png.\n'
                             '   -d: specify the display ID to capture.\n'
                             'If FILENAME ends with .png it will be saved as a png.\n'
                             'If FILENAME is not given, the results will be printed to stdout.\n')
            return 1
        else:
            target = a
        i += 1
    if target and target.endswith('.png'):
        want_png = True
    w, h, rgba = xwd_image()
    out = png(w, h, rgba) if want_png else struct.pack('<IIII', w, h, 1, 1) + bytes(rgba)
    if target:
        try:
            with open(target, 'wb') as f:
                f.write(out)
        except OSError as e:
            sys.stderr.write(f'Error opening file: {target} ({e.strerror})\n')
            return 1
    else:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    return 0


def screen_size():
    fb = os.path.join(FB, 'Xvfb_screen0')
    if os.path.exists(fb):
        with open(fb, 'rb') as f:
            head = f.read(32)
        return struct.unpack('>II', head[16:24])
    size = android.props().get('vmhub.standin.screen', '1080x2400')
    w, h = size.split('x')[:2]
    return int(w), int(h)


def density():
    return int(android.props().get('ro.sf.lcd_density', '420'))


def wm(args):
    if args[:1] == ['size'] and len(args) == 1:
        w, h = screen_size()
        print(f'Physical size: {w}x{h}')
        return 0
    if args[:1] == ['density'] and len(args) == 1:
        print(f'Physical density: {density()}')
        return 0
    if args[:1] in (['size'], ['density']) and args[1:] == ['reset']:
        return 0
    if args[:1] in (['size'], ['density']):
        sys.stderr.write(f'Error: the vmhub stand-in cannot change the display {args[0]} (Xvfb is fixed at start)\n')
        return 255
    sys.stdout.write('Window manager (window) commands:\n  help\n      Print this help text.\n'
                     '  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n      Return or override display size.\n'
                     '  density [reset|DENSITY] [-d DISPLAY_ID]\n      Return or override display density.\n')
    return 0 if args[:1] == ['help'] else 255
