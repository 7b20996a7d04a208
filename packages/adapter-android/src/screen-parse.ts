/**
 * Parsers for the screen geometry commands (formats in /work/notes/android-contract.md §1):
 * `wm size` (AOSP WindowManagerShellCommand) and the rotation in `dumpsys input`.
 */
export interface Size { width: number; height: number }

/** `Physical size: 1080x2400` and, when set, `Override size: 720x1600` (which wins). */
export function parseWmSize(text: string): { physical?: Size; override?: Size; effective?: Size } {
  const grab = (label: string): Size | undefined => {
    const m = new RegExp(`${label} size:\\s*(\\d+)x(\\d+)`).exec(text);
    return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
  };
  const physical = grab('Physical');
  const override = grab('Override');
  return { physical, override, effective: override ?? physical };
}

/**
 * Rotation quarter-turns (0–3) of the internal display: the viewport line
 * `Viewport INTERNAL: displayId=0, … orientation=1, …` (Android 10+) or `SurfaceOrientation: 1`
 * (older InputReader dumps). Absent → 0.
 */
export function parseRotation(text: string): number {
  const viewport = /Viewport INTERNAL:[^\n]*?\borientation=(\d)/.exec(text);
  if (viewport) return Number(viewport[1]) % 4;
  const surface = /SurfaceOrientation:\s*(\d)/.exec(text);
  if (surface) return Number(surface[1]) % 4;
  return 0;
}

/** The screen as screencap shows it: wm's natural-orientation size, swapped for 90°/270°. */
export function currentSize(natural: Size, rotation: number): Size {
  return rotation % 2 === 1 ? { width: natural.height, height: natural.width } : natural;
}
