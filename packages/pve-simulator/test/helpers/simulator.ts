/**
 * The setup most simulator tests share: one simulator for the enclosing describe(), started in
 * before() and closed in after(), plus a client holding its root token.
 */
import { after, before } from 'node:test';
import { simClient, startPveSimulator, type PveSimulator, type PveSimulatorOptions, type SimClient } from '../../src/index.ts';

export interface SimFixture {
  /** Set once before() ran: read it inside hooks and tests, not at describe() time. */
  readonly sim: PveSimulator;
  readonly api: SimClient;
}

/** `setup` runs after the start, before the client is made (add tokens, seed guest files). */
export function useSimulator(options: PveSimulatorOptions, setup?: (sim: PveSimulator) => void): SimFixture {
  const fixture = {} as { sim: PveSimulator; api: SimClient };
  before(async () => {
    fixture.sim = await startPveSimulator(options);
    setup?.(fixture.sim);
    fixture.api = simClient(fixture.sim);
  });
  after(() => fixture.sim.close());
  return fixture;
}
