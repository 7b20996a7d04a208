/**
 * @vmhub/core/config — what the server and the reaper share besides the contract: the
 * configuration (env + JSON file) and plugin discovery. Node only; plugins never import it.
 */
export * from './config.ts';
export * from './plugins.ts';
