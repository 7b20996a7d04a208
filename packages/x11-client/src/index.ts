/**
 * @vmhub/x11-client: the X11 wire protocol over a unix socket, as little of it as vmhub needs —
 * connection setup, requests with replies, errors and events (connection.ts), and the few core
 * requests its users share (requests.ts). Extensions (XTEST) are built by their users on top.
 */
export { XConnection, XProtocolError, XRefused, pad4, type XConnectionOptions, type XSetup } from './connection.ts';
export { ATOM_WINDOW, MAPPING_NOTIFY, PROPERTY_CHANGE_MASK, PROPERTY_NOTIFY, getProperty32, internAtom, queryExtension, selectEvents } from './requests.ts';
