/**
 * @vmhub/postgres-testing — a real PostgreSQL (Debian's) for vmhub's tests and benchmarks: a
 * cluster in a temporary directory on a loopback port, started, stopped, killed and restarted on
 * demand. Private: never a dependency of published code.
 */
export { startPostgres, postgresBinDir, type PostgresServer, type PostgresOptions } from './server.ts';
export { createNetwork, type Host, type Network } from './netns.ts';
