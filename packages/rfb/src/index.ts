/**
 * @vmhub/rfb: an RFB (VNC) client for Node. Protocol 3.3, 3.7, 3.8 and Apple's 003.889; security
 * None, VNC auth and Apple Remote Desktop (type 30); Raw, CopyRect and ZRLE with DesktopSize;
 * a framebuffer kept current by incremental updates; keysym keyboard and pointer input.
 * The ARD stand-in server its tests use is the private workspace package `@vmhub/ard-standin`.
 */
export { connectRfb, type ConnectRfbOptions } from './connect.ts';
export { RfbClient, ENCODINGS, offeredEncodings, type RfbEncodingName, type MouseButton, type RfbScreenshot, type RfbClientEvents } from './client.ts';
export { RfbError, type RfbErrorCode } from './errors.ts';
export { keysymFor, keysymForChar, parseCombo } from './keysyms.ts';
export { vncAuthResponse, ardResponse, type ArdChallenge } from './auth.ts';
export type { RfbProtocol, RfbSecurity, PixelFormat } from './handshake.ts';
