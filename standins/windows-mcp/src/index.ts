export { startStandin, allowedHostsFor, stateJson, type Standin } from './server.ts';
export { Desktop, type SimWindow, type UiElement } from './desktop.ts';
export { decodePng, encodePng } from './png.ts';
export { VERSION_INFO, type RecordedTool } from './schemas.ts';
export { QUARANTINE_MESSAGE, SNAPSHOT_FIRST } from './tool-kit.ts';
export { type Faults, type StandinOptions, type StandinVersion, VERSIONS, VERSION_ALIASES } from './types.ts';
